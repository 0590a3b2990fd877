"""Code generation for a software-pipelined loop: prologue, kernel, epilogue.

Given a loop (its view, :mod:`schedcc.swp.view`), its modulo schedule with II and S
stages, and the modulo-variable-expansion plan (kernel unroll factor u, q
register copies per value; :mod:`schedcc.sched.lifetimes`), the loop block
``L`` is replaced by::

    L:          trip count T of the loop (computed from the induction variable
                and the bound on entry); if T < S - 1 + u: go to L.orig
    L.pipe:     (u > 1) r = (T - S + 1) mod u; if r > 0: go to L.pre
    L.pre:      (u > 1) r iterations of the original body, so that the
                kernel runs a multiple of u times
    L.pro:      the bound for the kernel's exit test; live-in copies;
                the prologue: S - 1 partial passes that start iterations 0..S-2
    L.kernel:   u passes of the kernel (each stage s of iteration p - s in pass p),
                one exit test at the end: br c, L.kernel, L.epi
    L.epi:      S - 1 passes that finish the last S - 1 iterations;
                copies that put every register's final value back in its name;
                jmp exit
    L.orig:     the original loop, for trip counts too small to pipeline

Every value defined in the body gets q register copies (``x``, ``x.1``, ...):
iteration j writes copy ``j mod q`` and a use of distance d reads copy
``(j - d) mod q``, so no value is overwritten before its last use. Inside a
pass, instructions follow their schedule rows; in one cycle the older
iteration goes first, then program order: the order a machine issuing the
rows would see.

An induction variable read only in addresses needs no old copies: such a read
takes the freshest copy whose value is ready and corrects the address by the
steps in between (``store C[j.2 - 6], c2``); the lifetimes that size q count
it that way (:func:`schedcc.sched.lifetimes.value_lifetime`).

The kernel's exit test is the loop's own compare with the bound shifted by
``(stage of the branch + u - 1) * step``, so that it asks "do u more
iterations remain?" without a separate counter.

O(S * u * n) instructions are produced. The output parses again as IR.

Example (the pipeliner calls :func:`generate` for every loop it schedules)::

    >>> from schedcc import parse
    >>> from schedcc.swp.pipeliner import pipeline_program
    >>> res = pipeline_program(parse(open("examples/loops/lecture_cj.ir").read()), "la464")
    >>> [b.label for b in res.loops[0].blocks][:4]
    ['loop', 'loop.pipe', 'loop.pre', 'loop.pro']
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schedcc.ir import Affine, Block, Const, Instr, Label, Mem, Reg
from schedcc.swp.view import LoopView
from schedcc.sched.lifetimes import RegisterPressure
from schedcc.sched.modulo import ModuloSchedule


def _names_in(function) -> tuple[set[str], set[str]]:
    regs = {p.name for p in function.params}
    labels = set()
    for b in function.blocks:
        labels.add(b.label)
        for ins in b.instrs:
            regs.update(ins.uses())
            regs.update(ins.defs())
    return regs, labels


class _Fresh:
    def __init__(self, taken: set[str]):
        self.taken = taken

    def __call__(self, base: str) -> str:
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}{k}"
        self.taken.add(name)
        return name


def _op(opcode: str, dest: str, a, b=None) -> Instr:
    def val(x):
        return x if isinstance(x, (Reg, Const)) else (Const(x) if isinstance(x, int) else Reg(x))
    ops = (val(a),) if b is None else (val(a), val(b))
    syntax = "copy" if opcode == "mov" else "infix" if b is not None else "named"
    return Instr(opcode, Reg(dest), ops, syntax=syntax)


@dataclass
class Passes:
    """The instructions of a pipelined loop before they are put in blocks: ``head``
    (the kernel's bound, the live-in copies), the prologue, the kernel (its last
    instruction the loop branch, to ``labels["kernel"]``), the epilogue, and the
    copies that put every register's final value back in its own name."""

    labels: dict[str, str]
    head: list[Instr]
    prologue: list[Instr]
    kernel: list[Instr]
    epilogue: list[Instr]
    copy_back: list[Instr]
    fresh_reg: "_Fresh"


def generate(loop: LoopView, sched: ModuloSchedule, pressure: RegisterPressure) -> list[Block]:
    """The blocks that replace ``loop.block``; the first keeps its label. See the module docstring."""
    p = pipelined_passes(loop, sched, pressure)
    block, L, instrs, lbl, fresh_reg = loop.block, loop.block.label, loop.block.instrs, p.labels, p.fresh_reg
    S, u = sched.stages, pressure.unroll
    prologue = p.head + p.prologue
    kernel = p.kernel
    epilogue = p.epilogue + p.copy_back + [Instr("jmp", None, (Label(loop.exit_label),))]

    original = list(instrs)
    term = original[-1]
    original[-1] = replace(term, operands=tuple(Label(lbl["orig"]) if isinstance(o, Label) and o.name == L else o
                                                for o in term.operands))
    need = S - 1 + u  # iterations the pipelined code runs at least
    out: list[Block] = []
    if need >= 2:
        guard = _trip_count(loop, fresh_reg)
        trip = guard[-1].dest.name
        ok = fresh_reg(f"{L}.long")
        guard.append(_op("ge", ok, trip, need))
        guard.append(Instr("br", None, (Reg(ok), Label(lbl["pipe"] if u > 1 else lbl["pro"]), Label(lbl["orig"]))))
        out.append(Block(L, tuple(guard), block.loc))
        if u > 1:
            rem, more = fresh_reg(f"{L}.rest"), fresh_reg(f"{L}.more")
            pipe = [_op("sub", rem, trip, S - 1), _op("rem", rem, rem, u), _op("gt", more, rem, 0),
                    Instr("br", None, (Reg(more), Label(lbl["pre"]), Label(lbl["pro"])))]
            out.append(Block(lbl["pipe"], tuple(pipe)))
            pre = original[:-1] + [_op("sub", rem, rem, 1), _op("gt", more, rem, 0),
                                   Instr("br", None, (Reg(more), Label(lbl["pre"]), Label(lbl["pro"])))]
            out.append(Block(lbl["pre"], tuple(pre)))
        out.append(Block(lbl["pro"], tuple(prologue)))
    else:
        out.append(Block(L, tuple(prologue), block.loc))
    out.append(Block(lbl["kernel"], tuple(kernel)))
    out.append(Block(lbl["epi"], tuple(epilogue)))
    if need >= 2:
        out.append(Block(lbl["orig"], tuple(original)))
    return out


def pipelined_passes(loop: LoopView, sched: ModuloSchedule, pressure: RegisterPressure) -> Passes:
    """The instances of every pass with register copies; see :func:`generate`."""
    block, L = loop.block, loop.block.label
    instrs = block.instrs
    ii, S, u = sched.ii, sched.stages, pressure.unroll
    stage = {n: sched.cycle[n] // ii for n in range(len(instrs))}
    row = {n: sched.cycle[n] % ii for n in range(len(instrs))}
    br_node, cmp_node = loop.exit.branch, loop.exit.compare
    regs, labels = _names_in(loop.function)
    fresh_reg, fresh_label = _Fresh(regs), _Fresh(labels)

    # Register copies of every value: copy 0 of a register's last definition keeps its name.
    names: dict[int, list[str]] = {}
    for n, ins in enumerate(instrs):
        if ins.dest is None:
            continue
        r = ins.dest.name
        first = r if loop.last_def.get(r) == n else fresh_reg(f"{r}.v{n}")
        q = pressure.copies.get(n, 1)
        names[n] = [first] + [fresh_reg(f"{first}.{k}") for k in range(1, q)]

    def name(n: int, j: int) -> str:
        return names[n][j % len(names[n])]

    lbl = {k: fresh_label(f"{L}.{k}") for k in ("pipe", "pre", "pro", "kernel", "epi", "orig")}
    step = loop.iv.step
    bound = loop.exit.bound
    shift = (stage[br_node] + u - 1) * step
    head: list[Instr] = []   # block L.pro, before the prologue
    if shift == 0:
        kernel_bound = bound
    elif isinstance(bound, Const):
        kernel_bound = Const(bound.value - shift)
    else:
        kb = fresh_reg(f"{L}.bound")
        head.append(_op("sub", kb, bound, shift))
        kernel_bound = Reg(kb)

    # Induction variables read only in addresses may use the freshest ready copy, the
    # address corrected by the steps in between (this is what keeps their copies few:
    # see schedcc.sched.lifetimes.value_lifetime). ``content`` follows, instruction by
    # instruction, which iteration's value each copy of a step holds and when it issued.
    fresh = loop.address_only_uses()
    steps = {iv.node: iv.step for iv in loop.inductions.values()}
    latency = {n: max(sched.graph.ops[n].latency, 1) for n in range(len(instrs))}
    content: dict[str, tuple[int, float]] = {}

    def address(n: int, j: int, mem: Mem, reg) -> Mem:
        terms: dict[str, int] = {}
        const = mem.index.const
        for r, coef in mem.index.terms:
            src = loop.reaching.get((n, r))
            if src is None or (src[0], n) not in fresh:
                terms[reg(r)] = terms.get(reg(r), 0) + coef
                continue
            y, dist = src
            want, now = j - dist, j * ii + sched.cycle[n]
            ready = [(m, copy) for copy, (m, t) in content.items()
                     if copy in names[y] and t + latency[y] <= now]
            if not ready:
                raise RuntimeError(f"internal: no ready copy of {r} for #{n} in iteration {j}")
            m, copy = max(ready)
            terms[copy] = terms.get(copy, 0) + coef
            const += coef * (want - m) * steps[y]
        return Mem(mem.array, Affine.of(terms, const))

    def instance(n: int, j: int) -> Instr:
        ins = instrs[n]

        def reg(r: str) -> str:
            src = loop.reaching.get((n, r))
            return name(src[0], j - src[1]) if src is not None else r
        ops = []
        for k, op in enumerate(ins.operands):
            if n == cmp_node and k == loop.exit.bound_index:
                ops.append(kernel_bound)
            elif isinstance(op, Reg):
                ops.append(Reg(reg(op.name)))
            elif isinstance(op, Mem):
                ops.append(address(n, j, op, reg))
            elif isinstance(op, Label):
                ops.append(Label(lbl["kernel"] if op.name == L else lbl["epi"]))
            else:
                ops.append(op)
        if n in steps:
            content[name(n, j)] = (j, j * ii + sched.cycle[n])
        return replace(ins, operands=tuple(ops), dest=Reg(name(n, j)) if ins.dest is not None else None)

    def emit_pass(p: int, keep, with_branch: bool) -> list[Instr]:
        chosen = [n for n in range(len(instrs)) if keep(n) and (n != br_node or with_branch)]
        chosen.sort(key=lambda n: (row[n], n == br_node, -stage[n], n))
        return [instance(n, p - stage[n]) for n in chosen]

    # Live-in: iteration 0 reads the values of "iteration -1" from copy q - 1.
    for (n, r), (src, dist) in sorted(loop.reaching.items()):
        if dist and name(src, -dist) != r:
            move = _op("mov", name(src, -dist), r)
            if move not in head:
                head.append(move)
        if dist and src in steps:
            content[name(src, -dist)] = (-dist, float("-inf"))
    prologue: list[Instr] = []
    for p in range(S - 1):
        prologue += emit_pass(p, lambda n, p=p: stage[n] <= p, False)
    kernel: list[Instr] = []
    for t in range(u):
        kernel += emit_pass(S - 1 + t, lambda n: True, t == u - 1)
    # The epilogue follows one round of the kernel (any multiple of u iterations later
    # names the same copies).
    epilogue: list[Instr] = []
    for e in range(S - 1):
        epilogue += emit_pass(S - 1 + u + e, lambda n, e=e: stage[n] >= e + 1, False)
    copy_back = [_op("mov", r, name(n, S - 2)) for r, n in sorted(loop.last_def.items())
                 if r != loop.exit.cond and name(n, S - 2) != r]
    return Passes(lbl, head, prologue, kernel, epilogue, copy_back, fresh_reg)


def _trip_count(loop: LoopView, fresh) -> list[Instr]:
    """Instructions computing the trip count T (>= 1 when the loop is entered) into their
    last destination. Exact when the bound is ahead of the induction variable; otherwise
    they give at most 1, which the guard treats as "too short"."""
    L, iv, ex = loop.block.label, loop.iv, loop.exit
    a = abs(iv.step)
    out: list[Instr] = []
    x0: str | Reg = iv.reg
    if ex.offset:
        x0 = fresh(f"{L}.first")
        out.append(_op("add", x0, iv.reg, ex.offset))
    d = fresh(f"{L}.span")
    if ex.op in ("lt", "le"):
        out.append(_op("sub", d, ex.bound, x0))
    else:
        out.append(_op("sub", d, x0, ex.bound))
    extra = a - 1 + (1 if ex.op in ("le", "ge") else 0)
    if extra:
        out.append(_op("add", d, d, extra))
    if a > 1:
        out.append(_op("div", d, d, a))
    trip = fresh(f"{L}.trip")
    out.append(_op("add", trip, d, 1))
    return out

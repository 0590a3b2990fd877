"""Assembly for a software-pipelined loop, on physical registers (LoongArch and
RISC-V: the opcodes it writes come from :mod:`schedcc.swp.asm_isa`).

The loop block (:mod:`schedcc.swp.asm_loops`) keeps its label and becomes::

    .LBB0_2:                 the guard: do at least S - 1 + u iterations remain
                             (S stages, the kernel unrolled u times)? are the base
                             registers of the run-time checks far enough apart?
                             if not: b .LBB0_2.orig
                             the prologue: S - 1 passes that start iterations 0 .. S-2
    .LBB0_2.kernel:          u passes of the kernel; the loop's own branch with its
                             bound moved by (stage of the branch + u - 1) * step
                             the epilogue; every register the loop writes gets its value
                             back; if the loop would go on (fewer than u iterations were
                             left for the kernel): fall into the original loop, else
                             branch to the exit
    .LBB0_2.orig:            the original loop, for short trip counts and the rest
    (exit)                   the block after the loop; a label is added if it has none

The instructions of the passes, with a register name per value copy, come
from the IR's code generator (:func:`schedcc.swp.codegen.pipelined_passes`:
modulo variable expansion, and addresses corrected by the induction steps in
between, which assembly writes as the load's offset). Then registers: every
value copy is a virtual register, allocated by colouring the interference
graph of the new code; it may take a register the loop writes (its own, for
preference, so that most copies back cost nothing) or one that is free
across the loop (:func:`schedcc.swp.asm_liveness.free_registers`: dead there,
so callee-saved ones only where the function has saved them), else
callee-saved ones saved on the stack around the pipelined code: after the
guard, or before it when the guard's temporary needs one (its failing tests
then load them back in ``<label>.restore`` on the way to the original loop).
When they do not suffice, :class:`NotGenerated` says how many are needed and
how many are free, and the pipeliner tries a larger II. Every line outside the loop stays
byte for byte.

Example::

    >>> from schedcc.frontends import parse_source
    >>> from schedcc.swp.asm_pipeline import pipeline_asm
    >>> res = pipeline_asm(parse_source(open("examples/swp/kernels-O2.s").read(), "k.s"), "la464")
    >>> res.loops[4].name, [label for label, _ in res.loops[4].code]
    ('matvec_row/.LBB4_2', ['.LBB4_2', '.LBB4_2.kernel', '.LBB4_2.orig', '.LBB4_2.exit'])
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schedcc.ir import Const, Instr, Label, Mem, Reg, Sym
from schedcc.sched.lifetimes import RegisterPressure
from schedcc.sched.modulo import ModuloSchedule
from schedcc.swp.asm_dead import drop_dead
from schedcc.swp.asm_isa import AsmIsa
from schedcc.swp.asm_liveness import free_registers
from schedcc.swp.asm_loops import AsmLoop
from schedcc.swp.asm_predicate import is_scratch
from schedcc.swp.asm_ranges import range_guard
from schedcc.swp.codegen import pipelined_passes
from schedcc.swp.llvm_codegen import NotGenerated


@dataclass
class _Op:
    instr: Instr | None = None      # an instruction (names: virtual or physical)
    label: str | None = None        # or a label
    target: str | None = None       # a branch's target label
    falls: bool = True              # control may go on to the next item


def _imm(value: int, what: str) -> Const:
    if not -2048 <= value <= 2047:
        raise NotGenerated(f"{what} {value} does not fit in a 12-bit immediate")
    return Const(value)


def _addi(isa: AsmIsa, dst: str, src: str, value: int, what: str) -> Instr:
    return Instr(isa.addi, Reg(dst), (Reg(src), _imm(value, what)))


def _unsigned_below(isa: AsmIsa, t: str, first: str, second: str, offset: int, limit: int) -> list[Instr]:
    """t = 1 when ``first - second + offset`` (modulo 2^64) is below *limit* unsigned,
    or possibly when it is a little above (never 0 when it is below): constants beyond
    a 12-bit immediate are built in t first (``offset``), or both sides are shifted right
    (``limit``: x < limit implies x >> s < ceil(limit / 2^s))."""
    if -2048 <= offset <= 2047:
        out = [Instr(isa.sub, Reg(t), (Reg(first), Reg(second))), Instr(isa.addi, Reg(t), (Reg(t), Const(offset)))]
    else:
        out = isa.load_const(t, offset) + [Instr(isa.add, Reg(t), (Reg(t), Reg(first))),
                                           Instr(isa.sub, Reg(t), (Reg(t), Reg(second)))]
    shift = 0
    while -(-limit >> shift) > 2047:
        shift += 1
    if shift:
        out.append(Instr(isa.srli, Reg(t), (Reg(t), Const(shift))))
    return out + [Instr(isa.sltui, Reg(t), (Reg(t), Const(-(-limit >> shift))))]


def generate_asm(text: str, x: AsmLoop, sched: ModuloSchedule, pressure: RegisterPressure,
                 live: dict[str, frozenset[str]]) -> tuple[str, list[tuple[str, list[str]]], str]:
    """The whole text with loop *x* pipelined, the new code (label, lines) for reports,
    and a line on the registers used. Raises :class:`NotGenerated` with a reason."""
    loop = x.loop
    isa = x.isa

    def _move(dst: str, src: str) -> Instr:
        if isa.register_class(dst) == "fcc":
            raise NotGenerated(f"a condition flag ({src.replace('v:', '')}) would have to be copied into or out "
                               "of the pipelined code, which takes a general register on the way")
        return isa.move(dst, src)
    func = loop.function
    L = loop.block.label
    S, u, ii = sched.stages, pressure.unroll, sched.ii
    p = pipelined_passes(loop, sched, pressure)
    K, ORIG = p.labels["kernel"], p.labels["orig"]
    labels = {b.label for f in [func] for b in f.blocks}
    EXIT = f"{L}.exit"
    while EXIT in labels:
        EXIT += "_"
    index = [b.label for b in func.blocks].index(L)
    after = func.blocks[index + 1] if index + 1 < len(func.blocks) else None
    exit_live = live[after.label] if after is not None else isa.all
    header_live = live[L]
    lines = text.splitlines()
    first_line = loop.block.loc.line
    branch_line = x.branch.loc.line
    new_exit_label = not (after is not None and after.loc is not None and "~" not in after.label
                          and after.loc.line > branch_line
                          and all(not lines[k].strip() or lines[k].lstrip().startswith("#")
                                  for k in range(branch_line, after.loc.line - 1)))
    if not new_exit_label:
        EXIT = after.label

    ops: list[_Op] = []
    # the guard: enough iterations for the pipelined code?
    ex, iv = loop.exit, loop.iv
    need = S - 1 + u
    t = "swp.t"
    xreg, bound = iv.reg[2:], str(ex.bound)
    if ex.op == "ne":
        # the induction variable must reach the bound exactly, after at least need - 1 more steps
        sign = 1 if iv.step > 0 else -1
        a = abs(iv.step)
        first, second = (bound, xreg) if sign > 0 else (xreg, bound)
        ops.append(_Op(Instr(isa.sub, Reg(t), (Reg(first), Reg(second)))))
        ops.append(_Op(_addi(isa, t, t, -(sign * ex.offset + (need - 1) * a), "the guard's offset")))
        ops.append(_Op(Instr("blt", None, (Reg(t), Reg(isa.zero), Label(ORIG))), target=ORIG))
        if a > 1:
            ops.append(_Op(Instr("andi", Reg(t), (Reg(t), Const(a - 1)))))
            ops.append(_Op(Instr("bnez", None, (Reg(t), Label(ORIG))), target=ORIG))
    elif need >= 2:
        # the first test passes (x0 OP bound), then the distance to the bound, which can no
        # longer wrap, leaves room for need - 1 iterations: |bound - x0| >= (need - 2) * |step| (+1 for < >)
        ops.append(_Op(_addi(isa, t, xreg, ex.offset, "the guard's offset")))
        fail = {"lt": ("bge", t, bound), "le": ("blt", bound, t), "gt": ("bge", bound, t),
                "ge": ("blt", t, bound)}[ex.op]
        op = fail[0] + ("u" if x.unsigned else "")
        ops.append(_Op(Instr(op, None, (Reg(fail[1]), Reg(fail[2]), Label(ORIG))), target=ORIG))
        room = (need - 2) * abs(iv.step) + (1 if ex.op in ("lt", "gt") else 0)
        if room > 0:
            ops.append(_Op(Instr(isa.sub, Reg(t), (Reg(bound), Reg(t)) if ex.op in ("lt", "le") else
                                 (Reg(t), Reg(bound)))))
            ops.append(_Op(Instr(isa.sltui, Reg(t), (Reg(t), _imm(room, "the guard's trip count")))))
            ops.append(_Op(Instr("bnez", None, (Reg(t), Label(ORIG))), target=ORIG))
    for r in x.narrow:
        # a counter read through its low 32 bits sign-extended: equal to itself only if it
        # and the bound (and so every value in between) fit in 32 bits on entry
        ops.append(_Op(Instr(isa.sext, Reg(t), (Reg(r), Const(0)))))
        ops.append(_Op(Instr("bne", None, (Reg(t), Reg(r), Label(ORIG))), target=ORIG))
    for c in x.checks:
        # |first - second + offset| must be at least stride * S + width for every pair
        K_ = c.stride * S + c.width
        group = [d for d in x.checks if (d.first, d.second) == (c.first, c.second)]
        if c is not group[0]:
            continue
        lo = -K_ - max(d.offset for d in group)
        hi = K_ - min(d.offset for d in group)
        for ins in _unsigned_below(isa, t, c.first, c.second, -(lo + 1), hi - lo - 1):
            ops.append(_Op(ins))
        ops.append(_Op(Instr("bnez", None, (Reg(t), Label(ORIG))), target=ORIG))
    for item in range_guard(isa, loop, list(x.ranges), ORIG, L, list(x.extends)):
        ops.append(_Op(label=item) if isinstance(item, str) else
                   _Op(item, target=next((o.name for o in item.operands if isinstance(o, Label)), None)))
    # into the virtual registers
    entry = len(ops)
    for r in x.written:
        if r in header_live:
            ops.append(_Op(_move("v:" + r, r)))
    for ins in p.head:
        if ins.opcode == "sub":   # the kernel's bound
            ops.append(_Op(_addi(isa, ins.dest.name, ins.operands[0].name, -ins.operands[1].value,
                                 "the kernel's bound")))
        elif ins.opcode == "mov":
            ops.append(_Op(_move(ins.dest.name, ins.operands[0].name)))
        else:
            raise NotGenerated(f"internal: unexpected '{ins}' before the prologue")
    ops += [_Op(i) for i in p.prologue]
    ops.append(_Op(label=K))
    ops += [_Op(i) for i in p.kernel[:-1]]
    back = p.kernel[-1]
    if ex.op == "ne":
        # A round of the kernel steps u iterations: the "are u more left?" test must not wait
        # for equality, which it may step over; short of the bound is the same (the guard
        # made sure the bound is met exactly), and if the order wraps the kernel stops early
        # and the original loop does the rest.
        xv, kb = back.operands[1 - ex.bound_index], back.operands[ex.bound_index]
        back = Instr("blt", None, (xv, kb, Label(K)) if iv.step > 0 else (kb, xv, Label(K)))
    ops.append(_Op(back, target=K))
    ops += [_Op(i) for i in p.epilogue]
    # A condition flag dead after the loop and at its top (the original loop may go on) is not
    # copied back (there is no flag-to-flag move).
    flag_dead = lambda r: isa.register_class(r) == "fcc" and r not in exit_live and r not in header_live  # noqa: E731
    ops += [_Op(_move(i.dest.name, i.operands[0].name)) for i in p.copy_back
            if not flag_dead(i.dest.name.replace("v:", ""))]
    ops += [_Op(_move(r, "v:" + r)) for r in x.written if not flag_dead(r)]
    inv = isa.inverse[x.branch.opcode]
    ops.append(_Op(Instr(inv, None, x.branch.operands[:-1] + (Label(EXIT),)), target=EXIT))

    free = free_registers(func, L, live, isa)
    saved: list[str] = []
    try:
        colour = _allocate(ops, x, free, header_live, exit_live, EXIT)
    except NotGenerated:
        # Callee-saved registers the loop does not use: saved on the stack around the
        # pipelined code (not when the loop addresses the stack itself).
        mentioned = _mentioned(x)
        saveable = [r for r in isa.callee_saved_order if r not in mentioned and r not in free and r not in x.written]
        # (the if-converter's scratch bytes below $sp stay below it when $sp moves down)
        if any(isa.sp in i.uses() and not is_scratch(i, isa) for i in x.original.instrs) or not saveable:
            raise
        restore = f"{L}.restore"
        while restore in labels:
            restore += "_"
        for before_guard in (False, True):
            # saved after the guard; else before it (its temporaries may need one of them: every
            # other register is live there), a failing test then restoring them on its way out
            trial = _saving(ops, entry, saveable, before_guard, ORIG, restore, isa)
            try:
                colour = _allocate(trial, x, free + saveable, header_live, exit_live, EXIT)
            except NotGenerated:
                if before_guard:
                    raise
                continue
            ops = trial
            break
        saved = [r for r in saveable if r in colour.values()]
        size = (8 * len(saved) + 15) // 16 * 16
        keep = []
        for op in ops:
            if op.instr is not None and op.instr.attr("spill") is not None:
                r = op.instr.attr("spill")
                if r not in saved:
                    continue
                load = op.instr.opcode in isa.loads
                if not load and r == saved[0]:
                    keep.append(_Op(_addi(isa, isa.sp, isa.sp, -size, "the stack adjustment")))
                keep.append(_Op(isa.spill("ld" if load else "st", r, 8 * saved.index(r))))
                if load and r == saved[-1]:
                    keep.append(_Op(_addi(isa, isa.sp, isa.sp, size, "the stack adjustment")))
                continue
            keep.append(op)
        ops = keep
    code: list[Instr | str] = []
    for op in ops:
        if op.label is not None:
            code.append(op.label)
            continue
        ins = op.instr.renamed(colour)
        if ins.opcode in (isa.gmove, isa.fmove) and ins.dest == ins.operands[0]:
            continue
        code.append(ins)
    # a rotated loop's end-of-body copies of the header, in the iterations of a kernel round
    # that lost their branch: written again before any read (schedcc/swp/asm_dead.py)
    targets = {o.name for i in code if isinstance(i, Instr) for o in i.operands if isinstance(o, Label)}
    body = [f"{i}:" if isinstance(i, str) else "\t" + _format(i, isa)
            for i in drop_dead(code, isa, labels | targets | {K, ORIG, EXIT})]
    orig = [f"{ORIG}:"]
    for k in range(first_line + 1, branch_line + 1):
        line = lines[k - 1]
        if k == branch_line:
            line = re.sub(r"(?<![\w.$])" + re.escape(L) + r"(?![\w.$])", ORIG, line)
        orig.append(line)
    out = lines[:first_line] + body + orig + ([f"{EXIT}:"] if new_exit_label else []) + lines[branch_line:]
    used = sorted({c for c in colour.values() if c not in x.written and c not in _mentioned(x) and c not in saved},
                  key=isa.order.index)
    note = (f"kernel unrolled {u}x for modulo variable expansion; registers: the loop's own"
            + (f" and {len(used)} free ({' '.join(used)})" if used else "")
            + (f", {len(saved)} callee-saved ones saved on the stack around it ({' '.join(saved)})" if saved else ""))
    code = _split_code([lines[first_line - 1].split(":")[0] + ":"] + body + orig
                       + ([f"{EXIT}:"] if new_exit_label else []))
    return "\n".join(out) + ("\n" if text.endswith("\n") else ""), code, note


def _mentioned(x: AsmLoop) -> set[str]:
    return {r for ins in x.original.instrs for r in ins.uses() + ins.defs()}


def _split_code(lines: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in lines:
        if re.match(r"^[\w.$]+:", line):
            out.append((line.split(":")[0], [line]))
        elif out:
            out[-1][1].append(line)
    return out


def _names(ins: Instr, isa: AsmIsa) -> tuple[list[str], list[str]]:
    """(registers read, registers written) of an instruction in the new code."""
    uses = [r for r in ins.uses() if r != isa.zero]
    return uses, list(ins.defs())


def _saving(ops: list[_Op], entry: int, regs: list[str], before_guard: bool, orig: str, restore: str,
            isa: AsmIsa) -> list[_Op]:
    """*ops* with *regs* stored after the guard (at *entry*) or before it, and loaded back
    before the exit branch (the last op); before the guard, its failing tests go to
    *restore*, which loads them back and falls into *orig*."""
    out = ops[:-1] + [_Op(isa.spill("ld", r, 0)) for r in regs] + ops[-1:]
    if not before_guard:
        return out[:entry] + [_Op(isa.spill("st", r, 0)) for r in regs] + out[entry:]
    for k, op in enumerate(out[:entry]):
        if op.target == orig:
            out[k] = _Op(Instr(op.instr.opcode, None, op.instr.operands[:-1] + (Label(restore),)), target=restore)
    return ([_Op(isa.spill("st", r, 0)) for r in regs] + out
            + [_Op(Instr(isa.jumps[0], None, (Label(orig),)), target=orig, falls=False), _Op(label=restore)]
            + [_Op(isa.spill("ld", r, 0)) for r in regs])


def _allocate(ops: list[_Op], x: AsmLoop, free: list[str], header_live, exit_live, exit_label: str) -> dict[str, str]:
    """A physical register for every virtual one: colouring of the interference graph."""
    n = len(ops)
    at = {op.label: k for k, op in enumerate(ops) if op.label is not None}
    live_after: list[set[str]] = [set() for _ in range(n)]
    live_before: list[set[str]] = [set() for _ in range(n)]
    changed = True
    while changed:
        changed = False
        for k in reversed(range(n)):
            op = ops[k]
            out: set[str] = set()
            if op.falls and k + 1 < n:
                out |= live_before[k + 1]
            elif op.falls:
                out |= set(header_live)      # falls into the original loop
            if op.target is not None:
                out |= live_before[at[op.target]] if op.target in at else set(
                    header_live if op.target != exit_label else exit_live)
            if op.instr is None:
                before = set(out)
            else:
                uses, defs = _names(op.instr, x.isa)
                before = (out - set(defs)) | set(uses)
            if out != live_after[k] or before != live_before[k]:
                live_after[k], live_before[k] = out, before
                changed = True
    isa = x.isa
    every = isa.all   # (a property that builds its set: read once)
    virtual = {r for op in ops if op.instr is not None for r in sum(_names(op.instr, isa), []) if r not in every}
    edges: dict[str, set[str]] = {v: set() for v in virtual}
    prefer: dict[str, list[str]] = {v: [] for v in virtual}
    for k, op in enumerate(ops):
        if op.instr is None:
            continue
        uses, defs = _names(op.instr, isa)
        is_move = op.instr.opcode in (isa.gmove, isa.fmove)
        for d in defs:
            for other in live_after[k]:
                if other == d or (is_move and other == uses[0]):
                    continue
                if d in edges:
                    edges[d].add(other)
                if other in edges:
                    edges[other].add(d)
        if is_move:
            a, b = defs[0], uses[0]
            if a in prefer:
                prefer[a].append(b)
            if b in prefer:
                prefer[b].append(a)
    pool = list(dict.fromkeys(list(x.written) + free))
    colour: dict[str, str] = {}
    for v in sorted(virtual, key=lambda v: (-len(edges[v]), v)):
        cls = isa.register_class(v)
        taken = {colour.get(o, o) for o in edges[v]}
        candidates = [r for r in pool if isa.register_class(r) == cls and r not in taken]
        if not candidates:
            live_max = max(sum(1 for r in s if r not in every and isa.register_class(r) == cls) for s in live_after)
            room = [r for r in pool if isa.register_class(r) == cls]
            kind = {"gpr": "integer", "fpr": "floating-point", "fcc": "condition"}[cls]
            raise NotGenerated(f"needs {max(live_max, len(room) + 1)} {kind} registers at once, {len(room)} free "
                               f"(its own and those dead across the loop)")
        liked = [colour.get(o, o) for o in prefer[v]]
        colour[v] = next((r for r in liked if r in candidates), candidates[0])
    return colour


def _mem_text(ins: Instr, mem: Mem, form: str, isa: AsmIsa) -> str:
    terms = [t for t, c in mem.index.terms for _ in range(c)] if all(c > 0 for _, c in mem.index.terms) else None
    if form == "rr":
        if terms is None or len(terms) != 2 or mem.index.const:
            raise NotGenerated(f"internal: '{ins}' has no indexed form")
        return f"{terms[0]}, {terms[1]}"
    regs = [t for t in (terms or []) if t in isa.all]
    syms = [t for t in (terms or []) if t not in isa.all]
    if terms is None or len(regs) != 1 or len(syms) > 1 or (syms and mem.index.const):
        raise NotGenerated(f"internal: '{ins}' has no base + offset form")
    if syms:
        return isa.mem_text(regs[0], "", syms[0])
    off = mem.index.const
    lo, hi = isa.offset_range(ins.opcode)
    if not lo <= off <= hi:
        raise NotGenerated(f"the corrected offset {off} of '{ins.opcode}' is out of range")
    return isa.mem_text(regs[0], str(off))


def _format(ins: Instr, isa: AsmIsa) -> str:
    op = ins.opcode
    if op in isa.loads:
        return f"{op}\t{ins.dest}, {_mem_text(ins, ins.operands[0], isa.loads[op][1], isa)}"
    if op in isa.stores:
        return f"{op}\t{ins.operands[1]}, {_mem_text(ins, ins.operands[0], isa.stores[op][1], isa)}"
    parts = ([str(ins.dest)] if ins.dest is not None else []) + [
        o.name if isinstance(o, (Label, Sym)) else str(o) for o in ins.operands] + isa.format_extra(ins)
    return f"{op}\t{', '.join(parts)}"

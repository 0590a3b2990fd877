"""Loops for the software pipeliner: recognition and dependences with distances.

A loop the pipeliner accepts is a single block that branches back to itself
(``loop: ... br c, loop, exit``) with

* a basic induction variable: a register with exactly one definition in the
  body, ``i = i + c`` (``c`` an integer constant of either sign);
* an exit test ``c = lt x, n`` (or ``le gt ge``, in either operand order, in
  either branch polarity) where ``x`` is the induction variable before or
  after its step and ``n`` is a constant or a register the body never writes,
  so that the trip count is known on entry;
* no call and no instruction with unknown side effects.

Everything else is reported as a :class:`NotPipelined` with a reason a student
can act on (the idea of LLVM's pipeliner remarks).

:func:`loop_dag` builds the dependence graph of one iteration plus the
loop-carried dependences, a :class:`~schedcc.problem.SchedGraph` with the
operations of :func:`schedcc.dag.build_dag`; every dependence also has a
``distance``: 0 within an iteration, d when iteration k+d depends on iteration k. Register values are renamed by the
code generator (modulo variable expansion), so only true (RAW) register
dependences are edges. Memory dependences use the subscripts: an address is
evaluated symbolically as ``sum(coef * entry value) + const + step * k`` in
the iteration number k, so ``store A[i]`` and ``load A[i-2]`` meet at
distance exactly 2 and ``A[2*i]`` never meets ``A[2*i+1]``; what cannot be
analysed gets the conservative distance 1 (and 0 in program order).

Complexity: O(n + m^2) for n instructions of which m access memory.

Example::

    >>> from schedcc import parse
    >>> prog = parse('''func f(n) {
    ... entry:
    ...   i = 0
    ... loop:
    ...   a = load A[i]
    ...   store A[i+2], a
    ...   i = i + 1
    ...   c = i < n
    ...   br c, loop, exit
    ... exit:
    ...   ret i
    ... }''')
    >>> loop = find_loops(prog.functions[0])[0]
    >>> loop.iv.reg, loop.iv.step
    ('i', 1)
    >>> g = loop_dag(loop, "generic")
    >>> g.dep(1, 0).distance, g.dep(1, 0).detail
    (2, 'RAW')
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.dag import build_dag, has_unknown_side_effects
from schedcc.ir import Block, Const, Function, Instr, Mem, Reg
from schedcc.problem import Dep, SchedGraph
from schedcc.target import Target, load_target

COMPARISONS = {"lt", "le", "gt", "ge", "eq", "ne"}
_SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
_NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}


@dataclass(frozen=True)
class Induction:
    """``reg = reg + step`` at instruction ``node``: one definition in the body."""

    reg: str
    step: int
    node: int


@dataclass(frozen=True)
class ExitTest:
    """The loop continues while ``x OP bound`` where ``x = iv_on_entry + offset + step * k``
    in iteration k (``op`` normalised: the induction side on the left, the
    branch polarity folded in). ``bound_index`` is the operand of the compare
    that holds the bound (rewritten by the code generator)."""

    compare: int
    branch: int
    cond: str
    op: str
    offset: int
    bound: Reg | Const
    bound_index: int


@dataclass
class Loop:
    """A single-block loop the pipeliner can transform."""

    function: Function
    block: Block
    iv: Induction
    exit: ExitTest
    exit_label: str
    # (node, register) -> (defining node, distance); absent = loop invariant
    reaching: dict[tuple[int, str], tuple[int, int]] = field(default_factory=dict)
    # registers with a definition in the body -> their last defining node
    last_def: dict[str, int] = field(default_factory=dict)
    # memory access node -> symbolic address (see _Sym), None if unknown
    addresses: dict[int, tuple | None] = field(default_factory=dict)
    # every basic induction variable of the body (the exit test's is ``iv``)
    inductions: dict[str, Induction] = field(default_factory=dict)
    # memory accesses whose address cannot be corrected (an indexed load in assembly)
    fixed: frozenset[int] = frozenset()
    # pairs of accesses that a run-time check before the loop proves apart: no dependence
    disjoint: frozenset[tuple[int, int]] = frozenset()

    def address_only_uses(self) -> set[tuple[int, int]]:
        """RAW edges (induction step node, user) along which the induction variable is read
        only inside memory addresses: the code generator may read a fresher copy of it
        there and correct the address by the steps in between."""
        out = set()
        for (node, reg), (src, _) in self.reaching.items():
            iv = self.inductions.get(reg)
            if iv is None or src != iv.node or node == src or node in self.fixed:
                continue
            ins = self.block.instrs[node]
            if any(isinstance(op, Reg) and op.name == reg for op in ins.operands):
                continue
            out.add((src, node))
        return out

    @property
    def name(self) -> str:
        return f"{self.function.name}/{self.block.label}"


def instr_text(instr: Instr) -> str:
    """An instruction of a loop as a report shows it: the assembly pipeliner's renamed
    registers (``v:$fa1``, :mod:`schedcc.swp.asm_loops`) under their own names."""
    return str(instr).replace("v:$", "$")


@dataclass(frozen=True)
class NotPipelined:
    """A loop left alone, and why (student-readable)."""

    function: Function
    block: Block
    reason: str

    @property
    def name(self) -> str:
        return f"{self.function.name}/{self.block.label}"


# -- recognition --------------------------------------------------------------------

def find_loops(function: Function) -> list[Loop | NotPipelined]:
    """Every loop of *function*, in block order: a :class:`Loop` when it can be
    pipelined, a :class:`NotPipelined` with the reason otherwise. O(n) per block."""
    index = {b.label: k for k, b in enumerate(function.blocks)}
    out: list[Loop | NotPipelined] = []
    reported: set[str] = set()
    for k, block in enumerate(function.blocks):
        for target in block.successors():
            t = index.get(target)
            if t is None or t > k or target in reported:
                continue
            reported.add(target)
            header = function.blocks[t]
            if t < k:
                span = k - t + 1
                out.append(NotPipelined(function, header,
                                        f"the loop from '{block.label}' back to '{target}' spans {span} blocks; "
                                        "only a loop whose body is one block is pipelined"))
            else:
                out.append(analyse_loop(function, block))
    return out


def analyse_loop(function: Function, block: Block) -> Loop | NotPipelined:
    """Check one self-looping block; see the module docstring for what is accepted."""
    def no(reason: str) -> NotPipelined:
        return NotPipelined(function, block, reason)

    instrs = block.instrs
    term = block.terminator
    if term is not None and term.opcode == "jmp":
        return no("the loop never exits: it ends with 'jmp' to itself, not with a conditional 'br'")
    if term is None or term.opcode != "br":
        return no(f"the loop ends with '{term}', not with the IR's 'br c, {block.label}, exit': loops "
                  "read from assembly or LLVM IR are list-scheduled only")
    labels = [op.name for op in term.operands[1:]]
    if labels[0] == labels[1]:
        return no(f"both targets of '{term}' are '{labels[0]}': the loop never exits")
    for node, ins in enumerate(instrs[:-1]):
        if ins.is_call:
            return no(f"the body calls '{ins.operands[0]}' (line {_line(ins)}): a call may read and write "
                      "any memory, so iterations cannot overlap")
        if has_unknown_side_effects(ins):
            return no(f"'{ins}' (line {_line(ins)}) has unknown side effects")
    defs: dict[str, list[int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.defs():
            defs.setdefault(r, []).append(node)

    ivs: dict[str, Induction] = {}
    for reg, nodes in defs.items():
        if len(nodes) == 1:
            step = _step_of(instrs[nodes[0]], reg)
            if step:
                ivs[reg] = Induction(reg, step, nodes[0])
    if not ivs:
        return no("no induction variable: no register is stepped by a constant (i = i + c) in the body")

    cond = term.operands[0]
    if not isinstance(cond, Reg) or cond.name not in defs:
        return no(f"the branch condition '{cond}' is not computed in the loop body")
    if len(defs[cond.name]) != 1:
        return no(f"the branch condition '{cond}' is written more than once in the body")
    cmp_node = defs[cond.name][0]
    cmp = instrs[cmp_node]
    if cmp.opcode not in COMPARISONS or len(cmp.operands) != 2:
        return no(f"the branch condition comes from '{cmp}', which is not a comparison (lt le gt ge)")
    for other, ins in enumerate(instrs[:-1]):
        if other != cmp_node and cond.name in ins.uses():
            return no(f"the exit condition '{cond}' is also used by '{ins}'; the pipeliner needs it "
                      "for the loop branch only")
    for b in function.blocks:
        if b is not block and any(cond.name in ins.uses() for ins in b.instrs):
            return no(f"the exit condition '{cond}' is used after the loop (block '{b.label}')")

    syms, addresses = _symbolic(instrs, defs, ivs)
    found = None
    for pos in (0, 1):
        x, bound = cmp.operands[pos], cmp.operands[1 - pos]
        if not isinstance(x, Reg):
            continue
        sx = syms.get((cmp_node, x.name))
        if bound_ok(bound, defs) and sx is not None and len(sx[0]) == 1 and sx[0][0][1] == 1:
            iv_name = sx[0][0][0]
            if iv_name in ivs and sx[2] == ivs[iv_name].step:
                found = (pos, ivs[iv_name], sx[1], bound)
                break
    if found is None:
        return no(f"the exit test '{cmp}' does not compare an induction variable with a constant "
                  "or a register the loop does not change, so the trip count is unknown")
    pos, iv, offset, bound = found
    op = cmp.opcode if pos == 0 else _SWAPPED[cmp.opcode]
    continue_on_true = labels[0] == block.label
    if not continue_on_true:
        op = _NEGATED[op]
    exit_label = labels[1] if continue_on_true else labels[0]
    if op in ("eq", "ne"):
        return no(f"the loop runs while {iv.reg} {'!=' if op == 'ne' else '=='} {bound}: write the test "
                  f"with < or > so that the trip count is known")
    if (op in ("lt", "le")) != (iv.step > 0):
        direction = "up" if iv.step > 0 else "down"
        return no(f"'{iv.reg}' counts {direction} by {abs(iv.step)} but the loop runs while "
                  f"{iv.reg} {'<' if op == 'lt' else '<=' if op == 'le' else '>' if op == 'gt' else '>='} "
                  f"{bound}: the trip count is not computable")
    exit_test = ExitTest(cmp_node, len(instrs) - 1, cond.name, op, offset, bound, 1 - pos)
    reaching: dict[tuple[int, str], tuple[int, int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.uses():
            nodes = defs.get(r)
            if not nodes:
                continue
            before = [d for d in nodes if d < node]
            reaching[(node, r)] = (before[-1], 0) if before else (nodes[-1], 1)
    return Loop(function, block, iv, exit_test, exit_label, reaching,
                {r: nodes[-1] for r, nodes in defs.items()}, addresses, ivs)


def bound_ok(bound, defs: dict[str, list[int]]) -> bool:
    if isinstance(bound, Const):
        return isinstance(bound.value, int)
    return isinstance(bound, Reg) and bound.name not in defs


def _line(ins: Instr) -> str:
    return str(ins.loc.line) if ins.loc else "?"


def _step_of(ins: Instr, reg: str) -> int:
    """c if *ins* is ``reg = reg + c`` / ``reg = c + reg`` / ``reg = reg - c``, else 0."""
    ops = ins.operands
    if len(ops) != 2 or ins.opcode not in ("add", "sub"):
        return 0
    a, b = ops
    if isinstance(a, Reg) and a.name == reg and isinstance(b, Const) and isinstance(b.value, int):
        return b.value if ins.opcode == "add" else -b.value
    if ins.opcode == "add" and isinstance(b, Reg) and b.name == reg and isinstance(a, Const) \
            and isinstance(a.value, int):
        return a.value
    return 0


# -- symbolic values ---------------------------------------------------------------------
# A symbolic integer is (terms, const, step): the value in iteration k is
# sum(coef * entry value of name) + const + step * k. ``None`` = unknown.

def _sym_add(a, b, sign=1):
    if a is None or b is None:
        return None
    terms = dict(a[0])
    for name, coef in b[0]:
        terms[name] = terms.get(name, 0) + sign * coef
    return (tuple(sorted((n, c) for n, c in terms.items() if c)), a[1] + sign * b[1], a[2] + sign * b[2])


def _sym_scale(a, k: int):
    if a is None:
        return None
    return (tuple((n, c * k) for n, c in a[0] if c * k), a[1] * k, a[2] * k)


def _const_of(s):
    return s[1] if s is not None and not s[0] and s[2] == 0 else None


def _symbolic(instrs: tuple[Instr, ...], defs: dict[str, list[int]], ivs: dict[str, Induction]):
    """Symbolic value of every register read ((node, reg) -> sym) and the address of every
    memory access (node -> (region, sym)). O(n)."""
    env: dict[str, tuple | None] = {}
    for reg, iv in ivs.items():
        env[reg] = (((reg, 1),), 0, iv.step)

    def value(op):
        if isinstance(op, Const):
            return ((), op.value, 0) if isinstance(op.value, int) else None
        if isinstance(op, Reg):
            if op.name in env:
                return env[op.name]
            if op.name not in defs:
                return (((op.name, 1),), 0, 0)  # loop invariant
            return None  # carried from the previous iteration, not an induction variable
        return None

    reads: dict[tuple[int, str], tuple | None] = {}
    addresses: dict[int, tuple | None] = {}
    for node, ins in enumerate(instrs):
        for r in ins.uses():
            reads[(node, r)] = value(Reg(r))
        mem: Mem | None = ins.mem_read or ins.mem_write
        if mem is not None:
            addr = ((), mem.index.const, 0)
            for r, coef in mem.index.terms:
                addr = _sym_add(addr, _sym_scale(value(Reg(r)), coef))
            addresses[node] = (mem.array, addr)
        if ins.dest is None:
            continue
        ops = [value(o) for o in ins.operands] if not any(isinstance(o, Mem) for o in ins.operands) else [None]
        result = None
        op = ins.opcode
        if op in ("mov", "li") and len(ops) == 1:
            result = ops[0]
        elif op == "add" and len(ops) == 2:
            result = _sym_add(ops[0], ops[1])
        elif op == "sub" and len(ops) == 2:
            result = _sym_add(ops[0], ops[1], -1)
        elif op == "neg" and len(ops) == 1:
            result = _sym_scale(ops[0], -1)
        elif op == "mul" and len(ops) == 2:
            k0, k1 = _const_of(ops[0]), _const_of(ops[1])
            result = _sym_scale(ops[1], k0) if k0 is not None else _sym_scale(ops[0], k1) if k1 is not None else None
        elif op == "shl" and len(ops) == 2:
            k1 = _const_of(ops[1])
            result = _sym_scale(ops[0], 1 << k1) if k1 is not None and 0 <= k1 < 63 else None
        env[ins.dest.name] = result
    return reads, addresses


# -- the dependence graph --------------------------------------------------------------------

def memory_distances(a_addr, b_addr) -> list[int] | None:
    """Iteration distances d >= 0 at which access *a* (iteration k) and *b* (iteration k+d)
    touch the same location: a list ([] = never), or None when unknown."""
    if a_addr is None or b_addr is None:
        return None
    (ra, sa), (rb, sb) = a_addr, b_addr
    if (ra is None) != (rb is None):
        return None  # a pointer may point into any array
    if ra != rb:
        return []
    if sa is None or sb is None or sa[0] != sb[0]:
        return None
    if sa[2] != sb[2]:
        return None  # different strides: they may meet once, somewhere
    stride, diff = sa[2], sa[1] - sb[1]
    if stride == 0:
        return [0, 1] if diff == 0 else []
    if diff % stride:
        return []
    d = diff // stride
    return [d] if d >= 0 else []


def loop_dag(loop: Loop, target: Target | str) -> SchedGraph:
    """The dependence graph of *loop* with iteration distances; see the module docstring.

    Operations are those of :func:`schedcc.dag.build_dag`; the loop branch is
    ``kernel_end`` (it issues in the last row of the kernel). Dependences carry
    their ``distance``; a memory one its hazard in ``detail``.
    """
    tgt = load_target(target)
    base = build_dag(loop.block, tgt)
    instrs = loop.block.instrs
    ops = list(base.ops)
    branch = loop.exit.branch
    ops[branch] = ops[branch]._replace(kernel_end=True)
    lat = [op.latency for op in ops]
    edges: dict[tuple[int, int], dict] = {}  # one per pair, in the order first found

    def add(u: int, v: int, kind: str, latency: int, distance: int, reason: str, mem: str | None = None):
        if u == v and distance == 0:
            return
        old = edges.get((u, v))
        attrs = {"kind": kind, "latency": latency, "distance": distance, "reason": reason}
        if mem:
            attrs["mem"] = mem
        if old is not None:
            if old["distance"] <= distance and old["latency"] >= latency:
                return  # the old edge implies the new one
            if not (distance <= old["distance"] and latency >= old["latency"]):
                # Neither implies the other: keep one edge that implies both.
                attrs["latency"] = max(latency, old["latency"])
                attrs["distance"] = min(distance, old["distance"])
            old.update(attrs)
        else:
            edges[(u, v)] = attrs

    for (node, reg), (src, dist) in loop.reaching.items():
        add(src, node, "RAW", lat[src], dist, reg)
    accesses = sorted(loop.addresses)
    # Per access, once: does it write, and its operand's text (pairs are O(m^2)).
    writes = {a: instrs[a].mem_write is not None for a in accesses}
    mem_text = {a: str(instrs[a].mem_read or instrs[a].mem_write) for a in accesses}
    for a in accesses:
        a_w = writes[a]
        for b in accesses:
            b_w = writes[b]
            if not (a_w or b_w) or (min(a, b), max(a, b)) in loop.disjoint:
                continue
            if a_w and not b_w:
                latency, hazard = lat[a], "RAW"
            elif b_w and not a_w:
                latency, hazard = tgt.war_latency, "WAR"
            else:
                latency, hazard = tgt.waw_latency, "WAW"
            dists = memory_distances(loop.addresses[a], loop.addresses[b])
            if dists is not None and not dists:
                continue
            text = f"{mem_text[a]} / {mem_text[b]}"
            if dists is None:
                dists, text = [0, 1], text + " (not analysable)"
            for d in dists:
                if d == 0 and a >= b:
                    continue  # within one iteration only program order counts
                add(a, b, "MEM", latency, d, text, hazard)
    deps = tuple(Dep(u, v, a["kind"], a["latency"], a["distance"], a["reason"], a.get("mem", ""))
                 for (u, v), a in edges.items())
    # Source-major order: the order in which the recurrence analysis reports cycles.
    deps = tuple(sorted(deps, key=lambda d: d.src))
    return SchedGraph(tuple(ops), deps, tgt.machine, source=loop)

"""Loops of assembly (LoongArch, RISC-V) for the software pipeliner; the
examples are LoongArch's, RISC-V reads the same with its own opcodes
(``addi``, ``bnez``, ``fld``; :mod:`schedcc.swp.asm_isa`).

A loop is a block that starts at a label and ends with a conditional branch
back to it; the exit is the fall-through::

    .LBB0_2:
        fld.d   $fa1, $a2, 0
        fld.d   $fa2, $a1, 0
        fmadd.d $fa1, $fa0, $fa2, $fa1
        fst.d   $fa1, $a2, 0
        addi.d  $a1, $a1, 8
        addi.d  $a2, $a2, 8
        addi.d  $a0, $a0, -1
        bnez    $a0, .LBB0_2

Registers are physical and reused, so the loop is read as schedcc IR reads a
loop: a register read before it is written comes from the previous iteration.
Every register the loop writes is renamed ``v:$fa1`` in the scheduling view
(:class:`AsmLoop.loop`): the code generator gives each of its values the
registers it needs (:mod:`schedcc.swp.asm_codegen`). Induction variables are
registers stepped by ``addi.d r, r, c``; the exit test is the branch itself:
``bnez x`` (x != 0), ``bne``, ``blt``/``bge`` (signed), ``bltu``/``bgeu``
(unsigned) of an induction variable against ``$zero`` or a register the loop
does not write.

Memory: accesses through the same base register meet at exact iteration
distances (:func:`~schedcc.swp.analysis.memory_distances`). Assembly has lost
C's ``restrict``, so two base registers may point into the same array: when
both step alike, the pair becomes a *run-time check* (:class:`Check`): the
pipelined code runs only if the two are far enough apart that no iterations
in flight together touch the same bytes, and the dependence is dropped; when they
step differently (or one does not move), a :class:`~schedcc.swp.asm_ranges.RangeCheck`
asks that the bytes each touches over the whole loop be disjoint.

An ``int`` read as ``addi.w r, s, c`` (the low 32 bits of s + c, sign-extended) is
``s + c`` when the value steps by a constant: the tested counter stepping by 1
behind a check that it and the bound fit in 32 bits (``narrow``), anything else
behind a check of its lowest and highest values
(:class:`~schedcc.swp.asm_ranges.SignExtension`); a sign extension of a value
schedcc cannot follow is an unknown value. A register the loop reads only through
``addi.w`` (besides stepping itself: an ``int`` whose upper half need not be its
sign, clang's ``j = -1`` kept as 0xffffffff) is named ``w:$a6`` there, its low 32
bits sign-extended on entry, which the guard computes. A zero extension
``bstrpick.d r, s, 31, 0`` (a loop test of the low 32 bits of a counter) is read as
s behind a check that s's first and last values lie in [0, 2^32).

Example::

    >>> from schedcc.frontends import parse_source
    >>> src = parse_source(open("examples/swp/kernels-O2.s").read(), "kernels-O2.s")
    >>> saxpy = find_asm_loops(src)[0]
    >>> saxpy.loop.iv.reg, saxpy.loop.exit.op, saxpy.written
    ('v:$a0', 'ne', ['$fa1', '$fa2', '$a1', '$a2', '$a0'])
    >>> [(c.first, c.second) for c in saxpy.checks]
    [('$a1', '$a2')]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schedcc.frontends.source import Source
from schedcc.ir import Block, Const, Function, Instr, Label, Reg
from schedcc.swp.analysis import Refusal, analyse, evaluate, memory_distances
from schedcc.swp.asm_predicate import guarded_meaning
from schedcc.swp.asm_isa import LOONGARCH, AsmIsa, generic_instr, isa_of
from schedcc.swp.asm_ranges import MAX_CONST, RangeCheck, SignExtension, range_check, sign_extension
from schedcc.swp.cfg import back_edges, multi_block_reason
from schedcc.swp.view import Access, Body, Linear, LoopView, NotPipelined, WrapsView, mutable_reaching

BRANCH_OPS = {"bne": "ne", "blt": "lt", "bge": "ge", "bltu": "lt", "bgeu": "ge"}
INVERSE = LOONGARCH.inverse


@dataclass(frozen=True)
class Check:
    """Two accesses through different base registers, stepping by the same ``stride``:
    the loop is pipelined only when ``|first - second + offset| >= stride * stages +
    width`` on entry (then no two iterations in flight together touch the same bytes)."""

    nodes: tuple[int, int]
    first: str
    second: str
    offset: int
    stride: int
    width: int


@dataclass(repr=False)
class AsmLoop(WrapsView):
    """A single-block assembly loop the pipeliner can transform."""

    loop: LoopView              # the scheduling view: written registers renamed v:$reg
    original: Block             # the block as read
    written: list[str]          # registers the loop writes, in order of first write
    branch: Instr               # the loop branch as read
    unsigned: bool
    checks: list[Check]
    isa: AsmIsa = LOONGARCH
    narrow: tuple[str, ...] = ()  # registers the pipelined code requires 32-bit sign-extended on entry
    ranges: tuple[RangeCheck, ...] = ()  # pairs whose whole-loop address ranges must be disjoint
    extends: tuple[SignExtension, ...] = ()  # sign extensions that must not change their value


def falls_through(block: Block, isa: AsmIsa = LOONGARCH) -> bool:
    term = block.terminator
    return term is None or not (term.opcode in isa.jumps or isa.control(term, set()) == "indirect")


def find_asm_loops(source: Source) -> list[AsmLoop | NotPipelined]:
    """Every loop of an assembly source, in text order: an :class:`AsmLoop` when it can be
    pipelined, a :class:`NotPipelined` with the reason otherwise."""
    out: list[AsmLoop | NotPipelined] = []
    isa = isa_of(source)
    for func in source.program.functions:
        loops = back_edges(func, lambda b: falls_through(b, isa))
        headers = {header.label for _, header, _ in loops}
        for block, header, body in loops:
            if block is header:
                out.append(analyse_asm_loop(func, block, isa))
                continue
            reason, kind = multi_block_reason(block, header, body, headers)
            calls = [i for b in body for i in b.instrs if isa.control(i, set()) in ("call", "syscall")]
            if calls and kind != "outer":
                named = next((o for o in calls[0].operands if not isinstance(o, Reg)), None)
                what = ("makes a system call" if isa.control(calls[0], set()) == "syscall" else
                        f"calls {named}" if calls[0].opcode in ("bl", "call") else "calls a function")
                reason = (f"the loop {what} (line {calls[0].loc.line if calls[0].loc else '?'}): a call may read and "
                          "write any memory, so iterations cannot overlap")
                kind = "call"
            out.append(NotPipelined(func, header, reason, kind))
    return out



def analyse_asm_loop(function: Function, block: Block, isa: AsmIsa = LOONGARCH) -> AsmLoop | NotPipelined:
    """Check one self-looping block of assembly; see the module docstring."""
    def no(reason: str, kind: str = "other") -> NotPipelined:
        return NotPipelined(function, block, reason, kind)

    term = block.terminator
    L = block.label
    op = term.opcode if term is not None else ""
    if op in ("b", "j"):
        return no(f"the loop ends with '{term.opcode} {L}': it never exits", "shape")
    regs = tuple(o.name for o in term.operands[:-1] if isinstance(o, Reg))
    if op not in BRANCH_OPS and op not in ("bnez", "beqz") and op in isa.inverse:
        op, regs = isa.branch_form(op, regs)
    if op in ("beqz", "beq"):
        return no(f"the loop runs while '{term}' is equal: it runs at most twice, or the trip count is unknown", "trip-count")
    if op in ("bceqz", "bcnez"):
        return no(f"the loop branch '{op}' tests a floating-point condition: the trip count is unknown", "trip-count")
    if op not in BRANCH_OPS and op != "bnez":
        return no(f"the loop ends with '{term}', which schedcc does not read as a loop test", "shape")
    body = block.instrs[:-1]
    written: list[str] = []
    for ins in body:
        for r in ins.defs():
            if r in isa.reserved:
                return no(f"'{ins}' (line {ins.loc.line if ins.loc else '?'}) writes {r}", "shape")
            if r not in written:
                written.append(r)
        if ins.attr("tied"):
            return no(f"'{ins.opcode}' (line {ins.loc.line if ins.loc else '?'}) writes part of {ins.dest} and "
                      "keeps the rest: such a loop is not pipelined", "shape")
    names = {r: "v:" + r for r in written}
    branch_ops = tuple(Reg(r) for r in regs)
    if op == "bnez":
        branch_ops = (branch_ops[0], Reg(isa.zero))
        op = "bne"
    instrs = [i.renamed(names) for i in body]
    instrs.append(Instr(op, None, tuple(Instr("x", None, branch_ops).renamed(names).operands) + (Label(L),),
                        loc=term.loc))
    instrs_t = tuple(instrs)
    reaching, _ = mutable_reaching(instrs_t)
    br = len(instrs_t) - 1
    fixed = frozenset(n for n, ins in enumerate(instrs_t) if isa.is_fixed(ins))
    # addi.w r, s, c: the low 32 bits of s + c, sign-extended (an int index or counter)
    sexts = {n: (i.operands[0].name, i.operands[1].value) for n, i in enumerate(instrs_t)
             if i.opcode == isa.sext and len(i.operands) == 2 and isinstance(i.operands[0], Reg)
             and isinstance(i.operands[1], Const) and isinstance(i.operands[1].value, int)}
    # bstrpick.d r, s, 31, 0: the low 32 bits of s, zero-extended (an unsigned counter's test)
    zexts = {n for n, i in enumerate(instrs_t) if isa.zero_extension(i)}
    sexts.update({n: (isa.zero_extension(instrs_t[n]), 0) for n in zexts})
    opaque: set[int] = set()     # extensions of values schedcc cannot follow: unknown values
    guarded = guarded_meaning(instrs_t, isa)   # if-converted
    while True:
        generic = tuple(Instr("opaque", i.dest) if n in opaque else
                        Instr("add", i.dest, (Reg(sexts[n][0]), Const(0))) if n in zexts else
                        generic_instr(isa, replace(i, opcode=isa.addi)) if n in sexts else generic_instr(isa, i)
                        for n, i in enumerate(instrs_t))
        generic = tuple(guarded.get(n, g) for n, g in enumerate(generic))
        body = Body(function, Block(L, instrs_t, block.loc), generic, reaching, br,
                    BRANCH_OPS[op], True, "", "", unsigned=op in ("bltu", "bgeu"), fixed=fixed,
                    live_out=tuple(written), name=lambda r: r[2:] if r.startswith("v:") else r)
        view = analyse(body)
        if isinstance(view, Refusal) or not sexts:
            break
        read = evaluate(body, view.inductions)
        lost = {n for n in sexts if n not in opaque and read(n, generic[n].operands[0]) is None}
        if not lost:
            break
        opaque |= lost

    def sext_refusal(n: int, why: str) -> NotPipelined:
        src = sexts[n][0]
        return no(f"'{instrs_t[n].opcode}' (line {instrs_t[n].loc.line if instrs_t[n].loc else '?'}) "
                  f"{'zero' if n in zexts else 'sign'}-extends {src[2:] if src.startswith('v:') else src}: {why}",
                  "induction")
    if isinstance(view, Refusal):
        if opaque:
            return sext_refusal(min(opaque), "its value is not a constant step of the loop, and the loop test "
                                "depends on it")
        if view.kind == "no-iv":
            return no(f"no induction variable: no register is stepped by a constant ({isa.addi} r, r, c) in the body",
                      "induction")
        if view.kind == "no-test":
            return no(f"the loop test '{term}' does not compare an induction variable with a register the loop "
                      "does not change, so the trip count is unknown", "trip-count")
        iv = view.iv
        return no(f"'{iv.reg[2:]}' counts {'up' if iv.step > 0 else 'down'} by {abs(iv.step)} but '{term}' "
                  "tests it the other way: the trip count is not computable", "trip-count")
    iv = view.iv
    if view.exit.op == "ne" and abs(iv.step) & (abs(iv.step) - 1):
        return no(f"'{term}' waits for '{iv.reg[2:]}' to step by {abs(iv.step)} onto a value: schedcc checks "
                  "that only for steps that are powers of two", "trip-count")
    narrow: tuple[str, ...] = ()
    extends: list[SignExtension] = []
    followed = sorted(n for n in sexts if n not in opaque)
    if followed:
        ex, up = view.exit, iv.step > 0
        counter = abs(iv.step) == 1 and ex.op in (("lt", "ne") if up else ("gt", "ne")) \
            and not ex.bound_offset and not ex.unsigned and 0 <= ex.offset * iv.step <= 1 \
            and not (isinstance(ex.bound, Reg) and ex.bound.name.startswith("v:"))
        read = evaluate(body, view.inductions)
        low = _low_halves(instrs_t, generic, read, {n for n in followed if n not in zexts})
        view = replace(view, accesses={k: replace(a, address=low(a.address)) for k, a in view.accesses.items()})
        for n in followed:
            if counter and sexts[n] == (iv.reg, 0) and n not in zexts:
                # the tested counter stepping by 1: it and the bound fitting in 32 bits on entry suffice
                narrow = (iv.reg[2:],) + ((ex.bound.name,) if isinstance(ex.bound, Reg)
                                          and ex.bound.name != isa.zero else ())
                continue
            value = read(n, generic[n].operands[0]) if generic[n].opcode == "add" else None
            value = value.plus(Linear(const=sexts[n][1])) if value is not None else None
            check = sign_extension(n, value if n in zexts else low(value), isa, n in zexts)
            if check is None or view.trip.divisor > MAX_CONST:
                return sext_refusal(n, "schedcc follows a sign extension only of a value stepping by a constant "
                                    f"of at most {MAX_CONST} from registers on entry, in a loop whose step is at most "
                                    f"{MAX_CONST}")
            extends.append(check)
    checks = _checks(instrs_t, view.accesses, isa)
    ranges = _ranges(view, {c.nodes for c in checks}, isa)
    view = replace(view, disjoint=frozenset(c.nodes for c in checks) | frozenset(c.nodes for c in ranges))
    return AsmLoop(view, block, written, term, op in ("bltu", "bgeu"), checks, isa, narrow, ranges, tuple(extends))


def _low_halves(instrs: tuple[Instr, ...], generic: tuple[Instr, ...], read, sexts: set[int]):
    """Registers the loop reads only through their low 32 bits (sign extensions *sexts*,
    besides stepping themselves: ``addi.d $a6, $a6, 1`` ... ``addi.w $a7, $a6, 0``): an
    ``int`` kept in a 64-bit register whose upper half need not be its sign (clang writes
    ``j = -1`` as 0xffffffff). Returns the map of a :class:`Linear` that names each such
    register ``w:$a6`` (its low 32 bits sign-extended on entry) instead: the sign
    extension of ``$a6 + c + step * k`` is ``w:$a6 + c + step * k`` as long as that fits
    in 32 bits, which the guard checks (:class:`SignExtension`)."""
    sources = {t for n in sexts for v in [read(n, generic[n].operands[0])] if v is not None
               for t, c in v.terms[:1] if len(v.terms) == 1 and c == 1}
    for k, ins in enumerate(instrs):
        for r in sources & set(ins.uses()):
            g = generic[k]
            own = ins.dest == Reg(r) and g.opcode == "add" and len(g.operands) == 2 and g.operands[0] == Reg(r) \
                and isinstance(g.operands[1], Const)
            if k not in sexts and not own:
                sources.discard(r)
    if not sources:
        return lambda value: value
    rename = {t: "w:" + (t[2:] if t.startswith("v:") else t) for t in sources}
    return lambda value: value if value is None else Linear(
        tuple(sorted((rename.get(t, t), c) for t, c in value.terms)), value.const, value.step)


def _width(ins: Instr) -> int:
    w = ins.attr("width", 1)
    return w if isinstance(w, int) else 1


def _checks(instrs: tuple[Instr, ...], accesses: dict[int, Access], isa: AsmIsa = LOONGARCH) -> list[Check]:
    """The pairs of accesses whose dependence a run-time check can rule out: pointer
    references through two different base registers (entry values), the same stride."""
    out: list[Check] = []
    nodes = sorted(accesses)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            acc_a, acc_b = accesses[a], accesses[b]
            if not (acc_a.write or acc_b.write) or memory_distances(acc_a, acc_b) is not None:
                continue
            sa, sb = acc_a.address, acc_b.address
            if acc_a.region is not None or acc_b.region is not None or sa is None or sb is None \
                    or sa.step != sb.step or not sa.step:
                continue
            terms = dict(sa.terms)
            for t, c in sb.terms:
                terms[t] = terms.get(t, 0) - c
            terms = {t: c for t, c in terms.items() if c}
            plus = [t for t, c in terms.items() if c == 1]
            minus = [t for t, c in terms.items() if c == -1]
            if len(terms) != 2 or len(plus) != 1 or len(minus) != 1 or not all(isa.is_register(t) for t in terms):
                continue
            base = lambda t: t[2:] if t.startswith("v:") else t  # noqa: E731 (the register on entry)
            out.append(Check((a, b), base(plus[0]), base(minus[0]), sa.const - sb.const, abs(sa.step),
                             max(acc_a.width, acc_b.width)))
    return out


def _ranges(view, covered: set[tuple[int, int]], isa: AsmIsa) -> tuple[RangeCheck, ...]:
    """The pairs of accesses not analysable at compile time nor covered by a :class:`Check`
    (different strides, an invariant address, an index register) whose whole-loop
    address ranges a run-time check can prove disjoint (:mod:`schedcc.swp.asm_ranges`)."""
    out = []
    if view.trip.divisor > MAX_CONST:
        return ()
    nodes = sorted(view.accesses)
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            acc_a, acc_b = view.accesses[a], view.accesses[b]
            if not (acc_a.write or acc_b.write) or (a, b) in covered or memory_distances(acc_a, acc_b) is not None:
                continue
            check = range_check(acc_a, acc_b, isa)
            if check is not None:
                out.append(check)
    return tuple(out)

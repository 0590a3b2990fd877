"""Which registers a software-pipelined loop may take: liveness over a function
of assembly, and the calling convention (LP64D on LoongArch and on RISC-V; the
registers of each are in its description, :mod:`schedcc.swp.asm_isa`; the
examples below are LoongArch's).

A register is *free* at a loop when no path from the loop's entry reads it
before writing it: its value is dead there, so code placed there may use it.
Liveness is the usual backward data flow over the function's blocks (the
front end's regions, with their branch targets and fall-throughs). What the
code cannot see is assumed to read registers: a call reads the argument
registers; a return reads the return values, ``$ra`` and every callee-saved
register (so ``$s0``-``$s8``, ``$fp`` and ``$fs0``-``$fs7`` are free only
where the function itself has saved them, between its save and its restore);
a jump the code cannot follow (``jr $t0``, a branch out of the function)
reads everything.

Example::

    >>> from schedcc.frontends import parse_source
    >>> src = parse_source(open("examples/swp/kernels-O2.s").read(), "kernels-O2.s")
    >>> dot = src.program.function("dot")
    >>> free = free_registers(dot, "dot/.LBB1_2".split("/")[1])
    >>> "$a3" in free, "$a1" in free, "$s0" in free, "$fa3" in free
    (True, False, False, True)
"""

from __future__ import annotations

from schedcc.ir import Function, Instr, Label
from schedcc.swp.asm_isa import LOONGARCH, AsmIsa

# LoongArch's tables, under their old names (the instruction set's description has them all).
GPR, FPR, FCC = LOONGARCH.gpr, LOONGARCH.fpr, LOONGARCH.fcc
RESERVED, CALLEE_SAVED, ARGUMENTS = LOONGARCH.reserved, LOONGARCH.callee_saved, LOONGARCH.arguments
CALLER_SAVED, ALL, ORDER, AT_RETURN = LOONGARCH.caller_saved, LOONGARCH.all, LOONGARCH.order, LOONGARCH.at_return


def register_class(name: str, isa: AsmIsa = LOONGARCH) -> str:
    """``gpr``, ``fpr`` or ``fcc``."""
    return isa.register_class(name)


def effects(ins: Instr, labels: set[str], isa: AsmIsa = LOONGARCH) -> tuple[set[str], set[str], str]:
    """(registers read, registers written, how control continues): ``next`` (falls
    through), ``branch`` (a conditional branch: also to its label), ``jump`` (only to
    its label), ``return``, ``unknown`` (a jump schedcc cannot follow)."""
    uses = {r for r in ins.uses() if r != isa.zero}
    defs = set(ins.defs())
    kind = isa.control(ins, labels)
    if kind == "call":
        return uses | isa.arguments, defs | isa.caller_saved, "next"
    if kind == "syscall":
        return uses, defs | {isa.syscall_result}, "next"
    if kind == "return":
        return uses | isa.at_return, defs, "return"
    if kind == "indirect":
        return set(isa.all), defs, "unknown"
    if kind == "tail":
        return uses | isa.arguments | isa.at_return, defs, "return"   # a tail call
    return uses, defs, kind


def live_in(function: Function, isa: AsmIsa = LOONGARCH) -> dict[str, frozenset[str]]:
    """The registers live at the start of each block of *function* (by label)."""
    blocks = function.blocks
    labels = {b.label for b in blocks}
    index = {b.label: k for k, b in enumerate(blocks)}
    succ: list[list[int]] = []
    gen: list[set[str]] = []
    kill: list[set[str]] = []
    extra: list[set[str]] = []     # read at the block's end by what the code cannot see
    for k, b in enumerate(blocks):
        g: set[str] = set()
        kl: set[str] = set()
        out_extra: set[str] = set()
        nxt = []
        flow = "next"
        for ins in reversed(b.instrs):
            uses, defs, kind = effects(ins, labels, isa)
            if ins is b.instrs[-1]:
                flow = kind
                target = next((o.name for o in ins.operands if isinstance(o, Label)), None)
                if kind in ("branch", "jump"):
                    nxt.append(index[target])
            g -= defs
            kl |= defs
            g |= uses
        if flow in ("next", "branch"):
            if k + 1 < len(blocks):
                nxt.append(k + 1)
            else:
                out_extra |= isa.all   # falls off the end of the function
        if flow == "unknown":
            out_extra |= isa.all
        succ.append(nxt)
        gen.append(g)
        kill.append(kl)
        extra.append(out_extra)
    live = [set() for _ in blocks]
    changed = True
    while changed:
        changed = False
        for k in reversed(range(len(blocks))):
            out = set(extra[k])
            for s in succ[k]:
                out |= live[s]
            new = gen[k] | (out - kill[k])
            if new != live[k]:
                live[k], changed = new, True
    return {b.label: frozenset(live[k]) for k, b in enumerate(blocks)}


def free_registers(function: Function, label: str, live: dict[str, frozenset[str]] | None = None,
                   isa: AsmIsa = LOONGARCH) -> list[str]:
    """Registers dead at the start of block *label* and not used in it (none reserved), in
    allocation order: the ones code placed at that block may take."""
    live = live if live is not None else live_in(function, isa)
    block = function.block(label)
    used = {r for ins in block.instrs for r in ins.uses() + ins.defs()}
    return [r for r in isa.order if r not in live[label] and r not in used and r not in isa.reserved]

"""Which LoongArch registers a software-pipelined loop may take: liveness over a
function of assembly, and the calling convention (LP64D).

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

from schedcc.ir import Function, Instr, Label, Reg

GPR = tuple(["$zero", "$ra", "$tp", "$sp"] + [f"$a{k}" for k in range(8)] + [f"$t{k}" for k in range(9)]
            + ["$r21", "$fp"] + [f"$s{k}" for k in range(9)])
FPR = tuple([f"$fa{k}" for k in range(8)] + [f"$ft{k}" for k in range(16)] + [f"$fs{k}" for k in range(8)])
FCC = tuple(f"$fcc{k}" for k in range(8))
RESERVED = frozenset({"$zero", "$tp", "$sp", "$r21"})
CALLEE_SAVED = frozenset([f"$s{k}" for k in range(9)] + ["$fp"] + [f"$fs{k}" for k in range(8)])
ARGUMENTS = frozenset([f"$a{k}" for k in range(8)] + [f"$fa{k}" for k in range(8)])
CALLER_SAVED = frozenset(r for r in GPR + FPR + FCC if r not in CALLEE_SAVED and r not in RESERVED)
ALL = frozenset(GPR + FPR + FCC)
# Allocation order: caller-saved temporaries first, then arguments, then callee-saved (free only if saved).
ORDER = tuple([f"$t{k}" for k in range(9)] + [f"$a{k}" for k in range(7, -1, -1)] + [f"$s{k}" for k in range(9)]
              + ["$fp", "$ra"] + [f"$ft{k}" for k in range(16)] + [f"$fa{k}" for k in range(7, -1, -1)]
              + [f"$fs{k}" for k in range(8)] + list(FCC))
AT_RETURN = frozenset({"$a0", "$a1", "$fa0", "$fa1", "$ra", "$sp", "$tp", "$r21"}) | CALLEE_SAVED


def register_class(name: str) -> str:
    """``gpr``, ``fpr`` or ``fcc``."""
    if name.startswith("$fcc"):
        return "fcc"
    return "fpr" if name.startswith(("$fa", "$ft", "$fs")) else "gpr"


def effects(ins: Instr, labels: set[str]) -> tuple[set[str], set[str], str]:
    """(registers read, registers written, how control continues): ``next`` (falls
    through), ``branch`` (a conditional branch: also to its label), ``jump`` (only to
    its label), ``return``, ``unknown`` (a jump schedcc cannot follow)."""
    op = ins.opcode
    uses = {r for r in ins.uses() if r != "$zero"}
    defs = set(ins.defs())
    target = next((o.name for o in ins.operands if isinstance(o, Label)), None)
    if op == "bl" or (op == "jirl" and ins.operands and ins.operands[0] == Reg("$ra")):
        return uses | ARGUMENTS, defs | CALLER_SAVED, "next"
    if op == "syscall":
        return uses, defs | {"$a0"}, "next"
    if op == "ret" or (op == "jr" and ins.operands == (Reg("$ra"),)) or \
            (op == "jirl" and ins.operands[:2] == (Reg("$zero"), Reg("$ra"))):
        return uses | AT_RETURN, defs, "return"
    if op in ("jr", "jirl"):
        return set(ALL), defs, "unknown"
    if op == "b":
        if target in labels:
            return uses, defs, "jump"
        return uses | ARGUMENTS | AT_RETURN, defs, "return"   # a tail call
    if ins.is_terminator:
        return uses, defs, "branch" if target in labels else "unknown"
    return uses, defs, "next"


def live_in(function: Function) -> dict[str, frozenset[str]]:
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
            uses, defs, kind = effects(ins, labels)
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
                out_extra |= ALL   # falls off the end of the function
        if flow == "unknown":
            out_extra |= ALL
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


def free_registers(function: Function, label: str, live: dict[str, frozenset[str]] | None = None) -> list[str]:
    """Registers dead at the start of block *label* and not used in it (none reserved), in
    allocation order: the ones code placed at that block may take."""
    live = live if live is not None else live_in(function)
    block = function.block(label)
    used = {r for ins in block.instrs for r in ins.uses() + ins.defs()}
    return [r for r in ORDER if r not in live[label] and r not in used and r not in RESERVED]

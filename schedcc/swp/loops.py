"""Loops of schedcc IR for the software pipeliner: the IR's mapping into the loop view.

A loop the pipeliner accepts is a single block that branches back to itself
(``loop: ... br c, loop, exit``) with

* an induction variable: a register stepped by a constant every iteration
  (``i = i + c``, ``c`` of either sign, possibly through copies);
* an exit test ``c = lt x, n`` (or ``le gt ge``, in either operand order, in
  either branch polarity) where ``x`` is the induction variable before or
  after its step and ``n`` is a constant or a register the body never writes,
  so that the trip count is known on entry;
* no call and no instruction with unknown side effects.

Registers are mutable: a register read before it is written in the body comes
from the previous iteration (:func:`~schedcc.swp.view.mutable_reaching`). The
analysis itself (induction variables, the exit test, addresses) is the one
every front end shares (:mod:`schedcc.swp.analysis`); the dependence graph is
:func:`schedcc.swp.dependences.loop_dag`. Everything else is reported as a
:class:`~schedcc.swp.view.NotPipelined` with a reason a student can act on
(the idea of LLVM's pipeliner remarks).

Example::

    >>> from schedcc import parse
    >>> prog = parse(open("examples/loops/lecture_cj.ir").read())
    >>> loop = find_loops(prog.functions[0])[0]
    >>> loop.iv.reg, loop.iv.step, loop.exit.op, str(loop.exit.bound)
    ('j', 1, 'lt', 'MAX')
"""

from __future__ import annotations

from schedcc.dag import has_unknown_side_effects
from schedcc.ir import Block, Function, Instr, Reg
from schedcc.swp.analysis import Refusal, analyse, inductions
from schedcc.swp.view import COMPARISONS, SYMBOL, Body, LoopView, NotPipelined, mutable_reaching


def find_loops(function: Function) -> list[LoopView | NotPipelined]:
    """Every loop of *function*, in block order: a :class:`~schedcc.swp.view.LoopView`
    when it can be pipelined, a :class:`~schedcc.swp.view.NotPipelined` with the reason
    otherwise. O(n) per block."""
    index = {b.label: k for k, b in enumerate(function.blocks)}
    edges: list[tuple[int, int]] = []          # (header, latch) in block order, one per header
    for k, block in enumerate(function.blocks):
        for target in block.successors():
            t = index.get(target)
            if t is not None and t <= k and all(t != h for h, _ in edges):
                edges.append((t, k))
    out: list[LoopView | NotPipelined] = []
    for t, k in edges:
        block, header = function.blocks[k], function.blocks[t]
        if t == k:
            out.append(analyse_loop(function, block))
            continue
        inner = [function.blocks[h].label for h, _ in edges if t < h <= k]
        if inner:
            out.append(NotPipelined(function, header, f"the loop from '{block.label}' back to '{header.label}' "
                                    f"holds the inner loop at '{inner[0]}': only innermost loops are pipelined",
                                    "outer"))
        else:
            out.append(NotPipelined(function, header, f"the loop from '{block.label}' back to '{header.label}' "
                                    f"spans {k - t + 1} blocks; only a loop whose body is one block is pipelined",
                                    "multi-block"))
    return out


def analyse_loop(function: Function, block: Block) -> LoopView | NotPipelined:
    """Check one self-looping block; see the module docstring for what is accepted."""
    def no(reason: str, kind: str = "other") -> NotPipelined:
        return NotPipelined(function, block, reason, kind)

    instrs = block.instrs
    term = block.terminator
    if term is not None and term.opcode == "jmp":
        return no("the loop never exits: it ends with 'jmp' to itself, not with a conditional 'br'", "shape")
    if term is None or term.opcode != "br":
        return no(f"the loop ends with '{term}', not with the IR's 'br c, {block.label}, exit': loops "
                  "read from assembly or LLVM IR are list-scheduled only", "shape")
    labels = [op.name for op in term.operands[1:]]
    if labels[0] == labels[1]:
        return no(f"both targets of '{term}' are '{labels[0]}': the loop never exits", "shape")
    for node, ins in enumerate(instrs[:-1]):
        if ins.is_call:
            return no(f"the body calls '{ins.operands[0]}' (line {_line(ins)}): a call may read and write "
                      "any memory, so iterations cannot overlap", "call")
        if has_unknown_side_effects(ins):
            return no(f"'{ins}' (line {_line(ins)}) has unknown side effects", "effects")
    reaching, last_def = mutable_reaching(instrs)
    if not inductions(Body(function, block, instrs, reaching, len(instrs) - 1, "ne", True, "", "")):
        return no(_explain(Refusal("no-iv"), term), "induction")
    defs: dict[str, list[int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.defs():
            defs.setdefault(r, []).append(node)
    cond = term.operands[0]
    if not isinstance(cond, Reg) or cond.name not in defs:
        return no(f"the branch condition '{cond}' is not computed in the loop body", "trip-count")
    if len(defs[cond.name]) != 1:
        return no(f"the branch condition '{cond}' is written more than once in the body", "trip-count")
    cmp_node = defs[cond.name][0]
    cmp = instrs[cmp_node]
    if cmp.opcode not in COMPARISONS or len(cmp.operands) != 2:
        return no(f"the branch condition comes from '{cmp}', which is not a comparison (lt le gt ge)",
                  "trip-count")
    for other, ins in enumerate(instrs[:-1]):
        if other != cmp_node and cond.name in ins.uses():
            return no(f"the exit condition '{cond}' is also used by '{ins}'; the pipeliner needs it "
                      "for the loop branch only", "trip-count")
    for b in function.blocks:
        if b is not block and _reads_before_writing(b, cond.name):
            return no(f"the exit condition '{cond}' is used after the loop (block '{b.label}')", "trip-count")
    continue_on_true = labels[0] == block.label
    body = Body(function, block, instrs, reaching, cmp_node, cmp.opcode, continue_on_true, cond.name,
                labels[1] if continue_on_true else labels[0], live_out=tuple(sorted(last_def)))
    view = analyse(body)
    if isinstance(view, Refusal):
        return no(_explain(view, cmp), "induction" if view.kind == "no-iv" else "trip-count")
    if view.exit.op == "ne":
        return no(f"the loop runs while {view.iv.reg} != {view.exit.bound}: write the test with < or > so that "
                  "the trip count is known", "trip-count")
    return view


def _explain(refusal: Refusal, cmp: Instr) -> str:
    if refusal.kind == "no-iv":
        return "no induction variable: no register is stepped by a constant (i = i + c) in the body"
    if refusal.kind == "no-test":
        return (f"the exit test '{cmp}' does not compare an induction variable with a constant "
                "or a register the loop does not change, so the trip count is unknown")
    iv = refusal.iv
    if refusal.kind == "eq":
        return (f"the loop runs while {iv.reg} == {refusal.bound}: write the test with < or > so that the "
                "trip count is known")
    direction = "up" if iv.step > 0 else "down"
    return (f"'{iv.reg}' counts {direction} by {abs(iv.step)} but the loop runs while "
            f"{iv.reg} {SYMBOL[refusal.op]} {refusal.bound}: the trip count is not computable")


def _reads_before_writing(block: Block, name: str) -> bool:
    """Whether *block* reads *name* before writing it (a value from before the block)."""
    for ins in block.instrs:
        if name in ins.uses():
            return True
        if name in ins.defs():
            return False
    return False


def _line(ins: Instr) -> str:
    return str(ins.loc.line) if ins.loc else "?"

"""Loops of LLVM IR for the software pipeliner: a single block that branches back to
itself, its ``phi`` nodes read as values carried from earlier iterations.

In SSA form a value that crosses the back edge goes through a ``phi``::

    loop:
      %i = phi i64 [ 0, %pre ], [ %i.next, %loop ]      ; i of iteration k: i.next of k-1
      %s = phi double [ 0.0, %pre ], [ %s.next, %loop ]
      %p = getelementptr inbounds double, ptr %x, i64 %i
      %v = load double, ptr %p
      %s.next = fadd double %s, %v
      %i.next = add nuw nsw i64 %i, 1
      %c = icmp eq i64 %i.next, %n
      br i1 %c, label %exit, label %loop

A use of ``%s`` reads ``%s.next`` of the previous iteration: a dependence of
distance 1; a phi whose back-edge value is another phi (``%a1 = phi [..], [%a0,
%loop]``, clang's rotating registers of a stencil or FIR filter) adds one more
iteration per link. With these distances the loop becomes the same
:class:`~schedcc.swp.view.LoopView` the schedcc IR's loops are (the analysis
is :mod:`schedcc.swp.analysis`'s), so :func:`~schedcc.swp.dependences.loop_dag`,
the modulo schedulers and the verifier work on it unchanged. Induction variables are phis stepped by a constant
(``add``, ``sub``, a ``getelementptr`` by a constant: pointer inductions); the
exit test is an ``icmp`` of one against a loop-invariant bound; besides
``slt``/``ult``... LLVM's ``eq``/``ne`` (what clang writes) are accepted, the
trip count then being checked at run time (:mod:`schedcc.swp.llvm_codegen`).

What cannot be pipelined is a :class:`~schedcc.swp.view.NotPipelined` with
the reason. ``llvm.dbg.*`` calls are left out of the pipelined code (the
original loop, kept for short trip counts, keeps them).

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> src = parse_llvm(open("examples/swp/kernels-O2.ll").read(), "kernels-O2.ll")
    >>> loops = find_llvm_loops(src)
    >>> [(x.loop.name, x.loop.iv.reg, x.loop.exit.op, x.chains) for x in loops if x.name == "@dot/9"]
    [('@dot/9', '%10', 'ne', {'%10': ('%17', 1), '%11': ('%16', 1)})]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schedcc.dag import has_unknown_side_effects
from schedcc.frontends.llvm_info import FunctionInfo, Phi
from schedcc.frontends.llvm_ir import is_scratch
from schedcc.frontends.source import Source
from schedcc.ir import Block, Function, Instr, Reg
from schedcc.swp.analysis import Refusal, analyse, inductions
from schedcc.swp.cfg import back_edges, multi_block_reason
from schedcc.swp.view import COMPARISONS, SYMBOL, Body, LoopView, NotPipelined, WrapsView

_ICMP = re.compile(r"=\s*icmp\s+(\w+)\s+(\S+)\s")


@dataclass(repr=False)
class LlvmLoop(WrapsView):
    """A single-block LLVM loop the pipeliner can transform: the schedcc view
    (``loop``) plus what writing LLVM IR back needs."""

    loop: LoopView
    info: FunctionInfo
    phis: list[Phi]
    chains: dict[str, tuple[str, int]]   # phi -> (body value at the end of its chain, distance)
    pred: str                            # the exit test's icmp predicate (slt, ult, eq, ...)
    iv_type: str                         # the type of the induction variable and its bound
    outside: list[str]                   # values of the loop used after it (body values and phis)
    text: str = ""                       # the file's text when it is not the one read (if-converted)


def find_llvm_loops(source: Source) -> list[LlvmLoop | NotPipelined]:
    """Every loop of an LLVM IR source, in text order: an :class:`LlvmLoop` when it
    can be pipelined, a :class:`NotPipelined` with the reason otherwise."""
    out: list[LlvmLoop | NotPipelined] = []
    lines = source.text.splitlines()
    for func in source.program.functions:
        info = source.extra["llvm"][func.name]
        loops = back_edges(func)
        headers = {header.label for _, header, _ in loops}
        for block, header, body in loops:
            if block is header:
                out.append(analyse_llvm_loop(func, block, info, lines))
            else:
                out.append(NotPipelined(func, header, *multi_block_reason(block, header, body, headers)))
    return out


def _line(ins: Instr) -> str:
    return str(ins.loc.line) if ins.loc else "?"


def analyse_llvm_loop(function: Function, block: Block, info: FunctionInfo,
                      lines: list[str]) -> LlvmLoop | NotPipelined:
    """Check one self-looping LLVM block; see the module docstring."""
    def no(reason: str, kind: str = "other") -> NotPipelined:
        return NotPipelined(function, block, reason, kind)

    term = block.terminator
    if term is None or term.opcode != "br" or len(term.operands) != 3:
        return no(f"the loop ends with '{term}', not with a conditional 'br'")
    labels = [op.name for op in term.operands[1:]]
    if labels[0] == labels[1]:
        return no(f"both targets of the branch are '{labels[0]}': the loop never exits")
    if info.allocas.get(block.label):
        return no(f"the body allocates stack memory (alloca, line {info.allocas[block.label][0]}): an alloca "
                  "in a loop is not pipelined")
    instrs = tuple(i for i in block.instrs if not i.opcode.startswith("llvm.dbg."))
    body_block = Block(block.label, instrs, block.loc)
    for ins in instrs[:-1]:
        if ins.is_call:
            return no(f"the body calls {ins.operands[0]} (line {_line(ins)}): a call may read and write any "
                      "memory, so iterations cannot overlap", "call")
        mem = ins.mem_read or ins.mem_write
        if mem is not None and "volatile" in mem.regs():
            return no(f"the body has a volatile access (line {_line(ins)}): its order and number must stay as "
                      "written", "effects")
        if ins.mem_copy_read is not None:
            return no(f"the body copies memory ({ins.opcode}, line {_line(ins)}); such a loop is not pipelined", "effects")
        if has_unknown_side_effects(ins):
            return no(f"'{ins}' (line {_line(ins)}) has unknown side effects", "effects")
    phis = info.phis.get(block.label, [])
    back: dict[str, str] = {}
    for phi in phis:
        mine = [v for v, lab in phi.incoming if lab == block.label]
        if len(mine) != 1 or mine[0] is None or len(phi.incoming) < 2:
            return no(f"the phi {phi.name} (line {phi.line}) does not take one value from the loop and one "
                      "from before it")
        if not phi.type:
            return no(f"the phi {phi.name} (line {phi.line}) has a type schedcc cannot write back")
        back[phi.name] = mine[0]
    defs: dict[str, list[int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.defs():
            defs.setdefault(r, []).append(node)
    chains: dict[str, tuple[str, int]] = {}
    for phi in phis:
        value, distance, seen = back[phi.name], 1, {phi.name}
        while value in back:
            if value in seen:
                return no(f"the phis {', '.join(sorted(seen))} pass values around among themselves")
            seen.add(value)
            value, distance = back[value], distance + 1
        if value not in defs:
            return no(f"the phi {phi.name} (line {phi.line}) takes '{value}' from the loop, which the loop "
                      "does not compute")
        chains[phi.name] = (value, distance)

    # What each instruction means as integer arithmetic (for induction variables,
    # addresses and the trip count): a getelementptr with a variable index or a trunc
    # is not affine in the IR's terms.
    meaning = tuple(Instr("opaque", ins.dest) if _not_affine(ins, lines) else _guarded(ins) for ins in instrs)
    reaching: dict[tuple[int, str], tuple[int, int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.uses():
            if r in defs:
                reaching[(node, r)] = (defs[r][0], 0)
            elif r in chains:
                value, distance = chains[r]
                reaching[(node, r)] = (defs[value][0], distance)
    cond = term.operands[0]
    continue_on_true = labels[0] == block.label
    exit_label = labels[1] if continue_on_true else labels[0]

    def body_of(cmp_node: int, op: str) -> Body:
        return Body(function, body_block, meaning, reaching, cmp_node, op, continue_on_true,
                    cond.name if isinstance(cond, Reg) else "", exit_label, unsigned=pred.startswith("u"),
                    live_out=tuple(outside))

    pred, outside = "", {}
    if not inductions(body_of(len(instrs) - 1, "ne")):
        return no("no induction variable: no phi is stepped by a constant (%i.next = add %i, c) in the body", "induction")
    if not isinstance(cond, Reg) or cond.name not in defs:
        return no(f"the branch condition '{cond}' is not computed in the loop body", "trip-count")
    cmp_node = defs[cond.name][0]
    cmp = instrs[cmp_node]
    m = _ICMP.search(lines[cmp.loc.line - 1]) if cmp.loc is not None else None
    if cmp.opcode not in COMPARISONS or len(cmp.operands) != 2 or m is None:
        return no(f"the branch condition comes from '{cmp}', which is not an integer comparison (icmp)", "trip-count")
    pred, iv_type = m.group(1), m.group(2)
    users = [ins for ins in instrs[:-1] if cond.name in ins.uses()]
    users += [ins for b in function.blocks if b is not block for ins in b.instrs if cond.name in ins.uses()]
    if users or any(v == cond.name for lab, ps in info.phis.items() for p in ps for v, _ in p.incoming):
        return no(f"the exit condition '{cond}' is used for more than the loop branch", "trip-count")
    mine = set(defs) | set(chains)
    for b in function.blocks:
        if b is block:
            continue
        for ins in b.instrs:
            for r in ins.uses():
                if r in mine:
                    outside[r] = None
        for p in info.phis.get(b.label, []):
            for v, _ in p.incoming:
                if v in mine:
                    outside[v] = None
    view = analyse(body_of(cmp_node, cmp.opcode))
    if isinstance(view, Refusal):
        return no(_explain(view, cmp), "trip-count")
    for r in outside:
        if not info.types.get(r) and r not in chains:
            return no(f"'{r}' is used after the loop and has a type schedcc cannot write back")
    return LlvmLoop(view, info, phis, chains, pred, iv_type, list(outside))


def _explain(refusal: Refusal, cmp: Instr) -> str:
    if refusal.kind == "no-test":
        return (f"the exit test '{cmp}' does not compare an induction variable with a value the loop does "
                "not change, so the trip count is unknown")
    iv = refusal.iv
    if refusal.kind == "eq":
        return f"the loop runs while {iv.reg} == {refusal.bound}: it runs at most twice"
    return (f"'{iv.reg}' counts {'up' if iv.step > 0 else 'down'} by {abs(iv.step)} but the loop runs "
            f"while {iv.reg} {SYMBOL[refusal.op]} {refusal.bound}: the trip count is not computable")


def _guarded(ins: Instr) -> Instr:
    """An address if-conversion guarded (``select %p, %a, %ifc.scratch``) means ``%a``
    for the addresses: the scratch slot is touched only when the result is unused."""
    if ins.opcode == "select" and len(ins.operands) == 3 and isinstance(ins.operands[2], Reg) \
            and is_scratch(ins.operands[2].name):
        return Instr("mov", ins.dest, (ins.operands[1],))
    return ins


def _not_affine(ins: Instr, lines: list[str]) -> bool:
    """A ``getelementptr`` with a variable index (schedcc IR ``add %p, %i``: the index is
    not scaled there) or a ``trunc``: its value is not the affine function of the schedcc
    IR instruction. A constant ``getelementptr`` (``add %p, 8``) is."""
    if ins.dest is None or ins.loc is None:
        return False
    m = re.search(r"=\s*(getelementptr|trunc)\b", lines[ins.loc.line - 1])
    if m is None:
        return False
    return m.group(1) == "trunc" or any(isinstance(o, Reg) for o in ins.operands[1:])

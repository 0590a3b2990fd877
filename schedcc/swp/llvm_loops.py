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
:class:`~schedcc.swp.loops.Loop` the schedcc IR's loops are, so
:func:`~schedcc.swp.loops.loop_dag`, the modulo schedulers and the verifier
work on it unchanged. Induction variables are phis stepped by a constant
(``add``, ``sub``, a ``getelementptr`` by a constant: pointer inductions); the
exit test is an ``icmp`` of one against a loop-invariant bound; besides
``slt``/``ult``... LLVM's ``eq``/``ne`` (what clang writes) are accepted, the
trip count then being checked at run time (:mod:`schedcc.swp.llvm_codegen`).

What cannot be pipelined is a :class:`~schedcc.swp.loops.NotPipelined` with
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
from schedcc.frontends.source import Source
from schedcc.ir import Block, Const, Function, Instr, Reg
from schedcc.swp.loops import (COMPARISONS, _NEGATED, _SWAPPED, ExitTest, Induction, Loop, NotPipelined, _step_of,
                               _symbolic)

_ICMP = re.compile(r"=\s*icmp\s+(\w+)\s+(\S+)\s")


@dataclass
class LlvmLoop:
    """A single-block LLVM loop the pipeliner can transform: the schedcc view
    (``loop``) plus what writing LLVM IR back needs."""

    loop: Loop
    info: FunctionInfo
    phis: list[Phi]
    chains: dict[str, tuple[str, int]]   # phi -> (body value at the end of its chain, distance)
    pred: str                            # the exit test's icmp predicate (slt, ult, eq, ...)
    iv_type: str                         # the type of the induction variable and its bound
    outside: list[str]                   # values of the loop used after it (body values and phis)

    @property
    def name(self) -> str:
        return self.loop.name


def find_llvm_loops(source: Source) -> list[LlvmLoop | NotPipelined]:
    """Every loop of an LLVM IR source, in text order: an :class:`LlvmLoop` when it
    can be pipelined, a :class:`NotPipelined` with the reason otherwise."""
    out: list[LlvmLoop | NotPipelined] = []
    lines = source.text.splitlines()
    for func in source.program.functions:
        info = source.extra["llvm"][func.name]
        for block, header, body in back_edges(func):
            if block is header:
                out.append(analyse_llvm_loop(func, block, info, lines))
            else:
                out.append(NotPipelined(func, header, multi_block_reason(block, header, body)))
    return out


def multi_block_reason(latch: Block, header: Block, body: list[Block]) -> str:
    """Why a loop of several blocks is left alone, in one line; a loop that tests at its
    top (a while loop as a simple compiler writes it) is named as such."""
    if len(body) == 2 and latch.terminator is not None and latch.terminator.opcode in ("jmp", "b") \
            and header.terminator is not None and header.terminator.opcode not in ("jmp", "b"):
        return (f"the loop tests at its top ('{header.label}') and jumps back from '{latch.label}': only a loop "
                "whose body is one block, testing at its end, is pipelined (clang -O1 and up rotate loops so)")
    return (f"the loop from '{latch.label}' back to '{header.label}' spans {len(body)} blocks (an if, an inner "
            "loop or an exit in the middle); only a loop whose body is one block is pipelined")


def back_edges(func: Function, falls=lambda block: block.terminator is None
               ) -> list[tuple[Block, Block, list[Block]]]:
    """(latch, header, the blocks of the loop) for every loop of *func*, one per header,
    in text order: an edge to a block that dominates its source (clang places a loop's
    exit block before the loop, so text order alone cannot tell). *falls(block)*: whether
    control may fall through to the next block (in assembly a conditional branch does).
    O(blocks^2)."""
    blocks = func.blocks
    index = {b.label: k for k, b in enumerate(blocks)}
    succ = [[index[t] for t in b.successors() if t in index] for b in blocks]
    for k, b in enumerate(blocks):
        if falls(b) and k + 1 < len(blocks):
            succ[k].append(k + 1)
    pred: list[list[int]] = [[] for _ in blocks]
    for k, ts in enumerate(succ):
        for t in ts:
            pred[t].append(k)
    every = set(range(len(blocks)))
    dom = [every for _ in blocks]
    if blocks:
        dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for k in range(1, len(blocks)):
            ps = [dom[p] for p in pred[k]]
            new = (set.intersection(*ps) if ps else set()) | {k}
            if new != dom[k]:
                dom[k], changed = new, True
    found: dict[int, tuple[int, int]] = {}
    for k, ts in enumerate(succ):
        for h in ts:
            if h in dom[k] and h not in found:
                body, todo = {h, k}, [k]
                while todo:
                    n = todo.pop()
                    for p in pred[n]:
                        if p not in body:
                            body.add(p)
                            todo.append(p)
                found[h] = (k, sorted(body))
    return [(blocks[k], blocks[h], [blocks[b] for b in body]) for h, (k, body) in sorted(found.items())]


def _line(ins: Instr) -> str:
    return str(ins.loc.line) if ins.loc else "?"


def analyse_llvm_loop(function: Function, block: Block, info: FunctionInfo,
                      lines: list[str]) -> LlvmLoop | NotPipelined:
    """Check one self-looping LLVM block; see the module docstring."""
    def no(reason: str) -> NotPipelined:
        return NotPipelined(function, block, reason)

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
    body = Block(block.label, instrs, block.loc)
    for ins in instrs[:-1]:
        if ins.is_call:
            return no(f"the body calls {ins.operands[0]} (line {_line(ins)}): a call may read and write any "
                      "memory, so iterations cannot overlap")
        mem = ins.mem_read or ins.mem_write
        if mem is not None and "volatile" in mem.regs():
            return no(f"the body has a volatile access (line {_line(ins)}): its order and number must stay as "
                      "written")
        if ins.mem_copy_read is not None:
            return no(f"the body copies memory ({ins.opcode}, line {_line(ins)}); such a loop is not pipelined")
        if has_unknown_side_effects(ins):
            return no(f"'{ins}' (line {_line(ins)}) has unknown side effects")
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

    # Symbolic values (for induction variables, addresses and the trip count): a
    # getelementptr with a variable index or a trunc is not affine in the IR's terms.
    opaque = tuple(Instr("opaque", ins.dest) if _not_affine(ins, lines) else ins for ins in instrs)
    ivs: dict[str, Induction] = {}
    for phi, (value, distance) in chains.items():
        step = _step_of(opaque[defs[value][0]], phi) if distance == 1 else 0
        if step:
            ivs[phi] = Induction(phi, step, defs[value][0])
    if not ivs:
        return no("no induction variable: no phi is stepped by a constant (%i.next = add %i, c) in the body")
    all_defs = dict(defs)
    for phi, (value, _) in chains.items():
        all_defs[phi] = defs[value]
    syms, addresses = _symbolic(opaque, all_defs, ivs)

    cond = term.operands[0]
    if not isinstance(cond, Reg) or cond.name not in defs:
        return no(f"the branch condition '{cond}' is not computed in the loop body")
    cmp_node = defs[cond.name][0]
    cmp = instrs[cmp_node]
    m = _ICMP.search(lines[cmp.loc.line - 1]) if cmp.loc is not None else None
    if cmp.opcode not in COMPARISONS or len(cmp.operands) != 2 or m is None:
        return no(f"the branch condition comes from '{cmp}', which is not an integer comparison (icmp)")
    pred, iv_type = m.group(1), m.group(2)
    users = [ins for ins in instrs[:-1] if cond.name in ins.uses()]
    users += [ins for b in function.blocks if b is not block for ins in b.instrs if cond.name in ins.uses()]
    if users or any(v == cond.name for lab, ps in info.phis.items() for p in ps for v, _ in p.incoming):
        return no(f"the exit condition '{cond}' is used for more than the loop branch")
    found = None
    for pos in (0, 1):
        x, bound = cmp.operands[pos], cmp.operands[1 - pos]
        if not isinstance(x, Reg):
            continue
        sx = syms.get((cmp_node, x.name))
        bound_ok = isinstance(bound, Const) and isinstance(bound.value, int) and bound.text != "null" or \
            isinstance(bound, Reg) and bound.name not in all_defs
        if bound_ok and sx is not None and len(sx[0]) == 1 and sx[0][0][1] == 1:
            iv_name = sx[0][0][0]
            if iv_name in ivs and sx[2] == ivs[iv_name].step:
                found = (pos, ivs[iv_name], sx[1], bound)
                break
    if found is None:
        return no(f"the exit test '{cmp}' does not compare an induction variable with a value the loop does "
                  "not change, so the trip count is unknown")
    pos, iv, offset, bound = found
    op = cmp.opcode if pos == 0 else _SWAPPED[cmp.opcode]
    continue_on_true = labels[0] == block.label
    if not continue_on_true:
        op = _NEGATED[op]
    exit_label = labels[1] if continue_on_true else labels[0]
    if op == "eq":
        return no(f"the loop runs while {iv.reg} == {bound}: it runs at most twice")
    if op in ("lt", "le", "gt", "ge") and (op in ("lt", "le")) != (iv.step > 0):
        return no(f"'{iv.reg}' counts {'up' if iv.step > 0 else 'down'} by {abs(iv.step)} but the loop runs "
                  f"while {iv.reg} {dict(lt='<', le='<=', gt='>', ge='>=')[op]} {bound}: the trip count is not "
                  "computable")
    exit_test = ExitTest(cmp_node, len(instrs) - 1, cond.name, op, offset, bound, 1 - pos)
    reaching: dict[tuple[int, str], tuple[int, int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.uses():
            if r in defs:
                reaching[(node, r)] = (defs[r][0], 0)
            elif r in chains:
                value, distance = chains[r]
                reaching[(node, r)] = (defs[value][0], distance)
    mine = set(defs) | set(chains)
    outside: dict[str, None] = {}
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
    for r in outside:
        if not info.types.get(r) and r not in chains:
            return no(f"'{r}' is used after the loop and has a type schedcc cannot write back")
    loop = Loop(function, body, iv, exit_test, exit_label, reaching, {r: n[-1] for r, n in defs.items()},
                addresses, ivs)
    return LlvmLoop(loop, info, phis, chains, pred, iv_type, list(outside))


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

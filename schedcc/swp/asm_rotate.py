"""Loop rotation in assembly (LoongArch, RISC-V): a loop tested at its top becomes a
guarded loop tested at its end, as :mod:`schedcc.swp.rotate` does for schedcc IR.

A compiler that does not rotate loops (a course compiler's LoongArch back end, or
clang's passes off then ``llc -disable-block-placement``) writes a ``while`` loop
with the test in the header and an unconditional jump back from the body::

    .LBB1_1:                        .LBB1_1:                      the guard, once
        addi.w  $a4, $a3, 0             addi.w  $a4, $a3, 0
        bge     $a4, $a0, .LBB1_3       bge     $a4, $a0, .LBB1_3
    # %bb.2:                   =>   # %bb.2:
        slli.d  $a5, $a4, 3         .LBB1_1.body:
        ...                             addi.w  $a4, $a3, 0       again: the body reads $a4
        addi.d  $a3, $a3, 1             slli.d  $a5, $a4, 3
        b       .LBB1_1                 ...
    .LBB1_3:                            addi.d  $a3, $a3, 1
                                        addi.w  $a4, $a3, 0       the header again
                                        blt     $a4, $a0, .LBB1_1.body
                                    .LBB1_3:

The header's instructions are copied, as written, over the body's jump back, and
its test, inverted, branches back to the body (which gets a label when it had
none). The header runs as often as before and in the same order (once on entry,
then once at the end of every iteration), so any instruction may be in it. When
the block after the body is not the exit, a jump to the exit follows the branch.
The rotation applies when the header ends in a conditional branch to the exit and
falls into the body, or branches into the body and falls into the exit (the test is
then copied as it is, and the exit labelled ``<header>.exit`` when it has no label),
and the body is entered only from the header, through its first block, and goes
back to the header only by jumps.

When the body reads a register the header writes and running the header's
instructions twice gives what running them once does (they read no register they
write; arithmetic and loads only), they are copied to the top of the body too, as
above: the body then reads ``$a4`` computed in the same iteration from the
induction variable ``$a3``, not the value the previous iteration's copy left
(carried over the back edge, which the loop analysis does not follow through a
sign extension: the addresses off it would be unknown).

A body of several blocks (an ``if`` in the loop) is rotated alike; when several
blocks jump back (llc copies the loop's end into both arms of an ``if``/``else``)
or the one that does is not the loop's last block in the text, they jump instead
to one copy of the header, ``<header>.latch:``, written after the loop's last
block (which must not fall through). If-conversion then makes the rotated loop one
block (:func:`schedcc.swp.asm_pipeline.pipeline_asm`). Every other line of the file
stays byte for byte; the pipeliner keeps the rotated text only when the rotated
loop is pipelined.

Complexity: O(lines of the file).

Example::

    >>> from schedcc.frontends import parse_source
    >>> text = ("f:\\n\\tmove\\t$a2, $zero\\n.L1:\\n\\tbge\\t$a2, $a0, .L3\\n"
    ...         "\\taddi.d\\t$a2, $a2, 1\\n\\tb\\t.L1\\n.L3:\\n\\tret\\n")
    >>> new, body = rotate_asm(parse_source(text, "f.s"), "f", ".L1")
    >>> body, new.splitlines()[4:8]
    ('.L1.body', ['.L1.body:', '\\taddi.d\\t$a2, $a2, 1', '\\tblt\\t$a2, $a0, .L1.body', '.L3:'])
"""

from __future__ import annotations

import re

from schedcc.frontends.source import Source
from schedcc.ir import Label
from schedcc.swp.asm_isa import isa_of
from schedcc.swp.cfg import flow_successors, natural_loop


class NotRotated(Exception):
    """Why a loop tested at its top was not rotated (one line). *top*: whether the loop
    does test at its top (False: its header does not leave it, so rotation does not
    apply and if-conversion may)."""

    def __init__(self, reason: str, top: bool = True):
        super().__init__(reason)
        self.top = top


def rotate_asm(source: Source, function: str, header: str) -> tuple[str, str]:
    """The text of *source* with the loop whose header is *header* (in *function*)
    rotated, and the label of the rotated loop's first block; :class:`NotRotated` with the
    reason when the loop does not have the shape of the module docstring."""
    isa = isa_of(source)
    func = source.program.function(function)
    blocks = list(func.blocks)
    index = {b.label: n for n, b in enumerate(blocks)}
    k = index[header]
    head = blocks[k]
    test = head.terminator
    if test is None or test.opcode not in isa.inverse or k + 1 >= len(blocks):
        raise NotRotated(f"'{header}' does not end in a conditional branch that schedcc can invert", False)
    target = next((o.name for o in test.operands if isinstance(o, Label)), None)
    succ = flow_successors(blocks, lambda b: _falls(b, isa))
    inside = natural_loop(succ, k)
    if inside == {k}:
        _second_entry(blocks, succ, k)
    if target in index and index[target] in inside and k + 1 not in inside:
        b_at, exit_block = index[target], blocks[k + 1]     # the test branches into the body
    elif k + 1 in inside and (target not in index or index[target] not in inside):
        b_at, exit_block = k + 1, None                      # the header falls into the body
    else:
        raise NotRotated(f"'{test}' does not leave the loop", False)
    body = blocks[b_at]
    latches = [blocks[n] for n in sorted(inside - {k}) if k in succ[n]]
    last = blocks[max(inside - {k})]                       # the loop's last block in the text
    for latch in latches:
        if not _jumps_back(latch, header, isa) or (latch is body and not body.instrs[:-1]):
            raise NotRotated(f"the block after '{header}' does not end in a jump back to it" if latch is body else
                             f"'{latch.label}' goes back to '{header}' other than by a jump",
                             _jumps_back(latch, header, isa))   # a test at the end too: not a while loop
    if last not in latches and _falls(last, isa):
        raise NotRotated(f"the loop's last block '{last.label}' may fall out of it")
    exit_label = target if exit_block is None else exit_block.label
    if exit_label is None:
        raise NotRotated(f"'{test}' does not leave the loop", False)
    for b in blocks:
        targets = [o.name for i in b.instrs for o in i.operands if isinstance(o, Label)]
        if b is not head and body.label in targets:
            raise NotRotated(f"'{body.label}' is entered from '{b.label}' too")
    if b_at != k + 1 and _falls(blocks[b_at - 1], isa):
        raise NotRotated(f"'{body.label}' is entered from '{blocks[b_at - 1].label}' too")
    lines = source.text.split("\n")
    if any(i.loc is None for b in [head, body, last, *latches] for i in b.instrs) or \
            (exit_block is not None and (not exit_block.instrs or exit_block.instrs[0].loc is None)):
        raise NotRotated("an instruction of the loop has no line")
    test_line = lines[test.loc.line - 1]
    backs = [b.terminator.loc.line - 1 for b in latches]
    if test_line.count(target) != 1 or test_line.count(";") or any(lines[n].count(";") for n in backs):
        raise NotRotated(f"line {test.loc.line} cannot be rewritten")
    labels = {}                                            # line index -> a label to insert before it
    body_label = body.label
    if "~" in body.label:
        body_label = labels[body.instrs[0].loc.line - 1] = f"{header}.body"
    if exit_block is not None and "~" in exit_label:
        exit_label = labels[exit_block.instrs[0].loc.line - 1] = f"{header}.exit"
    if exit_block is None:
        branch = re.sub(rf"(?<![\w.]){re.escape(test.opcode)}(?![\w.])", isa.inverse[test.opcode], test_line,
                        count=1)
        branch = re.sub(rf"(?<![\w.$]){re.escape(target)}(?![\w.$])", body_label, branch)
    else:
        branch = test_line                                 # already branches to the body
    again = [lines[i.loc.line - 1] for i in head.instrs[:-1]] + [branch]
    at = index[last.label]
    after = blocks[at + 1] if at + 1 < len(blocks) else None
    if after is None or after is not (exit_block if exit_block is not None else
                                      blocks[index[target]] if target in index else None):
        indent = re.match(r"\s*", test_line).group(0)
        again.append(f"{indent}{isa.jumps[0]}\t{exit_label}")
    edits = {}                                             # line index -> the lines that replace it
    if latches != [last]:                                  # the ends join in one copy of the header
        join = f"{header}.latch"
        for n in backs:
            edits[n] = [re.sub(rf"(?<![\w.$]){re.escape(header)}(?![\w.$])", join, lines[n])]
        end = last.terminator.loc.line - 1
        again = [f"{join}:"] + again
        edits[end] = again if last in latches else edits.get(end, [lines[end]]) + again
    else:
        edits[backs[0]] = again
    first_body = body.instrs[0].loc.line - 1
    if _recompute(head, [body] + [b for n, b in enumerate(blocks) if n in inside - {k, b_at}], isa):
        edits[first_body] = ([lines[i.loc.line - 1] for i in head.instrs[:-1]]
                             + edits.get(first_body, [lines[first_body]]))
    new = []
    for n, line in enumerate(lines):
        new += ([f"{labels[n]}:"] if n in labels else []) + edits.get(n, [line])
    return "\n".join(new), body_label


def _recompute(head, body: list, isa) -> bool:
    """Whether the header's instructions are copied to the top of the body too: when the
    body reads a register they write (else it would read the value the previous
    iteration's copy at the end wrote: a value carried over the back edge, which the
    loop analysis cannot follow through a sign extension) and running them twice gives
    what running them once does (no register they read before writing it is written by
    them; no store, call or anything but arithmetic and loads)."""
    code = head.instrs[:-1]
    written: set[str] = set()
    read: set[str] = set()
    for i in code:
        if i.mem_write is not None or isa.control(i, set()) != "next":
            return False
        read |= set(i.uses()) - written
        written |= set(i.defs())
    if not code or read & written:
        return False
    entry, done = body[0], set()            # registers the body's first block writes before reading them
    for i in entry.instrs:
        if any(r in written and r not in done for r in i.uses()):
            return True
        done |= set(i.defs())
    return any(r in written - done for b in body[1:] for i in b.instrs for r in i.uses())


def _second_entry(blocks, succ: list[list[int]], k: int) -> None:
    """:class:`NotRotated` naming the edge into a cycle through block *k* from outside it
    when there is one (*k* then heads no natural loop)."""
    ahead, todo = set(), [n for n in succ[k] if n != k]
    while todo:
        n = todo.pop()
        if n not in ahead:
            ahead.add(n)
            todo += [t for t in succ[n] if t != k]
    cycle = {n for n in ahead if k in succ[n]}
    todo = list(cycle)
    while todo:                                 # the blocks on a path from *k* back to it
        n = todo.pop()
        for m in ahead - cycle:
            if n in succ[m]:
                cycle.add(m)
                todo.append(m)
    for m in range(len(blocks)):
        for n in succ[m]:
            if m != k and m not in cycle and n in cycle:
                raise NotRotated(f"'{blocks[n].label}' is entered from '{blocks[m].label}' too")


def _jumps_back(body, header: str, isa) -> bool:
    back = body.terminator
    return back is not None and back.opcode in isa.jumps and bool(body.instrs[:-1]) \
        and [o.name for o in back.operands if isinstance(o, Label)] == [header]


def _falls(block, isa) -> bool:
    term = block.terminator
    return term is None or term.opcode not in isa.jumps

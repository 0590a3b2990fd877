"""Loop rotation in assembly (LoongArch, RISC-V): a loop tested at its top becomes a
guarded loop tested at its end, as :mod:`schedcc.swp.rotate` does for schedcc IR.

A compiler that does not rotate loops (a course compiler's LoongArch back end, or
clang's passes off then ``llc -disable-block-placement``) writes a ``while`` loop
with the test in the header and an unconditional jump back from the body::

    .LBB1_1:                        .LBB1_1:                      the guard, once
        addi.w  $a4, $a3, 0             addi.w  $a4, $a3, 0
        bge     $a4, $a0, .LBB1_3       bge     $a4, $a0, .LBB1_3
    # %bb.2:                   =>   .LBB1_1.body:
        ...                             ...
        addi.d  $a3, $a3, 1             addi.d  $a3, $a3, 1
        b       .LBB1_1                 addi.w  $a4, $a3, 0       the header again
    .LBB1_3:                            blt     $a4, $a0, .LBB1_1.body
                                    .LBB1_3:

The header's instructions are copied, as written, over the body's jump back, and
its test, inverted, branches back to the body (which gets a label when it had
none). The header runs as often as before and in the same order (once on entry,
then once at the end of every iteration), so any instruction may be in it. When
the block after the body is not the exit, a jump to the exit follows the branch.
The rotation applies when the header ends in a conditional branch to the exit and
falls into the body, and the body is one block entered only from the header that
ends in a jump back to it. Every other line of the file stays byte for byte; the
pipeliner keeps the rotated text only when the rotated loop is pipelined
(:func:`schedcc.swp.asm_pipeline.pipeline_asm`).

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


class NotRotated(Exception):
    """Why a loop tested at its top was not rotated (one line)."""


def rotate_asm(source: Source, function: str, header: str) -> tuple[str, str]:
    """The text of *source* with the loop whose header is *header* (in *function*)
    rotated, and the label of the rotated loop's block; :class:`NotRotated` with the
    reason when the loop does not have the shape of the module docstring."""
    isa = isa_of(source)
    func = source.program.function(function)
    blocks = list(func.blocks)
    k = next(n for n, b in enumerate(blocks) if b.label == header)
    head = blocks[k]
    test = head.terminator
    if test is None or test.opcode not in isa.inverse or k + 1 >= len(blocks):
        raise NotRotated(f"'{header}' does not end in a conditional branch that schedcc can invert")
    exit_label = next((o.name for o in test.operands if isinstance(o, Label)), None)
    body = blocks[k + 1]
    back = body.terminator
    if back is None or back.opcode not in isa.jumps or not body.instrs[:-1] \
            or [o.name for o in back.operands if isinstance(o, Label)] != [header]:
        raise NotRotated(f"the block after '{header}' does not end in a jump back to it")
    if exit_label in (header, body.label) or exit_label is None:
        raise NotRotated(f"'{test}' does not leave the loop")
    for b in blocks:
        targets = [o.name for i in b.instrs for o in i.operands if isinstance(o, Label)]
        if b is not head and body.label in targets:
            raise NotRotated(f"'{body.label}' is entered from '{b.label}' too")
    lines = source.text.split("\n")
    if any(i.loc is None for i in head.instrs + body.instrs):
        raise NotRotated("an instruction of the loop has no line")
    first_body, back_line = body.instrs[0].loc.line - 1, back.loc.line - 1
    test_line = lines[test.loc.line - 1]
    if test_line.count(exit_label) != 1 or lines[back_line].count(";") or test_line.count(";"):
        raise NotRotated(f"line {test.loc.line} cannot be rewritten")
    synthetic = "~" in body.label
    body_label = f"{header}.body" if synthetic else body.label
    inverse = isa.inverse[test.opcode]
    branch = re.sub(rf"(?<![\w.]){re.escape(test.opcode)}(?![\w.])", inverse, test_line, count=1)
    branch = re.sub(rf"(?<![\w.$]){re.escape(exit_label)}(?![\w.$])", body_label, branch)
    again = [lines[i.loc.line - 1] for i in head.instrs[:-1]] + [branch]
    after = blocks[k + 2].label if k + 2 < len(blocks) else None
    if after != exit_label:
        indent = re.match(r"\s*", test_line).group(0)
        again.append(f"{indent}{isa.jumps[0]}\t{exit_label}")
    new = lines[:back_line] + again + lines[back_line + 1:]
    if synthetic:
        new = new[:first_body] + [f"{body_label}:"] + new[first_body:]
    return "\n".join(new), body_label

"""A program together with the text it came from, so that a schedule can be
written back in the source's own language.

The LLVM IR and assembly front ends write a scheduled program back by moving
whole source lines: every instruction is one line (its ``Instr.loc.line``);
inside a block the lines that held scheduled instructions are refilled in the
new order and every other line (labels, directives, comments, blank lines)
stays where it was. :func:`refill_lines` does that for any front end.

Example::

    >>> lines = ["a:", "  x", "  # note", "  y"]
    >>> refill_lines(lines, [([2, 4], [4, 2])])
    ['a:', '  y', '  # note', '  x']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from schedcc.errors import SchedccError
from schedcc.ir import Block, Instr, Loc, Program


@dataclass
class Source:
    """A parsed program, its language (``ir``, ``ll``, ``asm``) and a writer
    that renders a reordering of ``program`` (same functions, blocks and
    instructions; only the order inside blocks may differ) in that language.
    ``extra`` holds what a front end keeps for later passes (LLVM IR: its phis
    and types per function, :mod:`schedcc.frontends.llvm_info`)."""

    program: Program
    lang: str
    text: str
    writer: Callable[[Program], str]
    extra: dict[str, Any] = field(default_factory=dict)  # what a front end keeps for later passes

    def render(self, scheduled: Program) -> str:
        return self.writer(scheduled)


def refill_lines(lines: list[str], moves: Iterable[tuple[list[int], list[int]]]) -> list[str]:
    """Return *lines* with, for each ``(slots, sources)`` pair, line ``slots[k]``
    replaced by the original line ``sources[k]`` (1-based line numbers).

    ``sources`` must be a permutation of ``slots``. O(total lines).
    """
    out = list(lines)
    for slots, sources in moves:
        if sorted(slots) != sorted(sources):
            raise ValueError("refill_lines: sources must be a permutation of slots")
        for slot, src in zip(slots, sources):
            out[slot - 1] = lines[src - 1]
    return out


def instr_line(instr: Instr) -> int:
    assert instr.loc is not None, "front ends give every instruction a location"
    return instr.loc.line


def block_moves(original: Program, scheduled: Program,
                pinned: dict[tuple[str, str], list[int]] | None = None) -> list[tuple[list[int], list[int]]]:
    """The line moves that turn *original* into *scheduled*, block by block.

    ``pinned`` lists, per (function, block label), lines that are not
    scheduled but belong at the head of the block (LLVM's ``phi`` and
    ``alloca``): they keep their relative order and come first.
    """
    pinned = pinned or {}
    new_blocks: dict[tuple[str, str], Block] = {(f.name, b.label): b for f, b in scheduled.blocks()}
    moves = []
    for func, block in original.blocks():
        key = (func.name, block.label)
        new = new_blocks.get(key, block)
        if sorted(map(instr_line, new.instrs)) != sorted(map(instr_line, block.instrs)):
            raise ValueError(f"block {key} was changed, not only reordered")
        head = pinned.get(key, [])
        slots = sorted(head + [instr_line(i) for i in block.instrs])
        sources = list(head) + [instr_line(i) for i in new.instrs]
        if slots != sources:
            moves.append((slots, sources))
    return moves


def one_instruction_per_line(program: Program) -> None:
    """Writing back moves lines, so two instructions may not share one."""
    for _, block in program.blocks():
        seen: dict[int, Loc] = {}
        for instr in block.instrs:
            line = instr_line(instr)
            if line in seen:
                raise SchedccError("two instructions on one line", instr.loc,
                                   notes=["schedcc writes the program back line by line: "
                                          "put each instruction on its own line"])
            seen[line] = instr.loc  # type: ignore[assignment]

"""``--function NAME`` and ``--block NAME``: which functions and blocks of a program a run
schedules, reports, draws and pipelines.

Names are the ones the compiler wrote: ``saxpy`` and ``.LBB0_2`` in assembly,
``@saxpy`` (or ``saxpy``) and ``for.body`` or ``9`` (or ``%9``) in LLVM IR,
``main`` and ``entry`` in schedcc IR. :func:`select` checks every name against
the program: an unknown one is a :class:`~schedcc.errors.SchedccError` listing
the names there are and the nearest one. A loop is selected when ``--block``
names any of its blocks (:meth:`Selection.wants_loop`), so a loop that is
rotated or if-converted is found by the header or the body label alike.

Example::

    >>> from schedcc import parse
    >>> prog = parse("func f() {\\na:\\n  x = 1\\nb:\\n  y = 2\\n}\\nfunc g() {\\na:\\n  z = 3\\n}\\n")
    >>> s = select(prog, blocks=["b"])
    >>> [(f.name, b.label) for f, b in prog.blocks() if s.wants(f.name, b.label)]
    [('f', 'b')]
    >>> select(prog, functions=["h"])
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: no function 'h' in <input>
      note: its functions: f, g
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Iterable

from schedcc.errors import SchedccError
from schedcc.ir import Function, Program

SHOWN_NAMES = 30  # names an error lists before "... and N more"


def _bare(name: str) -> str:
    """A name without LLVM's sigil: ``@saxpy`` is ``saxpy``, ``%9`` is ``9``."""
    return name[1:] if name[:1] in ("@", "%") and len(name) > 1 else name


@dataclass(frozen=True)
class Selection:
    """The functions and blocks chosen (by their names as the program has them); None: all."""

    functions: frozenset[str] | None = None
    blocks: frozenset[str] | None = None

    @property
    def everything(self) -> bool:
        return self.functions is None and self.blocks is None

    def wants_function(self, function: str) -> bool:
        return self.functions is None or function in self.functions

    def wants(self, function: str, block: str) -> bool:
        """Is block *block* of function *function* chosen?"""
        return self.wants_function(function) and (self.blocks is None or block in self.blocks)

    def wants_loop(self, function: Function, block: str) -> bool:
        """Is the loop of *function* holding block *block* (its header or its body) chosen:
        does ``--block`` name one of its blocks (:func:`loop_labels`)?"""
        if not self.wants_function(function.name):
            return False
        return self.blocks is None or not self.blocks.isdisjoint(loop_labels(function, block))


def loop_labels(function: Function, block: str) -> set[str]:
    """The labels of the innermost loop holding *block*, as a compiler lays loops out: from
    a header to the block (later in the text) that branches back to it; just *block* when
    no loop holds it. O(blocks x successors)."""
    labels = [b.label for b in function.blocks]
    if block not in labels:
        return {block}
    i, index = labels.index(block), {lb: k for k, lb in enumerate(labels)}
    best: tuple[int, int] | None = None
    for k, b in enumerate(function.blocks):
        for succ in b.successors():
            h = index.get(succ)
            if h is not None and h <= i <= k and (best is None or k - h < best[1] - best[0]):
                best = (h, k)
    return set(labels[best[0]:best[1] + 1]) if best else {block}


def select(program: Program, functions: Iterable[str] = (), blocks: Iterable[str] = ()) -> Selection:
    """The :class:`Selection` of *functions* and *blocks* (empty: all) in *program*; a name
    that is not there (of a block: in the functions chosen) raises a :class:`SchedccError`
    listing the names there are and suggesting the nearest."""
    functions, blocks = list(functions), list(blocks)
    where = program.source or "the program"
    chosen_funcs = None
    if functions:
        by_name = {f.name: f.name for f in program.functions}
        by_name.update({_bare(f.name): f.name for f in program.functions if _bare(f.name) not in by_name})
        names = [f.name for f in program.functions]
        chosen_funcs = frozenset(_find(name, by_name, "function", where, names) for name in functions)
    chosen_blocks = None
    if blocks:
        funcs = [f for f in program.functions if chosen_funcs is None or f.name in chosen_funcs]
        labels = [b.label for f in funcs for b in f.blocks]
        by_label = {lb: lb for lb in labels}
        by_label.update({_bare(lb): lb for lb in labels if _bare(lb) not in by_label})
        scope = where if chosen_funcs is None else f"function {', '.join(sorted(chosen_funcs))}"
        listed = list(dict.fromkeys(labels))
        chosen_blocks = frozenset(_find(name, by_label, "block", scope, listed) for name in blocks)
    return Selection(chosen_funcs, chosen_blocks)


def _find(name: str, known: dict[str, str], what: str, where: str, listed: list[str]) -> str:
    found = known.get(name) or known.get(_bare(name))
    if found is not None:
        return found
    shown = ", ".join(listed[:SHOWN_NAMES]) + (f" ... and {len(listed) - SHOWN_NAMES} more"
                                               if len(listed) > SHOWN_NAMES else "")
    notes = [f"its {what}s: {shown}" if listed else f"it has no {what}s"]
    near = difflib.get_close_matches(name, list(dict.fromkeys(listed)), n=1, cutoff=0.5)
    if near:
        notes.append(f"did you mean '{near[0]}'?")
    raise SchedccError(f"no {what} '{name}' in {where}", notes=notes)

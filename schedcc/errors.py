"""Errors a user can act on: ``file:line:col: error: ...``, the line, a caret.

Every error schedcc reports about its input is a :class:`SchedccError`. The CLI
prints :meth:`SchedccError.render` and exits with status 2; library callers can
catch it and read ``loc`` and ``message``.

Example::

    >>> from schedcc.ir import Loc
    >>> err = SchedccError("unknown group 'dq'", Loc("step.ir", 1, 1), focus="dq")
    >>> print(attach_source(err, "r = allreduce g {bytes = 1MiB, group = dq}"))
    step.ir:1:40: error: unknown group 'dq'
      r = allreduce g {bytes = 1MiB, group = dq}
                                             ^~
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Iterator

from schedcc.ir import Loc


@dataclass
class SchedccError(Exception):
    """An error in the user's input (program, machine model, options)."""

    message: str
    loc: Loc | None = None
    notes: list[str] = field(default_factory=list)
    source_line: str | None = None  # the offending line, when known
    width: int = 1  # how many columns the caret underlines
    focus: str | None = None  # the word on the line the caret should point at (an attribute's name)

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        head = f"{self.loc}: error: {self.message}" if self.loc else f"error: {self.message}"
        lines = [head]
        if self.loc is not None and self.source_line is not None:
            text = self.source_line.rstrip("\n").expandtabs(1)
            lines.append(f"  {text}")
            lines.append("  " + " " * max(self.loc.col - 1, 0) + "^" + "~" * max(self.width - 1, 0))
        lines.extend(f"  note: {n}" for n in self.notes)
        return "\n".join(lines)


def attach_source(err: SchedccError, text: str) -> SchedccError:
    """Fill in ``err.source_line`` from the full source *text* when it is missing, and
    move the caret onto ``err.focus`` when the error names a word on that line."""
    if err.loc is None or err.source_line is not None:
        return err
    lines = text.splitlines()
    if not 1 <= err.loc.line <= len(lines):
        return err
    line = err.source_line = lines[err.loc.line - 1]
    if err.focus:
        m = re.compile(r"(?<![A-Za-z0-9_.])" + re.escape(err.focus) + r"(?![A-Za-z0-9_])").search(
            line, max(err.loc.col - 1, 0))
        if m:
            err.loc = replace(err.loc, col=m.start() + 1)
            err.width = len(err.focus)
    return err


@contextmanager
def located(text: str, name: str) -> Iterator[None]:
    """Errors raised inside that point into file *name* get their line (and caret) from *text*."""
    try:
        yield
    except SchedccError as err:
        if err.loc is not None and err.loc.file == name:
            attach_source(err, text)
        raise

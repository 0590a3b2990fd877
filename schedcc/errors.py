"""Errors a user can act on: ``file:line:col: error: ...``, the line, a caret.

Every error schedcc reports about its input is a :class:`SchedccError`. The CLI
prints :meth:`SchedccError.render` and exits with status 2; library callers can
catch it and read ``loc`` and ``message``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.ir import Loc


@dataclass
class SchedccError(Exception):
    """An error in the user's input (program, machine model, options)."""

    message: str
    loc: Loc | None = None
    notes: list[str] = field(default_factory=list)
    source_line: str | None = None  # the offending line, when known
    width: int = 1  # how many columns the caret underlines

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
    """Fill in ``err.source_line`` from the full source *text* when it is missing."""
    if err.loc is not None and err.source_line is None:
        lines = text.splitlines()
        if 1 <= err.loc.line <= len(lines):
            err.source_line = lines[err.loc.line - 1]
    return err

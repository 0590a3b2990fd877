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

SHOWN_LINE = 160  # characters of the offending line an error shows (around the caret)


@dataclass
class SchedccError(Exception):
    """An error in the user's input (program, machine model, options)."""

    message: str
    loc: Loc | None = None
    notes: list[str] = field(default_factory=list)
    source_line: str | None = None  # the offending line, when known
    width: int = 1  # how many columns the caret underlines
    focus: str | None = None  # the word on the line the caret should point at (an attribute's name)
    # True on an error that is a bug in schedcc, not in the input: schedcc's own schedule
    # failing its verifier (schedcc.verifier.problem.own_schedule). The CLI says so, exit 3.
    internal = False  # a class attribute (no annotation: not a field of the dataclass)

    def __str__(self) -> str:
        return self.render()

    def render(self) -> str:
        head = f"{self.loc}: error: {self.message}" if self.loc else f"error: {self.message}"
        lines = [head]
        if self.loc is not None and self.source_line is not None:
            text = self.source_line.rstrip("\n").expandtabs(1)
            col, width = max(self.loc.col - 1, 0), max(self.width, 1)
            if len(text) > SHOWN_LINE:  # a long line: the part around the caret
                start = max(0, min(col - SHOWN_LINE // 2, len(text) - SHOWN_LINE))
                end = start + SHOWN_LINE
                text = ("..." if start else "") + text[start:end] + ("..." if end < len(text) else "")
                col = col - start + (3 if start else 0)
                width = min(width, SHOWN_LINE)
            lines.append(f"  {text}")
            lines.append("  " + " " * col + "^" + "~" * (width - 1))
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


def format_bound(v: float) -> str:
    """A bound as people write it: ``1,048,576``, ``0.001``, ``1e+18``."""
    return f"{int(v):,}" if v == int(v) and abs(v) < 1e15 else f"{v:g}"


def describe_range(lo: float, hi: float, integer: bool = False, above: bool = False) -> str:
    """The range [lo, hi] in words, as errors and docs say it.

    >>> describe_range(1, 1024, integer=True)
    'a whole number from 1 to 1,024'
    >>> describe_range(0, 1e6, above=True)
    'a number greater than 0 and at most 1,000,000'
    """
    num = format_bound
    kind = "a whole number" if integer else "a number"
    return (f"{kind} greater than {num(lo)} and at most {num(hi)}" if above
            else f"{kind} from {num(lo)} to {num(hi)}")


def check_range(value, lo: float, hi: float, what: str, *, integer: bool = False, above: bool = False,
                why: str = "", loc: Loc | None = None, focus: str | None = None) -> int | float:
    """*value* when it is a finite number in [lo, hi] (with *above*: greater than *lo*; with
    *integer*: whole), else a :class:`SchedccError` naming *what*, the range and *why*
    the range ends there. Booleans and text are not numbers. O(1).

    The library's entry points call it on their arguments; the command line reads the
    same ranges with ``schedcc.commands.values``.

    >>> check_range(8, 1, 1024, "gpus", integer=True)
    8
    >>> check_range(float("nan"), 0, 1, "efficiency")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: efficiency must be a number from 0 to 1, got nan
    """
    import math
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    if ok and isinstance(value, float):
        ok = math.isfinite(value) and (not integer or value == int(value))
        if ok and integer:
            value = int(value)
    if ok:
        ok = lo <= value <= hi and not (above and value == lo)
    if not ok:
        reason = f" ({why})" if why else ""
        raise SchedccError(f"{what} must be {describe_range(lo, hi, integer, above)}{reason}, got {value!r}",
                           loc, focus=focus)
    return value


# Brackets nest at most this deep in any file schedcc reads. Compilers' output stays
# under about 10 (an array of structs of arrays); the bound keeps every reader's
# recursion (Lark's tree transformers, tomllib, json, type layouts) far below
# Python's limit, and a type's text, which grows with the square of its depth, small.
MAX_NESTING = 100


def check_nesting(text: str, name: str, pairs: str = "[]{}()", quotes: str = '"',
                  comments: tuple[str, ...] = (), limit: int = MAX_NESTING) -> None:
    """Refuse *text* whose brackets (*pairs*: opening and closing characters in turn) nest
    deeper than *limit*, with the place of the first bracket too deep. Quoted strings (a
    tripled quote spans lines) and comments (from one of *comments* to the end of the line)
    are skipped. A file's readers call it before parsing. O(len(text)).

    >>> check_nesting("a = [[1], [2]]  # ]]]", "m.toml", limit=2)
    >>> check_nesting("x = [[[1]]]", "m.toml", limit=2)
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: m.toml:1:7: error: brackets nested more than 2 deep
      note: schedcc reads files whose brackets nest at most 2 deep
    """
    opens, closes = pairs[0::2], pairs[1::2]
    if sum(text.count(c) for c in opens) <= limit:  # cannot nest deeper than that: most files
        return
    skip = [rf"{re.escape(q * 3)}[\s\S]*?(?:{re.escape(q * 3)}|\Z)|{re.escape(q)}(?:[^{re.escape(q)}\\\n]|\\.)*"
            rf"{re.escape(q)}?" for q in quotes] + [re.escape(c) + r"[^\n]*" for c in comments]
    pattern = re.compile("|".join(skip + ["[" + re.escape(pairs) + "]"]))
    depth = 0
    for m in pattern.finditer(text):
        c = m.group()
        if c in closes and len(c) == 1:
            depth = max(depth - 1, 0)
        elif c in opens and len(c) == 1:
            depth += 1
            if depth > limit:
                line = text.count("\n", 0, m.start()) + 1
                col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
                raise SchedccError(f"brackets nested more than {limit} deep", Loc(name, line, col),
                                   notes=[f"schedcc reads files whose brackets nest at most {limit} deep"])


def plural(n, word: str) -> str:
    """``1 cycle``, ``3 cycles``, ``0.5 cycles``: a count and its noun, as people write them.

    >>> plural(1, "cycle"), plural(2, "cycle"), plural(1.5, "cycle")
    ('1 cycle', '2 cycles', '1.5 cycles')
    """
    text = str(n) if isinstance(n, int) else f"{n:g}"
    return f"{text} {word}" if n == 1 else f"{text} {word}s"

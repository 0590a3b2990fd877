"""Numbers and errors on the command line: every numeric option is read by a
bounded type, and every usage error points at its place on the command line.

A numeric option is declared with :func:`whole` or :func:`real`, never with
``type=int`` or ``type=float`` (``tests/test_cli_values.py`` checks every
parser of every command). Each names its range and why the range ends where
it does; the range is checked where the text is read, so a value out of it
is an error before any work (``<command line>:1:COL: error: ...``, the line,
a caret under the value, exit status 2). The bounds themselves are
:func:`schedcc.errors.check_range`'s, which the library's entry points call
on the same values.

Example::

    >>> iterations = whole(1, 100, "each iteration unrolls the whole step")
    >>> iterations("3"), iterations("1e2")
    (3, 100)
    >>> iterations("1e9")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: '1e9' is out of range: expected a whole number from 1 to 100 (each iteration unrolls the whole step)
    >>> real(0, 1e6, "MiB")("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'nan' is not a finite number: expected a number from 0 to 1,000,000 (MiB)
"""

from __future__ import annotations

import argparse
import math
import re
from typing import Callable

from schedcc.errors import SchedccError, describe_range
from schedcc.ir import Loc

COMMAND_LINE = "<command line>"


class Bounded:
    """An argparse ``type``: text -> number in [lo, hi] (or (lo, hi] with *above*), with
    the reason for the range; ``lo``, ``hi`` and ``why`` stay readable for the docs and tests."""

    def __init__(self, lo: float, hi: float, why: str, integer: bool, above: bool = False):
        assert lo <= hi and why, "a bounded option names its range and why"
        self.lo, self.hi, self.why, self.integer, self.above = lo, hi, why, integer, above
        self.__name__ = "whole number" if integer else "number"  # argparse's messages use it

    def expected(self) -> str:
        return f"expected {describe_range(self.lo, self.hi, self.integer, self.above)} ({self.why})"

    def __call__(self, text: str) -> int | float:
        t = text.strip().replace("_", "")
        try:
            value: int | float = int(t, 0) if re.fullmatch(r"[+-]?(0[xX][0-9a-fA-F]+|\d+)", t) else float(t)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number: {self.expected()}") from None
        if isinstance(value, float):
            if not math.isfinite(value):
                raise argparse.ArgumentTypeError(f"'{text}' is not a finite number: {self.expected()}")
            if self.integer:
                if value != int(value):
                    raise argparse.ArgumentTypeError(f"'{text}' is not a whole number: {self.expected()}")
                value = int(value)
        if value < self.lo or value > self.hi or (self.above and value == self.lo):
            raise argparse.ArgumentTypeError(f"'{text}' is out of range: {self.expected()}")
        return value

    def __repr__(self) -> str:
        return f"{self.__name__} {describe_range(self.lo, self.hi, self.integer, self.above)}"


def whole(lo: int, hi: int, why: str) -> Callable[[str], int]:
    """A whole-number option in [lo, hi]; *why* says what the bound protects
    (``1e3`` is read as 1000). O(len(text))."""
    return Bounded(lo, hi, why, integer=True)  # type: ignore[return-value]


def real(lo: float, hi: float, why: str, above: bool = False) -> Callable[[str], float]:
    """A finite number in [lo, hi] (with *above*: greater than *lo*); *why* says what the
    bound protects. NaN and infinities are refused. O(len(text))."""
    return Bounded(lo, hi, why, integer=False, above=above)  # type: ignore[return-value]


def size(name: str) -> Callable[[str], int]:
    """The option of a model size or parallel degree (``--layers``, ``--tp``, ``--gpus``...):
    its range is :data:`schedcc.training.limits.SIZES`', shared by ``gen``, ``pipeline``,
    ``plan`` and the library."""
    from schedcc.training.limits import SIZES
    lim = SIZES[name]
    return whole(lim.lo, lim.hi, lim.why)


# Options several commands share.
ITERATIONS = whole(1, 16, "steps simulated; a step reaches its steady state in two or three, and each one "
                          "unrolls the whole step again")
def _mib():
    from schedcc.training.limits import MIB_RANGE, MIB_WHY
    return real(*MIB_RANGE, MIB_WHY)


MIB = _mib()


def given(args, dest: str) -> bool:
    """Whether the option stored in *dest* was given a value other than its default."""
    defaults = getattr(args, "_defaults", {})
    return dest in defaults and getattr(args, dest, None) != defaults[dest]


def refuse_unused(args, rules) -> None:
    """Refuse an option given where it has no effect, before any work: *rules* lists
    (option, dest, applies, what it needs); ``applies`` False for a given option is a
    located error saying what it needs (issue 21: options silently ignored)."""
    for option, dest, applies, needs in rules:
        if not applies and given(args, dest):
            raise option_error(args, option, f"{option} has no effect here: it {needs}", value=False)


# --- errors located on the command line ------------------------------------------------------------------


def _words(args_or_argv) -> list[str]:
    argv = args_or_argv if isinstance(args_or_argv, list) else getattr(args_or_argv, "_argv", None)
    return ["schedcc"] + list(argv or [])


def locate_option(words: list[str], option: str, value: bool = True) -> tuple[int, int] | None:
    """(column, width) of *option*'s value (or of the option itself) in the command
    line *words*, the last occurrence; None when it is not there. O(len(words))."""
    found = None
    for k, word in enumerate(words):
        start = len(" ".join(words[:k])) + (1 if k else 0) + 1
        if word.startswith(option + "=") and word != option:
            found = (start + len(option) + 1, len(word) - len(option) - 1) if value else (start, len(option))
        elif word == option:
            if value and k + 1 < len(words):
                found = (start + len(word) + 1, len(words[k + 1]))
            else:
                found = (start, len(word))
    return found


def option_error(args, option: str, message: str, notes: list[str] | None = None,
                 value: bool = True) -> SchedccError:
    """A :class:`SchedccError` pointing at *option*'s value (or at the option itself) on the
    command line that ran this command (*args*: the namespace, whose ``_argv``
    :func:`schedcc.cli.main` sets, or the argument list)."""
    words = _words(args)
    where = locate_option(words, option, value)
    if where is None:
        return SchedccError(message, notes=notes or [])
    col, width = where
    return SchedccError(message, Loc(COMMAND_LINE, 1, col), notes=notes or [], source_line=" ".join(words),
                        width=max(width, 1))


def argument_error(args, argument: str, message: str, notes: list[str] | None = None) -> SchedccError:
    """A :class:`SchedccError` pointing at a positional *argument* on the command line."""
    words = _words(args)
    for k, word in enumerate(words[1:], start=1):
        if word == argument:
            col = len(" ".join(words[:k])) + 2
            return SchedccError(message, Loc(COMMAND_LINE, 1, col), notes=notes or [],
                                source_line=" ".join(words), width=max(len(word), 1))
    return SchedccError(message, notes=notes or [])


def locate_message(argv: list[str], err: SchedccError) -> SchedccError:
    """*err* pointed at the first option it names that is on the command line *argv*, when
    it has no place of its own: ``--tp (16) must divide --heads (8)`` points at ``--tp``'s
    value. A flag's name is its location. O(len(message) + len(argv))."""
    if err.loc is not None:
        return err
    words = ["schedcc"] + list(argv)
    named = re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", err.message)
    for name in named:
        if locate_option(words, name):
            located = option_error(argv, name, err.message, err.notes,
                                   value=locate_option(words, name) != locate_option(words, name, value=False))
            return located
    for quoted in re.findall(r"'([^'\n]*)'", err.message):  # a word of the command line: a file, a name
        where = locate_text(words, quoted)
        if where is not None:
            col, width = where
            return SchedccError(err.message, Loc(COMMAND_LINE, 1, col), notes=err.notes,
                                source_line=" ".join(words), width=max(width, 1))
    if any(name.startswith("--") for name in named):  # options it needs that are not there: at the end
        return _at_end(list(argv), err.message, err.notes)
    return err


_BOUNDARY = "=,:"


def locate_text(words: list[str], text: str) -> tuple[int, int] | None:
    """(column, width) of *text* on the command line *words*: a whole word, or a part of one
    between ``=``, ``,`` and ``:`` (``--set=nosuch=5``, ``--policies=fifo,nosuch``), the last
    occurrence; the empty text is an option's empty value (``--show=``). None when it is
    not there. O(len of the command line)."""
    found = None
    for k, word in enumerate(words[1:], start=1):
        start = len(" ".join(words[:k])) + 2
        if word == text:
            found = (start, len(word))
            continue
        if not text:
            if word.endswith("=") and word.startswith("-") and word.count("=") == 1:
                found = (start + len(word), 0)
            continue
        i = word.find(text)
        while i >= 0:
            before = i == 0 or word[i - 1] in _BOUNDARY
            after = i + len(text) == len(word) or word[i + len(text)] in _BOUNDARY
            if before and after:
                found = (start + i, len(text))
            i = word.find(text, i + 1)
    return found


_ARGUMENT = re.compile(r"argument (?P<names>[^:]+): (?P<message>.*)", re.S)
_UNKNOWN = re.compile(r"unrecognized arguments: (?P<words>.*)")


def usage_error(argv: list[str], prog: str, message: str) -> SchedccError:
    """argparse's *message* as a :class:`SchedccError` at its place on the command line:
    ``argument --x/-x: invalid choice ...`` points at the value of ``--x``,
    ``unrecognized arguments: --y`` at ``--y``; the note says where the options are."""
    notes = [f"'{prog} --help' lists the options"]
    m = _ARGUMENT.fullmatch(message)
    if m:
        names = [n for n in m["names"].split("/")]
        text = m["message"]
        for name in names:
            if name.startswith("-") and locate_option(["schedcc"] + argv, name):
                shown = next((n for n in names if n.startswith("--")), name)
                return option_error(argv, name, f"{shown}: {text}", notes,
                                    value=not text.startswith(("expected one argument", "ignored explicit")))
        label = names[0]
        bad = re.match(r"invalid choice: '(.*?)'", text)
        if bad:  # a positional argument's value: point at it
            err = argument_error(argv, bad.group(1), f"{label}: {text}", notes)
            if err.loc is not None:
                return err
        return _at_end(argv, f"{label}: {text}", notes)
    m = _UNKNOWN.fullmatch(message)
    if m:
        first = m["words"].split(" ")[0]
        err = option_error(argv, first.split("=")[0], f"unknown option {first}" if first.startswith("-")
                           else f"unexpected argument '{first}'", notes, value=False)
        return err
    return _at_end(argv, message, notes)


def _at_end(argv: list[str], message: str, notes: list[str]) -> SchedccError:
    """*message* located just after the command line's last word (what is missing goes there)."""
    words = _words(list(argv))
    line = " ".join(words)
    return SchedccError(message, Loc(COMMAND_LINE, 1, len(line) + 2), notes=notes, source_line=line)

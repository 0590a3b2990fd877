"""The ``--exact`` family of options (the default command, ``train`` and ``gap``).

Kept apart from ``schedule.py`` so that every command adds them the same way.
An option's bad value is reported at its place on the command line
(``<command line>:1:COL: error: ...`` with the line and a caret), as input
errors are.
"""

from __future__ import annotations

import argparse
import math

from schedcc.errors import SchedccError
from schedcc.ir import Loc

COMMAND_LINE = "<command line>"


def add_arguments(parser: argparse.ArgumentParser, always: bool = False) -> None:
    """``--exact``, ``--time-limit`` and ``--workers``; with *always* (the ``gap`` command)
    there is no ``--exact`` switch: the exact solver always runs."""
    group = parser.add_argument_group("exact scheduling (CP-SAT; docs/exact.md)")
    if not always:
        group.add_argument("--exact", action="store_true",
                           help="also solve every block, loop, kernel or step exactly with CP-SAT: the "
                                "schedule with the proven smallest makespan (II and registers for loops), "
                                "or the best found within the time limit and a bound; the heuristic's "
                                "result is reported next to it")
    group.add_argument("--time-limit", type=float, default=10.0, metavar="S",
                       help="the solver's limit per problem in seconds (CP-SAT's deterministic time, so "
                            "that a run stopped by it is reproducible; default 10)")
    group.add_argument("--workers", type=int, default=1, metavar="N",
                       help="solver threads (default 1; any count gives the same schedule every run)")


def limits(args: argparse.Namespace):
    """The solver's :class:`~schedcc.sched.cpsat.Limits` from the options; a bad value is
    an error located on the command line."""
    from schedcc.sched.cpsat import Limits
    if not (math.isfinite(args.time_limit) and args.time_limit > 0):
        raise option_error(args, "--time-limit", f"--time-limit must be a positive number of seconds, "
                                                 f"got {args.time_limit:g}", notes=["for example: --time-limit 10"])
    if args.workers < 1:
        raise option_error(args, "--workers", f"--workers must be at least 1, got {args.workers}")
    return Limits(args.time_limit, args.workers)


def option_error(args: argparse.Namespace, option: str, message: str, notes: list[str] | None = None,
                 value: bool = True) -> SchedccError:
    """A :class:`SchedccError` pointing at *option*'s value (or at the option itself) on the
    command line that ran this command (``args._argv``, set by :func:`schedcc.cli.main`)."""
    argv = list(getattr(args, "_argv", None) or [])
    words = ["schedcc"] + argv
    line = " ".join(words)
    col, width = None, 1
    for k, word in enumerate(words):
        if word == option or word.startswith(option + "="):
            if word.startswith(option + "="):
                col = len(" ".join(words[:k])) + 2 + len(option) + 1 if value else len(" ".join(words[:k])) + 2
                width = len(word) - len(option) - 1 if value else len(option)
            elif value and k + 1 < len(words):
                col, width = len(" ".join(words[:k + 1])) + 2, len(words[k + 1])
            else:
                col, width = len(" ".join(words[:k])) + 2, len(word)
    if col is None:
        return SchedccError(message, notes=notes or [])
    return SchedccError(message, Loc(COMMAND_LINE, 1, col), notes=notes or [], source_line=line,
                        width=max(width, 1))


def argument_error(args: argparse.Namespace, argument: str, message: str,
                   notes: list[str] | None = None) -> SchedccError:
    """A :class:`SchedccError` pointing at a positional *argument* on the command line."""
    words = ["schedcc"] + list(getattr(args, "_argv", None) or [])
    for k, word in enumerate(words[1:], start=1):
        if word == argument:
            col = len(" ".join(words[:k])) + 2
            return SchedccError(message, Loc(COMMAND_LINE, 1, col), notes=notes or [],
                                source_line=" ".join(words), width=max(len(word), 1))
    return SchedccError(message, notes=notes or [])

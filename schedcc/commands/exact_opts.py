"""The ``--exact`` family of options (the default command, ``train`` and ``gap``).

Kept apart from ``schedule.py`` so that every command adds them the same way.
An option's bad value is reported at its place on the command line
(``<command line>:1:COL: error: ...`` with the line and a caret), as input
errors are.
"""

from __future__ import annotations

import argparse

from schedcc.commands.values import real, whole
from schedcc.sched.cpsat import MAX_TIME_LIMIT, MAX_WORKERS, TIME_LIMIT_WHY, WORKERS_WHY


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
    group.add_argument("--time-limit", type=real(0, MAX_TIME_LIMIT, TIME_LIMIT_WHY, above=True), default=10.0,
                       metavar="S",
                       help="the solver's limit per problem in seconds (CP-SAT's deterministic time, so "
                            "that a run stopped by it is reproducible; default 10)")
    group.add_argument("--workers", type=whole(1, MAX_WORKERS, WORKERS_WHY), default=1, metavar="N",
                       help="solver threads (default 1; any count gives the same schedule every run)")


def limits(args: argparse.Namespace):
    """The solver's :class:`~schedcc.sched.cpsat.Limits` from the options (their ranges
    were checked where they were read)."""
    from schedcc.sched.cpsat import Limits
    return Limits(args.time_limit, args.workers)

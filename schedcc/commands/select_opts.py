"""``--function NAME`` and ``--block NAME`` (repeatable), of the default command and ``check``:
which functions and blocks are scheduled, reported, drawn and pipelined
(:mod:`schedcc.frontends.select`). An unknown name is an error at the option on the
command line (exit 2), listing the names there are and the nearest."""

from __future__ import annotations

import argparse

from schedcc.errors import SchedccError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("choosing what to schedule")
    group.add_argument("--function", metavar="NAME", action="append", default=[], dest="functions",
                       help="only this function (as the compiler named it: saxpy, @saxpy); repeatable")
    group.add_argument("--block", metavar="NAME", action="append", default=[], dest="blocks",
                       help="only this block (its label as the compiler wrote it: .LBB0_2, for.body, entry), "
                            "and with --pipeline only the loop holding it; repeatable")


def selection(args: argparse.Namespace, program):
    """The :class:`~schedcc.frontends.select.Selection` the options ask for in *program* (None: all)."""
    if not args.functions and not args.blocks:
        return None
    from schedcc.frontends.select import select
    try:
        return select(program, args.functions, args.blocks)
    except SchedccError as err:
        option = "--function" if err.message.startswith("no function") else "--block"
        raise _at_value(args, option, err) from None


def _at_value(args: argparse.Namespace, option: str, err: SchedccError) -> SchedccError:
    """*err* pointing at the value of *option* it names (``no block 'x' ...``: the ``x`` of
    ``--block x`` or ``--block=x``) on the command line, else at the option's last value."""
    from schedcc.commands.values import COMMAND_LINE, _words, option_error
    from schedcc.ir import Loc
    name = err.message.split("'")[1] if err.message.count("'") >= 2 else None
    words = _words(args)
    for k, word in enumerate(words):
        start = len(" ".join(words[:k])) + (1 if k else 0) + 1
        if word == option and k + 1 < len(words) and words[k + 1] == name:
            col = start + len(word) + 1
        elif word == f"{option}={name}":
            col = start + len(option) + 1
        else:
            continue
        return SchedccError(err.message, Loc(COMMAND_LINE, 1, col), notes=err.notes, source_line=" ".join(words),
                            width=max(len(name or ""), 1))
    return option_error(args, option, err.message, err.notes)

"""The ``schedcc`` command: argument parsing and printing only.

``schedcc FILE --target T`` schedules every block of FILE; other commands
(``schedcc targets``, ...) are subcommands registered in :data:`COMMANDS`.
Errors in the input print ``file:line:col: error: ...`` and exit with 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import traceback
from typing import Callable

from schedcc.resources import VERSION as __version__
from schedcc.errors import SchedccError
from schedcc._perf import paused_gc
from schedcc.fileio import Interrupted, transaction
from schedcc.fileio.streams import StreamError, guarded

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2
EXIT_UNVERIFIED = 3  # schedcc's own schedule failed its verifier: a bug in schedcc, told apart from the rest

# Subcommands: name -> module with HELP, add_arguments(parser) and run(args) -> int.
COMMANDS: dict[str, str] = {
    "targets": "schedcc.commands.targets",
    "gen": "schedcc.commands.gen",
    "train": "schedcc.commands.train",
    "fx": "schedcc.commands.fx",
    "compare": "schedcc.commands.compare",
    "pipeline": "schedcc.commands.pipeline",
    "plan": "schedcc.commands.plan",
    "calibrate": "schedcc.commands.calibrate",
    "replay": "schedcc.commands.replay",
    "check": "schedcc.commands.check",
    "report": "schedcc.commands.report",
    "run": "schedcc.commands.run",
    "deps": "schedcc.commands.deps",
    "gap": "schedcc.commands.gap",
    "qemu": "schedcc.commands.qemu",
}
DEFAULT_COMMAND = "schedcc.commands.schedule"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one of schedcc's errors: at its place on the
    command line (``<command line>:1:COL: error: --x: ...``, the line, a caret), exit 2."""

    argv: list[str] = []

    def error(self, message: str) -> None:  # type: ignore[override]
        from schedcc.commands.values import usage_error
        raise usage_error(self.argv, self.prog, message)

    def _get_values(self, action, arg_strings):
        # argparse drops a value '--' (``--iterations=--``) and hands the option [] unconverted
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            self.error(f"argument {'/'.join(action.option_strings)}: expected one argument")
        return super()._get_values(action, arg_strings)


def _load(module: str):
    return importlib.import_module(module)


def build_parser(command: str | None) -> argparse.ArgumentParser:
    module = _load(COMMANDS[command] if command else DEFAULT_COMMAND)
    prog = "schedcc" + (f" {command}" if command else "")
    epilog = None
    if command is None:
        lines = ["other commands:"]
        for name, mod in COMMANDS.items():
            lines.append(f"  schedcc {name:<10} {_load(mod).HELP}")
        lines.append("")
        lines.append("'schedcc COMMAND --help' describes a command. Docs: docs/tutorial.md, docs/cli.md")
        epilog = "\n".join(lines)
    parser = _Parser(prog=prog, description=module.DESCRIPTION, epilog=epilog,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"schedcc {__version__}")
    module.add_arguments(parser)
    parser.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    # Standard output and error as guarded streams: a write that fails there (`> /dev/full`)
    # is an error of the run (exit 2, one line), not a bug (schedcc/fileio/streams.py).
    with guarded():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = args_list[0] if args_list and args_list[0] in COMMANDS else None
    parser = build_parser(command)
    parser.argv = args_list
    try:
        args = parser.parse_args(args_list[1:] if command else args_list)
    except StreamError as err:
        return _stream_failed(err, None)
    except SchedccError as err:
        _quietly(sys.stderr.write, err.render() + "\n")
        return EXIT_INPUT
    args._argv = args_list  # for errors located on the command line (commands/values.py)
    args._defaults = {a.dest: a.default for a in parser._actions}  # what was given (values.given)
    run: Callable[[argparse.Namespace], int] = args._run
    txn = None
    try:
        # Every file the command writes is staged and written only if it succeeds,
        # all together (docs/cli.md, "Files"); "wrote ..." lines come after that.
        # A run is short and allocates millions of small acyclic objects: the
        # cyclic collector's full scans cost a 100,000-instruction run seconds
        # and free nothing that reference counting does not (docs/performance.md).
        with transaction() as txn, paused_gc():
            code = run(args)
        sys.stdout.flush()  # a failure here is an error of the run, not of the interpreter's exit
        return code
    except StreamError as err:
        return _stream_failed(err, txn)
    except SchedccError as err:
        if err.internal:  # schedcc's own schedule fails verification: its bug, never the input's
            return _unverified(err)
        from schedcc.commands.values import locate_message
        _quietly(sys.stderr.write, locate_message(args_list, err).render() + "\n")
        return EXIT_INPUT
    except (KeyboardInterrupt, Interrupted) as sig:
        signum = getattr(sig, "signum", signal.SIGINT)
        what = "interrupted" if signum == signal.SIGINT else str(sig)
        if txn is not None and txn.committed:
            what += " after writing its outputs"
        elif txn is not None and txn.staged:
            what += ", no output written"
        _quietly(sys.stderr.write, f"schedcc: {what}\n")
        return 128 + signum
    except BrokenPipeError:
        # Standard output was closed (`schedcc ... | head`): the run could not deliver
        # it, so nothing is written, as for a command SIGPIPE ends (status 141).
        _silence_stdout()
        if txn is not None and txn.staged and not txn.committed:
            _quietly(sys.stderr.write, "schedcc: standard output was closed (broken pipe), nothing written\n")
        return 128 + signal.SIGPIPE
    except Exception as err:  # a bug in schedcc: say so plainly, no traceback by default
        if os.environ.get("SCHEDCC_DEBUG"):
            traceback.print_exc()
        _quietly(sys.stderr.write, f"schedcc: internal error: {type(err).__name__}: {err}\n"
                 "  this is a bug in schedcc, not in your input; rerun with SCHEDCC_DEBUG=1 "
                 "for details and report it\n")
        return EXIT_INTERNAL


def _unverified(err: SchedccError) -> int:
    """A schedule schedcc made broke a constraint its independent verifier checks: say that it
    is a bug in schedcc (not in the input), which constraint, and how to report it; exit 3."""
    if os.environ.get("SCHEDCC_DEBUG"):
        traceback.print_exc()
    violations = getattr(err, "violations", None) or [err.message]
    lines = ["schedcc: internal error: the schedule schedcc made fails verification: " + violations[0]]
    lines += [f"  also: {v}" for v in violations[1:5]]
    if len(violations) > 5:
        lines.append(f"  ... and {len(violations) - 5} more")
    lines.append("  this is a bug in schedcc, not in your input; please report it with the input and the "
                 "command (SCHEDCC_DEBUG=1 shows the traceback; --no-verify skips the check)")
    _quietly(sys.stderr.write, "\n".join(lines) + "\n")
    return EXIT_UNVERIFIED


def _stream_failed(err: StreamError, txn) -> int:
    """Standard output or error could not be written: one line (if standard error still
    takes it), exit 2; what stays buffered is dropped, so the interpreter's exit does not fail again."""
    if txn is not None and txn.committed:
        err.message += " (every output file was written)"
    elif txn is not None and any(s.dest.kind == "file" for s in txn.staged):
        err.message += " (no output file was written)"
    _silence_stdout()
    _quietly(sys.stderr.write, err.render() + "\n")
    return EXIT_INPUT


def _quietly(write, text: str) -> None:
    try:
        write(text)
    except (OSError, StreamError):
        pass


def _silence_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's final flush of
    what could not be written does not fail again at exit."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())

"""One module per CLI command: DESCRIPTION, HELP, add_arguments(parser), run(args) -> int."""

from __future__ import annotations


def outputs(args, *options: tuple[str, ...]) -> dict[str, str | None]:
    """The output options of a command for :func:`schedcc.fileio.check_outputs`: each
    option's file, keyed by the name it was given with on the command line (``-o`` or
    ``--output``), so that an error about it points at it. An option is its names; the
    attribute is the last name's (``("-o", "--output")`` -> ``args.output``)."""
    argv = getattr(args, "_argv", None) or []
    out: dict[str, str | None] = {}
    for names in options:
        typed = [n for n in names if any(w == n or w.startswith(n + "=") for w in argv)]
        value = getattr(args, names[-1].lstrip("-").replace("-", "_"), None)
        out[typed[-1] if typed else names[-1]] = value
    return out

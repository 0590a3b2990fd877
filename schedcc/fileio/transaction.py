"""One output transaction per run: every output staged, all committed at the end.

The command line runs each command inside :func:`transaction`. Inside it
:func:`write_output` only stages (after checking the path), the inputs the
run reads are remembered (:func:`note_input`: no output may replace them),
and messages about written files wait (:func:`announce`); when the command
returns, :func:`schedcc.fileio.commit.commit` writes everything, then the
messages are printed. When the command raises, nothing is written. A
transaction opened inside another joins it: there is one per run.

Example::

    >>> import os, sys, tempfile
    >>> d = tempfile.mkdtemp(); a = os.path.join(d, "a.txt")
    >>> with transaction():
    ...     write_output(a, "a")
    ...     announce(f"wrote a.txt", sys.stdout)
    ...     print(os.path.exists(a))      # staged, not yet written
    False
    wrote a.txt
    >>> open(a).read()
    'a'
    >>> with transaction():
    ...     note_input(a)                   # read_input() does this
    ...     write_output(a, "b")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: refusing to overwrite the input file '...a.txt' with output
      note: choose another name for the output
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, TextIO

from schedcc.fileio.commit import Staged, commit, prepare
from schedcc.fileio.paths import Dest, check_distinct, input_ids, where
from schedcc.fileio.signals import handled


@dataclass
class Transaction:
    """The outputs staged so far (in order), the identities of the inputs read, the
    messages waiting for the commit."""

    staged: list[Staged] = field(default_factory=list)
    inputs: dict[tuple[int, int], str] = field(default_factory=dict)
    notes: list[tuple[str, TextIO | None]] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)  # output path -> the option that named it
    committed: bool = False  # every output written (a signal may still end the run after)

    def done(self) -> None:
        self.committed = True


_open: list[Transaction] = []


@contextmanager
def transaction() -> Iterator[Transaction]:
    """Stage every :func:`write_output` inside; write them all when the block ends
    normally, none when it raises. Terminating signals end the block like an
    exception (:mod:`schedcc.fileio.signals`)."""
    if _open:
        yield _open[-1]
        return
    txn = Transaction()
    prepare()
    _open.append(txn)
    with handled():
        try:
            yield txn
        finally:
            _open.pop()
        commit(txn.staged, txn.done)
    for text, stream in txn.notes:
        _say(text, stream)


def _say(text: str, stream: TextIO | None) -> None:
    try:
        (stream or sys.stderr).write(text + "\n")
    except OSError:
        pass


def note_input(path: str) -> None:
    """Remember *path* (``-``: standard input) as an input of the current run."""
    if _open:
        _open[-1].inputs.update(input_ids([path]))


def announce(text: str, stream: TextIO | None = None) -> None:
    """Print *text* (a line about a written file) on *stream* (default: standard error)
    once the run's outputs are committed; outside a transaction, now."""
    if _open:
        _open[-1].notes.append((text, stream))
    else:
        _say(text, stream)


def _inputs(inputs: tuple[str, ...]) -> dict[tuple[int, int], str]:
    out = dict(_open[-1].inputs) if _open else {}
    out.update(input_ids(inputs))
    return out


def check_output(path: str | Path, inputs: tuple[str, ...] = (), option: str | None = None) -> Dest:
    """Refuse *path* as an output now, before any work (see :func:`schedcc.fileio.paths.where`)."""
    return where(str(path), option, _inputs(inputs))


def check_outputs(outputs: dict[str, str | None], inputs: tuple[str, ...] = ()) -> None:
    """Check every output of a command (option -> path, None when not given) before any
    work: each path writable, none an input, no two options writing the same file."""
    known = _inputs(inputs)
    if _open:  # an input found later (a --target file) is refused at staging, naming the option
        _open[-1].options.update((str(path), opt) for opt, path in outputs.items() if path is not None)
    check_distinct({opt: where(str(path), opt, known) for opt, path in outputs.items() if path is not None})


def is_standard_output(path: str | Path | None) -> bool:
    """Whether the output *path* goes to standard output (``-``, ``/dev/stdout``, ...)."""
    if path is None or str(path) == "":
        return False
    try:
        d = where(str(path))
    except Exception:
        return False
    return d.kind == "fd" and d.fd == 1


def write_output(path: str | Path, data: str | bytes, inputs: tuple[str, ...] = ()) -> None:
    """Write *data* to *path* (``-``: standard output); refuse to overwrite any of *inputs*
    or of the files the run read. Inside a :func:`transaction` the write waits for its commit."""
    dest = check_output(path, inputs, _open[-1].options.get(str(path)) if _open else None)
    if _open:
        _open[-1].staged.append(Staged(dest, data))
    else:
        with handled():
            commit([Staged(dest, data)])

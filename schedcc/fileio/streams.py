"""Standard output and standard error that fail as an error of the run, not as a bug.

A write to standard output can fail like any other write: ``> /dev/full``
(``ENOSPC``), a disk that fills up under a redirected report, an ``EIO``.
Inside :func:`guarded` such a failure raises :class:`StreamError` (a
:class:`~schedcc.errors.SchedccError`: one line, exit status 2) instead of
an ``OSError`` from whichever ``print`` met it. ``BrokenPipeError`` passes
through unchanged: a closed pipe (``schedcc ... | head``) ends the run as
SIGPIPE would, as Unix tools do (the command line handles it).

Example::

    >>> import io
    >>> class Full(io.StringIO):
    ...     def write(self, s):
    ...         raise OSError(28, "No space left on device")
    >>> try:
    ...     _Guarded(Full(), "standard output").write("x")
    ... except StreamError as err:
    ...     print(err.message)
    cannot write standard output: No space left on device
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

from schedcc.errors import SchedccError


class StreamError(SchedccError):
    """Standard output or standard error could not be written (not a closed pipe)."""


class _Guarded:
    """*stream* with ``write``, ``writelines`` and ``flush`` turning an ``OSError``
    (other than a broken pipe) into :class:`StreamError`; everything else delegated."""

    def __init__(self, stream, shown: str) -> None:
        self._stream = stream
        self._shown = shown

    def _fail(self, err: OSError) -> StreamError:
        return StreamError(f"cannot write {self._shown}: {err.strerror or err}")

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as err:
            raise self._fail(err) from None

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as err:
            raise self._fail(err) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def guarded() -> Iterator[None]:
    """Guard ``sys.stdout`` and ``sys.stderr`` for the block; put the originals back after."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None and not isinstance(sys.stdout, _Guarded):
        sys.stdout = _Guarded(sys.stdout, "standard output")
    if sys.stderr is not None and not isinstance(sys.stderr, _Guarded):
        sys.stderr = _Guarded(sys.stderr, "standard error")
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved

"""Reading inputs and writing outputs without ever losing what the user had.

* A regular file is written to a temporary file beside it and renamed into
  place only once complete, and never over an input file.
* Anything else (a FIFO, ``/dev/null``, a terminal) is written to directly:
  renaming a file over it would replace the device or pipe itself.
* ``-`` is standard output.
* Inside :func:`transaction` (the CLI runs every command in one) nothing is
  written until the whole run has succeeded: :func:`write_output` only
  stages, and the commit first checks every path, then writes all of them.
  A run that fails leaves none of its outputs.

Example::

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); out = os.path.join(d, "out.ir")
    >>> write_output(out, "t0 = t1 + t2\\n"); read_input(out)[0]
    't0 = t1 + t2\\n'
    >>> with transaction():
    ...     write_output(os.path.join(d, "a.txt"), "a")
    ...     os.path.exists(os.path.join(d, "a.txt"))    # staged, not yet written
    False
    >>> os.path.exists(os.path.join(d, "a.txt"))
    True
    >>> write_output(out, "x", inputs=(out,))
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: refusing to overwrite the input file '...' with output
      note: choose another name for the output
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from schedcc.errors import SchedccError

STDOUT = "-"


def read_input(path: str) -> tuple[str, str]:
    """(text, display name) of *path*; ``-`` reads standard input.

    The text must be UTF-8 (a UTF-8 byte-order mark is dropped); a UTF-16 file
    or a binary file is refused with the offending byte's position."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except FileNotFoundError:
        raise SchedccError(f"cannot read '{path}': no such file") from None
    except IsADirectoryError:
        raise SchedccError(f"cannot read '{path}': it is a directory") from None
    except OSError as err:
        raise SchedccError(f"cannot read '{path}': {err.strerror}") from None
    name = "<stdin>" if path == "-" else path
    return decode_text(data, name), name


def decode_text(data: bytes, name: str) -> str:
    """*data* as text: UTF-8, a leading byte-order mark dropped; NUL bytes,
    UTF-16 and invalid UTF-8 are refused with ``file:line:col``. O(len(data)).

    >>> decode_text(b"\\xef\\xbb\\xbfa = b + c", "x.ir")
    'a = b + c'
    >>> decode_text(b"a\\nb\\x00", "x.ir")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: x.ir:2:2: error: a NUL byte (0x00): x.ir is not a text file
    """
    from schedcc.ir import Loc
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SchedccError(f"{name} is UTF-16 text (it starts with the byte-order mark "
                           f"0x{data[0]:02X} 0x{data[1]:02X}); schedcc reads UTF-8",
                           Loc(name, 1, 1), notes=[f"convert it: iconv -f UTF-16 -t UTF-8 {name}"])
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]

    def where(offset: int) -> Loc:
        line = data.count(b"\n", 0, offset) + 1
        return Loc(name, line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1)

    nul = data.find(b"\x00")
    if nul >= 0:
        raise SchedccError(f"a NUL byte (0x00): {name} is not a text file", where(nul))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SchedccError(f"the byte 0x{data[err.start]:02X} is not UTF-8: {name} is not a UTF-8 text file",
                           where(err.start)) from None
    # Universal newlines, as reading in text mode gives.
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


# --- writing -------------------------------------------------------------------------------------------------


@dataclass
class _Staged:
    dest: str
    data: str | bytes


_open: list[list[_Staged]] = []  # the transactions in progress, innermost last


def check_output(path: str | Path, inputs: tuple[str, ...] = ()) -> None:
    """Refuse *path* as an output now, before any work: an input file, a
    directory, a missing directory. O(len(inputs)) system calls."""
    if str(path) == STDOUT:
        return
    dest = Path(path)
    for inp in inputs:
        if inp != STDOUT and os.path.exists(inp) and os.path.exists(dest) and os.path.samefile(inp, dest):
            raise SchedccError(f"refusing to overwrite the input file '{inp}' with output",
                               notes=["choose another name for the output"])
    if dest.is_dir():
        raise SchedccError(f"cannot write '{dest}': it is a directory")
    parent = dest.parent if str(dest.parent) else Path(".")
    if not parent.is_dir():
        raise SchedccError(f"cannot write '{dest}': directory '{parent}' does not exist")


def check_outputs(outputs: dict[str, str | None], inputs: tuple[str, ...] = ()) -> None:
    """Check every output of a command (option -> path, None when not given)
    before any work: each path writable, no two options writing the same file."""
    check_distinct_outputs(outputs)
    for path in outputs.values():
        if path:
            check_output(path, inputs)


def write_output(path: str | Path, data: str | bytes, inputs: tuple[str, ...] = ()) -> None:
    """Write *data* to *path* (``-``: standard output); refuse to overwrite any of
    *inputs*. Inside a :func:`transaction` the write waits for its commit."""
    check_output(path, inputs)
    if _open:
        _open[-1].append(_Staged(str(path), data))
    else:
        _commit([_Staged(str(path), data)])


@contextmanager
def transaction() -> Iterator[None]:
    """Stage every :func:`write_output` inside; write them all when the block
    ends normally, none when it raises."""
    staged: list[_Staged] = []
    _open.append(staged)
    try:
        yield
    finally:
        _open.pop()
    _commit(staged)


def _is_special(dest: str) -> bool:
    """An existing non-regular file (FIFO, device, socket): written in place, never replaced."""
    try:
        return not stat.S_ISREG(os.stat(dest).st_mode)
    except OSError:
        return False


def _commit(staged: list[_Staged]) -> None:
    """Write *staged*: every regular file to a temporary file first, then all
    renamed into place; special files and standard output last, directly."""
    if not staged:
        return
    last: dict[str, _Staged] = {}
    for s in staged:  # the same path twice: the later write wins, as it would unstaged
        last.pop(s.dest, None)
        last[s.dest] = s
    regular = [s for s in last.values() if s.dest != STDOUT and not _is_special(s.dest)]
    direct = [s for s in last.values() if s not in regular]
    temps: list[tuple[str, str]] = []
    try:
        for s in regular:
            temps.append((_write_temp(s), os.path.realpath(s.dest)))
        for tmp, dest in temps:
            os.replace(tmp, dest)
        temps = []
    finally:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    for s in direct:
        if s.dest == STDOUT:
            sys.stdout.flush()
            if isinstance(s.data, bytes):
                sys.stdout.buffer.write(s.data)
                sys.stdout.buffer.flush()
            else:
                sys.stdout.write(s.data)
            continue
        try:
            with open(s.dest, "wb" if isinstance(s.data, bytes) else "w") as fh:
                fh.write(s.data)
        except OSError as err:
            raise SchedccError(f"cannot write '{s.dest}': {err.strerror}") from None


def _write_temp(s: _Staged) -> str:
    """Write *s* to a new temporary file beside its destination (a symbolic
    link's target: the link stays); returns its path."""
    dest = Path(os.path.realpath(s.dest))
    mode = "wb" if isinstance(s.data, bytes) else "w"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", dir=dest.parent)
    except OSError as err:
        raise SchedccError(f"cannot write '{s.dest}': {err.strerror}") from None
    try:
        with os.fdopen(fd, mode) as fh:
            fh.write(s.data)
        # mkstemp creates 0600; give the file the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, dest.stat().st_mode & 0o777 if dest.exists() else 0o666 & ~umask)
    except OSError as err:
        os.unlink(tmp)
        raise SchedccError(f"cannot write '{s.dest}': {err.strerror}") from None
    return tmp


def check_distinct_outputs(outputs: dict[str, str | None]) -> None:
    """Refuse two options that would write the same file (option -> path):
    the second would silently replace the first."""
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        key = Path(path).resolve() if path != STDOUT else Path(STDOUT)
        if key in seen:
            raise SchedccError(f"{seen[key]} and {option} both write '{path}'",
                               notes=["give each output its own file name"])
        seen[key] = option

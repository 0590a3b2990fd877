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
import signal
import stat
import sys
import tempfile
import threading
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


def check_nesting(text: str, name: str, limit: int, opens: str = "[{(", closes: str = "]})",
                  comment: str = "#") -> None:
    """Refuse *text* when brackets nest deeper than *limit* (a reader would recurse
    that deep or build that much): a located error at the first bracket past it.
    Quoted strings and comments are skipped. O(len(text)).

    >>> check_nesting("a = [[[1]]]", "x.toml", limit=2)
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: x.toml:1:7: error: brackets nest deeper than 2 levels; schedcc reads at most 2
    """
    from schedcc.ir import Loc
    depth, line, col, quote = 0, 1, 0, ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        col += 1
        if ch == "\n":
            line, col = line + 1, 0
            if quote != '"""':
                quote = ""
        elif quote:
            if ch == "\\":
                i, col = i + 1, col + 1
            elif text.startswith(quote, i):
                i, col, quote = i + len(quote) - 1, col + len(quote) - 1, ""
        elif ch in "\"'":
            quote = '"""' if text.startswith('"""', i) else ch
            i, col = i + len(quote) - 1, col + len(quote) - 1
        elif text.startswith(comment, i):
            end = text.find("\n", i)
            i, col = (n if end < 0 else end) - 1, col + (n if end < 0 else end) - i - 1
        elif ch in opens:
            depth += 1
            if depth > limit:
                raise SchedccError(f"brackets nest deeper than {limit} levels; schedcc reads at most {limit}",
                                   Loc(name, line, col))
        elif ch in closes:
            depth -= 1
        i += 1


# --- writing -------------------------------------------------------------------------------------------------


@dataclass
class _Staged:
    dest: str
    data: str | bytes


_open: list[list[_Staged]] = []  # the outermost transaction's staged writes (nested ones join it)
_notes: list[str] = []           # messages printed once the outermost transaction has committed
# Signals that end a run: caught during a commit so that its temporary files are removed,
# and held back while the finished files are renamed into place, so that a run's outputs
# are either all old or all new.
_SIGNALS = tuple(s for s in (getattr(signal, n, None) for n in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None)


class Interrupted(Exception):
    """A run stopped by a signal while writing (the CLI exits with 128 + the signal)."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum


def _same_file(path: str, fd: int) -> bool:
    """Whether *path* names the file open as *fd* (``/dev/stdout``, ``/proc/self/fd/1``, or
    the very file standard output is redirected to)."""
    try:
        a, b = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _stdin_is_a_file() -> bool:
    try:
        return stat.S_ISREG(os.fstat(0).st_mode)
    except OSError:
        return False


def _stream_of(dest: str):
    """sys.stdout or sys.stderr when *dest* is that stream (never re-opened: re-opening a
    redirected stdout truncates what was already printed), else None."""
    if dest == STDOUT:
        return sys.stdout
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        try:
            if stream.fileno() == fd and _same_file(dest, fd):
                return stream
        except (OSError, ValueError, AttributeError):  # a test's captured stream has no descriptor
            continue
    return None


def check_output(path: str | Path, inputs: tuple[str, ...] = (), option: str = "the output") -> None:
    """Refuse *path* as an output now, before any work: an empty name, an input file (or
    standard input itself), a directory, a missing directory. O(len(inputs)) system calls."""
    if str(path) == STDOUT:
        return
    if not str(path).strip():
        raise SchedccError(f"{option}: an empty file name", notes=["give a file name, or '-' for standard output"])
    dest = Path(path)
    for inp in inputs:
        if inp != STDOUT and os.path.exists(inp) and os.path.exists(dest) and os.path.samefile(inp, dest):
            raise SchedccError(f"refusing to overwrite the input file '{inp}' with output",
                               notes=["choose another name for the output"])
    if str(dest) in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0") or (_stdin_is_a_file() and _same_file(str(dest), 0)):
        raise SchedccError(f"{option} '{path}' is standard input: refusing to write over what schedcc reads",
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
    for option, path in outputs.items():
        if path is not None:
            check_output(path, inputs, option)


def write_output(path: str | Path, data: str | bytes, inputs: tuple[str, ...] = ()) -> None:
    """Write *data* to *path* (``-``: standard output); refuse to overwrite any of
    *inputs*. Inside a :func:`transaction` the write waits for its commit."""
    check_output(path, inputs)
    if _open:
        _open[-1].append(_Staged(str(path), data))
    else:
        _commit([_Staged(str(path), data)])


def after_commit(message: str) -> None:
    """Print *message* on standard error once every output is written (``wrote out.svg``),
    at once outside a transaction: a run that fails never says it wrote something."""
    if _open:
        _notes.append(message)
    else:
        sys.stderr.write(message.rstrip("\n") + "\n")


@contextmanager
def transaction() -> Iterator[None]:
    """Stage every :func:`write_output` inside; write them all when the block ends
    normally, none when it raises. A transaction inside another joins it: the run's
    outputs are committed together, at the end of the outermost."""
    if _open:
        yield
        return
    staged: list[_Staged] = []
    _open.append(staged)
    try:
        yield
    except BaseException:
        _notes.clear()
        raise
    finally:
        _open.pop()
    notes = list(_notes)
    _notes.clear()
    _commit(staged)
    for note in notes:
        sys.stderr.write(note.rstrip("\n") + "\n")


def _is_special(dest: str) -> bool:
    """An existing non-regular file (FIFO, device, socket): written in place, never replaced."""
    try:
        return not stat.S_ISREG(os.stat(dest).st_mode)
    except OSError:
        return False


def _commit(staged: list[_Staged]) -> None:
    """Write *staged* all together (the later of two writes to one path wins):

    1. every regular file to a temporary file beside it;
    2. standard output and special files (FIFOs, devices) in place: they cannot be
       taken back, so they go only once every temporary file is complete, and a
       failure here (a reader gone) still replaces nothing;
    3. the temporary files renamed over their destinations, with SIGINT, SIGTERM and
       SIGHUP held back until all are renamed.

    A signal before step 3 removes the temporary files and replaces nothing. Only
    SIGKILL can leave a temporary file (``.NAME.XXXXXX``) behind; none replaces an
    output half-way."""
    if not staged:
        return
    last: dict[str, _Staged] = {}
    for s in staged:
        last.pop(s.dest, None)
        last[s.dest] = s
    streams = {s.dest: _stream_of(s.dest) for s in last.values()}
    regular = [s for s in last.values() if streams[s.dest] is None and not _is_special(s.dest)]
    direct = [s for s in last.values() if s not in regular]
    temps: list[tuple[str, str]] = []
    old = _catch_signals()
    held = _hold_signals()  # a signal now waits: mkstemp must not lose the name of a file it made
    try:
        for s in regular:
            temps.append((_write_temp(s), os.path.realpath(s.dest)))
        _release_signals(held)  # a signal that came meanwhile arrives here, while temps are known
        held = None
        for s in direct:  # may block on a FIFO: interruptible
            _write_direct(s, streams[s.dest])
        held = _hold_signals()
        _rename_all(temps)
        temps = []
    finally:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        # The run's own handlers first: a signal held back during the renames then ends
        # the run as it would have (every output is new by then), not as "nothing written".
        _restore_signals(old)
        _release_signals(held)


def _rename_all(temps: list[tuple[str, str]]) -> None:
    """Rename every temporary file over its destination, all or none: each old file is
    kept under a second name (a hard link) until every rename is done, and put back
    if one fails."""
    backups: list[tuple[str, str]] = []
    done: list[tuple[str, str | None]] = []
    try:
        for tmp, dest in temps:
            backup = None
            if len(temps) > 1 and os.path.exists(dest):
                backup = f"{tmp}.old"
                os.link(dest, backup)
                backups.append((backup, dest))
            os.replace(tmp, dest)
            done.append((dest, backup))
    except OSError as err:
        for dest, backup in reversed(done):
            try:
                if backup is not None:
                    os.replace(backup, dest)
                else:
                    os.unlink(dest)
            except OSError:
                pass
        raise SchedccError(f"cannot write '{temps[len(done)][1]}': {err.strerror}; the outputs were left as "
                           "they were") from None
    finally:
        for backup, _ in backups:
            try:
                os.unlink(backup)
            except OSError:
                pass


def _write_direct(s: _Staged, stream) -> None:
    if stream is not None:
        stream.flush()
        if isinstance(s.data, bytes):
            stream.buffer.write(s.data)
            stream.buffer.flush()
        else:
            stream.write(s.data)
            stream.flush()
        return
    try:
        with open(s.dest, "wb" if isinstance(s.data, bytes) else "w") as fh:
            fh.write(s.data)
    except OSError as err:
        raise SchedccError(f"cannot write '{s.dest}': {err.strerror}") from None


def _raise_interrupted(signum, _frame):
    raise Interrupted(signum)


def _catch_signals():
    """Turn SIGTERM and SIGHUP into :class:`Interrupted` (SIGINT is KeyboardInterrupt already)
    while committing, so that the temporary files are removed; the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        return None
    old = {}
    for s in _SIGNALS:
        if s != signal.SIGINT:
            old[s] = signal.signal(s, _raise_interrupted)
    return old


def _restore_signals(old) -> None:
    for s, handler in (old or {}).items():
        signal.signal(s, handler)


def _hold_signals():
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, set(_SIGNALS))


def _release_signals(held) -> None:
    if held is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a signal held back is delivered now


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
    except BaseException as err:
        os.unlink(tmp)
        if isinstance(err, OSError):
            raise SchedccError(f"cannot write '{s.dest}': {err.strerror}") from None
        raise
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

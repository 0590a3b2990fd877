"""Committing a run's outputs together: the order is what makes it safe.

1. **Stage** every regular file: a temporary file without a name
   (Linux ``O_TMPFILE``) in the destination's directory, written, given
   the old file's permission bits and flushed to disk (``fsync``). A
   failure here (a full disk) removes them all; nothing has changed.
2. **Write** the outputs that cannot be undone: open descriptors
   (standard output, ``/dev/fd/N``) and devices and FIFOs, in the order the
   run produced them, after flushing what the run printed. A failure here
   (a FIFO's reader went away, ``/dev/full``) discards the staged files:
   every regular output keeps its old content.
3. **Install** the staged files with the terminating signals blocked
   (:func:`schedcc.fileio.signals.deferred`): each is linked to a fresh
   name beside its destination (``.NAME.XXXXXXXX``) and then swapped with
   the destination (``renameat2(RENAME_EXCHANGE)``, so the old file stays
   at the temporary name until every output is in place) or, for the last
   one and for new files, renamed over it. When a step fails, the outputs
   already installed are swapped back: all outputs stay old. When
   everything is in place, the old versions are removed.

Where the file system has no ``O_TMPFILE`` (or ``/proc`` is not mounted),
step 1 creates the temporary file under its final temporary name instead;
where it cannot exchange names, step 3 renames (an output installed before
a failing one then stays new, and the error says which).

Example::

    >>> import os, tempfile
    >>> from schedcc.fileio.paths import where
    >>> d = tempfile.mkdtemp(); a, b = os.path.join(d, "a.txt"), os.path.join(d, "b.txt")
    >>> _ = open(a, "w").write("old a")
    >>> commit([Staged(where(a), "new a"), Staged(where(b), b"new b")])
    >>> open(a).read(), open(b).read(), sorted(os.listdir(d))
    ('new a', 'new b', ['a.txt', 'b.txt'])
"""

from __future__ import annotations

import errno
import os
import secrets
import sys
from dataclasses import dataclass
from typing import Callable

from schedcc.errors import SchedccError
from schedcc.fileio.paths import Dest
from schedcc.fileio.signals import deferred


@dataclass
class Staged:
    """One output waiting for the commit: where it goes, and what."""

    dest: Dest
    data: str | bytes


@dataclass
class _Temp:
    """A staged regular file: its directory (a descriptor) and name there, the
    file's descriptor, its temporary name once it has one, and what step 3 did."""

    dest: Dest
    dirfd: int = -1
    base: str = ""
    fd: int = -1
    name: str = ""
    mode: int | None = None  # the old file's permission bits
    was_new: bool = False
    holds_old: bool = False  # the old file now sits under name
    installed: bool = False


def _error(dest: Dest, err: OSError) -> SchedccError:
    reason = "the reader went away (broken pipe)" if err.errno == errno.EPIPE else err.strerror
    shown = dest.shown if dest.path == "-" else f"'{dest.path}'"
    return SchedccError(f"cannot write {shown}: {reason}")


def _bytes(data: str | bytes) -> bytes:
    return data if isinstance(data, bytes) else data.encode("utf-8")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _unlink(t: _Temp) -> bool:
    """Remove *t*'s temporary name; one retry (a transient failure). True when it is gone."""
    for _ in range(2):
        try:
            os.unlink(t.name, dir_fd=t.dirfd)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            continue
    return False


def _fresh_name(base: str) -> str:
    return f".{base}.{secrets.token_hex(4)}"


_TMPFILE = getattr(os, "O_TMPFILE", 0) and os.path.isdir("/proc/self/fd")


def _stage(t: _Temp) -> None:
    """Step 1 for one regular file, opened: an unnamed file in its directory (a named
    one where the file system cannot)."""
    folder, t.base = os.path.split(t.dest.real)
    t.dirfd = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        t.mode = os.stat(t.base, dir_fd=t.dirfd).st_mode & 0o7777
    except FileNotFoundError:
        t.was_new = True
    flags = os.O_WRONLY | os.O_CLOEXEC
    if _TMPFILE:
        try:
            t.fd = os.open(".", flags | os.O_TMPFILE, 0o666, dir_fd=t.dirfd)
            return
        except OSError as err:
            if err.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise
    for _ in range(100):
        name = _fresh_name(t.base)
        try:
            t.fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=t.dirfd)
            t.name = name
            return
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name")


def _fill(t: _Temp, data: bytes) -> None:
    _write_all(t.fd, data)
    if t.mode is not None:
        os.fchmod(t.fd, t.mode)
    os.fsync(t.fd)


def _discard(t: _Temp) -> None:
    """Close *t*; a temporary name not installed is removed."""
    if t.name and not t.installed:
        _unlink(t)
        t.name = ""
    for fd in (t.fd, t.dirfd):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    t.fd = t.dirfd = -1


_renameat2: list = []


def _load_exchange() -> None:
    """Find ``renameat2`` in the C library once. :func:`schedcc.fileio.transaction.transaction`
    calls this when it opens, so that loading ``ctypes`` (files opened, memory mapped) is not
    a step of the commit; where it cannot be loaded, step 3 renames."""
    if not _renameat2:
        try:
            import ctypes
            func = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
        except (ImportError, OSError):
            func = None
        if func is not None:
            func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
        _renameat2.append(func)


def prepare() -> None:
    """Load what the commit needs before the run starts (``renameat2``)."""
    _load_exchange()


def _exchange(t: _Temp) -> bool:
    """Swap *t*'s temporary name and its destination atomically (Linux
    ``renameat2(RENAME_EXCHANGE)``); False when this system or file system cannot."""
    _load_exchange()
    func = _renameat2[0]
    if func is None:
        return False
    import ctypes
    rename_exchange = 2
    if func(t.dirfd, os.fsencode(t.name), t.dirfd, os.fsencode(t.base), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), t.dest.real)


def _install_one(t: _Temp, last: bool) -> None:
    """Step 3 for one file: name it, then put it in place."""
    if not t.name:
        name = _fresh_name(t.base)
        # linkat(AT_FDCWD, "/proc/self/fd/N", dirfd, name, AT_SYMLINK_FOLLOW): names an O_TMPFILE file
        os.link(f"/proc/self/fd/{t.fd}", name, dst_dir_fd=t.dirfd)
        t.name = name
    if not last and not t.was_new and _exchange(t):
        t.holds_old = True
    else:
        os.rename(t.name, t.base, src_dir_fd=t.dirfd, dst_dir_fd=t.dirfd)
        t.name = ""
    t.installed = True


def _undo(temps: list[_Temp]) -> list[str]:
    """Put back the old versions of the outputs already installed; the ones that could not be."""
    stuck = []
    for t in reversed([t for t in temps if t.installed]):
        try:
            if t.holds_old:
                if not _exchange(t):
                    os.rename(t.name, t.base, src_dir_fd=t.dirfd, dst_dir_fd=t.dirfd)
                    t.name = ""
                t.holds_old = False
            elif t.was_new:
                os.unlink(t.base, dir_fd=t.dirfd)
            else:
                stuck.append(t.dest.path)
                continue
            t.installed = False
        except OSError:
            stuck.append(t.dest.path)
    return stuck


def _install(temps: list[_Temp]) -> list[str]:
    """Step 3: every staged file in place, or (on a failure) none where possible.
    Returns the old versions that could not be removed."""
    for i, t in enumerate(temps):
        try:
            _install_one(t, i == len(temps) - 1)
        except OSError as err:
            stuck = _undo(temps)
            notes = [f"already replaced, and could not be restored: {', '.join(stuck)}" if stuck
                     else "no output was changed"]
            raise SchedccError(_error(t.dest, err).message, notes=notes) from None
    leftovers = []
    for t in temps:
        if t.holds_old and not _unlink(t):
            leftovers.append(os.path.join(os.path.dirname(t.dest.real), t.name))
    return leftovers


def _write_direct(s: Staged) -> None:
    """Step 2 for one output: through its open descriptor, or into the device or FIFO.
    A closed standard output raises ``BrokenPipeError`` (the command line ends quietly)."""
    d = s.dest
    stream = {1: sys.stdout, 2: sys.stderr}.get(d.fd) if d.kind == "fd" else None
    try:
        if stream is not None:
            stream.flush()  # what the run printed comes first
            if isinstance(s.data, bytes):
                stream.buffer.write(s.data)
            else:
                stream.write(s.data)
            stream.flush()
        elif d.kind == "fd":
            _write_all(d.fd, _bytes(s.data))
        else:
            fd = os.open(d.real, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
            try:
                _write_all(fd, _bytes(s.data))
            finally:
                os.close(fd)
    except OSError as err:
        if stream is not None and isinstance(err, BrokenPipeError):
            raise
        raise _error(d, err) from None


def commit(staged: list[Staged], done: Callable[[], None] | None = None) -> None:
    """Write every output of *staged* (the same destination twice: the later wins), in
    the three steps above. Raises :class:`SchedccError` naming the output that failed;
    then no regular file was changed (unless the note says otherwise). *done* is called
    once everything is in place, before a signal held back meanwhile takes effect."""
    last: dict[object, Staged] = {}
    for s in staged:
        key = s.dest.key or id(s)
        last.pop(key, None)
        last[key] = s
    items = list(last.values())
    files = [s for s in items if s.dest.kind == "file"]
    temps: list[_Temp] = []
    if len(files) > 1:
        _load_exchange()
    _flush(sys.stdout)
    try:
        with deferred():
            for s in files:
                temps.append(_Temp(s.dest))
                try:
                    _stage(temps[-1])
                    _fill(temps[-1], _bytes(s.data))
                except OSError as err:
                    raise _error(s.dest, err) from None
        for s in items:
            if s.dest.kind != "file":
                _write_direct(s)
        with deferred():
            leftovers = _install(temps)
            for t in temps:
                _discard(t)
            if done is not None:
                done()
        for name in leftovers:
            sys.stderr.write(f"schedcc: warning: could not remove '{name}' (the previous version of an output)\n")
    finally:
        if any(t.fd >= 0 or t.dirfd >= 0 for t in temps):
            with deferred():
                for t in temps:
                    _discard(t)


def _flush(stream) -> None:
    """What the run printed, out before anything is written: a closed standard output
    (``BrokenPipeError``) stops the commit while nothing has changed."""
    if stream is None:
        return
    try:
        stream.flush()
    except BrokenPipeError:
        raise
    except OSError as err:
        raise SchedccError(f"cannot write standard output: {err.strerror}") from None

"""What an output path names, decided before anything is written.

Every output falls in one of three kinds, each written its own way
(:mod:`schedcc.fileio.commit`):

* ``file``: a regular file, or a name that does not exist yet: replaced
  atomically (a temporary file beside it, renamed into place);
* ``fd``: an already-open descriptor of this process: ``-``, ``/dev/stdout``,
  ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N`` and any path that is
  the same file as standard output or standard error. Written through the
  descriptor, never opened again (re-opening ``/dev/stdout`` when it is a
  file would truncate what the run printed before);
* ``device``: an existing FIFO, character or block device or socket:
  opened and written in place (renaming a file over it would replace the
  device or pipe itself).

Refused: an empty name, standard input (``/dev/stdin``, ``/dev/fd/0``, the
file or FIFO standard input reads), an input of the run, a directory, a
missing or unwritable directory.

Example::

    >>> where("-").kind, where("-").fd
    ('fd', 1)
    >>> where("/dev/stderr").fd
    2
    >>> where("/dev/null").kind in ("device", "fd")
    True
    >>> where("/dev/stdin")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: refusing to write '/dev/stdin': it is standard input
    >>> where("", "-o")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: -o: the output file name is empty
      note: give a file name, or '-' for standard output
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import Iterable

from schedcc.errors import SchedccError

STDOUT = "-"
_FD_PATH = re.compile(r"/(?:dev/fd|proc/(?:self|thread-self|(?P<pid>\d+))/fd)/(?P<fd>\d+)")
_STD_PATH = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_STREAM = {0: "standard input", 1: "standard output", 2: "standard error"}


@dataclass(frozen=True)
class Dest:
    """Where one output goes: *path* as the user wrote it, its *kind*
    (``file``, ``fd``, ``device``), the descriptor of an ``fd``, the resolved
    path of a ``file`` or ``device`` (a symbolic link's target), and *key*,
    the same for two names of one destination."""

    path: str
    kind: str
    fd: int = -1
    real: str = ""
    key: tuple = ()

    @property
    def shown(self) -> str:
        return _STREAM.get(self.fd, f"descriptor {self.fd}") if self.path == STDOUT else self.path


def file_id(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def input_ids(inputs: Iterable[str]) -> dict[tuple[int, int], str]:
    """The identities (device, inode) of the existing *inputs* (``-``: standard input)
    that an output could destroy: files and FIFOs, not terminals or /dev/null."""
    out = {}
    for inp in inputs:
        try:
            st = os.fstat(0) if inp == STDOUT else os.stat(inp)
        except (OSError, ValueError):
            continue
        if _precious(st):
            out[file_id(st)] = "<stdin>" if inp == STDOUT else inp
    return out


def _fd_stat(fd: int) -> os.stat_result | None:
    try:
        return os.fstat(fd)
    except OSError:
        return None


def _descriptor_number(path: str) -> int | None:
    """``/dev/stdout`` -> 1, ``/proc/self/fd/5`` -> 5 (this process's descriptors only)."""
    norm = os.path.normpath(os.path.abspath(path))
    norm = "/" + norm.lstrip("/")
    if norm in _STD_PATH:
        return _STD_PATH[norm]
    m = _FD_PATH.fullmatch(norm)
    if m and (m["pid"] is None or int(m["pid"]) == os.getpid()):
        return int(m["fd"])
    return None


def _fail(message: str, option: str | None, notes: list[str] | None = None) -> SchedccError:
    return SchedccError(message + (f" ({option})" if option else ""), notes=notes or [])


def where(path: str, option: str | None = None, inputs: dict[tuple[int, int], str] | None = None) -> Dest:
    """Classify the output *path* (given by *option*, named in errors) and refuse it
    when it is empty, standard input, one of *inputs* (identity -> name), a
    directory, or in a missing or unwritable directory. A few system calls."""
    inputs = inputs or {}
    if path == "":
        raise SchedccError(f"{option or 'output'}: the output file name is empty",
                           notes=["give a file name, or '-' for standard output"])
    if path == STDOUT:
        out = _fd_stat(1)
        return Dest(path, "fd", 1, key=_key(out) if out else ("fd", 1))
    stdin = _fd_stat(0)
    fd = _descriptor_number(path)
    if fd is not None:
        if fd == 0:
            raise _fail(f"refusing to write '{path}': it is standard input", option)
        st = _fd_stat(fd)
        if st is None:
            raise _fail(f"cannot write '{path}': {_STREAM.get(fd, f'descriptor {fd}')} is not open", option)
        if os.O_ACCMODE & _flags(fd) == os.O_RDONLY:
            raise _fail(f"cannot write '{path}': descriptor {fd} is open for reading only", option)
        _refuse_input(path, st, inputs, option)
        if stdin is not None and file_id(st) == file_id(stdin) and fd not in (1, 2) and _precious(stdin):
            raise _fail(f"refusing to write '{path}': it is the file standard input reads", option)
        return Dest(path, "fd", fd, key=_key(st))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as err:
        raise _fail(f"cannot write '{path}': {err.strerror}", option) from None
    if st is not None:
        _refuse_input(path, st, inputs, option)
        if stdin is not None and _precious(stdin) and file_id(st) == file_id(stdin):
            raise _fail(f"refusing to overwrite '{path}': it is the file standard input reads", option,
                        ["choose another name for the output"])
        for std in (1, 2):
            out = _fd_stat(std)
            if out is not None and file_id(out) == file_id(st):
                return Dest(path, "fd", std, key=_key(st))
        if stat.S_ISDIR(st.st_mode):
            raise _fail(f"cannot write '{path}': it is a directory", option)
        real = os.path.realpath(path)
        if not stat.S_ISREG(st.st_mode):
            return Dest(path, "device", real=real, key=_key(st))
        _check_directory(path, real, option, st)
        return Dest(path, "file", real=real, key=_key(st))
    real = os.path.realpath(path)
    _check_directory(path, real, option, None)
    return Dest(path, "file", real=real, key=("path", real))


def _key(st: os.stat_result) -> tuple:
    """Two outputs with one key write the same place; a character device (a terminal,
    /dev/null) takes any number of outputs, so its key is empty."""
    return () if stat.S_ISCHR(st.st_mode) else ("id",) + file_id(st)


def _flags(fd: int) -> int:
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_GETFL)


def _precious(st: os.stat_result) -> bool:
    """Standard input that an output must not replace: a file or a FIFO (not a terminal or /dev/null)."""
    return stat.S_ISREG(st.st_mode) or stat.S_ISFIFO(st.st_mode)


def _refuse_input(path: str, st: os.stat_result, inputs: dict[tuple[int, int], str], option: str | None) -> None:
    name = inputs.get(file_id(st))
    if name is not None:
        raise SchedccError(f"refusing to overwrite the input file '{name}' with output"
                           + (f" of {option}" if option else ""),
                           notes=["choose another name for the output"])


def _check_directory(path: str, real: str, option: str | None, st: os.stat_result | None) -> None:
    parent = os.path.dirname(real) or "."
    if not os.path.isdir(parent):
        shown = os.path.dirname(path) or parent
        raise _fail(f"cannot write '{path}': directory '{shown}' does not exist", option)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise _fail(f"cannot write '{path}': no permission to create files in directory "
                    f"'{os.path.dirname(path) or '.'}'", option,
                    ["the file is replaced by renaming a new one into place, which needs write "
                     "permission on its directory"])
    if st is not None:
        pst = os.stat(parent)
        if pst.st_mode & stat.S_ISVTX and os.geteuid() not in (0, st.st_uid, pst.st_uid):
            raise _fail(f"cannot write '{path}': it belongs to another user in a sticky directory", option)


def check_distinct(dests: dict[str, Dest]) -> None:
    """Refuse two options that would write the same destination (option -> Dest):
    the second would silently replace the first."""
    seen: dict[tuple, str] = {}
    for option, d in dests.items():
        if not d.key:
            continue
        if d.key in seen:
            what = _STREAM.get(d.fd, f"'{d.path}'") if d.kind == "fd" and d.fd in (1, 2) else f"'{d.path}'"
            raise SchedccError(f"{seen[d.key]} and {option} both write {what}",
                               notes=["give each output its own file name"])
        seen[d.key] = option

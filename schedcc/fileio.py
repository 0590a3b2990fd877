"""Reading inputs and writing outputs without ever losing what the user had.

Outputs are written to a temporary file beside the destination and renamed
into place only once complete, and never over an input file.

Example::

    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "out.ir")
    >>> write_output(out, "t0 = t1 + t2\\n"); read_input(out)[0]
    't0 = t1 + t2\\n'
    >>> write_output(out, "x", inputs=(out,))
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: refusing to overwrite the input file '...' with output
      note: choose another name for the output
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from schedcc.errors import SchedccError


def read_input(path: str) -> tuple[str, str]:
    """(text, display name) of *path*; ``-`` reads standard input."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(path).read_text(), path
    except FileNotFoundError:
        raise SchedccError(f"cannot read '{path}': no such file") from None
    except IsADirectoryError:
        raise SchedccError(f"cannot read '{path}': it is a directory") from None
    except UnicodeDecodeError:
        raise SchedccError(f"cannot read '{path}': not a UTF-8 text file") from None
    except OSError as err:
        raise SchedccError(f"cannot read '{path}': {err.strerror}") from None


def write_output(path: str | Path, data: str | bytes, inputs: tuple[str, ...] = ()) -> None:
    """Write *data* to *path* atomically; refuse to overwrite any of *inputs*."""
    dest = Path(path)
    for inp in inputs:
        if inp != "-" and Path(inp).exists() and dest.exists() and dest.resolve() == Path(inp).resolve():
            raise SchedccError(f"refusing to overwrite the input file '{inp}' with output",
                               notes=["choose another name for the output"])
    if dest.is_dir():
        raise SchedccError(f"cannot write '{dest}': it is a directory")
    parent = dest.parent if str(dest.parent) else Path(".")
    if not parent.is_dir():
        raise SchedccError(f"cannot write '{dest}': directory '{parent}' does not exist")
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", dir=parent)
        with os.fdopen(fd, mode) as fh:
            fh.write(data)
        # mkstemp creates 0600; give the file the mode a plain open() would.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, dest.stat().st_mode & 0o777 if dest.exists() else 0o666 & ~umask)
        os.replace(tmp, dest)
    except OSError as err:
        raise SchedccError(f"cannot write '{dest}': {err.strerror}") from None


def check_distinct_outputs(outputs: dict[str, str | None]) -> None:
    """Refuse two options that would write the same file (option -> path):
    the second would silently replace the first."""
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if not path:
            continue
        key = Path(path).resolve()
        if key in seen:
            raise SchedccError(f"{seen[key]} and {option} both write '{path}'",
                               notes=["give each output its own file name"])
        seen[key] = option

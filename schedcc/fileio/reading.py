"""Reading inputs: UTF-8 text with located errors for anything else.

Every file :func:`read_input` reads is an input of the run's output
transaction (:mod:`schedcc.fileio.transaction`): no output may replace it.

Example::

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "in.ir")
    >>> _ = open(p, "w").write("t0 = t1 + t2\\n")
    >>> read_input(p)
    ('t0 = t1 + t2\\n', '...in.ir')
"""

from __future__ import annotations

import sys
from pathlib import Path

from schedcc.errors import SchedccError
from schedcc.fileio.transaction import note_input


def read_input(path: str) -> tuple[str, str]:
    """(text, display name) of *path*; ``-`` reads standard input.

    The text must be UTF-8 (a UTF-8 byte-order mark is dropped); a UTF-16 file
    or a binary file is refused with the offending byte's position."""
    data = read_bytes(path)
    name = "<stdin>" if path == "-" else path
    return decode_text(data, name), name


def read_bytes(path: str) -> bytes:
    """The bytes of *path* (``-``: standard input); a clear error when it cannot be read."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except FileNotFoundError:
        raise SchedccError(f"cannot read '{path}': no such file") from None
    except IsADirectoryError:
        raise SchedccError(f"cannot read '{path}': it is a directory") from None
    except OSError as err:
        raise SchedccError(f"cannot read '{path}': {err.strerror}") from None
    note_input(path)
    return data


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

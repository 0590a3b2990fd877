"""One picture per block or per loop: the file names, FILE's stem and the block's name.

``--emit-dag dag.svg`` on a program of several blocks writes ``dag.main.entry.svg``,
``dag.main.loop.svg``, ...; ``--emit-kernel k.png`` with several pipelined loops
``k.saxpy.LBB0_2.png``, ... A name keeps its letters, digits, ``_`` and ``-``; any
other run of characters (LLVM's ``@`` and ``%``, assembly's leading ``.``) becomes one
``_``, trimmed at the ends; two names that come out the same get ``-2``, ``-3``.

Example::

    >>> picture_paths("out/dag.svg", [("main", "entry"), ("@saxpy", "%9"), ("dot", ".LBB1_2")])
    ['out/dag.main.entry.svg', 'out/dag.saxpy.9.svg', 'out/dag.dot.LBB1_2.svg']
"""

from __future__ import annotations

import re
from pathlib import Path


def file_word(name: str) -> str:
    """*name* as a piece of a file name (see the module docstring)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "_"


def picture_paths(path: str, names: list[tuple[str, str]], option: str = "",
                  suffixes: tuple[str, ...] = ()) -> list[str]:
    """A file beside *path* for each (function, block) in *names*: ``STEM.FUNCTION.BLOCK.SUFFIX``.
    With *option* (``--emit-dag``): *path* must end in one of *suffixes* and be a file name,
    not standard output or a device, else a :class:`~schedcc.errors.SchedccError` says so."""
    dest = Path(path)
    if option:
        from schedcc.errors import SchedccError
        from schedcc.fileio import is_standard_output
        if dest.suffix.lstrip(".").lower() not in suffixes:
            kinds = ["." + s for s in suffixes]
            raise SchedccError(f"cannot draw to '{path}': use a {', '.join(kinds[:-1])} or {kinds[-1]} file name")
        if is_standard_output(path) or dest.parent == Path("/dev"):
            raise SchedccError(f"{option} {path}: {len(names)} pictures are drawn, one per block, to files "
                               "named after the stem of this one and each block",
                               notes=["give a file name (out.svg), or choose one block with --block NAME"])
    seen: dict[str, int] = {}
    out = []
    for function, block in names:
        word = f"{file_word(function)}.{file_word(block)}"
        seen[word] = seen.get(word, 0) + 1
        if seen[word] > 1:
            word += f"-{seen[word]}"
        out.append(str(dest.with_name(f"{dest.stem}.{word}{dest.suffix}")))
    return out

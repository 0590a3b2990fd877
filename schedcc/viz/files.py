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


def picture_paths(path: str, names: list[tuple[str, str]]) -> list[str]:
    """A file beside *path* for each (function, block) in *names*: ``STEM.FUNCTION.BLOCK.SUFFIX``."""
    dest = Path(path)
    seen: dict[str, int] = {}
    out = []
    for function, block in names:
        word = f"{file_word(function)}.{file_word(block)}"
        seen[word] = seen.get(word, 0) + 1
        if seen[word] > 1:
            word += f"-{seen[word]}"
        out.append(str(dest.with_name(f"{dest.stem}.{word}{dest.suffix}")))
    return out

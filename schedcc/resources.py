"""The package's version, and where its data files (grammars, machine models) live.

In a checkout they sit at the top level (``grammar/``, ``targets/``); in an
installed wheel the build backend copies them into the package. Look in the
package first, then beside it.

Example::

    >>> grammar_path("ir.lark").name, (targets_dir() / "mips4.toml").exists()
    ('ir.lark', True)
"""

from __future__ import annotations

from pathlib import Path

VERSION = "0.1.0"  # the version in pyproject.toml; reports and JSON documents carry it

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the directory holding the data files called *name* (``grammar`` or ``targets``)."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"schedcc data directory {name!r} not found near {_PACKAGE}")


def grammar_path(filename: str) -> Path:
    return data_dir("grammar") / filename


def targets_dir() -> Path:
    return data_dir("targets")

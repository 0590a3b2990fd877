"""External tools some tests use: each such test skips, naming the tool and
its Debian package, when the tool is missing (`python3 tasks.py test`
installs them all on Debian, so there nothing is skipped)."""

from __future__ import annotations

import shutil

import pytest

PACKAGES = {"dot": "graphviz", "chromium": "chromium", "clang-16": "clang-16", "llc-16": "llvm-16",
            "llvm-mc-16": "llvm-16", "llvm-as-16": "llvm-16", "ld.lld-16": "lld-16",
            "qemu-loongarch64": "qemu-user", "qemu-riscv64": "qemu-user", "llvm-mca-16": "llvm-16"}


def missing(*tools: str) -> list[str]:
    return [t for t in tools if shutil.which(t) is None]


def reason(tools: list[str]) -> str:
    pkgs = " ".join(dict.fromkeys(PACKAGES.get(t, t) for t in tools))
    return f"needs {', '.join(tools)} (apt-get install {pkgs}; `python3 tasks.py test` installs them)"


def need(*tools: str) -> None:
    """Skip the running test, saying why, unless every tool is on PATH."""
    gone = missing(*tools)
    if gone:
        pytest.skip(reason(gone))


def needs(*tools: str):
    """The same as a decorator."""
    gone = missing(*tools)
    return pytest.mark.skipif(bool(gone), reason=reason(gone))

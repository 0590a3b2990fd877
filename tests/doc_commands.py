"""Run the ``console`` blocks of a Markdown document and compare (or refresh) their outputs.

A block is a fenced ``console`` code block whose command lines start with
``$ ``; the lines after a command, up to the next command or the end of the
block, are its output (stdout and stderr together). ``schedcc`` runs as
``python -m schedcc.cli`` from this checkout, in a scratch copy of
``examples/`` and ``docs/assignments/``, so that outputs never depend on the
machine. A block preceded by ``<!-- requires: MODULE -->`` runs only when
MODULE is importable (a front end still on another branch, say).

    python tests/doc_commands.py docs/tutorial.md            # check
    python tests/doc_commands.py --update docs/tutorial.md   # rewrite the outputs
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # "requires:" modules are looked up in this checkout
FENCE = re.compile(r"^```console\s*$")
REQUIRES = re.compile(r"<!--\s*requires:\s*([\w.]+)\s*-->")


@dataclass
class Command:
    line: int          # 0-based line of the "$ " line in the document
    command: str
    output: list[str]
    end: int           # line after the output
    requires: str | None


def commands(text: str) -> list[Command]:
    lines = text.split("\n")
    out: list[Command] = []
    i, requires = 0, None
    while i < len(lines):
        m = REQUIRES.search(lines[i])
        if m:
            requires = m.group(1)
        if FENCE.match(lines[i]):
            i += 1
            current: Command | None = None
            while i < len(lines) and not lines[i].startswith("```"):
                if lines[i].startswith("$ "):
                    if current:
                        current.end = i
                        out.append(current)
                    current = Command(i, lines[i][2:], [], i + 1, requires)
                elif current is not None:
                    current.output.append(lines[i])
                i += 1
            if current:
                current.end = i
                out.append(current)
            requires = None
        i += 1
    return out


def available(module: str | None) -> bool:
    if module is None:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def scratch() -> Path:
    tmp = Path(tempfile.mkdtemp(prefix="schedcc-doc-"))
    shutil.copytree(ROOT / "examples", tmp / "examples")
    shutil.copytree(ROOT / "docs" / "assignments", tmp / "docs" / "assignments")
    return tmp


def run(command: str, cwd: Path) -> str:
    prelude = f'schedcc() {{ "{sys.executable}" -m schedcc.cli "$@"; }}\n'
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100", LC_ALL="C.UTF-8")
    proc = subprocess.run(["bash", "-c", prelude + command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    text = proc.stdout + proc.stderr
    return text[:-1] if text.endswith("\n") else text


def check(path: Path, update: bool = False) -> list[str]:
    """Differences between the document and reality (none when *update* rewrote it)."""
    text = path.read_text()
    cwd = scratch()
    problems: list[str] = []
    try:
        lines = text.split("\n")
        replacements = []
        for cmd in commands(text):
            if not available(cmd.requires):
                continue
            got = run(cmd.command, cwd).split("\n")
            want = cmd.output
            while want and want[-1] == "":
                want = want[:-1]
            while got and got[-1].strip() == "":
                got = got[:-1]
            if got != want:
                problems.append(f"{path}:{cmd.line + 1}: $ {cmd.command}\n--- documented\n" + "\n".join(want)
                                + "\n--- actual\n" + "\n".join(got))
                replacements.append((cmd.line + 1, cmd.end, got))
        if update and replacements:
            for start, end, got in reversed(replacements):
                lines[start:end] = got
            path.write_text("\n".join(lines))
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
    return [] if update else problems


if __name__ == "__main__":
    args = sys.argv[1:]
    update = "--update" in args
    files = [Path(a) for a in args if a != "--update"]
    bad = [p for f in files for p in check(f, update)]
    print("\n\n".join(bad) if bad else "ok")
    sys.exit(1 if bad else 0)

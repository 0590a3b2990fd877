"""Output safety under kill signals and failing system calls (issue 21).

A run writes two outputs (``-o prog.ir`` and ``--emit-dag dag.dot``) over two
old files. strace's fault injection stops or fails it at every system call of
its write path: for each of ``openat``, ``write``, ``chmod``, ``close``,
``rename`` and ``unlink`` from the first temporary file on, each occurrence
``N`` gets, in turn, SIGTERM, SIGINT and SIGHUP (``inject=SYSCALL:signal=S:when=N``)
and an error (ENOSPC, EIO, EACCES as fits). After every run:

* each output is wholly old or wholly new (never half-written);
* after a signal, the two agree: both old or both new (never a mix);
* after a failing call, a run that exits non-zero left both old;
* no temporary file (``.prog.ir.XXXX``) is left behind.

Prints the number of runs and the violations (0 of each is the goal).

    .venv/bin/python bench/bench_output_safety.py            # every call
    .venv/bin/python bench/bench_output_safety.py --sample 8  # what tests/test_output_safety.py runs
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEDCC = [sys.executable, "-m", "schedcc"]
CALLS = ("openat", "write", "chmod", "close", "rename", "unlink")
ERRORS = {"openat": "EACCES", "write": "ENOSPC", "chmod": "EPERM", "close": "EIO", "rename": "EIO", "unlink": "EIO"}
SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")
OLD = {"prog.ir": "old program\n", "dag.dot": "old picture\n"}


def _run(work: Path, strace: list[str]) -> int:
    for name, text in OLD.items():
        (work / name).write_text(text)
    for left in work.glob(".*"):  # what an earlier run left: checked after that run already
        left.unlink()
    cmd = strace + SCHEDCC + [str(work / "in.ir"), "--target", "mips4", "-o", str(work / "prog.ir"),
                              "--emit-dag", str(work / "dag.dot")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(cmd, cwd=work, env=env, capture_output=True, timeout=120).returncode


def write_path(work: Path) -> dict[str, list[int]]:
    """For each call, the occurrence numbers (1-based, over the whole run) from the first
    temporary file's creation to the end: the commit."""
    log = work / "strace.log"
    _run(work, ["strace", "-f", "-qq", "-o", str(log), "-e", "trace=" + ",".join(CALLS)])
    counts = {c: 0 for c in CALLS}
    out: dict[str, list[int]] = {c: [] for c in CALLS}
    started = False
    for line in log.read_text().splitlines():
        m = re.match(r"^\d+\s+(\w+)\(", line)
        if not m or m.group(1) not in counts:
            continue
        call = m.group(1)
        counts[call] += 1
        if call == "openat" and re.search(r'"[^"]*/\.(prog\.ir|dag\.dot)\.', line):
            started = True
        if started:
            out[call].append(counts[call])
    return out


def check(work: Path, new: dict[str, str], code: int, signal: bool) -> list[str]:
    bad = []
    state = {}
    for name in OLD:
        text = (work / name).read_text()
        state[name] = "old" if text == OLD[name] else "new" if text == new[name] else "torn"
        if state[name] == "torn":
            bad.append(f"{name} half-written")
    if signal and len(set(state.values())) > 1:
        bad.append(f"a mix of old and new: {state}")
    if not signal and code != 0 and "new" in state.values():
        bad.append(f"failed (exit {code}) but replaced {state}")
    left = [p.name for p in work.iterdir() if p.name.startswith((".prog.ir.", ".dag.dot."))]
    if left:
        bad.append(f"temporary files left: {left}")
    return bad


def sweep(sample: int | None = None) -> tuple[int, list[str]]:
    if not shutil.which("strace"):
        raise SystemExit("needs strace (apt-get install strace)")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copy(ROOT / "examples" / "lecture.ir", work / "in.ir")
        assert _run(work, []) == 0
        new = {name: (work / name).read_text() for name in OLD}
        points = write_path(work)
        cases = []
        for call, ns in points.items():
            for n in ns:
                cases += [(call, n, f"signal={s}", True) for s in SIGNALS]
                cases.append((call, n, f"error={ERRORS[call]}", False))
        if sample:
            step = max(1, len(cases) // sample)
            cases = cases[::step][:sample]
        problems = []
        for call, n, what, is_signal in cases:
            code = _run(work, ["strace", "-f", "-qq", "-o", "/dev/null", "-e", f"trace={call}",
                               "-e", f"inject={call}:{what}:when={n}"])
            problems += [f"{call}#{n} {what}: {p}" for p in check(work, new, code, is_signal)]
        return len(cases), problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sample", type=int, help="only this many injections, spread over the write path")
    args = ap.parse_args()
    runs, problems = sweep(args.sample)
    for p in problems:
        print(p)
    signals = [p for p in problems if "signal=" in p]
    cleanup = [p for p in problems if "unlink#" in p and "error=" in p]
    print(f"{runs} runs with a signal or an error injected on the write path: {len(signals)} violations after a "
          f"signal, {len(problems) - len(signals) - len(cleanup)} after a failing call, {len(cleanup)} where the "
          "cleanup's own unlink was made to fail")
    return 1 if len(problems) > len(cleanup) else 0


if __name__ == "__main__":
    sys.exit(main())

"""The fuzz of issue 21: every case of bench/fuzz_cases.py run as its own process,
with 20 s of CPU and 2 GB of memory at most, and classified:

* traceback: a Python traceback on stderr;
* internal error: exit 1 saying "internal error";
* over limits: killed for CPU time or memory (or MemoryError);
* accepted: a case marked invalid that exited 0;
* unlocated: an error (exit 2) whose first line names neither a place
  (``file:line:col:`` or ``<command line>:1:col:``) nor the option or file the
  case is about.

The goal is 0 of each. Prints the counts by class and family, and each bad case.

    .venv/bin/python bench/bench_fuzz.py               # every case (about 1,300)
    .venv/bin/python bench/bench_fuzz.py --jobs 2 --seed 1
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from fuzz_cases import Case, cases  # noqa: E402

CPU_SECONDS = 20
MEMORY = 2 * 2**30
LOCATED = re.compile(r"^(<command line>:1:\d+|[^\s]+:\d+:\d+): error: ")


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def classify(case: Case, code: int, err: str) -> str | None:
    """The class of a bad outcome, or None for a good one."""
    if "Traceback (most recent call last)" in err:
        return "traceback"
    if code < 0 or "MemoryError" in err:
        return "over limits"
    if code == 1 and "internal error" in err:
        return "internal error"
    if case.invalid and code == 0:
        return "accepted"
    if code == 2:
        first = err.strip().splitlines()[0] if err.strip() else ""
        if not LOCATED.match(first) and not any(n and n in first for n in case.names):
            return "unlocated"
    return None


def run_case(case: Case) -> tuple[Case, int, str, float]:
    with tempfile.TemporaryDirectory(prefix="schedcc-fuzz-") as tmp:
        for name, data in case.files.items():
            (Path(tmp) / name).write_bytes(data)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            proc = subprocess.run([sys.executable, "-m", "schedcc", *case.argv], cwd=tmp, input=case.stdin,
                                  capture_output=True, timeout=CPU_SECONDS * 4, preexec_fn=_limits,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
            code, err = proc.returncode, proc.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            code, err = -9, "timed out"
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return case, code, err, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--limit", type=int, help="only the first N cases")
    args = ap.parse_args()
    todo = cases(args.seed)[:args.limit]
    t0 = time.time()
    bad: Counter = Counter()
    families: Counter = Counter()
    slowest = (0.0, None)
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        for case, code, err, cpu in pool.map(run_case, todo):
            families[case.family.split(":")[0]] += 1
            slowest = max(slowest, (cpu, case.label()), key=lambda x: x[0])
            what = classify(case, code, err)
            if what:
                bad[what] += 1
                first = err.strip().splitlines()[0] if err.strip() else f"(exit {code}, nothing on stderr)"
                print(f"[{what}] {case.label()}\n    exit {code}: {first[:160]}")
    print(f"\n{len(todo)} cases ({', '.join(f'{k} {v}' for k, v in sorted(families.items()))}) "
          f"in {time.time() - t0:.0f} s with {args.jobs} jobs; slowest {slowest[0]:.1f} s CPU: {slowest[1]}")
    for what in ("traceback", "internal error", "over limits", "accepted", "unlocated"):
        print(f"  {what:<15} {bad[what]}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""The command line as a user runs it (issue 10): whole processes, timed from outside.

* start-up: ``schedcc examples/lecture.ir --target mips4`` (goal <= 0.3 s);
* a 10,000- and a 100,000-instruction block through the whole command with
  ``--format json`` (parse, DAG, schedule, verify, JSON; goal: 100k in <= 5 s,
  time per instruction at 100k <= 1.3x that at 10k, peak memory <= 600 MB);
* ``--pipeline`` on random loops of 400 and 2,000 operations (goals <= 1 s and
  <= 10 s), with the part spent in the MII computation.

CPU time (user + system) and peak resident memory are the process's own, from
``os.wait4``; wall time is shown too. Each figure is the median of --repeat runs.

    .venv/bin/python bench/bench_cli.py
    .venv/bin/python bench/bench_cli.py --only startup,json --repeat 5
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SCHEDCC = [sys.executable, "-m", "schedcc.cli"]


def run(cmd: list[str]) -> tuple[float, float, float]:
    """(cpu s, wall s, peak MB) of one process, its output thrown away."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {err}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def median_run(cmd: list[str], repeat: int) -> tuple[float, float, float]:
    runs = [run(cmd) for _ in range(repeat)]
    return tuple(statistics.median(r[k] for r in runs) for k in range(3))  # type: ignore[return-value]


def startup(repeat: int) -> None:
    cpu, wall, mem = median_run(SCHEDCC + ["examples/lecture.ir", "--target", "mips4"], repeat)
    print(f"start-up, lecture.ir on mips4: cpu {cpu:.3f} s, wall {wall:.3f} s, {mem:.0f} MB (goal <= 0.3 s)")


def json_blocks(repeat: int, tmp: Path) -> None:
    from gen_block import generate
    per = {}
    for n in (10_000, 100_000):
        path = tmp / f"block{n}.ir"
        path.write_text(generate(n))
        cpu, wall, mem = median_run(SCHEDCC + [str(path), "--target", "mips4", "--format", "json"], repeat)
        per[n] = cpu / n
        print(f"{n:>7} instructions, --format json: cpu {cpu:6.2f} s, wall {wall:6.2f} s, peak {mem:5.0f} MB, "
              f"{cpu / n * 1e6:5.1f} us/instr")
    print(f"time per instruction 100k / 10k: {per[100_000] / per[10_000]:.2f} (goal <= 1.3); "
          f"goals: 100k <= 5 s cpu, <= 600 MB")


def pipeline_loops(repeat: int, tmp: Path) -> None:
    from schedcc import parse
    from schedcc.sched.mii import mii
    from schedcc.swp.loopgen import random_loop
    from schedcc.swp.dependences import loop_dag
    from schedcc.swp.loops import find_loops
    for n, goal in ((400, 1.0), (2000, 10.0)):
        path = tmp / f"loop{n}.ir"
        text = random_loop(random.Random(0), n)
        path.write_text(text)
        dag = loop_dag(find_loops(parse(text).function("f"))[0], "la464")
        t0 = time.process_time()
        bounds = mii(dag)
        t_mii = time.process_time() - t0
        cpu, wall, mem = median_run(SCHEDCC + [str(path), "--target", "la464", "--pipeline"], repeat)
        print(f"--pipeline, {n} operations ({len(dag.deps)} edges, MII {bounds.value}): cpu {cpu:6.2f} s, "
              f"wall {wall:6.2f} s, {mem:.0f} MB; of it the MII {t_mii:.2f} s (goal <= {goal:g} s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="startup,json,pipeline", help="comma-separated: startup, json, pipeline")
    args = ap.parse_args()
    parts = set(args.only.split(","))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, CPython {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as d:
        if "startup" in parts:
            startup(max(args.repeat, 5))
        if "json" in parts:
            json_blocks(args.repeat, Path(d))
        if "pipeline" in parts:
            pipeline_loops(args.repeat, Path(d))
    return 0


if __name__ == "__main__":
    sys.exit(main())

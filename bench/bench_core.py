"""Core benchmark: parse + DAG + list schedule of one large straight-line block on mips4.

Goal (issue 2): 100,000 instructions (20% loads and stores) in at most 5 s on
a 2-core machine, and time per instruction at 100,000 no more than 1.5x that
at 10,000.

    .venv/bin/python bench/bench_core.py            # 10k and 100k, best of 3
    .venv/bin/python bench/bench_core.py --sizes 1000 10000 100000 --repeat 5
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gen_block import generate  # noqa: E402

from schedcc import parse  # noqa: E402
from schedcc.dag import build_dag  # noqa: E402
from schedcc.sched import list_schedule  # noqa: E402
from schedcc.target import load_target  # noqa: E402


def run_once(text: str, target) -> dict[str, float]:
    t0 = time.perf_counter()
    block = parse(text, "bench.ir").functions[0].blocks[0]
    t1 = time.perf_counter()
    dag = build_dag(block, target)
    t2 = time.perf_counter()
    sched = list_schedule(dag)
    t3 = time.perf_counter()
    return {"parse": t1 - t0, "dag": t2 - t1, "schedule": t3 - t2, "total": t3 - t0,
            "edges": len(dag.deps), "makespan": sched.makespan}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--target", default="mips4")
    args = ap.parse_args()
    target = load_target(args.target)
    parse("t0 = t1 + t2\n")  # build the parser once, outside the timings
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"target {target.name}")
    print(f"{'n':>8} {'parse s':>8} {'dag s':>8} {'sched s':>8} {'total s':>8} {'us/instr':>9} {'edges':>8} {'edges/n':>7}")
    per_instr = {}
    for n in args.sizes:
        text = generate(n)
        runs = [run_once(text, target) for _ in range(args.repeat)]
        best = min(runs, key=lambda r: r["total"])
        per_instr[n] = best["total"] / n
        print(f"{n:>8} {best['parse']:>8.3f} {best['dag']:>8.3f} {best['schedule']:>8.3f} {best['total']:>8.3f} "
              f"{1e6 * per_instr[n]:>9.2f} {best['edges']:>8} {best['edges'] / n:>7.2f}")
    if 10_000 in per_instr and 100_000 in per_instr:
        ratio = per_instr[100_000] / per_instr[10_000]
        print(f"time per instruction, 100k / 10k: {ratio:.2f} (goal <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The auto-parallel planner's speed goals (issue 13). Recorded in docs/performance.md.

1. Search: llama3-70b on 1,024 H100s (dgx-h100), global batch 1,024, the whole
   default space; goal: at least 300 candidates in at most 2 minutes on 2 cores.
2. One large candidate: gpt-1t on 3,072 A100s (dgx-a100), tp=8, pp=64, 512
   microbatches of one sequence per pipeline, full recomputation; goal: scored in
   at most 30 s. Also with interleaving (virtual=2) and with overlap=auto.
3. Overlap: llama3-70b, dp2 tp8 pp8 on 128 H100s, overlap none / tp2 / tp4 / tp8 /
   auto: step time and exposed tensor-parallel communication.

    .venv/bin/python bench/bench_planner.py              # all
    .venv/bin/python bench/bench_planner.py --only 2 3 --workers 1
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from schedcc.planner import plan, preset  # noqa: E402


def search(workers: int | None) -> None:
    print("1. llama3-70b, 1024 x dgx-h100, global batch 1024, default space, "
          f"workers={workers or os.cpu_count()}")
    t0 = time.perf_counter()
    res = plan(preset("llama3-70b"), "dgx-h100", gpus=1024, global_batch=1024, workers=workers, progress=False)
    wall = time.perf_counter() - t0
    print(f"   {res.searched} candidates ({res.infeasible} out of memory) in {wall:.1f} s "
          f"[goal: >= 300 in <= 120 s] -> best {res.best.candidate.label()} {res.best.step_time_s:.3f} s")


def large() -> None:
    fix = "tp=8,pp=64,microbatch=1,zero=0,recompute=full"
    for extra in ("schedule=1f1b,sp=0,overlap=none", "schedule=interleaved,virtual=2,sp=0,overlap=none",
                  "schedule=1f1b,sp=1,overlap=auto"):
        t0 = time.perf_counter()
        res = plan(preset("gpt-1t"), "dgx-a100", gpus=3072, global_batch=3072, fix=f"{fix},{extra}", workers=1,
                   progress=False)
        wall = time.perf_counter() - t0
        best = res.best
        print(f"2. gpt-1t 3072 x dgx-a100 {best.candidate.label()}: {best.microbatches} microbatches per "
              f"pipeline, scored in {wall:.2f} s [goal <= 30 s]; step {best.step_time_s:.2f} s, MFU {best.mfu:.1%}")


def overlap() -> None:
    print("3. llama3-70b dp2 tp8 pp8 mb1 1f1b z1 sp on 128 x dgx-h100: overlap")
    base = "tp=8,pp=8,cp=1,microbatch=1,schedule=1f1b,zero=1,sp=1,recompute=none"
    for ov in ("none", "tp2", "tp4", "tp8", "auto"):
        s = plan(preset("llama3-70b"), "dgx-h100", gpus=128, global_batch=128, fix=f"{base},overlap={ov}",
                 workers=1, progress=False).best
        print(f"   overlap={ov:<5} step {s.step_time_s:.3f} s, exposed tp comm {s.breakdown.get('exposed_tp', 0):.3f} s, "
              f"MFU {s.mfu:.1%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", type=int, default=[1, 2, 3])
    ap.add_argument("--workers", type=int, default=None, help="processes for the search (default: cores)")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    if 1 in args.only:
        search(args.workers)
    if 2 in args.only:
        large()
    if 3 in args.only:
        overlap()
    return 0


if __name__ == "__main__":
    sys.exit(main())

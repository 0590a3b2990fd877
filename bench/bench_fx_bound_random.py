"""The lower bound on exposed communication (schedcc.torch.fx_bound) against every order of random small steps.

Random steps of 2 to 8 nodes (one compute stream, two process groups, kernels
of 0 to 40 ticks, collectives of 1 to 30, dependences drawn with probability
0.2, 0.35 or 0.5) have every topological order run by the stream simulation
(tests/test_torch_fx_bound.py's exhaustive ``optimum``, which also checks
step - W = exposed on each order). Exits 1 if the bound is ever above the best
order; prints how often it equals it (issue 18).

    nice .venv/bin/python bench/bench_fx_bound_random.py [--seed 1] [--cases 3000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from test_torch_fx_bound import Step, optimum  # noqa: E402

from schedcc.torch.fx_bound import lower_bound  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=3000)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    tight = 0
    t = time.process_time()
    for _ in range(args.cases):
        n = rng.randint(2, 8)
        streams = [rng.choice(["compute", "compute", "comm:a", "comm:b"]) for _ in range(n)]
        dur = [rng.randint(1, 30) if s != "compute" else rng.choice([0, 0, 1, 5, 12, 20, 40]) for s in streams]
        p = rng.choice([0.2, 0.35, 0.5])
        step = Step(streams, [(i, j) for j in range(n) for i in range(j) if rng.random() < p])
        best = optimum(step, dur)
        bound = lower_bound(step.streams, step.deps, dur).exposed_ticks
        if bound > best:
            print(f"bound {bound} above the best order's {best}: {streams} {step.deps} {dur}")
            return 1
        tight += bound == best
    print(f"{args.cases} steps: the bound is never above the best order, equal to it on {tight} "
          f"({tight / args.cases:.1%}); {time.process_time() - t:.1f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())

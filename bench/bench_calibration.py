"""Calibration on published measured runs of clusters that are not a DGX (docs/validation.md).

For each calibration file of examples/calibration/: the fit on the two runs the file names
(held-out median and worst |error|, Kendall tau, and the same for the unfitted base file),
then the fit on PAIRS pairs of runs drawn at random (seeded), to show that the result does not
hang on the pair: the median over pairs of the held-out median error, worst error and tau.

    nice .venv/bin/python bench/bench_calibration.py [--pairs 10]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

from schedcc.planner.calib_runs import read_runs
from schedcc.planner.calibrate import calibrate

ROOT = Path(__file__).resolve().parents[1]
FILES = ["examples/calibration/jeanzay-a100-bloom.toml", "examples/calibration/a100-40gb-mosaic.toml"]


def line(name: str, fit) -> str:
    s = fit.summary()
    consts = ", ".join(f"{c.name} {c.value:.3g}" for c in fit.constants)
    return (f"| {name} | {', '.join(s['fitted'])} | {consts} | {len(s['held_out'])} | "
            f"{s['held_out_median_error']:.1%} | {s['held_out_worst_error']:.1%} | {s['held_out_tau']:.2f} | "
            f"{s['held_out_base_median_error']:.1%} / {s['held_out_base_tau']:.2f} |"
            + (" unstable" if fit.unstable else ""))


def main() -> int:
    pairs = int(sys.argv[sys.argv.index("--pairs") + 1]) if "--pairs" in sys.argv else 10
    print("| cluster | fitted on | constants | held out | median | worst | tau | base file: median / tau |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for f in FILES:
        t0 = time.process_time()
        inp = read_runs(str(ROOT / f))
        print(line(inp.name, calibrate(inp)))
        rng = random.Random(22)
        ids = [r.id for r in inp.runs]
        stats = []
        for _ in range(pairs):
            pair = rng.sample(ids, 2)
            fit = calibrate(inp, fit_on=pair)
            s = fit.summary()
            stats.append((s["held_out_median_error"], s["held_out_worst_error"], s["held_out_tau"], bool(fit.unstable)))
        med = statistics.median
        print(f"| {inp.name}, {pairs} random pairs (median over pairs) | - | - | {len(ids) - 2} | "
              f"{med(x[0] for x in stats):.1%} | {med(x[1] for x in stats):.1%} | "
              f"{med(x[2] for x in stats):.2f} | {sum(x[3] for x in stats)} of {pairs} unstable; "
              f"tau >= 0.8 in {sum(x[2] >= 0.8 for x in stats)} |  ({time.process_time() - t0:.0f} s CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

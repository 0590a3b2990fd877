"""Calibration on published measured runs of clusters that are not a DGX (docs/validation.md).

For each calibration file of examples/calibration/: the fit on the two runs the file names
(held-out median and worst |error|, Kendall tau, and the same for the unfitted base file),
then the fit on PAIRS pairs of runs drawn at random (seeded), to show that the result does not
hang on the pair: the median over pairs of the held-out median error, worst error and tau; and,
where the file measured a configuration twice, the tau a perfect model would reach under that
run-to-run noise (the ceiling of the ranking goal).

    nice .venv/bin/python bench/bench_calibration.py [--pairs 10] [--only NAME]

``--only NAME``: only the calibration files whose name contains NAME (e.g. ``--only ascend``).
"""

from __future__ import annotations

import random
from dataclasses import replace
import statistics
import sys
import time
from pathlib import Path

from schedcc.planner.calib_runs import read_runs
from schedcc.planner.calibrate import calibrate

ROOT = Path(__file__).resolve().parents[1]
FILES = ["examples/calibration/jeanzay-a100-bloom.toml", "examples/calibration/a100-40gb-mosaic.toml",
         "examples/calibration/ascend910b-modellink.toml", "examples/calibration/a100-roce-internlm.toml",
         "examples/calibration/lumi-mi250x-megatron.toml"]


def line(name: str, fit) -> str:
    s = fit.summary()
    consts = ", ".join(f"{c.name} {c.value:.3g}" for c in fit.constants)
    return (f"| {name} | {', '.join(s['fitted'])} | {consts} | {len(s['held_out'])} | "
            f"{s['held_out_median_error']:.1%} | {s['held_out_worst_error']:.1%} | {s['held_out_tau']:.2f} | "
            f"{s['held_out_base_median_error']:.1%} / {s['held_out_base_tau']:.2f} |"
            + (" unstable" if fit.unstable else ""))


def noise_ceiling(inp, draws: int = 4000) -> str:
    """The Kendall tau a perfect model reaches against single measurements of the held-out runs of
    *inp* when each step carries the run-to-run noise its repeated configurations show (log-normal,
    sigma from the pairs of runs with the same configuration and batch): median and 90% range
    over *draws* simulated measurements (seeded). "" when no configuration was measured twice."""
    import math
    from schedcc.planner.calibrate import kendall
    seen: dict = {}
    diffs = []
    for r in inp.runs:
        key = (replace(r.model, name=""), r.gpus, r.global_batch, r.candidate, r.settings)   # as calib_runs
        if key in seen:
            diffs.append(math.log(r.step_time_s / seen[key]))
        seen.setdefault(key, r.step_time_s)
    if not diffs:
        return ""
    sigma = math.sqrt(sum(d * d for d in diffs) / len(diffs) / 2)
    held = [r.step_time_s for r in inp.runs if r.id not in (inp.fit_on or [])]
    rng = random.Random(22)
    taus = sorted(kendall(held, [t * math.exp(rng.gauss(0, sigma)) for t in held]) for _ in range(draws))
    return (f"{inp.name}: run-to-run noise {sigma:.1%} (from {len(diffs)} repeated configuration(s)); a perfect "
            f"model reaches tau {statistics.median(taus):.2f} (90%: {taus[draws // 20]:.2f}-{taus[-draws // 20]:.2f}; "
            f"tau >= 0.8 in {sum(t >= 0.8 for t in taus) / draws:.0%} of {draws} draws)")


def main() -> int:
    pairs = int(sys.argv[sys.argv.index("--pairs") + 1]) if "--pairs" in sys.argv else 10
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    files = [f for f in FILES if only in Path(f).name]
    if not files:
        print(f"--only {only}: no calibration file matches (files: {', '.join(Path(f).name for f in FILES)})",
              file=sys.stderr)
        return 2
    print("| cluster | fitted on | constants | held out | median | worst | tau | base file: median / tau |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for f in files:
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
        ceiling = noise_ceiling(inp)
        if ceiling:
            print(ceiling)
    return 0


if __name__ == "__main__":
    sys.exit(main())

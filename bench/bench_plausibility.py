"""Is the planner's answer plausible? (issue 22). Recorded in docs/validation.md.

1. The six common questions of :data:`schedcc.planner.plausibility.QUESTIONS`
   (7B-405B on 8-1,024 A100/H100s), whole default search (``--framework any``):
   the winner's MFU against the range of published runs of similar size on the
   same GPU, and the winner re-scored as the framework that can run it.
2. The two answers issue 22 reported as implausible: a 13B (MPT shape) on 64
   A100s (winner ``dp64 tp1 pp1 mb1 z2`` at 67.9% MFU before) and llama3-70b on
   512 H100s, global batch 1,024 (winner ``dp64 tp4 pp1 cp2 mb1 z2``, ZeRO-2
   priced with ZeRO-1's communication before).

    nice .venv/bin/python bench/bench_plausibility.py              # all (tens of CPU minutes)
    nice .venv/bin/python bench/bench_plausibility.py --only 2     # the two symptoms
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from schedcc.planner import plan, preset  # noqa: E402
from schedcc.planner.plausibility import QUESTIONS, ask, markdown, runnable_by  # noqa: E402


def questions(workers: int) -> None:
    results = []
    for q in QUESTIONS:
        t0 = time.process_time()
        r = ask(q, workers=workers)
        results.append(r)
        print(f"   {q.name}: {r['winner']} MFU {r['mfu']:.1%} (published {r['low']:.1%}-{r['high']:.1%}), "
              f"run as {r['framework']}: {r['rescored_mfu']}; {r['searched']} candidates, "
              f"{time.process_time() - t0:.0f} s CPU in this process", flush=True)
    print()
    print(markdown(results))


def symptoms(workers: int) -> None:
    from schedcc.planner.plausibility import _model, Question
    for name, model, target, gpus, gb in (("13B on 64 A100", _model(Question("", "mpt-13b", 64, 512, "")),
                                           "dgx-a100", 64, 512),
                                          ("llama3-70b on 512 H100", preset("llama3-70b"), "dgx-h100", 512, 1024)):
        res = plan(model, target, gpus=gpus, global_batch=gb, workers=workers, progress=False)
        b = res.best
        print(f"2. {name}, global batch {gb}: winner {b.candidate.label()} step {b.step_time_s:.3f} s, "
              f"MFU {b.mfu:.1%}, {b.memory_per_gpu_bytes / 1e9:.1f} GB; run as {runnable_by(b.candidate)}; "
              f"{res.searched} candidates", flush=True)
        for s in res.candidates[1:5]:
            print(f"     {s.candidate.label()} {s.step_time_s:.3f} s MFU {s.mfu:.1%}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    if 2 in args.only:
        symptoms(args.workers)
    if 1 in args.only:
        print("1. six common questions")
        questions(args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())

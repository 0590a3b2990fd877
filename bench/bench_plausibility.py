"""Is the planner's answer plausible? (issue 22). Recorded in docs/validation.md.

1. The six common questions of :data:`schedcc.planner.plausibility.QUESTIONS`
   (7B-405B on 8-1,024 A100/H100s), whole default search (``--framework any``):
   the winner's MFU against the range of published runs of similar size on the
   same GPU, and the winner re-scored as the framework that can run it.
   The second question is issue 22's 13B (MPT shape) on 64 A100s (winner
   ``dp64 tp1 pp1 mb1 z2`` at 67.9% MFU before).
2. The other answer issue 22 reported as implausible: llama3-70b on 512 H100s,
   global batch 1,024 (winner ``dp64 tp4 pp1 cp2 mb1 z2`` before, ZeRO-2 priced
   with ZeRO-1's communication).

    nice .venv/bin/python bench/bench_plausibility.py                    # all (about a CPU minute with the pruned search, 2026-11-28)
    nice .venv/bin/python bench/bench_plausibility.py --only 1 --ask 1 2 # two of the six questions
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from schedcc.planner import plan, preset  # noqa: E402
from schedcc.planner.plausibility import QUESTIONS, ask, markdown, runnable_by  # noqa: E402


def _cpu() -> float:
    """User CPU seconds of this process and its finished workers."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_utime
            + resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime)


def questions(workers: int, which: list[int]) -> None:
    results = []
    for q in (QUESTIONS[i - 1] for i in which):
        t0 = _cpu()
        r = ask(q, workers=workers)
        results.append(r)
        print(f"   {q.name}: {r['winner']} MFU {r['mfu']:.1%} (published {r['low']:.1%}-{r['high']:.1%}), "
              f"run as {r['framework']}: MFU {r['rescored_mfu']:.1%}; {r['searched']} candidates, "
              f"{_cpu() - t0:.0f} s CPU", flush=True)
    print()
    print(markdown(results))


def symptoms(workers: int) -> None:
    """The 13B on 64 A100s is the second of the six questions; the 70B on 512 H100s here."""
    res = plan(preset("llama3-70b"), "dgx-h100", gpus=512, global_batch=1024, workers=workers, progress=False)
    b = res.best
    print(f"2. llama3-70b on 512 H100, global batch 1024: winner {b.candidate.label()} step {b.step_time_s:.3f} s, "
          f"MFU {b.mfu:.1%}, {b.memory_per_gpu_bytes / 1e9:.1f} GB; run as {runnable_by(b.candidate)}; "
          f"{res.searched} candidates", flush=True)
    for s in res.candidates[1:5]:
        print(f"     {s.candidate.label()} {s.step_time_s:.3f} s MFU {s.mfu:.1%}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--ask", nargs="*", type=int, default=list(range(1, len(QUESTIONS) + 1)),
                    help="which of the six questions (1-6)")
    args = ap.parse_args()
    if 1 in args.only:
        print("1. six common questions", flush=True)
        questions(args.workers, args.ask)
    if 2 in args.only:
        symptoms(args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())

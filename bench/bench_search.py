"""Search speed: llama3-70b on 1,024 H100s (dgx-h100), global batch 1,024, the default space.

In one run, in this process (workers=1, so CPU time is the search's own), with
``time.process_time``:

1. the search as ``schedcc plan`` runs it (lower bounds prune level 2);
2. the same search exhaustive (``exhaustive=True``: level 2 for every candidate
   that fits; layer schedules still shared between chunk lengths);
3. with ``--before REV``: the search of revision REV (``git archive`` of its
   ``schedcc/`` into a temporary directory, run in a subprocess), the code before
   this work (default: none; ``--before main``).

Candidates per CPU-second count every candidate of the space (scored, out of
memory or pruned) over the search's CPU seconds. The winner and the top 10 of
(1) must equal those of (2): the script exits 1 otherwise.

    nice .venv/bin/python bench/bench_search.py [--before main]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTION = dict(gpus=1024, global_batch=1024)
CODE = """
import json, time
from schedcc.planner import plan, preset
t = time.process_time()
r = plan(preset("llama3-70b"), "dgx-h100", gpus=1024, global_batch=1024, workers=1, progress=False{extra})
cpu = time.process_time() - t
print(json.dumps(dict(cpu=cpu, candidates=r.searched + getattr(r, "pruned", 0), scored=r.searched,
                      infeasible=r.infeasible, pruned=getattr(r, "pruned", 0),
                      top=[s.candidate.label() for s in r.candidates[:10]], step=r.best.step_time_s)))
"""


def run(path: Path, extra: str = "") -> dict:
    env = dict(os.environ, PYTHONPATH=str(path))
    out = subprocess.run([sys.executable, "-c", CODE.format(extra=extra)], env=env, capture_output=True,
                         text=True, check=True, cwd=path)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    before = sys.argv[sys.argv.index("--before") + 1] if "--before" in sys.argv else None
    rows = [("pruned (default)", run(ROOT)), ("exhaustive", run(ROOT, ", exhaustive=True"))]
    if before:
        with tempfile.TemporaryDirectory() as tmp:
            arch = subprocess.run(["git", "archive", before, "schedcc", "targets", "grammar"], cwd=ROOT,
                                  capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=arch, check=True)
            rows.append((f"before ({before})", run(Path(tmp))))
    base = rows[-1][1]["cpu"]
    print("| search | candidates | scheduled | out of memory | pruned | CPU s | candidates / CPU s | "
          f"CPU vs {rows[-1][0]} |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r['candidates']:,} | {r['scored'] - r['infeasible']:,} | {r['infeasible']:,} | "
              f"{r['pruned']:,} | {r['cpu']:.1f} | {r['candidates'] / r['cpu']:.0f} | {base / r['cpu']:.1f}x |")
    same = rows[0][1]["top"] == rows[1][1]["top"] and rows[0][1]["step"] == rows[1][1]["step"]
    print(f"winner {rows[0][1]['top'][0]} ({rows[0][1]['step']:.4f} s); top 10 equal to the exhaustive "
          f"search's: {same}")
    if before:
        print(f"winner before: {rows[-1][1]['top'][0]} ({rows[-1][1]['step']:.4f} s)")
    return 0 if same else 1


if __name__ == "__main__":
    t0 = time.process_time()
    sys.exit(main())

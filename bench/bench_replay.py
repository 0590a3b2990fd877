"""Replay profiler traces of real runs: measured vs replayed step time, exposed communication vs HTA.

For every folder of traces given (default: the gloo runs kept in
tests/data/traces and the made-up GPU job of tests/kineto_gpu.py), prints the
replay's error against the measured step time, each rank's exposed
communication (schedcc's against Holistic Trace Analysis's on the same files,
CPU runs rewritten for HTA by tests/hta_bridge.py) and the CPU time of the
replay. The issue's goals: replay within 5%, exposed within 2 percentage
points of HTA.

Usage::

    python bench/bench_replay.py [FOLDER ...] [--fresh OUT]

``--fresh OUT`` first makes new traces with bench/make_traces.py (DDP on 4
processes, FSDP2 and TP on 2) into OUT and adds them.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hta_bridge import hta_exposed  # noqa: E402
from kineto_gpu import make_gpu_job  # noqa: E402
from schedcc.torch.replay import replay  # noqa: E402


def row(name: str, folder: Path, gpu: bool, scratch: Path) -> dict:
    t0 = time.process_time()
    r = replay([folder])
    cpu = time.process_time() - t0
    try:
        theirs = hta_exposed(folder, scratch / name, cpu=not gpu)
    except ImportError:
        theirs = {}
    ours = {e.rank: e.exposed_pct for e in r.measured_exposure}
    diff = max((abs(ours[k] - theirs[k]) for k in ours if k in theirs), default=float("nan"))
    return {"name": name, "ranks": len(r.traces), "steps": len(r.steps), "nodes": len(r.step.graph),
            "measured": r.measured_us / 1000, "replayed": r.replayed_us / 1000, "error": r.error,
            "worst": r.worst_step_error, "ours": ours, "hta": theirs, "diff": diff, "cpu": cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--fresh", type=Path, help="make new traces into this folder first")
    args = parser.parse_args(argv)
    folders = [(f.name, f, False) for f in args.folders]
    if not folders:
        folders = [(f"kept/{m}", ROOT / "tests" / "data" / "traces" / m, False) for m in ("ddp", "fsdp", "tp")]
    if args.fresh:
        for model, ranks in (("ddp", 4), ("fsdp", 2), ("tp", 2)):
            subprocess.run([sys.executable, str(ROOT / "bench" / "make_traces.py"), str(args.fresh),
                            "--model", model, "--ranks", str(ranks)], check=True, capture_output=True)
            folders.append((f"fresh/{model}", args.fresh / model, False))
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if not args.folders:
            make_gpu_job(scratch / "gpu-job", ranks=2, steps=3, layers=4)
            folders.append(("made-up GPU job", scratch / "gpu-job", True))
        rows = [row(n, f, g, scratch) for n, f, g in folders]
    print("| traces | ranks | steps | nodes | measured (ms) | replayed (ms) | error | worst step "
          "| exposed, schedcc (per rank) | exposed, HTA | largest gap | replay CPU (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ours = ", ".join(f"{v:.2f}%" for _, v in sorted(r["ours"].items()))
        hta = ", ".join(f"{v:.2f}%" for _, v in sorted(r["hta"].items())) or "not installed"
        print(f"| {r['name']} | {r['ranks']} | {r['steps']} | {r['nodes']:,} | {r['measured']:,.1f} "
              f"| {r['replayed']:,.1f} | {r['error']:+.2%} | {r['worst']:.2%} | {ours} | {hta} "
              f"| {r['diff']:.2f} pp | {r['cpu']:.2f} |")
    ok = all(abs(r["error"]) < 0.05 and r["worst"] < 0.05 and not r["diff"] >= 2.0 for r in rows)
    print("goals met" if ok else "GOAL MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

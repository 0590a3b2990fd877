"""Replay profiler traces of real runs: measured vs replayed step time, exposed communication vs HTA.

For every folder of traces (default: the gloo runs kept in tests/data/traces,
the public NCCL traces of tests/data/traces/hta and the made-up GPU job of
tests/kineto_gpu.py), prints the replay's error against the measured step
time, each rank's exposed communication (schedcc's against Holistic Trace
Analysis's ``get_comm_comp_overlap`` on the same files; CPU runs rewritten
for HTA by tests/hta_bridge.py) and the CPU time of the replay. The issue's
goals: replay within 5%, exposed within 2 percentage points of HTA.

Usage::

    python bench/bench_replay.py [--traces DIR ...] [--fresh OUT]

``--traces DIR`` (repeatable) replays DIR instead of the defaults: a folder
of one job's rank files, or a folder of such folders (each replayed on its
own). A job whose files are some ranks of a larger one is replayed with
``subset=True``. ``--fresh OUT`` first makes new gloo traces with
bench/make_traces.py (DDP on 4 processes, FSDP2 and TP on 2) into OUT and
adds them.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from hta_bridge import hta_exposed  # noqa: E402
from kineto_gpu import make_gpu_job  # noqa: E402
from schedcc.errors import SchedccError  # noqa: E402
from schedcc.torch.replay import replay  # noqa: E402

TRACE_SUFFIXES = (".json", ".json.gz")


def jobs_in(folder: Path, prefix: str = "") -> list[tuple[str, Path]]:
    """The folders of rank files under *folder* (itself, or its subfolders, recursively)."""
    if any(p.is_file() and p.name.endswith(TRACE_SUFFIXES) for p in folder.iterdir()):
        return [(prefix or folder.name, folder)]
    out = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        out += jobs_in(sub, f"{prefix}/{sub.name}" if prefix else sub.name)
    return out


def _is_gpu(folder: Path) -> bool:
    first = next(p for p in sorted(folder.iterdir()) if p.name.endswith(TRACE_SUFFIXES))
    with (gzip.open if first.name.endswith(".gz") else open)(first, "rt") as f:
        doc = json.load(f)
    return any(e.get("cat") == "kernel" for e in doc.get("traceEvents", ()))


def row(name: str, folder: Path, scratch: Path) -> dict:
    gpu = _is_gpu(folder)
    t0 = time.process_time()
    try:
        r = replay([folder])
        subset = False
    except SchedccError as err:
        if "rank file missing" not in str(err):
            raise
        r = replay([folder], subset=True)
        subset = True
    cpu = time.process_time() - t0
    try:
        theirs = hta_exposed(folder, scratch / name.replace("/", "_"), cpu=not gpu)
    except ImportError:
        theirs = {}
    ours = {e.rank: e.exposed_pct for e in r.measured_exposure}
    diff = max((abs(ours[k] - theirs[k]) for k in ours if k in theirs), default=float("nan"))
    ranks = f"{len(r.traces)} of {r.traces[0].world}" if subset else str(len(r.traces))
    return {"name": name, "ranks": ranks, "backend": r.traces[0].backend, "steps": len(r.steps),
            "nodes": len(r.step.graph), "measured": r.measured_us / 1000, "replayed": r.replayed_us / 1000,
            "error": r.error, "worst": r.worst_step_error, "ours": ours, "hta": theirs, "diff": diff, "cpu": cpu}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", action="append", type=Path, metavar="DIR",
                        help="a folder of one job's rank files, or of such folders (repeatable)")
    parser.add_argument("--fresh", type=Path, help="make new gloo traces into this folder first")
    args = parser.parse_args(argv)
    jobs: list[tuple[str, Path]] = []
    for d in args.traces or []:
        if not d.is_dir():
            parser.error(f"--traces {d}: not a folder")
        jobs += jobs_in(d)
    if not args.traces:
        data = ROOT / "tests" / "data" / "traces"
        jobs += [(f"kept/{n}", p) for n, p in jobs_in(data) if not n.startswith("hta/")]
        jobs += [(f"public/{n[4:]}", p) for n, p in jobs_in(data) if n.startswith("hta/")]
    if args.fresh:
        for model, ranks in (("ddp", 4), ("fsdp", 2), ("tp", 2)):
            subprocess.run([sys.executable, str(ROOT / "bench" / "make_traces.py"), str(args.fresh),
                            "--model", model, "--ranks", str(ranks)], check=True, capture_output=True)
            jobs.append((f"fresh/{model}", args.fresh / model))
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if not args.traces:
            make_gpu_job(scratch / "gpu-job", ranks=2, steps=3, layers=4)
            jobs.append(("made-up GPU job", scratch / "gpu-job"))
        rows = [row(n, f, scratch) for n, f in jobs]
    print("| traces | backend | ranks | steps | nodes | measured (ms) | replayed (ms) | error | worst step "
          "| exposed, schedcc (per rank) | exposed, HTA | largest gap | replay CPU (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ours = ", ".join(f"{v:.2f}%" for _, v in sorted(r["ours"].items()))
        hta = ", ".join(f"{v:.2f}%" for _, v in sorted(r["hta"].items())) or "not installed"
        print(f"| {r['name']} | {r['backend']} | {r['ranks']} | {r['steps']} | {r['nodes']:,} | {r['measured']:,.1f} "
              f"| {r['replayed']:,.1f} | {r['error']:+.2%} | {r['worst']:.2%} | {ours} | {hta} "
              f"| {r['diff']:.2f} pp | {r['cpu']:.2f} |")
    ok = all(abs(r["error"]) < 0.05 and r["worst"] < 0.05 and not r["diff"] >= 2.0 for r in rows)
    print("goals met" if ok else "GOAL MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

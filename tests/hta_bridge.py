"""Holistic Trace Analysis's exposed communication of a folder of traces, CPU runs included.

HTA (``holistictraceanalysis``) measures computation-communication overlap on
GPU kernels only; on a CPU run it finds none. :func:`as_gpu` rewrites a CPU
run's trace as HTA would see the same run on a GPU, written here from the raw
JSON (not with schedcc's reader, so that the comparison checks schedcc's
classification too): on the threads whose outermost events are all ``gloo:*``
(ProcessGroupGloo's workers) those collectives become NCCL kernels on stream
20; on the other threads, the time whose innermost event is a CPU operator
(``cat`` ``cpu_op``) with no collective call (``c10d::*``,
``_c10d_functional::*``) around it becomes computation kernels on stream 7,
one per stretch (docs/traces.md, "Exposed communication"). Each kernel gets a ``cudaLaunchKernel`` at its own start on the CPU
thread, and the ``ProfilerStep#N`` events are kept, so HTA's default window
(kernels launched before the last profiled step) applies as on a GPU run.
"""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

COMM_CALLS = ("c10d::", "_c10d_functional::", "record_param_comms")


def load(path: Path) -> dict:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def _outermost(events: list[dict]) -> list[dict]:
    out, end = [], float("-inf")
    for e in sorted(events, key=lambda e: (e["ts"], -e["dur"])):
        if e["ts"] >= end:
            out.append(e)
            end = e["ts"] + e["dur"]
    return out


def _computing(evs: list[dict]) -> list[tuple[float, float]]:
    """The stretches of one thread whose innermost event is a CPU operator outside collective calls."""
    evs = sorted(evs, key=lambda e: (e["ts"], -e["dur"]))
    stack: list[dict] = []
    own: dict[int, list] = {}          # id(event) -> [event, its interval, children's intervals, in a comm call]
    for e in evs:
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"]:
            stack.pop()
        if stack and e["ts"] + e["dur"] > stack[-1]["ts"] + stack[-1]["dur"] + 1e-3:
            stack = []                     # not nested: a new outermost event
        parent = stack[-1] if stack else None
        in_comm = e["name"].startswith(COMM_CALLS) or (parent is not None and own[id(parent)][3])
        own[id(e)] = [e, (e["ts"], e["ts"] + e["dur"]), [], in_comm]
        if parent is not None:
            own[id(parent)][2].append((e["ts"], e["ts"] + e["dur"]))
        stack.append(e)
    spans = []
    for e, (a, b), kids, in_comm in own.values():
        if e.get("cat") != "cpu_op" or in_comm:
            continue
        t = a
        for s, f in sorted(kids):
            if s > t:
                spans.append((t, min(s, b)))
            t = max(t, f)
        if t < b:
            spans.append((t, b))
    out: list[list[float]] = []
    for s, f in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], f)
        elif f > s:
            out.append([s, f])
    return [(s, f) for s, f in out]


def as_gpu(doc: dict) -> dict:
    """*doc* (a CPU run's trace) as a GPU run's; see the module docstring."""
    xs = [e for e in doc["traceEvents"] if e.get("ph") == "X" and isinstance(e.get("tid"), int)]
    by_tid: dict[int, list[dict]] = {}
    for e in xs:
        by_tid.setdefault(e["tid"], []).append(e)
    out = [e for e in xs if e["name"].startswith("ProfilerStep#")]
    corr = 0

    def kernel(name: str, e: dict, stream: int) -> None:
        nonlocal corr
        corr += 1
        out.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                    "ts": e["ts"], "dur": 0.0, "args": {"correlation": corr}})
        out.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": e["ts"],
                    "dur": e["dur"], "args": {"stream": stream, "device": 0, "correlation": corr}})

    for tid, evs in by_tid.items():
        top = _outermost(evs)
        if top and all(e["name"].startswith("gloo:") for e in top):
            for e in top:
                kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", e, 20)
            continue
        for i, (a, b) in enumerate(_computing(evs)):
            kernel(f"compute_{i}", {"ts": a, "dur": b - a}, 7)
    meta = [{"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
    return {"schemaVersion": 1, "distributedInfo": doc["distributedInfo"], "deviceProperties": [],
            "traceEvents": meta + out}


def hta_exposed(folder: Path, scratch: Path, cpu: bool) -> dict[int, float]:
    """Per rank, 100 - HTA's ``comp_comm_overlap_pctg`` for the traces in *folder* (*cpu*: rewritten
    by :func:`as_gpu` into *scratch* first)."""
    from hta.trace_analysis import TraceAnalysis
    logging.getLogger("hta").setLevel(logging.ERROR)
    files = sorted(p for p in Path(folder).iterdir() if p.name.endswith((".json", ".json.gz")))
    scratch.mkdir(parents=True, exist_ok=True)
    for p in files:
        doc = load(p)
        (scratch / p.name.replace(".gz", "")).write_text(json.dumps(as_gpu(doc) if cpu else doc))
    df = TraceAnalysis(trace_dir=str(scratch)).get_comm_comp_overlap(visualize=False)
    return {int(r): 100.0 - float(p) for r, p in zip(df["rank"], df["comp_comm_overlap_pctg"])}

"""Exposed communication per rank, as Holistic Trace Analysis defines it.

HTA's ``TraceAnalysis.get_comm_comp_overlap`` (``hta/analyzers/communication_analysis.py``)
works per rank on the whole trace file:

1. the *kernels* are the events that run on a GPU stream; a kernel whose
   name matches ``^nccl.*Kernel`` is communication, one matching
   ``^Memcpy|^Memset|^dma`` is memory (left out), and one that matches none
   of ``^nccl.*Kernel``, ``.*Memcpy``, ``^Memset``, ``.*Sync`` is computation;
2. the communication kernels' intervals are merged (a union), and so are the
   computation kernels';
3. the overlap is the time both unions cover; the overlap percentage is
   ``100 x overlap / communication``. Exposed communication is the rest:
   ``communication - overlap``, ``100 - overlap percentage`` of it.

The window is HTA's default (``include_last_profiler_step=False``): with two
or more ``ProfilerStep#N`` in the file, only the kernels launched by a CPU
event that starts before the last step does count (the last step is left out
as possibly incomplete); with fewer, the whole file.

A CPU run has no GPU stream, so HTA finds no kernel there (its figure is
NaN). The same definition applies with the CPU doing the work kernels do:

* communication "kernels" are the collectives' executions on
  ProcessGroupGloo's worker threads (``gloo:all_reduce`` ...), each its own
  launch, so the window keeps those that start before the last step;
* computation "kernels" are the time the threads that run the model spend
  inside CPU operators (``cpu_op`` events, at any depth: ``aten::linear``,
  ``autograd::engine::evaluate_function: AddmmBackward0``,
  ``Optimizer.step``), minus the time inside collective calls
  (``c10d::*``, ``_c10d_functional::*`` with their waits, and everything
  nested in them): :func:`schedcc.torch.computing.compute_spans`.

So when DDP's reducer has handed a bucket to a gloo worker and the main
thread goes on with the backward, the all-reduce is overlapped for as long
as both run; while the main thread blocks in a collective call (or in a
wait inside an FSDP hook, which is no operator) it is exposed. Only leaf
operators would not do: ``aten::mm`` records ``aten::resolve_conj`` inside
it, so the leaves of a backward GEMM cover almost none of its time. The test
suite gives HTA exactly that mapping (those intervals as kernels of two
streams, computed from the raw JSON by ``tests/hta_bridge.py``) and compares
its percentage with this module's on the same files.

Example::

    >>> e = exposure([(0, 10)], [(5, 15), (20, 25)])
    >>> e.comm_us, e.overlap_us, e.exposed_us, round(e.exposed_pct, 1)
    (15.0, 5.0, 10.0, 66.7)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schedcc.torch.kineto import RankTrace
from schedcc.torch.computing import compute_spans, is_comm_call  # noqa: F401 (is_comm_call re-exported)
from schedcc.torch.lanes import comm_kind

COMM_KERNEL = re.compile(r"^nccl.*Kernel")
MEMORY_KERNEL = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
NOT_COMPUTE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


@dataclass(frozen=True)
class Exposure:
    """One rank's communication, the part of it overlapped by computation, and the rest; microseconds."""

    rank: int
    comm_us: float
    overlap_us: float
    compute_us: float = 0.0

    @property
    def exposed_us(self) -> float:
        return self.comm_us - self.overlap_us

    @property
    def overlap_pct(self) -> float:
        """HTA's ``comp_comm_overlap_pctg`` (0 without communication)."""
        return 100.0 * self.overlap_us / self.comm_us if self.comm_us else 0.0

    @property
    def exposed_pct(self) -> float:
        return 100.0 - self.overlap_pct if self.comm_us else 0.0

    def to_json(self) -> dict:
        return {"rank": self.rank, "comm_us": self.comm_us, "compute_us": self.compute_us,
                "overlap_us": self.overlap_us, "exposed_us": self.exposed_us,
                "overlap_pct": self.overlap_pct, "exposed_pct": self.exposed_pct}


def merge(intervals) -> list[tuple[float, float]]:
    """The union of *intervals* as sorted, disjoint intervals. O(n log n)."""
    out: list[list[float]] = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1][1] = e
        elif e >= s:
            out.append([s, e])
    return [(s, e) for s, e in out]


def exposure(compute, comm, rank: int = 0) -> Exposure:
    """Steps 2 and 3 of the definition on intervals already classified. O(n log n)."""
    a, b = merge(compute), merge(comm)
    both, i, j = 0.0, 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if hi > lo:
            both += hi - lo
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return Exposure(rank, float(sum(e - s for s, e in b)), float(both), float(sum(e - s for s, e in a)))


def kernels(trace: RankTrace) -> tuple[list, list]:
    """Step 1: (computation, communication) intervals of *trace*, whole file (see the module docstring)."""
    stream_events = [e for e in trace.events if _int(e.args.get("stream")) is not None]
    compute, comm = [], []
    cut = last_step_start(trace)
    if stream_events:
        if cut is not None:  # kernels launched by a CPU event before the last step
            early = {_int(e.args.get("correlation")) for e in trace.events
                     if e.ts < cut and "correlation" in e.args and _int(e.args.get("stream")) is None}
            stream_events = [e for e in stream_events if _int(e.args.get("correlation")) in early]
        for e in stream_events:
            if COMM_KERNEL.match(e.name):
                comm.append((e.ts, e.end))
            elif not MEMORY_KERNEL.match(e.name) and not NOT_COMPUTE.match(e.name):
                compute.append((e.ts, e.end))
        return compute, comm
    by_lane: dict[tuple, list] = {}
    for e in trace.events:
        by_lane.setdefault(e.lane, []).append(e)
    hi = cut if cut is not None else float("inf")
    for lane, evs in by_lane.items():
        outer = [e for e in evs if e.depth == 0]
        if outer and all(comm_kind(e.name) for e in outer):
            comm.extend((e.ts, e.end) for e in outer if e.ts < hi)
        else:
            compute.extend(span for span in compute_spans(evs) if span[0] < hi)
    return compute, comm


def last_step_start(trace: RankTrace) -> float | None:
    """Where HTA's window ends: the start of the last ``ProfilerStep#N`` when there are two or
    more, else None (the whole file)."""
    return trace.steps[-1].start if len(trace.steps) >= 2 else None


def measured(trace: RankTrace) -> Exposure:
    """Exposed communication of one rank's trace file, HTA's definition."""
    compute, comm = kernels(trace)
    return exposure(compute, comm, trace.rank)


def _int(value) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None

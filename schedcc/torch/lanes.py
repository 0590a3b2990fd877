"""What a rank did, lane by lane: host pieces, collectives, GPU kernels, and the waits between them.

A trace (:mod:`schedcc.torch.kineto`) has *lanes*: CPU threads, and GPU
streams on GPU runs. This module sorts them and cuts them into the nodes of a
replayable step:

* **communication lanes**: threads whose outermost events are ``gloo:*``
  collectives (ProcessGroupGloo's worker threads), GPU streams that run NCCL
  kernels. Each execution is a :class:`Comm` with its kind (``allreduce``
  ...), bytes (``Input Dims`` x element size; an all-gather counts the
  gathered result) and the CPU call that *launched* it: ``c10d::allreduce_``
  and friends on CPU runs (the k-th launch of a rank enqueues its k-th
  collective: gloo's queue is first in, first out), the ``ac2g`` flow of the
  kernel on GPU runs;
* **host lanes**: the CPU threads that run operators. Each is cut into
  :class:`Piece` s at every outermost operator, at every launch, at the step
  boundaries (``ProfilerStep#N``) and around every *wait*: a stretch of at
  least :data:`MIN_WAIT_US` in which the thread records nothing and a
  collective (or, in a synchronize call, a GPU operation) of its rank ends.
  The thread waited for it: the piece after the stretch depends on it, and
  the time from its end to the thread's first event is the wake-up lag. A
  piece keeps the time after its operators (Python, dispatch) as its own;
* **GPU compute lanes**: kernels, copies and sets on the other streams, each
  a node after its launch and its stream predecessor.

A piece's ``category`` says what part of training it is: ``forward``,
``backward`` (the autograd engine's functions), ``optimizer``
(``Optimizer.step``/``zero_grad``), ``comm call`` (launching or waiting
inside a collective call) or ``between steps``.

Complexity: O(E log E) for E events.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field

from schedcc.torch.computing import compute_spans, is_comm_call
from schedcc.torch.kineto import Event, RankTrace

MIN_WAIT_US = 50.0  # a thread silent this long while a collective of its rank ends was waiting for it

_GLOO_KINDS = (("all_reduce", "allreduce"), ("allreduce", "allreduce"), ("reduce_scatter", "reduce_scatter"),
               ("all_gather", "allgather"), ("allgather", "allgather"), ("all_to_all", "alltoall"),
               ("alltoall", "alltoall"), ("broadcast", "broadcast"), ("reduce", "reduce"),
               ("gather", "allgather"), ("scatter", "broadcast"), ("send", "send"), ("recv", "recv"),
               ("barrier", "allreduce"))
_NCCL_RE = re.compile(r"^nccl.*Kernel", re.IGNORECASE)
_LAUNCH_RE = re.compile(r"^c10d::(?!.*wait)|^nccl:")
# where a thread blocks for communication or the GPU: waits, synchronisations, collective calls
# (gloo's synchronous ones), FSDP's hooks; a stretch in any other operator is preemption
_WAIT_RE = re.compile(r"wait|Wait|Synchronize|cudaMemcpy(?!Async)|^c10d::|^_c10d_functional::|^nccl:|^FSDP::|"
                      r"copy_bucket_to_grad")
_DTYPE_BYTES = {"float": 4, "float32": 4, "c10::Half": 2, "c10::BFloat16": 2, "double": 8, "long int": 8,
                "int": 4, "short int": 2, "signed char": 1, "unsigned char": 1, "bool": 1, "c10::Float8_e4m3fn": 1}
TP_MARKERS = ("Redistribute", "DTensor", "_FromTorchTensorBackward", "_ToTorchTensorBackward")


def comm_kind(name: str) -> str | None:
    """The collective an execution event runs (``gloo:all_reduce`` -> ``allreduce``), or None.

    >>> comm_kind("gloo:all_gather"), comm_kind("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"), comm_kind("aten::mm")
    ('allgather', 'reduce_scatter', None)
    >>> comm_kind("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)")
    'alltoall'
    """
    low = name.lower()
    if low.startswith("gloo:"):
        body = low[5:]
    elif _NCCL_RE.match(name):
        body = re.sub(r"^nccl(dev)?kernel_?", "", low)
    else:
        return None
    flat = body.replace("_", "")
    if flat.startswith("sendrecv"):  # grouped send/recv: how NCCL runs all_to_all (all_to_all_single)
        return "alltoall"
    for key, kind in _GLOO_KINDS:
        if body.startswith(key) or flat.startswith(key.replace("_", "")):
            return kind
    return "allreduce"


@dataclass(eq=False)
class Comm:
    """One collective as one rank ran it; times in microseconds."""

    rank: int
    event: Event
    kind: str
    bytes: float
    lane: tuple
    launch: Event | None = None
    step: int | None = None
    seq: int = -1                  # its place among the rank's collectives of its step
    group: str = "dp"
    after: "Piece | None" = None   # the host piece that ends where the launch starts
    lag_us: float = 0.0            # from that piece's end to the earliest start
    prev: "Comm | None" = None     # the collective before it on its lane
    peers: list["Comm"] = field(default_factory=list)  # the same collective on every rank (itself included)
    group_size: int = 1            # ranks in its process group (NCCL's "Group size", else the world)

    @property
    def start(self) -> float:
        return self.event.ts

    @property
    def end(self) -> float:
        return self.event.end

    @property
    def key(self) -> str:
        return f"s{self.step}.c{self.seq}"

    @property
    def transfer_us(self) -> float:
        """From the last rank's start to this rank's end: the collective itself, without waiting for peers."""
        last = max((p.start for p in self.peers), default=self.start)
        return max(self.end - max(last, self.start), 0.0)


@dataclass(eq=False)
class Piece:
    """A stretch of a host thread between two cuts, without the waits; microseconds."""

    rank: int
    lane: tuple
    start: float
    end: float
    name: str
    category: str
    step: int | None
    waits_for: list[Comm] = field(default_factory=list)
    wake_us: float = 0.0                           # from the last of those ends to this piece's start
    leaves: list[tuple[float, float]] = field(default_factory=list)  # computing time inside it (compute_spans)
    grads: list[float] = field(default_factory=list)  # DDP: gradient bytes copied into buckets here
    first_of_step: bool = False

    @property
    def dur(self) -> float:
        return self.end - self.start


@dataclass(eq=False)
class Kernel:
    """A GPU operation on a compute stream (a node of its own)."""

    rank: int
    event: Event
    lane: tuple
    after: Piece | None = None
    lag_us: float = 0.0
    step: int | None = None


@dataclass(eq=False)
class RankView:
    """One rank's lanes cut into nodes."""

    trace: RankTrace
    host_lanes: list[tuple]
    comm_lanes: list[tuple]
    gpu_lanes: list[tuple]
    pieces: list[Piece]
    comms: list[Comm]
    kernels: list[Kernel]
    window: tuple[float, float]

    @property
    def rank(self) -> int:
        return self.trace.rank


def _bytes(ev: Event) -> float:
    args = ev.args
    dims, types = args.get("Input Dims"), args.get("Input type")
    if isinstance(dims, list) and dims:
        first = dims[0]
        while isinstance(first, list) and first and isinstance(first[0], list):
            first = first[0]
        if isinstance(first, list) and all(isinstance(d, int) for d in first):
            size = _DTYPE_BYTES.get(types[0] if isinstance(types, list) and types else "float", 4)
            return float(math.prod(first) * size)
    n = args.get("In msg nelems")
    if isinstance(n, (int, float)):
        return float(n) * {"Float": 4, "Half": 2, "BFloat16": 2, "Double": 8}.get(str(args.get("dtype")), 4)
    return 0.0


def _category(ev: Event | None) -> str:
    if ev is None:
        return "forward"
    chain = [ev, *ev.ancestors()]
    names = [e.name for e in chain]
    if any(n.startswith("Optimizer.") for n in names):
        return "optimizer"
    if any(n.startswith("autograd::engine") or "Backward" in n or "backward" in n for n in names):
        return "backward"
    if _LAUNCH_RE.match(ev.name) or ev.name.startswith(("_c10d_functional::", "c10d::")):
        return "comm call"
    return "forward"


def short_name(name: str) -> str:
    """``autograd::engine::evaluate_function: AddmmBackward0`` -> ``AddmmBackward0``."""
    if name.startswith("autograd::engine::evaluate_function: "):
        name = name.split(": ", 1)[1]
    return name


def view_rank(trace: RankTrace) -> RankView:
    """Sort *trace*'s lanes and cut them into nodes (see the module docstring)."""
    lo, hi = trace.steps[0].start, trace.steps[-1].end
    by_lane: dict[tuple, list[Event]] = {}
    for e in trace.events:
        by_lane.setdefault(e.lane, []).append(e)
    comm_lanes, host_lanes, gpu_lanes = [], [], []
    for lane, evs in by_lane.items():
        outer = [e for e in evs if e.depth == 0]
        if any(e.on_gpu for e in evs):
            (comm_lanes if any(_NCCL_RE.match(e.name) for e in evs if e.on_gpu) else gpu_lanes).append(lane)
        elif outer and all(comm_kind(e.name) for e in outer):
            comm_lanes.append(lane)
        elif any(e.cat in ("cpu_op", "cuda_runtime") for e in evs) and any(e.end > lo and e.ts < hi for e in evs):
            host_lanes.append(lane)
    # the busiest GPU stream first: it is the rank's ``compute`` stream (stepgraph._gpu_stream)
    gpu_lanes.sort(key=lambda lane: -sum(max(0.0, min(e.end, hi) - max(e.ts, lo)) for e in by_lane[lane]
                                         if e.on_gpu))
    if trace.step_lane in host_lanes:  # the step thread first
        host_lanes.remove(trace.step_lane)
    host_lanes.insert(0, trace.step_lane)
    comms = _comms(trace, by_lane, comm_lanes, lo, hi)
    kernels = [Kernel(trace.rank, e, lane) for lane in gpu_lanes for e in by_lane[lane]
               if e.on_gpu and lo <= e.ts < hi]
    pieces = []
    for lane in host_lanes:
        pieces.extend(_cut(trace, lane, by_lane.get(lane, []), comms, kernels, lo, hi))
    _attach_launches(trace, pieces, comms, kernels)
    return RankView(trace, host_lanes, comm_lanes, gpu_lanes, pieces, comms, kernels, (lo, hi))


def _comms(trace: RankTrace, by_lane, comm_lanes, lo: float, hi: float) -> list[Comm]:
    """Collective executions in the window, each with its launch and its step."""
    execs: list[Comm] = []
    for lane in comm_lanes:
        prev = None
        for e in by_lane[lane]:
            kind = comm_kind(e.name) if (e.depth == 0 or e.on_gpu) else None
            if kind is None or e.ts < lo or e.ts >= hi:
                continue
            c = Comm(trace.rank, e, kind, _bytes(e), lane, prev=prev, group_size=_group_size(e, trace.world))
            if kind == "allgather" and not e.on_gpu:
                c.bytes *= trace.world
            execs.append(c)
            prev = c
    host = [e for e in trace.events if not e.on_gpu and e.lane not in comm_lanes]
    if any(c.event.on_gpu for c in execs):  # GPU: the launch is the flow's CPU end
        by_corr = {id(g): corr for corr, g in trace.flows.items()}
        for c in execs:
            corr = by_corr.get(id(c.event))
            c.launch = trace.launches.get(corr) if corr is not None else None
    else:  # CPU: the k-th enqueue launches the k-th collective (gloo's queue is first in, first out)
        launches = sorted((e for e in host if _LAUNCH_RE.match(e.name) and not _inner_launch(e)
                           and lo <= e.ts < hi), key=lambda e: e.ts)
        j = 0
        for c in sorted(execs, key=lambda c: c.start):
            if j < len(launches) and launches[j].ts <= c.start:
                c.launch = launches[j]
                j += 1
    starts = [s.start for s in trace.steps]
    for c in execs:
        t = c.launch.ts if c.launch is not None else c.start
        k = bisect.bisect_right(starts, t) - 1
        c.step = trace.steps[k].number if k >= 0 and t < trace.steps[k].end else None
        if c.launch is not None and any(m in a.name for a in [c.launch, *c.launch.ancestors()] for m in TP_MARKERS):
            c.group = "tp"
    kept = sorted((c for c in execs if c.step is not None and c.launch is not None),
                  key=lambda c: (c.launch.ts, c.start))
    seq: dict[int, int] = {}
    for c in kept:
        c.seq = seq.get(c.step, 0)
        seq[c.step] = c.seq + 1
    return kept


def _group_size(e: Event, world: int) -> int:
    size = e.args.get("Group size")
    return size if isinstance(size, int) and not isinstance(size, bool) and 1 <= size <= world else world


def _inner_launch(e: Event) -> bool:
    """A launch inside another launch (``c10d::allreduce_`` under ``_c10d_functional::all_reduce``) counts once."""
    return any(_LAUNCH_RE.match(a.name) for a in e.ancestors())


def _cut(trace: RankTrace, lane: tuple, evs: list[Event], comms: list[Comm], kernels: list[Kernel],
         lo: float, hi: float) -> list[Piece]:
    """The pieces of one host thread between *lo* and *hi* (see the module docstring)."""
    evs = [e for e in evs if e.end > lo and e.ts < hi and not e.on_gpu]
    step_thread = lane == trace.step_lane
    bounds = sorted({lo, hi} | {t for e in evs if not _is_step(e) for t in (e.ts, e.end) if lo <= t <= hi}
                    | ({t for s in trace.steps for t in (s.start, s.end)} if step_thread else set()))
    ends = sorted([(c.end, c) for c in comms] + [(k.event.end, k) for k in kernels], key=lambda x: x[0])
    end_times = [t for t, _ in ends]
    starts_at = sorted((e.ts, k) for k, e in enumerate(evs))
    waits: list[tuple[float, float, list, float]] = []  # (a, b, what it waited for, wake lag)
    for a, b in zip(bounds, bounds[1:]):
        if b - a < MIN_WAIT_US:
            continue
        cover = _cover(evs, starts_at, a, b)
        if cover is not None and not _is_step(cover) and not _WAIT_RE.search(cover.name):
            continue  # inside an operator that computes: the thread was preempted, not waiting
        i, j = bisect.bisect_right(end_times, a), bisect.bisect_right(end_times, b)
        sync = cover is not None and cover.cat in ("cuda_runtime", "cuda_driver")
        waited = [x for _, x in ends[i:j] if (isinstance(x, Comm) and x.launch is not None and x.launch.ts < a)
                  or (sync and isinstance(x, Kernel))]
        if waited:
            last = max(x.end if isinstance(x, Comm) else x.event.end for x in waited)
            waits.append((a, b, waited, b - last))
    units = [e for e in evs if _is_unit(e)]
    cuts = {lo, hi} | {max(e.ts, lo) for e in units}
    cuts |= {c.launch.ts for c in comms if c.launch is not None and c.launch.lane == lane}
    for _corr, cpu in trace.launches.items():
        if cpu.lane == lane and lo <= cpu.ts < hi:
            cuts.add(cpu.ts)
    if step_thread:
        cuts |= {t for s in trace.steps for t in (s.start, s.end)}
    for a, b, _, _ in waits:
        cuts |= {a, b}
    cuts = sorted(t for t in cuts if lo <= t <= hi)
    wait_at = {a: w for w in waits for a in (w[0],)}
    starts = [s.start for s in trace.steps]
    unit_starts = [max(e.ts, lo) for e in units]
    leaves = compute_spans(evs, lo, hi)
    step_ends = {s.end for s in trace.steps} if step_thread else set()
    pieces: list[Piece] = []
    pending: tuple | None = None
    for a, b in zip(cuts, cuts[1:]):
        at = a
        if a in wait_at and wait_at[a][1] == b:
            pending = wait_at[a]
            if b != hi and b not in step_ends:
                continue
            # the wait closes a step (a synchronize at its end) or the window: the step's last piece
            # is the wake-up, an empty piece of the step that waited
            a = b
        k = bisect.bisect_right(unit_starts, at) - 1
        unit = units[k] if k >= 0 and units[k].end > at else None
        s = bisect.bisect_right(starts, at) - 1
        in_step = step_thread and s >= 0 and at < trace.steps[s].end
        step = trace.steps[s].number if s >= 0 and (in_step or not step_thread) else None
        category = _category(unit) if (in_step or not step_thread) else "between steps"
        p = Piece(trace.rank, lane, a, b, short_name(unit.name) if unit is not None else "(host)", category, step,
                  first_of_step=in_step and a == trace.steps[s].start)
        if pending is not None:
            p.waits_for, p.wake_us = pending[2], pending[3]
            pending = None
        i = bisect.bisect_left(leaves, (a, -math.inf))
        while i > 0 and leaves[i - 1][1] > a:
            i -= 1
        while i < len(leaves) and leaves[i][0] < b:
            s0, e0 = max(leaves[i][0], a), min(leaves[i][1], b)
            if e0 > s0:
                p.leaves.append((s0, e0))
            i += 1
        pieces.append(p)
    _grads(pieces, evs)
    return pieces


def _is_step(e: Event) -> bool:
    return e.name.startswith("ProfilerStep#")


def _is_unit(e: Event) -> bool:
    """An outermost operator: a CPU op or runtime call with no operator around it; an annotation
    with no operator inside (annotations around operators are looked through)."""
    if _is_step(e):
        return False
    if any(a.cat in ("cpu_op", "cuda_runtime") for a in e.ancestors()):
        return False
    return e.cat in ("cpu_op", "cuda_runtime", "cuda_driver") or e.leaf


def _comm_call(e: Event) -> bool:
    return is_comm_call(e.name)


def _cover(evs: list[Event], starts_at: list, a: float, b: float) -> Event | None:
    """The innermost event around the stretch [a, b] of a thread, or None."""
    k = bisect.bisect_right(starts_at, (a, math.inf)) - 1
    e = evs[starts_at[k][1]] if k >= 0 else None
    while e is not None and e.end < b:
        e = e.parent
    return e


def _grads(pieces: list[Piece], evs: list[Event]) -> None:
    """DDP: the bytes of each gradient its reducer copies into a bucket (``mul_out``), on the piece doing it."""
    outs = sorted((e.ts, _bytes(e)) for e in evs if e.name == "torch::distributed::reducer::mul_out")
    if not outs:
        return
    starts = [p.start for p in pieces]
    for t, size in outs:
        k = bisect.bisect_right(starts, t) - 1
        if k >= 0:
            pieces[k].grads.append(size)


def _attach_launches(trace: RankTrace, pieces: list[Piece], comms: list[Comm], kernels: list[Kernel]) -> None:
    """Each launch's piece (the one ending where the launch starts) and its lag to the start it allows."""
    ends: dict[tuple, list[tuple[float, int]]] = {}
    for i, p in enumerate(pieces):
        ends.setdefault(p.lane, []).append((p.end, i))

    def before(ev: Event) -> Piece | None:
        """The last piece of the launching thread that ends by the launch (normally: exactly there)."""
        lane = ends.get(ev.lane, [])
        k = bisect.bisect_right(lane, (ev.ts, math.inf)) - 1
        return pieces[lane[k][1]] if k >= 0 else None

    lags = []
    for c in comms:
        c.after = before(c.launch)
        if c.after is not None:
            lags.append((c, c.start - c.after.end, c.prev is None or c.prev.end <= c.launch.ts))
    by_corr = {id(k): corr for corr, k in trace.flows.items()}
    starts = [p.start for p in pieces]
    kprev: dict[tuple, Kernel] = {}
    for k in sorted(kernels, key=lambda k: k.event.ts):
        corr = by_corr.get(id(k.event))
        launch = trace.launches.get(corr) if corr is not None else None
        prev = kprev.get(k.lane)
        kprev[k.lane] = k
        if launch is None:
            continue
        k.after = before(launch)
        i = bisect.bisect_right(starts, launch.ts) - 1
        k.step = pieces[i].step if i >= 0 else None
        if k.after is not None:
            lags.append((k, k.event.ts - k.after.end, prev is None or prev.event.end <= launch.ts))
    free = sorted(lag for _, lag, bound in lags if bound)
    typical = free[len(free) // 2] if free else 0.0
    for x, lag, bound in lags:
        x.lag_us = max(lag, 0.0) if bound else max(min(lag, typical), 0.0)

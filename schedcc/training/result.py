"""Typed results of scheduling a training step, and the metrics behind them.

Times are microseconds. With several iterations simulated, the numbers
describe one steady-state step: the window from the end of one iteration to
the end of the next (the middle one of three by default), as a profiler
would show a step in the middle of training.

Definitions (per rank, inside the window):

* compute time: the union of compute-stream intervals;
* communication time: the union of all communication-channel intervals;
* exposed communication: communication time during which nothing computes;
  per group (``tp``, ``ep``, ``cp``, ``pp``, ``dp``, named groups) the same
  for that group's channel alone (groups overlapping one another each count
  the shared time, so the groups' numbers may add up to more than the total);
* overlap ratio (Holistic Trace Analysis): time computing while
  communicating / time communicating;
* bubble: the fraction of the window the compute stream is idle;
* peak activation memory: the most ``act`` bytes alive at once, a value
  living from the end of its producer to the end of its last reader.

The summary takes the worst rank for times and memory, the mean for bubble,
and total overlap / total communication for the ratio.

Example::

    >>> union_length([(0, 4), (2, 6), (8, 9)])
    7
    >>> overlap_length([(0, 4)], [(2, 6)])
    2
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from schedcc.training.costs import TICKS_PER_US
from schedcc.training.intervals import overlap_length, union_length
from schedcc.training.policies import DATA_EDGES
from schedcc.training.simulate import Run


def _clip(intervals, lo: int, hi: int) -> list[tuple[int, int]]:
    return [(max(s, lo), min(e, hi)) for s, e in intervals if e > lo and s < hi]


@dataclass
class RankStats:
    """One rank's share of a step; times in microseconds."""

    rank: int
    compute_us: float
    comm_us: float
    exposed_comm_us: float
    overlap_ratio: float
    bubble: float
    peak_activation_bytes: float
    utilisation: dict[str, float] = field(default_factory=dict)  # stream -> busy fraction
    comm_by_group: dict[str, float] = field(default_factory=dict)  # group -> its channel's busy time
    exposed_by_group: dict[str, float] = field(default_factory=dict)  # group -> ... while nothing computes


@dataclass
class ScheduledOp:
    """One operator of the simulated iterations as it ran."""

    name: str
    rank: int
    stream: str
    start_us: float
    end_us: float
    iteration: int
    kind: str
    args: dict = field(default_factory=dict)


@dataclass
class StepResult:
    """What :func:`schedcc.training.schedule` returns; times in microseconds."""

    policy: str
    target: str
    step_time_us: float
    compute_us: float
    comm_us: float
    exposed_comm_us: float
    overlap_ratio: float
    bubble: float
    peak_activation_bytes: dict[int, float]
    ranks: list[RankStats]
    iterations: int
    window_us: tuple[float, float]
    operators: int
    run: Run | None = field(default=None, repr=False, compare=False)
    note: str = ""  # what the policy did beyond its rule (critical-path keeping the program order)
    comm_by_group: dict[str, float] = field(default_factory=dict)  # worst rank per group
    exposed_by_group: dict[str, float] = field(default_factory=dict)  # worst rank per group

    @property
    def exact(self):
        """The exact solver's :class:`~schedcc.sched.exact.ExactInfo` (ticks), None without it."""
        return self.run.exact if self.run is not None else None

    @property
    def exposed_fraction(self) -> float:
        """Exposed communication / communication time (0 when there is none)."""
        return self.exposed_comm_us / self.comm_us if self.comm_us else 0.0

    def ops(self) -> list[ScheduledOp]:
        """Every operator of every simulated iteration, by start time."""
        if self.run is None:
            return []
        r = self.run
        out = []
        for n, d in r.nodes():
            args = {k: d[k] for k in ("flops", "bytes", "group", "layer") if d.get(k)}
            if d.get("members"):
                args["members"] = d["members"]
            instr = d.get("instr")
            if instr is not None and instr.loc is not None:
                args["loc"] = str(instr.loc)
            out.append(ScheduledOp(d["name"], d["rank"], d["stream"], r.start[n] / TICKS_PER_US,
                                   r.end[n] / TICKS_PER_US, d["iteration"], d["kind"], args))
        out.sort(key=lambda o: (o.start_us, o.rank, o.stream))
        return out

    def to_json(self, summary: bool = False) -> dict:
        """The numbers as JSON (docs/json.md); *summary* leaves out the per-rank rows."""
        data = {f.name: getattr(self, f.name) for f in fields(self)
                if f.name not in ("run", "ranks", "peak_activation_bytes") and (f.name != "note" or self.note)}
        data["window_us"] = list(self.window_us)
        data["exposed_fraction"] = self.exposed_fraction
        data["peak_activation_bytes"] = {str(k): v for k, v in self.peak_activation_bytes.items()}
        if not summary:
            data["ranks"] = [asdict(s) for s in self.ranks]
        if self.exact is not None:  # makespans of all the simulated iterations, in microseconds
            data["exact"] = exact_json_us(self.exact)
        return data


def exact_json_us(info) -> dict:
    """The ``exact`` object of a step's JSON: the solver's ticks as microseconds."""
    data = info.to_json()
    for key in ("makespan", "lower_bound", "heuristic_makespan"):
        data[key] = data[key] / TICKS_PER_US
    data["units"] = "us"
    return data


def window_of(run: Run) -> tuple[int, int]:
    """The steady-state step: [end of iteration I-3, end of iteration I-2] for I >= 3
    (I = 2: the second iteration; I = 1: from 0 to the end)."""
    # An iteration ends when its last parameter update ends (operators nothing
    # waits for, like an embedding's backward, may drift later under reordering).
    ends: dict[int, int] = {}
    is_update = {n: d.get("update") is not None for n, d in run.nodes()}
    updates = any(is_update.values())
    for n, e in run.end.items():
        if updates and not is_update[n]:
            continue
        k = n[0]
        if e > ends.get(k, -1):
            ends[k] = e
    it = run.iterations
    if it == 1:
        return 0, ends[0]
    if it == 2:
        return ends[0], ends[1]
    return ends[it - 3], ends[it - 2]


def summarize(run: Run, policy: str, target: str, operators: int) -> StepResult:
    """Measure *run* as described in the module docstring."""
    lo, hi = window_of(run)
    width = max(hi - lo, 1)
    by_rank: dict[int, dict[str, list[tuple[int, int]]]] = {}
    start, end = run.start, run.end
    for n, d in run.nodes():
        s, e = start[n], end[n]
        streams = by_rank.setdefault(d["rank"], {})
        if e > lo and s < hi:  # only what the window sees
            streams.setdefault(d["stream"], []).append((s, e))
    memory = peak_memory(run)
    stats: list[RankStats] = []
    for rank in sorted(by_rank):
        streams = {k: _clip(v, lo, hi) for k, v in by_rank[rank].items()}
        compute = streams.get("compute", [])
        comm = [iv for k, v in streams.items() if k != "compute" for iv in v]
        comp_t, comm_t = union_length(compute), union_length(comm)
        both = overlap_length(compute, comm)
        by_group, exposed_group = {}, {}
        for k, v in streams.items():
            if k.startswith("comm:"):
                busy = union_length(v)
                by_group[k[5:]] = busy / TICKS_PER_US
                exposed_group[k[5:]] = (busy - overlap_length(compute, v)) / TICKS_PER_US
        stats.append(RankStats(
            rank=rank, compute_us=comp_t / TICKS_PER_US, comm_us=comm_t / TICKS_PER_US,
            exposed_comm_us=(comm_t - both) / TICKS_PER_US,
            overlap_ratio=both / comm_t if comm_t else 0.0,
            bubble=1 - comp_t / width,
            peak_activation_bytes=memory.get(rank, 0.0),
            utilisation={k: union_length(v) / width for k, v in sorted(streams.items())},
            comm_by_group=dict(sorted(by_group.items())), exposed_by_group=dict(sorted(exposed_group.items()))))
    total_comm = sum(s.comm_us for s in stats)
    groups = sorted({g for s in stats for g in s.comm_by_group}, key=group_order)
    return StepResult(
        policy=policy, target=target, step_time_us=width / TICKS_PER_US,
        compute_us=max(s.compute_us for s in stats), comm_us=max(s.comm_us for s in stats),
        exposed_comm_us=max(s.exposed_comm_us for s in stats),
        overlap_ratio=(sum(s.overlap_ratio * s.comm_us for s in stats) / total_comm) if total_comm else 0.0,
        bubble=sum(s.bubble for s in stats) / len(stats),
        peak_activation_bytes={s.rank: s.peak_activation_bytes for s in stats},
        ranks=stats, iterations=run.iterations, window_us=(lo / TICKS_PER_US, hi / TICKS_PER_US),
        operators=operators, run=run,
        comm_by_group={g: max(s.comm_by_group.get(g, 0.0) for s in stats) for g in groups},
        exposed_by_group={g: max(s.exposed_by_group.get(g, 0.0) for s in stats) for g in groups})


def group_order(group: str) -> tuple:
    """tp, ep, cp, pp, dp first (innermost to outermost), then named groups by name."""
    known = ("tp", "ep", "cp", "pp", "dp")
    return (known.index(group), "") if group in known else (len(known), group)


def peak_memory(run: Run) -> dict[int, float]:
    """Per rank, the most activation bytes alive at once (sweep over alloc/free events)."""
    events: dict[int, list[tuple[int, float]]] = {}
    g, end = run.graph, run.end
    keys = g.keys
    for i, op in enumerate(g.ops):
        d = op.payload
        size = d.get("act", 0.0)
        if not size:
            continue
        n = keys[i]
        born = dies = end[n]
        for e in g.succ[i]:
            s = keys[e.dst]
            if end[s] > dies and e.kind in DATA_EDGES:
                dies = end[s]
        ev = events.setdefault(d["rank"], [])
        ev.append((born, size))
        ev.append((dies, -size))
    out: dict[int, float] = {}
    for rank, ev in events.items():
        ev.sort()  # by time; at the same time frees (negative) before allocations
        live = best = 0.0
        for _, delta in ev:
            live += delta
            best = max(best, live)
        out[rank] = best
    return out

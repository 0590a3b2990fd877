"""Replay a traced job with schedcc's scheduler and compare it with what was measured.

:func:`replay` reads the traces, builds the step graph
(:mod:`schedcc.torch.stepgraph`) and list-schedules it with the training
simulator (:func:`schedcc.training.simulate.run_plan`) under the program
order every lane kept (``fifo``; a collective stream gets as many channels
as the rank had worker threads). Nothing in the replay is a measured start
time: every node starts when what it depends on allows, so the replayed
step is the measured one only if the dependences found explain it. The
durations are measured: a host piece's (its operators and the time between
them), a kernel's, a collective's transfer; the waits are not: a thread
waits until the collective it needs ends (plus its measured wake-up), and a
collective until the last rank has launched it.

Reported per profiled step (``ProfilerStep#N``) and rank: the measured and
the replayed duration (first piece of the step to its last), and per rank
the exposed communication (:mod:`schedcc.torch.exposed`) of the measured
trace and of the replay.

Example (the traces of ``bench/make_traces.py`` kept in ``tests/data/traces``)::

    >>> r = replay(["tests/data/traces/ddp"])
    >>> abs(r.error) < 0.05, len(r.steps), len(r.measured_exposure)
    (True, 3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from schedcc._perf import paused_gc
from schedcc.target import Target
from schedcc.torch.exposed import Exposure, exposure, measured
from schedcc.torch.kineto import RankTrace, read_traces
from schedcc.torch.lanes import Comm, Kernel, Piece
from schedcc.torch.stepgraph import TraceStep, build_step
from schedcc.training.costs import TICKS_PER_US
from schedcc.training.policies import Plan, make_plan
from schedcc.training.simulate import Run, run_plan


@dataclass
class StepTimes:
    """One profiled step: per rank, measured and replayed microseconds."""

    number: int
    measured_us: list[float]
    replayed_us: list[float]

    @property
    def measured_mean(self) -> float:
        return sum(self.measured_us) / len(self.measured_us)

    @property
    def replayed_mean(self) -> float:
        return sum(self.replayed_us) / len(self.replayed_us)

    @property
    def error(self) -> float:
        return self.replayed_mean / self.measured_mean - 1 if self.measured_mean else 0.0


@dataclass
class Timed:
    """A scheduled step of a trace: the run and every node's times in microseconds."""

    step: TraceStep
    run: Run
    policy: str
    start: dict[str, float] = field(default_factory=dict)   # node name -> us (a collective: when its rank arrived)
    end: dict[str, float] = field(default_factory=dict)

    @property
    def span_us(self) -> float:
        return max(self.end.values(), default=0.0) - min(self.start.values(), default=0.0)


@dataclass
class Replay:
    """What :func:`replay` returns."""

    step: TraceStep
    timed: Timed
    steps: list[StepTimes]
    measured_exposure: list[Exposure]
    replayed_exposure: list[Exposure]

    @property
    def traces(self) -> list[RankTrace]:
        return [v.trace for v in self.step.views]

    @property
    def measured_us(self) -> float:
        """The profiled steps, mean over ranks, summed."""
        return sum(s.measured_mean for s in self.steps)

    @property
    def replayed_us(self) -> float:
        return sum(s.replayed_mean for s in self.steps)

    @property
    def error(self) -> float:
        """Replayed / measured - 1 over all the profiled steps."""
        return self.replayed_us / self.measured_us - 1 if self.measured_us else 0.0

    @property
    def worst_step_error(self) -> float:
        return max((abs(s.error) for s in self.steps), default=0.0)

    def to_json(self) -> dict:
        return {"files": [t.path for t in self.traces], "ranks": len(self.traces),
                "backend": self.traces[0].backend,
                "measured_us": self.measured_us, "replayed_us": self.replayed_us, "error": self.error,
                "steps": [{"step": s.number, "measured_us": s.measured_us, "replayed_us": s.replayed_us,
                           "error": s.error} for s in self.steps],
                "exposed_communication": {"definition": "Holistic Trace Analysis get_comm_comp_overlap",
                                          "measured": [e.to_json() for e in self.measured_exposure],
                                          "replayed": [e.to_json() for e in self.replayed_exposure]},
                "collective_fit": _fit_json(self.step)}


def _fit_json(step: TraceStep) -> dict | None:
    f = step.fit
    if f is None:
        return None
    return {"alpha_us": f.alpha_us, "bandwidth_bytes_per_s": f.bandwidth, "samples": f.samples,
            "median_error": f.median_error}


def replay(traces: list[RankTrace] | list[str | Path], target: Target | str | None = None,
           subset: bool = False) -> Replay:
    """Read (when given paths) and replay a traced job; see the module docstring.

    *traces* are one file (or folder of files) per rank, or the ranks' traces
    already read (:func:`schedcc.torch.kineto.read_traces`). *target*: the
    cluster model for what the trace did not measure (default: fitted to it). *subset*: the
    files may be some ranks of a larger job (:func:`~schedcc.torch.kineto.read_traces`)."""
    with paused_gc():
        if traces and not isinstance(traces[0], RankTrace):
            traces = read_traces(list(traces), subset=subset)
        step = build_step(list(traces), target)
        timed = schedule_step(step, "fifo")
        return Replay(step, timed, step_times(step, timed), [measured(v.trace) for v in step.views],
                      replayed_exposure(step, timed))


def plan_for(step: TraceStep, graph, policy: str, **options) -> Plan:
    """*policy*'s plan of *graph*, with the trace's collective worker threads as channels."""
    from schedcc.training.graph import TrainingGraph
    tg = graph if isinstance(graph, TrainingGraph) else step.graph
    plan = make_plan(tg, policy, **options)
    return _with_channels(plan, step.channels)


def _with_channels(plan: Plan, channels: dict) -> Plan:
    fallback = _with_channels(plan.fallback, channels) if plan.fallback is not None else None
    return replace(plan, channels={**channels, **plan.channels}, fallback=fallback)


def schedule_step(step: TraceStep, policy: str = "fifo", graph=None, **options) -> Timed:
    """List-schedule *step* (or a rewritten *graph* of it) under *policy*; one iteration: the
    profiled steps, as traced. A policy with a fallback (critical-path) keeps the faster."""
    tg = graph if graph is not None else step.graph
    plan = plan_for(step, tg, policy, **options)
    best = _timed(step, run_plan(tg, plan, iterations=1), policy)
    if plan.fallback is not None:
        other = _timed(step, run_plan(tg, plan.fallback, iterations=1), policy)
        if other.span_us < best.span_us:
            best = other
    return best


def _timed(step: TraceStep, run: Run, policy: str) -> Timed:
    """Node times in microseconds; a collective starts when its own rank arrived (its launch and
    its worker allowed it), as a profiler shows it, not when the last rank did."""
    g = run.graph
    start: dict[str, float] = {}
    end: dict[str, float] = {}
    for i, op in enumerate(g.ops):
        start[op.name] = run.start[g.keys[i]] / TICKS_PER_US
        end[op.name] = run.end[g.keys[i]] / TICKS_PER_US
    for i, op in enumerate(g.ops):
        d = op.payload
        if d["kind"] != "comm":
            continue
        own = [run.start[g.keys[dep.src]] + dep.latency for dep in g.pred[i]
               if g.ops[dep.src].payload["rank"] == d["rank"]]
        if own:
            start[op.name] = min(max(own) / TICKS_PER_US, start[op.name])
    return Timed(step, run, policy, start, end)


def step_times(step: TraceStep, timed: Timed) -> list[StepTimes]:
    """Per profiled step and rank: the measured duration and the replayed one (the start of the step's
    first piece on the step thread to the end of its last)."""
    spans: dict[tuple[int, int], list[float]] = {}
    for name, obj in step.nodes.items():
        if isinstance(obj, Piece) and obj.step is not None and obj.lane == step.view_of(obj.rank).trace.step_lane \
                and obj.category != "between steps" and name in timed.start:
            key = (obj.rank, obj.step)
            lo, hi = spans.get(key, (float("inf"), float("-inf")))
            spans[key] = (min(lo, timed.start[name]), max(hi, timed.end[name]))
    out = []
    for s in step.views[0].trace.steps:
        measured_us = [next(x.dur for x in v.trace.steps if x.number == s.number) for v in step.views]
        replayed = [spans[(v.rank, s.number)][1] - spans[(v.rank, s.number)][0] if (v.rank, s.number) in spans
                    else 0.0 for v in step.views]
        out.append(StepTimes(s.number, measured_us, replayed))
    return out


def replayed_exposure(step: TraceStep, timed: Timed, graph=None) -> list[Exposure]:
    """Exposed communication of a schedule, the definition of :mod:`schedcc.torch.exposed`: a host
    piece's computing operators move with it; a collective spans its rank's arrival to its end.
    The window is HTA's: the last profiled step left out when there are two or more."""
    compute: dict[int, list] = {v.rank: [] for v in step.views}
    comm: dict[int, list] = {v.rank: [] for v in step.views}
    steps = step.views[0].trace.steps
    last = steps[-1].number if len(steps) >= 2 else None
    g = timed.run.graph
    for op in g.ops:
        d = op.payload
        name = op.name
        if last is not None and d.get("step") is not None and d["step"] >= last:
            continue
        obj = step.nodes.get(d.get("name", name))
        if name not in timed.start:
            continue
        s, e = timed.start[name], timed.end[name]
        if d["kind"] == "comm":
            comm[d["rank"]].append((s, e))
        elif isinstance(obj, Piece) and obj.lane in step.view_of(obj.rank).host_lanes \
                and not step.view_of(obj.rank).gpu_lanes:
            shift = s - (obj.start - step.origin)
            compute[d["rank"]].extend((a - step.origin + shift, b - step.origin + shift) for a, b in obj.leaves)
        elif isinstance(obj, Kernel):
            compute[d["rank"]].append((s, e))
    return [exposure(compute[r], comm[r], r) for r in sorted(compute)]


def comm_of(step: TraceStep, name: str) -> Comm | None:
    obj = step.nodes.get(name)
    return obj if isinstance(obj, Comm) else None

"""Replayed traces and their what-ifs as timelines and Chrome traces.

The same pictures as a scheduled training step (:mod:`schedcc.viz.training`):
one lane per rank and stream (``compute``: a CPU run's main thread, ``host``
on GPU runs; ``comm:dp``: the collectives' worker threads or NCCL streams),
bars coloured by phase (forward, backward, optimizer, communication), dashed
lines where rank 0's profiled steps (``ProfilerStep#N``) begin. The Chrome
trace has one process per rank, one thread per stream, an event per node
with its step, phase and (for a replay) the measured start and duration,
and flow arrows for the waits between streams.

Example (the DDP traces kept in the tests)::

    >>> from schedcc.torch.replay import replay
    >>> bars, lanes, marks = replay_bars(replay(["tests/data/traces/ddp"]).timed)
    >>> lanes, [m.label for m in marks]
    (['rank 0 compute', 'rank 0 comm:dp', 'rank 1 compute', 'rank 1 comm:dp'], ['step #2', 'step #3', 'step #4'])
"""

from __future__ import annotations

from schedcc.torch.lanes import Comm, Kernel, Piece
from schedcc.torch.replay import Timed
from schedcc.viz.chrome_trace import TraceEvent, write_chrome_trace
from schedcc.viz.timeline import Bar, Mark, write_timeline
from schedcc.viz.training import COLORS, LEGEND, _category, _lane_key
from schedcc.training.policies import DATA_EDGES


def _label(timed: Timed, name: str, d: dict) -> str:
    obj = timed.step.nodes.get(name)
    if isinstance(obj, Piece):
        return obj.name
    if isinstance(obj, (Comm, Kernel)):
        return obj.event.name
    if d.get("members"):
        return f"{d['name']} ({len(d['members'])} gradients)"
    return d.get("name", name)


def _nodes(timed: Timed):
    """(name, attributes) of every drawable node (the idle lead-ins left out)."""
    for op in timed.run.graph.ops:
        d = op.payload
        if d.get("phase") == "idle" or op.name not in timed.start:
            continue
        yield op.name, d


def replay_bars(timed: Timed) -> tuple[list[Bar], list[str], list[Mark]]:
    """Bars, lanes and step marks (microseconds from the job's first event)."""
    bars = []
    for name, d in _nodes(timed):
        s, e = timed.start[name], timed.end[name]
        if e <= s:
            continue
        step = f", step #{d['step']}" if d.get("step") is not None else ""
        bars.append(Bar(f"rank {d['rank']} {d['stream']}", s, e, "", _category(d),
                        f"{_label(timed, name, d)}{step}: {s / 1000:,.3f}-{e / 1000:,.3f} ms"))
    lanes = sorted({b.lane for b in bars}, key=_lane_key)
    marks = []
    first: dict[int, float] = {}
    for name, obj in timed.step.nodes.items():
        if isinstance(obj, Piece) and obj.rank == 0 and obj.first_of_step and name in timed.start:
            first[obj.step] = min(first.get(obj.step, float("inf")), timed.start[name])
    marks = [Mark(t, f"step #{n}") for n, t in sorted(first.items())]
    return bars, lanes, marks


def write_replay_timeline(path: str, timed: Timed, title: str, inputs: tuple[str, ...] = ()) -> str:
    bars, lanes, marks = replay_bars(timed)
    return write_timeline(path, bars, lanes, title, "us", COLORS, inputs, legend=LEGEND, marks=marks)


def replay_events(timed: Timed) -> tuple[list[TraceEvent], list[tuple[str, str]]]:
    events, ids = [], {}
    for i, (name, d) in enumerate(_nodes(timed)):
        s, e = timed.start[name], timed.end[name]
        args = {"node": name, "phase": _category(d)}
        if d.get("step") is not None:
            args["step"] = d["step"]
        if d.get("bytes"):
            args["bytes"] = d["bytes"]
        if d.get("members"):
            args["members"] = d["members"]
        seen = timed.step.measured.get(name)
        if seen is not None and timed.policy == "fifo":
            args["measured_start_us"], args["measured_dur_us"] = round(seen[0], 3), round(seen[1] - seen[0], 3)
        ids[name] = f"n{i}"
        events.append(TraceEvent(_label(timed, name, d), f"rank {d['rank']}", d["stream"], s, e - s, args,
                                 _category(d), ids[name]))
    g = timed.run.graph
    flows = []
    for dep in g.deps:
        a, b = g.ops[dep.src], g.ops[dep.dst]
        da, db = a.payload, b.payload
        if dep.kind in DATA_EDGES and da["rank"] == db["rank"] and da["stream"] != db["stream"] \
                and a.name in ids and b.name in ids:
            flows.append((ids[a.name], ids[b.name]))
    return events, flows


def write_replay_trace(path: str, timed: Timed, metadata: dict, inputs: tuple[str, ...] = ()) -> None:
    events, flows = replay_events(timed)
    write_chrome_trace(path, events, flows, metadata, inputs)

"""Training schedules as Chrome traces and timelines (through :mod:`schedcc.viz`).

One process per rank, one thread per stream (``compute``, ``comm:dp`` ...),
an ``X`` event per operator with its real duration in microseconds and its
arguments (FLOPs, bytes, group), and flow arrows for the dependences that
cross streams. The timeline draws ranks x time with compute and
communication in different colours; white space is the bubble.

Example::

    >>> from schedcc.training.pipeline import evaluate_named
    >>> events, flows = pipeline_events(evaluate_named("1f1b", 2, 2))
    >>> [(e.process, e.name, e.start_us) for e in events][:2]
    [('rank 0', '0F0', 0.0), ('rank 0', '0F1', 1.0)]
"""

from __future__ import annotations

from schedcc.viz.chrome_trace import TraceEvent, write_chrome_trace
from schedcc.viz.timeline import Bar, Focus, Mark, write_timeline
from schedcc.training.costs import TICKS_PER_US
from schedcc.training.pipeline import PipelineResult
from schedcc.training.result import StepResult

# Distinct hues: forward and backward must be told apart at a glance, communication stands out.
COLORS = {"forward": "#2f6db5", "backward": "#f08a24", "weight grad": "#3a9a48", "optimizer": "#8c5ba8",
          "compute": "#2f6db5", "comm:dp": "#d62f3c", "comm:tp": "#c79a00", "comm:pp": "#1f9e96",
          "comm:ep": "#e0609a", "comm:cp": "#7a6a55", "F": "#2f6db5", "B": "#c4661f", "I": "#f08a24",
          "W": "#3a9a48", "OVERLAP_F_B": "#8c5ba8", "transfer": "#1f9e96", "comm call": "#9a9a9a",
          "between steps": "#cfcfcf", "host": "#6f8faf"}
# The legend reads in the order of a step: forward, backward, update, then communication.
LEGEND = ["forward", "backward", "weight grad", "optimizer", "comm call", "between steps", "host", "comm:tp",
          "comm:ep", "comm:cp", "comm:pp", "comm:dp", "F", "B", "I", "W", "OVERLAP_F_B", "transfer"]


def _category(d: dict) -> str:
    if d["kind"] == "comm":
        return d["stream"] if d["stream"].startswith("comm:") else "comm:" + str(d.get("group") or "dp")
    if d.get("phase"):
        return d["phase"]
    op = d["opcode"]
    if d.get("update") is not None:
        return "optimizer"
    if op.endswith("_w"):
        return "weight grad"
    if op.endswith("_bwd"):
        return "backward"
    return "forward"


def step_events(result: StepResult) -> tuple[list[TraceEvent], list[tuple[str, str]]]:
    """Trace events and flows of every simulated iteration of *result*."""
    run = result.run
    events: list[TraceEvent] = []
    ids: dict = {}
    multi = run.iterations > 1
    for i, (n, d) in enumerate(run.nodes()):
        keys = ("bytes", "group", "ranks", "layer") if d["kind"] == "comm" else ("flops", "bytes", "act", "layer")
        args = {k: d[k] for k in keys if d.get(k)}
        if d.get("members"):
            args["members"] = d["members"]
        instr = d.get("instr")
        if instr is not None and instr.loc is not None:
            args["loc"] = str(instr.loc)
        if instr is not None:
            args.update(_chunk_args(instr))
        args["iteration"] = d["iteration"]
        ids[n] = f"n{i}"
        events.append(TraceEvent(d["name"] + (f" [it{d['iteration']}]" if multi else ""), f"rank {d['rank']}",
                                 d["stream"], run.start[n] / TICKS_PER_US,
                                 (run.end[n] - run.start[n]) / TICKS_PER_US, args, _category(d), ids[n]))
    where = {n: (d["rank"], d["stream"]) for n, d in run.nodes()}
    flows = [(ids[u], ids[v]) for u, v in run.data_edges() if where[u] != where[v]]
    return events, flows


def _chunk_args(instr) -> dict:
    """Microbatch and chunk of an operator (``chunk``: "i/K", from the decomposition)."""
    out = {}
    mb, chunk, chunks = instr.attr("mb"), instr.attr("chunk"), instr.attr("chunks")
    if mb is not None:
        out["microbatch"] = mb
    if chunk is not None and chunks is not None:
        out["chunk"] = f"{chunk}/{chunks}"
    return out


def step_bars(result: StepResult, window: tuple[float, float] | None = None) -> list[Bar]:
    """One bar per operator (within *window*, microseconds, clipped to it); a chunk of a
    decomposed operator is labelled ``c0``, ``c1`` ... where its bar is wide enough."""
    run = result.run
    multi = run.iterations > 1
    lo, hi = window if window is not None else (float("-inf"), float("inf"))
    bars = []
    for n, d in run.nodes():
        start, end = run.start[n] / TICKS_PER_US, run.end[n] / TICKS_PER_US
        if end <= start or end <= lo or start >= hi:
            continue
        instr = d.get("instr")
        chunk = instr.attr("chunk") if instr is not None else None
        bars.append(Bar(f"rank {d['rank']} {d['stream']}", max(start, lo), min(end, hi),
                        f"c{chunk}" if chunk is not None else "", _category(d),
                        d["name"] + (f" [it{d['iteration']}]" if multi else "")))
    return bars


def write_step_trace(path: str, result: StepResult, inputs: tuple[str, ...] = ()) -> None:
    events, flows = step_events(result)
    write_chrome_trace(path, events, flows, {"policy": result.policy, "target": result.target,
                                             "step_time_us": result.step_time_us}, inputs)


def write_step_timeline(path: str, result: StepResult, title: str = "", inputs: tuple[str, ...] = (),
                        window: tuple[float, float] | None = None) -> str:
    """The timeline of *result* (every simulated step, or the *window* in microseconds)."""
    bars = step_bars(result, window)
    if window is not None and not bars:
        from schedcc.errors import SchedccError
        raise SchedccError(f"--timeline-window: nothing runs between {window[0] / 1000:g} and {window[1] / 1000:g} ms",
                           notes=[f"the simulated steps end at {max(result.run.end.values()) / TICKS_PER_US / 1000:,.3f} ms"])
    lanes = sorted({b.lane for b in bars}, key=_lane_key)
    title = title or f"{result.policy} on {result.target}"
    if window is not None:
        title += f", {window[0] / 1000:g}-{window[1] / 1000:g} ms"
    focus = None
    if result.iterations > 1:  # the steps around it only set up the steady state: grey them out
        lo, hi = result.window_us
        focus = Focus(lo, hi, f"measured step: {result.step_time_us / 1000:,.3f} ms "
                              f"(step {_measured_index(result) + 1} of {result.iterations} simulated)")
    return write_timeline(path, bars, lanes, title, "us", COLORS, inputs, window, LEGEND, focus=focus)


def _measured_index(result: StepResult) -> int:
    """Which simulated iteration the measured window ends (result.window_of's rule)."""
    it = result.iterations
    return 0 if it == 1 else (1 if it == 2 else it - 2)


def _lane_key(lane: str) -> tuple:
    _, rank, stream = lane.split(" ", 2)
    return int(rank), stream != "compute", stream


def pipeline_events(result: PipelineResult) -> tuple[list[TraceEvent], list[tuple[str, str]]]:
    ev = result.evaluation
    g = ev.graph
    scale = 1000.0 if result.unit == "us" else 1.0
    events, ids = [], {}
    for i, n in enumerate(sorted(g.nodes, key=lambda n: (g.nodes[n]["rank"], ev.start[n]))):
        d = g.nodes[n]
        a = d.get("action")
        ids[n] = f"a{i}"
        events.append(TraceEvent(d["name"], f"rank {d['rank']}", d["stream"], ev.start[n] / scale,
                                 (ev.end[n] - ev.start[n]) / scale,
                                 {"stage": a.stage, "microbatch": a.mb} if a is not None else {},
                                 a.kind if a is not None else "transfer", ids[n]))
    flows = [(ids[u], ids[v]) for u, v, e in g.edges(data=True)
             if e["kind"] == "DATA" and g.nodes[u]["rank"] != g.nodes[v]["rank"]]
    return events, flows


def write_pipeline_trace(path: str, result: PipelineResult, inputs: tuple[str, ...] = ()) -> None:
    events, flows = pipeline_events(result)
    write_chrome_trace(path, events, flows, {"schedule": result.schedule,
                                             "bubble_fraction": result.bubble_fraction}, inputs)


def write_pipeline_timeline(path: str, result: PipelineResult, inputs: tuple[str, ...] = ()) -> str:
    ev = result.evaluation
    g = ev.graph
    scale = 1000.0 if result.unit == "us" else 1.0
    bars = []
    for n, d in g.nodes(data=True):
        if ev.end[n] <= ev.start[n]:
            continue
        a = d.get("action")
        label = f"{a.mb}" if a is not None and a.mb is not None else ""
        bars.append(Bar(f"rank {d['rank']} {d['stream']}", ev.start[n] / scale, ev.end[n] / scale, label,
                        a.kind if a is not None else "transfer", d["name"]))
    lanes = sorted({b.lane for b in bars}, key=_lane_key)
    # An interleaved schedule runs `virtual` stages on each rank: say ranks x stages per rank.
    shape = (f"{result.stages} ranks x {result.virtual} stages each ({result.stages * result.virtual} stages)"
             if result.virtual > 1 else f"{result.stages} stages")
    title = f"{result.schedule}: {shape}, {result.microbatches} microbatches, bubble {result.bubble_fraction:.1%}"
    return write_timeline(path, bars, lanes, title, "us" if result.unit == "us" else "units", COLORS, inputs,
                          legend=LEGEND)

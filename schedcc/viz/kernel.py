"""The picture of a software-pipelined loop: "not pipelined" against "pipelined".

Each row is one iteration; an operation is a bar from its issue cycle for one
cycle, coloured by its stage. The upper rows run the iterations one after the
other (the loop list-scheduled, a new iteration every ``cycles_before``
cycles); the lower rows start a new iteration every II cycles, as the modulo
schedule does: the lecture's figure. Under them, when resources bound the II, the
resource that does (:func:`bound_bars`: the unit kept busy back to back, or the issue
slots used per cycle). Drawn with :mod:`schedcc.viz.timeline`.

Example::

    >>> from schedcc import parse
    >>> from schedcc.swp.pipeliner import pipeline_program
    >>> res = pipeline_program(parse(open("examples/loops/lecture_cj.ir").read()), "la464")
    >>> bars, lanes = kernel_bars(res.loops[0], res.target, iterations=2)
    >>> lanes[:4]
    ['not pipelined: iteration 0', 'not pipelined: iteration 1', 'pipelined: iteration 0', 'pipelined: iteration 1']
    >>> lanes[4:]  # the issue width bounds its II: the slots used per cycle
    ['issue width 4 (bounds II)']
"""

from __future__ import annotations

from schedcc.dag import build_dag
from schedcc.swp.view import instr_text
from schedcc.swp.pipeliner import LoopResult
from schedcc.sched import list_schedule
from schedcc.errors import plural
from schedcc.viz.files import picture_paths
from schedcc.viz.timeline import Bar, write_timeline


def kernel_bars(res: LoopResult, target, iterations: int | None = None, prefix: str = "") -> tuple[list[Bar], list[str]]:
    """Bars and lanes of the picture; operations issued in the same cycle of the
    same iteration share one bar (labelled "2 ops"; its tooltip names them)."""
    s = res.schedule
    count = iterations if iterations is not None else min(s.stages + 3, 12)
    block = res.loop.block
    flat = list_schedule(build_dag(block, target), target)
    period = res.cycles_before
    cells: dict[tuple[str, int], list[tuple[int, str, str]]] = {}
    lanes: list[str] = []
    for k in range(min(count, 3)):
        lane = f"{prefix}not pipelined: iteration {k}"
        lanes.append(lane)
        for n, c in flat.cycle.items():
            cells.setdefault((lane, k * period + c), []).append((-1, block.instrs[n].opcode,
                                                                 f"#{n} {instr_text(block.instrs[n])}"))
    for k in range(count):
        lane = f"{prefix}pipelined: iteration {k}"
        lanes.append(lane)
        for n in range(len(res.dag)):
            instr = res.dag.ops[n].payload
            cells.setdefault((lane, k * s.ii + s.cycle[n]), []).append(
                (s.stage(n), instr.opcode, f"#{n} {instr_text(instr)} (stage {s.stage(n)}, {s.unit[n]})"))
    bars: list[Bar] = []
    for (lane, t), ops in sorted(cells.items(), key=lambda kv: (min(o[0] for o in kv[1]), kv[0][1])):
        stage = min(o[0] for o in ops)
        category = "not pipelined" if stage < 0 else f"stage {stage}"
        tip = f"cycle {t}: " + "; ".join(o[2] for o in ops)
        label = ops[0][1] if len(ops) == 1 else f"{len(ops)} ops"  # the tooltip lists them
        bars.append(Bar(lane, t, t + 1, label, category, tip))
    more, more_lanes = bound_bars(res, count, prefix)
    return bars + more, lanes + more_lanes


BOUND = "bounds II"  # the category (and legend entry) of the resource that sets the II


def bound_bars(res: LoopResult, count: int, prefix: str = "") -> tuple[list[Bar], list[str]]:
    """The resource that bounds the II (a resource-bound loop), in its own lanes under the
    pipelined iterations: each unit instance (or each copy of an extra resource) busy with
    the operations of every iteration drawn, back to back when it is the bottleneck; with
    the issue width binding, one lane with the operations issued per cycle (``4/4``)."""
    s = res.schedule
    rb = s.mii.res
    if s.mii.bound_by != "resources" or rb.value < s.mii.rec.value:
        return [], []
    ops = res.dag.ops
    busy: list[tuple[int, int, str, str]] = []   # (start, end, what, tooltip)
    if rb.held:
        for k in range(count):
            for n, op in enumerate(ops):
                for name, cycles in op.also:
                    if name == rb.held:
                        t = k * s.ii + s.cycle[n]
                        busy.append((t, t + cycles, op.payload.opcode,
                                     f"iteration {k}: #{n} {instr_text(op.payload)} holds {name} cycles {t}-{t + cycles - 1}"))
        return _packed(busy, f"{prefix}{rb.held} ({BOUND})")
    units = set(rb.units) - {"ISSUE"}
    if units:
        lanes: dict[str, list[tuple[int, int, str, str]]] = {}
        for k in range(count):
            for n, op in enumerate(ops):
                if s.unit[n] in units:
                    t = k * s.ii + s.cycle[n]
                    lanes.setdefault(s.unit[n], []).append(
                        (t, t + op.occupancy, op.payload.opcode,
                         f"iteration {k}: #{n} {instr_text(op.payload)} on {s.unit[n]}, cycles {t}-{t + op.occupancy - 1}"))
        bars, names = [], []
        for unit in sorted(lanes):
            b, ln = _packed(lanes[unit], f"{prefix}{unit} ({BOUND})")
            bars += b
            names += ln
        return bars, names
    width = s.issue_width
    per: dict[int, int] = {}
    for k in range(count):
        for n in range(len(ops)):
            per[k * s.ii + s.cycle[n]] = per.get(k * s.ii + s.cycle[n], 0) + 1
    lane = f"{prefix}issue width {width} ({BOUND})"
    return [Bar(lane, t, t + 1, f"{c}/{width}", BOUND, f"cycle {t}: {c} of {width} issue slots used")
            for t, c in sorted(per.items())], [lane]


def _packed(busy: list[tuple[int, int, str, str]], lane: str) -> tuple[list[Bar], list[str]]:
    """*busy* intervals in as few lanes as keep them from overlapping (a resource with
    several copies: one lane per copy in use)."""
    rows: list[int] = []    # the end of the last interval of each lane
    bars = []
    for start, end, what, tip in sorted(busy):
        row = next((r for r, last in enumerate(rows) if last <= start), None)
        if row is None:
            rows.append(0)
            row = len(rows) - 1
        rows[row] = end
        bars.append(Bar(lane if row == 0 else f"{lane} #{row + 1}", start, end, what, BOUND, tip))
    names = [lane if r == 0 else f"{lane} #{r + 1}" for r in range(len(rows))]
    return bars, names


def kernel_title(res: LoopResult, target) -> str:
    """The picture's title: the loop, its II against the MII and what bounds it (the
    resource and its count, or the recurrence), the stages and the cycles before."""
    s, m = res.schedule, res.schedule.mii
    if m.bound_by == "recurrence":
        bound = (f"a recurrence: latency {m.rec.latency} over {plural(m.rec.distance, 'iteration')}")
    elif m.bound_by == "both":
        bound = "resources and a recurrence together"
    else:
        bound = m.res.reason
    ii = f"II {s.ii} = MII" if s.ii == m.value else f"II {s.ii} (MII {m.value})"
    return (f"{res.name} on {target.name}: {ii}, bound by {bound}; {plural(s.stages, 'stage')}; "
            f"not pipelined: {plural(res.cycles_before, 'cycle')} per iteration")


def write_kernel_picture(path: str, results: list[LoopResult], target, inputs: tuple[str, ...] = ()) -> str:
    """Draw the pipelined loops of *results*: one to *path* (.svg or .png), several one per
    picture beside it (:func:`schedcc.viz.files.picture_paths`: ``STEM.FUNCTION.BLOCK.png``),
    each titled with its II and what bounds it (:func:`kernel_title`). Returns a note for the user."""
    loops = [r for r in results if r.pipelined]
    if not loops:
        return "note: no loop was pipelined, so no picture was drawn"
    paths = [path] if len(loops) == 1 else picture_paths(
        path, [(r.loop.function.name, r.loop.block.label) for r in loops], "--emit-kernel", ("svg", "png"))
    notes = []
    for r, dest in zip(loops, paths):
        bars, lanes = kernel_bars(r, target)
        note = write_timeline(dest, bars, lanes, title=kernel_title(r, target), time_unit="cycles", inputs=inputs)
        if note:
            notes.append(note)
    if len(loops) > 1:
        notes.insert(0, f"wrote {len(loops)} pictures, one per pipelined loop: {', '.join(paths)}")
    return "\n".join(notes)

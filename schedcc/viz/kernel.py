"""The picture of a software-pipelined loop: "not pipelined" against "pipelined".

Each row is one iteration; an operation is a bar from its issue cycle for one
cycle, coloured by its stage. The upper rows run the iterations one after the
other (the loop list-scheduled, a new iteration every ``cycles_before``
cycles); the lower rows start a new iteration every II cycles, as the modulo
schedule does: the lecture's figure. Drawn with :mod:`schedcc.viz.timeline`.

Example::

    >>> from schedcc import parse
    >>> from schedcc.swp.pipeliner import pipeline_program
    >>> res = pipeline_program(parse(open("examples/loops/lecture_cj.ir").read()), "la464")
    >>> bars, lanes = kernel_bars(res.loops[0], res.target, iterations=2)
    >>> lanes
    ['not pipelined: iteration 0', 'not pipelined: iteration 1', 'pipelined: iteration 0', 'pipelined: iteration 1']
"""

from __future__ import annotations

from schedcc.dag import build_dag
from schedcc.swp.view import instr_text
from schedcc.swp.pipeliner import LoopResult
from schedcc.sched import list_schedule
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
    return bars, lanes


def write_kernel_picture(path: str, results: list[LoopResult], target, inputs: tuple[str, ...] = ()) -> str:
    """Draw every pipelined loop of *results* to *path* (.svg or .png); returns a note for the user."""
    loops = [r for r in results if r.pipelined]
    bars: list[Bar] = []
    lanes: list[str] = []
    for r in loops:
        prefix = f"{r.name}: " if len(loops) > 1 else ""
        b, ln = kernel_bars(r, target, prefix=prefix)
        bars += b
        lanes += ln
    if not loops:
        return "note: no loop was pipelined, so the picture is empty"
    first = loops[0].schedule
    title = (f"{loops[0].name} on {target.name}: II {first.ii}, {first.stages} stages "
             f"(one iteration every {loops[0].cycles_before} cycles before)")
    if len(loops) > 1:
        title = f"{len(loops)} pipelined loops on {target.name}"
    return write_timeline(path, bars, lanes, title=title, time_unit="cycles", inputs=inputs)

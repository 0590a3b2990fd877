"""Pictures of Ascend kernels: timeline bars (one lane per pipe) and Chrome trace events.

The bars go to :func:`schedcc.viz.timeline.write_timeline`, the events to
:func:`schedcc.viz.chrome_trace.write_chrome_trace`. Times are the checker's
simulation of the synchronised code (the schedule's without a check).

Example::

    >>> from schedcc import parse
    >>> from schedcc.ascend import compile_kernels
    >>> kernels = compile_kernels(parse(open("examples/ascend/vector_add.ir").read()), "ascend")
    >>> sorted({b.lane for b in timeline_bars(kernels)})
    ['MTE2', 'MTE3', 'S', 'V']
"""

from __future__ import annotations

from schedcc.ascend.kernel import KernelResult
from schedcc.viz.chrome_trace import TraceEvent
from schedcc.viz.timeline import Bar


def timeline_bars(kernels: list[KernelResult]):
    """One bar per instruction, one lane per pipe; blocks are laid end to end."""
    bars = []
    offset = 0
    for k in kernels:
        start, end = k.times()
        for n, op in enumerate(k.dag.ops):
            instr = op.payload
            occupancy = op.occupancy
            bars.append(Bar(lane=k.schedule.unit[n], start=offset + start[n],
                            end=offset + start[n] + occupancy, label=instr.opcode,
                            category=op.kind,
                            tooltip=f"{k.block.label} #{n} {instr}: cycles {start[n]}-{end[n]} "
                                    f"(busy {occupancy}, result at {end[n]})"))
        offset += max(end.values(), default=0)
    return bars


def trace_events(kernels: list[KernelResult]):
    """Chrome trace events (one thread per pipe) and flows along the inserted flags."""
    events, flows = [], []
    offset = 0
    for b, k in enumerate(kernels):
        start, end = k.times()
        us = k.model.cycles_to_us
        process = f"AI core ({k.target.name})"
        for n, op in enumerate(k.dag.ops):
            instr = op.payload
            events.append(TraceEvent(
                name=instr.opcode, process=process, thread=k.schedule.unit[n],
                start_us=us(offset + start[n]), dur_us=us(end[n] - start[n]), cat=op.kind,
                args={"instruction": str(instr), "block": f"{k.function.name}/{k.block.label}", "id": n,
                      "start_cycle": offset + start[n], "end_cycle": offset + end[n],
                      "busy_cycles": op.occupancy},
                id=f"{b}:{n}"))
        flows.extend((f"{b}:{f.src}", f"{b}:{f.dst}") for f in k.sync.flags)
        offset += max(end.values(), default=0)
    return events, flows


def loop_timeline_bars(lk):
    bars = []
    n = len(lk.body.instrs) - 1
    for x, start in lk.check.start.items():
        node = x % n
        op = lk.dag.ops[node]
        it = x // n
        bars.append(Bar(lane=op.units[0], start=start, end=start + op.occupancy,
                        label=op.payload.opcode, category=f"iteration {it}",
                        tooltip=f"iteration {it} #{node} {op.payload}: cycles {start}-{lk.check.end[x]}"))
    return bars


def loop_trace_events(lk):
    """Chrome trace events of a tile loop run back to back, one thread per pipe."""
    n = len(lk.body.instrs) - 1
    us = lk.model.cycles_to_us
    events = []
    for x, start in lk.check.start.items():
        node, it = x % n, x // n
        op = lk.dag.ops[node]
        events.append(TraceEvent(
            name=op.payload.opcode, process=f"AI core ({lk.model.target.name})",
            thread=op.units[0], start_us=us(start), dur_us=us(lk.check.end[x] - start),
            cat=f"iteration {it}", args={"instruction": str(op.payload), "iteration": it, "id": node,
                                         "start_cycle": start, "end_cycle": lk.check.end[x]}))
    return events

"""In-order issue: when does each instruction of a *given* order issue?

This is how the original program runs on the target with no reordering: each
instruction issues at the first cycle, no earlier than the one before it,
at which its operands are ready (per the dependence latencies), an issue slot
is left and a unit is free; on a machine that writes results in order
(``Machine.in_order_writeback``, llvm-mca's in-order pipeline), also no
earlier than lets its result be written after every earlier one. It gives the "before" numbers next to a
schedule, and a stall reason for every instruction that waited.

O(n + e) for the dependence graph plus O(n * units) for issue.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> block = parse(open("examples/lecture.ir").read()).functions[0].blocks[0]
    >>> r = simulate_in_order(block, load_target("mips4"))
    >>> [r.cycle[i] for i in range(6)], r.makespan
    ([0, 3, 4, 6, 7, 8], 11)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.dag import build_dag, dep_text
from schedcc.ir import Block
from schedcc.problem import SchedGraph
from schedcc.target import Target, load_target


@dataclass
class InOrderResult:
    graph: SchedGraph
    cycle: dict[int, int]
    unit: dict[int, str]
    stall: dict[int, str] = field(default_factory=dict)  # instruction -> why it waited

    @property
    def dag(self) -> SchedGraph:
        return self.graph

    @property
    def makespan(self) -> int:
        ops = self.graph.ops
        return max((c + ops[i].latency for i, c in self.cycle.items()), default=0)

    @property
    def order(self) -> list[int]:
        return sorted(self.cycle, key=lambda i: (self.cycle[i], i))


def simulate_in_order(block: Block | None, target: Target | str | None = None,
                      dag: SchedGraph | None = None) -> InOrderResult:
    """Issue the operations of *dag* (by default the DAG of *block* on *target*) strictly
    in their order, on the graph's machine."""
    if dag is None:
        dag = build_dag(block, load_target(target))
    return simulate_order(dag, range(len(dag)))


def simulate_order(graph: SchedGraph, order) -> InOrderResult:
    """Issue the nodes of *graph* strictly in *order* (a topological order) on its machine."""
    ops, pred = graph.ops, graph.pred
    machine = graph.machine
    unit_free = {u: 0 for u in machine.units}
    cycle_of: dict[int, int] = {}
    unit_of: dict[int, str] = {}
    stall: dict[int, str] = {}
    prev, issued_at_prev = 0, 0
    writeback, last = 0, -1  # in-order write-back: the latest result so far, and whose
    for i in order:
        ready, why, waited = 0, "", None  # the reason is written only for a stall (most issue on time)
        for d in pred[i]:
            t = cycle_of[d.src] + d.latency
            if t > ready:
                ready, waited = t, d
        if waited is not None:
            why = waited
        op = ops[i]
        if machine.in_order_writeback and writeback - op.latency > ready:
            ready = writeback - op.latency
            why = f"writes its result after '{graph.label(last)}' (results are written in order)"
        c = max(prev, ready)
        if c == prev and issued_at_prev >= machine.issue_width:
            c += 1
        units = op.units or machine.units
        also = op.also
        while True:
            free = [u for u in units if unit_free.get(u, 0) <= c]
            if free and (not also or all(unit_free.get(x, 0) <= c for x, _ in also)):
                break
            blocking = [u for u in units] + [x for x, _ in also]
            soonest = min(t for t in (unit_free.get(u, 0) for u in blocking) if t > c)
            why = f"{', '.join(units)} busy until cycle {soonest}"
            c = soonest
        unit = free[0]
        unit_free[unit] = c + op.occupancy
        for x, cycles in also:
            unit_free[x] = c + cycles
        if c > prev + (0 if issued_at_prev < machine.issue_width else 1) and why:
            stall[i] = why if isinstance(why, str) else f"waits for '{graph.label(why.src)}': {dep_text(why)}"
        issued_at_prev = issued_at_prev + 1 if c == prev else 1
        prev = c
        cycle_of[i], unit_of[i] = c, unit
        if c + op.latency >= writeback:
            writeback, last = c + op.latency, i
    return InOrderResult(graph, cycle_of, unit_of, stall)

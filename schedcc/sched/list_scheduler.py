"""Cycle-driven list scheduling (Gibbons & Muchnick; the lecture's algorithm).

At every cycle the instructions whose predecessors have all issued and whose
operands are ready (issue cycle of the predecessor + edge latency) form the
*ready list*. The scheduler issues the best of them by priority, as long as
an issue slot and a free unit remain; ties go to more successors, then to
the original order, so the output is the same on every run.

Resources come from the node attributes that :func:`schedcc.dag.build_dag`
sets: ``units`` (the unit instances that can execute the node, one is
chosen), ``occupancy`` (cycles that unit stays busy) and ``also`` (extra
resources held from issue, like a divider behind an ALU port). Graphs built
by other tools (training graphs) set the same attributes.

Complexity: O((n + e) log n): each node enters and leaves two heaps once,
and empty cycles are skipped rather than stepped through.

Example::

    >>> from schedcc import parse
    >>> from schedcc.dag import build_dag
    >>> from schedcc.target import load_target
    >>> mips4 = load_target("mips4")
    >>> block = parse(open("examples/lecture.ir").read()).functions[0].blocks[0]
    >>> s = list_schedule(build_dag(block, mips4), mips4)
    >>> s.order, s.makespan
    ([0, 2, 5, 1, 4, 3], 9)
"""

from __future__ import annotations

import heapq
from typing import Hashable

import networkx as nx

from .._perf import paused_gc
from ..errors import SchedccError
from ..target import Target, load_target
from .priority import PRIORITIES, PriorityFunction
from .schedule import Schedule, Step


def list_schedule(dag: nx.DiGraph, target: Target | str, priority: str | PriorityFunction = "critical-path",
                  explain: bool = False) -> Schedule:
    """Schedule *dag* on *target* with a latency-aware list scheduler.

    *priority* is a name from :data:`PRIORITIES` or a function from the DAG
    to a dict of priorities (higher first). With ``explain=True`` the result
    records each cycle's ready list and decisions in ``steps``.
    """
    with paused_gc():
        return _schedule(dag, load_target(target), priority, explain)


def _schedule(dag: nx.DiGraph, tgt: Target, priority, explain: bool) -> Schedule:
    if callable(priority):
        prio_fn, prio_name = priority, getattr(priority, "__name__", "custom")
    else:
        if priority not in PRIORITIES:
            raise SchedccError(f"unknown priority '{priority}'",
                               notes=[f"choose one of: {', '.join(PRIORITIES)}"])
        prio_fn, prio_name = PRIORITIES[priority], priority
    prio = prio_fn(dag)
    position = {n: i for i, n in enumerate(dag.nodes)}
    # The raw adjacency dicts of networkx: its views would double the run time.
    nodes = dag._node
    succ, pred = dag._succ, dag._pred

    # Sort key: higher priority, then more successors, then earlier in the source.
    def key(n: Hashable) -> tuple:
        return (-prio[n], -len(succ[n]), position[n])

    remaining = {n: len(pred[n]) for n in dag.nodes}
    earliest: dict[Hashable, int] = {n: 0 for n in dag.nodes}
    because: dict[Hashable, tuple[Hashable, dict]] = {}
    pending: list[tuple[int, tuple, Hashable]] = []  # operands not ready yet, by cycle
    # One ready heap per resource signature, so that a long run of ready
    # instructions waiting for a busy unit is never scanned cycle after cycle.
    ready: dict[tuple, list[tuple[tuple, Hashable]]] = {}
    for n, k in remaining.items():
        if k == 0:
            heapq.heappush(pending, (0, key(n), n))
    unit_free: dict[str, int] = {u: 0 for u in tgt.units}
    all_units = tuple(tgt.units) or ("ISSUE",)
    cycle_of: dict[Hashable, int] = {}
    unit_of: dict[Hashable, str] = {}
    order: list[Hashable] = []
    steps: list[Step] | None = [] if explain else None
    width = tgt.issue_width
    cycle = 0
    total = len(remaining)

    def make_ready(n: Hashable, k: tuple) -> None:
        attrs = nodes[n]
        sig = (tuple(attrs.get("units") or all_units), tuple(attrs.get("also", ())))
        heapq.heappush(ready.setdefault(sig, []), (k, n))

    while len(order) < total:
        while pending and pending[0][0] <= cycle:
            _, k, n = heapq.heappop(pending)
            make_ready(n, k)
        if steps is not None:
            step = Step(cycle, [(n, prio[n]) for _, n in sorted(x for h in ready.values() for x in h)],
                        [], [], [])
        issued = 0
        while issued < width:
            best = None
            for sig, heap in ready.items():
                if heap and (best is None or heap[0][0] < best[1][0][0]):
                    if _free_unit(sig[0], sig[1], unit_free, cycle) is not None:
                        best = (sig, heap)
            if best is None:
                break
            sig, heap = best
            k, n = heapq.heappop(heap)
            unit = _free_unit(sig[0], sig[1], unit_free, cycle)
            attrs = nodes[n]
            unit_free[unit] = cycle + attrs.get("occupancy", 1)
            for extra, cycles in sig[1]:
                unit_free[extra] = cycle + cycles
            cycle_of[n], unit_of[n] = cycle, unit
            order.append(n)
            issued += 1
            if steps is not None:
                step.picked.append((n, unit))
            for s, d in succ[n].items():
                t = cycle + d["latency"]
                if t >= earliest[s]:
                    earliest[s] = t
                    because[s] = (n, d)
                remaining[s] -= 1
                if remaining[s] == 0:
                    if earliest[s] <= cycle:  # zero-latency edge: ready this very cycle
                        make_ready(s, key(s))
                    else:
                        heapq.heappush(pending, (earliest[s], key(s), s))
        any_ready = any(ready.values())
        if steps is not None:
            for sig, heap in ready.items():
                for _, n in sorted(heap):
                    why = (f"no issue slot left (width {width})" if issued >= width
                           else _busy_text(nodes[n], unit_free, all_units, cycle))
                    step.blocked.append((n, why))
            step.waiting = [(n, t, _wait_text(n, because, nodes)) for t, _, n in sorted(pending)]
            if step.ready or step.picked or step.blocked:
                steps.append(step)
        # Skip cycles in which nothing can happen.
        nxt = cycle + 1
        if not any_ready and pending:
            nxt = max(nxt, pending[0][0])
        elif any_ready and issued == 0:
            busy = [t for t in unit_free.values() if t > cycle]
            soonest = min(busy, default=nxt)
            if pending:
                soonest = min(soonest, pending[0][0])
            nxt = max(nxt, soonest)
        cycle = nxt

    return Schedule(dag=dag, cycle=cycle_of, unit=unit_of, order=order, issue_width=width,
                    priority_name=prio_name, priority=prio, steps=steps)


def _free_unit(units, also, unit_free: dict[str, int], cycle: int) -> str | None:
    for extra, _ in also:
        if unit_free.get(extra, 0) > cycle:
            return None
    for u in units:
        if unit_free.get(u, 0) <= cycle:
            return u
    return None


def _busy_text(attrs: dict, unit_free: dict[str, int], all_units, cycle: int) -> str:
    for extra, _ in attrs.get("also", ()):
        if unit_free.get(extra, 0) > cycle:
            return f"{extra} busy until cycle {unit_free[extra]}"
    units = attrs.get("units") or all_units
    return ", ".join(f"{u} busy until cycle {unit_free.get(u, 0)}" for u in units)


def _wait_text(n: Hashable, because: dict, nodes) -> str:
    if n not in because:
        return ""
    p, d = because[n]
    instr = nodes[p].get("instr")
    what = str(instr) if instr is not None else str(p)
    kind = d["kind"] if d["kind"] != "MEM" else f"{d.get('mem', 'MEM')} through memory"
    return f"{kind} on {d['reason']} from '{what}'"

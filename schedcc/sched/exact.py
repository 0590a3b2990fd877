"""Exact scheduling: the list scheduler's problem as a CP-SAT model, solved with a proof.

:func:`exact_schedule` takes the same :class:`~schedcc.problem.SchedGraph` the
list scheduler gets (a block, an Ascend kernel, a training step) and models
it exactly (docs/exact.md):

* an issue cycle ``t[i]`` per node, ``t[dst] >= t[src] + latency`` per
  dependence of distance 0;
* per unit instance a *no-overlap* constraint over the intervals
  ``[t[i], t[i] + occupancy)`` of the nodes that run on it; a node that may
  use several instances chooses one (one optional interval per instance,
  exactly one present);
* at most ``issue_width`` issues per cycle; every extra (``also``) resource
  held ``[t[i], t[i] + cycles)`` by at most its capacity;
* minimise the makespan ``M >= t[i] + latency[i]``.

The heuristic's schedule (by default the list scheduler's) is the search's
first solution (a CP-SAT hint) and its makespan the upper bound; schedcc's
lower bound (:mod:`schedcc.sched.bounds`) bounds ``M`` from below, and every
``t[i]`` lies between its earliest start over the dependences and the upper
bound minus its latency-weighted height. Implied constraints help the proof:
for every union of unit sets, the nodes confined to it never run more at
once than it has units (a cumulative constraint). When the heuristic already
meets the lower bound, it is optimal and no model is built (``proof == "lower
bound"``).

The solution is then *left-shifted* (:func:`left_shift`): in the order of
its cycles, every node moves to the earliest cycle its dependences and its
unit allow. That never delays a node, so the makespan (and the proof) stand,
and a reported stall is always a real one.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> alu = ("ALU",)    # one unit; a and c keep it busy 2 cycles (d too)
    >>> g = SchedGraph((Op("a", alu, 2, 2), Op("b", alu, 2), Op("c", alu, 4, 2), Op("d", alu, 1, 2)),
    ...                (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 2), Dep(0, 3, "RAW", 2)), Machine("toy", 1, alu))
    >>> s = exact_schedule(g)   # the list scheduler fills cycle 3 with d, so c waits for the unit
    >>> s.exact.heuristic.cycle, s.exact.heuristic_makespan
    ({0: 0, 1: 2, 3: 3, 2: 5}, 9)
    >>> s.cycle, s.makespan, s.exact.status, s.exact.heuristic_gap
    ({0: 0, 1: 2, 2: 4, 3: 6}, 8, 'optimal', 12.5)
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from schedcc.problem import SchedGraph
from schedcc.sched.bounds import lower_bound
from schedcc.sched.cpsat import Limits, cp_model, gap_percent, run
from schedcc.sched.mii import unit_set_unions
from schedcc.sched.schedule import Schedule

HALL_SETS = 64  # unions of unit sets given an implied constraint (they grow fast on odd machines)


@dataclass
class ExactInfo:
    """The proof that comes with an exact schedule.

    ``status``: ``optimal`` (proven) or ``feasible`` (stopped by the time limit:
    the schedule is the best found, ``lower_bound`` the best bound proven);
    ``proof``: what proved it (``cp-sat``, or ``lower bound`` when the heuristic
    already met schedcc's bound); ``heuristic``: the heuristic's schedule, the
    solver's first solution and the comparison; ``decisions``: with ``--explain``,
    the heuristic's choices that cost cycles (:mod:`schedcc.sched.exact_explain`)."""

    status: str
    makespan: int
    lower_bound: int
    seconds: float
    heuristic: Any
    heuristic_makespan: int
    proof: str = ""
    stopped: str = ""
    limits: Limits | None = None
    decisions: list = field(default_factory=list)

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"

    @property
    def gap(self) -> float:
        """How far the schedule may be above the optimum, in percent of the bound (0 when proven)."""
        return gap_percent(self.makespan, self.lower_bound)

    @property
    def heuristic_gap(self) -> float:
        """The heuristic's distance from the optimum (from the bound, when not proven), in percent."""
        return gap_percent(self.heuristic_makespan, self.makespan if self.optimal else self.lower_bound)

    def to_json(self) -> dict[str, Any]:
        """The ``exact`` object of ``--format json`` (docs/json.md)."""
        return {"status": self.status, "makespan": self.makespan, "lower_bound": self.lower_bound,
                "gap": self.gap, "seconds": round(self.seconds, 3), "proof": self.proof,
                "stopped": self.stopped or None, "heuristic_makespan": self.heuristic_makespan,
                "heuristic_gap": self.heuristic_gap,
                "decisions": [d.to_json() for d in self.decisions]}


def earliest_starts(graph: SchedGraph) -> list[int]:
    """Each node's earliest issue cycle over the distance-0 dependences. O(n + e)."""
    head = [0] * len(graph)
    pred = graph.pred
    for i in graph.topological_order:
        for d in pred[i]:
            if d.distance == 0 and head[d.src] + d.latency > head[i]:
                head[i] = head[d.src] + d.latency
    return head


def _issue_binds(graph: SchedGraph) -> bool:
    """Whether the issue width can bind: not when every node keeps a unit busy for a
    cycle or more and there are no more unit instances than issue slots."""
    m = graph.machine
    if len(graph) <= m.issue_width:
        return False
    units = {u for op in graph.ops for u in (op.units or m.units)}
    return any(op.occupancy < 1 for op in graph.ops) or len(units) > m.issue_width


def _unit_unions(sets: list[frozenset]) -> list[frozenset]:
    """The unit sets closed under union (at most :data:`HALL_SETS` of them), smallest first."""
    return sorted(unit_set_unions(sets, HALL_SETS), key=lambda s: (len(s), sorted(s)))


@dataclass
class BlockModel:
    """The CP-SAT model of a graph: ``start[i]`` its issue cycle, ``on[i]`` unit -> literal
    (nodes with a choice of units), ``makespan`` the objective."""

    model: Any
    start: list
    on: list[dict[str, Any]]
    makespan: Any
    graph: SchedGraph


def block_model(graph: SchedGraph, upper: int, lower: int = 0) -> BlockModel:
    """The model of the module docstring, for schedules of makespan *lower* .. *upper*.
    O(n * units + e) variables and constraints."""
    cp = cp_model()
    m = cp.CpModel()
    ops, machine = graph.ops, graph.machine
    head, height = earliest_starts(graph), graph.heights()
    start = [m.new_int_var(head[i], max(head[i], upper - height[i]), f"t{i}") for i in range(len(ops))]
    makespan = m.new_int_var(lower, upper, "makespan")
    for d in graph.deps:
        if d.distance == 0:
            m.add(start[d.dst] >= start[d.src] + d.latency)
    for i, op in enumerate(ops):
        m.add(makespan >= start[i] + op.latency)
    on: list[dict[str, Any]] = [{} for _ in ops]
    per_unit: dict[str, list] = defaultdict(list)
    whole: dict[int, Any] = {}

    def interval(i: int):
        if i not in whole:
            whole[i] = m.new_fixed_size_interval_var(start[i], ops[i].occupancy, f"busy{i}")
        return whole[i]

    for i, op in enumerate(ops):
        units = op.units or machine.units
        if len(units) == 1:
            per_unit[units[0]].append(interval(i))
            continue
        for u in units:
            lit = m.new_bool_var(f"on{i}_{u}")
            on[i][u] = lit
            per_unit[u].append(m.new_optional_fixed_size_interval_var(start[i], op.occupancy, lit, f"busy{i}_{u}"))
        m.add_exactly_one(on[i].values())
    for ivs in per_unit.values():
        if len(ivs) > 1:
            m.add_no_overlap(ivs)
    # Implied: the nodes confined to a union of unit sets share its units (Hall's condition).
    sets = [frozenset(op.units or machine.units) for op in ops]
    for s in _unit_unions(list(set(sets))):
        inside = [i for i, si in enumerate(sets) if si <= s and ops[i].occupancy > 0]
        if len(s) > 1 and len(inside) > len(s):
            m.add_cumulative([interval(i) for i in inside], [1] * len(inside), len(s))
    if _issue_binds(graph):
        if machine.issue_width == 1:
            m.add_all_different(start)
        else:
            slots = [m.new_fixed_size_interval_var(start[i], 1, f"issue{i}") for i in range(len(ops))]
            m.add_cumulative(slots, [1] * len(ops), machine.issue_width)
    held: dict[str, list] = defaultdict(list)
    for i, op in enumerate(ops):
        for res, cycles in op.also:
            held[res].append(m.new_fixed_size_interval_var(start[i], cycles, f"hold{i}_{res}"))
    for res, ivs in held.items():
        cap = machine.capacity_of(res)
        if len(ivs) > cap:
            if cap == 1:
                m.add_no_overlap(ivs)
            else:
                m.add_cumulative(ivs, [1] * len(ivs), cap)
    m.minimize(makespan)
    return BlockModel(m, start, on, makespan, graph)


def hint(bm: BlockModel, schedule: Schedule) -> None:
    """Give the solver *schedule* as its first solution."""
    m = bm.model
    for i, var in enumerate(bm.start):
        m.add_hint(var, schedule.cycle[i])
        for u, lit in bm.on[i].items():
            m.add_hint(lit, schedule.unit[i] == u)
    m.add_hint(bm.makespan, _span(bm.graph, schedule.cycle))


def decode(bm: BlockModel, outcome, graph: SchedGraph) -> tuple[dict[int, int], dict[int, str]]:
    """(cycle, unit) per node from a solved model."""
    cycle = {i: outcome.value(v) for i, v in enumerate(bm.start)}
    unit = {}
    for i, op in enumerate(graph.ops):
        units = op.units or graph.machine.units
        unit[i] = next((u for u, lit in bm.on[i].items() if outcome.value(lit)), units[0])
    return cycle, unit


def exact_schedule(graph: SchedGraph, heuristic: Schedule | None = None, limits: Limits | None = None) -> Schedule:
    """The schedule of *graph* with the smallest makespan, proven, or the best found within
    *limits* with a bound; ``.exact`` carries the :class:`ExactInfo`. *heuristic* (default: the
    list schedule, critical path) is the first solution. See the module docstring."""
    from schedcc.sched.list_scheduler import list_schedule
    limits = limits or Limits()
    if heuristic is None:
        heuristic = list_schedule(graph)
    lb = lower_bound(graph).value
    upper = _span(graph, heuristic.cycle)
    if upper <= lb:
        info = ExactInfo("optimal", upper, upper, 0.0, heuristic, upper, "lower bound", limits=limits)
        return _result(graph, dict(heuristic.cycle), dict(heuristic.unit), heuristic, info)
    bm = block_model(graph, upper, lb)
    hint(bm, heuristic)
    out = run(bm.model, limits)
    if out.status in ("optimal", "feasible"):
        cycle, unit = decode(bm, out, graph)
        shifted = left_shift(graph, cycle, unit)
        if _span(graph, shifted) <= _span(graph, cycle):  # always, by left_shift's argument
            cycle = shifted
    else:  # nothing better found in time: the heuristic's schedule stands
        cycle, unit = dict(heuristic.cycle), dict(heuristic.unit)
    makespan = _span(graph, cycle)
    bound = max(lb, int(round(out.bound)) if out.bound is not None else lb)
    status = "optimal" if out.status == "optimal" or bound >= makespan else "feasible"
    info = ExactInfo(status, makespan, makespan if status == "optimal" else bound, out.seconds, heuristic,
                     upper, "cp-sat" if status == "optimal" else "", out.stopped if status != "optimal" else "",
                     limits)
    return _result(graph, cycle, unit, heuristic, info)


def _span(graph: SchedGraph, cycle: dict[int, int]) -> int:
    return max((cycle[i] + op.latency for i, op in enumerate(graph.ops)), default=0)


def _result(graph: SchedGraph, cycle: dict, unit: dict, heuristic: Schedule, info: ExactInfo) -> Schedule:
    rank = {n: k for k, n in enumerate(graph.topological_order)}
    order = sorted(cycle, key=lambda i: (cycle[i], rank[i]))
    return Schedule(graph, cycle, unit, order, graph.machine.issue_width, "exact", heuristic.priority,
                    None, info)


def left_shift(graph: SchedGraph, cycle: dict[int, int], unit: dict[int, str]) -> dict[int, int]:
    """Move every node, in the order of *cycle*, to the earliest cycle at which its
    dependences, an issue slot, its unit (the same one) and its extra resources allow it.

    No node moves later (by induction over that order: what was placed before a node
    issues no later than it did, so it frees its unit and resources no later), so the
    makespan never grows. O(n log n + e + n * k) for k nodes sharing a unit or resource
    at a cycle."""
    ops, pred, machine = graph.ops, graph.pred, graph.machine
    rank = {n: k for k, n in enumerate(graph.topological_order)}
    order = sorted(cycle, key=lambda i: (cycle[i], rank[i]))
    busy: dict[str, _Track] = defaultdict(_Track)
    held: dict[str, list[tuple[int, int]]] = defaultdict(list)
    issued: dict[int, int] = defaultdict(int)
    width = machine.issue_width
    new: dict[int, int] = {}
    for i in order:
        op = ops[i]
        c = max((new[d.src] + d.latency for d in pred[i] if d.distance == 0), default=0)
        track = busy[unit[i]]
        while True:
            nxt = []
            if issued[c] >= width:
                nxt.append(c + 1)
            if track.conflicts(c, op.occupancy):
                nxt.append(track.next_end(c))
            for res, cycles in op.also:
                if _most_held(held[res], c, c + cycles) >= machine.capacity_of(res):
                    nxt.append(min(e for s, e in held[res] if e > c))
            if not nxt:
                break
            c = min(nxt)
        new[i] = c
        issued[c] += 1
        track.add(c, c + op.occupancy)
        for res, cycles in op.also:
            held[res].append((c, c + cycles))
    return new


def _most_held(spans: list[tuple[int, int]], a: int, b: int) -> int:
    """The largest number of *spans* held at once during ``[a, b)``."""
    inside = [(s, e) for s, e in spans if s < b and a < e]
    points = {a} | {s for s, _ in inside if s > a}
    return max((sum(1 for s, e in inside if s <= p < e) for p in points), default=0)


class _Track:
    """The busy intervals of one unit, disjoint, in order of their starts (and ends)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def conflicts(self, c: int, occ: int) -> bool:
        """Whether ``[c, c + occ)`` overlaps a busy interval. A zero-length interval only
        conflicts strictly inside another, as the verifier counts it; the first interval
        ending after *c* is the only one that can, intervals being disjoint."""
        j = bisect.bisect_right(self.ends, c)
        return j < len(self.starts) and self.starts[j] < (c + occ if occ > 0 else c)

    def next_end(self, c: int) -> int:
        """The first end of a busy interval after *c* (where a conflict may clear)."""
        j = bisect.bisect_right(self.ends, c)
        return self.ends[j] if j < len(self.ends) else c + 1

    def add(self, s: int, e: int) -> None:
        j = bisect.bisect_right(self.ends, s)
        self.starts.insert(j, s)
        self.ends.insert(j, e)


@dataclass(frozen=True)
class ExactStrategy:
    """A :class:`~schedcc.sched.solve.Strategy`: the *heuristic*'s schedule (default: list
    scheduling, critical path), then CP-SAT within *limits* for the optimum and its proof."""

    limits: Limits = Limits()
    heuristic: Any = None
    name: str = "exact"

    def schedule(self, graph: SchedGraph) -> Schedule:
        from schedcc.sched.solve import ListStrategy
        first = (self.heuristic or ListStrategy()).schedule(graph)
        return exact_schedule(graph, first, self.limits)

    def verify(self, graph: SchedGraph, schedule: Schedule) -> None:
        from schedcc.verifier import verify_schedule
        verify_schedule(graph, schedule.cycle, schedule.unit)

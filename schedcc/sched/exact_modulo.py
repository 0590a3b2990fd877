"""Exact modulo scheduling: the smallest II, proven, and at it the fewest registers (MaxLive).

For II = MII, MII + 1, ... one CP-SAT *feasibility* model per II (docs/exact.md):

* ``t[n] = II * k[n] + r[n]``: the stage ``k`` and the kernel row ``r``, with
  a boolean per (node, row); a ``kernel_end`` node (the loop branch) sits in
  row ``II - 1``;
* every dependence of distance d: ``t[v] + d * II >= t[u] + latency``;
* per row: at most ``issue_width`` issues; per unit instance and row, at most
  one node busy (a node with occupancy o covers o consecutive rows; a node
  that may use several instances chooses one); per extra resource and row, at
  most its capacity; for every union of unit sets, the nodes confined to it
  cover no more of a row than it has units (Hall's condition). When every
  node that holds a unit for several rows has a single unit, that condition
  decides the unit matching exactly, and units are matched after solving
  (:func:`assign_units`): no unit variables, no symmetry between identical
  units; otherwise each node with a choice gets unit literals;
* stages below a bound that contains a schedule if any exists: with the rows
  fixed, the smallest stages are longest paths of ``ceil((latency - d * II -
  r[v] + r[u]) / II)`` over at most n - 1 edges.

The first II the solver finds feasible is the minimal II when every smaller
one was proven infeasible (``status == "optimal"``); an II whose search ran
out of time leaves the answer open (``feasible``, with the smallest II not
ruled out as the bound). The heuristic's II (IMS or swing) is feasible by
construction: the search stops there and uses its schedule as the hint.

At the minimal II a second model minimises MaxLive, the registers the kernel
needs at least (:mod:`schedcc.sched.lifetimes`): a value defined by n lives
from ``t[n]`` to ``e[n]``, its last use (``t[v] + d * II``, one more for the
loop branch); the values alive in row q are ``sum (ke[n] - k[n]) + #{n:
re[n] > q} - #{n: r[n] > q}`` for ``e[n] = II * ke[n] + re[n]``, linear in the
row booleans. The register optimum is over schedules within the stage bound.

Example (a recurrence of latency 4 over one iteration and two operations on
one unit: MII 4)::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)),
    ...                (Dep(0, 1, "RAW", 3), Dep(1, 0, "RAW", 1, distance=1)), Machine("toy", 1, ("ALU",)))
    >>> s = exact_modulo_schedule(g)
    >>> s.ii, s.cycle, s.exact.status, [(a.ii, a.outcome) for a in s.attempts]
    (4, {0: 0, 1: 3}, 'optimal', [(4, 'feasible (CP-SAT)')])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from schedcc.errors import SchedccError
from schedcc.problem import SchedGraph
from schedcc.sched.cpsat import Limits, cp_model, gap_percent, run
from schedcc.sched.exact import HALL_SETS, _unit_unions
from schedcc.sched.lifetimes import defines_value, register_pressure
from schedcc.sched.mii import mii as compute_mii
from schedcc.sched.modulo_relax import component_stage_bound, timeline_model
from schedcc.sched.modulo import Attempt, ModuloSchedule


@dataclass
class ExactModuloInfo:
    """The proof that comes with an exact modulo schedule: ``status`` of the II
    (``optimal``: proven minimal; ``feasible``: ``ii_bound`` is the smallest II not ruled
    out), the registers (MaxLive, its bound and status), the heuristic's schedule."""

    status: str
    ii: int
    ii_bound: int
    max_live: int
    max_live_bound: int
    max_live_status: str
    seconds: float                  # both phases
    ii_seconds: float = 0.0         # finding and proving the II
    heuristic: Any = None           # the heuristic's ModuloSchedule, or None if it failed
    heuristic_error: str = ""
    stopped: str = ""
    stages_bound: int = 0

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"

    @property
    def gap(self) -> float:
        return gap_percent(self.ii, self.ii_bound)

    @property
    def heuristic_ii(self) -> int | None:
        return self.heuristic.ii if self.heuristic is not None else None

    def to_json(self) -> dict[str, Any]:
        """The ``exact`` object of a loop in ``--format json`` (docs/json.md)."""
        return {"status": self.status, "ii": self.ii, "lower_bound": self.ii_bound, "gap": self.gap,
                "seconds": round(self.seconds, 3), "ii_seconds": round(self.ii_seconds, 3), "stopped": self.stopped or None,
                "heuristic_ii": self.heuristic_ii, "heuristic_error": self.heuristic_error or None,
                "max_live": self.max_live, "max_live_bound": self.max_live_bound,
                "max_live_status": self.max_live_status, "stages_bound": self.stages_bound}


def average_live_bound(graph: SchedGraph, ii: int, fresh_uses: frozenset = frozenset()) -> int:
    """A lower bound on MaxLive at *ii* computed without a search (so the same on every
    run): the values alive summed over the II rows are the lifetimes summed, so some row
    holds at least their average. A value lives at least ``max(latency, 1)`` without a
    use, else the longest of its uses' latencies (one more before the loop branch;
    ``latency + II`` for a use in *fresh_uses*), at least 1. O(n + e).

        >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
        >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)),
        ...                (Dep(0, 1, "RAW", 3), Dep(1, 0, "RAW", 1, distance=1)), Machine("toy", 1, ("ALU",)))
        >>> average_live_bound(g, 4)    # (3 + 1) / 4
        1
    """
    total = 0
    for n, op in enumerate(graph.ops):
        if not defines_value(graph, n):
            continue
        uses = [d for d in graph.succ[n] if d.kind == "RAW"]
        if not uses:
            total += max(op.latency, 1)
            continue
        total += max([1] + [max(op.latency, 1) + ii if (n, d.dst) in fresh_uses
                            else d.latency + (1 if graph.ops[d.dst].kernel_end else 0) for d in uses])
    return -(-total // ii)


def stage_bound(graph: SchedGraph, ii: int) -> int:
    """Stages enough for some schedule at *ii* if there is one (module docstring). O(n + e)."""
    out = [0] * len(graph)
    for d in graph.deps:
        out[d.src] = max(out[d.src], math.ceil(d.latency / ii) + 1)
    return 1 + sum(out)


@dataclass
class ModuloModel:
    model: Any
    start: list
    stage: list
    row: list[list]                  # row[n][q]: node n issues in row q
    on: list[dict[str, Any]]         # unit literals of nodes with a choice (empty when by_hall)
    max_live: Any = None
    by_hall: bool = False            # units chosen after solving (:func:`assign_units`)


def modulo_model(graph: SchedGraph, ii: int, width: int, caps: dict[str, int], stages: int,
                 fresh_uses: frozenset = frozenset(), registers: bool = False) -> ModuloModel | None:
    """The model of the module docstring at *ii* (None when a node cannot fit at all);
    with *registers*, the MaxLive objective. O(n * II * units + e) variables and terms."""
    ops, machine = graph.ops, graph.machine
    if not _fits(graph, ii, caps):
        return None
    cp = cp_model()
    m = cp.CpModel()
    n = len(ops)
    horizon = ii * stages
    start = [m.new_int_var(0, horizon - 1, f"t{i}") for i in range(n)]
    stage = [m.new_int_var(0, stages - 1, f"k{i}") for i in range(n)]
    row = [[m.new_bool_var(f"x{i}_{q}") for q in range(ii)] for i in range(n)]
    for i, op in enumerate(ops):
        m.add_exactly_one(row[i])
        m.add(start[i] == ii * stage[i] + sum(q * row[i][q] for q in range(1, ii)))
        if op.kernel_end:
            m.add(row[i][ii - 1] == 1)
    for d in graph.deps:
        if d.src != d.dst:
            m.add(start[d.dst] + d.distance * ii >= start[d.src] + d.latency)
    if n > width:
        for q in range(ii):
            m.add(sum(row[i][q] for i in range(n)) <= width)

    def covering(i: int, q: int, length: int) -> list:
        """The row literals of node i under which it covers row q for *length* rows."""
        return [row[i][r] for r in rows_covering(q, length)]

    def rows_covering(q: int, length: int) -> list[int]:
        return [(q - j) % ii for j in range(length)]

    on: list[dict[str, Any]] = [{} for _ in ops]
    sets = [frozenset(op.units or machine.units) for op in ops]
    family, by_hall = hall_family(graph)
    if not by_hall:
        _unit_literals(m, graph, ii, row, on)
    for s in family:
        inside = [i for i, si in enumerate(sets) if si <= s]
        if (len(s) > 1 or by_hall) and sum(ops[i].occupancy for i in inside) > len(s):
            for q in range(ii):
                m.add(sum(x for i in inside for x in covering(i, q, ops[i].occupancy)) <= len(s))
    holders: dict[str, list[tuple[int, int]]] = {}
    for i, op in enumerate(ops):
        for res, cycles in op.also:
            holders.setdefault(res, []).append((i, cycles))
    for res, held in holders.items():
        cap = caps.get(res, 1)
        if sum(c for _, c in held) > cap:
            for q in range(ii):
                m.add(sum(x for i, c in held for x in covering(i, q, c)) <= cap)
    mm = ModuloModel(m, start, stage, row, on, by_hall=by_hall)
    if registers:
        _register_objective(graph, mm, ii, stages, fresh_uses)
    return mm


def _fits(graph: SchedGraph, ii: int, caps: dict[str, int]) -> bool:
    """Can every node fit at *ii* at all (occupancy, extra resources, self-loops)?"""
    for op in graph.ops:
        if op.occupancy > ii or any(c > ii * caps.get(r, 1) for r, c in op.also):
            return False
    return not any(d.src == d.dst and d.latency > d.distance * ii for d in graph.deps)


def hall_family(graph: SchedGraph) -> tuple[list[frozenset], bool]:
    """The unions of the nodes' unit sets, and whether Hall's condition on them decides the
    unit matching exactly: when every node that holds a unit for several rows has one unit
    (it then keeps the same one) and the family of unions is complete; units are then
    assigned after solving (:func:`assign_units`)."""
    sets = [frozenset(op.units or graph.machine.units) for op in graph.ops]
    family = _unit_unions(list(set(sets)))
    return family, all(op.occupancy <= 1 or len(sets[i]) == 1 for i, op in enumerate(graph.ops)) and \
        len(family) < HALL_SETS


def _unit_literals(m, graph: SchedGraph, ii: int, row: list[list], on: list[dict[str, Any]]) -> None:
    """Explicit unit choices: per unit instance and row at most one node busy."""
    ops, machine = graph.ops, graph.machine
    per_unit: dict[str, list[tuple[int, Any]]] = {}
    for i, op in enumerate(ops):
        units = op.units or machine.units
        if len(units) == 1:
            per_unit.setdefault(units[0], []).append((i, None))
            continue
        for u in units:
            on[i][u] = m.new_bool_var(f"on{i}_{u}")
            per_unit.setdefault(u, []).append((i, on[i][u]))
        m.add_exactly_one(on[i].values())
    both: dict[tuple[int, str, int], Any] = {}
    for u, users in per_unit.items():
        if sum(ops[i].occupancy for i, _ in users) <= 1:
            continue
        for q in range(ii):
            terms = []
            for i, lit in users:
                for r in [(q - j) % ii for j in range(ops[i].occupancy)]:
                    x = row[i][r]
                    if lit is None:
                        terms.append(x)
                        continue
                    key = (i, u, r)
                    if key not in both:  # node i in row r on unit u
                        z = both[key] = m.new_bool_var(f"z{i}_{u}_{r}")
                        m.add_implication(z, x)
                        m.add_implication(z, lit)
                        m.add_bool_or([z, x.Not(), lit.Not()])
                    terms.append(both[key])
            m.add(sum(terms) <= 1)


def assign_units(graph: SchedGraph, ii: int, cycle: dict[int, int]) -> dict[int, str]:
    """A unit per node, given rows that satisfy Hall's condition: per row, the nodes with
    one unit keep it and the others are matched to the free units (augmenting paths).
    O(II * n * units^2)."""
    ops, machine = graph.ops, graph.machine
    unit: dict[int, str] = {}
    taken: dict[int, set[str]] = {q: set() for q in range(ii)}
    for i, op in enumerate(ops):
        units = op.units or machine.units
        if len(units) == 1:
            unit[i] = units[0]
            for j in range(op.occupancy):
                taken[(cycle[i] + j) % ii].add(units[0])
    for q in range(ii):
        owner: dict[str, int] = {}
        for i in (i for i in range(len(ops)) if i not in unit and cycle[i] % ii == q):
            if not _augment(i, ops, machine, taken[q], owner, set()):
                raise RuntimeError(f"no unit for node {i} in row {q}: Hall's condition was not kept")
        for u, i in owner.items():
            unit[i] = u
    return unit


def _augment(i: int, ops, machine, taken: set[str], owner: dict[str, int], seen: set[str]) -> bool:
    for u in ops[i].units or machine.units:
        if u in taken or u in seen:
            continue
        seen.add(u)
        if u not in owner or _augment(owner[u], ops, machine, taken, owner, seen):
            owner[u] = i
            return True
    return False


def _register_objective(graph: SchedGraph, mm: ModuloModel, ii: int, stages: int, fresh_uses: frozenset) -> None:
    m, ops = mm.model, graph.ops
    top = ii * (stages + max((d.distance for d in graph.deps), default=0) + 2) + max(
        (op.latency for op in ops), default=0)
    live_terms, rows_after = [], [[] for _ in range(ii)]
    for n in range(len(ops)):
        if not defines_value(graph, n):
            continue
        uses = [d for d in graph.succ[n] if d.kind == "RAW"]
        end = m.new_int_var(0, top + ii, f"e{n}")
        if uses:
            m.add(end >= mm.start[n] + 1)
            for d in uses:
                if (n, d.dst) in fresh_uses:
                    m.add(end >= mm.start[n] + max(ops[n].latency, 1) + ii)
                else:
                    m.add(end >= mm.start[d.dst] + d.distance * ii + (1 if ops[d.dst].kernel_end else 0))
        else:
            m.add(end == mm.start[n] + max(ops[n].latency, 1))
        ke = m.new_int_var(0, top // ii + 1, f"ke{n}")
        xe = [m.new_bool_var(f"xe{n}_{q}") for q in range(ii)]
        m.add_exactly_one(xe)
        m.add(end == ii * ke + sum(q * xe[q] for q in range(1, ii)))
        live_terms += [ke, -mm.stage[n]]
        for q in range(ii):
            rows_after[q] += [xe[r] for r in range(q + 1, ii)] + [-mm.row[n][r] for r in range(q + 1, ii)]
    mm.max_live = m.new_int_var(0, len(ops) * (top // ii + 2), "max_live")
    for q in range(ii):
        m.add(mm.max_live >= sum(live_terms) + sum(rows_after[q]))
    m.minimize(mm.max_live)


def _hint(mm: ModuloModel, ii: int, cycle: dict[int, int], unit: dict[int, str]) -> None:
    m = mm.model
    for i, var in enumerate(mm.start):
        m.add_hint(var, cycle[i])
        m.add_hint(mm.stage[i], cycle[i] // ii)
        for q, x in enumerate(mm.row[i]):
            m.add_hint(x, cycle[i] % ii == q)
        for u, lit in mm.on[i].items():
            m.add_hint(lit, unit[i] == u)


def _decode(graph: SchedGraph, mm: ModuloModel, out) -> tuple[dict[int, int], dict[int, str]]:
    cycle = {i: out.value(v) for i, v in enumerate(mm.start)}
    if mm.by_hall:
        return cycle, assign_units(graph, len(mm.row[0]), cycle)
    unit = {}
    for i, op in enumerate(graph.ops):
        units = op.units or graph.machine.units
        unit[i] = next((u for u, lit in mm.on[i].items() if out.value(lit)), units[0])
    return cycle, unit


def exact_modulo_schedule(graph: SchedGraph, heuristic: ModuloSchedule | None = None, limits: Limits | None = None,
                          capacity: dict[str, int] | None = None, fresh_uses: frozenset = frozenset(),
                          heuristic_error: str = "") -> ModuloSchedule:
    """The minimal II (proven, or the best found with a bound) and at it the fewest
    registers; see the module docstring. *heuristic* (a modulo schedule of *graph*)
    is the upper bound on II and the hint; each solve gets *limits*. Raises
    :class:`SchedccError` when no II up to the modulo scheduler's limit works."""
    limits = limits or Limits()
    width = graph.machine.issue_width
    caps = {**dict(graph.machine.capacity), **(capacity or {})}
    try:
        bounds = compute_mii(graph, width, caps)
    except ValueError as err:
        raise SchedccError(str(err)) from None
    lat_sum = sum(op.latency + op.occupancy for op in graph.ops)
    top = heuristic.ii if heuristic is not None else max(bounds.value, lat_sum) * 2 + 8
    attempts: list[Attempt] = []
    seconds, open_ii, stopped = 0.0, None, ""
    family, by_hall = hall_family(graph)
    found = None
    for ii in range(bounds.value, top + 1):
        if heuristic is not None and ii == heuristic.ii:
            found = (ii, graph.by_node(heuristic.cycle), graph.by_node(heuristic.unit))
            attempts.append(Attempt(ii, f"feasible ({heuristic.algorithm})"))
            break
        if not _fits(graph, ii, caps):
            attempts.append(Attempt(ii, "infeasible (an operation cannot fit)"))
            continue
        tight = component_stage_bound(graph, ii)
        stages = min(stage_bound(graph, ii), tight) if tight is not None else stage_bound(graph, ii)
        relaxed, _ = timeline_model(graph, ii, width, caps, stages, family, copies=2)
        first = run(relaxed, limits.share(0.2))
        seconds += first.seconds
        if first.status == "infeasible":
            attempts.append(Attempt(ii, "infeasible (proven by CP-SAT on two overlapped iterations)"))
            continue
        # The rows prove infeasibility best, the exact time line (a copy per stage, when Hall's
        # condition decides the units) finds schedules best: half the time each (docs/exact.md).
        mm = modulo_model(graph, ii, width, caps, stages, fresh_uses)
        out = run(mm.model, limits.share(0.5) if by_hall else limits)
        seconds += out.seconds
        if by_hall and out.status == "unknown":
            model, start = timeline_model(graph, ii, width, caps, stages, family, copies=stages + 1)
            out, mm = run(model, limits.share(0.5)), None
            seconds += out.seconds
        if out.status == "infeasible":
            attempts.append(Attempt(ii, "infeasible (proven by CP-SAT)"))
        elif out.status == "unknown":
            attempts.append(Attempt(ii, f"open: the {out.stopped} ran out"))
            open_ii = open_ii if open_ii is not None else ii
            stopped = out.stopped
        else:
            if mm is None:
                cycle = {i: out.value(v) for i, v in enumerate(start)}
                found = (ii, cycle, assign_units(graph, ii, cycle))
            else:
                found = (ii, *_decode(graph, mm, out))
            attempts.append(Attempt(ii, "feasible (CP-SAT)"))
            break
    if found is None:
        raise SchedccError(f"no modulo schedule found with II up to {top}",
                           notes=[f"II {a.ii}: {a.outcome}" for a in attempts[-3:]])
    ii, cycle, unit = found
    ii_seconds = seconds
    stages = max(stage_bound(graph, ii), max(cycle.values()) // ii + 1)
    mm = modulo_model(graph, ii, width, caps, stages, fresh_uses, registers=True)
    _hint(mm, ii, cycle, unit)
    out = run(mm.model, limits)
    seconds += out.seconds
    if out.status in ("optimal", "feasible"):
        cycle, unit = _decode(graph, mm, out)
    if out.status != "optimal" and out.stopped:  # the registers' search was cut: say so, as the II's would be
        stopped = stopped or f"{out.stopped} (registers)"
    live = register_pressure(graph, ii, cycle, fresh_uses).max_live
    live_bound = max(int(math.ceil(out.bound - 1e-6)) if out.bound is not None else 0,
                     average_live_bound(graph, ii, fresh_uses))
    live_status = "optimal" if out.status == "optimal" or live <= live_bound else "feasible"
    shift = min(cycle.values(), default=0) // ii * ii
    cycle = {n: t - shift for n, t in cycle.items()}
    info = ExactModuloInfo("optimal" if open_ii is None else "feasible", ii, open_ii or ii, live,
                           live if live_status == "optimal" else live_bound, live_status, seconds, ii_seconds,
                           heuristic, heuristic_error, stopped, stages)
    return ModuloSchedule(graph, ii, graph.by_key(cycle), graph.by_key(unit), "exact", bounds, width, attempts,
                          0, info)


@dataclass(frozen=True)
class ExactModuloStrategy:
    """A :class:`~schedcc.sched.solve.Strategy`: the *heuristic* modulo scheduler (default
    IMS) for an upper bound and a hint, then :func:`exact_modulo_schedule`."""

    limits: Limits = Limits()
    heuristic: Any = None
    fresh_uses: frozenset = field(default_factory=frozenset)
    name: str = "exact-modulo"

    def schedule(self, graph: SchedGraph) -> ModuloSchedule:
        from schedcc.sched.solve import ModuloStrategy
        first, error = None, ""
        try:
            first = (self.heuristic or ModuloStrategy()).schedule(graph)
        except SchedccError as err:  # the exact search may still find one
            error = err.message
        return exact_modulo_schedule(graph, first, self.limits, fresh_uses=self.fresh_uses, heuristic_error=error)

    def verify(self, graph: SchedGraph, schedule: ModuloSchedule) -> None:
        from schedcc.verifier import verify_modulo
        verify_modulo(graph, schedule.ii, schedule.cycle, schedule.unit, schedule.issue_width)

"""Modulo scheduling: the II search around Rau's IMS and Llosa's Swing Modulo Scheduling.

A modulo schedule gives every operation of one loop iteration an issue cycle
``t`` and a unit; iteration k issues it at ``k * II + t``. It is valid when
every dependence u -> v of distance d holds across iterations,
``t(v) + d * II >= t(u) + latency``, and no resource is used twice in the same
row ``t mod II`` of the *modulo reservation table* (MRT).

* ``ims`` (Rau, 1994, :mod:`schedcc.sched.ims`): height order, placement with
  eviction, a budget of placements per II;
* ``swing`` (Llosa et al., 1996, :mod:`schedcc.sched.swing`): recurrences
  first, every operation next to its placed neighbours (fewer registers).

:func:`modulo_schedule` starts at the MII (:mod:`schedcc.sched.mii`); when
that fails it gallops (MII + 1, + 3, + 7, ...: steps double) to an II that
works, then bisects between the last failure and it, so a loop whose II ends
k above the MII costs O(log k) attempts, not k (IMS is not monotonic in II:
an II between may work where a larger one failed; the search does not look
for it). At the MII, when IMS runs out of budget, it tries once more with free slots only
before each node's placed successors (``late`` in :mod:`schedcc.sched.ims`,
budget :data:`LATE_BUDGET_RATIO` placements per node), before the II grows. When the II found is MII + 1, IMS restarts at the MII up to
:data:`IMS_RESTARTS` times with equal heights in a seeded shuffled order (a
bounded repair for a near miss: on ``hydro`` on ``la664`` the height order's
ties decide whether the exactly full kernel of II 2 is found).
On a machine that writes results in issue order, when the II found is above
the MII and no ``accept`` rejection raised it, the same search runs once more
without the write-back rule, below that II (:attr:`ModuloSchedule.writeback_ii`):
when it finds a smaller II, the rule is what raised it, and the reports say so.
It reads only the :class:`~schedcc.problem.SchedGraph`
(``kernel_end`` marks an operation that must issue in the last row of the
kernel, like the loop branch; ``distance`` on dependences), so Ascend
operator graphs use it as they are. An ``accept(schedule)`` callback may
reject a schedule (``False`` or a reason string); with IMS, swing's schedule at the
same II is offered before II grows when its MaxLive is lower (shorter lifetimes).

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> alu = ("ALU0", "ALU1")
    >>> g = SchedGraph(tuple(Op(f"n{k}", alu, 2) for k in range(3)),
    ...                (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 2), Dep(2, 2, "RAW", 2, distance=1)),
    ...                Machine("toy", 2, alu))
    >>> s = modulo_schedule(g)   # issue width 2: row 0 is full with nodes 0 and 1
    >>> s.ii, s.stages, [s.cycle[n] for n in range(3)]
    (2, 3, [0, 2, 5])
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Callable


from schedcc.errors import SchedccError
from schedcc.problem import SchedGraph, as_graph
from schedcc.sched.ims import ims
from schedcc.sched.lifetimes import register_pressure, stage_schedule
from schedcc.sched.mii import MII, mii as compute_mii
from schedcc.sched.mrt import LoopStructure
from schedcc.sched.swing import swing
from schedcc.target import Target, load_target

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads only where a networkx graph is passed in
    import networkx as nx

ALGORITHMS = {
    "ims": "Rau's Iterative Modulo Scheduling: height priority, eviction, budget (default)",
    "swing": "Swing Modulo Scheduling (Llosa): recurrences first, neighbours close together (fewer registers)",
}
DEFAULT_BUDGET_RATIO = 6
IMS_RESTARTS = 8  # shuffled-tie restarts of IMS at the MII
LATE_BUDGET_RATIO = 3  # IMS's second try at the MII, with latest starts (it needed 2 placements per node at most on the corpus)


@dataclass
class Attempt:
    """One II the scheduler tried, and what happened."""

    ii: int
    outcome: str  # "scheduled", "budget exhausted after N placements", "rejected: ..."
    placements: int = 0
    evictions: int = 0


@dataclass(repr=False)
class ModuloSchedule:
    """A modulo schedule: ``cycle[n]`` (flat, first iteration, >= 0) and ``unit[n]`` per node.

    Nodes are named by the graph's keys (its node numbers unless it names them,
    as a graph read from networkx does). ``stage(n) = cycle[n] // ii`` and
    ``row(n) = cycle[n] % ii``; ``algorithm`` says which scheduler produced it,
    ``attempts`` what it tried on the way.
    """

    graph: SchedGraph
    ii: int
    cycle: dict[int, int]
    unit: dict[int, str]
    algorithm: str
    mii: MII
    issue_width: int
    attempts: list[Attempt] = field(default_factory=list)
    stage_moves: int = 0  # operations moved by whole stages to shorten lifetimes
    exact: Any = None     # the exact strategy's proof: schedcc.sched.exact_modulo.ExactModuloInfo
    # In-order write-back machines, II above the MII: the II the same search finds
    # without the write-back rule, when smaller (the rule raised the II); else None.
    writeback_ii: int | None = None

    @property
    def dag(self) -> SchedGraph:
        """The graph (the name older code used)."""
        return self.graph

    def stage(self, node: int) -> int:
        return self.cycle[node] // self.ii

    def row(self, node: int) -> int:
        return self.cycle[node] % self.ii

    @property
    def stages(self) -> int:
        return max((c // self.ii for c in self.cycle.values()), default=0) + 1

    def __repr__(self) -> str:
        return (f"<ModuloSchedule {self.algorithm}: II {self.ii} (MII {self.mii.value}, "
                f"{self.mii.bound_by}), {self.stages} stages, {len(self.cycle)} ops>")

    @property
    def length(self) -> int:
        """Cycles from the first issue of one iteration to its last result."""
        ops, index = self.graph.ops, self.graph.index
        return max((c + ops[index[n]].latency for n, c in self.cycle.items()), default=0)


AcceptFunction = Callable[[ModuloSchedule], "bool | str | None"]


def _restarts(structure: LoopStructure, ii: int, width: int, caps: dict, budget_ratio: float, attempt: Attempt):
    """IMS again at *ii* with ties in the height order broken by seeded shuffles; the
    first schedule found, or None. *attempt* counts all the work."""
    for seed in range(IMS_RESTARTS):
        rng = random.Random(seed)
        jitter = [rng.random() * 0.5 for _ in range(len(structure.graph))]
        scratch = Attempt(ii, "")  # each restart has the whole budget
        found = ims(structure, ii, width, caps, budget_ratio, scratch, jitter=jitter)
        attempt.placements += scratch.placements
        attempt.evictions += scratch.evictions
        if found is not None:
            attempt.outcome = f"scheduled at restart {seed + 1} (ties shuffled)"
            return found
    attempt.outcome = f"{IMS_RESTARTS} restarts with ties shuffled failed"
    return None


def _max_live(s: ModuloSchedule) -> int:
    return register_pressure(s.graph, s.ii, s.cycle).max_live


def _without_writeback(graph: SchedGraph, width: int, algorithm: str, capacity, budget_ratio: float,
                       min_ii: int | None, ii: int) -> int | None:
    """The II the same search finds below *ii* on *graph*'s machine with results written
    out of order, or None: what the in-order write-back rule cost."""
    free = graph.replace(machine=replace(graph.machine, in_order_writeback=False))
    try:
        other = modulo_schedule(free, width, algorithm=algorithm, capacity=capacity, budget_ratio=budget_ratio,
                                max_ii=ii - 1, min_ii=min_ii, stage_scheduling=False)
    except SchedccError:
        return None
    return other.ii


def modulo_schedule(graph: SchedGraph | nx.DiGraph, target: Target | str | int | None = None, *,
                    algorithm: str = "ims", capacity: dict[str, int] | None = None,
                    budget_ratio: float = DEFAULT_BUDGET_RATIO, accept: AcceptFunction | None = None,
                    max_ii: int | None = None, min_ii: int | None = None,
                    stage_scheduling: bool = True) -> ModuloSchedule:
    """Modulo-schedule *graph* on its machine (*target*, a model or an issue width, only
    overrides the issue width; it also reads a plain ``networkx.DiGraph``).

    II starts at the MII (or *min_ii* if larger) and grows when the scheduler
    fails at it or *accept* rejects the schedule (returns ``False`` or a reason
    string; ``True``/``None`` accepts). *capacity* gives the number of copies of
    extra (``also``) resources (default: the machine's, else 1, which is exact;
    with more, holders are counted per row, as for a pool of buffers). With
    *stage_scheduling* (the default) operations are then moved by whole stages
    to shorten lifetimes (:func:`schedcc.sched.lifetimes.stage_schedule`; II and
    resources are unchanged). Raises :class:`SchedccError` when no II up to
    *max_ii* works.
    """
    if algorithm not in ALGORITHMS:
        raise SchedccError(f"unknown modulo scheduler '{algorithm}'", notes=[f"choose one of: {', '.join(ALGORITHMS)}"])
    graph = as_graph(graph)
    if isinstance(target, int):
        width = target
    elif target is not None:
        width = load_target(target).issue_width
    else:
        width = graph.machine.issue_width
    caps = {**dict(graph.machine.capacity), **(capacity or {})}
    try:
        bounds = compute_mii(graph, width, caps)
    except ValueError as err:
        raise SchedccError(str(err)) from None
    for op in graph.ops:
        for res, _ in op.also:
            caps.setdefault(res, 1)
    lat_sum = sum(op.latency + op.occupancy for op in graph.ops)
    limit = max_ii if max_ii is not None else max(bounds.value, lat_sum) * 2 + 8
    first = max(bounds.value, min_ii or 1)
    attempts: list[Attempt] = []
    run = ims if algorithm == "ims" else swing
    structure = LoopStructure(graph)

    def build(ii: int, found: tuple) -> ModuloSchedule:
        cycle, unit = found
        shift = -(min(cycle.values(), default=0) // ii) * ii
        cycle = {n: t + shift for n, t in cycle.items()}
        moved = 0
        if stage_scheduling:
            cycle, moved = stage_schedule(graph, ii, cycle)
        return ModuloSchedule(graph, ii, graph.by_key(cycle), graph.by_key(unit), algorithm, bounds, width,
                              attempts, moved)

    def attempt_at(ii: int, restarts: bool = False) -> tuple | None:
        """(ii, the scheduler's cycles and units, the schedule if built), or None."""
        attempt = Attempt(ii, "")
        attempts.append(attempt)
        if restarts:
            found = _restarts(structure, ii, width, caps, budget_ratio, attempt)
        else:
            found = run(structure, ii, width, caps, budget_ratio, attempt)
            if found is None and algorithm == "ims" and ii == first:   # again, free slots only before placed successors
                again = Attempt(ii, "")
                found = ims(structure, ii, width, caps, LATE_BUDGET_RATIO, again, late=True)
                attempt.placements += again.placements
                attempt.evictions += again.evictions
                attempt.outcome = (f"{attempt.outcome}; with latest starts: "
                                   + ("scheduled" if found is not None else again.outcome))
        if found is None:
            return None
        sched = None
        if accept is not None:  # else the schedule is built for the II chosen only
            sched = build(ii, found)
            verdict = accept(sched)
            if verdict is not True and verdict is not None and algorithm == "ims":
                # Swing's schedule at the same II keeps lifetimes short: fewer registers.
                other = swing(structure, ii, width, caps, budget_ratio, Attempt(ii, ""))
                alt = build(ii, other) if other is not None else None
                if alt is not None and _max_live(alt) < _max_live(sched):   # else no better for registers
                    alt.algorithm = "swing"
                    again = accept(alt)
                    if again is True or again is None:
                        attempt.outcome = "IMS's schedule rejected; swing's accepted"
                        return ii, other, alt
            if verdict is not True and verdict is not None:
                attempt.outcome = "rejected: " + (verdict if isinstance(verdict, str)
                                                  else "the accept() callback said no")
                return None
        attempt.outcome = attempt.outcome or "scheduled"
        return ii, found, sched

    best = attempt_at(first) if first <= limit else None
    lo, step = first, 1
    while best is None and lo < limit:  # gallop: failures at lo; steps double
        ii = min(lo + step, limit)
        best = attempt_at(ii)
        if best is None:
            lo, step = ii, step * 2
    if best is not None:
        hi = best[0]
        while hi - lo > 1:  # bisect back (a search: IMS does not always fail below an II it fails at)
            mid = (lo + hi) // 2
            got = attempt_at(mid)
            if got is None:
                lo = mid
            else:
                best, hi = got, mid
        if algorithm == "ims" and best[0] == bounds.value + 1 == first + 1 and len(graph) > 1:
            # One II above the bound: IMS again at the MII with its ties shuffled.
            best = attempt_at(first, restarts=True) or best
        ii, found, sched = best
        sched = sched if sched is not None else build(ii, found)
        if (graph.machine.in_order_writeback and ii > bounds.value
                and not any(a.outcome.startswith("rejected") for a in attempts)):
            sched.writeback_ii = _without_writeback(graph, width, algorithm, capacity, budget_ratio, min_ii, ii)
        return sched
    raise SchedccError(f"no modulo schedule found with II up to {limit}",
                       notes=[f"II {a.ii}: {a.outcome}" for a in attempts[-3:]])

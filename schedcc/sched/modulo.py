"""Modulo scheduling: Rau's Iterative Modulo Scheduling and Llosa's Swing Modulo Scheduling.

A modulo schedule gives every operation of one loop iteration an issue cycle
``t`` and a unit; iteration k issues it at ``k * II + t``. It is valid when
every dependence u -> v of distance d holds across iterations,
``t(v) + d * II >= t(u) + latency``, and no resource is used twice in the same
row ``t mod II`` of the *modulo reservation table* (MRT).

* ``ims`` (Rau, 1994): operations by decreasing height (longest latency path
  to the end, with ``latency - II * distance`` on loop-carried edges). Each is
  placed in the first cycle of ``[Estart, Estart + II - 1]`` whose MRT row has
  a free unit; when none has, it is forced in and the operations in its way
  (resource conflicts, and successors whose dependence it breaks) are evicted
  to be scheduled again. A budget of ``budget_ratio * n`` placements per II;
  only when it runs out does II grow.
* ``swing`` (Llosa et al., 1996): recurrences first, then a bidirectional
  order that places every operation next to its already-placed neighbours
  (as early as possible after its predecessors, as late as possible before its
  successors), which keeps lifetimes, hence registers, short. No eviction: on
  failure II grows.

The entry point :func:`modulo_schedule` reads only node attributes
(``latency units occupancy also``, and ``kernel_end`` for an operation that
must issue in the last row of the kernel, like the loop branch) and edge
attributes (``latency distance``), so graphs that do not come from the IR
(Ascend operator graphs) use it as they are. An ``accept(schedule)`` callback
may reject a schedule (``False`` or a reason string); II then grows.

Complexity per II: IMS O(B * (II * u + e/n)) for a budget of B placements and
u units per operation; SMS O(n * II * u + e). The MII is computed once
(:mod:`schedcc.sched.mii`).

Example::

    >>> import networkx as nx
    >>> g = nx.DiGraph()
    >>> for n in range(3): g.add_node(n, latency=2, units=("ALU0", "ALU1"))
    >>> g.add_edge(0, 1, latency=2, distance=0); g.add_edge(1, 2, latency=2, distance=0)
    >>> g.add_edge(2, 2, latency=2, distance=1)
    >>> s = modulo_schedule(g, 2)  # issue width 2: row 0 is full with nodes 0 and 1
    >>> s.ii, s.stages, [s.cycle[n] for n in range(3)]
    (2, 3, [0, 2, 5])
"""

from __future__ import annotations

import heapq
import weakref
from dataclasses import dataclass, field
from typing import Callable, Hashable

import networkx as nx

from ..errors import SchedccError
from ..target import Target, load_target
from .lifetimes import stage_schedule
from .mii import MII, mii as compute_mii, resource_capacities

ALGORITHMS = {
    "ims": "Rau's Iterative Modulo Scheduling: height priority, eviction, budget (default)",
    "swing": "Swing Modulo Scheduling (Llosa): recurrences first, neighbours close together (fewer registers)",
}
DEFAULT_BUDGET_RATIO = 6


@dataclass
class Attempt:
    """One II the scheduler tried, and what happened."""

    ii: int
    outcome: str  # "scheduled", "budget exhausted after N placements", "rejected: ..."
    placements: int = 0
    evictions: int = 0


@dataclass
class ModuloSchedule:
    """A modulo schedule: ``cycle[n]`` (flat, first iteration, >= 0) and ``unit[n]`` per node.

    ``stage(n) = cycle[n] // ii`` and ``row(n) = cycle[n] % ii``; ``algorithm``
    says which scheduler produced it, ``attempts`` what it tried on the way.
    """

    dag: nx.DiGraph
    ii: int
    cycle: dict[Hashable, int]
    unit: dict[Hashable, str]
    algorithm: str
    mii: MII
    issue_width: int
    attempts: list[Attempt] = field(default_factory=list)
    stage_moves: int = 0  # operations moved by whole stages to shorten lifetimes

    def stage(self, node: Hashable) -> int:
        return self.cycle[node] // self.ii

    def row(self, node: Hashable) -> int:
        return self.cycle[node] % self.ii

    @property
    def stages(self) -> int:
        return max((c // self.ii for c in self.cycle.values()), default=0) + 1

    @property
    def length(self) -> int:
        """Cycles from the first issue of one iteration to its last result."""
        lat = self.dag.nodes
        return max((c + lat[n].get("latency", 1) for n, c in self.cycle.items()), default=0)


AcceptFunction = Callable[[ModuloSchedule], "bool | str | None"]


def modulo_schedule(dag: nx.DiGraph, target: Target | str | int, *, algorithm: str = "ims",
                    capacity: dict[str, int] | None = None, budget_ratio: float = DEFAULT_BUDGET_RATIO,
                    accept: AcceptFunction | None = None, max_ii: int | None = None,
                    min_ii: int | None = None, stage_scheduling: bool = True) -> ModuloSchedule:
    """Modulo-schedule *dag* (nodes with ``latency units occupancy also``; edges with
    ``latency distance``) for *target* (a machine model, or just an issue width).

    II starts at the MII (or *min_ii* if larger) and grows when the scheduler
    fails at it or *accept* rejects the schedule (returns ``False`` or a reason
    string; ``True``/``None`` accepts). *capacity* gives the number of copies of
    extra (``also``) resources (default 1 each, which is exact; with more, holders
    are counted per row, as for a pool of buffers). With *stage_scheduling* (the
    default) operations are then moved by whole stages to shorten lifetimes
    (:func:`schedcc.sched.lifetimes.stage_schedule`; II and resources are
    unchanged). Raises :class:`SchedccError` when no II up to *max_ii* works.
    """
    if algorithm not in ALGORITHMS:
        raise SchedccError(f"unknown modulo scheduler '{algorithm}'", notes=[f"choose one of: {', '.join(ALGORITHMS)}"])
    width = target if isinstance(target, int) else load_target(target).issue_width
    try:
        bounds = compute_mii(dag, width, capacity)
    except ValueError as err:
        raise SchedccError(str(err)) from None
    caps = resource_capacities(dag, capacity=capacity)
    lat_sum = sum(d.get("latency", 1) + d.get("occupancy", 1) for _, d in dag.nodes(data=True))
    limit = max_ii if max_ii is not None else max(bounds.value, lat_sum) * 2 + 8
    ii = max(bounds.value, min_ii or 1)
    attempts: list[Attempt] = []
    run = _ims if algorithm == "ims" else _swing
    while ii <= limit:
        attempt = Attempt(ii, "")
        found = run(dag, ii, width, caps, budget_ratio, attempt)
        if found is None:
            attempts.append(attempt)
            ii += 1
            continue
        cycle, unit = found
        shift = -(min(cycle.values(), default=0) // ii) * ii
        cycle = {n: t + shift for n, t in cycle.items()}
        moved = 0
        if stage_scheduling:
            cycle, moved = stage_schedule(dag, ii, cycle)
        sched = ModuloSchedule(dag, ii, cycle, unit, algorithm, bounds, width, attempts, moved)
        verdict = accept(sched) if accept is not None else True
        if verdict is True or verdict is None:
            attempt.outcome = attempt.outcome or "scheduled"
            attempts.append(attempt)
            return sched
        attempt.outcome = "rejected: " + (verdict if isinstance(verdict, str) else "the accept() callback said no")
        attempts.append(attempt)
        ii += 1
    raise SchedccError(f"no modulo schedule found with II up to {limit}",
                       notes=[f"II {a.ii}: {a.outcome}" for a in attempts[-3:]])


# -- the modulo reservation table --------------------------------------------------------------

class _MRT:
    """Per row: issue slots used, unit owner, extra-resource holders."""

    def __init__(self, ii: int, width: int, caps: dict[str, int], nodes):
        self.ii, self.width, self.caps, self.nodes = ii, width, caps, nodes
        self.issue: list[list] = [[] for _ in range(ii)]
        self.owner: dict[tuple[str, int], Hashable] = {}
        self.extra: dict[tuple[str, int], list] = {}
        # Try the units fewest operations can use first: an ALU add should leave
        # ALU0/ALU1 to the multiplies and branches that can run nowhere else.
        demand: dict[str, int] = {}
        for m in nodes:
            for u in nodes[m].get("units") or ("ISSUE",):
                demand[u] = demand.get(u, 0) + 1
        self.choices = {m: sorted(nodes[m].get("units") or ("ISSUE",), key=lambda u: demand[u]) for m in nodes}

    def _rows(self, t: int, k: int) -> list[int]:
        return [(t + j) % self.ii for j in range(k)]

    def conflicts(self, n: Hashable, t: int, unit: str) -> set | None:
        """Nodes in the way of placing *n* at *t* on *unit* (None: impossible at any eviction)."""
        d = self.nodes[n]
        occ = d.get("occupancy", 1)
        if occ > self.ii:
            return None
        out: set = set()
        row = t % self.ii
        if len(self.issue[row]) >= self.width:
            out.add(self.issue[row][0])
        for r in self._rows(t, occ):
            o = self.owner.get((unit, r))
            if o is not None:
                out.add(o)
        for res, cycles in d.get("also", ()):
            if cycles > self.ii * self.caps.get(res, 1):
                return None
            for r in self._rows(t, cycles):
                holders = self.extra.get((res, r), [])
                if len(holders) >= self.caps.get(res, 1):
                    out.add(holders[-1])
        return out

    def best_unit(self, n: Hashable, t: int) -> tuple[str, set] | None:
        best = None
        for unit in self.choices[n]:
            c = self.conflicts(n, t, unit)
            if c is not None and (best is None or len(c) < len(best[1])):
                best = (unit, c)
                if not c:
                    break
        return best

    def place(self, n: Hashable, t: int, unit: str) -> None:
        d = self.nodes[n]
        self.issue[t % self.ii].append(n)
        for r in self._rows(t, d.get("occupancy", 1)):
            self.owner[(unit, r)] = n
        for res, cycles in d.get("also", ()):
            for r in self._rows(t, cycles):
                self.extra.setdefault((res, r), []).append(n)

    def remove(self, n: Hashable, t: int, unit: str) -> None:
        d = self.nodes[n]
        self.issue[t % self.ii].remove(n)
        for r in self._rows(t, d.get("occupancy", 1)):
            if self.owner.get((unit, r)) == n:
                del self.owner[(unit, r)]
        for res, cycles in d.get("also", ()):
            for r in self._rows(t, cycles):
                self.extra[(res, r)].remove(n)


def _slots(n, lo: int, hi: int, ii: int, nodes, step: int = 1) -> range:
    """Candidate cycles from lo to hi; a kernel_end node only in the kernel's last row."""
    if nodes[n].get("kernel_end"):
        if step > 0:
            first = lo + ((ii - 1 - lo) % ii)
            return range(first, hi + 1, ii)
        first = hi - ((hi - (ii - 1)) % ii)
        return range(first, lo - 1, -ii)
    return range(lo, hi + 1) if step > 0 else range(hi, lo - 1, -1)


class _Structure:
    """What the schedulers need about a graph that does not depend on II, computed once."""

    def __init__(self, dag: nx.DiGraph):
        self.key = (dag.number_of_nodes(), dag.number_of_edges())
        self.edges = [(u, v, d["latency"], d.get("distance", 0)) for u, v, d in dag.edges(data=True)]
        try:
            order = list(nx.topological_sort(nx.DiGraph((u, v) for u, v, _, dist in self.edges
                                                        if dist == 0 and u != v)))
        except nx.NetworkXUnfeasible:
            order = []
        self.rank = {n: k for k, n in enumerate(order)}
        self.recurrences = []  # (latency sum, distance sum, nodes) of each cyclic SCC
        for comp in nx.strongly_connected_components(dag):
            if len(comp) > 1 or any(dag.has_edge(n, n) for n in comp):
                sub = dag.subgraph(comp)
                lat = sum(d["latency"] for _, _, d in sub.edges(data=True))
                dist = sum(d.get("distance", 0) for _, _, d in sub.edges(data=True)) or 1
                self.recurrences.append((lat, dist, set(comp)))
        self.preds = {n: [] for n in dag.nodes}   # n -> [(predecessor, latency, distance)], no self-loops
        self.succs = {n: [] for n in dag.nodes}
        for u, v, lat, dist in self.edges:
            if u != v:
                self.preds[v].append((u, lat, dist))
                self.succs[u].append((v, lat, dist))
        self.preds0 = {n: [p for p, d in dag.pred[n].items() if d.get("distance", 0) == 0] for n in dag.nodes}
        self.succs0 = {n: [v for v, d in dag.succ[n].items() if d.get("distance", 0) == 0] for n in dag.nodes}


_STRUCTURES: "weakref.WeakKeyDictionary[nx.DiGraph, _Structure]" = weakref.WeakKeyDictionary()


def _structure(dag: nx.DiGraph) -> _Structure:
    st = _STRUCTURES.get(dag)
    if st is None or st.key != (dag.number_of_nodes(), dag.number_of_edges()):
        st = _STRUCTURES[dag] = _Structure(dag)
    return st


def _longest_paths(dag: nx.DiGraph, ii: int, reverse: bool) -> dict:
    """Height (reverse=False: to the end, own latency included) or depth (earliest start)
    with edge weights latency - II*distance; Bellman-Ford style relaxation, O(n*e) worst case
    (a few passes in practice: edges are visited in topological order of the distance-0 graph)."""
    nodes = dag.nodes
    st = _structure(dag)
    rank = st.rank
    forward = [(u, v, lat - ii * dist) for u, v, lat, dist in st.edges]
    if reverse:
        val = {n: 0 for n in nodes}
        forward.sort(key=lambda e: rank.get(e[0], 0))
    else:
        val = {n: nodes[n].get("latency", 1) for n in nodes}
        forward.sort(key=lambda e: -rank.get(e[1], 0))
    for _ in range(len(val) + 1):
        changed = False
        for u, v, w in forward:
            if reverse:
                if val[u] + w > val[v]:
                    val[v] = val[u] + w
                    changed = True
            elif val[v] + w > val[u]:
                val[u] = val[v] + w
                changed = True
        if not changed:
            break
    return val


def _ims(dag: nx.DiGraph, ii: int, width: int, caps: dict, budget_ratio: float, attempt: Attempt,
         order: list | None = None):
    nodes = dag.nodes
    if order is None:
        height = _longest_paths(dag, ii, reverse=False)
        position = {n: k for k, n in enumerate(nodes)}
        key = {n: (-height[n], position[n]) for n in nodes}
    else:
        key = {n: (k,) for k, n in enumerate(order)}
    heap = [(key[n], n) for n in nodes]
    heapq.heapify(heap)
    mrt = _MRT(ii, width, caps, nodes)
    time: dict = {}
    unit: dict = {}
    last: dict = {}
    budget = max(int(budget_ratio * len(key)), len(key))
    # Plain lists of (neighbour, latency, distance): the loop below runs budget times.
    st = _structure(dag)
    preds, succs = st.preds, st.succs
    issue = mrt.issue
    while heap:
        if attempt.placements >= budget:
            attempt.outcome = f"budget of {budget} placements exhausted"
            return None
        _, n = heapq.heappop(heap)
        if n in time:
            continue
        estart = 0
        for p, lat, dist in preds[n]:
            if p in time and time[p] + lat - ii * dist > estart:
                estart = time[p] + lat - ii * dist
        chosen = None
        for t in _slots(n, estart, estart + ii - 1, ii, nodes):
            if len(issue[t % ii]) >= width:
                continue  # the row is full: no unit choice can help
            bu = mrt.best_unit(n, t)
            if bu is None:
                attempt.outcome = f"operation {n} cannot fit in II {ii}"
                return None
            if not bu[1]:
                chosen = (t, bu[0], set())
                break
        if chosen is None:
            t = estart if n not in last or estart > last[n] else last[n] + 1
            t = next(iter(_slots(n, t, t + ii - 1, ii, nodes)))
            u, victims = mrt.best_unit(n, t)
            chosen = (t, u, victims)
        t, u, victims = chosen
        for v in victims:
            mrt.remove(v, time[v], unit[v])
            del time[v], unit[v]
            heapq.heappush(heap, (key[v], v))
            attempt.evictions += 1
        mrt.place(n, t, u)
        time[n], unit[n], last[n] = t, u, t
        attempt.placements += 1
        for s, lat, dist in succs[n]:
            if s in time and time[s] < t + lat - ii * dist:
                mrt.remove(s, time[s], unit[s])
                del time[s], unit[s]
                heapq.heappush(heap, (key[s], s))
                attempt.evictions += 1
    return time, unit


# -- Swing Modulo Scheduling -----------------------------------------------------------------------

def swing_order(dag: nx.DiGraph, ii: int) -> list:
    """Llosa's ordering: recurrences (most constraining first), then the rest; within each
    set alternate bottom-up and top-down sweeps so that a node follows its neighbours."""
    nodes = dag.nodes
    asap = _longest_paths(dag, ii, reverse=True)
    height = _longest_paths(dag, ii, reverse=False)
    horizon = max((asap[n] + height[n] for n in nodes), default=0)
    mobility = {n: horizon - height[n] - asap[n] for n in nodes}
    position = {n: k for k, n in enumerate(nodes)}
    st = _structure(dag)
    sets = []
    for lat, dist, comp in st.recurrences:
        if len(comp) == 1 and lat / dist * 2 <= ii:
            continue  # a slack one-node recurrence (an induction variable) constrains nothing
        sets.append((-(lat / dist), min(position[n] for n in comp), set(comp)))
    sets.sort(key=lambda s: (s[0], s[1]))
    ordered = [s[2] for s in sets]
    in_sets = set().union(*ordered) if ordered else set()
    rest = {n for n in nodes if n not in in_sets}
    if rest:
        ordered.append(rest)
    order: list = []
    placed: set = set()

    preds0, succs0 = st.preds0.__getitem__, st.succs0.__getitem__

    for group in ordered:
        todo = set(group)
        r = {p for n in placed for p in preds0(n) if p in todo}
        direction = "up"
        if not r:
            r = {s for n in placed for s in succs0(n) if s in todo}
            direction = "down"
        if not r:
            r = {max(todo, key=lambda n: (asap[n], -position[n]))}
            direction = "up"
        while todo:
            while r:
                if direction == "down":
                    v = max(r, key=lambda n: (height[n], -mobility[n], -position[n]))
                    nxt = succs0(v)
                else:
                    v = max(r, key=lambda n: (asap[n], -mobility[n], -position[n]))
                    nxt = preds0(v)
                r.discard(v)
                todo.discard(v)
                placed.add(v)
                order.append(v)
                r |= {m for m in nxt if m in todo}
            if direction == "down":
                direction, r = "up", {p for n in placed for p in preds0(n) if p in todo}
            else:
                direction, r = "down", {s for n in placed for s in succs0(n) if s in todo}
            if not r and todo:
                r = {max(todo, key=lambda n: (asap[n], -position[n]))}
                direction = "up"
    return order


def _swing(dag: nx.DiGraph, ii: int, width: int, caps: dict, budget_ratio: float, attempt: Attempt):
    """Swing placement; when an operation finds no slot between its placed neighbours,
    try IMS (with eviction) at the same II before giving the II up."""
    placed = _swing_place(dag, ii, width, caps, attempt)
    if placed is not None:
        return placed
    failure = attempt.outcome
    repair = Attempt(ii, "")
    # Height order, not swing order: with eviction, placing predecessors first keeps the
    # cascades of evicted successors short (swing order can evict without end on dense graphs).
    found = _ims(dag, ii, width, caps, budget_ratio, repair)
    attempt.placements += repair.placements
    attempt.evictions += repair.evictions
    attempt.outcome = f"swing placement failed ({failure}); repaired by iterative modulo scheduling: " + \
        (repair.outcome or "scheduled")
    return found


def _swing_place(dag: nx.DiGraph, ii: int, width: int, caps: dict, attempt: Attempt):
    nodes = dag.nodes
    asap = _longest_paths(dag, ii, reverse=True)
    mrt = _MRT(ii, width, caps, nodes)
    time: dict = {}
    unit: dict = {}
    # Without eviction, the last row must keep room for the operations pinned to it.
    ends = [n for n in nodes if nodes[n].get("kernel_end")] or None
    st = _structure(dag)
    for n in swing_order(dag, ii):
        early = [time[p] + lat - ii * dist for p, lat, dist in st.preds[n] if p in time]
        late = [time[s] - lat + ii * dist for s, lat, dist in st.succs[n] if s in time]
        if early and late:
            cands = _slots(n, max(early), min(min(late), max(early) + ii - 1), ii, nodes)
        elif early:
            # Not before its ASAP time either: a node reached only through a loop-carried
            # edge would otherwise leave no room for the predecessors still to come.
            start = max(max(early), asap[n])
            cands = _slots(n, start, start + ii - 1, ii, nodes)
        elif late:
            cands = _slots(n, min(late) - ii + 1, min(late), ii, nodes, step=-1)
        else:
            cands = _slots(n, asap[n], asap[n] + ii - 1, ii, nodes)
        attempt.placements += 1
        for t in cands:
            bu = mrt.best_unit(n, t)
            if bu is not None and not bu[1] and (ends is None or n in ends or t % ii != ii - 1
                                                   or _leaves_room(mrt, n, t, bu[0], ends, time)):
                mrt.place(n, t, bu[0])
                time[n], unit[n] = t, bu[0]
                break
        else:
            attempt.outcome = f"no free slot for operation {n} between its scheduled neighbours"
            return None
    return time, unit


def _leaves_room(mrt: _MRT, n, t: int, unit: str, ends: list, time: dict) -> bool:
    """Would the kernel_end operations not yet placed still fit in the last row after *n*?"""
    mrt.place(n, t, unit)
    try:
        for e in ends:
            if e in time:
                continue
            fits = any(not mrt.conflicts(e, t, u) for u in mrt.nodes[e].get("units") or ("ISSUE",)
                       if mrt.conflicts(e, t, u) is not None)
            if not fits:
                return False
        return True
    finally:
        mrt.remove(n, t, unit)

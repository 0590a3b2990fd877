"""Lower bounds on the initiation interval (II) of a modulo schedule.

``MII = max(ResMII, RecMII)``.

* **ResMII** (resources): every iteration needs its issue slots, unit cycles
  and extra resources (``also``) again every II cycles. For the issue width w
  and n operations, ``II >= ceil(n / w)``; for every set U of interchangeable
  units (the unit sets the nodes name, closed under union) the operations
  confined to U need ``sum(occupancy) <= II * |U|``; an extra resource with
  capacity c held for ``sum(cycles)`` per iteration needs ``II * c`` cycles.
* **RecMII** (recurrences): on every dependence cycle C, ``II * distance(C) >=
  latency(C)``. The exact bound is the smallest integer II for which the graph
  weighted ``latency - II * distance`` has no positive cycle; it is found by
  binary search on II with a max-plus Floyd-Warshall test (numpy) per strongly
  connected component, never enumerating circuits. The recurrence that sets
  it is a positive cycle at ``RecMII - 1``, found with Bellman-Ford.

Complexity: ResMII O(n + s^2) for s distinct unit sets; RecMII O(sum over SCCs
of k^3 log L) for an SCC of k nodes and L the sum of latencies.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 2)),
    ...                (Dep(0, 1, "RAW", 3), Dep(1, 0, "RAW", 2, distance=2)), Machine("toy", 1, ("ALU",)))
    >>> rec_mii(g).value, rec_mii(g).cycle
    (3, [0, 1])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable

import networkx as nx
import numpy as np

from schedcc.problem import SchedGraph, as_graph


@dataclass(frozen=True)
class ResBound:
    value: int
    reason: str


@dataclass(frozen=True)
class RecBound:
    """``value``: the RecMII (0 without recurrences); ``cycle``: the nodes of the
    recurrence that sets it, in dependence order; its latency and distance sums."""

    value: int
    cycle: list = field(default_factory=list)
    latency: int = 0
    distance: int = 0


def res_mii(graph: SchedGraph | nx.DiGraph, issue_width: int | None = None,
            capacity: dict[str, int] | None = None) -> ResBound:
    """The resource-constrained lower bound on II; see the module docstring."""
    graph = as_graph(graph)
    width = issue_width if issue_width is not None else graph.machine.issue_width
    n = len(graph)
    if n == 0:
        return ResBound(1, "empty loop")
    best = ResBound(math.ceil(n / width), f"issue width {width}: {n} operations per iteration")
    work: dict[frozenset, int] = {}
    count: dict[frozenset, int] = {}
    extra: dict[str, int] = {}
    longest = (1, "")
    for op in graph.ops:
        units = frozenset(op.units or ("ISSUE",))
        occ = op.occupancy
        work[units] = work.get(units, 0) + occ
        count[units] = count.get(units, 0) + 1
        if occ > longest[0]:
            longest = (occ, f"one operation keeps its unit busy {occ} cycles")
        for res, cycles in op.also:
            extra[res] = extra.get(res, 0) + cycles
            if cycles > longest[0]:
                longest = (cycles, f"one operation holds {res} {cycles} cycles")
    if longest[0] > best.value:
        best = ResBound(longest[0], longest[1])
    # Close the unit sets under union: operations confined to the union of two
    # sets compete for it too (ALU0/ALU1 work counts against ALU0-ALU3).
    sets = set(work)
    frontier = list(sets)
    while frontier and len(sets) < 256:
        a = frontier.pop()
        for b in list(sets):
            u = a | b
            if u not in sets:
                sets.add(u)
                frontier.append(u)
    for u in sets:
        total = sum(w for s, w in work.items() if s <= u)
        ops = sum(c for s, c in count.items() if s <= u)
        bound = math.ceil(total / len(u))
        if bound > best.value:
            names = "/".join(sorted(u))
            best = ResBound(bound, f"units {names}: {ops} operations need {total} unit-cycles per iteration "
                                   f"on {len(u)} unit{'s' if len(u) != 1 else ''}")
    caps = {**dict(graph.machine.capacity), **(capacity or {})}
    for res, cycles in extra.items():
        bound = math.ceil(cycles / caps.get(res, 1))
        if bound > best.value:
            best = ResBound(bound, f"{res}: held {cycles} cycles per iteration")
    return best


class _EdgeArrays:
    """The edges inside one strongly connected component as numpy arrays, built once."""

    def __init__(self, nodes: list[int], edges: list[tuple[int, int, int, int]]):
        index = {v: k for k, v in enumerate(nodes)}
        rows = [(index[u], index[v], lat, dist) for u, v, lat, dist in edges]
        arr = np.array(rows, dtype=float).reshape(-1, 4)
        self.n = len(nodes)
        self.src, self.dst = arr[:, 0].astype(int), arr[:, 1].astype(int)
        self.lat, self.dist = arr[:, 2], arr[:, 3]

    def weights(self, ii: int) -> np.ndarray:
        w = np.full((self.n, self.n), -np.inf)
        np.maximum.at(w, (self.src, self.dst), self.lat - ii * self.dist)
        return w


def has_positive_cycle(w: np.ndarray) -> bool:
    """Max-plus Floyd-Warshall on the weight matrix *w*: is some cycle's weight > 0? O(k^3)."""
    d = w.copy()
    for k in range(d.shape[0]):
        d = np.maximum(d, d[:, k:k + 1] + d[k:k + 1, :])
        if np.any(np.diag(d) > 0):
            return True
    return bool(np.any(np.diag(d) > 0))


def rec_mii(graph: SchedGraph | nx.DiGraph) -> RecBound:
    """The exact recurrence-constrained lower bound; see the module docstring."""
    graph = as_graph(graph)
    edges = [(d.src, d.dst, d.latency, d.distance) for d in graph.deps]
    nxg = nx.DiGraph()
    nxg.add_nodes_from(range(len(graph)))
    nxg.add_edges_from((u, v) for u, v, _, _ in edges)
    self_loops = {u for u, v, _, _ in edges if u == v}
    best = RecBound(0)
    for comp in nx.strongly_connected_components(nxg):
        nodes = sorted(comp)
        if len(nodes) == 1 and nodes[0] not in self_loops:
            continue
        inside = sorted((e for e in edges if e[0] in comp and e[1] in comp), key=lambda e: e[0])
        arrays = _EdgeArrays(nodes, inside)
        lo = 0
        hi = max(1, int(arrays.lat.sum()))
        if has_positive_cycle(arrays.weights(hi)):
            raise ValueError("a dependence cycle with total distance 0: the loop cannot be scheduled")
        if not has_positive_cycle(arrays.weights(lo)):
            continue  # every cycle has latency 0: no constraint
        while hi - lo > 1:  # invariant: positive cycle at lo, none at hi
            mid = (lo + hi) // 2
            if has_positive_cycle(arrays.weights(mid)):
                lo = mid
            else:
                hi = mid
        value = hi
        if value > best.value or (value == best.value and not best.cycle):
            cycle, lat, dist = _critical_cycle(nodes, inside, value)
            best = RecBound(value, [graph.key(n) for n in cycle], lat, dist)
    return best


def _critical_cycle(nodes: list[int], edges: list[tuple[int, int, int, int]], value: int
                    ) -> tuple[list[int], int, int]:
    """A recurrence whose ceil(latency / distance) is *value*: a positive cycle of
    ``latency - (value - 1) * distance``, found with Bellman-Ford (longest paths from
    every node at once) and its predecessor links. O(k * e) on an SCC of k nodes."""
    ii = value - 1
    weighted = [(u, v, lat - ii * dist) for u, v, lat, dist in edges]
    dist_to = {n: 0 for n in nodes}
    pred: dict = {}
    last = None
    for _ in range(len(nodes)):
        last = None
        for u, v, w in weighted:
            if dist_to[u] + w > dist_to[v]:
                dist_to[v] = dist_to[u] + w
                pred[v] = u
                last = v
        if last is None:
            break
    if last is not None:
        for _ in range(len(nodes)):  # walk back into the cycle
            last = pred[last]
        cycle = [last]
        node = pred[last]
        while node != last:
            cycle.append(node)
            node = pred[node]
        cycle.reverse()
    else:  # value 1 and no cycle positive at 0: any cycle sets it
        sub = nx.DiGraph((u, v) for u, v, _, _ in edges)
        cycle = [u for u, _ in nx.find_cycle(sub)]
    by_pair = {(u, v): (lat, dist) for u, v, lat, dist in edges}
    pairs = list(zip(cycle, cycle[1:] + cycle[:1]))
    lat = sum(by_pair[p][0] for p in pairs)
    dist_sum = sum(by_pair[p][1] for p in pairs)
    return _rotate(cycle), lat, dist_sum


def _rotate(cycle: list[Hashable]) -> list[Hashable]:
    """Start the cycle at its smallest node, so that reports are stable."""
    if not cycle:
        return cycle
    k = min(range(len(cycle)), key=lambda i: (0, cycle[i], "") if isinstance(cycle[i], int)
            else (1, 0, str(cycle[i])))
    return cycle[k:] + cycle[:k]


@dataclass(frozen=True)
class MII:
    res: ResBound
    rec: RecBound

    @property
    def value(self) -> int:
        return max(self.res.value, self.rec.value, 1)

    @property
    def bound_by(self) -> str:
        return "recurrence" if self.rec.value > self.res.value else "resources"


def mii(graph: SchedGraph | nx.DiGraph, issue_width: int | None = None,
        capacity: dict[str, int] | None = None) -> MII:
    """Both bounds; ``.value`` is the MII."""
    graph = as_graph(graph)
    return MII(res_mii(graph, issue_width, capacity), rec_mii(graph))

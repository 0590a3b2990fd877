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

    >>> import networkx as nx
    >>> g = nx.DiGraph()
    >>> g.add_node(0, latency=3, units=("ALU",)); g.add_node(1, latency=2, units=("ALU",))
    >>> g.add_edge(0, 1, latency=3, distance=0); g.add_edge(1, 0, latency=2, distance=2)
    >>> rec_mii(g).value, rec_mii(g).cycle
    (3, [0, 1])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Hashable

import networkx as nx
import numpy as np


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


def resource_capacities(dag: nx.DiGraph, issue_width: int | None = None,
                        capacity: dict[str, int] | None = None) -> dict[str, int]:
    """Capacity of each extra (``also``) resource: *capacity* overrides, else 1."""
    caps = dict(capacity or {})
    for _, d in dag.nodes(data=True):
        for res, _ in d.get("also", ()):
            caps.setdefault(res, 1)
    return caps


def res_mii(dag: nx.DiGraph, issue_width: int, capacity: dict[str, int] | None = None) -> ResBound:
    """The resource-constrained lower bound on II; see the module docstring."""
    n = dag.number_of_nodes()
    if n == 0:
        return ResBound(1, "empty loop")
    best = ResBound(math.ceil(n / issue_width), f"issue width {issue_width}: {n} operations per iteration")
    work: dict[frozenset, int] = {}
    count: dict[frozenset, int] = {}
    extra: dict[str, int] = {}
    longest = (1, "")
    for node, d in dag.nodes(data=True):
        units = frozenset(d.get("units") or ("ISSUE",))
        occ = int(d.get("occupancy", 1))
        work[units] = work.get(units, 0) + occ
        count[units] = count.get(units, 0) + 1
        if occ > longest[0]:
            longest = (occ, f"one operation keeps its unit busy {occ} cycles")
        for res, cycles in d.get("also", ()):
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
    caps = resource_capacities(dag, capacity=capacity)
    for res, cycles in extra.items():
        bound = math.ceil(cycles / caps[res])
        if bound > best.value:
            best = ResBound(bound, f"{res}: held {cycles} cycles per iteration")
    return best


class _EdgeArrays:
    """The edges of one strongly connected component as numpy arrays, built once."""

    def __init__(self, nodes: list, dag: nx.DiGraph):
        index = {v: k for k, v in enumerate(nodes)}
        rows = [(index[u], index[v], d["latency"], d.get("distance", 0))
                for u in nodes for v, d in dag.succ[u].items() if v in index]
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


def rec_mii(dag: nx.DiGraph) -> RecBound:
    """The exact recurrence-constrained lower bound; see the module docstring."""
    best = RecBound(0)
    for comp in nx.strongly_connected_components(dag):
        nodes = sorted(comp, key=str)
        if len(nodes) == 1 and not dag.has_edge(nodes[0], nodes[0]):
            continue
        sub = dag.subgraph(nodes)
        edges = _EdgeArrays(nodes, sub)
        lo = 0
        hi = max(1, int(edges.lat.sum()))
        if has_positive_cycle(edges.weights(hi)):
            raise ValueError("a dependence cycle with total distance 0: the loop cannot be scheduled")
        if not has_positive_cycle(edges.weights(lo)):
            continue  # every cycle has latency 0: no constraint
        while hi - lo > 1:  # invariant: positive cycle at lo, none at hi
            mid = (lo + hi) // 2
            if has_positive_cycle(edges.weights(mid)):
                lo = mid
            else:
                hi = mid
        value = hi
        if value > best.value or (value == best.value and not best.cycle):
            best = RecBound(value, *_critical_cycle(sub, value))
    return best


def _critical_cycle(sub: nx.DiGraph, value: int) -> tuple[list, int, int]:
    """A recurrence whose ceil(latency / distance) is *value*: a positive cycle of
    ``latency - (value - 1) * distance``, found with Bellman-Ford (longest paths from
    every node at once) and its predecessor links. O(k * e) on an SCC of k nodes."""
    ii = value - 1
    edges = [(u, v, d["latency"] - ii * d.get("distance", 0)) for u, v, d in sub.edges(data=True)]
    dist = {n: 0 for n in sub.nodes}
    pred: dict = {}
    last = None
    for _ in range(len(dist)):
        last = None
        for u, v, w in edges:
            if dist[u] + w > dist[v]:
                dist[v] = dist[u] + w
                pred[v] = u
                last = v
        if last is None:
            break
    if last is not None:
        for _ in range(len(dist)):  # walk back into the cycle
            last = pred[last]
        cycle = [last]
        node = pred[last]
        while node != last:
            cycle.append(node)
            node = pred[node]
        cycle.reverse()
    else:  # value 1 and no cycle positive at 0: any cycle sets it
        cycle = [u for u, _ in nx.find_cycle(sub)]
    pairs = list(zip(cycle, cycle[1:] + cycle[:1]))
    lat = sum(sub.edges[a, b]["latency"] for a, b in pairs)
    dist_sum = sum(sub.edges[a, b].get("distance", 0) for a, b in pairs)
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


def mii(dag: nx.DiGraph, issue_width: int, capacity: dict[str, int] | None = None) -> MII:
    """Both bounds; ``.value`` is the MII."""
    return MII(res_mii(dag, issue_width, capacity), rec_mii(dag))

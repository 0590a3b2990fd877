"""Lower bounds on the initiation interval (II) of a modulo schedule.

``MII = max(ResMII, RecMII)``.

* **ResMII** (resources): every iteration needs its issue slots, unit cycles
  and extra resources (``also``) again every II cycles. For the issue width w
  and n operations, ``II >= ceil(n / w)``; for every set U of interchangeable
  units (the unit sets the nodes name, closed under union) the operations
  confined to U need ``sum(occupancy) <= II * |U|``; an extra resource with
  capacity c held for ``sum(cycles)`` per iteration needs ``II * c`` cycles.
* **RecMII** (recurrences): on every dependence cycle C, ``II * distance(C) >=
  latency(C)``, so RecMII is the ceiling of the maximum cycle ratio
  ``latency(C) / distance(C)``, found per strongly connected component without
  enumerating circuits by Howard's policy iteration (Cochet-Terrasson et al.,
  1998; Dasdan's survey, 2004, found it the fastest in practice), in exact
  integer arithmetic. The cycle of the final policy is the recurrence that
  sets the bound. A component whose distance-0 edges form a cycle (never in
  loops from the IR) takes the older exact path instead: binary search on II
  with a max-plus Floyd-Warshall positive-cycle test (numpy). Dependences
  implied by paths of the others (:func:`schedcc.sched.mrt.implied_deps`,
  most memory dependences of a long loop) are left out first: a cycle through
  one has one through its path with at least its ratio.
* **Both together** (:mod:`schedcc.sched.mii_joint`): when the critical
  recurrence's ratio is exactly ``max(ResMII, RecMII)``, the operations on
  cycles without slack keep fixed distances; if those put more into one row of
  the reservation table than it holds, the MII is one more (``MII.joint``).

Complexity: ResMII O(n + s^2) for s distinct unit sets; RecMII O(i * (k + e))
for an SCC of k nodes and e edges and i policy iterations (a handful in
practice; bounded, with the exact fallback beyond).

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 2)),
    ...                (Dep(0, 1, "RAW", 3), Dep(1, 0, "RAW", 2, distance=2)), Machine("toy", 1, ("ALU",)))
    >>> rec_mii(g).value, rec_mii(g).cycle
    (3, [0, 1])
"""

from __future__ import annotations

import math
from fractions import Fraction
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Hashable, Iterable

from schedcc.problem import SchedGraph, as_graph, is_acyclic
from schedcc.sched.mii_joint import JointBound, joint_bound
from schedcc.sched.mrt import implied_deps

if TYPE_CHECKING:  # numpy and networkx load on first use (start-up time of the command)
    import networkx as nx
    import numpy as np


@dataclass(frozen=True)
class ResBound:
    """The ResMII (``value``), why in words (``reason``), and the resource that sets it:
    ``units`` (the unit instances whose work sets it, or the unit one long operation keeps
    busy), ``held`` (an extra resource, as ``also`` names it), neither: the issue width."""

    value: int
    reason: str
    units: tuple[str, ...] = ()
    held: str = ""


@dataclass(frozen=True)
class RecBound:
    """``value``: the RecMII (0 without recurrences); ``cycle``: the nodes of the
    recurrence that sets it, in dependence order; its latency and distance sums."""

    value: int
    cycle: list = field(default_factory=list)
    latency: int = 0
    distance: int = 0


def unit_set_unions(sets: Iterable[frozenset], limit: int) -> set[frozenset]:
    """*sets* closed under union, stopping once there are *limit* of them (they grow
    fast on machines with many overlapping unit sets). O(limit^2) unions at most.

    >>> sorted(sorted(s) for s in unit_set_unions([frozenset("a"), frozenset("b")], 8))
    [['a'], ['a', 'b'], ['b']]
    """
    closed = set(sets)
    frontier = list(closed)
    while frontier and len(closed) < limit:
        a = frontier.pop()
        for b in list(closed):
            u = a | b
            if u not in closed:
                closed.add(u)
                frontier.append(u)
    return closed


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
    longest: tuple[int, str, tuple[str, ...], str] = (1, "", (), "")
    for op in graph.ops:
        units = frozenset(op.units or ("ISSUE",))
        occ = op.occupancy
        work[units] = work.get(units, 0) + occ
        count[units] = count.get(units, 0) + 1
        if occ > longest[0]:
            longest = (occ, f"one operation keeps its unit busy {occ} cycles", tuple(sorted(units)), "")
        for res, cycles in op.also:
            extra[res] = extra.get(res, 0) + cycles
            if cycles > longest[0]:
                longest = (cycles, f"one operation holds {res} {cycles} cycles", (), res)
    if longest[0] > best.value:
        best = ResBound(longest[0], longest[1], longest[2], longest[3])
    # Close the unit sets under union: operations confined to the union of two
    # sets compete for it too (ALU0/ALU1 work counts against ALU0-ALU3).
    sets = unit_set_unions(work, 256)
    for u in sets:
        total = sum(w for s, w in work.items() if s <= u)
        ops = sum(c for s, c in count.items() if s <= u)
        bound = math.ceil(total / len(u))
        if bound > best.value:
            names = "/".join(sorted(u))
            best = ResBound(bound, f"units {names}: {ops} operations need {total} unit-cycles per iteration "
                                   f"on {len(u)} unit{'s' if len(u) != 1 else ''}", tuple(sorted(u)))
    caps = {**dict(graph.machine.capacity), **(capacity or {})}
    for res, cycles in extra.items():
        bound = math.ceil(cycles / caps.get(res, 1))
        if bound > best.value:
            best = ResBound(bound, f"{res}: held {cycles} cycles per iteration", (), res)
    return best


class _EdgeArrays:
    """The edges inside one strongly connected component as numpy arrays, built once."""

    def __init__(self, nodes: list[int], edges: list[tuple[int, int, int, int]]):
        import numpy as np
        index = {v: k for k, v in enumerate(nodes)}
        rows = [(index[u], index[v], lat, dist) for u, v, lat, dist in edges]
        arr = np.array(rows, dtype=float).reshape(-1, 4)
        self.n = len(nodes)
        self.src, self.dst = arr[:, 0].astype(int), arr[:, 1].astype(int)
        self.lat, self.dist = arr[:, 2], arr[:, 3]

    def weights(self, ii: int) -> "np.ndarray":
        import numpy as np
        w = np.full((self.n, self.n), -np.inf)
        np.maximum.at(w, (self.src, self.dst), self.lat - ii * self.dist)
        return w


def has_positive_cycle(w: "np.ndarray") -> bool:
    """Max-plus Floyd-Warshall on the weight matrix *w*: is some cycle's weight > 0? O(k^3)."""
    import numpy as np
    d = w.copy()
    for k in range(d.shape[0]):
        d = np.maximum(d, d[:, k:k + 1] + d[k:k + 1, :])
        if np.any(np.diag(d) > 0):
            return True
    return bool(np.any(np.diag(d) > 0))


def rec_mii(graph: SchedGraph | nx.DiGraph) -> RecBound:
    """The exact recurrence-constrained lower bound; see the module docstring."""
    graph = as_graph(graph)
    implied = implied_deps(graph)  # implied by paths of the others: they change no cycle ratio
    edges = [(d.src, d.dst, d.latency, d.distance) for k, d in enumerate(graph.deps) if k not in implied]
    self_loops = {u for u, v, _, _ in edges if u == v}
    best = RecBound(0)
    for comp in strongly_connected(len(graph), [(u, v) for u, v, _, _ in edges]):
        nodes = sorted(comp)
        if len(nodes) == 1 and nodes[0] not in self_loops:
            continue
        inside = sorted((e for e in edges if e[0] in comp and e[1] in comp), key=lambda e: e[0])
        found = max_cycle_ratio(nodes, inside) if _zero_distance_acyclic(nodes, inside) else None
        if found is None:
            value = _rec_mii_by_search(nodes, inside)
            if value is None:
                continue
            if value > best.value or (value == best.value and not best.cycle):
                cycle, lat, dist = _critical_cycle(nodes, inside, value)
                best = RecBound(value, [graph.key(n) for n in cycle], lat, dist)
            continue
        lat, dist, cycle = found
        if lat <= 0:
            continue  # every cycle has latency <= 0: no constraint
        value = -(-lat // dist)
        if value > best.value or (value == best.value and not best.cycle):
            best = RecBound(value, [graph.key(n) for n in _rotate(cycle)], lat, dist)
    return best


def strongly_connected(n: int, arcs: list[tuple[int, int]]):
    """The strongly connected components of nodes 0..n-1 and *arcs*, as sets, in the
    order networkx's ``strongly_connected_components`` yields them (the same
    iterative Tarjan/Nuutila walk: nodes in order, successors in arc order), without
    importing networkx (its import is a tenth of a second of the command). O(n + e).

    >>> list(strongly_connected(4, [(0, 1), (1, 0), (1, 2), (3, 3)]))
    [{2}, {0, 1}, {3}]
    """
    succ: list[dict[int, None]] = [{} for _ in range(n)]
    for u, v in arcs:
        succ[u][v] = None
    preorder = [0] * n  # 0: not visited yet
    lowlink = [0] * n
    found = [False] * n
    stack: list[int] = []
    pending = [iter(s) for s in succ]
    counter = 0
    for source in range(n):
        if found[source]:
            continue
        queue = [source]
        while queue:
            v = queue[-1]
            if not preorder[v]:
                counter += 1
                preorder[v] = counter
            done = True
            for w in pending[v]:
                if not preorder[w]:
                    queue.append(w)
                    done = False
                    break
            if not done:
                continue
            low = preorder[v]
            for w in succ[v]:
                if not found[w]:
                    low = min(low, lowlink[w] if preorder[w] > preorder[v] else preorder[w])
            lowlink[v] = low
            queue.pop()
            if low == preorder[v]:
                comp = {v}
                while stack and preorder[stack[-1]] > preorder[v]:
                    comp.add(stack.pop())
                for w in comp:
                    found[w] = True
                yield comp
            else:
                stack.append(v)


def _zero_distance_acyclic(nodes: list[int], edges: list[tuple[int, int, int, int]]) -> bool:
    """Do the distance-0 edges form no cycle (so every cycle has distance >= 1)? O(k + e)."""
    return is_acyclic(nodes, ((u, v) for u, v, _, dist in edges if dist == 0))


def max_cycle_ratio(nodes: list[int], edges: list[tuple[int, int, int, int]], max_rounds: int | None = None
                    ) -> tuple[int, int, list[int]] | None:
    """The cycle of largest ``latency / distance`` in a strongly connected graph
    (*nodes*, *edges* as ``(src, dst, latency, distance)``) whose cycles all have
    distance >= 1: ``(latency, distance, nodes of the cycle)``, by Howard's policy
    iteration in integers. None when it has not converged after *max_rounds*
    policy improvements (never seen; the caller then takes the exact search).
    O(rounds * (k + e)).

    >>> max_cycle_ratio([0, 1, 2], [(0, 1, 3, 0), (1, 0, 2, 2), (1, 2, 1, 0), (2, 0, 5, 1)])
    (9, 1, [0, 1, 2])
    """
    k = len(nodes)
    index = {v: i for i, v in enumerate(nodes)}
    out: list[list[tuple[int, int, int]]] = [[] for _ in range(k)]
    for u, v, lat, dist in edges:
        out[index[u]].append((index[v], lat, dist))
    # Start from each node's heaviest edge; a policy picks one out-edge per node.
    policy = [max(range(len(o)), key=lambda i, o=o: o[i][1]) for o in out]
    rounds = max_rounds if max_rounds is not None else 50 + 2 * k
    for _ in range(rounds):
        cycles, eta, x = _evaluate(out, policy)
        if not _improve(out, policy, eta, x):
            p, q, cycle = max(cycles, key=lambda c: Fraction(c[0], c[1]))  # the first of equals
            lat = sum(out[u][policy[u]][1] for u in cycle)
            dist = sum(out[u][policy[u]][2] for u in cycle)
            return lat, dist, [nodes[u] for u in cycle]
    return None


def _evaluate(out, policy):
    """Value determination of Howard's algorithm: each node's cycle ratio ``eta``
    (reduced ``(p, q)``) and its bias ``x`` scaled by ``q`` (an integer). O(k)."""
    k = len(out)
    state = [0] * k  # 0 unseen, 1 on the current path, 2 done
    cycles = []
    for s in range(k):
        if state[s]:
            continue
        path = []
        u = s
        while state[u] == 0:
            state[u] = 1
            path.append(u)
            u = out[u][policy[u]][0]
        if state[u] == 1:  # a new cycle of the policy graph
            cyc = path[path.index(u):]
            w = sum(out[c][policy[c]][1] for c in cyc)
            t = sum(out[c][policy[c]][2] for c in cyc)
            g = math.gcd(w, t)
            cycles.append((w // g, t // g, cyc))
        for v in path:
            state[v] = 2
    rev: list[list[int]] = [[] for _ in range(k)]
    for u in range(k):
        rev[out[u][policy[u]][0]].append(u)
    eta: list[tuple[int, int]] = [(0, 1)] * k
    x = [0] * k
    for p, q, cyc in cycles:
        h = min(cyc)
        eta[h] = (p, q)
        stack = [h]
        while stack:
            v = stack.pop()
            for u in rev[v]:
                if u != h:
                    _, w, t = out[u][policy[u]]
                    eta[u] = (p, q)
                    x[u] = q * w - p * t + x[v]
                    stack.append(u)
    return cycles, eta, x


def _improve(out, policy, eta, x) -> bool:
    """Policy improvement: first towards a larger cycle ratio anywhere; only when
    none, towards a larger bias within the same ratio. Changes *policy*; O(k + e)."""
    changed = False
    for u, edges in enumerate(out):
        bp, bq = eta[u]
        choice = -1
        for i, (v, _, _) in enumerate(edges):
            pv, qv = eta[v]
            if pv * bq > bp * qv:
                bp, bq, choice = pv, qv, i
        if choice >= 0:
            policy[u] = choice
            changed = True
    if changed:
        return True
    for u, edges in enumerate(out):
        p, q = eta[u]
        best, choice = x[u], -1
        for i, (v, w, t) in enumerate(edges):
            if eta[v] == (p, q):
                val = q * w - p * t + x[v]
                if val > best:
                    best, choice = val, i
        if choice >= 0:
            policy[u] = choice
            changed = True
    return changed


def _rec_mii_by_search(nodes: list[int], edges: list[tuple[int, int, int, int]]) -> int | None:
    """The exact bound by binary search on II with a positive-cycle test: the
    path for components with a cycle of distance 0. O(k^3 log L)."""
    arrays = _EdgeArrays(nodes, edges)
    lo = 0
    hi = max(1, int(arrays.lat.sum()))
    if has_positive_cycle(arrays.weights(hi)):
        raise ValueError("a dependence cycle with total distance 0: the loop cannot be scheduled")
    if not has_positive_cycle(arrays.weights(lo)):
        return None  # every cycle has latency 0: no constraint
    while hi - lo > 1:  # invariant: positive cycle at lo, none at hi
        mid = (lo + hi) // 2
        if has_positive_cycle(arrays.weights(mid)):
            lo = mid
        else:
            hi = mid
    return hi


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
        import networkx as nx
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
    # Recurrences and resources together (schedcc.sched.mii_joint): max(ResMII, RecMII) + 1
    # when a recurrence without slack fixes operations to rows that cannot hold them; else None.
    joint: JointBound | None = None

    @property
    def value(self) -> int:
        return max(self.res.value, self.rec.value, self.joint.value if self.joint else 0, 1)

    @property
    def bound_by(self) -> str:
        if self.joint is not None:
            return "both"
        return "recurrence" if self.rec.value > self.res.value else "resources"


def mii(graph: SchedGraph | nx.DiGraph, issue_width: int | None = None,
        capacity: dict[str, int] | None = None) -> MII:
    """Both bounds, and the joint one where a recurrence has no slack; ``.value`` is the MII."""
    graph = as_graph(graph)
    res, rec = res_mii(graph, issue_width, capacity), rec_mii(graph)
    joint = None
    # Only a recurrence whose ratio is exactly the II leaves no slack (schedcc.sched.mii_joint).
    if rec.distance and rec.latency == rec.value * rec.distance and rec.value >= res.value:
        width = issue_width if issue_width is not None else graph.machine.issue_width
        found = joint_bound(graph, width, {**dict(graph.machine.capacity), **(capacity or {})}, rec.value)
        joint = found if found.value > rec.value else None
    return MII(res, rec, joint)

"""What the modulo schedulers share: the loop's structure and the modulo reservation table.

:class:`LoopStructure` holds what does not depend on II (edge lists, a
topological rank, the recurrences), computed once per call of
:func:`schedcc.sched.modulo.modulo_schedule`; :class:`MRT` books issue slots,
units and extra resources per row ``t mod II``.

Example::

    >>> from schedcc.problem import Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 1, occupancy=2),), (), Machine("toy", 1, ("ALU",)))
    >>> mrt = MRT(3, 1, {}, g.ops)
    >>> mrt.place(0, 1, "ALU"); mrt.conflicts(0, 5, "ALU")   # rows 2 and 0: row 2 is taken
    {0}
"""

from __future__ import annotations

import bisect
import weakref

from schedcc.problem import Op, SchedGraph


class LoopStructure:
    """What the schedulers need about a graph that does not depend on II. O(n + e).

    ``preds``/``succs`` hold every dependence (no self-loops); ``tight_preds`` /
    ``tight_succs`` and ``tight_edges`` leave out the ones :func:`implied_deps`
    finds implied by the others at every II (IMS and the longest paths read
    those: on a random loop whose memory accesses are mostly ordered pairwise,
    9 edges in 10 are implied)."""

    def __init__(self, graph: SchedGraph):
        self.graph = graph
        self.edges = [(d.src, d.dst, d.latency, d.distance) for d in graph.deps]
        try:
            order = graph.topological_order
        except ValueError:
            order = ()
        self.rank = {n: k for k, n in enumerate(order)}
        n = len(graph)
        implied = implied_deps(graph)
        self.tight_edges = [e for k, e in enumerate(self.edges) if k not in implied]
        self.tight_preds: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]  # no self-loops
        self.tight_succs: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        for u, v, lat, dist in self.tight_edges:
            if u != v:
                self.tight_preds[v].append((u, lat, dist))
                self.tight_succs[u].append((v, lat, dist))
        # The longest paths visit edges in topological order of the distance-0 graph.
        rank = self.rank
        self._by_src = sorted(self.tight_edges, key=lambda e: rank.get(e[0], 0))
        self._by_dst = sorted(self.tight_edges, key=lambda e: -rank.get(e[1], 0))
        self._all_lists: tuple | None = None
        self._recurrences: list | None = None

    def _every_edge(self) -> tuple:
        if self._all_lists is None:
            n = len(self.graph)
            preds: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
            succs: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
            preds0: list[list[int]] = [[] for _ in range(n)]
            succs0: list[list[int]] = [[] for _ in range(n)]
            for u, v, lat, dist in self.edges:
                if u != v:
                    preds[v].append((u, lat, dist))
                    succs[u].append((v, lat, dist))
                if dist == 0:
                    preds0[v].append(u)
                    succs0[u].append(v)
            self._all_lists = (preds, succs, preds0, succs0)
        return self._all_lists

    # Every dependence (swing places and orders by them), built on first use.
    @property
    def preds(self) -> list[list[tuple[int, int, int]]]:
        return self._every_edge()[0]

    @property
    def succs(self) -> list[list[tuple[int, int, int]]]:
        return self._every_edge()[1]

    @property
    def preds0(self) -> list[list[int]]:
        return self._every_edge()[2]

    @property
    def succs0(self) -> list[list[int]]:
        return self._every_edge()[3]

    @property
    def recurrences(self) -> list[tuple[int, int, set]]:
        """(latency sum, distance sum, nodes) of each cyclic SCC, over every dependence."""
        if self._recurrences is None:
            import networkx as nx  # here, not at the top: the CLI imports this module for its options
            self._recurrences = []
            self_loops = {u for u, v, _, _ in self.edges if u == v}
            nxg = nx.DiGraph()
            nxg.add_nodes_from(range(len(self.graph)))
            nxg.add_edges_from((u, v) for u, v, _, _ in self.edges)
            for comp in nx.strongly_connected_components(nxg):
                if len(comp) > 1 or next(iter(comp)) in self_loops:
                    inside = [(lat, dist) for u, v, lat, dist in self.edges if u in comp and v in comp]
                    lat = sum(x for x, _ in inside)
                    dist = sum(d for _, d in inside) or 1
                    self._recurrences.append((lat, dist, set(comp)))
        return self._recurrences


def implied_deps(graph: SchedGraph) -> frozenset[int]:
    """Indices of dependences of distance 0 or 1 that the others imply at every II >= 0
    (computed once per graph: the MII and the schedulers share it).

    ``u -> v`` (latency l, distance d) is implied by a path of the rest from u
    to v of latency >= l and distance <= d: adding up the path's edges gives
    ``t(v) - t(u) >= l - II * d``. Found with bit sets in topological order of
    the distance-0 graph: R[v][k] holds the nodes with a distance-0 path to v of
    latency >= k (k over the edge latencies, rounded up to the next one: some
    longer paths are missed, never a wrong one), B[v][k] the same over paths
    with one distance-1 edge. An edge into v is tested against the paths
    through the edges into v kept so far, sources by decreasing topological
    rank (any other path from u to v enters v from a later node), so every
    edge left out is implied by edges kept. Nothing is left out when a
    latency is negative or the distance-0 edges form a cycle.
    O(e * L * n / 64) word operations for L distinct latencies.

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph(tuple(Op(f"n{k}", ("ALU",), 1) for k in range(3)),
    ...                (Dep(0, 1, "MEM", 1), Dep(1, 2, "MEM", 1), Dep(0, 2, "MEM", 1),
    ...                 Dep(2, 0, "MEM", 1, distance=1), Dep(2, 1, "MEM", 1, distance=1)),
    ...                Machine("toy", 1, ("ALU",)))
    >>> sorted(implied_deps(g))   # 0 -> 2 through 1; 2 -> 1 (distance 1) through 2 -> 0 -> 1
    [2, 4]
    """
    out = _IMPLIED.get(graph)
    if out is None:
        out = _IMPLIED[graph] = frozenset(_implied(graph))
    return out


_IMPLIED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # graphs compare by identity


def _implied(graph: SchedGraph) -> set[int]:
    deps = graph.deps
    n = len(graph.ops)
    cand = [k for k, d in enumerate(deps) if d.distance <= 1 and d.src != d.dst]
    if not cand or any(deps[k].latency < 0 for k in cand):
        return set()
    try:
        order = graph.topological_order
    except ValueError:
        return set()
    rank = [0] * n
    for k, v in enumerate(order):
        rank[v] = k
    levels = sorted({0} | {deps[k].latency for k in cand})
    at = {t: i for i, t in enumerate(levels)}
    nl = len(levels)

    def level_at_least(x: int) -> int:  # index of the smallest level >= x, -1 if none
        if x <= 0:
            return 0
        j = bisect.bisect_left(levels, x)
        return j if j < nl else -1

    # through[l][i]: the level a path into u must reach so that u -> v of latency l reaches level i
    through = {lat: [level_at_least(levels[i] - lat) for i in range(nl)] for lat in levels}
    edges_in: tuple[list, list] = ([[] for _ in range(n)], [[] for _ in range(n)])
    for k in cand:
        d = deps[k]
        edges_in[d.distance][d.dst].append((rank[d.src], d.src, d.latency, k))
    out: set[int] = set()

    def add_path(acc: list[int], reach: list[int], u: int, lat: int) -> None:
        """acc |= the nodes reaching v through u -> v (latency lat), given reach = R[u]."""
        bit, lift = 1 << u, through[lat]
        for i in range(nl):
            s = lift[i]
            x = reach[s] if s >= 0 else 0
            if lat >= levels[i]:
                x |= bit
            acc[i] |= x

    reach0: list = [None] * n
    kept0: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for v in order:
        acc = [0] * nl
        for _, u, lat, k in sorted(edges_in[0][v], reverse=True):
            if (acc[at[lat]] >> u) & 1:
                out.add(k)
            else:
                kept0[v].append((u, lat))
                add_path(acc, reach0[u], u, lat)
        reach0[v] = acc
    reach1: list = [None] * n
    for v in order:
        acc = list(reach0[v])
        for u, lat in kept0[v]:
            lift, ru = through[lat], reach1[u]
            for i in range(nl):
                if lift[i] >= 0:
                    acc[i] |= ru[lift[i]]
        for _, u, lat, k in sorted(edges_in[1][v], reverse=True):
            if (acc[at[lat]] >> u) & 1:
                out.add(k)
            else:
                add_path(acc, reach0[u], u, lat)
        reach1[v] = acc
    return out


class MRT:
    """Per row: issue slots used, unit owner, extra-resource holders."""

    def __init__(self, ii: int, width: int, caps: dict[str, int], ops: tuple[Op, ...]):
        self.ii, self.width, self.caps, self.ops = ii, width, caps, ops
        self.issue: list[list] = [[] for _ in range(ii)]
        self.owner: dict[str, list] = {}  # unit -> the node holding it in each row (None: free)
        self.extra: dict[str, list[list]] = {}  # extra resource -> its holders in each row
        # Try the units fewest operations can use first: an ALU add should leave
        # ALU0/ALU1 to the multiplies and branches that can run nowhere else.
        demand: dict[str, int] = {}
        for op in ops:
            for u in op.units or ("ISSUE",):
                demand[u] = demand.get(u, 0) + 1
        self.choices = [sorted(op.units or ("ISSUE",), key=lambda u: demand[u]) for op in ops]
        for u in demand:
            self.owner[u] = [None] * ii
        for op in ops:
            for res, _ in op.also:
                if res not in self.extra:
                    self.extra[res] = [[] for _ in range(ii)]
        # Operations that hold one row of one unit and nothing else: the fast path of free_unit.
        self.simple = [op.occupancy == 1 and not op.also for op in ops]

    def _rows(self, t: int, k: int) -> list[int]:
        return [(t + j) % self.ii for j in range(k)]

    def conflicts(self, n: int, t: int, unit: str) -> set | None:
        """Nodes in the way of placing *n* at *t* on *unit* (None: impossible at any eviction)."""
        op = self.ops[n]
        ii = self.ii
        if op.occupancy > ii:
            return None
        out: set = set()
        row = t % ii
        if len(self.issue[row]) >= self.width:
            out.add(self.issue[row][0])
        busy = self.owner[unit]
        for j in range(op.occupancy):
            o = busy[(t + j) % ii]
            if o is not None:
                out.add(o)
        for res, cycles in op.also:
            cap = self.caps.get(res, 1)
            if cycles > ii * cap:
                return None
            held = self.extra[res]
            for j in range(cycles):
                holders = held[(t + j) % ii]
                if len(holders) >= cap:
                    out.add(holders[-1])
        return out

    def free_unit(self, n: int, t: int) -> str | None:
        """A unit on which *n* fits at *t* with nothing in the way (None: there is none);
        the first such unit of :meth:`best_unit`'s order."""
        if len(self.issue[t % self.ii]) >= self.width:
            return None
        if self.simple[n]:
            row = t % self.ii
            owner = self.owner
            for unit in self.choices[n]:
                if owner[unit][row] is None:
                    return unit
            return None
        for unit in self.choices[n]:
            if self._fits(n, t, unit):
                return unit
        return None

    def _fits(self, n: int, t: int, unit: str) -> bool:
        """``conflicts(n, t, unit) == set()``, stopping at the first row in the way: O(occupancy)
        at worst, where conflicts always walks every row (a 33-cycle divider on the U74)."""
        op = self.ops[n]
        ii = self.ii
        if op.occupancy > ii:
            return False
        busy = self.owner[unit]
        for j in range(op.occupancy):
            if busy[(t + j) % ii] is not None:
                return False
        for res, cycles in op.also:
            cap = self.caps.get(res, 1)
            if cycles > ii * cap:
                return False
            held = self.extra[res]
            for j in range(cycles):
                if len(held[(t + j) % ii]) >= cap:
                    return False
        return True

    def best_unit(self, n: int, t: int) -> tuple[str, set] | None:
        best = None
        for unit in self.choices[n]:
            c = self.conflicts(n, t, unit)
            if c is not None and (best is None or len(c) < len(best[1])):
                best = (unit, c)
                if not c:
                    break
        return best

    def place(self, n: int, t: int, unit: str) -> None:
        op = self.ops[n]
        ii = self.ii
        self.issue[t % ii].append(n)
        busy = self.owner[unit]
        for j in range(op.occupancy):
            busy[(t + j) % ii] = n
        for res, cycles in op.also:
            held = self.extra[res]
            for j in range(cycles):
                held[(t + j) % ii].append(n)

    def remove(self, n: int, t: int, unit: str) -> None:
        op = self.ops[n]
        ii = self.ii
        self.issue[t % ii].remove(n)
        busy = self.owner[unit]
        for j in range(op.occupancy):
            if busy[(t + j) % ii] == n:
                busy[(t + j) % ii] = None
        for res, cycles in op.also:
            held = self.extra[res]
            for j in range(cycles):
                held[(t + j) % ii].remove(n)


def slots(n: int, lo: int, hi: int, ii: int, ops: tuple[Op, ...], step: int = 1) -> range:
    """Candidate cycles from lo to hi; a kernel_end node only in the kernel's last row."""
    if ops[n].kernel_end:
        if step > 0:
            first = lo + ((ii - 1 - lo) % ii)
            return range(first, hi + 1, ii)
        first = hi - ((hi - (ii - 1)) % ii)
        return range(first, lo - 1, -ii)
    return range(lo, hi + 1) if step > 0 else range(hi, lo - 1, -1)


def longest_paths(st: LoopStructure, ii: int, reverse: bool) -> list[int]:
    """Height (reverse=False: to the end, own latency included) or depth (earliest start)
    with edge weights latency - II*distance; Bellman-Ford style relaxation, O(n*e) worst case
    (a few passes in practice: edges are visited in topological order of the distance-0 graph;
    the implied edges left out change no path's length)."""
    ops = st.graph.ops
    if reverse:
        val = [0] * len(ops)
        forward = [(u, v, lat - ii * dist) for u, v, lat, dist in st._by_src]
    else:
        val = [op.latency for op in ops]
        forward = [(u, v, lat - ii * dist) for u, v, lat, dist in st._by_dst]
    for _ in range(len(val) + 1):
        changed = False
        if reverse:
            for u, v, w in forward:
                if val[u] + w > val[v]:
                    val[v] = val[u] + w
                    changed = True
        else:
            for u, v, w in forward:
                if val[v] + w > val[u]:
                    val[u] = val[v] + w
                    changed = True
        if not changed:
            break
    return val


def writeback_conflicts(ops, ii: int, time: dict, n: int, t: int, first: bool = False) -> list:
    """The placed operations (*time*: node -> cycle) whose write-back order operation *n*
    at cycle *t* breaks, on a machine that writes results in issue order: for i before j
    in a pass of the kernel (by row, then older iteration, then program order, as the
    code generators write them) ``0 <= (row_j + lat_j) - (row_i + lat_i) <= II``
    (:mod:`schedcc.sched.ims`). With *first*, at most the first one found (enough to
    know whether the slot is free). O(placed)."""
    rn, sn = t % ii, t // ii
    wn = rn + ops[n].latency
    out = []
    for m, tm in time.items():
        rm = tm % ii
        wm = rm + ops[m].latency
        # m after n in the pass: (row, -stage, index) of m above n's
        if rm > rn or (rm == rn and (tm // ii < sn or (tm // ii == sn and m > n))):
            gap = wm - wn
        else:
            gap = wn - wm
        if gap < 0 or gap > ii:
            out.append(m)
            if first:
                break
    return out

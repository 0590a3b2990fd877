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

from schedcc.problem import Op, SchedGraph


class LoopStructure:
    """What the schedulers need about a graph that does not depend on II. O(n + e)."""

    def __init__(self, graph: SchedGraph):
        self.graph = graph
        self.edges = [(d.src, d.dst, d.latency, d.distance) for d in graph.deps]
        try:
            order = graph.topological_order
        except ValueError:
            order = ()
        self.rank = {n: k for k, n in enumerate(order)}
        self.recurrences = []  # (latency sum, distance sum, nodes) of each cyclic SCC
        self_loops = {u for u, v, _, _ in self.edges if u == v}
        import networkx as nx  # here, not at the top: the CLI imports this module for its options
        nxg = nx.DiGraph()
        nxg.add_nodes_from(range(len(graph)))
        nxg.add_edges_from((u, v) for u, v, _, _ in self.edges)
        for comp in nx.strongly_connected_components(nxg):
            if len(comp) > 1 or next(iter(comp)) in self_loops:
                inside = [(lat, dist) for u, v, lat, dist in self.edges if u in comp and v in comp]
                lat = sum(x for x, _ in inside)
                dist = sum(d for _, d in inside) or 1
                self.recurrences.append((lat, dist, set(comp)))
        n = len(graph)
        self.preds: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]  # no self-loops
        self.succs: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        self.preds0: list[list[int]] = [[] for _ in range(n)]
        self.succs0: list[list[int]] = [[] for _ in range(n)]
        for u, v, lat, dist in self.edges:
            if u != v:
                self.preds[v].append((u, lat, dist))
                self.succs[u].append((v, lat, dist))
            if dist == 0:
                self.preds0[v].append(u)
                self.succs0[u].append(v)


class MRT:
    """Per row: issue slots used, unit owner, extra-resource holders."""

    def __init__(self, ii: int, width: int, caps: dict[str, int], ops: tuple[Op, ...]):
        self.ii, self.width, self.caps, self.ops = ii, width, caps, ops
        self.issue: list[list] = [[] for _ in range(ii)]
        self.owner: dict[tuple[str, int], int] = {}
        self.extra: dict[tuple[str, int], list] = {}
        # Try the units fewest operations can use first: an ALU add should leave
        # ALU0/ALU1 to the multiplies and branches that can run nowhere else.
        demand: dict[str, int] = {}
        for op in ops:
            for u in op.units or ("ISSUE",):
                demand[u] = demand.get(u, 0) + 1
        self.choices = [sorted(op.units or ("ISSUE",), key=lambda u: demand[u]) for op in ops]

    def _rows(self, t: int, k: int) -> list[int]:
        return [(t + j) % self.ii for j in range(k)]

    def conflicts(self, n: int, t: int, unit: str) -> set | None:
        """Nodes in the way of placing *n* at *t* on *unit* (None: impossible at any eviction)."""
        op = self.ops[n]
        if op.occupancy > self.ii:
            return None
        out: set = set()
        row = t % self.ii
        if len(self.issue[row]) >= self.width:
            out.add(self.issue[row][0])
        for r in self._rows(t, op.occupancy):
            o = self.owner.get((unit, r))
            if o is not None:
                out.add(o)
        for res, cycles in op.also:
            if cycles > self.ii * self.caps.get(res, 1):
                return None
            for r in self._rows(t, cycles):
                holders = self.extra.get((res, r), [])
                if len(holders) >= self.caps.get(res, 1):
                    out.add(holders[-1])
        return out

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
        self.issue[t % self.ii].append(n)
        for r in self._rows(t, op.occupancy):
            self.owner[(unit, r)] = n
        for res, cycles in op.also:
            for r in self._rows(t, cycles):
                self.extra.setdefault((res, r), []).append(n)

    def remove(self, n: int, t: int, unit: str) -> None:
        op = self.ops[n]
        self.issue[t % self.ii].remove(n)
        for r in self._rows(t, op.occupancy):
            if self.owner.get((unit, r)) == n:
                del self.owner[(unit, r)]
        for res, cycles in op.also:
            for r in self._rows(t, cycles):
                self.extra[(res, r)].remove(n)


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
    (a few passes in practice: edges are visited in topological order of the distance-0 graph)."""
    ops = st.graph.ops
    rank = st.rank
    forward = [(u, v, lat - ii * dist) for u, v, lat, dist in st.edges]
    if reverse:
        val = [0] * len(ops)
        forward.sort(key=lambda e: rank.get(e[0], 0))
    else:
        val = [op.latency for op in ops]
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

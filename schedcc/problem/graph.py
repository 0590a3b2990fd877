"""The scheduling problem: one typed graph that every domain builds and every scheduler reads.

An instruction block, a loop body, an Ascend kernel and a training step all
become a :class:`SchedGraph`:

* :class:`Op` (a node): what to schedule, the resources it may use (``units``:
  one is chosen; ``also``: further resources held from issue), how long its
  unit stays busy (``occupancy``) and when its result is there (``latency``,
  also a training operator's duration);
* :class:`Dep` (an edge): ``dst`` issues at least ``latency`` cycles after
  ``src`` of ``distance`` iterations earlier (0 inside one iteration or block);
* :class:`Machine`: the issue width, the unit instances and the capacity of
  each extra resource.

Nodes are the integers ``0..n-1``; ``keys[i]`` is the domain's own name for
node ``i`` (an instruction index, ``(iteration, operator)``). Schedulers,
verifiers, bounds and simulators read nothing else, so a new domain is a
graph builder. A graph is never changed once built: a pass that wants other
latencies or more edges builds a new one (:meth:`SchedGraph.replace`,
:meth:`SchedGraph.with_deps`).

This is the one module that touches networkx's internals: :meth:`to_networkx`
fills the adjacency dicts directly, which is several times faster than
``add_edges_from`` on large graphs.

Example::

    >>> m = Machine("toy", issue_width=1, units=("ALU",))
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)), (Dep(0, 1, "RAW", 3),), m)
    >>> [d.dst for d in g.succ[0]], g.critical_path()
    ([1], 4)
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field, replace as _replace
from typing import Any, Hashable, Iterable, Mapping, NamedTuple

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads on first use: a CPU block never needs it
    import networkx as nx

_SRC, _DST = operator.itemgetter(0), operator.itemgetter(1)

DEP_KINDS = ("RAW", "WAR", "WAW", "MEM", "CTRL", "ORDER", "P2P", "DATA", "EVENT", "MEMORY")
"""Dependence kinds: register hazards, memory, the terminator, a stream's program
order, a point-to-point transfer, data between pipeline actions, an ordering added
to free a synchronisation event, an ordering that bounds memory (activations
freed before more are allocated)."""


class Op(NamedTuple):
    """One operation to schedule."""

    name: str                                   # what reports call it ("" : use the payload)
    units: tuple[str, ...]                      # unit instances that may execute it; one is chosen
    latency: int                                # cycles (ticks) until its result is available
    occupancy: int = 1                          # cycles the chosen unit stays busy (1: pipelined)
    also: tuple[tuple[str, int], ...] = ()      # further resources held from issue, for cycles
    kind: str = ""                              # its class: the opcode class, "compute", "comm"
    kernel_end: bool = False                    # modulo schedules: issues in the kernel's last row
    payload: Any = None                         # the domain's object (an Instr, an operator record)


class Dep(NamedTuple):
    """``dst`` issues at least ``latency`` after ``src`` of ``distance`` iterations earlier."""

    src: int
    dst: int
    kind: str                                   # one of DEP_KINDS
    latency: int
    distance: int = 0
    reason: str = ""                            # the register or location behind it, for people
    detail: str = ""                            # MEM: the hazard through memory (RAW, WAR, WAW, ORDER)
    tag: str = ""                               # a domain's own label; schedulers ignore it


@dataclass(frozen=True)
class Machine:
    """The resources of a problem: issue slots per cycle, unit instances, extra resources.

    An extra (``also``) resource not named in ``capacity`` has one copy. With
    ``in_order_writeback`` results are written in issue order, as llvm-mca's
    in-order pipeline writes them: an operation issued after another never
    completes before it (``cycle + latency`` does not decrease along the issue
    order; operations issued in one cycle may be ordered among themselves)."""

    name: str
    issue_width: int
    units: tuple[str, ...]
    capacity: tuple[tuple[str, int], ...] = ()
    in_order_writeback: bool = False

    def capacity_of(self, resource: str) -> int:
        return dict(self.capacity).get(resource, 1)


@dataclass(frozen=True, eq=False)
class SchedGraph:
    """A scheduling problem; see the module docstring.

    ``topological`` promises that the node order is a topological order of the
    distance-0 dependences (builders that add nodes in program order know it;
    schedulers then skip a sort). ``source`` is what the graph was built from
    (a :class:`~schedcc.ir.Block`, a loop), for reports and verifiers.
    """

    ops: tuple[Op, ...]
    deps: tuple[Dep, ...]
    machine: Machine
    keys: tuple[Hashable, ...] | None = None
    topological: bool = False
    source: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        n = len(self.ops)
        if self.keys is not None and len(self.keys) != n:
            raise ValueError(f"{len(self.keys)} keys for {n} operations")
        if self.deps:
            # four passes in C (Dep is a tuple: src, dst first) instead of one in Python
            srcs, dsts = list(map(_SRC, self.deps)), list(map(_DST, self.deps))
            lo, hi = min(min(srcs), min(dsts)), max(max(srcs), max(dsts))
            if lo < 0 or hi >= n:
                raise ValueError(f"a dependence names node {lo if lo < 0 else hi}; nodes are 0..{n - 1}")

    def __len__(self) -> int:
        return len(self.ops)

    def __repr__(self) -> str:
        return f"<SchedGraph {self.machine.name}: {len(self.ops)} ops, {len(self.deps)} deps>"

    # -- adjacency (computed once per graph) ----------------------------------------------
    @functools.cached_property
    def succ(self) -> tuple[tuple[Dep, ...], ...]:
        """``succ[i]``: the dependences out of node *i*, in the order they were given."""
        out: list[list[Dep]] = [[] for _ in self.ops]
        for d in self.deps:
            out[d.src].append(d)
        return tuple(map(tuple, out))

    @functools.cached_property
    def pred(self) -> tuple[tuple[Dep, ...], ...]:
        """``pred[i]``: the dependences into node *i*."""
        out: list[list[Dep]] = [[] for _ in self.ops]
        for d in self.deps:
            out[d.dst].append(d)
        return tuple(map(tuple, out))

    @functools.cached_property
    def _pairs(self) -> dict[tuple[int, int], Dep]:
        return {(d.src, d.dst): d for d in self.deps}

    def dep(self, src: int, dst: int) -> Dep | None:
        """The dependence from *src* to *dst* (the last one given), or None."""
        return self._pairs.get((src, dst))

    def has_dep(self, src: int, dst: int) -> bool:
        return (src, dst) in self._pairs

    @functools.cached_property
    def index(self) -> Mapping[Hashable, int]:
        """Domain key -> node (the identity without ``keys``)."""
        if self.keys is None:
            return _Identity(len(self.ops))
        return {k: i for i, k in enumerate(self.keys)}

    def key(self, node: int) -> Hashable:
        return node if self.keys is None else self.keys[node]

    def by_key(self, per_node: Mapping[int, Any]) -> dict:
        """*per_node* (node -> value) keyed by the domain's keys instead (the same dict without keys)."""
        if self.keys is None:
            return dict(per_node)
        return {self.keys[n]: v for n, v in per_node.items()}

    def by_node(self, per_key: Mapping[Hashable, Any]) -> dict[int, Any]:
        """The inverse of :meth:`by_key`: keys that are not nodes of this graph are left out."""
        if self.keys is None:
            return dict(per_key)
        index = self.index
        return {index[k]: v for k, v in per_key.items() if k in index}

    def label(self, node: int) -> str:
        """What a report calls *node*: its name, else its payload, else its key."""
        op = self.ops[node]
        if op.name:
            return op.name
        return str(op.payload) if op.payload is not None else str(self.key(node))

    # -- orders and paths --------------------------------------------------------------
    def has_path(self, src: int, dst: int) -> bool:
        """Whether *dst* can be reached from *src* over distance-0 dependences. O(n + e)."""
        if src == dst:
            return True
        seen, todo, succ = {src}, [src], self.succ
        while todo:
            for d in succ[todo.pop()]:
                if d.distance == 0 and d.dst not in seen:
                    if d.dst == dst:
                        return True
                    seen.add(d.dst)
                    todo.append(d.dst)
        return False

    @functools.cached_property
    def topological_order(self) -> tuple[int, ...]:
        """Nodes in a topological order of the distance-0 dependences. O(n + e).

        Raises ValueError on a cycle of distance-0 dependences."""
        if self.topological:
            return tuple(range(len(self.ops)))
        indeg = [0] * len(self.ops)
        for d in self.deps:
            if d.distance == 0:
                indeg[d.dst] += 1
        todo = [i for i in range(len(self.ops) - 1, -1, -1) if indeg[i] == 0]
        order: list[int] = []
        succ = self.succ
        while todo:
            i = todo.pop()
            order.append(i)
            for d in reversed(succ[i]):
                if d.distance == 0:
                    indeg[d.dst] -= 1
                    if indeg[d.dst] == 0:
                        todo.append(d.dst)
        if len(order) != len(self.ops):
            raise ValueError("the distance-0 dependences form a cycle")
        return tuple(order)

    def heights(self) -> list[int]:
        """Latency-weighted height of every node: the longest path to the end of the
        graph over distance-0 dependences, counting the last node's own latency.
        O(n + e) once per graph (the priority and the lower bound both ask), O(n) after."""
        return list(self._heights)

    @functools.cached_property
    def _heights(self) -> tuple[int, ...]:
        height = [0] * len(self.ops)
        ops, succ = self.ops, self.succ
        for i in reversed(self.topological_order):
            best = ops[i].latency
            for d in succ[i]:
                if d.distance == 0:
                    h = d.latency + height[d.dst]
                    if h > best:
                        best = h
            height[i] = best
        return tuple(height)

    def critical_path(self) -> int:
        """The longest latency-weighted path (0 for an empty graph)."""
        return max(self._heights, default=0)

    # -- new graphs from this one ---------------------------------------------------------
    def replace(self, **changes: Any) -> "SchedGraph":
        """A new graph with some fields changed (``ops``, ``deps``, ``machine`` ...)."""
        return _replace(self, **changes)

    def with_deps(self, extra: Iterable[Dep]) -> "SchedGraph":
        """A new graph with the dependences *extra* added; a pair that exists already
        keeps the larger latency. The node order stays topological only if every new
        dependence goes forward."""
        extra = list(extra)
        merged = dict(self._pairs)
        forward = self.topological
        for d in extra:
            old = merged.get((d.src, d.dst))
            if old is None or d.latency > old.latency:
                merged[(d.src, d.dst)] = d
            if d.distance == 0 and d.src > d.dst:
                forward = False
        return _replace(self, deps=tuple(merged.values()), topological=forward)

    # -- networkx ---------------------------------------------------------------------
    def to_networkx(self) -> nx.DiGraph:
        """A new ``networkx.DiGraph`` over the nodes ``0..n-1``: node attributes are the
        :class:`Op` fields, edge attributes the :class:`Dep` fields (one edge per pair:
        the last dependence given), ``graph["machine"]`` the machine."""
        import networkx as nx
        g = nx.DiGraph(machine=self.machine, source=self.source)
        node = {i: op._asdict() for i, op in enumerate(self.ops)}
        succ: dict[int, dict] = {i: {} for i in node}
        pred: dict[int, dict] = {i: {} for i in node}
        for d in self.deps:
            attrs = d._asdict()
            succ[d.src][d.dst] = attrs
            pred[d.dst][d.src] = attrs
        # The adjacency dicts are networkx's own storage; filling them directly
        # skips a per-edge method call (documented layout of nx.DiGraph).
        g._node, g._adj, g._succ, g._pred = node, succ, succ, pred
        return g

    @classmethod
    def from_networkx(cls, g: nx.DiGraph, machine: Machine | None = None) -> "SchedGraph":
        """A problem from a networkx graph whose nodes carry ``latency`` (default 1),
        ``units``, ``occupancy``, ``also``, ``kernel_end`` and whose edges carry
        ``latency`` (default 0), ``distance``, ``kind``. The nodes, in the graph's
        order, become ``0..n-1`` with their names as ``keys``. Without *machine*:
        issue width 1 per node (unbounded), the units the nodes name."""
        keys = tuple(g.nodes)
        index = {k: i for i, k in enumerate(keys)}
        ops = []
        for k, a in g.nodes(data=True):
            ops.append(Op(str(a.get("name", "")), tuple(a.get("units") or ()), int(a.get("latency", 1)),
                          int(a.get("occupancy", 1)), tuple(a.get("also", ())), str(a.get("kind", "")),
                          bool(a.get("kernel_end", False)), a.get("instr", a.get("payload"))))
        deps = tuple(Dep(index[u], index[v], str(a.get("kind", "RAW")), int(a.get("latency", 0)),
                         int(a.get("distance", 0)), str(a.get("reason", "")), str(a.get("mem", a.get("detail", ""))))
                     for u, v, a in g.edges(data=True))
        if machine is None:
            units = tuple(dict.fromkeys(u for op in ops for u in op.units)) or ("ISSUE",)
            machine = Machine("graph", max(len(ops), 1), units)
        return cls(tuple(ops), deps, machine, keys)


class _Identity(Mapping[Hashable, int]):
    """``{0: 0, 1: 1, ...}`` without building it."""

    def __init__(self, n: int):
        self.n = n

    def __getitem__(self, key: Hashable) -> int:
        if isinstance(key, int) and 0 <= key < self.n:
            return key
        raise KeyError(key)

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self) -> int:
        return self.n


def as_graph(graph: "SchedGraph | nx.DiGraph", machine: Machine | None = None) -> SchedGraph:
    """*graph* itself, or a networkx graph converted with :meth:`SchedGraph.from_networkx`."""
    if isinstance(graph, SchedGraph):
        return graph
    return SchedGraph.from_networkx(graph, machine)


def is_acyclic(nodes: Iterable[Hashable], arcs: Iterable[tuple[Hashable, Hashable]]) -> bool:
    """Do *arcs* (pairs of *nodes*) form no cycle? Kahn's algorithm on plain lists, for the
    callers that check before (or instead of) building a graph. O(n + e).

    >>> is_acyclic("abc", [("a", "b"), ("b", "c")]), is_acyclic("ab", [("a", "b"), ("b", "a")])
    (True, False)
    """
    indeg = dict.fromkeys(nodes, 0)
    succ: dict[Hashable, list] = {n: [] for n in indeg}
    for u, v in arcs:
        succ[u].append(v)
        indeg[v] += 1
    ready = [n for n, k in indeg.items() if k == 0]
    seen = 0
    while ready:
        u = ready.pop()
        seen += 1
        for v in succ[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    return seen == len(indeg)

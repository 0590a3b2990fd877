"""An ATen FX graph -> the operator graph of one training step (one rank; every rank runs the same).

The nodes to schedule are the graph's ``call_function`` (and ``call_module``)
nodes; placeholders and ``get_attr`` stay in front, the output at the end.
Each runs on a *stream*: the compute stream, or its process group's
communication stream (``comm:pg0`` ...; NCCL gives every group its own). A
collective's ``wait_tensor`` is a zero-length node on the compute stream that
cannot start before the collective ends.

Dependences (``dst`` starts when ``src`` has ended):

* ``RAW``: data, the node's FX inputs;
* ``MEM``: in-place and ``out=`` writes (the op's schema marks the written
  argument ``Tensor(a!)``), through every alias of the written tensor: a write
  follows the earlier reads and writes of its storage, a read the last write
  before it. Aliases are what the schema says a result aliases (views,
  ``split``, ``getitem``) and, when the example values carry storages
  (``make_fx`` graphs), tensors sharing one storage;
* ``ORDER``: side effects and random-number draws keep their order among
  themselves (``ordered_effect``).

Durations come from a cost model (:mod:`schedcc.torch.estimates`); the
structure is built once and priced as often as asked.

Complexity: O(n + e) for n nodes and e argument uses, near-linear with the
union-find of aliases.

Example (``add_`` writes ``a``, which ``sin`` reads first)::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> from schedcc.target import load_target
    >>> gm = make_fx(lambda a: (a.sin(), a.add_(1)))(torch.ones(4))
    >>> step = build_step(gm, load_target("h100-8x"))
    >>> [(step.nodes[s].name, step.nodes[t].name, kind) for s, t, kind in step.deps]
    [('sin', 'add_', 'MEM')]
    >>> schedcc_durations(step)
    [2000, 2000]
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from schedcc.errors import SchedccError
from schedcc.problem import Dep, Machine, Op, SchedGraph
from schedcc.target import Target
from schedcc.torch.fx_ops import OpCost, Unpriced, aliased_args, cost_of, op_name, ordered_effect, written_args
from schedcc.training.costs import Cluster, cluster_of
from schedcc.training.simulate import unit_name

FIXED = ("placeholder", "get_attr", "output")


@dataclass
class FxStep:
    """An FX graph as a scheduling problem: its nodes, their costs, streams and dependences."""

    gm: fx.GraphModule
    nodes: tuple[fx.Node, ...]                 # the nodes to schedule, in the graph's order
    costs: tuple[OpCost, ...]
    streams: tuple[str, ...]                   # "compute" or "comm:<group>"
    deps: tuple[tuple[int, int, str], ...]     # (src, dst, kind): dst starts after src ends
    groups: dict[str, int]                     # process group name -> ranks used for pricing
    target: Target
    assumed: tuple[str, ...] = ()              # groups whose size was not in the graph
    source: str = "<graph>"
    index: dict[fx.Node, int] = field(default_factory=dict, repr=False)
    _base: tuple | None = field(default=None, repr=False)

    @property
    def cluster(self) -> Cluster:
        return cluster_of(self.target)

    def __len__(self) -> int:
        return len(self.nodes)

    def collectives(self) -> list[int]:
        return [i for i, c in enumerate(self.costs) if c.category == "comm"]

    def problem(self, dur: list[int], extra: list[tuple[int, int, str, int]] = ()) -> SchedGraph:
        """The step with durations *dur* (ticks) as a :class:`SchedGraph` (keys ``(0, i)``),
        plus *extra* dependences (src, dst, kind, latency). The operators and the graph's own
        dependences are built once per *dur* and shared by every problem asked for with it."""
        key = tuple(dur)
        if self._base is None or self._base[0] != key:
            self._base = (key, *self._operators(dur))
        _, ops, deps, machine = self._base
        extra_deps = tuple(Dep(s, t, kind, lat) for s, t, kind, lat in extra)
        return SchedGraph(ops, deps + extra_deps, machine, tuple((0, i) for i in range(len(ops))), source=self)

    def _operators(self, dur: list[int]):
        units: dict[str, str] = {}
        ops = []
        for i, (node, cost, stream) in enumerate(zip(self.nodes, self.costs, self.streams)):
            unit = units.setdefault(stream, unit_name(0, stream))
            d = dur[i]
            busy = d if cost.category in ("compute", "comm") else 0
            comm = cost.category == "comm"
            ops.append(Op(node.name, (unit,), d, busy, (), "comm" if comm else "compute", payload={
                "name": node.name, "rank": 0, "stream": stream, "kind": "comm" if comm else "compute",
                "dur": d, "flops": cost.flops, "bytes": cost.bytes, "group": stream[5:] if comm else None,
                "layer": None, "act": 0.0, "update": None, "iteration": 0, "instr": None, "op": cost.op, "category": cost.category,
                "ranks": self.groups.get(cost.group) if comm else 1}))
        deps = tuple(Dep(s, t, kind, dur[s]) for s, t, kind in self.deps)
        return tuple(ops), deps, Machine(self.target.name, max(1, len(ops)), tuple(sorted(units.values())))


def group_label(name: str) -> str:
    """A process group's name as a stream's: ``"0"`` -> ``pg0``."""
    return f"pg{name}" if name.isdigit() or not name else name


def build_step(gm: fx.GraphModule, target: Target, groups: dict[str, int] | None = None,
               source: str = "<graph>") -> FxStep:
    """The :class:`FxStep` of *gm* on cluster *target*; *groups* gives process-group sizes
    the graph does not state (``{"0": 8}``). Raises a :class:`SchedccError` naming the op and
    node that cannot be priced."""
    cluster = cluster_of(target)
    nodes = tuple(n for n in gm.graph.nodes if n.op not in FIXED)
    costs = []
    for n in nodes:
        try:
            costs.append(cost_of(n))
        except Unpriced as err:
            raise SchedccError(f"{source}: cannot price op {err.op} at node '{err.node}': {err.reason}",
                               notes=["capture the graph with make_fx or torch.export (they record every "
                                      "node's tensor metadata), or set node.meta['val'] (ShapeProp)"]) from None
    sizes, assumed = _group_sizes(costs, groups or {}, cluster, source)
    streams = tuple("comm:" + group_label(c.group) if c.category == "comm" else "compute" for c in costs)
    index = {n: i for i, n in enumerate(nodes)}
    deps = _dependences(gm.graph, nodes, costs, index)
    return FxStep(gm, nodes, tuple(costs), streams, tuple(deps), sizes, target, tuple(assumed), source, index)


def _group_sizes(costs, given: dict[str, int], cluster: Cluster, source: str) -> tuple[dict[str, int], list[str]]:
    """Each process group's size: given, stated by one of its collectives, the process group of
    this process, else the whole cluster (reported as assumed)."""
    stated: dict[str, int] = {}
    for c in costs:
        if c.category == "comm" and c.ranks:
            stated.setdefault(c.group, c.ranks)
    sizes, assumed = {}, []
    for c in costs:
        if c.category != "comm" or c.group in sizes:
            continue
        size = given.get(c.group) or stated.get(c.group) or _registered_size(c.group)
        if size is None:
            size = cluster.world
            assumed.append(c.group)
        if size > cluster.world:
            raise SchedccError(f"{source}: process group '{c.group}' has {size} ranks, more than the "
                               f"{cluster.world} devices of '{cluster.name}'",
                               notes=["choose a larger cluster model (e.g. h100-128x)"])
        sizes[c.group] = int(size)
    return sizes, assumed


def _registered_size(name: str) -> int | None:
    """The size of process group *name* in this process (the one a graph was captured in)."""
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        return None
    try:
        from torch.distributed.distributed_c10d import _resolve_process_group
        return _resolve_process_group(name).size()
    except Exception:  # a name this process does not know
        return None


class _Aliases:
    """Union-find over tensor values: a node's result, ``(node, i)`` for the i-th of several."""

    def __init__(self) -> None:
        self.parent: dict = {}

    def find(self, k):
        parent = self.parent
        root = k
        while root in parent:
            root = parent[root]
        while k in parent and parent[k] != root:  # path compression
            parent[k], k = root, parent[k]
        return root

    def union(self, a, b) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _storage(value) -> int | None:
    if isinstance(value, torch.Tensor) and not value.is_sparse:
        try:
            return value.untyped_storage()._cdata
        except Exception:  # tensors without a storage (functional wrappers, symbolic)
            return None
    return None


def _alias_classes(graph: fx.Graph) -> _Aliases:
    """Which values share memory: schema aliases, getitem, and shared example storages."""
    al = _Aliases()
    for node in graph.nodes:
        aliases = aliased_args(node) if node.op == "call_function" else []
        if node.op == "call_function" and node.target is operator.getitem and isinstance(node.args[0], fx.Node):
            al.union(node, (node.args[0], node.args[1]))
        for arg in aliases:
            for leaf in pytree.tree_leaves(arg):
                if isinstance(leaf, fx.Node):
                    al.union(node, leaf)
        val = node.meta.get("val")
        if isinstance(val, (list, tuple)):
            for i, v in enumerate(val):
                if aliases:
                    al.union((node, i), node)
                s = _storage(v)
                if s is not None:
                    al.union((node, i), ("storage", s))
        else:
            s = _storage(val)
            if s is not None:
                al.union(node, ("storage", s))
    return al


def _dependences(graph: fx.Graph, nodes, costs, index: dict) -> list[tuple[int, int, str]]:
    edges: dict[tuple[int, int], str] = {}

    def add(s: int, t: int, kind: str) -> None:
        if s != t and (s, t) not in edges:
            edges[(s, t)] = kind

    for i, n in enumerate(nodes):
        for p in n.all_input_nodes:
            j = index.get(p)
            if j is not None:
                add(j, i, "RAW")
    writes = [written_args(n) for n in nodes]
    if any(writes):
        al = _alias_classes(graph)
        written_nodes = [[x for x in pytree.tree_leaves(w) if isinstance(x, fx.Node)] for w in writes]
        touched = {al.find(x) for ws in written_nodes for x in ws}
        last_write: dict = {}
        readers: dict = {}
        for i, n in enumerate(nodes):
            wset = {al.find(x) for x in written_nodes[i]}
            if costs[i].category != "free":
                for p in n.all_input_nodes:
                    c = al.find(p)
                    if c in touched and c not in wset:
                        if c in last_write:
                            add(last_write[c], i, "MEM")
                        readers.setdefault(c, []).append(i)
            for c in wset:
                if c in last_write:
                    add(last_write[c], i, "MEM")
                for r in readers.pop(c, ()):
                    add(r, i, "MEM")
                last_write[c] = i
        # the alias's readers after the write depend on it through MEM; results of the writer
        # are read through data edges
    prev = None
    for i, n in enumerate(nodes):
        if ordered_effect(n):
            if prev is not None:
                add(prev, i, "ORDER")
            prev = i
    return [(s, t, k) for (s, t), k in edges.items()]


def describe(step: FxStep, i: int) -> str:
    """``node 'mm_3' (aten.mm.default)``: a node for people."""
    return f"node '{step.nodes[i].name}' ({op_name(step.nodes[i])})"


def schedcc_durations(step: FxStep) -> list[int]:
    """Ticks of every node under schedcc's cluster model (:mod:`schedcc.training.costs`):
    a kernel by the roofline of its FLOPs and bytes, a collective by the alpha-beta model of
    its group, waits and views nothing."""
    from schedcc.training.costs import ticks
    cluster = step.cluster
    out = []
    for c in step.costs:
        if c.category == "compute":
            out.append(ticks(cluster.compute_time(c.flops, c.bytes)))
        elif c.category == "comm":
            out.append(ticks(cluster.collective_time(c.collective, c.bytes, step.groups[c.group])))
        else:
            out.append(0)
    return out

"""Scheduling policies for a training step, as graph transformations.

Each policy turns the one-iteration operator graph into a :class:`Plan`: the
graph it really runs (DDP merges gradients into buckets, ByteScheduler cuts
them into chunks), which streams keep program order (an eager framework
issues work in order; a policy may reorder a channel), and a priority per
node for the list scheduler. :func:`schedcc.training.simulate.run_plan` then
unrolls iterations and list-schedules the result.

* ``fifo``: program order on every stream.
* ``ddp``: data-parallel gradients grouped into buckets of ``bucket_mb`` (the
  first of ``first_bucket_mb``, 1 MiB) in reverse parameter order; each
  bucket's all-reduce starts when the bucket is full, buckets in order; the
  optimizer runs after backward, as in PyTorch DDP.
* ``priority`` (ByteScheduler): data-parallel tensors cut into chunks of
  ``partition_mb``; chunks of layers nearest the input go first, and a chunk
  boundary is a preemption point; ``credit_mb`` bounds the bytes in flight
  (credit/partition chunks share the link); optimizer updates run as soon as
  their gradient arrives, so the next forward starts layer by layer.
* ``critical-path``: the list scheduler's latency-weighted priority on the
  whole graph, no program order on any stream, within each rank's activation
  memory: a rank never holds more activations than its program, run in
  order, holds at its peak (so a pipeline stage keeps its schedule's
  in-flight limit; :func:`memory_edges`).

Each transformation is O(n + e).

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.training.graph import build_training_graph
    >>> tg = build_training_graph(parse(
    ...     "g = mm x {flops = 1e12}\\nr = allreduce g {bytes = 64MiB, group = dp}\\n"),
    ...     load_target("h100-8x"))
    >>> plan = make_plan(tg, "priority", partition_mb=16)
    >>> sorted(d["name"] for _, d in plan.graph.nodes(data=True))
    ['g', 'r.0', 'r.1', 'r.2', 'r.3']
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field, replace
from typing import Callable, Hashable

import networkx as nx

from schedcc.errors import SchedccError, check_range
from schedcc.training.costs import ticks
from schedcc.training.graph import TrainingGraph
from schedcc.training.limits import MIB_RANGE, MIB_WHY

MiB = 2**20
DATA_EDGES = ("RAW", "WAW", "MEM", "P2P")
MEMORY = "MEMORY"  # a policy's ordering for activation memory: waits until its source ends


@dataclass
class Plan:
    """What one policy runs: a one-iteration graph plus ordering rules.

    ``ordered(rank, stream)`` says whether that stream runs in ``order``
    (program order); ``priority`` maps nodes to numbers (higher first);
    ``channels`` maps a (rank, stream) to how many parallel units it has.
    """

    policy: str
    graph: nx.DiGraph
    ordered: Callable[[int, str], bool]
    priority: dict[Hashable, float] | None  # None: the list scheduler's critical path
    channels: dict[tuple[int, str], int]
    float_updates: bool = False  # optimizer updates leave program order (run when ready)
    fallback: "Plan | None" = None  # also run; the faster of the two steps is kept
    # (u, v, latency) from iteration k's u to iteration k+1's v, beyond program order and updates
    carried: list[tuple[Hashable, Hashable, int]] = field(default_factory=list)


def _copy(tg: TrainingGraph) -> nx.DiGraph:
    """A graph the policy may change (nodes carry ``order``, their program position)."""
    return tg.graph.copy()


def _dp_comm(d: dict) -> bool:
    return d["kind"] == "comm" and d["group"] == "dp" and d["opcode"] not in ("send", "recv")


def _source_priority(g: nx.DiGraph) -> dict[Hashable, float]:
    return {n: -d["order"] for n, d in g.nodes(data=True)}


def fifo(tg: TrainingGraph, **_) -> Plan:
    """Program order on every stream (an eager framework)."""
    g = tg.graph  # unchanged: no copy
    return Plan("fifo", g, lambda r, s: True, _source_priority(g), {})


def memory_edges(g: nx.DiGraph) -> tuple[list[tuple], list[tuple]]:
    """Orderings that keep each rank's live activations within what its program order holds.

    An operator with ``act`` bytes allocates them when it ends; they are freed
    when its last reader (a data successor) ends. On each rank, in program
    order: the allocating operators keep their order (a zero-latency chain),
    and each reader of an activation whose last reader comes before
    allocation ``b`` in program order must end before ``b`` starts. Then at
    any time the live activations are a subset of those live in program
    order right after the latest allocation made so far, so the peak never
    exceeds the program's (for a 1F1B program: never more microbatches in
    flight than its warm-up). A pipeline schedule's in-flight limit is such a
    peak. Allocations after which nothing is allocated in the iteration wait
    in the next one (``carried``).

    Returns (edges of one iteration, edges into the next), as (u, v, latency).
    O(n + e).
    """
    nodes = g.nodes
    by_rank: dict[int, list] = {}
    for n in sorted(g, key=lambda n: nodes[n]["order"]):
        if nodes[n].get("act"):
            by_rank.setdefault(nodes[n]["rank"], []).append(n)
    local: list[tuple] = []
    carried: list[tuple] = []
    for allocs in by_rank.values():
        orders = [nodes[a]["order"] for a in allocs]
        for a, b in zip(allocs, allocs[1:]):
            local.append((a, b, 0))
        for a in allocs:
            readers = [s for s, e in g.succ[a].items() if e["kind"] in DATA_EDGES]
            if not readers:
                continue
            last = max(nodes[s]["order"] for s in readers)
            i = bisect.bisect_right(orders, last)
            for s in readers:
                if i < len(allocs):
                    if s != allocs[i]:
                        local.append((s, allocs[i], nodes[s]["dur"]))
                else:
                    carried.append((s, allocs[0], nodes[s]["dur"]))
    return local, carried


def critical_path(tg: TrainingGraph, **_) -> Plan:
    """The whole graph to the list scheduler with its critical-path priority, within
    each rank's activation memory of program order (:func:`memory_edges`).

    A list schedule is greedy: a long operator started in an idle moment can hold up
    a more urgent one that becomes ready just after. The program's own order
    (``fifo``) is therefore run as well, and kept when it is faster: the policy
    never loses to it."""
    local, carried = memory_edges(tg.graph)
    g = tg.graph
    if local:
        g = _copy(tg)
        for u, v, _lat in local:
            if not g.has_edge(u, v):
                g.add_edge(u, v, kind="MEMORY")
        if not nx.is_directed_acyclic_graph(g):  # a program whose ranks cannot run in order
            g, carried = tg.graph, []
    return Plan("critical-path", g, lambda r, s: False, None, {}, float_updates=True, carried=carried,
                fallback=fifo(tg))


def _merge(g: nx.DiGraph, members: list, name: str, attrs: dict) -> Hashable:
    """Replace *members* by one new node that inherits their edges."""
    node = ("merged", name)
    g.add_node(node, **attrs)
    for m in members:
        for p, d in g.pred[m].items():
            if p not in members:
                g.add_edge(p, node, **d)
        for s, d in g.succ[m].items():
            if s not in members:
                g.add_edge(node, s, **d)
    g.remove_nodes_from(members)
    return node


def ddp(tg: TrainingGraph, bucket_mb: float = 25.0, first_bucket_mb: float = 1.0, **_) -> Plan:
    """PyTorch DDP: gradient all-reduces merged into buckets of *bucket_mb* MiB
    (the first one *first_bucket_mb*, as PyTorch caps it so that communication
    starts early)."""
    check_range(bucket_mb, *MIB_RANGE, "--bucket-mb", why=MIB_WHY)
    check_range(first_bucket_mb, *MIB_RANGE, "the first bucket's size", why=MIB_WHY)
    g = _copy(tg)
    limit = bucket_mb * MiB
    # per rank, and per training step when the graph holds several (an imported trace's)
    by_rank: dict[tuple, list] = {}
    for n, d in g.nodes(data=True):
        if _dp_comm(d) and d["opcode"] == "allreduce":
            by_rank.setdefault((d["rank"], d.get("step")), []).append(n)
    for (rank, step), grads in by_rank.items():
        where = f".r{rank}" + (f".s{step}" if step is not None else "")
        # reverse parameter order: the gradients of the last layers come first
        grads.sort(key=lambda n: (-(g.nodes[n]["layer"] if g.nodes[n]["layer"] is not None else -g.nodes[n]["order"]),
                                  g.nodes[n]["order"]))
        bucket: list = []
        size = 0.0
        count = 0
        for i, n in enumerate(grads):
            bucket.append(n)
            size += g.nodes[n]["bytes"]
            if size >= (first_bucket_mb * MiB if count == 0 else limit) or i == len(grads) - 1:
                first = g.nodes[bucket[0]]
                dur = ticks(tg.cluster.collective_time("allreduce", size, first["ranks"],
                                                       int(first["instr"].attr("stride", 1) or 1)))
                attrs = dict(first, name=f"bucket{count}{where}", dur=dur, bytes=size, instr=None,
                             order=max(g.nodes[m]["order"] for m in bucket),
                             members=[g.nodes[m]["name"] for m in bucket])
                _merge(g, bucket, f"bucket{count}{where}", attrs)
                bucket, size, count = [], 0.0, count + 1
    return Plan("ddp", g, lambda r, s: True, _source_priority(g), {})


def _layer_keys(tg: TrainingGraph, g: nx.DiGraph) -> dict[Hashable, float]:
    """How urgently the next forward needs each data-parallel tensor: lower first.

    The ``layer`` attribute when the program gives one; otherwise the position
    of the first operator that reads the parameter this gradient updates;
    otherwise later-issued gradients (earlier layers, in backward) first."""
    first_reader: dict[str, float] = {}
    for n, regs in tg.live_in.items():
        for r in regs:
            first_reader.setdefault(r, float(n))
    keys: dict[Hashable, float] = {}
    nodes = [n for n, d in g.nodes(data=True) if _dp_comm(d)]
    use_layer = any(g.nodes[n]["layer"] is not None for n in nodes)
    for n in nodes:
        d = g.nodes[n]
        if use_layer:
            keys[n] = d["layer"] if d["layer"] is not None else math.inf
            continue
        key = None
        for s in nx.descendants(g, n) if len(g) < 5000 else g.succ[n]:
            param = g.nodes[s].get("update")
            if param is not None and param in first_reader:
                key = first_reader[param]
                break
        keys[n] = key if key is not None else len(g) - d["order"]
    return keys


MAX_CHUNKS = 256


def priority(tg: TrainingGraph, partition_mb: float = 16.0, credit_mb: float | None = None, **_) -> Plan:
    """ByteScheduler: chunked data-parallel tensors, queued by layer, preemptible per chunk."""
    check_range(partition_mb, *MIB_RANGE, "--partition-mb", why=MIB_WHY)
    credit_mb = partition_mb if credit_mb is None else check_range(credit_mb, *MIB_RANGE, "--credit-mb", why=MIB_WHY)
    if credit_mb < partition_mb:
        raise SchedccError(f"--credit-mb ({credit_mb:g}) must be at least --partition-mb ({partition_mb:g})")
    g = _copy(tg)
    keys = _layer_keys(tg, g)
    share = min(MAX_CHUNKS, max(1, int(credit_mb // partition_mb)))  # chunks in flight at once
    cluster = replace(tg.cluster, comm_efficiency=tg.cluster.comm_efficiency / share)
    part = partition_mb * MiB
    prio: dict[Hashable, float] = {}
    channels: dict[tuple[int, str], int] = {}
    for n in list(keys):
        d = g.nodes[n]
        channels[(d["rank"], d["stream"])] = share
        # At most MAX_CHUNKS chunks per tensor (then larger than --partition-mb): the
        # cost of scheduling must not grow with the byte count.
        k = min(MAX_CHUNKS, max(1, math.ceil(d["bytes"] / part)))
        stride = int(d["instr"].attr("stride", 1) or 1) if d["instr"] is not None else 1
        chunk_bytes = d["bytes"] / k
        dur = ticks(cluster.collective_time(d["opcode"], chunk_bytes, d["ranks"], stride))
        preds, succs = list(g.pred[n].items()), list(g.succ[n].items())
        g.remove_node(n)
        for c in range(k):
            node = ("chunk", n, c)
            g.add_node(node, **dict(d, name=f"{d['name']}.{c}", dur=dur, bytes=chunk_bytes,
                                    order=d["order"] + c / k, chunk=c, of=d["name"]))
            prio[node] = -keys[n] * 1e3 - c / k
            for p, e in preds:
                g.add_edge(p, node, **e)
            for s, e in succs:
                g.add_edge(node, s, **e)
    base = _source_priority(g)
    floor = min(prio.values(), default=0.0) - len(g) - 1
    for n, d in g.nodes(data=True):
        if n not in prio:
            # updates unblock the next forward: before anything else on the compute stream
            prio[n] = -floor if d.get("update") is not None else floor + base[n] + len(g)
    return Plan("priority", g, lambda r, s: s != "comm:dp", prio, channels, float_updates=True)


POLICIES: dict[str, Callable[..., Plan]] = {
    "fifo": fifo,
    "ddp": ddp,
    "priority": priority,
    "critical-path": critical_path,
}

POLICY_HELP = {
    "fifo": "program order on every stream, as an eager framework issues work",
    "ddp": "PyTorch DDP: gradient buckets of --bucket-mb, all-reduced in bucket order",
    "priority": "ByteScheduler: --partition-mb chunks, layers nearest the input first, preemption per chunk",
    "critical-path": "the list scheduler's latency-weighted priority on the whole graph, "
                     "within each rank's activation memory of program order",
}


def make_plan(tg: TrainingGraph, policy: str, **options) -> Plan:
    if policy not in POLICIES:
        import difflib
        close = difflib.get_close_matches(policy, list(POLICIES), n=2)
        raise SchedccError(f"unknown policy '{policy}'",
                           notes=([f"did you mean {close[0]!r}?"] if close else [])
                           + ["policies: " + ", ".join(POLICIES)])
    return POLICIES[policy](tg, **options)

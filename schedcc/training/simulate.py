"""Unroll a :class:`~schedcc.training.policies.Plan` over iterations and list-schedule it.

Resources are units for :func:`schedcc.sched.list_schedule`: one per (rank,
stream), ``rank2:compute``, ``rank2:comm:dp`` (several when a policy lets
chunks share a link). A data edge ``u -> v`` has latency ``dur(u)`` (v starts
when u ends); a stream that keeps program order gets zero-latency chain edges
(the unit being busy does the rest). Iteration ``k+1``'s readers of a
parameter depend on iteration ``k``'s optimizer update of it, so the next
forward waits exactly for what it needs.

Complexity: O(I (n + e) log(I n)) for I iterations, the list scheduler's bound.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.training.graph import build_training_graph
    >>> from schedcc.training.policies import make_plan
    >>> tg = build_training_graph(parse("a = mm x {time = 10us}\\nb = mm a {time = 5us}\\n"),
    ...                           load_target("h100-8x"))
    >>> run = run_plan(tg, make_plan(tg, "fifo"), iterations=1)
    >>> [(run.graph.nodes[n]["name"], run.start[n], run.end[n]) for n in run.graph]
    [('a', 0, 10000), ('b', 10000, 15000)]
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Hashable

import networkx as nx

from ..sched import list_schedule
from ..sched.priority import critical_path
from .graph import TrainingGraph, check_acyclic
from .policies import DATA_EDGES, Plan


@dataclass
class Run:
    """A scheduled, unrolled graph: node -> start and end in ticks."""

    graph: nx.DiGraph          # nodes (iteration, plan node)
    start: dict[Hashable, int]
    end: dict[Hashable, int]
    unit: dict[Hashable, str]
    iterations: int
    issue: dict[Hashable, int] | None = None  # the scheduler's issue ticks (a recv is shown over its transfer)


def unit_name(rank: int, stream: str, lane: int = 0, lanes: int = 1) -> str:
    return f"rank{rank}:{stream}" + (f"#{lane}" if lanes > 1 else "")


def unroll(tg: TrainingGraph, plan: Plan, iterations: int) -> nx.DiGraph:
    """*iterations* copies of the plan's graph with chain and cross-iteration edges.

    Raises a located error when the graph of one iteration, chains included,
    has a cycle (a deadlock); edges between iterations only go forward, so
    no other cycle can exist."""
    base = plan.graph
    bnodes = base._node  # the raw dicts: networkx's views cost more than the work here
    ordered_nodes = sorted(base.nodes, key=lambda n: bnodes[n]["order"])
    # the parameter each update writes -> the nodes of the next iteration that read it
    readers: dict[tuple[int, str], list] = {}
    for n in ordered_nodes:
        d = bnodes[n]
        for reg in tg.live_in.get(n, ()) if not isinstance(n, tuple) else ():
            readers.setdefault((d["rank"], reg), []).append(n)
    units_of = {}
    for n in ordered_nodes:
        d = bnodes[n]
        key = (d["rank"], d["stream"])
        if key not in units_of:
            lanes = plan.channels.get(key, 1)
            units_of[key] = tuple(unit_name(d["rank"], d["stream"], i, lanes) for i in range(lanes))
    # edges of one iteration: (u, v, kind, latency), chains included
    local = [(u, v, e["kind"], bnodes[u]["dur"] if e["kind"] in DATA_EDGES else 0)
             for u, v, e in base.edges(data=True)]
    chained = []
    for n in ordered_nodes:
        d = bnodes[n]
        if plan.float_updates and d.get("update") is not None:
            continue
        if plan.ordered(d["rank"], d["stream"]):
            chained.append(n)
    last: dict[tuple[int, str], Hashable] = {}
    firsts: dict[tuple[int, str], Hashable] = {}
    for n in chained:
        key = (bnodes[n]["rank"], bnodes[n]["stream"])
        prev = last.get(key)
        if prev is None:
            firsts[key] = n
        elif not base.has_edge(prev, n):
            local.append((prev, n, "ORDER", 0))
        last[key] = n
    _check_one_iteration(base, local)
    # edge attributes are only read, so the iterations share them
    local_attrs = [(u, v, {"kind": kind, "latency": lat, "reason": kind}) for u, v, kind, lat in local]
    nodes = []
    edges = []
    templates = [(n, {**bnodes[n], "units": units_of[(bnodes[n]["rank"], bnodes[n]["stream"])],
                      "latency": bnodes[n]["dur"], "occupancy": bnodes[n]["dur"], "also": ()})
                 for n in ordered_nodes]
    for k in range(iterations):
        nodes.extend(((k, n), {**t, "iteration": k}) for n, t in templates)
        edges.extend(((k, u), (k, v), d) for u, v, d in local_attrs)
        if k:
            # program order continues into the next iteration
            for key, first in firsts.items():
                edges.append(((k - 1, last[key]), (k, first), {"kind": "ORDER", "latency": 0, "reason": "ORDER"}))
            for n, d in base.nodes(data=True):
                param = d.get("update")
                if param is None:
                    continue
                for r in readers.get((d["rank"], param), ()):
                    edges.append(((k - 1, n), (k, r), {"kind": "RAW", "latency": d["dur"],
                                                       "reason": f"updated {param}"}))
    return _digraph(nodes, edges)


def _digraph(nodes: list, edges: list) -> nx.DiGraph:
    """A DiGraph filled through its adjacency dicts (as the schedulers read them):
    add_edges_from would take as long as the scheduling itself. Edges join
    distinct, existing nodes; when one repeats, the larger latency is kept."""
    g = nx.DiGraph()
    node_attrs = dict(nodes)
    succ: dict = {n: {} for n in node_attrs}
    pred: dict = {n: {} for n in node_attrs}
    for u, v, d in edges:
        old = succ[u].get(v)
        if old is not None and old["latency"] >= d["latency"]:
            continue  # two reasons for one edge: the longer wait holds
        succ[u][v] = d
        pred[v][u] = d
    g._node = node_attrs
    g._adj = succ
    g._succ = succ
    g._pred = pred
    return g


def _check_one_iteration(base: nx.DiGraph, edges: list) -> None:
    """Kahn's algorithm over *edges*; on a cycle, report it with the operators on it."""
    indeg = {n: 0 for n in base}
    succ: dict = {n: [] for n in base}
    for u, v, _, _ in edges:
        succ[u].append(v)
        indeg[v] += 1
    todo = [n for n, k in indeg.items() if k == 0]
    seen = 0
    while todo:
        n = todo.pop()
        seen += 1
        for s in succ[n]:
            indeg[s] -= 1
            if indeg[s] == 0:
                todo.append(s)
    if seen == len(indeg):
        return
    g = nx.DiGraph()
    g.add_nodes_from(base.nodes(data=True))
    g.add_edges_from((u, v, {"kind": kind}) for u, v, kind, _ in edges)
    check_acyclic(g, "the schedule would deadlock (a cycle of dependences and stream order)")


def run_plan(tg: TrainingGraph, plan: Plan, iterations: int = 3) -> Run:
    """List-schedule *iterations* unrolled copies of *plan*; raise a located error on deadlock."""
    g = unroll(tg, plan, iterations)
    units = sorted({u for d in g._node.values() for u in d["units"]})
    target = replace(tg.target, issue_width=len(units), units=tuple(units), groups={},
                     name=tg.target.name, path=tg.target.path + "#training")
    if plan.priority is None:
        # latency-weighted height, earlier iterations first (an operator nothing waits
        # for must still finish in its own step, not drift to the end of the run)
        height = critical_path(g)
        scale = max(height.values(), default=0) + 1
        prio = {n: h - n[0] * scale for n, h in height.items()}
        prio_fn = lambda _dag, p=prio: p  # noqa: E731
    else:
        base = plan.priority
        k_scale = max((abs(v) for v in base.values()), default=0.0) * 2 + 1
        prio = {n: base[n[1]] - n[0] * k_scale for n in g}
        prio_fn = lambda _dag, p=prio: p  # noqa: E731
    contention = tg.cluster.contention
    base_dur = {n: d["dur"] for n, d in g.nodes(data=True)} if contention > 0 else None
    rounds = CONTENTION_ROUNDS if contention > 0 else 1
    for r in range(rounds):
        sched = list_schedule(g, target, priority=prio_fn)
        # the last round's durations stay: they are the ones this schedule used
        if base_dur is None or r == rounds - 1 or not _stretch(g, sched.cycle, base_dur, contention):
            break
    nodes = g._node
    start = dict(sched.cycle)
    end = {n: c + nodes[n]["dur"] for n, c in start.items()}
    for n, d in nodes.items():
        if "send" in d:
            send = (n[0], d["send"])
            start[n], end[n] = start[send], end[send]
    return Run(g, start, end, dict(sched.unit), iterations, dict(sched.cycle))


CONTENTION_ROUNDS = 4


def _stretch(g: nx.DiGraph, issue: dict, base_dur: dict, contention: float) -> bool:
    """Slow every compute operator by *contention* x the time communication of its
    rank overlaps it (compute and collectives share memory bandwidth and cores).
    Returns whether any duration changed, so that the caller schedules again
    (a fixed-point iteration: each round uses the previous round's overlaps).
    O(n log n) per round."""
    comm: dict[int, list] = {}
    for n, d in g._node.items():
        if d["kind"] == "comm" and d["dur"]:
            comm.setdefault(d["rank"], []).append((issue[n], issue[n] + d["dur"]))
    merged = {}
    for rank, spans in comm.items():
        spans.sort()
        out = []
        for a, b in spans:
            if out and a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        merged[rank] = ([a for a, _ in out], out)
    changed = False
    succ = g._succ
    for n, d in g._node.items():
        if d["kind"] != "compute" or not base_dur[n] or d["rank"] not in merged:
            continue
        starts, spans = merged[d["rank"]]
        a, b = issue[n], issue[n] + d["dur"]
        i = max(bisect.bisect_right(starts, a) - 1, 0)
        both = 0
        while i < len(spans) and spans[i][0] < b:
            lo, hi = max(a, spans[i][0]), min(b, spans[i][1])
            if hi > lo:
                both += hi - lo
            i += 1
        new = base_dur[n] + round(contention * both)
        if new != d["dur"]:
            changed = True
            d["dur"] = d["latency"] = d["occupancy"] = new
            for v, e in list(succ[n].items()):
                if e["kind"] in DATA_EDGES:
                    e = dict(e, latency=new)  # edge dicts are shared between iterations: replace, never mutate
                    succ[n][v] = e
                    g._pred[v][n] = e
    return changed

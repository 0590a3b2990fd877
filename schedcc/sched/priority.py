"""Priority functions for the list scheduler: node -> number, higher goes first.

Each runs in O(n + e) over a DAG whose nodes carry ``latency`` and whose edges
carry ``latency``.

Example::

    >>> import networkx as nx
    >>> g = nx.DiGraph(); g.add_node(0, latency=3); g.add_node(1, latency=3)
    >>> g.add_edge(0, 1, latency=3)
    >>> critical_path(g)
    {1: 3, 0: 6}
"""

from __future__ import annotations

from typing import Callable, Hashable

import networkx as nx

PriorityFunction = Callable[[nx.DiGraph], dict[Hashable, float]]


def topological_order(dag: nx.DiGraph) -> list[Hashable]:
    """Nodes in a topological order. Graphs from :func:`schedcc.dag.build_dag`
    say (``dag.graph["ordered"]``) that their node order already is one."""
    if dag.graph.get("ordered"):
        return list(dag)
    return list(nx.topological_sort(dag))


def critical_path(dag: nx.DiGraph) -> dict[Hashable, float]:
    """Latency-weighted height: the longest path from the node to the end of
    the block, counting edge latencies and the last node's own latency."""
    height: dict[Hashable, float] = {}
    succ = dag._succ  # the raw adjacency: the views cost a third of the time here
    lat = dag._node
    for node in reversed(topological_order(dag)):
        best = lat[node].get("latency", 1)
        for s, d in succ[node].items():
            h = d["latency"] + height[s]
            if h > best:
                best = h
        height[node] = best
    return height


def depth(dag: nx.DiGraph) -> dict[Hashable, float]:
    """Earliest issue cycle ignoring resources (longest latency path from a source)."""
    earliest: dict[Hashable, float] = {}
    pred = dag._pred
    for node in topological_order(dag):
        earliest[node] = max((earliest[p] + d["latency"] for p, d in pred[node].items()), default=0)
    return earliest


def successors(dag: nx.DiGraph) -> dict[Hashable, float]:
    """How many instructions wait directly on this one."""
    return {n: dag.out_degree(n) for n in dag.nodes}


def source_order(dag: nx.DiGraph) -> dict[Hashable, float]:
    """The order of the program as written: earlier is more urgent."""
    n = dag.number_of_nodes()
    return {node: n - i for i, node in enumerate(dag.nodes)}


def own_latency(dag: nx.DiGraph) -> dict[Hashable, float]:
    """Start long-latency instructions first."""
    return {n: d.get("latency", 1) for n, d in dag.nodes(data=True)}


PRIORITIES: dict[str, PriorityFunction] = {
    "critical-path": critical_path,
    "successors": successors,
    "source": source_order,
    "latency": own_latency,
}

PRIORITY_HELP = {
    "critical-path": "longest latency-weighted path to the end of the block (default)",
    "successors": "number of direct successors",
    "source": "original program order",
    "latency": "the instruction's own result latency",
}

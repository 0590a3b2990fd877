"""Priority functions for the list scheduler: graph -> one number per node, higher goes first.

Each takes a :class:`~schedcc.problem.SchedGraph` and returns a list indexed
by node, in O(n + e).

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 3)), (Dep(0, 1, "RAW", 3),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> critical_path(g)
    [6, 3]
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from schedcc.problem import SchedGraph

PriorityFunction = Callable[[SchedGraph], "Sequence[float] | Mapping[int, float]"]


def critical_path(graph: SchedGraph) -> list[float]:
    """Latency-weighted height: the longest path from the node to the end of the
    block, counting edge latencies and the last node's own latency."""
    return graph.heights()


def depth(graph: SchedGraph) -> list[float]:
    """Earliest issue cycle ignoring resources (longest latency path from a source)."""
    earliest = [0] * len(graph)
    pred = graph.pred
    for node in graph.topological_order:
        earliest[node] = max((earliest[d.src] + d.latency for d in pred[node] if d.distance == 0), default=0)
    return earliest


def successors(graph: SchedGraph) -> list[float]:
    """How many instructions wait directly on this one."""
    return [len(s) for s in graph.succ]


def source_order(graph: SchedGraph) -> list[float]:
    """The order of the program as written: earlier is more urgent."""
    n = len(graph)
    return [n - i for i in range(n)]


def own_latency(graph: SchedGraph) -> list[float]:
    """Start long-latency instructions first."""
    return [op.latency for op in graph.ops]


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

"""What makes the exact modulo search smaller: a tighter stage bound, and a relaxation
that proves an II infeasible in a fraction of the full model's time.

* :func:`component_stage_bound`: stages enough for *some* schedule at II if
  there is one, over the strongly connected components (SCCs). With the rows
  of a schedule fixed, the smallest stages are longest paths (from stage 0) of
  ``w(u, v) = ceil((latency - d * II - r[v] + r[u]) / II)``; such a path is
  simple, so it crosses each SCC once, and inside one SCC two nodes are at
  most ``M`` cycles apart in any schedule (``M``: the largest ``-D(v, u)``
  over its pairs, ``D`` the longest paths of ``latency - d * II``), so at most
  ``floor((M + II - 1) / II)`` stages; an edge between SCCs adds at most
  ``ceil((latency - d * II + II - 1) / II)``. The bound is the longest path of
  the condensation with those weights (the older bound sums over every node).
* :func:`timeline_model`: one iteration on a time line, no rows: every
  dependence at II, and at every cycle at most the issue width, at most
  ``|U|`` nodes confined to each union ``U`` of unit sets, at most the
  capacity of each extra resource. Two nodes busy in the same cycle are busy
  in the same row, so every modulo schedule is a solution: when this model is
  infeasible, so is II. Loop-carried dependences keep a recurrence's nodes
  within about II cycles of each other, where the time line is nearly as
  tight as the rows (a loop whose stores are ordered by memory dependences:
  15 stores on one unit cannot fit between two accesses 15 cycles apart).
  With ``copies``, node i of the next iterations is there too, from
  ``t[i] + j * II``: still implied (a node's copies never meet). With a copy
  per stage and one more, every row q is the cycle ``stages * II + q`` of the
  time line, where each node busy in row q has exactly one copy, so the model
  is exact: the exact search's second feasibility model (after the rows) when
  Hall's condition decides the units (:func:`schedcc.sched.exact_modulo.hall_family`).

Example (a store-like chain of three nodes on one unit, the last one before
the first of the next iteration, latency 2 each: four cycles between the
first and last of an iteration, no room at II 3)::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph(tuple(Op(f"s{k}", ("AGU",), 1) for k in range(3)),
    ...                (Dep(0, 1, "MEM", 2), Dep(1, 2, "MEM", 2), Dep(2, 0, "MEM", 0, distance=1)),
    ...                Machine("toy", 4, ("AGU",)))
    >>> component_stage_bound(g, 4), component_stage_bound(g, 3)   # II 3: a positive cycle
    (2, None)
"""

from __future__ import annotations

from typing import Any

from schedcc.problem import SchedGraph
from schedcc.sched.cpsat import cp_model
from schedcc.sched.mii import strongly_connected

LARGEST_COMPONENT = 300  # pairwise longest paths are O(k^3): larger components use the older bound
_NONE = None


def _pairwise_longest(graph: SchedGraph, ii: int, nodes: list[int]) -> list[list[int | None]] | None:
    """Longest paths (``latency - d * II``) between the nodes of one component (Floyd-Warshall),
    None when one of its cycles is positive (II is below its recurrence bound)."""
    at = {v: i for i, v in enumerate(nodes)}
    k = len(nodes)
    dist: list[list[int | None]] = [[_NONE] * k for _ in range(k)]
    for i in range(k):
        dist[i][i] = 0
    for d in graph.deps:
        a, b = at.get(d.src), at.get(d.dst)
        if a is not None and b is not None:
            w = d.latency - ii * d.distance
            if dist[a][b] is None or w > dist[a][b]:
                dist[a][b] = w
    for m in range(k):
        row_m = dist[m]
        for i in range(k):
            dim = dist[i][m]
            if dim is None:
                continue
            row_i = dist[i]
            for j in range(k):
                dmj = row_m[j]
                if dmj is not None and (row_i[j] is None or dim + dmj > row_i[j]):
                    row_i[j] = dim + dmj
    if any(dist[i][i] > 0 for i in range(k)):
        return None
    return dist


def component_stage_bound(graph: SchedGraph, ii: int) -> int | None:
    """Stages enough for some schedule at *ii* if one exists (module docstring); None when a
    recurrence rules *ii* out, or a component is too large to bound this way (the caller then
    keeps the older bound). O(sum of k^3 over the components + e)."""
    n = len(graph)
    comps = list(strongly_connected(n, [(d.src, d.dst) for d in graph.deps]))  # sinks first
    comp_of = [0] * n
    span = []
    for c, comp in enumerate(comps):
        nodes = sorted(comp)
        for v in nodes:
            comp_of[v] = c
        if len(nodes) == 1:
            span.append(0)
            continue
        if len(nodes) > LARGEST_COMPONENT:
            return None
        dist = _pairwise_longest(graph, ii, nodes)
        if dist is None:
            return None
        far = max(-dist[j][i] for i in range(len(nodes)) for j in range(len(nodes)) if i != j)
        span.append((far + ii - 1) // ii)
    for d in graph.deps:  # a self-loop longer than its distance allows
        if d.src == d.dst and d.latency > ii * d.distance:
            return None
    after: list[list[tuple[int, int]]] = [[] for _ in comps]
    for d in graph.deps:
        a, b = comp_of[d.src], comp_of[d.dst]
        if a != b:
            after[a].append((b, -(-(d.latency - d.distance * ii + ii - 1) // ii)))
    low = [0] * len(comps)
    for c in reversed(range(len(comps))):  # a topological order of the condensation
        high = low[c] + span[c]
        for b, w in after[c]:
            low[b] = max(low[b], high + w)
    return 1 + max((low[c] + span[c] for c in range(len(comps))), default=0)


def timeline_model(graph: SchedGraph, ii: int, width: int, caps: dict[str, int], stages: int,
                   unions: list[frozenset], copies: int = 1) -> tuple[Any, list]:
    """The relaxation of the module docstring on cycles ``0 .. stages * ii - 1`` (*unions*:
    the unions of unit sets to bound, as the full model's Hall constraints), with node i
    of the *copies* - 1 following iterations too: the model and the start variables.
    With ``copies = stages + 1`` it is exact (module docstring). O(copies * n + e)."""
    cp = cp_model()
    m = cp.CpModel()
    ops, machine = graph.ops, graph.machine
    horizon = stages * ii
    start = [m.new_int_var(0, horizon - 1, f"t{i}") for i in range(len(ops))]
    for d in graph.deps:
        if d.src != d.dst:
            m.add(start[d.dst] + d.distance * ii >= start[d.src] + d.latency)
    for i, op in enumerate(ops):
        if op.kernel_end:  # the last row: t = II * k + II - 1
            m.add(start[i] == ii * m.new_int_var(0, stages - 1, f"k{i}") + ii - 1)
    # Node i of the iteration j later is busy from start[i] + j * II: copies j = 0 .. copies - 1.
    shifted = [[start[i] + j * ii for j in range(copies)] for i in range(len(ops))]

    def intervals(i: int, length: int) -> list:
        return [m.new_fixed_size_interval_var(x, length, "") for x in shifted[i]]
    issue = [iv for i in range(len(ops)) for iv in intervals(i, 1)]
    if len(ops) > width:
        m.add_cumulative(issue, [1] * len(issue), width)
    sets = [frozenset(op.units or machine.units) for op in ops]
    for s in unions:
        inside = [i for i, si in enumerate(sets) if si <= s]
        if sum(ops[i].occupancy for i in inside) > len(s):
            busy = [iv for i in inside for iv in intervals(i, ops[i].occupancy)]
            if len(s) == 1:
                m.add_no_overlap(busy)
            else:
                m.add_cumulative(busy, [1] * len(busy), len(s))
    holders: dict[str, list[tuple[int, int]]] = {}
    for i, op in enumerate(ops):
        for res, cycles in op.also:
            holders.setdefault(res, []).append((i, cycles))
    for res, held in holders.items():
        cap = caps.get(res, 1)
        if sum(c for _, c in held) > cap:
            busy = [iv for i, c in held for iv in intervals(i, c)]
            m.add_cumulative(busy, [1] * len(busy), cap)
    return m, start

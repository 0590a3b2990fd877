"""Recurrences and resources together: a lower bound on II that neither ResMII nor
RecMII sees alone.

At ``II = RecMII`` a recurrence whose ratio ``latency / distance`` is exactly II
has no slack: every dependence on it holds with equality, so the operations on
it (and on every other cycle of weight 0) keep fixed distances from each other.
With the earliest starts ``e`` at II (longest paths of ``latency - II *
distance``, :func:`schedcc.sched.mrt.longest_paths`), every path's weight is at
most ``e[v] - e[u]``; a cycle of weight 0 is made of *tight* edges only
(``e[u] + latency - II * distance == e[v]``), and in a strongly connected
component of tight edges any two operations are exactly ``e[v] - e[u]`` apart
in every schedule at II. Such a *rigid group* lands in the modulo reservation
table as one block: when its operations, at those offsets modulo II, need more
of one row than it has (issue slots, units of their unit sets, an extra
resource's capacity), no schedule exists at II, and ``II + 1`` is the bound
(above RecMII nothing is rigid, so one step is all this bound takes).

TSVC s491 at -O2 is the case: three loads each feed one ``fmadd`` whose store
the next iteration's loads may depend on (latency 5 + 5 + 1 = 11 = RecMII), so
all three loads issue in the same row, on two load units: MII 12, not 11.

O(n * e) for the earliest starts (a few passes in practice), O(e) for the
groups, O(k * II-rows * u) matching per group of k operations.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> agu = ("AGU0", "AGU1")
    >>> g = SchedGraph((Op("ld0", agu, 2), Op("ld1", agu, 2), Op("ld2", agu, 2), Op("use", ("ALU",), 1)),
    ...                (Dep(0, 3, "RAW", 2), Dep(1, 3, "RAW", 2), Dep(2, 3, "RAW", 2),
    ...                 Dep(3, 0, "RAW", 1, distance=1), Dep(3, 1, "RAW", 1, distance=1),
    ...                 Dep(3, 2, "RAW", 1, distance=1)), Machine("toy", 4, (*agu, "ALU")))
    >>> b = joint_bound(g, 4, {}, 3)
    >>> b.value, b.reason
    (4, '#0 ld0, #1 ld1, #2 ld2 need a unit of AGU0/AGU1 each in one row')
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.problem import SchedGraph
from schedcc.sched.mrt import LoopStructure, longest_paths


@dataclass(frozen=True)
class JointBound:
    """``value``: the bound (``ii + 1`` when a rigid group does not fit at *ii*); ``group``:
    that group's nodes; ``reason``: what does not fit."""

    value: int
    group: tuple = ()
    reason: str = ""


def joint_bound(graph: SchedGraph, width: int, caps: dict[str, int], ii: int) -> JointBound:
    """The bound at *ii* (the larger of ResMII and RecMII): *ii* itself, or ``ii + 1``
    when a rigid group of operations cannot share the kernel's rows (module docstring)."""
    st = LoopStructure(graph)
    early = longest_paths(st, ii, reverse=True)
    tight: list[list[int]] = [[] for _ in range(len(graph))]
    for u, v, lat, dist in st.edges:
        if early[u] + lat - ii * dist == early[v]:
            tight[u].append(v)
    for group in _components(tight):
        why = _overfull(graph, width, caps, ii, {n: early[n] for n in group})
        if why:
            return JointBound(ii + 1, tuple(sorted(group)), why)
    return JointBound(ii)


def _components(succ: list[list[int]]) -> list[list[int]]:
    """Strongly connected components with a cycle (several nodes, or a self-loop);
    iterative Tarjan, O(n + e)."""
    n = len(succ)
    index = [-1] * n
    low = [0] * n
    on = [False] * n
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        while work:
            v, k = work.pop()
            if k == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on[v] = True
            if k < len(succ[v]):
                work.append((v, k + 1))
                w = succ[v][k]
                if index[w] < 0:
                    work.append((w, 0))
                elif on[w]:
                    low[v] = min(low[v], index[w])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on[w] = False
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1 or v in succ[v]:
                    out.append(comp)
    return out


def _overfull(graph: SchedGraph, width: int, caps: dict[str, int], ii: int, at: dict[int, int]) -> str:
    """Why the operations of *at*, issued at those cycles modulo *ii*, overfill a row ('' if
    they fit): issue slots, units (a matching per row), extra resources."""
    ops = graph.ops
    issue: dict[int, list[int]] = {}
    busy: dict[int, list[int]] = {}
    held: dict[tuple[str, int], list[int]] = {}
    for n, t in at.items():
        issue.setdefault(t % ii, []).append(n)
        for j in range(min(ops[n].occupancy, ii)):
            busy.setdefault((t + j) % ii, []).append(n)
        for res, cycles in ops[n].also:
            for j in range(min(cycles, ii)):
                held.setdefault((res, (t + j) % ii), []).append(n)
    names = lambda nodes: ", ".join(f"#{n}" + (f" {ops[n].name}" if ops[n].name else "")  # noqa: E731
                                    for n in sorted(nodes))
    for row, nodes in sorted(issue.items()):
        if len(nodes) > width:
            return f"{names(nodes)} issue in one row of {width} issue slots"
    for row, nodes in sorted(busy.items()):
        if not _matched(nodes, [tuple(ops[n].units or ("ISSUE",)) for n in nodes]):
            units = sorted({u for n in nodes for u in ops[n].units or ("ISSUE",)})
            return f"{names(nodes)} need a unit of {'/'.join(units)} each in one row"
    for (res, row), nodes in sorted(held.items()):
        if len(nodes) > caps.get(res, 1):
            return f"{names(nodes)} hold {res} (capacity {caps.get(res, 1)}) in one row"
    return ""


def _matched(nodes: list[int], choices: list[tuple[str, ...]]) -> bool:
    """Can every node get a unit of its own (Kuhn's augmenting paths)?"""
    owner: dict[str, int] = {}

    def augment(k: int, seen: set[str]) -> bool:
        for u in choices[k]:
            if u in seen:
                continue
            seen.add(u)
            if u not in owner or augment(owner[u], seen):
                owner[u] = k
                return True
        return False

    return all(augment(k, set()) for k in range(len(nodes)))

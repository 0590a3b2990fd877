"""An independent checker for modulo schedules.

It shares no code with :mod:`schedcc.sched.modulo` or :mod:`schedcc.sched.mii`:
it re-checks, by brute force over the rows of the modulo reservation table,
everything a modulo schedule promises.

* every dependence u -> v of distance d: ``cycle[v] + d * II >= cycle[u] + latency``;
* every operation runs on one of its ``units``;
* no unit is busy twice in the same row ``cycle mod II`` (an operation with
  occupancy k covers k consecutive rows); no extra (``also``) resource is held
  by more operations in a row than its capacity; no row issues more than the
  issue width;
* an operation marked ``kernel_end`` issues in the last row (``II - 1``).

O(n * max occupancy + e). Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("", ("ALU",), 2), Op("", ("ALU",), 1)), (Dep(0, 1, "RAW", 2),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> verify_modulo(g, 1, {0: 0, 1: 1}, {0: "ALU", 1: "ALU"})
    Traceback (most recent call last):
    ...
    schedcc.verifier.modulo.ModuloVerificationError: II 1: 1 at cycle 1 (iteration +0) is too early for 0 at cycle 0: RAW latency 2 needs cycle 2 or later (and 2 more)
"""

from __future__ import annotations

from typing import Mapping


from schedcc.problem import SchedGraph, as_graph
from schedcc.verifier.problem import VerificationError

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads only where a networkx graph is passed in
    import networkx as nx


class ModuloVerificationError(VerificationError):
    """The modulo schedule breaks at least one constraint; ``violations`` lists them all
    (a :class:`~schedcc.verifier.problem.VerificationError`, so a ``SchedccError`` too)."""


def _name(graph: SchedGraph, n: int) -> str:
    op = graph.ops[n]
    if op.payload is not None:
        return f"{graph.key(n)} '{op.payload}'"
    return op.name or str(graph.key(n))


def verify_modulo(graph: SchedGraph | nx.DiGraph, ii: int, cycle: Mapping, unit: Mapping,
                  issue_width: int | None = None, capacity: Mapping[str, int] | None = None) -> None:
    """Raise :class:`ModuloVerificationError` listing every broken constraint.

    *cycle* and *unit* are keyed by the graph's keys (a networkx graph's own node names);
    the issue width and the capacities of extra resources are the graph's
    machine's unless given."""
    graph = as_graph(graph)
    cycle, unit = graph.by_node(cycle), graph.by_node(unit)
    width = issue_width if issue_width is not None else graph.machine.issue_width
    bad: list[str] = []
    if ii < 1:
        raise ModuloVerificationError([f"II must be at least 1, got {ii}"])
    missing = [graph.key(n) for n in range(len(graph)) if n not in cycle or n not in unit]
    if missing:
        raise ModuloVerificationError([f"II {ii}: no cycle or unit for {', '.join(map(str, missing[:5]))}"])
    for d in graph.deps:
        u, v = d.src, d.dst
        if cycle[v] + d.distance * ii < cycle[u] + d.latency:
            bad.append(f"II {ii}: {_name(graph, v)} at cycle {cycle[v]} (iteration +{d.distance}) is too early for "
                       f"{_name(graph, u)} at cycle {cycle[u]}: {d.kind or 'dependence'} latency {d.latency} "
                       f"needs cycle {cycle[u] + d.latency - d.distance * ii} or later")
    used: dict[tuple[str, int], list] = {}
    issued: dict[int, list] = {}
    held: dict[tuple[str, int], list] = {}
    for n, op in enumerate(graph.ops):
        t = cycle[n]
        if op.units and unit[n] not in op.units:
            bad.append(f"II {ii}: {_name(graph, n)} runs on {unit[n]}, allowed only on {', '.join(op.units)}")
        if op.kernel_end and t % ii != ii - 1:
            bad.append(f"II {ii}: {_name(graph, n)} must issue in the kernel's last row {ii - 1}, "
                       f"is in row {t % ii}")
        issued.setdefault(t % ii, []).append(n)
        if op.occupancy > ii:
            bad.append(f"II {ii}: {_name(graph, n)} keeps {unit[n]} busy {op.occupancy} cycles, longer than II")
        for k in range(min(op.occupancy, ii)):
            used.setdefault((unit[n], (t + k) % ii), []).append(n)
        for res, cycles in op.also:
            for k in range(cycles):
                held.setdefault((res, (t + k) % ii), []).append(n)
    for (u, row), ns in sorted(used.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if len(ns) > 1:
            a, b = ns[0], ns[1]
            bad.append(f"II {ii}: {u} is used twice in row {row}: by {graph.key(a)} (cycle {cycle[a]}) and "
                       f"{graph.key(b)} (cycle {cycle[b]})")
    caps = dict(graph.machine.capacity)
    caps.update(capacity or {})
    for (res, row), ns in sorted(held.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        cap = caps.get(res, 1)
        if len(ns) > cap:
            bad.append(f"II {ii}: {res} is held {len(ns)} times in row {row} (capacity {cap}): by "
                       + ", ".join(str(graph.key(n)) for n in ns))
    for row, ns in sorted(issued.items()):
        if len(ns) > width:
            bad.append(f"II {ii}: row {row} issues {len(ns)} operations, issue width is {width}")
    if bad:
        raise ModuloVerificationError(bad)

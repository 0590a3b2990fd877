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

    >>> import networkx as nx
    >>> g = nx.DiGraph(); g.add_node(0, latency=2, units=("ALU",)); g.add_node(1, latency=1, units=("ALU",))
    >>> g.add_edge(0, 1, latency=2, distance=0)
    >>> verify_modulo(g, 1, {0: 0, 1: 1}, {0: "ALU", 1: "ALU"}, issue_width=1)
    Traceback (most recent call last):
    ...
    schedcc.sched.modulo_verify.ModuloVerificationError: II 1: 1 at cycle 1 (iteration +0) is too early for 0 at cycle 0: dependence latency 2 needs cycle 2 or later (and 2 more)
"""

from __future__ import annotations

from typing import Hashable, Mapping

import networkx as nx


class ModuloVerificationError(Exception):
    """The modulo schedule breaks at least one constraint; ``violations`` lists them all."""

    def __init__(self, violations: list[str]):
        super().__init__(violations[0] if len(violations) == 1 else
                         f"{violations[0]} (and {len(violations) - 1} more)")
        self.violations = violations


def _name(dag: nx.DiGraph, n: Hashable) -> str:
    instr = dag.nodes[n].get("instr")
    return f"{n} '{instr}'" if instr is not None else str(n)


def verify_modulo(dag: nx.DiGraph, ii: int, cycle: Mapping[Hashable, int], unit: Mapping[Hashable, str],
                  issue_width: int, capacity: Mapping[str, int] | None = None) -> None:
    """Raise :class:`ModuloVerificationError` listing every broken constraint."""
    bad: list[str] = []
    if ii < 1:
        raise ModuloVerificationError([f"II must be at least 1, got {ii}"])
    missing = [n for n in dag.nodes if n not in cycle or n not in unit]
    if missing:
        raise ModuloVerificationError([f"II {ii}: no cycle or unit for {', '.join(map(str, missing[:5]))}"])
    for u, v, d in dag.edges(data=True):
        dist = d.get("distance", 0)
        lat = d.get("latency", 0)
        if cycle[v] + dist * ii < cycle[u] + lat:
            bad.append(f"II {ii}: {_name(dag, v)} at cycle {cycle[v]} (iteration +{dist}) is too early for "
                       f"{_name(dag, u)} at cycle {cycle[u]}: {d.get('kind', 'dependence')} latency {lat} "
                       f"needs cycle {cycle[u] + lat - dist * ii} or later")
    used: dict[tuple[str, int], list] = {}
    issued: dict[int, list] = {}
    held: dict[tuple[str, int], list] = {}
    for n, attrs in dag.nodes(data=True):
        t = cycle[n]
        allowed = tuple(attrs.get("units") or ())
        if allowed and unit[n] not in allowed:
            bad.append(f"II {ii}: {_name(dag, n)} runs on {unit[n]}, allowed only on {', '.join(allowed)}")
        if attrs.get("kernel_end") and t % ii != ii - 1:
            bad.append(f"II {ii}: {_name(dag, n)} must issue in the kernel's last row {ii - 1}, "
                       f"is in row {t % ii}")
        issued.setdefault(t % ii, []).append(n)
        occupancy = int(attrs.get("occupancy", 1))
        if occupancy > ii:
            bad.append(f"II {ii}: {_name(dag, n)} keeps {unit[n]} busy {occupancy} cycles, longer than II")
        for k in range(min(occupancy, ii)):
            used.setdefault((unit[n], (t + k) % ii), []).append(n)
        for res, cycles in attrs.get("also", ()):
            for k in range(cycles):
                held.setdefault((res, (t + k) % ii), []).append(n)
    for (u, row), ns in sorted(used.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        if len(ns) > 1:
            a, b = ns[0], ns[1]
            bad.append(f"II {ii}: {u} is used twice in row {row}: by {a} (cycle {cycle[a]}) and {b} (cycle {cycle[b]})")
    caps = dict(capacity or {})
    for (res, row), ns in sorted(held.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        cap = caps.get(res, 1)
        if len(ns) > cap:
            bad.append(f"II {ii}: {res} is held {len(ns)} times in row {row} (capacity {cap}): by "
                       + ", ".join(str(n) for n in ns))
    for row, ns in sorted(issued.items()):
        if len(ns) > issue_width:
            bad.append(f"II {ii}: row {row} issues {len(ns)} operations, issue width is {issue_width}")
    if bad:
        raise ModuloVerificationError(bad)

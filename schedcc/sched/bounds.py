"""Lower bounds on the makespan of a block, to report next to a schedule.

* critical path: the longest latency-weighted path, ending with the last
  node's own latency;
* resources: with w issue slots, n instructions need ceil(n / w) issue
  cycles, and the last one still takes its latency; likewise for every set of
  units a class of instructions is confined to, and for every extra resource.

O(n + e). Example::

    >>> import networkx as nx
    >>> from schedcc.target import load_target
    >>> g = nx.DiGraph(); g.add_node(0, latency=3); g.add_node(1, latency=3)
    >>> lower_bound(g, load_target("mips4")).value
    4
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import networkx as nx

from ..target import Target, load_target
from .priority import critical_path


@dataclass(frozen=True)
class Bound:
    critical_path: int
    resource: int
    resource_reason: str

    @property
    def value(self) -> int:
        return max(self.critical_path, self.resource)

    @property
    def limited_by(self) -> str:
        return "critical path" if self.critical_path >= self.resource else self.resource_reason


def lower_bound(dag: nx.DiGraph, target: Target | str) -> Bound:
    tgt = load_target(target)
    if dag.number_of_nodes() == 0:
        return Bound(0, 0, "empty block")
    cp = int(max(critical_path(dag).values()))
    nodes = dag.nodes
    latencies = [d.get("latency", 1) for _, d in nodes(data=True)]
    n = len(latencies)
    best = (math.ceil(n / tgt.issue_width) - 1 + min(latencies),
            f"issue width {tgt.issue_width}: {n} instructions")
    # Work per set of interchangeable units, and per extra resource.
    by_units: dict[tuple, list] = defaultdict(list)
    by_extra: dict[str, list] = defaultdict(list)
    for _, d in nodes(data=True):
        units = tuple(d.get("units") or tgt.units)
        by_units[units].append((d.get("occupancy", 1), d.get("latency", 1)))
        for extra, cycles in d.get("also", ()):
            by_extra[extra].append((cycles, d.get("latency", 1)))
    for units, items in by_units.items():
        work = sum(o for o, _ in items)
        min_lat = min(lat for _, lat in items)
        max_occ = max(o for o, _ in items)
        bound = max(math.ceil(len(items) / len(units)) - 1, math.ceil(work / len(units)) - max_occ) + min_lat
        if bound > best[0]:
            best = (bound, f"units {'/'.join(units)}: {len(items)} instructions, {work} busy cycles")
    for extra, items in by_extra.items():
        work = sum(c for c, _ in items)
        bound = work - max(c for c, _ in items) + min(lat for _, lat in items)
        if bound > best[0]:
            best = (bound, f"{extra}: {work} busy cycles")
    return Bound(cp, best[0], best[1])

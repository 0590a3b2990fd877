"""Lower bounds on the makespan of a block, to report next to a schedule.

* critical path: the longest latency-weighted path, ending with the last
  node's own latency;
* resources: with w issue slots, n instructions need ceil(n / w) issue
  cycles, and the last one still takes its latency; likewise for every set of
  units a class of instructions is confined to, and for every extra resource.

O(n + e). Example::

    >>> from schedcc.problem import Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 3)), (), Machine("mips4", 1, ("ALU",)))
    >>> lower_bound(g).value
    4
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass


from schedcc.problem import SchedGraph, as_graph
from schedcc.target import Target, load_target

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads only where a networkx graph is passed in
    import networkx as nx


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


def lower_bound(graph: SchedGraph | nx.DiGraph, target: Target | str | None = None) -> Bound:
    """The larger of the critical path and the resource bounds of *graph* (its own
    machine; *target* only reads a plain ``networkx.DiGraph``)."""
    if not isinstance(graph, SchedGraph):
        graph = as_graph(graph, load_target(target).machine if target is not None else None)
    machine = graph.machine
    ops = graph.ops
    if not ops:
        return Bound(0, 0, "empty block")
    cp = graph.critical_path()
    n = len(ops)
    best = (math.ceil(n / machine.issue_width) - 1 + min(op.latency for op in ops),
            f"issue width {machine.issue_width}: {n} instructions")
    # Work per set of interchangeable units, and per extra resource.
    by_units: dict[tuple, list] = defaultdict(list)
    by_extra: dict[str, list] = defaultdict(list)
    for op in ops:
        by_units[op.units or machine.units].append((op.occupancy, op.latency))
        for extra, cycles in op.also:
            by_extra[extra].append((cycles, op.latency))
    for units, items in by_units.items():
        work = sum(o for o, _ in items)
        min_lat = min(lat for _, lat in items)
        max_occ = max(o for o, _ in items)
        bound = max(math.ceil(len(items) / len(units)) - 1, math.ceil(work / len(units)) - max_occ) + min_lat
        if bound > best[0]:
            best = (bound, f"units {'/'.join(units)}: {len(items)} instructions, {work} busy cycles")
    for extra, items in by_extra.items():
        if machine.capacity_of(extra) != 1:
            continue  # a pool of copies: holders may overlap, no simple bound
        work = sum(c for c, _ in items)
        bound = work - max(c for c, _ in items) + min(lat for _, lat in items)
        if bound > best[0]:
            best = (bound, f"{extra}: {work} busy cycles")
    return Bound(cp, best[0], best[1])

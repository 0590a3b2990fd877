"""The result of scheduling one DAG: an issue cycle and a unit per node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable

import networkx as nx


@dataclass
class Step:
    """One cycle of the list scheduler, for ``--explain``."""

    cycle: int
    ready: list[tuple[Hashable, float]]          # (node, priority), best first
    picked: list[tuple[Hashable, str]]           # (node, unit)
    waiting: list[tuple[Hashable, int, str]]     # (node, earliest cycle, because)
    blocked: list[tuple[Hashable, str]]          # ready but no unit or issue slot free: (node, why)


@dataclass
class Schedule:
    """An issue cycle and a unit for every node of ``dag``.

    ``order`` lists the nodes in issue order (by cycle, then the order the
    scheduler picked them). ``makespan`` = max over nodes of cycle + latency;
    issue cycles start at 0.
    """

    dag: nx.DiGraph
    cycle: dict[Hashable, int]
    unit: dict[Hashable, str]
    order: list[Hashable]
    issue_width: int
    priority_name: str = ""
    priority: dict[Hashable, float] = field(default_factory=dict)
    steps: list[Step] | None = None

    @property
    def makespan(self) -> int:
        lat = self.dag.nodes
        return max((c + lat[n].get("latency", 1) for n, c in self.cycle.items()), default=0)

    @property
    def length(self) -> int:
        """Cycles until the last issue, inclusive."""
        return max(self.cycle.values(), default=-1) + 1

    def stalls(self) -> int:
        """Issue cycles in which nothing issued (before the last issue)."""
        return self.length - len(set(self.cycle.values()))

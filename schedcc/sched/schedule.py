"""The result of scheduling one graph: an issue cycle and a unit per node."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from schedcc.problem import SchedGraph


@dataclass
class Step:
    """One cycle of the list scheduler, for ``--explain``."""

    cycle: int
    ready: list[tuple[int, float]]          # (node, priority), best first
    picked: list[tuple[int, str]]           # (node, unit)
    waiting: list[tuple[int, int, str]]     # (node, earliest cycle, because)
    blocked: list[tuple[int, str]]          # ready but no unit or issue slot free: (node, why)


@dataclass
class Schedule:
    """An issue cycle and a unit for every node of ``graph``.

    ``order`` lists the nodes in issue order (by cycle, then the order the
    scheduler picked them). ``makespan`` = max over nodes of cycle + latency;
    issue cycles start at 0.
    """

    graph: SchedGraph
    cycle: dict[int, int]
    unit: dict[int, str]
    order: list[int]
    issue_width: int
    priority_name: str = ""
    priority: Sequence[float] = field(default_factory=list)
    steps: list[Step] | None = None

    @property
    def dag(self) -> SchedGraph:
        """The graph (the name older code used)."""
        return self.graph

    @property
    def makespan(self) -> int:
        ops = self.graph.ops
        return max((c + ops[n].latency for n, c in self.cycle.items()), default=0)

    @property
    def length(self) -> int:
        """Cycles until the last issue, inclusive."""
        return max(self.cycle.values(), default=-1) + 1

    def stalls(self) -> int:
        """Issue cycles in which nothing issued (before the last issue)."""
        return self.length - len(set(self.cycle.values()))

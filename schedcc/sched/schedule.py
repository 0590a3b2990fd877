"""The result of scheduling one graph: an issue cycle and a unit per node.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)), (Dep(0, 1, "RAW", 3),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> s = Schedule(g, {0: 0, 1: 3}, {0: "ALU", 1: "ALU"}, [0, 1], issue_width=1)
    >>> s.makespan, s.length, s.stalls()
    (4, 4, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from schedcc.problem import SchedGraph


@dataclass
class Step:
    """One cycle of the list scheduler, for ``--explain``."""

    cycle: int
    ready: list[tuple[int, float]]          # (node, priority), best first
    picked: list[tuple[int, str]]           # (node, unit)
    waiting: list[tuple[int, int, str]]     # (node, earliest cycle, because)
    blocked: list[tuple[int, str]]          # ready but no unit or issue slot free: (node, why)
    # ready during the cycle, after a predecessor issued in it over a latency-0 edge (a WAR):
    # (node, that predecessor); they are in ``ready`` too, after the ones ready at its start
    joined: list[tuple[int, int]] = field(default_factory=list)


@dataclass(repr=False)
class Schedule:
    """An issue cycle and a unit for every node of ``graph``.

    Nodes are the graph's numbers ``0..n-1``; a schedule made for a networkx
    graph names them as that graph does instead (``by_key``). ``order`` lists the nodes in issue order (by cycle, then
    the order the scheduler picked them). ``makespan`` = max over nodes of
    cycle + latency; issue cycles start at 0. ``exact`` is set by the exact
    strategy (:mod:`schedcc.sched.exact`): its status, bound and the heuristic's
    schedule it was compared with. ``input_order``: the list scheduler kept the
    graph's input order issued in order, which was shorter than its own schedule
    (``list_makespan``; :mod:`schedcc.sched.list_scheduler`); ``steps`` are still the
    list scheduler's. ``original``: that input order's timing
    (:class:`schedcc.sim.InOrderResult`) whenever the list scheduler compared with it.
    """

    graph: SchedGraph
    cycle: dict[int, int]
    unit: dict[int, str]
    order: list[int]
    issue_width: int
    priority_name: str = ""
    priority: Sequence[float] = field(default_factory=list)
    steps: list[Step] | None = None
    exact: Any = None    # an exact strategy's proof: schedcc.sched.exact.ExactInfo
    repair_round: int = 0  # the list scheduler's repair round that made it (0: the plain run)
    by_key: bool = False   # nodes named by the graph's keys rather than numbered
    input_order: bool = False  # the input order issued in order, kept: the list schedule was longer
    list_makespan: int | None = None  # with input_order: what the list schedule took
    original: Any = field(default=None, repr=False)  # the input order issued in order, when compared

    @property
    def dag(self) -> SchedGraph:
        """The graph (the name older code used)."""
        return self.graph

    def __repr__(self) -> str:
        how = self.priority_name or "schedule"
        if self.exact is not None:
            how = "exact"
        kept = ", the input order kept" if self.input_order else ""
        return f"<Schedule {how}: {len(self.cycle)} ops in {self.makespan} cycles{kept}>"

    @property
    def makespan(self) -> int:
        ops = self.graph.ops
        if self.by_key:
            index = self.graph.index
            return max((c + ops[index[n]].latency for n, c in self.cycle.items()), default=0)
        return max((c + ops[n].latency for n, c in self.cycle.items()), default=0)

    @property
    def length(self) -> int:
        """Cycles until the last issue, inclusive."""
        return max(self.cycle.values(), default=-1) + 1

    def stalls(self) -> int:
        """Issue cycles in which nothing issued (before the last issue)."""
        return self.length - len(set(self.cycle.values()))

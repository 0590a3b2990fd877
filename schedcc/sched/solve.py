"""Schedule, check, refine: the loop every domain runs on its :class:`~schedcc.problem.SchedGraph`.

:func:`solve` schedules a graph with a :class:`Strategy`, checks the
schedule against the graph with the strategy's verifier, and hands it to the
domain's *refine* step, which may return a new graph to schedule again (the
Ascend sync pass adds orderings that free event IDs; the training simulator
stretches operators slowed by overlapping communication). The result is a
:class:`Solved`: the final graph, its schedule, a lower bound and whether it
was verified.

* :class:`ListStrategy`: the list scheduler (:mod:`schedcc.sched.list_scheduler`),
  checked by :func:`schedcc.verifier.verify_schedule`; on a graph whose node order is
  its input's (``topological``) never worse than that order issued in order, in every
  round (a refined graph that is still in input order is compared again);
* :class:`ModuloStrategy`: the modulo scheduler (:mod:`schedcc.sched.modulo`),
  checked by :func:`schedcc.verifier.verify_modulo`;
* the exact strategies, :class:`schedcc.sched.exact.ExactStrategy` and
  :class:`schedcc.sched.exact_modulo.ExactModuloStrategy`: CP-SAT from a
  heuristic strategy's schedule, checked by the same verifiers.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)), (Dep(0, 1, "RAW", 3),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> s = solve(g)
    >>> s.schedule.cycle, s.makespan, s.bound.value, s.verified
    ({0: 0, 1: 3}, 4, 4, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from schedcc.problem import SchedGraph
from schedcc.sched.bounds import Bound, lower_bound
from schedcc.sched.list_scheduler import list_schedule
from schedcc.sched.priority import PriorityFunction
from schedcc.verifier import verify_modulo, verify_schedule
from schedcc.verifier.problem import own_schedule

# A domain's refinement: given the graph and its schedule, a new graph to schedule
# again, or None when the schedule stands. Each call must make progress.
Refine = Callable[[SchedGraph, Any], "SchedGraph | None"]


class Strategy(Protocol):
    """How a graph gets its schedule, and how that schedule is checked."""

    name: str

    def schedule(self, graph: SchedGraph) -> Any: ...

    def verify(self, graph: SchedGraph, schedule: Any) -> None: ...


@dataclass(frozen=True)
class ListStrategy:
    """List scheduling with *priority* (a name from :data:`schedcc.sched.PRIORITIES` or a function),
    repaired unless *repair* is False."""

    priority: str | PriorityFunction = "critical-path"
    explain: bool = False
    name: str = "list"
    repair: bool = True      # the list scheduler's repair rounds (schedcc.sched.list_scheduler)

    def schedule(self, graph: SchedGraph):
        return list_schedule(graph, priority=self.priority, explain=self.explain, repair=self.repair)

    def verify(self, graph: SchedGraph, schedule) -> None:
        verify_schedule(graph, schedule.cycle, schedule.unit)


@dataclass(frozen=True)
class ModuloStrategy:
    """Modulo scheduling (``ims`` or ``swing``); *options* go to :func:`~schedcc.sched.modulo.modulo_schedule`."""

    algorithm: str = "ims"
    options: tuple[tuple[str, Any], ...] = ()
    name: str = "modulo"

    def schedule(self, graph: SchedGraph):
        from schedcc.sched.modulo import modulo_schedule
        return modulo_schedule(graph, algorithm=self.algorithm, **dict(self.options))

    def verify(self, graph: SchedGraph, schedule) -> None:
        verify_modulo(graph, schedule.ii, schedule.cycle, schedule.unit, schedule.issue_width,
                      dict(self.options).get("capacity"))


@dataclass(repr=False)
class Solved:
    """A graph with its schedule: what every domain's result is built on."""

    graph: SchedGraph
    schedule: Any
    bound: Bound | None
    verified: bool
    rounds: int = 1          # schedules made (more than 1 when the domain refined the graph)

    def __repr__(self) -> str:
        bound = f", bound {self.bound.value}" if self.bound is not None else ""
        return (f"<Solved {self.schedule!r}{bound}, {'verified' if self.verified else 'not verified'}"
                f"{f', {self.rounds} rounds' if self.rounds != 1 else ''}>")

    @property
    def makespan(self) -> int:
        return self.schedule.makespan


MAX_ROUNDS = 10_000  # a refinement that never settles is a bug, not an input error


def solve(graph: SchedGraph, strategy: Strategy | None = None, *, refine: Refine | None = None,
          verify: bool = True, bound: bool = True) -> Solved:
    """Schedule *graph* with *strategy* (default: list scheduling, critical path), verify it,
    and repeat on the graph *refine* returns until it returns None."""
    strategy = strategy or ListStrategy()
    rounds = 0
    while True:
        rounds += 1
        schedule = strategy.schedule(graph)
        if verify:
            with own_schedule():  # a schedule the strategy made: failing is a bug
                strategy.verify(graph, schedule)
        new = refine(graph, schedule) if refine is not None else None
        if new is None:
            break
        if rounds >= MAX_ROUNDS:
            raise RuntimeError(f"the graph was refined {rounds} times without settling")
        graph = new
    return Solved(graph, schedule, lower_bound(graph) if bound else None, verify, rounds)

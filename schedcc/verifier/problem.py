"""Check a schedule against the problem it was made for, whatever made it.

Given a :class:`~schedcc.problem.SchedGraph` and an issue cycle and a unit per
node, every constraint of the problem must hold:

* every node is scheduled, at a cycle >= 0, on one of its ``units``;
* every dependence of distance 0: ``cycle[dst] >= cycle[src] + latency``;
* at most ``issue_width`` issues per cycle;
* no unit runs two operations at once (an operation holds its unit for
  ``occupancy`` cycles), no extra (``also``) resource is held by more
  operations at once than its capacity;
* on a machine that writes results in issue order (``in_order_writeback``),
  no operation issued in a later cycle writes its result before one issued
  in an earlier cycle.

It reads nothing but the problem, so it checks the list scheduler, the exact
solver and the training and Ascend paths alike. For instruction blocks the
driver also runs :func:`schedcc.verifier.block.verify`, which re-derives the
constraints from the program itself instead of trusting the DAG builder.

O(n log n + e). Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)), (Dep(0, 1, "RAW", 3),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> verify_schedule(g, {0: 0, 1: 2}, {0: "ALU", 1: "ALU"})
    Traceback (most recent call last):
    ...
    schedcc.verifier.problem.VerificationError: b at cycle 2 is too early for a at cycle 0: RAW latency 3 needs cycle 3 or later
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import contextmanager
from typing import Iterator, Mapping

from schedcc.errors import SchedccError
from schedcc.problem import SchedGraph


class VerificationError(SchedccError):
    """The schedule breaks at least one constraint; ``violations`` lists them all.

    A :class:`~schedcc.errors.SchedccError`: a schedule handed to a verifier by its
    caller (the library's ``verify(...)`` on an order a user wrote) is input, and
    breaking a constraint is an error in it. ``internal`` is True when the schedule
    was schedcc's own (:func:`own_schedule`): a bug in schedcc, which the command
    line reports as such (exit status 3), never as an error in the input.
    """

    def __init__(self, violations: list[str], internal: bool = False):
        super().__init__(violations[0] if len(violations) == 1 else
                         f"{violations[0]} (and {len(violations) - 1} more)")
        self.violations = violations
        self.internal = internal

    def __str__(self) -> str:  # the violation, as the verifiers have always said it
        return self.message


@contextmanager
def own_schedule() -> Iterator[None]:
    """Verify a schedule schedcc made: a :class:`VerificationError` raised inside is
    marked ``internal`` (a bug in schedcc, not in the input)."""
    try:
        yield
    except VerificationError as err:
        err.internal = True
        raise


def verify_schedule(graph: SchedGraph, cycle: Mapping[int, int], unit: Mapping[int, str]) -> None:
    """Raise :class:`VerificationError` listing every constraint of *graph* the schedule breaks."""
    ops = graph.ops
    missing = [i for i in range(len(ops)) if i not in cycle or i not in unit]
    if missing:
        raise VerificationError([f"the schedule covers {len(ops) - len(missing)} of {len(ops)} operations; "
                                 f"missing {', '.join(graph.label(i) for i in missing[:5])}"])
    bad: list[str] = []
    for d in graph.deps:
        if d.distance == 0 and cycle[d.dst] < cycle[d.src] + d.latency:
            bad.append(f"{graph.label(d.dst)} at cycle {cycle[d.dst]} is too early for {graph.label(d.src)} at "
                       f"cycle {cycle[d.src]}: {d.kind} latency {d.latency} needs cycle "
                       f"{cycle[d.src] + d.latency} or later")
    machine = graph.machine
    per_cycle: dict[int, int] = defaultdict(int)
    busy: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    held: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for i, op in enumerate(ops):
        c = cycle[i]
        if c < 0:
            bad.append(f"{graph.label(i)} has negative cycle {c}")
        per_cycle[c] += 1
        allowed = op.units or machine.units
        if unit[i] not in allowed:
            bad.append(f"{graph.label(i)} runs on {unit[i]}, allowed only on {', '.join(allowed)}")
        busy[unit[i]].append((c, c + op.occupancy, i))
        for res, cycles in op.also:
            held[res].append((c, +1))
            held[res].append((c + cycles, -1))
    for c, count in sorted(per_cycle.items()):
        if count > machine.issue_width:
            bad.append(f"cycle {c} issues {count} operations; issue width is {machine.issue_width}")
    for u, intervals in busy.items():
        intervals.sort()
        for (s1, e1, i1), (s2, _, i2) in zip(intervals, intervals[1:]):
            if s2 < e1:
                bad.append(f"{u} is busy with {graph.label(i1)} (cycles {s1}-{e1 - 1}) when {graph.label(i2)} "
                           f"issues at {s2}")
    for res, events in held.items():
        cap, live = machine.capacity_of(res), 0
        for t, delta in sorted(events):  # at equal times releases (-1) come first
            live += delta
            if live > cap:
                bad.append(f"{res} is held by {live} operations at cycle {t}; capacity {cap}")
                break
    if machine.in_order_writeback:
        bad.extend(_writeback_order(graph, cycle))
    if bad:
        raise VerificationError(bad)


def _writeback_order(graph: SchedGraph, cycle: Mapping[int, int]) -> list[str]:
    """In-order write-back: an operation issued in a later cycle than another never
    writes its result (cycle + latency) before it. O(n log n)."""
    ops = graph.ops
    latest, who = -1, -1  # the latest result of the operations of earlier cycles
    bad = []
    by_cycle: dict[int, list[int]] = defaultdict(list)
    for i, c in cycle.items():
        by_cycle[c].append(i)
    for c in sorted(by_cycle):
        for i in by_cycle[c]:
            if c + ops[i].latency < latest:
                bad.append(f"{graph.label(i)} at cycle {c} writes its result at {c + ops[i].latency}, before "
                           f"{graph.label(who)} issued earlier writes its own at {latest}: results are written in "
                           "issue order on this machine")
        for i in by_cycle[c]:
            if c + ops[i].latency > latest:
                latest, who = c + ops[i].latency, i
    return bad

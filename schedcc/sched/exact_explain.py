"""Which of the list scheduler's decisions cost cycles, proven with CP-SAT (``--explain --exact``).

The list scheduler's schedule is a sequence of *picks*: in issue order, node
``order[k]`` at cycle ``cycle[order[k]]``. Keep the first ``k`` picks (fix
their cycles in the exact model, :func:`schedcc.sched.exact.block_model`) and
let the solver place the rest: the best makespan ``opt(k)`` can only grow
with ``k``, from the optimum ``opt(0)`` to the heuristic's ``opt(n)``. The
first ``k`` at which it grows is a *costly decision*: with the picks before
it an optimal schedule still exists, with it none does. A binary search
finds it in O(log n) solves; from there the search goes on for the next
growth, until the heuristic's makespan is reached or *most* decisions are
found. For each decision the solution that keeps the picks before it shows
what an optimal schedule does instead.

Example (the list scheduler fills cycle 3 with ``d``, whose unit stays busy
two cycles, so ``c`` waits)::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> from schedcc.sched.exact import exact_schedule
    >>> alu = ("ALU",)
    >>> g = SchedGraph((Op("a", alu, 2, 2), Op("b", alu, 2), Op("c", alu, 4, 2), Op("d", alu, 1, 2)),
    ...                (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 2), Dep(0, 3, "RAW", 2)), Machine("toy", 1, alu))
    >>> s = exact_schedule(g)
    >>> [d.text(g) for d in costly_decisions(g, s.exact.heuristic, s.makespan)]
    ['pick 3 (cycle 3, d): 1 cycle lost (no schedule keeping it finishes before 9); an optimal schedule issues nothing at cycle 3 and d at cycle 6']
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from schedcc.problem import SchedGraph
from schedcc.sched.cpsat import Limits, run
from schedcc.sched.exact import block_model, decode, hint, left_shift
from schedcc.sched.schedule import Schedule


@dataclass
class Decision:
    """The list scheduler's pick number ``index`` (1-based, issue order): ``node`` at
    ``cycle``. Keeping it (and the picks before it) costs ``lost`` cycles: no schedule
    finishes before ``makespan_after``. ``instead``: an optimal schedule that keeps the
    picks before it, as node -> cycle for the nodes it places differently."""

    index: int
    node: int
    cycle: int
    lost: int
    makespan_after: int
    optimal_cycle: int = 0                              # where that schedule issues ``node``
    at_cycle: list[int] = field(default_factory=list)   # what it issues at ``cycle`` instead
    instead: dict[int, int] = field(default_factory=dict)

    def text(self, graph: SchedGraph, name=None) -> str:
        """One line for people; *name(node)* names a node (default: its label)."""
        name = name or graph.label
        there = ", ".join(name(n) for n in self.at_cycle) or "nothing"
        cycles = "cycle" if self.lost == 1 else "cycles"
        return (f"pick {self.index} (cycle {self.cycle}, {name(self.node)}): {self.lost} {cycles} lost "
                f"(no schedule keeping it finishes before {self.makespan_after}); an optimal schedule "
                f"issues {there} at cycle {self.cycle} and {name(self.node)} at cycle {self.optimal_cycle}")

    def to_json(self) -> dict[str, Any]:
        return {"pick": self.index, "node": self.node, "cycle": self.cycle, "lost": self.lost,
                "makespan_after": self.makespan_after, "optimal_cycle": self.optimal_cycle,
                "at_cycle": list(self.at_cycle),
                "instead": [{"id": n, "cycle": c} for n, c in sorted(self.instead.items())]}


class _Probe:
    """opt(k) with the first k picks kept: (lower bound, best makespan found, its cycles)."""

    def __init__(self, graph: SchedGraph, heuristic: Schedule, optimum: int, limits: Limits):
        self.graph, self.heuristic, self.optimum, self.limits = graph, heuristic, optimum, limits
        self.upper = max((c + graph.ops[n].latency for n, c in heuristic.cycle.items()), default=0)
        self.cache: dict[int, tuple[int, int, dict[int, int] | None]] = {}

    def __call__(self, k: int) -> tuple[int, int, dict[int, int] | None]:
        if k not in self.cache:
            h = self.heuristic
            bm = block_model(self.graph, self.upper, self.optimum)
            for n in h.order[:k]:
                bm.model.add(bm.start[n] == h.cycle[n])
            hint(bm, h)
            out = run(bm.model, self.limits)
            if out.status in ("optimal", "feasible"):
                cycle, unit = decode(bm, out, self.graph)
                shifted = left_shift(self.graph, cycle, unit)
                if all(shifted[m] == h.cycle[m] for m in h.order[:k]):  # still keeps the picks
                    cycle = shifted
                best = int(round(out.objective))
                bound = best if out.status == "optimal" else int(round(out.bound))
            else:
                cycle, best, bound = None, self.upper, int(round(out.bound)) if out.bound is not None else 0
            self.cache[k] = (bound, best, cycle)
        return self.cache[k]


def costly_decisions(graph: SchedGraph, heuristic: Schedule, optimum: int, limits: Limits | None = None,
                     most: int = 3) -> list[Decision]:
    """The heuristic's decisions that cost cycles against the proven *optimum*; see the
    module docstring. Each solve gets a quarter of *limits*' time and the search stops
    after twice the limit in all; a decision whose effect the solver cannot prove in
    time ends the search. O(most * log n) solves."""
    limits = limits or Limits()
    probe = _Probe(graph, heuristic, optimum, limits.share(0.25))
    upper = probe.upper
    n = len(heuristic.order)
    level, lo = optimum, 0
    found: list[Decision] = []
    began = time.perf_counter()
    while level < upper and len(found) < most:
        hi = n  # invariant: opt(lo) == level, opt(hi) > level
        while hi - lo > 1:
            if time.perf_counter() - began > 2 * limits.time_limit:
                return found
            mid = (lo + hi) // 2
            bound, best, _ = probe(mid)
            if bound > level:
                hi = mid
            elif best == level:
                lo = mid
            else:
                return found  # not proven either way in time
        bound, best, _ = probe(hi)
        _, _, witness = probe(lo)
        if witness is None:
            return found
        node = heuristic.order[hi - 1]
        after = bound if hi < n else upper
        cycle = heuristic.cycle[node]
        instead = {m: c for m, c in witness.items() if c != heuristic.cycle[m]}
        at_cycle = sorted((m for m, c in witness.items() if c == cycle), key=lambda m: (witness[m], m))
        found.append(Decision(hi, node, cycle, after - level, after, witness[node], at_cycle, instead))
        level, lo = after, hi
    return found

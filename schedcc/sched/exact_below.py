"""CP-SAT below a heuristic's II: when IMS (and its second tries) misses the MII, one
feasibility model per II from the MII up, under a small time budget, before the II
above the bound is taken.

The software pipeliner (:func:`schedcc.swp.pipeliner.schedule_loop`) calls
:func:`exact_below` by default when the heuristic's II is above the MII and no
schedule was rejected for its registers (a register rejection raises the II for a
reason the model does not see) on a machine that writes results out of order (the
model has no write-back rule). Each II gets the model of
:mod:`schedcc.sched.exact_modulo` (rows, stages, Hall's condition on the units),
first on two overlapped iterations (a quick proof of infeasibility), then the exact
one, then the exact time line when the rows ran out of time: the same sequence
:func:`~schedcc.sched.exact_modulo.exact_modulo_schedule` runs, with
:data:`BUDGET` per II and at most :data:`TRIES` IIs. Stages are then shortened
(:func:`schedcc.sched.lifetimes.stage_schedule`); the schedule is verified, and the
caller's ``accept`` (its code must fit the registers) has the last word.

On the loop corpus at -O2 (bench/bench_loop_corpus.py) LCALS ``if_quad`` (the
divider exactly full at II 76: IMS's first fit fragments it) and
``del_dot_vec_2d`` (a recurrence without slack at 87, 82 operations) reach the MII
this way, in 1-2 s of CPU each; a loop IMS schedules at the MII never gets here.

Example (a heuristic's schedule held one above the MII 4)::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> from schedcc.sched.modulo import modulo_schedule
    >>> g = SchedGraph((Op("a", ("ALU",), 3), Op("b", ("ALU",), 1)),
    ...                (Dep(0, 1, "RAW", 3), Dep(1, 0, "RAW", 1, distance=1)), Machine("toy", 1, ("ALU",)))
    >>> s = exact_below(g, modulo_schedule(g, min_ii=5))
    >>> s.ii, s.algorithm, [a.outcome for a in s.attempts]
    (4, 'cp-sat', ['scheduled', 'feasible (CP-SAT)'])
"""

from __future__ import annotations

from schedcc.problem import SchedGraph
from schedcc.sched.cpsat import Limits, run
from schedcc.sched.exact_modulo import _decode, _fits, assign_units, hall_family, modulo_model, stage_bound
from schedcc.sched.lifetimes import stage_schedule
from schedcc.sched.modulo import AcceptFunction, Attempt, ModuloSchedule
from schedcc.sched.modulo_relax import component_stage_bound, timeline_model
from schedcc.verifier import verify_modulo
from schedcc.verifier.problem import own_schedule

BUDGET = Limits(2.0)  # per II: CP-SAT's deterministic seconds (the CPU stop is 1.5x that, plus 0.5 s)
TRIES = 2             # IIs tried, from the MII up


def exact_below(graph: SchedGraph, heuristic: ModuloSchedule | None, top: int | None = None,
                accept: AcceptFunction | None = None, limits: Limits = BUDGET,
                tries: int = TRIES) -> ModuloSchedule | None:
    """A schedule at an II below *heuristic*'s (and at most *top*; up to *top* when the
    heuristic found none), found by CP-SAT and accepted by *accept*, or None (module docstring)."""
    if heuristic is not None:
        bounds, top = heuristic.mii, min(heuristic.ii - 1, top if top is not None else heuristic.ii)
    else:
        from schedcc.sched.mii import mii
        bounds = mii(graph)
    if top is None or graph.machine.in_order_writeback:
        return None
    width, caps = graph.machine.issue_width, dict(graph.machine.capacity)
    family, by_hall = hall_family(graph)
    attempts = list(heuristic.attempts) if heuristic is not None else []
    for ii in range(bounds.value, min(top, bounds.value + tries - 1) + 1):
        found = _feasible(graph, ii, width, caps, family, by_hall, limits)
        if found is None:
            attempts.append(Attempt(ii, "CP-SAT found no schedule within its budget"))
            continue
        cycle, unit = found
        shift = min(cycle.values(), default=0) // ii * ii
        cycle, moved = stage_schedule(graph, ii, {n: t - shift for n, t in cycle.items()})
        with own_schedule():
            verify_modulo(graph, ii, graph.by_key(cycle), graph.by_key(unit), width)
        attempts.append(Attempt(ii, "feasible (CP-SAT)"))
        sched = ModuloSchedule(graph, ii, graph.by_key(cycle), graph.by_key(unit), "cp-sat", bounds, width,
                               attempts, moved)
        verdict = accept(sched) if accept is not None else True
        if verdict is True or verdict is None:
            return sched
        attempts[-1].outcome = f"feasible (CP-SAT); rejected: {verdict}"
    return None


def _feasible(graph: SchedGraph, ii: int, width: int, caps: dict, family, by_hall: bool,
              limits: Limits) -> tuple[dict, dict] | None:
    """(cycle, unit) at *ii*, or None (infeasible or out of time)."""
    if not _fits(graph, ii, caps):
        return None
    tight = component_stage_bound(graph, ii)
    stages = min(stage_bound(graph, ii), tight) if tight is not None else stage_bound(graph, ii)
    relaxed, _ = timeline_model(graph, ii, width, caps, stages, family, copies=2)
    if run(relaxed, limits.share(0.2)).status == "infeasible":
        return None
    mm = modulo_model(graph, ii, width, caps, stages)
    out = run(mm.model, limits.share(0.5) if by_hall else limits)
    if by_hall and out.status == "unknown":
        model, start = timeline_model(graph, ii, width, caps, stages, family, copies=stages + 1)
        out = run(model, limits.share(0.5))
        if out.status in ("optimal", "feasible"):
            cycle = {i: out.value(v) for i, v in enumerate(start)}
            return cycle, assign_units(graph, ii, cycle)
        return None
    if out.status in ("optimal", "feasible"):
        return _decode(graph, mm, out)
    return None

"""The exact modulo search's stage bound and time-line relaxation admit every modulo schedule."""

from dataclasses import replace

from hypothesis import assume, given, settings, strategies as st

from schedcc.errors import SchedccError
from schedcc.problem import as_graph
from schedcc.sched.cpsat import Limits, run
from schedcc.sched.exact import _unit_unions
from schedcc.sched.exact_modulo import exact_modulo_schedule, stage_bound
from schedcc.sched.modulo import modulo_schedule
from schedcc.sched.modulo_relax import component_stage_bound, timeline_model
from schedcc.verifier.modulo import verify_modulo

from test_modulo import resource_graphs


def _smallest_stages(g, ii, cycle):
    """The rows of *cycle* with the smallest stages the dependences allow (longest paths from 0)."""
    row = {n: c % ii for n, c in cycle.items()}
    stage = {n: 0 for n in cycle}
    for _ in range(len(cycle) + 1):
        changed = False
        for d in g.deps:
            w = -(-(d.latency - d.distance * ii - row[d.dst] + row[d.src]) // ii)
            if stage[d.src] + w > stage[d.dst]:
                stage[d.dst] = stage[d.src] + w
                changed = True
        if not changed:
            return {n: ii * stage[n] + row[n] for n in cycle}
    raise AssertionError("the schedule breaks a recurrence")


@settings(max_examples=120, deadline=None)
@given(resource_graphs(), st.integers(1, 3), st.integers(0, 2))
def test_every_schedule_fits_the_stage_bound_and_the_relaxation(g, width, above):
    graph = as_graph(g)
    first = modulo_schedule(graph, width)
    try:  # schedules at larger IIs too, where IMS finds one
        s = modulo_schedule(graph, width, min_ii=first.ii + above, max_ii=first.ii + above)
    except SchedccError:
        assume(False)
    ii = s.ii
    cycle = _smallest_stages(graph, ii, {graph.index[k]: c for k, c in s.cycle.items()})
    bound = component_stage_bound(graph, ii)
    stages = max(cycle.values()) // ii + 1  # both bounds hold; the search takes the smaller
    assert bound is not None and stages <= bound and stages <= stage_bound(graph, ii)
    caps = dict(graph.machine.capacity)
    sets = list({frozenset(op.units or graph.machine.units) for op in graph.ops})
    for copies in (1, 2, bound + 1):
        m, start = timeline_model(graph, ii, width, caps, bound, _unit_unions(sets), copies)
        for i, var in enumerate(start):
            m.add(var == cycle[i])
        assert run(m, Limits(5.0)).status in ("optimal", "feasible"), copies


@settings(max_examples=60, deadline=None)
@given(resource_graphs(), st.integers(1, 3))
def test_the_exact_ii_verifies_and_is_never_above_the_heuristics(g, width):
    graph = as_graph(g)
    graph = graph.replace(machine=replace(graph.machine, issue_width=width))
    heuristic = modulo_schedule(graph)
    s = exact_modulo_schedule(graph, heuristic, Limits(5.0))
    assert s.ii <= heuristic.ii
    verify_modulo(graph, s.ii, s.cycle, s.unit, width)

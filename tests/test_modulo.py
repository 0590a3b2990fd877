"""Modulo schedulers, the independent verifier and register pressure."""

import glob
from pathlib import Path

import networkx as nx
import pytest

from schedcc import parse
from schedcc.errors import SchedccError
from schedcc.swp.dependences import loop_dag
from schedcc.swp.loops import find_loops
from schedcc.swp.view import LoopView
from schedcc.sched.lifetimes import register_pressure
from schedcc.sched.modulo import modulo_schedule
from schedcc.verifier.modulo import ModuloVerificationError, verify_modulo
from schedcc.target import load_target

ROOT = Path(__file__).resolve().parent.parent
LOOP_FILES = sorted(glob.glob(str(ROOT / "examples" / "loops" / "*.ir")))


def example_loops():
    for path in LOOP_FILES:
        for func in parse(Path(path).read_text()).functions:
            for loop in find_loops(func):
                if isinstance(loop, LoopView):
                    yield Path(path).stem, loop


def test_there_are_at_least_30_loop_kernels():
    assert len(list(example_loops())) >= 30


@pytest.mark.parametrize("target", ["la464", "la664", "generic"])
@pytest.mark.parametrize("algorithm", ["ims", "swing"])
def test_every_example_schedule_verifies(target, algorithm):
    tgt = load_target(target)
    for name, loop in example_loops():
        try:
            dag = loop_dag(loop, tgt)
        except SchedccError:
            continue  # an opcode this target does not have
        s = modulo_schedule(dag, tgt, algorithm=algorithm)
        verify_modulo(dag, s.ii, s.cycle, s.unit, tgt.issue_width)
        assert s.ii >= s.mii.value and s.algorithm == algorithm
        assert min(s.cycle.values()) >= 0
        p = register_pressure(dag, s.ii, s.cycle)
        assert p.registers >= p.max_live >= 1


def lecture_dag(target="la464"):
    (loop,) = find_loops(parse((ROOT / "examples/loops/lecture_cj.ir").read_text()).functions[0])
    return loop_dag(loop, target)


def test_lecture_reaches_mii_on_la464():
    s = modulo_schedule(lecture_dag(), "la464")
    assert (s.mii.res.value, s.mii.rec.value, s.ii) == (2, 1, 2)


def test_accept_callback_raises_ii():
    seen = []

    def accept(s):
        seen.append(s.ii)
        return True if s.ii >= 4 else f"II {s.ii}: double buffers do not fit"
    s = modulo_schedule(lecture_dag(), "la464", accept=accept)
    # gallop from the MII 2 (+1, +3), then bisect back; at 2 and 3 swing's schedule (fewer
    # registers than IMS's) is offered too
    assert s.ii == 4 and seen == [2, 2, 3, 3, 5, 4]
    assert [a.outcome for a in s.attempts][:2] == ["rejected: II 2: double buffers do not fit",
                                                   "rejected: II 3: double buffers do not fit"]
    assert modulo_schedule(lecture_dag(), "la464", accept=lambda s: s.ii > 2 or False).ii == 3


def test_generic_graph_without_ir():
    # An operator graph: two pipes, a copy-in, a compute and a copy-out per tile,
    # the compute accumulating across tiles.
    g = nx.DiGraph()
    g.add_node("in", latency=4, units=("MTE2",), occupancy=3)
    g.add_node("mm", latency=6, units=("CUBE",), occupancy=5)
    g.add_node("out", latency=2, units=("MTE3",), occupancy=2)
    g.add_edge("in", "mm", latency=4, distance=0)
    g.add_edge("mm", "out", latency=6, distance=0)
    g.add_edge("mm", "mm", latency=6, distance=1)
    s = modulo_schedule(g, 3)
    assert s.ii == 6 and s.mii.rec.cycle == ["mm"]
    verify_modulo(g, s.ii, s.cycle, s.unit, 3)


def test_unschedulable_raises_clear_error():
    g = nx.DiGraph()
    g.add_node(0, latency=1, units=("A",))
    with pytest.raises(SchedccError, match="no modulo schedule"):
        modulo_schedule(g, 1, accept=lambda s: "never", max_ii=4)
    with pytest.raises(SchedccError, match="unknown modulo scheduler"):
        modulo_schedule(g, 1, algorithm="nope")


def violations(dag, ii, cycle, unit, width):
    with pytest.raises(ModuloVerificationError) as info:
        verify_modulo(dag, ii, cycle, unit, width)
    return " | ".join(info.value.violations)


def test_verifier_catches_broken_schedules():
    dag = lecture_dag()
    s = modulo_schedule(dag, "la464")
    cyc, unit = dict(s.cycle), dict(s.unit)
    # a dependence: the store one cycle too early
    bad = dict(cyc)
    bad[4] = cyc[3]
    assert "too early" in violations(dag, s.ii, bad, unit, 4)
    # a resource: two loads on the same AGU in the same row
    u2 = dict(unit)
    u2[0] = u2[2]
    c2 = dict(cyc)
    c2[0] = c2[2]
    assert "is used twice in row" in violations(dag, s.ii, c2, u2, 4)
    # the branch out of the last row
    c3 = dict(cyc)
    c3[7] += 1
    assert "last row" in violations(dag, s.ii, c3, unit, 4)
    # the loop-carried distance matters: at II 1 the store/load recurrence breaks
    with pytest.raises(ModuloVerificationError):
        verify_modulo(dag, 1, cyc, unit, 8)


def test_register_pressure_counts_rows():
    g = nx.DiGraph()
    g.add_node(0, latency=4)
    g.add_node(1, latency=1)
    g.add_edge(0, 1, kind="RAW", latency=4, distance=0)
    p = register_pressure(g, 2, {0: 0, 1: 5})
    # node 1 defines nothing (no instruction, no RAW successor): only node 0 is a value
    assert p.lifetime == {0: 5} and p.unroll == 3 and p.copies == {0: 3}
    assert p.live_per_row == [3, 2] and p.max_live == 3 and p.registers == 3


def test_swing_keeps_fewer_registers_on_the_lecture_loop():
    dag = lecture_dag()
    ims = modulo_schedule(dag, "la464", algorithm="ims")
    swing = modulo_schedule(dag, "la464", algorithm="swing")
    assert swing.ii == ims.ii
    assert register_pressure(dag, swing.ii, swing.cycle).max_live <= register_pressure(dag, ims.ii, ims.cycle).max_live


# -- random graphs that do not come from the IR ------------------------------------------------

import itertools  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

UNIT_SETS = [("U0",), ("U0", "U1"), ("U1", "U2"), ("U0", "U1", "U2"), ("V0",)]


@st.composite
def resource_graphs(draw):
    n = draw(st.integers(1, 9))
    g = nx.DiGraph()
    for k in range(n):
        also = (("DIV", draw(st.integers(1, 4))),) if draw(st.integers(0, 5)) == 0 else ()
        g.add_node(k, latency=draw(st.integers(0, 6)), units=draw(st.sampled_from(UNIT_SETS)),
                   occupancy=draw(st.integers(1, 3)), also=also)
    if draw(st.booleans()):
        g.nodes[n - 1]["kernel_end"] = True
    for u, v in itertools.permutations(range(n), 2):
        if draw(st.integers(0, 3)) == 0:
            g.add_edge(u, v, latency=draw(st.integers(0, 6)),
                       distance=draw(st.integers(0 if u < v else 1, 3)), kind="RAW")
    return g


@settings(max_examples=80, deadline=None)
@given(resource_graphs(), st.integers(1, 3), st.sampled_from(["ims", "swing"]), st.booleans())
def test_random_graphs_schedule_and_verify(g, width, algorithm, staged):
    s = modulo_schedule(g, width, algorithm=algorithm, stage_scheduling=staged)
    verify_modulo(g, s.ii, s.cycle, s.unit, width)
    assert s.ii >= s.mii.value
    assert 0 <= min(s.cycle.values()) < s.ii
    p = register_pressure(g, s.ii, s.cycle)
    assert p.registers >= p.max_live


# -- the dependences the modulo schedulers may leave out -------------------------------------

from schedcc.problem import Dep, as_graph  # noqa: E402
from schedcc.sched.mii import rec_mii  # noqa: E402
from schedcc.sched.mrt import LoopStructure, implied_deps, longest_paths  # noqa: E402


def _longest_from(g, kept, src, dist_limit):
    """Longest latency of a path src -> each node over *kept* deps with distance sum <= dist_limit
    (at most one distance-1 edge, none longer; the distance-0 edges are acyclic). None: no path."""
    order = g.topological_order
    best = [[None] * len(g) for _ in range(dist_limit + 1)]
    best[0][src] = 0
    for level in range(dist_limit + 1):
        if level:
            for d in kept:
                if d.distance == 1 and best[level - 1][d.src] is not None:
                    x = best[level - 1][d.src] + d.latency
                    if best[level][d.dst] is None or x > best[level][d.dst]:
                        best[level][d.dst] = x
        for u in order:
            if best[level][u] is None:
                continue
            for d in kept:
                if d.src == u and d.distance == 0:
                    x = best[level][u] + d.latency
                    if best[level][d.dst] is None or x > best[level][d.dst]:
                        best[level][d.dst] = x
    return [max((b[v] for b in best if b[v] is not None), default=None) for v in range(len(g))]


def _earliest(g, ii):
    """Earliest starts over every dependence at *ii* (Bellman-Ford, no positive cycle at ii)."""
    val = [0] * len(g)
    for _ in range(len(g) + 1):
        changed = False
        for d in g.deps:
            if val[d.src] + d.latency - ii * d.distance > val[d.dst]:
                val[d.dst] = val[d.src] + d.latency - ii * d.distance
                changed = True
        if not changed:
            return val
    raise AssertionError("a positive cycle")


@settings(max_examples=150, deadline=None)
@given(resource_graphs(), st.integers(0, 3))
def test_every_dependence_left_out_is_implied_by_a_path_of_the_rest(g, dense):
    graph = as_graph(g)
    if dense:  # pairwise-ordered accesses, as memory dependences are: most of them implied
        n, have = len(graph), {(d.src, d.dst) for d in graph.deps}
        graph = graph.with_deps(Dep(u, v, "MEM", (u + v + dense) % 3, distance=0 if u < v else 1)
                                for u in range(n) for v in range(n)
                                if u != v and (u, v) not in have and (u * 7 + v * 3 + dense) % 4)
    out = implied_deps(graph)
    kept = [d for k, d in enumerate(graph.deps) if k not in out]
    for k in out:
        d = graph.deps[k]
        assert d.distance <= 1 and d.src != d.dst
        reach = _longest_from(graph, kept, d.src, d.distance)[d.dst]
        assert reach is not None and reach >= d.latency, (d, kept)
    # What IMS reads: the same earliest starts at every II as with every dependence.
    structure = LoopStructure(graph)
    first = max(rec_mii(graph).value, 1)
    for ii in range(first, first + 3):
        assert longest_paths(structure, ii, reverse=True) == _earliest(graph, ii)


def test_the_driver_hands_the_pipeliner_the_loop_bodies_list_schedules():
    """The block schedules the command prints are the 'before' the pipeliner compares with."""
    from schedcc.dag import build_dag
    from schedcc.driver.job import Job, Options, run_job
    from schedcc.frontends import parse_source
    from schedcc.sched import list_schedule
    tgt = load_target("la464")
    for path in LOOP_FILES[:12]:
        res = run_job(Job(parse_source(Path(path).read_text(), path), tgt, Options(pipeline=True)))
        for r in res.loops.loops:
            if r.pipelined:
                assert r.cycles_before == list_schedule(build_dag(r.loop.block, tgt), tgt).makespan

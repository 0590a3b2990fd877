"""List scheduler, lower bound, verifier and in-order simulator."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedcc import parse
from schedcc.dag import build_dag
from schedcc.sched import PRIORITIES, list_schedule, lower_bound
from schedcc.verifier import VerificationError, verify
from schedcc.sim import simulate_in_order
from schedcc.target import list_targets, load_target

from strategies import straight_line

TARGETS = ["generic", "mips4", "la464", "la664"]


def block_of(text):
    return parse(text).functions[0].blocks[0]


@settings(max_examples=60, deadline=None)
@given(straight_line(), st.sampled_from(TARGETS), st.sampled_from(list(PRIORITIES)))
def test_every_schedule_passes_the_verifier_and_respects_the_bound(text, target_name, priority):
    target = load_target(target_name)
    block = block_of(text)
    dag = build_dag(block, target)
    s = list_schedule(dag, target, priority=priority)
    verify(block, target, s.cycle, s.unit)
    assert s.makespan >= lower_bound(dag, target).value
    # deterministic: the same output every run
    again = list_schedule(build_dag(block, target), target, priority=priority)
    assert (again.order, again.cycle, again.unit) == (s.order, s.cycle, s.unit)


@settings(max_examples=40, deadline=None)
@given(straight_line(), st.sampled_from(TARGETS))
def test_original_order_is_a_valid_schedule_too(text, target_name):
    target = load_target(target_name)
    block = block_of(text)
    r = simulate_in_order(block, target)
    verify(block, target, r.cycle, r.unit)
    assert r.order == list(range(len(block.instrs)))
    assert r.makespan >= lower_bound(r.dag, target).value


@settings(max_examples=40, deadline=None)
@given(straight_line(min_size=2), st.data())
def test_verifier_catches_a_broken_schedule(text, data):
    """Moving one instruction before a predecessor's result is ready must be caught."""
    target = load_target("mips4")
    block = block_of(text)
    dag = build_dag(block, target)
    s = list_schedule(dag, target)
    edges = [(d.src, d.dst, d) for d in dag.deps if d.latency > 0]
    if not edges:
        return
    u, v, d = data.draw(st.sampled_from(edges))
    cycle = dict(s.cycle)
    cycle[v] = cycle[u] + d.latency - 1
    with pytest.raises(VerificationError):
        verify(block, target, cycle, s.unit)


def test_verifier_catches_resource_errors():
    target = load_target("la464")
    block = block_of("a = b * c\nd = e * f\ng = h * i\n")
    # three multiplies in one cycle, but only ALU0/ALU1 multiply
    with pytest.raises(VerificationError) as exc:
        verify(block, target, {0: 0, 1: 0, 2: 0}, {0: "ALU0", 1: "ALU1", 2: "ALU2"})
    assert "may use only ALU0, ALU1" in str(exc.value.violations)
    with pytest.raises(VerificationError) as exc:
        verify(block, target, {0: 0, 1: 0, 2: 0}, {0: "ALU0", 1: "ALU1", 2: "ALU1"})
    assert any("busy" in v for v in exc.value.violations)
    with pytest.raises(VerificationError):
        verify(load_target("mips4") and block_of("a = 1\nb = 2\n"), "mips4", {0: 0, 1: 0}, {0: "ALU", 1: "ALU"})


def test_verifier_catches_memory_reordering_and_wrong_values():
    target = load_target("generic")
    block = block_of("store A[i], x\ny = load A[i]\nx = 5\n")
    with pytest.raises(VerificationError) as exc:
        verify(block, target, {0: 1, 1: 0, 2: 2}, {0: "ALU", 1: "ALU", 2: "ALU"})
    assert "memory" in exc.value.violations[0]
    with pytest.raises(VerificationError) as exc:  # x overwritten before the store reads it
        verify(block, target, {0: 2, 1: 3, 2: 1}, {0: "ALU", 1: "ALU", 2: "ALU"})
    assert "WAR" in " ".join(exc.value.violations)


def test_la464_multiplies_only_on_alu0_and_alu1():
    target = load_target("la464")
    block = block_of("\n".join(f"m{k} = a{k} * b{k}" for k in range(6)) + "\n")
    s = list_schedule(build_dag(block, target), target)
    assert {s.unit[n] for n in s.cycle} == {"ALU0", "ALU1"}
    assert s.makespan == 3 + 3 - 1 + 1  # two per cycle over 3 cycles, latency 4: issue 0,0,1,1,2,2 -> 2+4


def test_la464_divider_is_not_pipelined():
    target = load_target("la464")
    block = block_of("q0 = a / b\nq1 = c / d\nq2 = e / f\n")
    s = list_schedule(build_dag(block, target), target)
    assert sorted(s.cycle.values()) == [0, 11, 22]  # div.w holds the divider 11 cycles
    assert s.makespan == 22 + 21


def test_loads_on_two_agus_stores_on_agu0():
    target = load_target("la464")
    block = block_of("a = load A[i]\nb = load B[i]\nc = load C[i]\nstore D[i], x\nstore E[i], y\n")
    s = list_schedule(build_dag(block, target), target)
    stores = [n for n in s.cycle if block.instrs[n].opcode == "store"]
    assert {s.unit[n] for n in stores} == {"AGU0"}
    assert s.cycle[stores[0]] != s.cycle[stores[1]]


def test_wide_issue_uses_the_width():
    target = load_target("la664")
    block = block_of("\n".join(f"x{k} = a{k} + b{k}" for k in range(8)) + "\n")
    s = list_schedule(build_dag(block, target), target)
    assert sorted(s.cycle.values()) == [0, 0, 0, 0, 1, 1, 1, 1]  # 4 ALUs, width 6


@pytest.mark.parametrize("priority", list(PRIORITIES))
def test_priorities_on_the_lecture(priority, lecture_text):
    target = load_target("mips4")
    block = block_of(lecture_text)
    s = list_schedule(build_dag(block, target), target, priority=priority)
    verify(block, target, s.cycle, s.unit)
    assert 9 <= s.makespan <= 11
    if priority == "source":
        assert s.order == [0, 2, 5, 1, 4, 3] or s.makespan <= 11


def test_explain_records_ready_lists(lecture_text):
    target = load_target("mips4")
    s = list_schedule(build_dag(block_of(lecture_text), target), target, explain=True)
    first = s.steps[0]
    assert first.cycle == 0 and [n for n, _ in first.ready] == [0, 2, 5] and first.picked == [(0, "ALU")]
    assert [st.cycle for st in s.steps] == [0, 1, 2, 3, 4, 6]


def test_every_shipped_target_loads():
    names = {t.name for t in list_targets()}
    assert {"generic", "mips4", "la464", "la664"} <= names
    assert load_target("loongarch").name == "la464"


def _pairwise_memory_check(refs, cycle, latency, tgt, need):
    """The obviously right version: every pair, by the verifier's own conflict rule."""
    import sys
    _conflict = sys.modules["schedcc.verifier.block"]._conflict
    for j, b in enumerate(refs):
        for a in refs[:j]:
            if not _conflict(a, b):
                continue
            bounds = []
            if a.writes and b.reads:
                bounds.append(latency[a.index])
            if a.writes and b.writes:
                bounds.append(tgt.waw_latency)
            if a.reads and b.writes:
                bounds.append(tgt.war_latency)
            need(a.index, b.index, max(bounds), "accesses memory out of order with")


def fast_and_pairwise_memory_violations(block, target, cycle, unit) -> tuple[set, set]:
    """The memory violations the verifier reports for (cycle, unit), with its fast check and
    with :func:`_pairwise_memory_check`: for each, the instructions that issue too early (the
    fast check names only the worst culprit)."""
    import sys
    v = sys.modules["schedcc.verifier.block"]  # the package re-exports the function under this name

    def outcome(check):
        saved = v._check_memory
        v._check_memory = check
        try:
            verify(block, target, cycle, unit)
            return set()
        except VerificationError as err:
            return {x.split(" at cycle")[0] for x in err.violations if "memory" in x}
        finally:
            v._check_memory = saved

    return outcome(v._check_memory), outcome(_pairwise_memory_check)


@settings(max_examples=150, deadline=None)
@given(straight_line(min_size=2, max_size=25), st.data())
def test_fast_memory_check_equals_pairwise(text, data):
    target = load_target("mips4")
    block = block_of(text)
    n = len(block.instrs)
    cycle = {i: data.draw(st.integers(0, 3 * n)) for i in range(n)}
    unit = {i: "ALU" for i in range(n)}
    fast, slow = fast_and_pairwise_memory_violations(block, target, cycle, unit)
    assert fast == slow


def test_makespan_of_a_schedule_over_a_graph_with_keys():
    """Training steps name their nodes (iteration, operator); their schedules are numbered."""
    from schedcc.problem import Dep, Machine, Op, SchedGraph
    g = SchedGraph((Op("a", ("U",), 5), Op("b", ("U",), 2)), (Dep(0, 1, "RAW", 5),), Machine("m", 1, ("U",)),
                   keys=((0, "a"), (0, "b")))
    assert list_schedule(g).makespan == 7

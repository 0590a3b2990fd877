"""The memory alias rules of the DAG builder held against the independent verifier.

Blocks full of memory accesses (``private`` on some or all accesses of an array,
the same element, constants apart, other variables, widths, pointer references
with the same or other bases, redefined addresses, calls) are built into DAGs,
scheduled with every priority, with and without repair, on every CPU target, and
graded by ``check``; the verifier, which shares no code with the DAG builder,
checks each schedule.
"""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedcc import parse
from schedcc.cli import main
from schedcc.dag import block as dag_block
from schedcc.dag import build_dag
from schedcc.driver import schedule_program
from schedcc.sched import PRIORITIES, list_schedule
from schedcc.target import load_target
from schedcc.teaching.grading import check_reordering
from schedcc.verifier import VerificationError, verify

from strategies import memory_block
from test_scheduler import fast_and_pairwise_memory_violations  # the verifier's fast check against its rule, pair by pair

TARGETS = ["generic", "mips4", "la464", "la664", "sifive-u74"]
ISSUE_21 = "r0 = load B[i]\nstore B[i], r3 {private = true}\nstore [p], r2\nx = load [p]\ny = x + x\nz = y + y\nret z\n"


def block_of(text):
    return parse(text).functions[0].blocks[0]


def longest_paths_from(dag, src):
    """Longest latency-weighted path from *src* to every node (None: no path)."""
    best = {src: 0}
    for u in range(src, len(dag)):  # node order is topological
        if u in best:
            for d in dag.succ[u]:
                t = best[u] + d.latency
                if best.get(d.dst, -1) < t:
                    best[d.dst] = t
    return best


def verifier_memory_demands(block, target):
    """Every (a, b, latency) the verifier's own alias rule demands, pair by pair."""
    import sys
    v = sys.modules["schedcc.verifier.block"]
    seen = []
    saved = v._check_memory
    v._check_memory = lambda refs, cycle, latency, tgt, need: seen.append((refs, latency))
    try:  # collect the verifier's accesses: any schedule will do, the memory check is replaced
        n = len(block.instrs)
        try:
            verify(block, target, {i: 0 for i in range(n)}, {i: "?" for i in range(n)})
        except VerificationError:
            pass
    finally:
        v._check_memory = saved
    (refs, latency), = seen
    out = {}
    for j, b in enumerate(refs):
        for a in refs[:j]:
            if a.index == b.index or not v._conflict(a, b):
                continue
            lat = max(([latency[a.index]] if a.writes and b.reads else []) +
                      ([target.waw_latency] if a.writes and b.writes else []) +
                      ([target.war_latency] if a.reads and b.writes else []))
            out[(a.index, b.index)] = max(lat, out.get((a.index, b.index), 0))
    return out


# -- the reported block ------------------------------------------------------------------

@pytest.mark.parametrize("target", TARGETS)
def test_the_reported_block_keeps_the_load_before_the_pointer_store(target):
    tgt = load_target(target)
    block = block_of(ISSUE_21)
    dag = build_dag(block, tgt)
    assert dag.has_path(0, 2)                                   # load B[i] -> store [p]
    assert not dag.has_path(1, 2) and not dag.has_path(1, 3)    # what private legitimately means
    for priority in PRIORITIES:
        for repair in (True, False):
            s = list_schedule(dag, priority=priority, repair=repair)
            verify(block, tgt, s.cycle, s.unit)
            assert s.cycle[2] >= s.cycle[0]


def test_the_reported_block_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "m.ir"
    path.write_text(ISSUE_21)
    assert main([str(path), "--target", "mips4"]) == 0
    assert "; verified" in capsys.readouterr().out
    assert main(["check", str(path), "--against", str(path), "--target", "mips4"]) == 0
    assert "result: LEGAL; 17 cycles" in capsys.readouterr().out


def test_the_verifier_catches_the_dropped_dependence_on_its_own(monkeypatch):
    """With the old rule (a store to the same element stands for every pending access of
    it, private or not) the DAG drops load B[i] -> store [p]; the verifier, which shares
    no code with the DAG builder, refuses the schedule that DAG allows."""
    monkeypatch.setattr(dag_block, "covers", lambda new, old: new.key == old.key)
    tgt = load_target("mips4")
    block = block_of(ISSUE_21)
    dag = build_dag(block, tgt)
    assert not dag.has_path(0, 2)
    s = list_schedule(dag, tgt)
    assert s.cycle[2] < s.cycle[0]
    with pytest.raises(VerificationError, match=r"'store \[p\], r2' at cycle 0 accesses memory \(WAR\)"):
        verify(block, tgt, s.cycle, s.unit)


@pytest.mark.parametrize("text,pair", [
    # a private store does not stand for a shared load or store of the same element
    ("r0 = load B[i]\nstore B[i], r3 {private = true}\nstore [p], r2\n", (0, 2)),
    ("store B[i], r0\nstore B[i], r3 {private = true}\nr1 = load [p]\n", (0, 2)),
    # a private load first, a shared one second: both stay pending for the pointer store
    ("r0 = load B[i] {private = true}\nr1 = load B[i]\nstore [p], r2\n", (1, 2)),
    ("r1 = load B[i]\nr0 = load B[i] {private = true}\nstore [p], r2\n", (0, 2)),
])
def test_mixed_private_accesses_of_one_element(text, pair):
    dag = build_dag(block_of(text), load_target("mips4"))
    assert dag.has_path(*pair)


@pytest.mark.parametrize("text", [
    "r0 = load B[i] {private = true}\nstore B[i], r3 {private = true}\nstore [p], r2\n",
    "r0 = load B[i] {private = true}\nr1 = load [q]\nstore [p], r2\n",
])
def test_private_accesses_stay_out_of_reach_of_pointers(text):
    dag = build_dag(block_of(text), load_target("mips4"))
    assert not dag.has_path(0, 2)  # the private load and the pointer store


# -- properties --------------------------------------------------------------------------

@settings(max_examples=250, deadline=None)
@given(memory_block(max_size=18), st.sampled_from(TARGETS))
def test_the_dag_implies_every_memory_order_the_verifier_demands(text, target):
    """For every pair of accesses the verifier's alias rule orders, the DAG has a path
    at least as long as the latency the verifier asks for."""
    tgt = load_target(target)
    block = block_of(text)
    dag = build_dag(block, tgt)
    for (a, b), lat in verifier_memory_demands(block, tgt).items():
        got = longest_paths_from(dag, a).get(b)
        assert got is not None and got >= lat, (a, b, lat, got, text)


@settings(max_examples=60, deadline=None)
@given(memory_block(), st.sampled_from(TARGETS))
def test_every_schedule_of_a_memory_block_passes_the_verifier(text, target):
    """Every priority, the list scheduler with and without repair, verification forced on."""
    program = parse(text)
    for priority in PRIORITIES:
        for repair in (True, False):
            res = schedule_program(program, target, priority=priority, check=True, repair=repair)
            assert all(r.verified for r in res.blocks)


@settings(max_examples=60, deadline=None)
@given(memory_block(), st.sampled_from(TARGETS), st.randoms(use_true_random=False))
def test_check_grades_the_original_and_any_order_the_dag_allows(text, target, rnd):
    """``check`` of the original order, and of a random order the DAG allows: legal, and both
    timings (the student's, schedcc's) pass the verifier inside ``check``."""
    tgt = load_target(target)
    original = parse(text, "orig.ir")
    result = check_reordering(original, original, tgt)
    assert result.legal
    b = result.blocks[0]
    assert b.cycles == b.original_cycles and b.scheduler_cycles <= b.original_cycles
    dag = b.dag
    indeg = [len(p) for p in dag.pred]
    ready = [i for i, k in enumerate(indeg) if k == 0]
    order = []
    while ready:
        n = ready.pop(rnd.randrange(len(ready)))
        order.append(n)
        for d in dag.succ[n]:
            indeg[d.dst] -= 1
            if indeg[d.dst] == 0:
                ready.append(d.dst)
    block = original.functions[0].blocks[0]
    student = parse("".join(f"{block.instrs[i]}\n" for i in order), "mine.ir")
    assert check_reordering(student, original, tgt).legal


def test_a_large_memory_block_against_the_verifier():
    """One long block past HUGE_REGION pending accesses (the conservative flush)."""
    rnd = random.Random(21)
    lines = []
    for k in range(400):
        kind = rnd.choice(["ld", "st", "pst", "pld"])
        priv = " {private = true}" if rnd.random() < 0.5 else ""
        if kind == "ld":
            lines.append(f"r{k % 4} = load B[i + {rnd.randrange(80)}]{priv}")
        elif kind == "st":
            lines.append(f"store B[i + {rnd.randrange(80)}], r{k % 4}{priv}")
        elif kind == "pst":
            lines.append(f"store [p + {8 * rnd.randrange(4)}], r{k % 4}")
        else:
            lines.append(f"r{k % 4} = load [q + {8 * rnd.randrange(4)}]")
    block = block_of("\n".join(lines) + "\n")
    for target in ("mips4", "la664"):
        tgt = load_target(target)
        s = list_schedule(build_dag(block, tgt), tgt)
        verify(block, tgt, s.cycle, s.unit)


@settings(max_examples=100, deadline=None)
@given(memory_block(max_size=14), st.data())
def test_the_verifiers_fast_memory_check_equals_its_pairwise_rule(text, data):
    """The verifier's own memory check, on private and shared accesses alike."""
    target = load_target("mips4")
    block = block_of(text)
    n = len(block.instrs)
    cycle = {i: data.draw(st.integers(0, 2 * n)) for i in range(n)}
    unit = {i: "ALU" for i in range(n)}
    fast, slow = fast_and_pairwise_memory_violations(block, target, cycle, unit)
    assert fast == slow

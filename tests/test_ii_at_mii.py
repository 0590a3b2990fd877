"""II = MII (issue 19): IMS's second try at an II with latest starts, the joint bound of
recurrences and resources (schedcc.sched.mii_joint), swing's schedule offered when IMS's
needs too many registers. The graphs are the -O2 loops of the corpus that missed the MII
(bench/bench_loop_corpus.py), written out operation by operation."""

import itertools

import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from schedcc.driver.loops import pipeline_source
from schedcc.frontends import parse_source
from schedcc.problem import Dep, Machine, Op, SchedGraph, as_graph
from schedcc.sched.cpsat import Limits, run
from schedcc.sched.exact_modulo import modulo_model, stage_bound
from schedcc.sched.ims import ims
from schedcc.sched.lifetimes import register_pressure
from schedcc.sched.mii import mii
from schedcc.sched.modulo import Attempt, modulo_schedule
from schedcc.sched.mrt import LoopStructure
from schedcc.verifier.modulo import verify_modulo

from test_modulo import lecture_dag

LA = Machine("la464", 4, ("ALU0", "ALU1", "ALU2", "ALU3", "AGU0", "AGU1", "FPU0", "FPU1", "IDIV", "FDIV"))
ALU, AGU, FPU, BR = ("ALU0", "ALU1", "ALU2", "ALU3"), ("AGU0", "AGU1"), ("FPU0", "FPU1"), ("ALU0", "ALU1")


def _s331() -> SchedGraph:
    """TSVC s331 at -O2: the index of the last negative element (8 operations, II 2 fills
    every issue slot; a select chain that carries over an iteration at latency 2)."""
    ops = (Op("ld", AGU, 4), Op("slti", ALU, 1), Op("masknez", ALU, 1), Op("maskeqz", ALU, 1),
           Op("or", ALU, 1), Op("addi a1", ALU, 1), Op("addi a3", ALU, 1), Op("bne", BR, 1, kernel_end=True))
    deps = (Dep(0, 1, "RAW", 4), Dep(1, 2, "RAW", 1), Dep(1, 3, "RAW", 1), Dep(2, 4, "RAW", 1),
            Dep(3, 4, "RAW", 1), Dep(4, 2, "RAW", 1, distance=1), Dep(5, 0, "RAW", 1, distance=1),
            Dep(5, 5, "RAW", 1, distance=1), Dep(6, 3, "RAW", 1, distance=1), Dep(6, 6, "RAW", 1, distance=1),
            Dep(6, 7, "RAW", 1))
    return SchedGraph(ops, deps, LA)


def _s491() -> SchedGraph:
    """TSVC s491 at -O2: a[ip[i]] = b[i] + c[i] * d[i]; the store may write what the next
    iteration's three loads and the index load read (latency 5 + 5 + 1 = 11 = RecMII)."""
    ops = (Op("fld b", AGU, 5), Op("fld c", AGU, 5), Op("fld d", AGU, 5), Op("fmadd", FPU, 5),
           Op("ld.w ip", AGU, 4), Op("slli", ALU, 1), Op("fstx", ("AGU0",), 1),
           *(Op(f"addi {k}", ALU, 1) for k in range(5)), Op("bne", BR, 1, kernel_end=True))
    deps = [Dep(0, 3, "RAW", 5), Dep(1, 3, "RAW", 5), Dep(2, 3, "RAW", 5), Dep(3, 6, "RAW", 5),
            Dep(4, 5, "RAW", 4), Dep(5, 6, "RAW", 1), Dep(6, 6, "MEM", 1, distance=1), Dep(11, 12, "RAW", 1)]
    deps += [Dep(k, 6, "MEM", 0) for k in (0, 1, 2, 4)] + [Dep(6, k, "MEM", 1, distance=1) for k in (0, 1, 2, 4)]
    deps += [Dep(7 + j, k, "RAW", 1, distance=1) for j, k in enumerate((0, 2, 1, 4))]
    deps += [Dep(k, k, "RAW", 1, distance=1) for k in range(7, 12)]
    return SchedGraph(ops, tuple(deps), LA)


def _feasible(g: SchedGraph, ii: int) -> str:
    """CP-SAT's verdict on a schedule of *g* at *ii* (the exact modulo model, docs/exact.md)."""
    mm = modulo_model(g, ii, g.machine.issue_width, dict(g.machine.capacity), stage_bound(g, ii))
    return run(mm.model, Limits(5.0)).status


def test_ims_reaches_the_mii_of_a_full_kernel_with_a_recurrence_without_slack():
    g = _s331()
    assert mii(g).value == 2
    # Rau's window alone: a free slot past the successor's latest start evicts it, round and round.
    assert ims(LoopStructure(g), 2, 4, {}, 6, Attempt(2, "")) is None
    s = modulo_schedule(g)
    verify_modulo(g, s.ii, s.cycle, s.unit, s.issue_width)
    assert s.ii == 2
    assert "with latest starts: scheduled" in s.attempts[0].outcome


def test_a_recurrence_without_slack_that_overfills_a_row_raises_the_mii():
    g = _s491()
    m = mii(g)
    assert (m.res.value, m.rec.value, m.value) == (4, 11, 12)
    assert m.joint.group == (0, 1, 2, 3, 6)
    assert m.joint.reason == "#0 fld b, #1 fld c, #2 fld d need a unit of AGU0/AGU1 each in one row"
    assert _feasible(g, 11) == "infeasible" and _feasible(g, 12) in ("optimal", "feasible")
    assert modulo_schedule(g).ii == 12


def test_a_recurrence_with_slack_or_rows_that_hold_it_keeps_the_mii():
    # The same loop with a third load unit: the three loads fit in one row.
    g = _s491().replace(machine=Machine("wide", 4, LA.units + ("AGU2",)))
    g = g.replace(ops=tuple(op if op.units != AGU else Op(op.name, AGU + ("AGU2",), op.latency) for op in g.ops))
    assert mii(g).value == 11 and mii(g).joint is None
    # A recurrence of ratio 21/2: no cycle is tight at II 11.
    ops = (Op("a", ("U0",), 10), Op("b", ("U0",), 11))
    h = SchedGraph(ops, (Dep(0, 1, "RAW", 10), Dep(1, 0, "RAW", 11, distance=2)), Machine("toy", 1, ("U0",)))
    assert mii(h).value == 11 and mii(h).joint is None


UNIT_SETS = [("U0",), ("U0", "U1"), ("U1", "U2"), ("U0", "U1", "U2")]


@st.composite
def tight_graphs(draw):
    """Small loops around one recurrence (a ring whose last edge goes to the next
    iteration) with chords: at II = RecMII the critical cycle has no slack."""
    n = draw(st.integers(2, 6))
    g = nx.DiGraph()
    for k in range(n):
        g.add_node(k, latency=draw(st.integers(1, 4)), units=draw(st.sampled_from(UNIT_SETS)),
                   occupancy=draw(st.integers(1, 2)))
    for u, v in itertools.permutations(range(n), 2):
        if v == u + 1 or (u, v) == (n - 1, 0) or draw(st.integers(0, 3)) == 0:
            g.add_edge(u, v, latency=draw(st.integers(0, 4)), distance=0 if u < v else 1, kind="RAW")
    return g


@settings(max_examples=60, deadline=None)
@given(tight_graphs(), st.integers(1, 3))
def test_the_joint_bound_is_never_above_a_schedule_cp_sat_finds(nxg, width):
    g = as_graph(nxg)
    g = g.replace(machine=Machine("toy", width, g.machine.units))
    m = mii(g)
    if m.joint is not None:   # the II below it has no schedule
        assert _feasible(g, m.value - 1) == "infeasible"


def test_swing_schedule_is_offered_when_ims_needs_too_many_registers():
    g = lecture_dag()
    ims_live = register_pressure(g, 2, modulo_schedule(g).cycle).max_live
    swing_live = register_pressure(g, 2, modulo_schedule(g, algorithm="swing").cycle).max_live
    assert swing_live < ims_live

    def accept(s):
        live = register_pressure(g, s.ii, s.cycle).max_live
        return True if live <= swing_live else f"needs {live} registers"
    s = modulo_schedule(g, accept=accept)
    assert (s.ii, s.algorithm) == (2, "swing")
    assert s.attempts[0].outcome == "IMS's schedule rejected; swing's accepted"


@pytest.mark.parametrize("accept, ii", [(lambda s: True, 2), (lambda s: s.ii > 2 or "no", 3)])
def test_an_accepted_ims_schedule_is_kept(accept, ii):
    s = modulo_schedule(lecture_dag(), accept=accept)
    assert s.ii == ii and s.algorithm == "ims"


IF_QUAD = """\t.text
\t.globl\tif_quad
\t.type\tif_quad,@function
if_quad:
\tori\t$a6, $zero, 1
\tblt\t$a0, $a6, .LBB1_5
\tbstrpick.d\t$a0, $a0, 31, 0
\tmovgr2fr.d\t$fa2, $zero
\tb\t.LBB1_3
.LBB1_2:
\tfst.d\t$fa6, $a2, 0
\tfst.d\t$fa5, $a1, 0
\taddi.d\t$a4, $a4, 8
\taddi.d\t$a3, $a3, 8
\taddi.d\t$a5, $a5, 8
\taddi.d\t$a1, $a1, 8
\taddi.d\t$a2, $a2, 8
\taddi.d\t$a0, $a0, -1
\tbeqz\t$a0, .LBB1_5
.LBB1_3:
\tfld.d\t$fa3, $a3, 0
\tfneg.d\t$fa4, $fa3
\tfmul.d\t$fa4, $fa4, $fa0
\tfld.d\t$fa5, $a5, 0
\tfmul.d\t$fa5, $fa4, $fa5
\tfld.d\t$fa4, $a4, 0
\tfmadd.d\t$fa7, $fa4, $fa4, $fa5
\tfcmp.cult.d\t$fcc0, $fa7, $fa2
\tfmov.d\t$fa6, $fa2
\tfmov.d\t$fa5, $fa2
\tbcnez\t$fcc0, .LBB1_2
\tfmul.d\t$fa3, $fa3, $fa1
\tfsqrt.d\t$fa5, $fa7
\tfsub.d\t$fa6, $fa5, $fa4
\tfneg.d\t$fa4, $fa4
\tfsub.d\t$fa4, $fa4, $fa5
\tfdiv.d\t$fa5, $fa4, $fa3
\tfdiv.d\t$fa6, $fa6, $fa3
\tb\t.LBB1_2
.LBB1_5:
\tret
"""


def test_cp_sat_takes_the_mii_where_ims_fragments_a_full_divider():
    """LCALS if_quad at -O2: fsqrt (36 cycles) and two fdiv (20 each) fill the divider at II
    76; IMS's first fit leaves it in pieces (II 77); CP-SAT, on its small budget, packs it."""
    res = pipeline_source(parse_source(IF_QUAD, "if_quad.s"), "la464")
    (loop,) = res.loops
    s = loop.schedule
    assert (s.ii, s.mii.value, s.algorithm) == (76, 76, "cp-sat")
    assert [a.outcome for a in s.attempts][-1] == "feasible (CP-SAT)"
    assert "if_quad:" in res.text and ".LBB1_3.kernel:" in res.text

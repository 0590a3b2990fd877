"""The exact solver (CP-SAT): legality against the independent verifiers, agreement with the
heuristic, proofs, determinism, and the command line (--exact, gap, errors)."""

import json
import re

import pytest
from hypothesis import given, settings, strategies as st

from schedcc import parse
from schedcc.cli import main
from schedcc.dag import build_dag
from schedcc.problem import Dep, Machine, Op, SchedGraph
from schedcc.sched import list_schedule, lower_bound
from schedcc.sched.cpsat import Limits
from schedcc.sched.exact import ExactStrategy, exact_schedule, left_shift
from schedcc.sched.exact_explain import costly_decisions
from schedcc.sched.exact_modulo import ExactModuloStrategy, exact_modulo_schedule
from schedcc.sched.solve import ModuloStrategy, solve
from schedcc.target import load_target
from schedcc.verifier import verify, verify_modulo, verify_schedule

from strategies import straight_line

TARGETS = {name: load_target(name) for name in ("mips4", "la464", "la664", "generic")}
QUICK = Limits(time_limit=2.0)


def _block(text):
    return parse(text).functions[0].blocks[0]


# -- legality and agreement on generated blocks (thousands in all, bounded time) -------------

@settings(max_examples=1500, deadline=None)
@given(straight_line(max_size=12), st.sampled_from(sorted(TARGETS)), st.sampled_from(["critical-path", "source"]))
def test_exact_and_heuristic_agree_on_legality(text, target_name, priority):
    """Both schedules pass both verifiers; the exact one is never longer than the heuristic's,
    never below the lower bound, and proven optimal on blocks this small. The source-order
    hint makes the solver search instead of stopping at a list schedule that meets the bound."""
    target = TARGETS[target_name]
    block = _block(text)
    g = build_dag(block, target)
    heuristic = list_schedule(g, priority=priority)
    s = exact_schedule(g, heuristic, QUICK)
    for sched in (heuristic, s):
        verify_schedule(g, sched.cycle, sched.unit)
        verify(block, target, sched.cycle, sched.unit)
    info = s.exact
    assert info.optimal
    assert lower_bound(g).value <= s.makespan == info.makespan <= heuristic.makespan == info.heuristic_makespan
    assert sorted(s.order) == list(range(len(g)))


@settings(max_examples=150, deadline=None)
@given(straight_line(min_size=4, max_size=16))
def test_exact_is_deterministic(text):
    g = build_dag(_block(text), TARGETS["la664"])
    first = list_schedule(g, priority="source")
    a, b = exact_schedule(g, first, QUICK), exact_schedule(g, first, QUICK)
    assert (a.cycle, a.unit, a.order) == (b.cycle, b.unit, b.order)


def _toy():
    alu = ("ALU",)
    return SchedGraph((Op("a", alu, 2, 2), Op("b", alu, 2), Op("c", alu, 4, 2), Op("d", alu, 1, 2)),
                      (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 2), Dep(0, 3, "RAW", 2)), Machine("toy", 1, alu))


def test_exact_beats_the_list_scheduler_and_names_the_costly_pick():
    g = _toy()
    s = solve(g, ExactStrategy(QUICK)).schedule
    assert (s.makespan, s.exact.heuristic_makespan, s.exact.status, s.exact.proof) == (8, 9, "optimal", "cp-sat")
    [d] = costly_decisions(g, s.exact.heuristic, s.makespan, QUICK)
    assert (d.node, d.cycle, d.lost, d.makespan_after, d.optimal_cycle) == (3, 3, 1, 9, 6)


def test_lower_bound_proof_skips_the_solver():
    g = build_dag(_block("a = b + c\nd = a + e\n"), TARGETS["mips4"])
    info = exact_schedule(g).exact
    assert (info.status, info.proof, info.seconds) == ("optimal", "lower bound", 0.0)


def test_time_limit_gives_best_and_bound():
    """A block too big to prove in 0.05 s: the answer is feasible, no worse than the heuristic,
    with a bound below it and the limit that stopped it."""
    import sys
    sys.path.insert(0, "bench")
    from gen_block import random_block
    g = build_dag(_block(random_block(200, 12)), TARGETS["mips4"])
    s = exact_schedule(g, limits=Limits(0.05))
    info = s.exact
    verify_schedule(g, s.cycle, s.unit)
    assert info.status == "feasible" and info.stopped in ("time limit", "CPU-time limit", "wall-clock limit")
    assert info.lower_bound < info.makespan <= info.heuristic_makespan and info.gap > 0


def test_left_shift_never_delays_and_respects_zero_length_busy():
    unit = ("U",)
    g = SchedGraph((Op("long", unit, 3, 3), Op("zero", unit, 0, 0), Op("next", unit, 1)), (),
                   Machine("toy", 3, unit))
    shifted = left_shift(g, {0: 0, 1: 5, 2: 7}, {0: "U", 1: "U", 2: "U"})
    verify_schedule(g, shifted, {0: "U", 1: "U", 2: "U"})
    assert shifted == {0: 0, 1: 0, 2: 3}


# -- modulo ----------------------------------------------------------------------------------

def _loop(path, target):
    from schedcc.swp.loops import find_loops, loop_dag
    loop = find_loops(parse(open(path).read()).functions[0])[0]
    return loop, loop_dag(loop, target)


def test_hydro_minimal_ii_is_proven_and_ims_reaches_it():
    target = TARGETS["la664"]
    loop, g = _loop("examples/loops/hydro.ir", target)
    s = solve(g, ExactModuloStrategy(QUICK, fresh_uses=frozenset(loop.address_only_uses())), bound=False).schedule
    verify_modulo(g, s.ii, s.cycle, s.unit, target.issue_width)
    assert (s.ii, s.mii.value, s.exact.status, s.exact.heuristic_ii) == (2, 2, "optimal", 2)
    assert s.exact.max_live_status == "optimal"


def test_exact_modulo_proves_infeasible_iis():
    """Three operations on one unit that is busy 2 cycles each, and a recurrence: II 6."""
    u = ("U",)
    g = SchedGraph(tuple(Op(f"n{k}", u, 2, occupancy=2) for k in range(3)),
                   (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 2), Dep(2, 0, "RAW", 2, distance=1)),
                   Machine("toy", 1, u))
    s = exact_modulo_schedule(g, limits=QUICK)
    verify_modulo(g, s.ii, s.cycle, s.unit)
    assert s.ii == 6 and s.exact.optimal and s.exact.heuristic is None


@pytest.mark.parametrize("name", ["axpy", "fir4", "iir1", "stencil5"])
def test_exact_ii_never_above_ims(name):
    target = TARGETS["la464"]
    _, g = _loop(f"examples/loops/{name}.ir", target)
    ims = solve(g, ModuloStrategy(), bound=False).schedule
    s = exact_modulo_schedule(g, ims, QUICK)
    verify_modulo(g, s.ii, s.cycle, s.unit, target.issue_width)
    assert s.mii.value <= s.ii <= ims.ii and s.exact.max_live <= _max_live(g, ims)


def _max_live(g, sched):
    from schedcc.sched.lifetimes import register_pressure
    return register_pressure(g, sched.ii, sched.cycle).max_live


# -- the command line ----------------------------------------------------------------------

def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_exact_json_has_the_exact_object(capsys):
    rc, out, _ = run(capsys, "examples/tiebreak.ir", "--target", "mips4", "--no-repair", "--exact",
                     "--format", "json")
    assert rc == 0
    exact = json.loads(out)["blocks"][0]["exact"]
    assert {k: exact[k] for k in ("status", "makespan", "lower_bound", "gap", "heuristic_makespan")} == \
        {"status": "optimal", "makespan": 16, "lower_bound": 16, "gap": 0.0, "heuristic_makespan": 18}


def test_cli_explain_exact_blames_a_pick(capsys):
    rc, out, _ = run(capsys, "examples/tiebreak.ir", "--target", "mips4", "--no-repair", "--exact", "--explain")
    assert rc == 0 and "6. Against the proven optimum" in out
    assert len(re.findall(r"- pick \d+ \(cycle \d+, #\d+ .*\): 1 cycle lost", out)) == 2


@pytest.mark.parametrize("argv, message", [
    (["examples/lecture.ir", "--exact", "--time-limit", "-1"], "--time-limit: '-1' is out of range: expected a number greater than 0"),
    (["examples/lecture.ir", "--exact", "--time-limit=nan"], "--time-limit: 'nan' is not a finite number"),
    (["examples/lecture.ir", "--exact", "--workers", "0"], "--workers: '0' is out of range: expected a whole number from 1 to 256"),
    (["examples/lecture.ir", "--exact", "--workers", str(2**70)], "--workers: '1180591620717411303424' is out of range"),
    (["gap", "schedcc/grammar_missing_dir"], "no such file or directory"),
])
def test_cli_bad_exact_options_are_located_errors(capsys, argv, message):
    rc, _, err = run(capsys, *argv)
    assert rc == 2 and message in err and "Traceback" not in err
    assert err.startswith("<command line>:1:") and "^" in err


def test_cli_gap_on_a_directory_without_inputs(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("nothing to schedule\n")
    rc, _, err = run(capsys, "gap", tmp_path, "--target", "mips4")
    assert rc == 2 and err.startswith("<command line>:1:13: error: ") and "has no input files" in err


def test_cli_gap_table_and_json(capsys):
    rc, out, _ = run(capsys, "gap", "examples", "--target", "mips4")
    assert rc == 0
    assert re.search(r"examples/tiebreak\.ir\s+1\s+16\s+16\s+0\.00%\s+1/1", out)
    assert re.search(r"^total\s+6\s+", out, re.M)
    rc, out, _ = run(capsys, "gap", "examples/ascend", "--target", "ascend910b", "--format", "json")
    rows = json.loads(out)["files"]
    assert rc == 0 and any("error" in r for r in rows) and all(r["proven"] == r["blocks"] for r in rows
                                                                if "error" not in r)


@pytest.mark.parametrize("name", ["hydro", "fir4", "iir2", "histogram"])
def test_exact_pipelined_code_computes_the_same(name):
    """The exact modulo schedule goes through the code generator: the pipelined program
    computes what the loop did (the interpreter, on the same arguments)."""
    from schedcc.sim.interp import format_result, run_program
    from schedcc.swp.pipeliner import pipeline_program
    prog = parse(open(f"examples/loops/{name}.ir").read())
    res = pipeline_program(prog, "la664", exact=QUICK)
    assert all(r.schedule.exact is not None for r in res.loops if r.pipelined)
    before = format_result(run_program(prog, array_size=40))
    after = format_result(run_program(res.transformed, array_size=40))
    assert before == after


def test_a_block_whose_hint_crashed_cp_sat_presolve_is_still_solved():
    """Found by the legality property test: OR-Tools 9.15 threw std::out_of_range
    (absl::btree_map::at) in presolve with this block's hint; it is solved without it."""
    text = ("r0 = r0 + r0\nr0 = r0 + r0\nr0 = r0 + r0\nr1 = call f(r0)\nr0 = r0 / r0\n"
            "r2 = load A[i + 0]\nr3 = load A[i + 0]\nr0 = r0 + r0\nr0 = load A[i + 0]\nr1 = load A[i + 0]\n")
    block = _block(text)
    g = build_dag(block, TARGETS["mips4"])
    heuristic = list_schedule(g, priority="critical-path")
    s = exact_schedule(g, heuristic, QUICK)
    verify_schedule(g, s.cycle, s.unit)
    verify(block, TARGETS["mips4"], s.cycle, s.unit)
    assert s.exact.optimal and s.makespan <= heuristic.makespan

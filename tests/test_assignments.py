"""The assignments in docs/assignments: every starter file is usable and every check command runs."""

import importlib.util
import re
from pathlib import Path

import pytest

from schedcc.cli import main

ROOT = Path(__file__).resolve().parent.parent
A = ROOT / "docs" / "assignments"


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out = capsys.readouterr()
    return rc, out.out + out.err


def test_at_least_five_exercises_each_with_a_starter_and_a_check_command():
    exercises = sorted(p for p in A.iterdir() if p.is_dir())
    assert len(exercises) >= 5
    for ex in exercises:
        text = (ex / "README.md").read_text()
        starters = [p for p in ex.iterdir() if p.suffix in (".ir", ".s", ".txt")]
        assert starters, ex
        assert re.search(r"schedcc (check|deps|run|\S+ --target)", text), ex


def test_ex1_dependences(capsys):
    ex = A / "01-dependences"
    rc, out = run(capsys, "deps", ex / "program.ir", "--target", "mips4", "--answer", ex / "my-deps.txt")
    assert rc == 1 and "right: 1" in out and "missing:" in out  # the starter is incomplete
    rc, out = run(capsys, "deps", ex / "program.ir", "--target", "mips4")
    assert rc == 0 and "#0 -> #7 WAR X[i] (memory)" in out


def test_ex2_weights(capsys):
    ex = A / "02-weighted-dag"
    rc, out = run(capsys, "deps", ex / "program.ir", "--target", "la464", "--answer", ex / "my-weights.txt")
    assert rc == 1 and "right: 1" in out and "no weight given for #6 " in out and "0 wrong, 7 missing" in out


def test_ex3_starter_is_a_legal_copy(capsys):
    ex = A / "03-list-schedule"
    rc, out = run(capsys, "check", ex / "mine.ir", "--against", ex / "program.ir", "--target", "mips4")
    assert rc == 0 and "schedcc           16 cycles" in out and "lower bound       15 cycles" in out


def test_ex4_a_priority_beats_critical_path(capsys):
    ex = A / "04-priorities"
    cycles = {}
    for p in ("critical-path", "successors", "source", "latency"):
        rc, out = run(capsys, ex / "program.ir", "--target", "mips4", "--no-repair", "--priority", p)
        assert rc == 0
        cycles[p] = int(re.search(r"makespan (\d+) cycles", out).group(1))
    assert min(cycles.values()) < cycles["critical-path"]


def test_ex5_loop_schedules_today(capsys):
    rc, out = run(capsys, A / "05-software-pipeline" / "loop.ir", "--target", "la464", "--show-pipeline")
    assert rc == 0 and "lecture_loop / loop: 8 instructions" in out


def test_ex5_pipeline_command(capsys):
    rc, out = run(capsys, A / "05-software-pipeline" / "loop.ir", "--target", "la464", "--pipeline")
    assert rc == 0


def _has_asm_front_end() -> bool:
    return importlib.util.find_spec("schedcc.frontends.loongarch_asm") is not None


@pytest.mark.skipif(not _has_asm_front_end(), reason="the LoongArch .s front end is not in this tree yet")
def test_ex6_loongarch(capsys):
    ex = A / "06-loongarch"
    rc, out = run(capsys, "check", ex / "mine.s", "--against", ex / "poly.s", "--target", "la464")
    assert rc == 0, out


def test_ex7_compiler_loops_are_pipelined_and_restrict_matters(capsys, tmp_path):
    ex = A / "07-pipeline-your-loops"
    rc, out = run(capsys, ex / "loops.ll", "--target", "la464", "--pipeline")
    assert rc == 0
    iis = dict(re.findall(r"^(@\w+) / \S+: software-pipelined[^\n]*\n(?:.*\n){2}  II (\d+)", out, flags=re.M))
    assert int(iis["@axpy"]) > 2 * int(iis["@axpy_restrict"])   # the memory recurrence without restrict
    rc, out = run(capsys, ex / "loops.s", "--target", "la464", "--pipeline", "-o", tmp_path / "loops.swp.s")
    assert rc == 0 and out.count("software-pipelined") == 3
    assert "sltui" in (tmp_path / "loops.swp.s").read_text()   # the run-time check of part C

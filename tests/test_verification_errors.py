"""A schedule that fails its verifier: the user's (an error in the input, exit 2) or
schedcc's own (a bug in schedcc, exit 3, said plainly, no traceback). Issue 19."""

import dataclasses

import pytest

from pathlib import Path

from schedcc import parse
from schedcc.cli import EXIT_INPUT, EXIT_UNVERIFIED, main
from schedcc.errors import SchedccError
from schedcc.target import load_target
from schedcc.verifier import ModuloVerificationError, VerificationError, verify

lecture_path = Path(__file__).resolve().parent.parent / "examples" / "lecture.ir"
LECTURE_GOOD = "t0 = t1 + t2\nt3 = t2 + t4\nt1 = t0 + t1\nt6 = t2 + t7\nt5 = t3 + t4\nt0 = t1 + t2\n"


def _all_at_cycle_0(real):
    """A scheduler gone wrong: its schedule with every instruction issued at cycle 0."""
    def broken(graph, *args, **kwargs):
        sched = real(graph, *args, **kwargs)
        return dataclasses.replace(sched, cycle={n: 0 for n in sched.cycle})
    return broken


def test_verification_errors_are_schedcc_errors():
    assert issubclass(VerificationError, SchedccError)
    assert issubclass(ModuloVerificationError, VerificationError)
    block = parse(LECTURE_GOOD).functions[0].blocks[0]
    with pytest.raises(SchedccError) as info:  # a user's schedule: every instruction at cycle 0
        verify(block, load_target("mips4"), {i: 0 for i in range(6)}, {i: "ALU" for i in range(6)})
    assert isinstance(info.value, VerificationError) and not info.value.internal
    assert "reads t0 before" in str(info.value) and len(info.value.violations) > 1


def test_schedccs_own_schedule_failing_verification_is_an_internal_error(monkeypatch, capsys):
    import importlib
    solve = importlib.import_module("schedcc.sched.solve")
    monkeypatch.setattr(solve, "list_schedule", _all_at_cycle_0(solve.list_schedule))
    rc = main([str(lecture_path), "--target", "mips4"])
    err = capsys.readouterr().err
    assert rc == EXIT_UNVERIFIED == 3
    assert err.startswith("schedcc: internal error: the schedule schedcc made fails verification: ")
    assert "this is a bug in schedcc, not in your input; please report it" in err
    assert "Traceback" not in err
    # with --no-verify nothing checks it: the (wrong) schedule is reported, exit 0
    assert main([str(lecture_path), "--target", "mips4", "--no-verify"]) == 0


def test_check_with_schedccs_list_schedule_wrong_is_an_internal_error(monkeypatch, capsys, tmp_path):
    import importlib
    grading = importlib.import_module("schedcc.teaching.grading")
    monkeypatch.setattr(grading, "list_schedule", _all_at_cycle_0(grading.list_schedule))
    (tmp_path / "mine.ir").write_text(LECTURE_GOOD)
    rc = main(["check", str(tmp_path / "mine.ir"), "--against", str(lecture_path), "--target", "mips4"])
    assert rc == 3
    assert "internal error: the schedule schedcc made fails verification" in capsys.readouterr().err


def test_check_a_users_order_failing_the_verifier_is_an_input_error(monkeypatch, capsys, tmp_path):
    # The student's order as issued, but (as if the DAG had missed its dependences) all at cycle 0:
    # the independent verifier refuses it; that is the user's order, not schedcc's bug.
    import importlib
    grading = importlib.import_module("schedcc.teaching.grading")
    real = grading.simulate_order
    monkeypatch.setattr(grading, "simulate_order",
                        lambda dag, order: dataclasses.replace(real(dag, order), cycle={n: 0 for n in order}))
    (tmp_path / "mine.ir").write_text(LECTURE_GOOD)
    rc = main(["check", str(tmp_path / "mine.ir"), "--against", str(lecture_path), "--target", "mips4"])
    err = capsys.readouterr().err
    assert rc == EXIT_INPUT == 2
    assert err.startswith("error: your order of main / entry fails the independent verifier: ")
    assert "internal" not in err and "Traceback" not in err

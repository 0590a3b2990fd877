"""Numbers on the command line (issue 21): every numeric option of every command is
read by a bounded type that names its range and why; a value out of range, NaN or
infinity is an error at its place on the command line (exit 2, nothing written);
errors that name an option point at it; the layout rules are the same for
``gen`` and ``plan``."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedcc.cli import COMMANDS, build_parser, main
from schedcc.commands.values import Bounded, usage_error
from schedcc.errors import SchedccError, check_range, describe_range
from schedcc.training.limits import SIZES, check_layout


def _numeric_actions():
    for command in [None, *COMMANDS]:
        parser = build_parser(command)
        for action in parser._actions:
            if action.option_strings and action.type is not None:
                yield command or "schedcc", action


def test_every_numeric_option_is_bounded_and_says_why():
    loose = [f"{cmd} {a.option_strings[-1]}" for cmd, a in _numeric_actions()
             if a.type in (int, float) or (isinstance(a.type, Bounded) and not a.type.why)]
    assert not loose, f"use schedcc.commands.values.whole/real: {loose}"
    bounded = [a for _, a in _numeric_actions() if isinstance(a.type, Bounded)]
    assert len(bounded) > 40
    for action in bounded:  # every default is inside its own range
        if isinstance(action.default, (int, float)):
            assert action.type.lo <= action.default <= action.type.hi, action.option_strings


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e400", str(2**70), "1e9", "-1", "abc", "0x", ""])
def test_bounded_values_refuse_what_is_out_of_range(text):
    for kind in (Bounded(1, 1000, "why", integer=True), Bounded(0, 1000, "why", integer=False, above=True)):
        with pytest.raises(argparse.ArgumentTypeError) as err:
            kind(text)
        assert "expected a" in str(err.value) and "(why)" in str(err.value)


@given(st.integers(1, 1000))
def test_bounded_values_read_what_is_in_range(n):
    assert Bounded(1, 1000, "why", integer=True)(str(n)) == n
    assert Bounded(1, 1000, "why", integer=True)(f"{n:.0e}".replace("+", "")) == int(float(f"{n:.0e}"))


@pytest.mark.parametrize("argv, option", [
    (["gen", "transformer", "--layers", "1e6"], "--layers"),
    (["gen", "transformer", "--hidden", str(2**70)], "--hidden"),
    (["train", "x.ir", "--target", "h100-8x", "--iterations", "1e9"], "--iterations"),
    (["train", "x.ir", "--target", "h100-8x", "--credit-mb", "1e300"], "--credit-mb"),
    (["train", "x.ir", "--target", "h100-8x", "--partition-mb", "nan"], "--partition-mb"),
    (["train", "x.ir", "--target", "h100-8x", "--bucket-mb", "nan"], "--bucket-mb"),
    (["train", "x.ir", "--target", "h100-8x", "--max-activation-gib", "-1"], "--max-activation-gib"),
    (["pipeline", "--stages", "1e6"], "--stages"),
    (["pipeline", "--microbatches", "1e7"], "--microbatches"),
    (["pipeline", "--virtual", "1e6"], "--virtual"),
    (["plan", "llama3-8b", "--gpus", "1e9", "--global-batch", "8", "--target", "dgx-h100"], "--gpus"),
    (["plan", "llama3-8b", "--gpus", "8", "--global-batch", str(2**70), "--target", "dgx-h100"], "--global-batch"),
    (["plan", "transformer", "--layers", "1e9", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"],
     "--layers"),
    (["run", "examples/loops/dot.ir", "--array-size", "1e9"], "--array-size"),
    (["examples/lecture.ir", "--exact", "--workers", "100000"], "--workers"),
    (["gen", "transformer", "--tp-comm-overlap", "1000000"], "--tp-comm-overlap"),
])
def test_runaway_values_are_located_errors(argv, option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path.parent if "examples" not in " ".join(argv) else __import__("pathlib").Path(
        __file__).resolve().parent.parent)
    assert main(argv) == 2
    err = capsys.readouterr().err
    head = err.splitlines()[0]
    assert head.startswith("<command line>:1:") and f"error: {option}" in head and "^" in err, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("extra, words", [
    (["--hidden", "100", "--heads", "3"], "--hidden (100) must be a multiple of --heads (3)"),
    (["--hidden", "1024", "--heads", "8", "--tp", "16"], "--tp (16) must divide --heads (8)"),
    (["--sequence-parallel"], "--sequence-parallel needs tensor parallelism"),
    (["--zero"], "--zero shards over the data-parallel ranks"),
])
def test_gen_refuses_layouts_no_framework_runs(extra, words, capsys):
    assert main(["gen", "transformer", "--layers", "2", *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and err.startswith("<command line>:1:")


def test_plan_and_gen_share_the_layout_rules(capsys):
    assert main(["plan", "transformer", "--layers", "2", "--hidden", "100", "--heads", "3", "--seq", "128",
                 "--vocab", "1000", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"]) == 2
    assert "--hidden (100) must be a multiple of --heads (3)" in capsys.readouterr().err


def test_gen_refuses_sizes_whose_numbers_its_parser_would_refuse(capsys):
    assert main(["gen", "transformer", "--layers", "1", "--hidden", "262144", "--heads", "2048", "--seq", "1048576",
                 "--micro-batch", "4096", "--microbatches", "1"]) == 2
    assert "the IR's numbers are at most 1e18" in capsys.readouterr().err


@given(st.sampled_from(sorted(SIZES)), st.integers(-10, 2**40))
@settings(max_examples=60)
def test_size_ranges_are_checked_the_same_by_the_library(name, value):
    lim = SIZES[name]
    ok = lim.lo <= value <= lim.hi
    try:
        check_range(value, lim.lo, lim.hi, name, integer=True, why=lim.why)
        assert ok
    except SchedccError:
        assert not ok


def test_layout_rules_hold_for_valid_layouts():
    check_layout(hidden=8192, heads=64, kv_heads=8, tp=8, pp=8, dp=16, layers=80, sequence_parallel=True,
                 zero=True, seq=4096)


def test_usage_errors_name_and_point_at_their_option():
    err = usage_error(["train", "x.ir", "--policy", "nosuch"], "schedcc train",
                      "argument --policy: invalid choice: 'nosuch'")
    assert err.render().startswith("<command line>:1:29: error: --policy: invalid choice")


def bounds_table() -> str:
    """The table of docs/cli.md's 'Numbers' section, made from the parsers themselves."""
    rows = {}
    for cmd, action in _numeric_actions():
        if isinstance(action.type, Bounded):
            name = action.option_strings[-1]
            t = action.type
            rng = describe_range(t.lo, t.hi, t.integer, t.above).replace("a whole number ", "").replace("a number ", "")
            rows.setdefault((name, rng, t.why), []).append(cmd)
    lines = ["| option | commands | range | why it ends there |", "|---|---|---|---|"]
    for (name, rng, why), cmds in sorted(rows.items()):
        lines.append(f"| `{name}` | {', '.join(sorted(set(cmds)))} | {rng} | {why} |")
    return "\n".join(lines)


def test_docs_list_every_bound():
    from pathlib import Path
    doc = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text()
    table = bounds_table()
    assert table in doc, "docs/cli.md's 'Numbers' table is out of date; it should read:\n" + table


@pytest.mark.parametrize("argv, option", [
    (["examples/lecture.ir", "--target", "mips4", "--tiles", "3"], "--tiles"),
    (["examples/lecture.ir", "--target", "mips4", "--buffers", "2"], "--buffers"),
    (["examples/lecture.ir", "--target", "mips4", "--no-code"], "--no-code"),
    (["examples/lecture.ir", "--target", "mips4", "--time-limit", "5"], "--time-limit"),
    (["examples/lecture.ir", "--target", "mips4", "--workers", "2"], "--workers"),
    (["examples/lecture.ir", "--target", "mips4", "--modulo", "swing"], "--modulo"),
    (["examples/lecture.ir", "--target", "mips4", "--policy", "fifo"], "--policy"),
    (["examples/loops/dot.ir", "--target", "la464", "--pipeline", "--no-repair"], "--no-repair"),
    (["train", "examples/training/step.ir", "--target", "h100-8x", "--bucket-mb", "10"], "--bucket-mb"),
    (["train", "examples/training/step.ir", "--target", "h100-8x", "--policy", "ddp", "--partition-mb", "4"],
     "--partition-mb"),
    (["train", "examples/training/step.ir", "--target", "h100-8x", "--max-activation-gib", "4"],
     "--max-activation-gib"),
    (["gen", "transformer", "--layers", "2", "--policy", "fifo"], "--policy"),
    (["gen", "transformer", "--layers", "2", "--iterations", "5"], "--iterations"),
])
def test_an_option_that_has_no_effect_where_it_is_given_is_refused(argv, option, capsys):
    """Issue 21: options ignored where they do not apply (--tiles on a CPU target,
    --time-limit without --exact, ...) now say what they need."""
    import os
    os.chdir(Path(__file__).resolve().parent.parent)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: {option} has no effect here: it" in err and err.startswith("<command line>:1:")


def test_options_that_apply_to_one_of_the_policies_compare_runs_are_kept(capsys):
    import os
    os.chdir(Path(__file__).resolve().parent.parent)
    assert main(["compare", "examples/training/step.ir", "--target", "h100-8x", "--bucket-mb", "10"]) == 0

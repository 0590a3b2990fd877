"""What issue 21's fuzz found in values and error locations, one reproducer each: every bad
value is exit 2 with ``file:line:col: error:`` or ``<command line>:1:COL: error:`` at the
culprit, never an internal error, a runaway or exit 0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedcc.cli import main

ROOT = Path(__file__).resolve().parent.parent
LOCATED = re.compile(r"^(\S.*?):(\d+):(\d+): error: ")
BIG = "9" * 5000
LL = "define i32 @f(i32 %a, ptr %p) {{\nentry:\n{body}  ret i32 %a\n}}\n"


def run(argv, capsys):
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    return code, err


def where(err: str) -> tuple[str, int, int]:
    m = LOCATED.match(err.splitlines()[0])
    assert m, err
    return m.group(1), int(m.group(2)), int(m.group(3))


@pytest.mark.parametrize("body,col", [
    (f"  %x = add i32 %a, {BIG}\n", 20),
    (f"  %x = add i{BIG} 1, 2\n", 12),
])
def test_an_ll_integer_of_thousands_of_digits_is_an_error_at_it(tmp_path, capsys, monkeypatch, body, col):
    monkeypatch.chdir(tmp_path)
    Path("f.ll").write_text(LL.format(body=body))
    code, err = run(["f.ll", "--target", "la464"], capsys)
    assert code == 2 and where(err) == ("f.ll", 3, col) and "5,000 digits" in err


@pytest.mark.parametrize("line,col", [(f"#{BIG} -> #1 RAW a", 2), (f"#0 -> #1 RAW a (+{BIG})", 18)])
def test_a_deps_answer_with_a_huge_number_is_an_error_at_it(tmp_path, capsys, monkeypatch, line, col):
    monkeypatch.chdir(tmp_path)
    Path("a.txt").write_text(line + "\n")
    program = str(ROOT / "docs/assignments/01-dependences/program.ir")
    code, err = run(["deps", program, "--target", "mips4", "--answer", "a.txt"], capsys)
    assert code == 2 and where(err) == ("a.txt", 1, col)


@pytest.mark.parametrize("setting,words", [
    (f"ascend.event_ids={2**70}", "from 1 to 64"),
    ("ascend.event_ids=0", "from 1 to 64"),
    ("classes.copy_in.params.bandwidth=-1", "greater than 0"),
    ("classes.copy_in.params.bandwidth=0", "greater than 0"),
    ("classes.copy_in.params.startup=-1", "from 0 to 1,000,000"),
    ("classes.copy_in.params.startup=1e9", "from 0 to 1,000,000"),
])
def test_ascend_parameters_are_bounded(capsys, setting, words):
    kernel = str(ROOT / "examples/ascend/vector_add.ir")
    code, err = run([kernel, "--target", "ascend", "--set", setting], capsys)
    assert code == 2 and words in err and where(err)[0] == "<command line>"


def test_ascend_copy_startup_of_zero_is_accepted(capsys):
    code, _ = run([str(ROOT / "examples/ascend/vector_add.ir"), "--target", "ascend", "--set",
                   "classes.copy_in.params.startup=0"], capsys)
    assert code == 0


@pytest.mark.parametrize("old,new,key", [
    ("event_ids = 8", "event_ids = 100", "event_ids"),
    ("bandwidth = ", "bandwidth = -", "bandwidth"),
])
def test_ascend_errors_in_a_file_are_at_the_key(tmp_path, capsys, old, new, key):
    text = (ROOT / "targets/ascend910b.toml").read_text()
    assert old in text
    text = text.replace(old, new, 1)
    path = tmp_path / "a.toml"
    path.write_text(text)
    code, err = run([str(ROOT / "examples/ascend/vector_add.ir"), "--target", str(path)], capsys)
    file, line, col = where(err)
    assert code == 2 and file == str(path) and key in text.splitlines()[line - 1][col - 1:]


@pytest.mark.parametrize("argv,column_text", [
    (["targets", "--show=nosuch"], "nosuch"),
    (["targets", "--show="], ""),
    (["nosuch.ir"], "nosuch.ir"),
    (["run", "LOOP", "--set=nosuch=5"], "nosuch"),
    (["run", "LOOP", "--set", "nosuch=5"], "nosuch"),
    (["run", "LOOP", "--set=n=1e-400"], "n=1e-400"),
    (["deps", "LECTURE", "--block", "nosuch"], "nosuch"),
    (["LECTURE", "--target", "nosuch"], "nosuch"),
    (["pipeline", "--memory-limit=2.5"], "2.5"),
    (["pipeline", "--memory-limit=20GiB"], "20GiB"),
    (["pipeline", "--memory-limit=5s"], "5s"),
    (["plan", "transformer", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"], None),
])
def test_command_line_errors_point_at_the_culprit(capsys, argv, column_text):
    paths = {"LOOP": str(ROOT / "examples/loops/dot.ir"), "LECTURE": str(ROOT / "examples/lecture.ir")}
    argv = [paths.get(a, a) for a in argv]
    code, err = run(argv, capsys)
    file, _, col = where(err)
    line = "schedcc " + " ".join(argv)
    assert code == 2 and file == "<command line>"
    if column_text is None:  # what is missing: after the last word
        assert col == len(line) + 2
    else:
        assert line[col - 1:].startswith(column_text)


@pytest.mark.parametrize("policies,words", [
    ("nosuch", "unknown policy 'nosuch'"), ("fifo,fifo", "'fifo' is named twice"), (",", "names no policy"),
])
def test_compare_policies(tmp_path, capsys, policies, words):
    code, err = run(["compare", str(tmp_path / "absent.ir"), "--target", "h100-8x", f"--policies={policies}"], capsys)
    assert code == 2 and words in err and where(err)[0] == "<command line>"


def test_run_set_that_rounds_to_zero_is_refused_and_zero_is_not(capsys):
    loop = str(ROOT / "examples/loops/dot.ir")
    assert run(["run", loop, "--set", "n=1e-400"], capsys)[0] == 2
    assert run(["run", loop, "--set", "n=0e5"], capsys)[0] == 0


@pytest.mark.parametrize("fix,words", [("", "names no dimension"), (",", "names no dimension"),
                                       ("tp=2,tp=2", "gives tp=2 twice")])
def test_plan_fix_empty_or_repeated(capsys, fix, words):
    code, err = run(["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100",
                     f"--fix={fix}"], capsys)
    assert code == 2 and words in err and where(err)[0] == "<command line>"


def test_pipeline_unit_costs_of_no_work(capsys):
    code, err = run(["pipeline", "--unit-costs=F=0,B=0"], capsys)
    assert code == 2 and "both 0" in err and where(err)[0] == "<command line>"


def test_ascend_buffer_capacity_is_bounded(capsys):
    code, err = run([str(ROOT / "examples/ascend/vector_add.ir"), "--target", "ascend", "--set",
                     f"ascend.buffers.UB.capacity={2**70}"], capsys)
    assert code == 2 and "4 GiB" in err


@pytest.mark.parametrize("body,words", [
    ("  %x = add i4294967296 1, 2\n", "from 1 to 8,388,607 bits"),
    ("  %x = alloca [4294967296 x [4294967296 x i64]]\n", "sizes types in 64 bits"),
    ("  %x = getelementptr [4 x i32], ptr %p, i64 0, i64 " + "9" * 40 + "\n", "does not fit in i64"),
    ("  %x = alloca <4294967296 x i32>\n", "in 32 bits"),
    ("  %x = alloca i32, align " + "9" * 30 + "\n", "powers of 2"),
    ("  %x = alloca i32, align 3\n", "powers of 2"),
    ("  %x = fadd double 1.0e400, 1.0\n", "overflows double"),
    ("  %x = fadd double 0x" + "F" * 100 + ", 1.0\n", "0x and 16 digits"),
])
def test_ll_values_llvm_refuses_are_refused(tmp_path, capsys, monkeypatch, body, words):
    monkeypatch.chdir(tmp_path)
    Path("f.ll").write_text(LL.format(body=body))
    code, err = run(["f.ll", "--target", "la464"], capsys)
    assert code == 2 and words in err and where(err)[:2] == ("f.ll", 3)


@pytest.mark.parametrize("body", ["  %x = add i8 %a, 255\n", "  %x = add i64 %a, -1\n",
                                  "  %x = fadd double 0x3FF0000000000000, 1.0\n", "  %x = alloca i32, align 16\n"])
def test_ll_values_llvm_accepts_are_accepted(tmp_path, capsys, monkeypatch, body):
    monkeypatch.chdir(tmp_path)
    Path("f.ll").write_text(LL.format(body=body))
    assert run(["f.ll", "--target", "la464"], capsys)[0] == 0

"""schedcc deps: the full list of dependences, and checking a student's list."""

from schedcc import parse
from schedcc.cli import main
from schedcc.teaching.deps_answer import all_dependences, check_answer

LECTURE_ANSWER = """\
# all the dependences of the lecture's example
#0 -> #1 RAW t0
#0 -> #1 WAR t1
#0 -> #3 WAW t0
#1 -> #3 RAW t1
#2 -> #4 RAW t3
#0 weight 6
#1 weight 3
#2 weight 3
#3 weight 0
#4 weight 0
#5 weight 0
"""


def test_lecture_dependences(lecture_text):
    block = parse(lecture_text).functions[0].blocks[0]
    deps = [str(d) for d in all_dependences(block, "mips4")]
    assert deps == ["#0 -> #1 RAW t0", "#0 -> #1 WAR t1", "#0 -> #3 WAW t0", "#1 -> #3 RAW t1",
                    "#1 -> #3 WAR t0", "#2 -> #4 RAW t3"]


def test_right_answer(lecture_text):
    block = parse(lecture_text).functions[0].blocks[0]
    report = check_answer(block, "mips4", LECTURE_ANSWER)
    assert report.ok and report.weights_checked == 6


def test_wrong_and_missing(lecture_text):
    block = parse(lecture_text).functions[0].blocks[0]
    report = check_answer(block, "mips4", "#0 -> #1 RAW t0\n#0 -> #2 RAW t2\n#1 weight 4\n", "mine.txt")
    assert not report.ok
    assert report.wrong[0].startswith("mine.txt:2: #0 -> #2 RAW t2: no such dependence")
    assert any(m.startswith("#4 t5 = t3 + t4 depends on 1 more instruction") for m in report.missing)
    assert any("#1 weight 4" in w for w in report.wrong)
    assert [m for m in report.missing if m.startswith("no weight given")] == [
        "no weight given for #0 t0 = t1 + t2", "no weight given for #2 t3 = t2 + t4",
        "no weight given for #3 t0 = t1 + t2", "no weight given for #4 t5 = t3 + t4",
        "no weight given for #5 t6 = t2 + t7"]


def test_memory_dependences():
    block = parse("store A[i], x\ny = load A[i]\nz = load A[i+1]\n").functions[0].blocks[0]
    assert [str(d) for d in all_dependences(block, "mips4")] == ["#0 -> #1 RAW A[i] (memory)"]
    assert check_answer(block, "mips4", "#0 -> #1 RAW A[i]\n").ok


def test_cli_exit_status(tmp_path, capsys, root):
    ans = tmp_path / "mine.txt"
    ans.write_text(LECTURE_ANSWER)
    lecture = str(root / "examples" / "lecture.ir")
    assert main(["deps", lecture, "--target", "mips4", "--answer", str(ans)]) == 0
    assert "result: all right" in capsys.readouterr().out
    ans.write_text("#0 -> #1 RAW t0\n")
    assert main(["deps", lecture, "--target", "mips4", "--answer", str(ans)]) == 1
    ans.write_text("#0 => #1\n")
    assert main(["deps", lecture, "--target", "mips4", "--answer", str(ans)]) == 2
    assert "mine.txt:1:1: error: cannot read this line" in capsys.readouterr().err
    assert main(["deps", lecture, "--target", "mips4"]) == 0
    assert "#1 -> #3 WAR t0 (+0)" in capsys.readouterr().out


def test_the_lines_deps_prints_are_an_answer(tmp_path, capsys, root):
    """The dependence and weight lines `deps` prints (with '(memory)' and the wait '(+3)')."""
    lecture = str(root / "examples" / "lecture.ir")
    memory = tmp_path / "m.ir"
    memory.write_text("store A[i], x\ny = load A[i]\nz = y + 1\nr = call f(z)\nret z\n")
    for program in (lecture, str(memory)):
        assert main(["deps", program, "--target", "mips4"]) == 0
        printed = capsys.readouterr().out.splitlines()
        weights = printed[[k for k, line in enumerate(printed) if line.startswith("node weights")][0] + 1]
        lines = [line for line in printed if " -> " in line] + [weights]
        assert any("(+3)" in line for line in lines)
        ans = tmp_path / "mine.txt"
        ans.write_text("\n".join(lines) + "\n")
        assert main(["deps", program, "--target", "mips4", "--answer", str(ans)]) == 0
        assert "result: all right" in capsys.readouterr().out
    ans.write_text("#0 -> #1 RAW A[i] (memory) (+2)\n#0 -> #1 RAW A[i] (+3)\n")
    block = parse(memory.read_text()).functions[0].blocks[0]
    report = check_answer(block, "mips4", ans.read_text(), "mine.txt")
    assert report.wrong == ["mine.txt:1: #0 -> #1 RAW A[i] (memory) (+2): the dependence is right, "
                            "but #1 waits 3 cycles after #0 issues, not 2"]
    assert report.right == ["#0 -> #1 RAW A[i] (+3)"]


def test_an_empty_answer_is_not_all_right(tmp_path, capsys, root, lecture_text):
    block = parse(lecture_text).functions[0].blocks[0]
    assert not check_answer(block, "mips4", "").ok
    assert not check_answer(block, "mips4", "# only a comment\n\n").ok
    ans = tmp_path / "mine.txt"
    for text in ("", "# nothing yet\n"):
        ans.write_text(text)
        assert main(["deps", str(root / "examples" / "lecture.ir"), "--target", "mips4", "--answer", str(ans)]) == 1
        out = capsys.readouterr().out
        assert "result: nothing answered" in out and "all right" not in out

"""Outputs never replace what the user had (issue 10): FIFOs and devices are
written in place, ``-o -`` is standard output, a failed run writes nothing."""

import os
import stat
import threading
from pathlib import Path

import pytest

from schedcc.cli import main
from schedcc.errors import SchedccError
from schedcc.fileio import transaction, write_output

ROOT = Path(__file__).resolve().parent.parent
LECTURE = str(ROOT / "examples" / "lecture.ir")


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_fifo_is_written_to_not_replaced(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()))
    reader.start()
    code, _, err = run([LECTURE, "--target", "mips4", "-o", fifo], capsys)
    reader.join(timeout=20)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and "t0 = t1 + t2" in got[0]


def test_dev_null_stays_a_device(capsys):
    before = os.stat("/dev/null")
    code, _, err = run([LECTURE, "--target", "mips4", "-o", "/dev/null"], capsys)
    after = os.stat("/dev/null")
    assert code == 0, err
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_dev_full_is_a_located_write_error(capsys):
    code, _, err = run([LECTURE, "--target", "mips4", "-o", "/dev/full"], capsys)
    assert code == 2 and "cannot write '/dev/full'" in err and "Traceback" not in err
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_dash_is_standard_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run([LECTURE, "--target", "mips4", "--format", "json", "-o", "-"], capsys)
    assert code == 0 and not (tmp_path / "-").exists()
    assert out.rstrip().endswith("t0 = t1 + t2")  # the program follows the JSON report


def test_gen_and_report_to_standard_output(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["gen", "transformer", "--layers", "1", "--hidden", "256", "--seq", "64",
                          "--microbatches", "1", "-o", "-"], capsys)
    assert code == 0 and out.startswith("# transformer") and not (tmp_path / "-").exists()
    code, out, err = run(["report", LECTURE, "--target", "mips4", "-o", "-"], capsys)
    assert code == 0 and out.lstrip().startswith("<!DOCTYPE html>") and "wrote -" in err


def test_failed_run_writes_none_of_its_outputs(tmp_path, capsys):
    """Reproducer: `schedcc in.ir -o good.ir --emit-dag nodir/x.svg` used to write good.ir."""
    good = tmp_path / "good.ir"
    code, _, err = run([LECTURE, "--target", "mips4", "-o", good, "--emit-dag", tmp_path / "nodir" / "x.svg"],
                       capsys)
    assert code == 2 and "directory" in err and "does not exist" in err
    assert not good.exists()


def test_failure_after_staging_writes_nothing(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    b.write_text("precious")
    with pytest.raises(SchedccError):
        with transaction():
            write_output(a, "new a")
            write_output(b, "new b")
            raise SchedccError("a later step fails")
    assert not a.exists() and b.read_text() == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"]  # no temporary file left


def test_commit_writes_every_output(tmp_path):
    with transaction():
        write_output(tmp_path / "a.svg", "<svg/>")
        write_output(tmp_path / "b.bin", b"\x89PNG")
    assert (tmp_path / "a.svg").read_text() == "<svg/>" and (tmp_path / "b.bin").read_bytes() == b"\x89PNG"


def test_symlink_output_writes_its_target(tmp_path):
    real = tmp_path / "real.ir"
    real.write_text("old")
    link = tmp_path / "link.ir"
    link.symlink_to(real)
    write_output(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_training_outputs_checked_before_work(tmp_path, capsys):
    step = tmp_path / "s.ir"
    code, _, _ = run(["gen", "transformer", "--layers", "1", "--hidden", "256", "--seq", "64",
                      "--microbatches", "1", "--dp", "2", "-o", step], capsys)
    assert code == 0
    trace = tmp_path / "t.json"
    code, _, err = run(["train", step, "--target", "h100-8x", "--trace", trace,
                        "--timeline", tmp_path / "nodir" / "t.svg"], capsys)
    assert code == 2 and "does not exist" in err and not trace.exists()


def _cli(args, **kw):
    import subprocess
    import sys
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-m", "schedcc.cli", *map(str, args)], **kw)


def test_dev_stdout_redirected_keeps_the_report(tmp_path):
    """Reproducer: `-o /dev/stdout > out.txt` re-opened out.txt and kept only the program."""
    out = tmp_path / "out.txt"
    with open(out, "wb") as f:
        proc = _cli([LECTURE, "--target", "mips4", "-o", "/dev/stdout"], stdout=f)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "makespan" in text and text.rstrip().endswith("t0 = t1 + t2")
    assert text.index("makespan") < text.rindex("t0 = t1 + t2")


def test_refused_outputs(tmp_path, capsys):
    for args, words in ((["-o", ""], "output file name is empty"),
                        (["-o", "/dev/stdin"], "standard input"),
                        (["-o", LECTURE], "refusing to overwrite the input file"),
                        (["-o", tmp_path / "a.ir", "--emit-dag", tmp_path / "a.ir"], "both write")):
        code, _, err = run([LECTURE, "--target", "mips4", *args], capsys)
        assert code == 2 and words in err, (args, err)
    assert list(tmp_path.iterdir()) == []


def test_redirected_standard_input_is_not_an_output(tmp_path):
    """Reproducer: `-o /dev/stdin < in.ir` (and naming in.ir itself) overwrote the input."""
    src = tmp_path / "in.ir"
    src.write_text(Path(LECTURE).read_text())
    for out in ("/dev/stdin", src):
        with open(src, "rb") as f:
            proc = _cli(["-", "--target", "mips4", "-o", out], stdin=f)
        assert proc.returncode == 2 and b"input" in proc.stderr, proc.stderr
    assert src.read_text() == Path(LECTURE).read_text()


def test_target_file_is_not_an_output(tmp_path, capsys):
    from schedcc.resources import targets_dir
    toml = tmp_path / "m.toml"
    toml.write_text((targets_dir() / "mips4.toml").read_text())
    code, _, err = run([LECTURE, "--target", toml, "-o", toml], capsys)
    assert code == 2 and "input file" in err and toml.read_text().startswith(
        (targets_dir() / "mips4.toml").read_text()[:20])


def test_wrote_only_after_the_commit(tmp_path, capsys):
    """`report -o /dev/full` fails at the commit: no "wrote" line, exit 2; a good run says it after."""
    code, out, err = run(["report", LECTURE, "--target", "mips4", "-o", "/dev/full"], capsys)
    assert code == 2 and "wrote" not in out + err and "/dev/full" in err
    code, out, err = run(["report", LECTURE, "--target", "mips4", "-o", tmp_path / "r.html"], capsys)
    assert code == 0 and "wrote" in out and (tmp_path / "r.html").exists()


def test_interrupt_removes_staged_outputs(tmp_path):
    (tmp_path / "b.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with transaction():
            write_output(tmp_path / "a.txt", "a")
            write_output(tmp_path / "b.txt", "b")
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.txt"] and (tmp_path / "b.txt").read_text() == "old"


FULL = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")


@FULL
@pytest.mark.parametrize("args", [[LECTURE, "--target", "mips4"], ["targets"], ["--help"],
                                  ["report", LECTURE, "--target", "mips4", "-o", "-"]])
def test_standard_output_full_is_an_error(args):
    """Reproducer: `schedcc lecture.ir --target mips4 > /dev/full` ended in "internal error: OSError"."""
    with open("/dev/full", "wb") as full:
        proc = _cli(args, stdout=full)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert err.splitlines() == ["error: cannot write standard output: No space left on device"], err


@FULL
def test_standard_output_full_writes_no_file(tmp_path):
    out = tmp_path / "out.ir"
    with open("/dev/full", "wb") as full:
        proc = _cli([LECTURE, "--target", "mips4", "-o", out], stdout=full)
    assert proc.returncode == 2 and b"no output file was written" in proc.stderr and not out.exists()
    assert list(tmp_path.iterdir()) == []


@FULL
def test_standard_error_full_still_exits_2():
    with open("/dev/full", "wb") as full:
        proc = _cli([LECTURE, "--target", "nosuchtarget"], stderr=full)
    assert proc.returncode == 2

"""The "Outputs" bullet of issue 21, item by item (reproducers).

* a run failing while writing one output (``-o`` a FIFO whose reader goes away)
  had already replaced another (``--emit-dag d.dot``): :func:`test_fifo_reader_gone`;
* a signal at the final rename left one output new and another old, or a
  ``.NAME.XXXX`` temporary file: :func:`test_signal_at_the_final_rename` (and
  tests/test_output_faults.py, the same with strace's fault injection);
* ``-o /dev/stdout > out.txt`` kept only the program: test_output_safety.py,
  ``test_dev_stdout_redirected_keeps_the_report``;
* ``-o /dev/stdin < in.ir`` overwrote the input: test_output_safety.py,
  ``test_redirected_standard_input_is_not_an_output``;
* ``-o ''`` was silently ignored: :func:`test_empty_output_name_refused` (every output option);
* ``report -o ro/r.html`` printed "wrote ..." before failing:
  :func:`test_report_into_read_only_directory` and :func:`test_no_wrote_when_the_commit_fails`;
* the input file itself as an output: :func:`test_input_file_refused_as_output`.
"""

import fcntl
import os
import select
import signal
import threading
from pathlib import Path

import pytest

from schedcc.cli import main
from schedcc.fileio import commit as commit_module

ROOT = Path(__file__).resolve().parent.parent
LECTURE = str(ROOT / "examples" / "lecture.ir")
STEP = str(ROOT / "examples" / "training" / "step.ir")


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _said_wrote(text: str) -> bool:
    return any(line.startswith("wrote") for line in text.splitlines())


def _big_program(path: Path, n: int = 400) -> None:
    path.write_text("".join(f"t{i + 8} = t{i % 7} + t{(i * 3) % 7}\n" for i in range(n)) + "ret t8\n")


def test_fifo_reader_gone(tmp_path, capsys):
    """The FIFO's reader opens it and goes away without reading: the run fails (exit 2,
    one error naming the FIFO), and the regular output it also had stays old."""
    src = tmp_path / "in.ir"
    _big_program(src)
    fifo, dag = tmp_path / "pipe", tmp_path / "d.dot"
    os.mkfifo(fifo)
    dag.write_text("OLD")

    # The reader end, open before the run (non-blocking) with room for 4 KiB: the program is
    # larger, so the writer blocks until the reader goes away once the first bytes are in.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
    except OSError:
        pass

    def reader():
        select.select([fd], [], [], 60)
        os.close(fd)

    t = threading.Thread(target=reader)
    t.start()
    code, _, err = run([src, "--target", "mips4", "-o", fifo, "--emit-dag", dag], capsys)
    t.join(timeout=30)
    assert code == 2, err
    assert f"cannot write '{fifo}': the reader went away (broken pipe)" in err
    assert not _said_wrote(err) and "Traceback" not in err
    assert dag.read_text() == "OLD"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.dot", "in.ir", "pipe"]


@pytest.mark.parametrize("existing", [True, False], ids=["old-outputs", "new-outputs"])
def test_signal_at_the_final_rename(tmp_path, capsys, monkeypatch, existing):
    """SIGTERM arriving as the last output is renamed into place: the commit finishes
    (all outputs new), no temporary file is left, the run exits 128 + 15."""
    outs = {"-o": tmp_path / "out.ir", "--emit-dag": tmp_path / "d.dot", "--emit-pipeline": tmp_path / "p.svg"}
    if existing:
        for p in outs.values():
            p.write_text("OLD")
    real_rename = os.rename
    renames = []

    def rename(*a, **kw):
        renames.append(a)
        if len(renames) == 1:  # the only plain rename of the commit is the last output's
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
        return real_rename(*a, **kw)

    monkeypatch.setattr(commit_module.os, "rename", rename)
    args = [LECTURE, "--target", "mips4"]
    for opt, p in outs.items():
        args += [opt, p]
    code, _, err = run(args, capsys)
    assert renames, "the commit renamed nothing"
    assert code == 128 + signal.SIGTERM, err
    assert "terminated by SIGTERM after writing its outputs" in err
    assert all(p.read_text() != "OLD" and p.stat().st_size > 0 for p in outs.values())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in outs.values())


@pytest.mark.parametrize("args,option", [
    ([LECTURE, "--target", "mips4", "-o"], "-o"),
    ([LECTURE, "--target", "mips4", "--emit-dag"], "--emit-dag"),
    ([LECTURE, "--target", "mips4", "--emit-pipeline"], "--emit-pipeline"),
    ([LECTURE, "--target", "ascend910b", "--emit-timeline"], "--emit-timeline"),
    (["report", LECTURE, "--target", "mips4", "-o"], "-o"),
    (["gen", "transformer", "--layers", "1", "-o"], "-o"),
    (["train", STEP, "--target", "h100-8x", "--trace"], "--trace"),
    (["train", STEP, "--target", "h100-8x", "--timeline"], "--timeline"),
    (["pipeline", "--stages", "2", "--microbatches", "2", "--trace"], "--trace"),
    (["pipeline", "--stages", "2", "--microbatches", "2", "--timeline"], "--timeline"),
])
def test_empty_output_name_refused(args, option, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run([*args, ""], capsys)
    assert code == 2 and f"{option}: the output file name is empty" in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_report_into_read_only_directory(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        code, out, err = run(["report", LECTURE, "--target", "mips4", "-o", ro / "r.html"], capsys)
    finally:
        ro.chmod(0o755)
    assert code == 2 and not _said_wrote(out + err) and "r.html" in err
    assert list(ro.iterdir()) == []


@pytest.mark.parametrize("step", ["stage", "install"])
def test_no_wrote_when_the_commit_fails(tmp_path, capsys, monkeypatch, step):
    """The commit fails (permission denied while staging, or at the rename into place, as
    in a read-only directory): exit 2, no "wrote", nothing written (for root, too)."""
    def denied(*a, **kw):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(commit_module, "_stage" if step == "stage" else "_install_one", denied)
    page = tmp_path / "r.html"
    code, out, err = run(["report", LECTURE, "--target", "mips4", "-o", page], capsys)
    assert code == 2, err
    assert f"cannot write '{page}': Permission denied" in err and not _said_wrote(out + err)
    assert list(tmp_path.iterdir()) == []


def test_input_file_refused_as_output(tmp_path, capsys):
    """The program, a --target file, a training step: never replaced by an output, and
    the error names the option (even when the input is only read after the outputs
    were checked, as a --target file is)."""
    src = tmp_path / "in.ir"
    src.write_text(Path(LECTURE).read_text())
    model = tmp_path / "m.svg"  # a model file with a picture's name: a path, so a --target file
    model.write_text((ROOT / "targets" / "h100-8x.toml").read_text())
    step = tmp_path / "step.ir"
    step.write_text(Path(STEP).read_text())
    before = {p: p.read_bytes() for p in (src, model, step)}
    for args, option in (([src, "--target", "mips4", "--emit-dag", src], "--emit-dag"),
                         (["report", src, "--target", "mips4", "-o", src], "-o"),
                         (["train", step, "--target", "h100-8x", "--trace", step], "--trace"),
                         (["train", step, "--target", model, "--timeline", model], "--timeline")):
        code, _, err = run(args, capsys)
        assert code == 2 and "refusing to overwrite the input file" in err and f"of {option}" in err, err
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.ir", "m.svg", "step.ir"]


def test_signal_ignored_at_the_start_stays_ignored_during_the_commit():
    """Found by the strace sweep run under nohup: SIGHUP (ignored) arriving while the commit
    blocks signals was taken as pending and ended the run with 129 after all outputs were
    written; an ignored signal stays ignored, a handled one still takes effect after."""
    from schedcc.fileio.signals import Interrupted, deferred, handled
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with handled():
            with deferred():
                signal.pthread_kill(threading.get_ident(), signal.SIGHUP)
            with pytest.raises(Interrupted):
                with deferred():
                    signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
    finally:
        signal.signal(signal.SIGHUP, old)

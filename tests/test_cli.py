"""The command line from Python: JSON schema (pinned by a golden file), pictures, fallbacks."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from schedcc.cli import main
from tools import needs

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_output_matches_golden(capsys):
    code, out, _ = run([ROOT / "examples/lecture.ir", "--target", "mips4", "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    doc["source"] = "examples/lecture.ir"  # independent of where the checkout is
    golden = GOLDEN / "lecture.json"
    if os.environ.get("SCHEDCC_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(doc, indent=2) + "\n")
    assert doc == json.loads(golden.read_text())


def test_json_schema_fields(capsys):
    _, out, _ = run([ROOT / "examples/lecture.ir", "--target", "la464", "--format", "json"], capsys)
    doc = json.loads(out)
    assert doc["target"] == {"name": "la464", "issue_width": 4,
                             "units": {"ALU": 4, "AGU": 2, "FPU": 2, "IDIV": 1, "FDIV": 1}}
    (block,) = doc["blocks"]
    assert set(block) >= {"function", "block", "instructions", "edges", "schedule", "makespan",
                          "original_makespan", "lower_bound"}
    assert set(block["instructions"][0]) >= {"id", "text", "opcode", "unit", "latency", "line"}
    assert set(block["edges"][0]) >= {"src", "dst", "kind", "latency", "reason"}
    assert set(block["schedule"][0]) == {"id", "cycle", "unit"}


@needs("dot")
def test_dag_picture_svg_png_dot(tmp_path, capsys):
    for suffix in ("svg", "png", "dot"):
        out = tmp_path / f"dag.{suffix}"
        code, _, err = run([ROOT / "examples/lecture.ir", "--target", "mips4", "--emit-dag", out], capsys)
        assert code == 0 and out.stat().st_size > 100, err
    assert (tmp_path / "dag.svg").read_text().lstrip().startswith(("<?xml", "<svg", "<!--"))
    assert (tmp_path / "dag.png").read_bytes()[:4] == b"\x89PNG"
    assert "digraph" in (tmp_path / "dag.dot").read_text()


def test_without_dot_writes_dot_text_and_says_how(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    out = tmp_path / "dag.svg"
    code, _, err = run([ROOT / "examples/lecture.ir", "--target", "mips4", "--emit-dag", out], capsys)
    assert code == 0
    assert not out.exists() and (tmp_path / "dag.dot").exists()
    assert len(err.strip().splitlines()) == 1 and "apt-get install graphviz" in err


def test_bad_picture_name_is_an_input_error(tmp_path, capsys):
    code, _, err = run([ROOT / "examples/lecture.ir", "--emit-dag", tmp_path / "dag.jpeg"], capsys)
    assert code == 2 and "use a .svg, .png, .pdf or .dot file name" in err


def test_failure_leaves_existing_outputs_alone(tmp_path, capsys):
    bad = tmp_path / "bad.ir"
    bad.write_text("x = 1 +\n")
    out = tmp_path / "out.ir"
    out.write_text("precious\n")
    code, _, _ = run([bad, "-o", out], capsys)
    assert code == 2 and out.read_text() == "precious\n"


@needs("dot")
def test_thirty_instruction_block_picture_is_readable(tmp_path, capsys):
    """Regression guard for the picture the issue asks to look at (examples/block30.ir)."""
    code, _, _ = run([ROOT / "examples/block30.ir", "--target", "la464", "--emit-dag", tmp_path / "d.svg"], capsys)
    assert code == 0 and (tmp_path / "d.svg").stat().st_size > 10_000


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "schedcc", "--version"], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0 and proc.stdout.startswith("schedcc ")


@pytest.mark.parametrize("args, where", [(["--format", "xml"], "xml"), (["--priority", "best"], "best"), ([], None)])
def test_usage_errors_exit_2(args, where, capsys):
    """A usage error is located like any input error: at its value on the command line."""
    argv = ([str(ROOT / "examples/lecture.ir")] if args else []) + args
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "usage:" not in err and "Traceback" not in err and "'schedcc --help' lists the options" in err
    if where:
        head, line, caret = err.splitlines()[:3]
        col = int(head.split(":")[2])
        assert head.startswith(f"<command line>:1:{col}: error: {args[0]}: ")
        assert line[2 + col - 1:].startswith(where) and caret.index("^") == 2 + col - 1
    else:
        assert "error: the following arguments are required: FILE" in err.splitlines()[0]


def test_two_outputs_to_one_file_is_refused(tmp_path, capsys):
    out = tmp_path / "same.svg"
    code, _, err = run([ROOT / "examples/lecture.ir", "--target", "mips4", "--emit-dag", out, "-o", out], capsys)
    assert code == 2 and "-o and --emit-dag both write" in err and not out.exists()

"""``schedcc FILE --pipeline``: JSON ``loops`` (pinned by a golden file), -o, --emit-kernel, errors."""

import json
import os
from pathlib import Path

from schedcc import parse
from schedcc.cli import main

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"


def run(args, capsys):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_loops_json_matches_golden(capsys):
    code, out, _ = run([ROOT / "examples/loops/lecture_cj.ir", "--target", "la464", "--pipeline",
                        "--format", "json"], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["blocks"] and doc["target"]["name"] == "la464"  # the list-scheduling document is kept
    loops = doc["loops"]
    golden = GOLDEN / "modulo-lecture-la464.json"
    if os.environ.get("SCHEDCC_UPDATE_GOLDEN"):
        golden.write_text(json.dumps(loops, indent=2) + "\n")
    assert loops == json.loads(golden.read_text())


def test_loops_json_fields(capsys):
    _, out, _ = run([ROOT / "examples/loops/distance2.ir", "--target", "la664", "--pipeline", "--format", "json"],
                    capsys)
    (loop,) = json.loads(out)["loops"]
    assert set(loop) >= {"function", "block", "res_mii", "rec_mii", "ii", "stages", "max_live", "registers",
                         "kernel", "edges"}
    assert set(loop["kernel"][0]) >= {"id", "cycle", "stage"}
    assert set(loop["edges"][0]) >= {"src", "dst", "kind", "latency", "distance"}
    # store A[i] feeds load A[i-2] two iterations later
    assert {"src": 3, "dst": 0, "kind": "MEM", "distance": 2} in \
        [{k: e[k] for k in ("src", "dst", "kind", "distance")} for e in loop["edges"]]
    assert loop["rec_mii"] == 3 and loop["ii"] >= 3


def test_unpipelined_loops_in_json(capsys):
    _, out, _ = run([ROOT / "examples/loops/not_pipelined.ir", "--target", "la464", "--pipeline",
                     "--format", "json"], capsys)
    loops = json.loads(out)["loops"]
    assert len(loops) == 4 and all(entry["ii"] is None and entry["reason"] for entry in loops)


def test_output_and_kernel_picture(tmp_path, capsys):
    out_ir, svg = tmp_path / "pipelined.ir", tmp_path / "kernel.svg"
    code, out, err = run([ROOT / "examples/loops/fir4.ir", "--target", "la464", "--pipeline", "-o", out_ir,
                          "--emit-kernel", svg], capsys)
    assert code == 0, err
    prog = parse(out_ir.read_text())
    assert [b.label for b in prog.functions[0].blocks][:3] == ["entry", "loop", "loop.pipe"] or \
        "loop.kernel" in [b.label for b in prog.functions[0].blocks]
    text = svg.read_text()
    assert text.startswith("<svg") and "pipelined: iteration 0" in text and "not pipelined: iteration 0" in text
    assert "stage 0" in text


def test_emit_kernel_alone_implies_pipeline(tmp_path, capsys):
    svg = tmp_path / "k.svg"
    code, out, _ = run([ROOT / "examples/loops/dot.ir", "--target", "la664", "--emit-kernel", svg], capsys)
    assert code == 0 and svg.exists() and "software-pipelined" in out


def test_output_never_overwrites_the_input(tmp_path, capsys):
    src = tmp_path / "loop.ir"
    src.write_text((ROOT / "examples/loops/sum.ir").read_text())
    code, _, err = run([src, "--target", "la464", "--pipeline", "-o", src], capsys)
    assert code == 2 and "refusing to overwrite" in err
    assert src.read_text() == (ROOT / "examples/loops/sum.ir").read_text()


def test_swing_option_reports_its_name(capsys):
    _, out, _ = run([ROOT / "examples/loops/lecture_cj.ir", "--target", "la464", "--pipeline", "--modulo", "swing"],
                    capsys)
    assert "(swing: Swing Modulo Scheduling (Llosa)" in out


def test_assembly_loops_are_pipelined_and_written_as_assembly(tmp_path, capsys):
    code, out, err = run([ROOT / "examples/frontends/kernel.s", "--target", "la464", "--pipeline"], capsys)
    assert code == 0
    assert "kernel / .LBB0_2: software-pipelined on la464" in out
    out_s = tmp_path / "k.s"
    code, out, err = run([ROOT / "examples/frontends/kernel.s", "--target", "la464", "--pipeline", "-o", out_s],
                         capsys)
    assert code == 0
    text = out_s.read_text()
    assert ".LBB0_2.kernel:" in text and "\tbnez\t$a4, .LBB0_2.orig" in text
    original = (ROOT / "examples/frontends/kernel.s").read_text().splitlines()
    label = next(k for k, line in enumerate(original) if line.startswith(".LBB0_2:"))
    assert text.splitlines()[:label + 1] == original[:label + 1]   # everything before the loop, byte for byte

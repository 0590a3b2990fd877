"""``schedcc plan`` on the command line: bad input exits 2 with a message (never a traceback)
and writes nothing; the good paths write the table, JSON, the picture and the report file."""

import json
import xml.etree.ElementTree as ET

import pytest

from schedcc.cli import main

TINY = ["transformer", "--layers", "8", "--hidden", "1024", "--heads", "16", "--seq", "2048", "--vocab", "32000"]
SMALL = TINY + ["--gpus", "16", "--global-batch", "32", "--target", "dgx-h100", "--fix", "pp=2,zero=1,microbatch=1",
                "--workers", "1", "--progress", "off"]
H100_1024 = ["--gpus", "1024", "--global-batch", "1024", "--target", "dgx-h100", "--workers", "1"]


def run(args, capsys):
    code = main(["plan", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, message", [
    (["llama3-70b", "--gpus", "1023", "--global-batch", "1024", "--target", "dgx-h100"],
     "no parallel configuration can use 1023 GPUs"),
    (TINY + ["--gpus", "64", "--global-batch", "7", "--target", "dgx-h100"], "global batch of 7"),
    (["llama3-70b", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"],
     "does not fit on 8 GPUs"),
    (["llama3-70", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"], "did you mean llama3-70b"),
    (["llama3-70b", *H100_1024, "--fix", "tp=8,pp=8,dp=64"], "uses 4,096 GPUs, not the 1,024"),
    (["llama3-70b", *H100_1024, "--fix", "tq=8"], "unknown dimension 'tq'"),
    (["llama3-70b", *H100_1024, "--fix", "tp=eight"], "expected a whole number"),
    (["llama3-70b", *H100_1024, "--fix", "schedule=gpipe"], "unknown pipeline schedule"),
    (["llama3-70b", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h1"], "did you mean 'dgx-h100'"),
    (["llama3-70b", "--gpus", "8", "--global-batch", "8", "--target", "la464"], "not a cluster model"),
    (["llama3-70b", "--gpus", "8", "--global-batch", "8", "--target", "h100-8x"], "no memory_capacity"),
    (["llama3-70b", "--gpus", "0", "--global-batch", "8", "--target", "dgx-h100"], "--gpus: '0' is out of range: expected a whole number from 1 to 131,072"),
    (["llama3-70b", "--gpus", "8", "--global-batch", "-4", "--target", "dgx-h100"], "--global-batch: '-4' is out of range"),
    (TINY[:3] + ["--hidden", "1024", "--heads", "16", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"],
     "needs --seq, --vocab"),
    (SMALL + ["--top", "0"], "--top: '0' is out of range"),
    (SMALL[:-4] + ["--workers", "0"], "--workers: '0' is out of range"),
    (SMALL + ["--framework", "megatorn"], "unknown framework 'megatorn'"),
    (SMALL + ["--framework", "megatron-2021", "--attention", "flash"], "--framework megatron-2021"),
    (SMALL + ["--framework", "megatron-2021"], "--fix zero=1: --framework megatron-2021"),
    (SMALL + ["--grad-overlap", "--no-grad-overlap"], "not allowed with argument"),
    (SMALL + ["--bucket-elements", "-1"], "--bucket-elements: '-1' is out of range"),
    (TINY + ["--gpus", "16", "--global-batch", "32", "--target", "dgx-h100", "--fix", "trim=1,pp=1"],
     "trim takes layers off"),
])
def test_bad_input_exits_2_with_a_message_and_writes_nothing(args, message, capsys, tmp_path):
    svg, report = tmp_path / "p.svg", tmp_path / "p.json"
    # --progress off: a search slower than the progress interval (a loaded machine) would print
    # a progress line before the error
    code, out, err = run([*args, "--progress", "off", "--svg", svg, "-o", report], capsys)
    assert code == 2, err
    assert message in err and err.startswith(("error:", "<command line>:1:"))
    assert "Traceback" not in err and out == ""
    assert not svg.exists() and not report.exists()


def test_missing_planner_field_message_lists_the_planner_clusters(capsys):
    _, _, err = run(["llama3-70b", "--gpus", "8", "--global-batch", "8", "--target", "la464"], capsys)
    assert "dgx-a100, dgx-h100, ascend910b-cluster" in err


def test_svg_with_wrong_suffix_refused_before_the_search(capsys, tmp_path):
    code, _, err = run([*SMALL, "--svg", tmp_path / "p.pdf"], capsys)
    assert code == 2 and ".svg or .png" in err


def test_table_summary_explain(capsys):
    code, out, _ = run([*SMALL, "--explain", "--top", "3"], capsys)
    assert code == 0
    for word in ("step s", "tokens/s", "TFLOP/s", "MFU", "GB/84.9", "exposed s", "bubble", "model FLOPs = 3 x forward",
                 "summary: top-1", "top-2", "median", "slowest", "infeasible; search", "why #1", "#2 "):
        assert word in out, word
    rows = [line for line in out.splitlines() if line[:3].strip() in ("1", "2", "3")]
    assert len(rows) == 3 and len({line.index(" mb1 ") < 60 for line in rows}) == 1


def test_json_output_file_and_svg(capsys, tmp_path):
    report, svg = tmp_path / "plan.json", tmp_path / "plan.svg"
    code, out, err = run([*SMALL, "--format", "json", "-o", report, "--svg", svg], capsys)
    assert code == 0 and out == "" and f"wrote {svg}" in err
    data = json.loads(report.read_text())
    assert data["searched"] == len(data["candidates"]) and "infeasible" in data and "flop_formula" in data
    assert ET.parse(svg).getroot().tag.endswith("svg")


def test_the_planner_cluster_list_is_every_shipped_cluster_with_the_planners_fields():
    # PLANNER_CLUSTERS is what `plan` and `calibrate` name when a target lacks the planner's fields:
    # it must be exactly the shipped cluster models that have them
    from schedcc.target.load import list_targets
    from schedcc.training.costs import PLANNER_CLUSTERS, cluster_of
    shipped = {t.name for t in list_targets() if t.domain == "cluster"
               and cluster_of(t).memory_capacity and cluster_of(t).compute_units}
    assert set(PLANNER_CLUSTERS) == shipped

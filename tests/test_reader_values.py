"""Numbers and readers (issue 21): every number from ``--set``, a machine model, a cost
formula, ``pipeline --import``, ``--unit-costs``, ``--memory-limit``, ``--group``,
``--timeline-window`` and ``run --set`` is finite and in a documented range; every
reader bounds how deep brackets nest; errors are located (exit 2, nothing written)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from schedcc.cli import main
from schedcc.errors import SchedccError, check_nesting, describe_range
from schedcc.training.costs import CLUSTER_RANGES, Cluster, cluster_from_table

ROOT = Path(__file__).resolve().parent.parent
STEP = ("func step() {\nentry:\n  x = matmul w {flops = 1e12}\n"
        "  g = allreduce x {bytes = 64MiB, group = dp, ranks = 8}\n  ret\n}\n")
MIPS4 = (ROOT / "targets" / "mips4.toml").read_text()


def run(argv, capsys, tmp_path, monkeypatch, files=None) -> tuple[int, str]:
    monkeypatch.chdir(tmp_path)
    for name, text in (files or {}).items():
        (tmp_path / name).write_bytes(text if isinstance(text, bytes) else text.encode())
    code = main(argv)
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    return code, err


def located(err: str, where: str) -> bool:
    head = next(line for line in err.splitlines() if "error:" in line)
    return head.startswith(where)


@pytest.mark.parametrize("setting, words", [
    ("contention=1e400GB/s", "must be a number from 0 to 4"),
    ("efficiency=5", "must be a number from 0.001 to 1 (a fraction of peak), got 5.0"),
    ("gemm_efficiency=2", "must be a number from 0 to 1"),
    ("link_bw=1e300", "to 1e+15"),
    ("link_bw=-1", "must be a number from 1,000,000 to 1e+15"),
    ("link_bw=nan", "got nan"),
    ("nodes=1e9", "whole number from 1 to 131,072"),
    ("devices_per_node=0.5", "whole number from 1 to 1,024"),
    ("comm_efficiency=0", "from 0.001 to 1"),
    ("gemm_tiles=0x1", "rows and columns from 1 to 65,536"),
    ("inter_algorithm=star", "expected \"ring\" or \"tree\""),
])
def test_cluster_set_values_are_range_checked(setting, words, capsys, tmp_path, monkeypatch):
    code, err = run(["train", "s.ir", "--target", "h100-8x", "--set", setting], capsys, tmp_path, monkeypatch,
                    {"s.ir": STEP})
    assert code == 2 and words in err and f"--set {setting}" in err and located(err, "<command line>:1:"), err


def test_cluster_numbers_in_a_model_file_point_at_their_line(capsys, tmp_path, monkeypatch):
    text = (ROOT / "targets" / "h100-8x.toml").read_text()
    line = next(i for i, s in enumerate(text.splitlines(), 1) if s.startswith("link_bw"))
    bad = text.replace("link_bw = 450e9", "link_bw = 1e300", 1)
    code, err = run(["train", "s.ir", "--target", "c.toml"], capsys, tmp_path, monkeypatch,
                    {"s.ir": STEP, "c.toml": bad})
    assert code == 2 and located(err, f"c.toml:{line}:1: error: key 'cluster.link_bw'"), err


def test_every_cluster_number_has_a_range_and_the_docs_list_them():
    numbers = {f for f, t in Cluster.__annotations__.items() if t in ("float", "int")}
    assert numbers == set(CLUSTER_RANGES)
    doc = (ROOT / "docs" / "cost-model.md").read_text()
    for key, r in CLUSTER_RANGES.items():
        rng = describe_range(r.lo, r.hi, r.integer, r.above).replace("a whole number ", "").replace("a number ", "")
        assert f"| `{key}` | {rng} | {r.why} |" in doc, key


def test_cluster_table_values_are_checked_in_the_library():
    base = dict(peak_flops=1e15, efficiency=0.5, hbm_bw=3e12, link_bw=4e11, link_latency=5e-6, net_bw=5e10,
                net_latency=1e-5, devices_per_node=8, nodes=1)
    assert cluster_from_table(base).nodes == 1
    for key, value in [("efficiency", float("nan")), ("nodes", 1.5), ("hbm_bw", float("inf")),
                       ("memory_reserved", 5e9)]:
        with pytest.raises(SchedccError, match=f"cluster.{key}"):
            cluster_from_table({**base, key: value, "memory_capacity": 1e9})


@pytest.mark.parametrize("argv, option", [
    (["train", "s.ir", "--target", "h100-8x", "--timeline", "t.svg", "--timeline-window", "nan:1"],
     "--timeline-window"),
    (["train", "s.ir", "--target", "h100-8x", "--timeline", "t.svg", "--timeline-window", "0:inf"],
     "--timeline-window"),
    (["train", "s.ir", "--target", "h100-8x", "--group", "dp=0"], "--group"),
    (["train", "s.ir", "--target", "h100-8x", "--iterations=--"], "--iterations"),
    (["pipeline", "--unit-costs", "F=1,F=2"], "--unit-costs"),
    (["pipeline", "--unit-costs", "F=9999999"], "--unit-costs"),
    (["pipeline", "--unit-costs", ""], "--unit-costs"),
    (["pipeline", "--memory-limit", "0"], "--memory-limit"),
    (["pipeline", "--target", "h100-128x", "--memory-limit", "99999999TiB"], "--memory-limit"),
    (["run", "l.ir", "--set", "n=1e400"], "--set"),
])
def test_numbers_in_option_text_are_bounded(argv, option, capsys, tmp_path, monkeypatch):
    code, err = run(argv, capsys, tmp_path, monkeypatch,
                    {"s.ir": STEP, "l.ir": (ROOT / "examples" / "loops" / "dot.ir").read_text()})
    assert code == 2 and f"error: {option}" in err and located(err, "<command line>:1:"), err
    assert not (tmp_path / "t.svg").exists()


# -- nesting and the end of a file ---------------------------------------------------------------------------

def test_check_nesting_skips_strings_and_comments():
    check_nesting('a = "[[[[" # [[[[\nb = [[1]]', "x", "[]", '"', ("#",), limit=2)
    check_nesting("a = '''\n[[[[\n''' [1]", "x", "[]", "'", limit=2)
    with pytest.raises(SchedccError, match="x:2:7: error: brackets nested more than 2 deep"):
        check_nesting("a\nb = [[[1]]]", "x", "[]", limit=2)


@pytest.mark.parametrize("name, content, argv, where", [
    ("m.toml", MIPS4 + "\nx = " + "[" * 1000 + "]" * 1000 + "\n", ["p.ir", "--target", "m.toml"], "m.toml:"),
    ("m.toml", MIPS4 + "\nx = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n", ["p.ir", "--target", "m.toml"],
     "m.toml:"),
    ("m.toml", MIPS4 + "\n" + ".".join(["a"] * 2000) + " = 1\n", ["p.ir", "--target", "m.toml"], "m.toml:"),
    ("d.json", "[" * 1000 + "]" * 1000, ["pipeline", "--import", "d.json"], "d.json:1:101:"),
    ("t.ll", "%T = type " + "[1 x " * 30000 + "i32" + "]" * 30000 + "\ndefine void @f() {\n  ret void\n}\n",
     ["t.ll", "--target", "la464"], "t.ll:1:"),
    ("p.ir", None, ["p.ir", "--target", "mips4", "--set", "classes.alu.latency=" + "[" * 2000 + "]" * 2000],
     "<command line>:1:"),
])
def test_deep_nesting_is_a_located_error(name, content, argv, where, capsys, tmp_path, monkeypatch):
    files = {"p.ir": (ROOT / "examples" / "lecture.ir").read_text()}
    if content is not None:
        files[name] = content
    t0 = time.process_time()
    code, err = run(argv, capsys, tmp_path, monkeypatch, files)
    assert code == 2 and "nested more than 100 deep" in err and located(err, where), err
    assert time.process_time() - t0 < 5
    assert max(len(line) for line in err.splitlines()) < 200  # a long line is shown around the caret


@pytest.mark.parametrize("tail, col", [('x = "abc', 9), ("x = [1, 2", 10), ("x =", 4), ("[abc", 5)])
def test_toml_errors_at_the_end_of_the_file_are_located(tail, col, capsys, tmp_path, monkeypatch):
    text = MIPS4 + tail
    code, err = run(["p.ir", "--target", "m.toml"], capsys, tmp_path, monkeypatch,
                    {"p.ir": "t0 = t1 + t2\n", "m.toml": text})
    assert code == 2 and located(err, f"m.toml:{text.count(chr(10)) + 1}:{col}: error: invalid TOML"), err


# -- formulas ----------------------------------------------------------------------------------------------

def test_a_negative_latency_names_the_class_and_the_instruction(capsys, tmp_path, monkeypatch):
    model = (ROOT / "targets" / "ascend910b.toml").read_text()
    bad = model.replace('latency = "startup + occupancy"', 'latency = "startup - occupancy * 1000"', 1)
    assert bad != model
    kernel = (ROOT / "examples" / "ascend" / "vector_add.ir").read_text()
    code, err = run(["k.ir", "--target", "a.toml"], capsys, tmp_path, monkeypatch, {"k.ir": kernel, "a.toml": bad})
    assert code == 2 and "of class 'copy_in'" in err and "a cost cannot be negative" in err, err
    assert located(err, "k.ir:") and "copy_in xGm" in err


@pytest.mark.parametrize("formula", ["(" * 150 + "1" + ")" * 150, "-" * 900 + "1", "+".join(["1"] * 600),
                                     "9" * 5000])
def test_formulas_that_would_exhaust_the_parser_are_refused(formula, capsys, tmp_path, monkeypatch):
    text = MIPS4.replace("latency = 3", f"latency = '{formula}'", 1)
    code, err = run(["p.ir", "--target", "m.toml"], capsys, tmp_path, monkeypatch,
                    {"p.ir": "t0 = t1 + t2\n", "m.toml": text})
    assert code in (0, 2), err
    if code == 2:
        assert located(err, "m.toml:")


# -- pipeline --import ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, text, where, words", [
    ("a.json", '[["0F0", "0Z0"]]', "a.json:1:11:", "is not an action"),
    ("b.json", "[[" + "9" * 5000 + "]]", "b.json:1:3:", "5,000 digits"),
    ("c.json", "[[]]", "c.json:1:1:", "no actions"),
    ("d.json", '[["0F0",\n "0B0"],\n', "d.json:3:", "invalid JSON"),
    ("e.txt", "100000000F0\n", "e.txt:1:1:", "stage 100000000 is out of range"),
    ("f.txt", "0F" + "9" * 30 + "\n", "f.txt:1:1:", "microbatch"),
    ("g.txt", "0F0 0B0\n2F0 2B0\n", "g.txt:2:1:", "stage 1 runs on no rank"),
    ("h.txt", "(" * 1000 + "0F0" + ")" * 1000 + "OVERLAP_F_B\n", "h.txt:1:1:", "not an action"),
])
def test_imported_schedules_are_bounded_and_located(name, text, where, words, capsys, tmp_path, monkeypatch):
    code, err = run(["pipeline", "--import", name], capsys, tmp_path, monkeypatch, {name: text})
    assert code == 2 and words in err and located(err, where), err


def test_an_unreachable_ray_address_is_refused_within_seconds(capsys, tmp_path, monkeypatch):
    t0 = time.perf_counter()
    code, err = run(["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100", "--ray",
                     "127.0.0.1:1"], capsys, tmp_path, monkeypatch)
    assert code == 2 and "nothing answers at 127.0.0.1:1" in err and located(err, "<command line>:1:"), err
    assert time.perf_counter() - t0 < 30

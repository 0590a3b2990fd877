"""--emit-dag and --emit-kernel on a file of several blocks and loops (issue 19): one picture
per block or loop, named FILE's stem + function + block, each titled with its block, a
loop's with its II and what bounds it, the bounding resource drawn in its own lanes."""

import re
from pathlib import Path

from schedcc.cli import main
from schedcc.frontends import parse_source
from schedcc.driver.loops import pipeline_source
from schedcc.viz.files import file_word, picture_paths
from schedcc.viz.kernel import kernel_bars, kernel_title

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "examples" / "swp" / "kernels-O2.s"


def _title(svg: str) -> str:
    return re.search(r'font-weight="bold">([^<]*)</text>', svg).group(1)


def test_file_names_are_stem_function_block_and_never_collide():
    assert file_word("@saxpy") == "saxpy" and file_word(".LBB1_2") == "LBB1_2" and file_word("dot~1") == "dot_1"
    assert picture_paths("d/k.png", [("f", ".a"), ("f", "_a"), ("f", "a")]) == \
        ["d/k.f.a.png", "d/k.f.a-2.png", "d/k.f.a-3.png"]


def test_emit_dag_draws_one_picture_per_block(tmp_path, capsys):
    dot = tmp_path / "dag.dot"
    assert main([str(KERNELS), "--target", "la464", "--function", "dot", "--emit-dag", str(dot)]) == 0
    err = capsys.readouterr().err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["dag.dot.LBB1_2.dot", "dag.dot.LBB1_3.dot", "dag.dot.dot.dot", "dag.dot.dot_1.dot"]
    assert "wrote 4 pictures, one per block (--block NAME draws one)" in err
    loop = (tmp_path / "dag.dot.LBB1_2.dot").read_text()
    assert "kernels-O2.s on la464: dependence DAG (red: critical path): dot / .LBB1_2" in loop
    assert "fmadd.d" in loop and "bstrpick" not in loop  # that block only
    assert not dot.exists()


def test_emit_dag_of_the_block_chosen_is_the_file_given(tmp_path, capsys):
    dot = tmp_path / "one.dot"
    assert main([str(KERNELS), "--target", "la464", "--block", ".LBB3_2", "--emit-dag", str(dot)]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["one.dot"]
    assert "fir / .LBB3_2" in dot.read_text() and "cluster" not in dot.read_text()


def test_emit_kernel_draws_one_titled_picture_per_loop(tmp_path, capsys):
    svg = tmp_path / "k.svg"
    assert main([str(KERNELS), "--target", "la464", "--emit-kernel", str(svg), "--no-code"]) == 0
    err = capsys.readouterr().err
    files = sorted(p.name for p in tmp_path.iterdir())
    assert len(files) == 9 and "k.saxpy.LBB0_2.svg" in files and "k.div_reduce.LBB7_2.svg" in files
    assert "wrote 9 pictures, one per pipelined loop" in err
    saxpy = (tmp_path / "k.saxpy.LBB0_2.svg").read_text()
    assert _title(saxpy) == ("saxpy/.LBB0_2 on la464: II 2 = MII, bound by issue width 4: 8 operations per "
                             "iteration; 6 stages; not pipelined: 11 cycles per iteration")
    assert "issue width 4 (bounds II)" in saxpy and "4/4" in saxpy
    div = (tmp_path / "k.div_reduce.LBB7_2.svg").read_text()
    assert _title(div).startswith("div_reduce/.LBB7_2 on la464: II 20 = MII, bound by one operation holds FDIV")
    assert "FDIV (bounds II)" in div
    dot = (tmp_path / "k.dot.LBB1_2.svg").read_text()
    assert "bound by a recurrence: latency 5 over 1 iteration" in _title(dot) and "(bounds II)" not in dot
    assert "saxpy" not in dot  # each picture its own loop only


def test_the_bounding_unit_is_busy_back_to_back_without_overlap():
    res = pipeline_source(parse_source(KERNELS.read_text(), "kernels-O2.s"), "la464")
    div = next(r for r in res.loops if r.name == "div_reduce/.LBB7_2")
    bars, lanes = kernel_bars(div, res.target)
    fdiv = sorted((b.start, b.end) for b in bars if b.lane == "FDIV (bounds II)")
    assert lanes[-1] == "FDIV (bounds II)" and len(fdiv) >= 3
    assert all(e - s == 20 for s, e in fdiv)                          # the unit held 20 cycles each time
    assert all(b[0] - a[0] == div.schedule.ii for a, b in zip(fdiv, fdiv[1:]))  # one per II: back to back
    assert "II 20 = MII" in kernel_title(div, res.target)


def test_several_pictures_need_a_file_name(tmp_path, capsys):
    assert main([str(KERNELS), "--target", "la464", "--function", "dot", "--emit-dag", "/dev/stdout.dot"]) == 2
    err = capsys.readouterr().err
    assert "--emit-dag /dev/stdout.dot: 4 pictures are drawn, one per block" in err and "--block NAME" in err
    assert main([str(KERNELS), "--target", "la464", "--emit-kernel", str(tmp_path / "k.pdf")]) == 2
    assert "cannot draw to" in capsys.readouterr().err and not list(tmp_path.iterdir())

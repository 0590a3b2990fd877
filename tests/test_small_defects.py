"""The small defects of issue 10, each as a test."""

from pathlib import Path

from schedcc.cli import main
from schedcc.viz.dag_dot import dag_to_dot

ROOT = Path(__file__).resolve().parent.parent


def test_gen_header_names_a_cluster_with_enough_devices(capsys):
    assert main(["gen", "transformer", "--layers", "1", "--hidden", "256", "--seq", "64", "--microbatches", "1",
                 "--dp", "8"]) == 0
    head = capsys.readouterr().out.splitlines()[1]
    assert "--target h100-8x" in head  # one node of 8, not the 128-device model
    assert main(["gen", "transformer", "--layers", "4", "--hidden", "256", "--seq", "64", "--microbatches", "4",
                 "--heads", "4", "--dp", "8", "--tp", "4", "--pp", "4"]) == 0
    assert "--target h100-128x" in capsys.readouterr().out.splitlines()[1]


def test_interleaved_timeline_title_counts_ranks_and_stages(tmp_path, capsys):
    out = tmp_path / "il.svg"
    assert main(["pipeline", "--schedule", "interleaved", "--virtual", "2", "--stages", "4", "--microbatches", "8",
                 "--timeline", str(out)]) == 0
    assert "4 ranks x 2 stages each (8 stages)" in out.read_text()


def test_dag_label_keeps_number_and_instruction_apart():
    """librsvg dropped the space between two font runs ('#0t0'): they are two cells now."""
    from schedcc import build_dag, parse
    dag = build_dag(parse((ROOT / "examples" / "lecture.ir").read_text()).functions[0].blocks[0], "mips4")
    src = dag_to_dot(dag).source
    assert "<td><b>#0</b></td><td>t0 = t1 + t2</td>" in src


def test_readme_says_how_to_write_mine_ir():
    readme = (ROOT / "README.md").read_text()
    assert "cp examples/lecture.ir mine.ir" in readme

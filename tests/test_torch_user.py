"""The PyTorch side tried as a new user would (docs/torch-fx.md, docs/traces.md): the recipe as the page
writes it, and the first mistakes a user makes (a file of torch.save, a graph without collectives, a trace
cut in the middle of a string)."""

import gzip
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

import torch_models as tm  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "tests" / "data" / "traces"


def schedcc(*args):
    return subprocess.run([sys.executable, "-m", "schedcc", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_the_pages_fsdp2_recipe_runs_and_its_graph_reorders_as_shown(tmp_path):
    """docs/torch-fx.md's five minutes, as written: its step returns ``[p.grad for p in
    model.parameters()]``, under FSDP2 DTensors, which make_fx cannot trace (they became constants of
    the graph, cut off from their reduce-scatters, and ``functionalized`` failed with an IndexError
    inside torch.export). The command's first lines are then the page's."""
    import re
    page = (ROOT / "docs" / "torch-fx.md").read_text()
    section = page.split("## Five minutes", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"```python\n(.*?)```", section, flags=re.S)[0]
    console = re.findall(r"```console\n(.*?)```", section, flags=re.S)[0].splitlines()
    (tmp_path / "recipe.py").write_text(code)
    r = subprocess.run([sys.executable, "recipe.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                       env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and (tmp_path / "step.pt2").exists(), r.stderr[-2000:]
    command = console[0].removeprefix("$ schedcc ").replace(" --compare", "").split()
    r = subprocess.run([sys.executable, "-m", "schedcc", *command], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    got = r.stdout.splitlines()
    assert got[0] == console[1]                                    # step.pt2: N nodes on h100-8x, ...
    assert [line[:32] for line in got[1:5]] == [line[:32] for line in console[2:6]]


def test_a_file_of_torch_save_is_named_as_such_and_nothing_is_written(tmp_path):
    bad = tmp_path / "model.pt2"
    torch.save({"w": torch.ones(3)}, bad)
    out = tmp_path / "out.pt2"
    r = schedcc("fx", bad, "--target", "h100-8x", "-o", out)
    assert r.returncode == 2 and "Traceback" not in r.stderr and not out.exists()
    assert f"{bad}: written by torch.save (a pickled object), not by torch.export.save" in r.stderr
    assert "warnings above" not in r.stderr


def test_a_graph_without_collectives_says_so(tmp_path, capsys):
    """Through the CLI's own entry point in this process (``python -m schedcc`` calls the same ``main``;
    the recipe above runs the real command): a subprocess cost about 7 s of CPU importing torch again."""
    from schedcc.cli import main
    path = tmp_path / "plain.pt2"
    torch.export.save(torch.export.export(torch.nn.Linear(8, 8), (torch.randn(2, 8),)), path)
    assert "models/" in " ".join(zipfile.ZipFile(path).namelist())
    code = main(["fx", str(path), "--target", "h100-8x"])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    assert ": 1 node on h100-8x" in stdout
    assert "note: the graph has no collective" in stdout


def test_every_shipped_cluster_model_is_offered_when_the_target_is_not_one(tmp_path):
    path = tmp_path / "plain.pt2"
    torch.export.save(torch.export.export(torch.nn.Linear(8, 8), (torch.randn(2, 8),)), path)
    r = schedcc("fx", path, "--target", "mips4")
    assert r.returncode == 2 and "is not a cluster model" in r.stderr
    note = next(line for line in r.stderr.splitlines() if "note: cluster models:" in line)
    assert "dgx-h100" in note and "h100-8x" in note and "mips4" not in note


def test_a_trace_cut_inside_a_string_is_called_truncated(tmp_path):
    text = gzip.open(TRACES / "ddp" / "rank0.json.gz", "rt").read()
    cut = text.index('"name": "', len(text) // 2) + len('"name": "ab')  # inside an event's name
    (tmp_path / "rank0.json").write_text(text[:cut])
    r = schedcc("replay", tmp_path / "rank0.json", "--timeline", tmp_path / "t.svg")
    assert r.returncode == 2 and "Traceback" not in r.stderr and not (tmp_path / "t.svg").exists()
    assert "rank0.json:" in r.stderr and "a string is not closed" in r.stderr
    assert "it is truncated" in r.stderr


def test_a_gpu_runs_compute_lane_is_its_busiest_stream_and_the_title_counts_read(tmp_path):
    """The public 128-rank sample: 'rank 0 compute' was a nearly empty stream (the first seen) while
    'gpu:7' ran the model's kernels; the picture's title said '1 ranks'; counts had no separators."""
    from schedcc.torch.replay import replay
    from schedcc.viz.replay import replay_bars
    bars, lanes, _ = replay_bars(replay([TRACES / "hta" / "sampled-128"], subset=True).timed)
    busy: dict[str, float] = {}
    for b in bars:
        busy[b.lane] = busy.get(b.lane, 0.0) + b.end - b.start
    gpu = {lane: t for lane, t in busy.items() if lane.startswith("rank 0 ") and
           (lane.endswith(" compute") or " gpu:" in lane)}
    assert len(gpu) > 1 and max(gpu, key=gpu.get) == "rank 0 compute", gpu
    svg = tmp_path / "t.svg"
    r = schedcc("replay", TRACES / "hta" / "ddp-rank0", "--subset", "--timeline", svg)
    assert r.returncode == 0, r.stderr
    assert "15,712 nodes: 11,937 host pieces, 21 collectives, 3,753 GPU kernels" in r.stdout
    assert "replay of 3 profiled steps, 1 rank (" in svg.read_text()

"""torch and holistictraceanalysis are the optional extra ``schedcc[torch]`` (issue 18): the core and every
command but ``schedcc fx`` run without importing either, here where both are installed (so the test can fail).

One subprocess imports every schedcc module outside ``schedcc/torch`` (whose graph modules need torch; its
trace modules do not, and ``schedcc replay`` runs them below), then runs a command of each domain, and lists
what got imported."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("torch", "hta", "pandas")

SCRIPT = r"""
import contextlib, importlib, io, json, pkgutil, sys
import schedcc
from schedcc.cli import main
imported = []
for info in pkgutil.walk_packages(schedcc.__path__, "schedcc."):
    if info.name.startswith("schedcc.torch.") or info.name == "schedcc.__main__":
        continue  # the graph modules need torch by design; the trace modules are run by `schedcc replay` below
    importlib.import_module(info.name)
    imported.append(info.name)
codes = []
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        codes.append(main(argv))
heavy = sorted(m for m in sys.modules if m.split(".")[0] in %r)
print(json.dumps({"imported": len(imported), "codes": codes, "heavy": heavy[:10]}))
""" % (HEAVY,)

COMMANDS = [
    ["examples/lecture.ir", "--target", "mips4"],
    ["train", "examples/training/two-ranks.ir", "--target", "h100-8x"],
    ["compare", "examples/training/two-ranks.ir", "--target", "h100-8x"],
    ["replay", "tests/data/traces/ddp", "--tp-chunks", "2"],
    ["replay", "tests/data/traces/tp", "--tp-chunks", "2"],
    ["targets"],
]


def test_the_core_and_the_other_commands_never_import_torch_or_hta():
    r = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(COMMANDS)], capture_output=True, text=True,
                       cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["imported"] > 100  # the walk did reach the modules
    assert out["codes"] == [0, 0, 0, 2, 0, 0]  # replay of DDP with --tp-chunks: no TP site, a clear error
    assert out["heavy"] == [], out["heavy"]


def test_the_extra_names_torch_and_hta_and_the_test_command_installs_it():
    text = (ROOT / "pyproject.toml").read_text()
    extra = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    line = next(x for x in extra.splitlines() if x.startswith("torch = "))
    assert '"torch' in line and '"holistictraceanalysis' in line
    assert "[test,torch]" in (ROOT / "tasks.py").read_text()


def test_train_given_a_saved_graph_or_a_trace_names_the_command_that_reads_it(tmp_path, capsys):
    """The issue's `schedcc train graph.pt2`: train reads schedcc IR; a .pt2 (a zip archive) or a profiler
    trace gets an error pointing to `schedcc fx` / `schedcc replay` (exit 2), not a NUL-byte parse error."""
    import zipfile
    from schedcc.cli import main
    graph = tmp_path / "graph.pt2"
    with zipfile.ZipFile(graph, "w") as z:
        z.writestr("graph/models/model.json", "{}")
    trace = ROOT / "tests" / "data" / "traces" / "ddp" / "rank0.json.gz"
    for path, command in ((graph, "schedcc fx"), (trace, "schedcc replay")):
        assert main(["train", str(path), "--target", "h100-8x", "--trace", str(tmp_path / "t.json")]) == 2
        err = capsys.readouterr().err
        assert command in err and str(path) in err and "Traceback" not in err
        assert not (tmp_path / "t.json").exists()

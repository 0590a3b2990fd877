"""tasks.py, the README's two commands: what the demo says it wrote, what the
test command installs."""

import importlib.util
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_tasks():
    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_demo_without_graphviz_says_it_wrote_the_dot_file(tmp_path, monkeypatch, capsys):
    """Reproducer: the demo said 'the DAG picture is in lecture-dag.svg' having written only the .dot."""
    tasks = load_tasks()
    (tmp_path / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "lecture.ir", tmp_path / "examples")
    monkeypatch.setattr(tasks, "ROOT", tmp_path)
    monkeypatch.setattr(tasks, "BIN", Path(sys.executable).parent)
    monkeypatch.setattr(tasks, "ensure_venv", lambda: None)
    monkeypatch.setattr(tasks, "ensure_dot", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no dot
    if not (Path(sys.executable).parent / "schedcc").exists():
        import pytest
        pytest.skip("the schedcc console script is not installed beside this python")
    assert tasks.demo() == 0
    out = capsys.readouterr().out
    assert (tmp_path / "lecture-dag.dot").exists() and not (tmp_path / "lecture-dag.svg").exists()
    assert "the DAG picture is in" not in out and "lecture-dag.dot" in out


def test_test_command_installs_every_tool_the_tests_use(monkeypatch):
    tasks = load_tasks()
    monkeypatch.setenv("PATH", os.devnull)
    wanted = set(tasks.missing_test_packages())
    assert {"graphviz", "chromium", "clang-16", "llvm-16", "lld-16", "qemu-user"} <= wanted
    from tools import PACKAGES
    # every tool a test may skip for is one tasks.py installs
    assert set(PACKAGES) <= set(tasks.TEST_TOOLS)


def test_test_command_installs_ray_or_goes_on_without_it(monkeypatch, capsys):
    import subprocess
    tasks = load_tasks()
    calls = []

    def fake_run(cmd, **kw):
        calls.append([str(c) for c in cmd])
        if cmd[-1] == "import ray":
            return subprocess.CompletedProcess(cmd, 1)
        raise subprocess.CalledProcessError(1, cmd)
    monkeypatch.setattr(tasks.subprocess, "run", fake_run)
    assert tasks.ensure_ray() is False                       # no wheel: say so, do not fail the run
    assert any("[test,ray]" in c[-1] for c in calls if "pip" in c)
    assert "Ray test will skip" in capsys.readouterr().out


def test_test_command_installs_torch_on_the_cpu_or_goes_on_without_it(monkeypatch, capsys):
    """torch comes first from a CPU source (the PyPI default is a CUDA build of several GB);
    where nothing installs, the run goes on and says the torch tests will skip."""
    import subprocess
    tasks = load_tasks()
    calls = []

    def fake_run(cmd, **kw):
        calls.append([str(c) for c in cmd])
        if cmd[1] == "-c":
            return subprocess.CompletedProcess(cmd, 1)
        raise subprocess.CalledProcessError(1, cmd)
    monkeypatch.setattr(tasks.subprocess, "run", fake_run)
    assert tasks.ensure_torch() is False
    installs = [c for c in calls if "install" in c]
    assert installs[0][-1] == "torch==2.13.0" and "https://download.pytorch.org/whl/cpu" in installs[1]
    assert installs[-1][-1].endswith("[test,torch]")
    assert "the PyTorch graph and trace tests will skip" in capsys.readouterr().out

"""The runnable examples in the docs run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_api_example_runs(capsys):
    (code,) = python_blocks(ROOT / "docs" / "api.md")[:1]
    exec(compile(code, "docs/api.md", "exec"), {})
    out = capsys.readouterr().out
    assert "makespan 9 lower bound 9" in out
    assert "{'load': 0, 'mul': 4, 'add': 8}" in out


def test_readme_python_example_runs(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    (code,) = python_blocks(ROOT / "README.md")
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "9"


def test_readme_quick_start_is_what_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python3 tasks.py demo" in readme and "python3 tasks.py test" in readme
    assert "python3 tasks.py test" in ci

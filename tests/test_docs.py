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

"""The training examples in docs/api.md run and print what the page says."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_training_api_examples_run(capsys):
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("## Training graphs", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    outputs = re.findall(r"prints\n\n```\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2 and len(outputs) == 1
    exec(compile(blocks[0], "docs/api.md", "exec"), {})
    assert capsys.readouterr().out == outputs[0]
    exec(compile(blocks[1], "docs/api.md", "exec"), {})
    assert capsys.readouterr().out.startswith("27 0.111 {0: 4.0,")

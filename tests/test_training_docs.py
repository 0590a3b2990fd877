"""The training examples in docs/api.md run and print what the page says."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_training_api_examples_run(capsys):
    text = (ROOT / "docs" / "api.md").read_text()
    section = text.split("## Training graphs", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    outputs = re.findall(r"prints\n\n```\n(.*?)```", section, flags=re.S)
    assert len(blocks) == 2 and len(outputs) == 1
    exec(compile(blocks[0], "docs/api.md", "exec"), {})
    assert capsys.readouterr().out == outputs[0]
    exec(compile(blocks[1], "docs/api.md", "exec"), {})
    assert capsys.readouterr().out.startswith("27 0.111 {0: 4.0,")


def test_the_compare_table_in_training_md_is_current(tmp_path, capsys, monkeypatch):
    from schedcc.cli import main
    monkeypatch.chdir(tmp_path)
    assert main(["gen", "transformer", "--layers", "24", "--hidden", "2048", "--seq", "2048",
                 "--microbatches", "1", "--dp", "8", "-o", "dp.ir"]) == 0
    capsys.readouterr()
    assert main(["compare", "dp.ir", "--target", "h100-8x"]) == 0
    out = capsys.readouterr().out
    assert out in (ROOT / "docs" / "training.md").read_text()

"""The runnable example of docs/modulo.md runs and prints what the text says."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_modulo_doc_example_runs(capsys):
    (code,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "modulo.md").read_text(), flags=re.S)[:1]
    exec(compile(code, "docs/modulo.md", "exec"), {})
    out = capsys.readouterr().out
    assert "2 buffers: II 6 stages 2" in out
    assert "1 buffer: II 11 stages 1" in out
    assert "rejected: 2 tiles in flight at II 6, 1 buffers" in out


def test_doc_quotes_the_real_report():
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-m", "schedcc.cli", str(ROOT / "examples/loops/lecture_cj.ir"),
                          "--target", "la464", "--pipeline"], capture_output=True, text=True, cwd=ROOT).stdout
    doc = (ROOT / "docs" / "modulo.md").read_text()
    for line in out.splitlines()[2:9]:
        assert line in doc, line

"""The wheel carries grammar/ and targets/ inside the package, so an installed schedcc needs no checkout."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_grammar_and_targets(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot build a wheel here (no build backend reachable?): {proc.stderr.strip()[-200:]}")
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "schedcc/grammar/ir.lark" in names
    for toml in (ROOT / "targets").glob("*.toml"):
        assert f"schedcc/targets/{toml.name}" in names

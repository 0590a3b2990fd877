"""Run the lit + FileCheck CLI tests in tests/lit (the lecture walkthrough, pipeline diagrams, ...)."""

import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"


def test_lit_suite():
    pytest.importorskip("lit")
    pytest.importorskip("filecheck")
    proc = subprocess.run([sys.executable, "-c", "import sys; from lit.main import main; sys.exit(main())",
                           "-q", "-j2", str(LIT_DIR)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr

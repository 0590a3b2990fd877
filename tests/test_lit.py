"""Run the lit + FileCheck golden tests of the command line (tests/lit)."""

import subprocess
import sys
from pathlib import Path

LIT_DIR = Path(__file__).parent / "lit"


def test_lit_suite():
    proc = subprocess.run([sys.executable, "-c", "import sys; from lit.main import main; sys.exit(main())",
                           "-q", "-j2", str(LIT_DIR)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr

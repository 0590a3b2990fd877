# lit configuration: golden tests of the schedcc command line, checked with FileCheck.
# Run from pytest (tests/test_lit.py) or by hand: .venv/bin/lit -v tests/lit
import os
import sys
import tempfile

import lit.formats

config.name = "schedcc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ir", ".test"]
config.excludes = ["Inputs", "Output"]
config.test_source_root = os.path.dirname(__file__)
# Scratch files (%t) go to the temporary directory, never into the checkout.
# Output/ files of a run: the directory the pytest driver (tests/test_lit.py) gives, so
# that runs side by side (other worktrees, a fresh clone) never share them; a fixed one otherwise.
config.test_exec_root = os.environ.get("SCHEDCC_LIT_OUTPUT") or os.path.join(
    tempfile.gettempdir(), f"schedcc-lit-{os.getuid() if hasattr(os, 'getuid') else 0}")
root = os.path.dirname(os.path.dirname(config.test_source_root))
python = sys.executable
bindir = os.path.dirname(python)
config.substitutions.append(("%schedcc", f'env PYTHONPATH={root} "{python}" -m schedcc'))
config.substitutions.append(("%FileCheck", f'"{python}" -m filecheck'))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.substitutions.append(("%assignments", os.path.join(root, "docs", "assignments")))
config.environment["PYTHONPATH"] = root
config.environment["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
config.environment["COLUMNS"] = "100"

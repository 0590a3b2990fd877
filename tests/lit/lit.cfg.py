# lit configuration for schedcc's CLI golden tests (run from pytest by tests/test_lit.py,
# or by hand: /work/venv-dev/bin/lit -v tests/lit).
import os
import sys
import tempfile

import lit.formats

config.name = "schedcc"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
# Scratch files (%t) go to the temporary directory, never into the checkout.
config.test_exec_root = os.path.join(tempfile.gettempdir(), f"schedcc-lit-{os.getuid() if hasattr(os, 'getuid') else 0}")
root = os.path.dirname(os.path.dirname(config.test_source_root))
python = sys.executable
config.substitutions.append(("%schedcc", f'"{python}" -m schedcc.cli'))
config.substitutions.append(("%FileCheck", f'"{python}" -m filecheck'))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.substitutions.append(("%assignments", os.path.join(root, "docs", "assignments")))
config.environment["PYTHONPATH"] = root
config.environment["COLUMNS"] = "80"

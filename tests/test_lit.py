"""The lit + FileCheck golden tests of the command line (tests/lit), one pytest item per lit file.

lit runs once for the whole directory (in parallel, as it is fast at), and
writes a JUnit report; each item then checks its own file's result and shows
that file's output when it fails, so one failure hides no other.
"""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"
SUFFIXES = (".ir", ".test")
FILES = sorted(p.relative_to(LIT_DIR).as_posix() for p in LIT_DIR.rglob("*")
               if p.suffix in SUFFIXES and not {"Inputs", "Output"} & set(p.parts))


@pytest.fixture(scope="module")
def lit_results(tmp_path_factory) -> dict[str, tuple[bool, str]]:
    report = tmp_path_factory.mktemp("lit") / "lit.xml"
    output = tmp_path_factory.mktemp("lit-output")  # this run's own: parallel runs do not collide
    proc = subprocess.run([sys.executable, "-c", "import sys; from lit.main import main; sys.exit(main())",
                           "-q", "-j2", "--xunit-xml-output", str(report), str(LIT_DIR)],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "SCHEDCC_LIT_OUTPUT": str(output)})
    if not report.exists():
        pytest.fail("lit did not run:\n" + proc.stdout + proc.stderr)
    results = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        # classname "schedcc.cli", name "targets.test" -> "cli/targets.test"; files at the top of the
        # suite get the suite's name twice ("schedcc.schedcc")
        folders = case.get("classname", "").split(".")[1:]
        parts = [f for f in folders if f != "schedcc"] + [case.get("name", "")]
        failure = case.find("failure")
        results["/".join(p for p in parts if p)] = (failure is None, failure.text if failure is not None else "")
    return results


def test_every_lit_file_is_collected(lit_results):
    assert sorted(lit_results) == FILES


@pytest.mark.parametrize("name", FILES)
def test_lit_file(name, lit_results):
    ok, output = lit_results.get(name, (False, "lit did not report this file"))
    assert ok, output

"""Output safety under faults injected with strace into a real run's commit (issue 21).

A sample of bench/bench_output_safety.py, which hits every system call of the
write path: a signal while the files are staged (all outputs stay old), a
signal in the middle of the installing renames or at the final one (held back:
all new), a full
disk while staging and a failing last rename (swapped back: all old). Each
time: no temporary file left, no traceback, never a mix of old and new.
"""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strace_faults as sf  # noqa: E402

REASON = sf.strace_usable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

# (call name, which one of the write path's calls of that name, action, the outputs afterwards)
SAMPLE = [("fsync", 1, "signal=SIGTERM", "old"),
          ("renameat2", 1, "signal=SIGINT", "new"),
          ("write", -1, "error=ENOSPC", "old"),
          ("renameat", 1, "error=EIO", "old"),
          ("renameat", -1, "signal=SIGTERM", "new")]  # the final rename (issue 21): held back, all new


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    scn = sf.scenario("old outputs")
    folder = tmp_path_factory.mktemp("faults") / "out"
    folder.mkdir()
    return scn, folder, sf.write_path(scn, folder)


@pytest.mark.parametrize("name,index,action,expected", SAMPLE)
def test_fault_in_commit(setup, name, index, action, expected):
    scn, folder, calls = setup
    ofname = [c for c in calls if c.name == name]
    assert ofname, f"no {name} in the write path: {[str(c) for c in calls]}"
    call = ofname[index - 1] if index > 0 else ofname[index]
    out = sf.inject(scn, folder, call, action)
    assert out.injected, f"{call} was not hit: {out.stderr}"
    assert out.problems == [], out.problems
    assert set(out.state.split(",")) == {expected}, (out.state, out.stderr)
    assert out.code != 0
    if action.startswith("signal="):
        assert out.code == 128 + sf.signal_number(action.split("=")[1])
    else:
        assert "error:" in out.stderr and "wrote" not in out.stderr

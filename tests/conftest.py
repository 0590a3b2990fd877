import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True)
def _working_directory_is_restored():
    """A test that changes the working directory must restore it (use monkeypatch.chdir)."""
    before = os.getcwd()
    yield
    after = os.getcwd()
    os.chdir(before)
    assert after == before, f"the test left the working directory at {after}"


@pytest.fixture
def lecture_text() -> str:
    return (ROOT / "examples" / "lecture.ir").read_text()


# Hypothesis: CI runs a fixed, reproducible set of examples (a red CI is then
# always reproducible); developers' runs explore new ones. A loaded 2-core
# machine must not turn slow data generation into a failure.
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("ci", derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

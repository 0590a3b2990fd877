"""docs/tutorial.md shows every command with its real output: re-run them all and compare."""

from pathlib import Path

import pytest

from doc_commands import check, commands
from tools import needs

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"


def test_tutorial_has_commands():
    assert len(commands(TUTORIAL.read_text())) >= 8


@needs("dot")  # its commands draw the DAG
def test_tutorial_outputs_are_real():
    problems = check(TUTORIAL)
    if problems:
        pytest.fail("docs/tutorial.md is out of date (refresh: python tests/doc_commands.py --update "
                    "docs/tutorial.md):\n\n" + "\n\n".join(problems))

"""Every mistake in a calibration file is reported at its place in the file (`file:line:col: error:`), exit
status 2, nothing written: tried as a new user would, a file cut short, a measured rate of 0 and a
misspelt constant in [fit] gave errors without a place (the first without even the file's name)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schedcc.cli import main

ROOT = Path(__file__).resolve().parent.parent
MOSAIC = (ROOT / "examples" / "calibration" / "a100-40gb-mosaic.toml").read_text()


def first(text: str, pattern: str, repl: str) -> str:
    return re.sub(pattern, repl, text, count=1, flags=re.M)


CASES = {
    "cut short": (MOSAIC[:MOSAIC.index('config = "') + len('config = "tp=1,')], "invalid TOML: Unterminated string",
                  'config = "tp=1,'),
    "rate of 0": (first(MOSAIC, r"^tokens_per_s_per_gpu = .*$", "tokens_per_s_per_gpu = 0"),
                  "run '70b-s2048-g128': tokens_per_s_per_gpu must be a number greater than 0",
                  "tokens_per_s_per_gpu = 0"),
    "misspelt constant": (first(MOSAIC, r"^constants = .*$", 'constants = ["net_eficiency"]'),
                          "unknown constant 'net_eficiency'", 'constants = ["net_eficiency"]'),
    "a constant twice": (first(MOSAIC, r"^constants = .*$", 'constants = ["compute", "compute"]'),
                         "a constant is asked twice", 'constants = ["compute", "compute"]'),
    "too few runs": (first(first(MOSAIC, r"^constants = .*$", 'constants = ["compute", "net_efficiency", "contention"]'),
                           r'^on = "auto"$', 'on = ["70b-s2048-g128", "70b-s2048-g64"]'),
                     "too few runs for the constants asked", 'constants = ["compute", "net_efficiency", "contention"]'),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_calibration_file_is_reported_at_its_line(case, tmp_path, capsys):
    text, message, line = CASES[case]
    runs = tmp_path / "runs.toml"
    runs.write_text(text)
    out = tmp_path / "fitted.toml"
    code = main(["calibrate", str(runs), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and not out.exists()
    lineno = text.splitlines().index(line) + 1
    assert re.match(rf"{re.escape(str(runs))}:{lineno}:\d+: error: ", err), err
    assert message in err and f"\n  {line}\n" in err

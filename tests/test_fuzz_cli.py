"""A deterministic sample of issue 21's fuzz (bench/fuzz_cases.py, run in full by
bench/bench_fuzz.py): every class of malformed input, run in this process
through the command line's entry point. None may end in a traceback or an
internal error; every case marked invalid is refused (exit 2); every error
names its file and line, its place on the command line, or the option."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_fuzz import classify  # noqa: E402
from fuzz_cases import cases  # noqa: E402

from schedcc.cli import main  # noqa: E402

# Fast families only (the extremes at the top of a range, a planner search over
# 131,072 GPUs, are the bench's): every tenth case of the rest, plus every class.
def _sample():
    pool = [c for c in cases(seed=7, per_file=12, per_reader=10) if c.invalid and "--ray" not in c.family]
    firsts = {}
    for c in pool:
        firsts.setdefault(c.family, c)
    return list({id(c): c for c in [*pool[::10], *firsts.values()]}.values())


SAMPLE = _sample()


@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: c.label()[:90])
def test_fuzz_case(case, tmp_path, capsys, monkeypatch):
    for name, data in case.files.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    try:
        code = main(list(case.argv))
    except SystemExit as err:  # --help and --version exit; nothing else may
        code = err.code
    err = capsys.readouterr().err
    assert classify(case, code, err) is None, (code, err[:400])


def test_the_sample_covers_every_family():
    families = {c.family.split(":")[0].split(" ")[0] for c in SAMPLE}
    assert {"option", "front", "reader", "--set", "--fix", "output"} <= families, families
    assert len(SAMPLE) >= 80

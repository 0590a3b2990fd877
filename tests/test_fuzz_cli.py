"""A deterministic sample of issue 21's fuzz (the cases of bench/fuzz_cases.py, run in
full by bench/bench_fuzz.py with 20 s CPU / 2 GB each): about a hundred cases, every
family, run in this process through the command line's entry point. None may end in
a traceback or an internal error; a case marked invalid is refused; every error
names its file:line:col or its place on the command line (classify() of the bench)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from bench_fuzz import classify  # noqa: E402
from fuzz_cases import generate  # noqa: E402

from schedcc.cli import main  # noqa: E402

SAMPLE_SIZE = 100


def _sample():
    """Every family in proportion (at least three cases each), evenly spaced in the fixed order;
    the cases that need seconds or the network (``slow``) are the bench's."""
    cases = [c for c in generate() if not c.slow]
    families: dict[str, list] = {}
    for c in cases:
        families.setdefault(c.family, []).append(c)
    out = []
    for items in families.values():
        n = max(3, round(SAMPLE_SIZE * len(items) / len(cases)))
        step = max(1, len(items) // n)
        out += items[::step][:n]
    return out


SAMPLE = _sample()


@pytest.mark.parametrize("case", SAMPLE, ids=lambda c: f"{c.family}: {c.name[:70]}")
def test_fuzz_case(case, tmp_path, capsys, monkeypatch):
    for name, data in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    c0 = time.process_time()
    try:
        code = main(list(case.argv))
    except SystemExit as exc:  # --help and --version exit; nothing else may
        code = exc.code if isinstance(exc.code, int) else 2
    cpu = time.process_time() - c0
    err = capsys.readouterr().err
    assert classify(case, code, err, cpu) == "ok", (code, err[:600])


def test_the_sample_covers_every_family():
    families = {c.family for c in generate()}
    assert families == {c.family for c in SAMPLE}
    assert 80 <= len(SAMPLE) <= 140 and len(generate()) >= 1022

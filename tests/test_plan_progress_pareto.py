"""plan's progress lines when stderr is not a terminal, and the Pareto picture's band of real
choices (slow candidates in a strip, the winner's label clear of the front)."""

from __future__ import annotations

import random
import re

import schedcc.planner.progress as progress
from schedcc.planner import plan
from schedcc.planner.model import ModelSpec
from schedcc.planner.score import Scored
from schedcc.planner.search import PlanResult
from schedcc.planner.space import Candidate
from schedcc.viz.pareto import BAND, pareto_svg

TINY = ModelSpec(name="tiny", layers=4, hidden=512, heads=8, seq=512, vocab=1000)


def test_progress_lines_when_stderr_is_not_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(progress, "PROGRESS_EVERY_S", 0.0)
    plan(TINY, "dgx-h100", gpus=8, global_batch=16, fix="pp=1,cp=1,zero=0,recompute=none", workers=1)
    lines = capsys.readouterr().err.splitlines()
    first = r"schedcc plan: prepared [\d,]+ of [\d,]+ candidates \(\d+%: memory, layer schedules, bounds\), " \
            r"\d+ s, about \d+ s left"
    second = r"schedcc plan: scheduled [\d,]+ pipelines?, at most [\d,]+ more can still place, \d+ s, " \
             r"at most about \d+ s left"
    kinds = [0 if re.fullmatch(first, x) else 1 if re.fullmatch(second, x) else None for x in lines]
    assert None not in kinds and kinds == sorted(kinds) and 1 in kinds, lines   # the two phases, in order
    plan(TINY, "dgx-h100", gpus=8, global_batch=16, fix="pp=1,cp=1,zero=0,recompute=none", workers=1,
         progress=False)
    assert capsys.readouterr().err == ""


def fake_result(n=300, slow=60, seed=3) -> PlanResult:
    rng = random.Random(seed)
    cands = []
    for i in range(n):
        c = Candidate(dp=8, tp=8, pp=rng.choice([4, 8, 16]), virtual=1 + i, microbatch=1, schedule="1f1b", zero=1)
        t = 16.0 + abs(rng.gauss(0, 1.2)) if i >= slow else rng.uniform(30, 120)
        cands.append(Scored(c, True, "", 8, rng.uniform(20, 78) * 1e9, {}, step_time_s=t, mfu=0.45 * 16 / t))
    cands.sort(key=lambda s: s.step_time_s)
    return PlanResult(cands, n, 0, 1.0, 1024, 1024, "dgx-h100", "llama3-70b", capacity_bytes=80e9,
                      peak_flops=989e12)


def test_pareto_band_of_real_choices_and_slow_strip():
    res = fake_result()
    svg = pareto_svg(res)
    best = res.candidates[0].step_time_s
    ticks = [float(x) for x in re.findall(r'text-anchor="end">([\d.]+)</text>', svg)]
    assert ticks and max(ticks) <= best * BAND * 1.1 and min(ticks) >= best * 0.9   # the band, not 16-120 s
    assert "60 slower than" in svg and "(up to 1" in svg
    assert svg.count("<circle") >= len(res.feasible)       # every candidate is still a mark with its tooltip
    assert "% </text>" not in svg and re.search(r">\d+%</text>", svg)   # MFU on the right axis


def test_winner_label_clear_of_the_front():
    from schedcc.viz.pareto import _label_box, _segments_hit, pareto_front
    res = fake_result(seed=7)
    svg = pareto_svg(res)
    rect = re.search(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="white" '
                     r'fill-opacity="0.85"', svg)
    x0, y0, w, h = map(float, rect.groups())
    path = re.search(r'<path d="([^"]+)"', svg).group(1)
    pts = [tuple(map(float, p[1:].split(","))) for p in path.split()]
    assert _segments_hit((x0 + 3, y0 + 1, x0 + w - 3, y0 + h - 3), list(zip(pts, pts[1:]))) == 0
    assert _label_box(100, 100, 50, "ne")[:2] == (114, 74) and pareto_front([(1, 2, "a")])

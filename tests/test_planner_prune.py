"""The planner's search speed-ups must not change its answer.

* layer schedules shared between chunk lengths give the same chunk times as
  scheduling each chunk alone;
* the lower bound :func:`~schedcc.planner.score.prepare` gives is at most the
  step :func:`~schedcc.planner.score.finish` schedules, on every candidate;
* a pruned search returns the same winner, top ten and band of real choices as
  the exhaustive one, whatever the pool size.

The questions are small (tiny models, or pins) so the file runs in seconds;
bench/bench_search.py holds the 70B-on-1,024-GPUs question.
"""

import pytest

from schedcc.planner import ModelSpec, plan, preset
from schedcc.planner.layer import LayerSchedules, chunk_times
from schedcc.planner.score import Context, Prepared, finish, prepare
from schedcc.planner.search import PRUNE_BAND
from schedcc.planner.space import Candidate, Settings, enumerate_space, parse_fix
from schedcc.planner.layer import overlap_names

TINY = ModelSpec(layers=8, hidden=1024, heads=16, seq=2048, vocab=32000, name="tiny")
SMALL = ModelSpec(layers=12, hidden=2048, heads=16, seq=2048, vocab=50000, name="small")

# (model, target, gpus, batch, fix): different shapes of space, each a few hundred candidates at most
QUESTIONS = [
    (TINY, "dgx-h100", 16, 32, None),
    (SMALL, "dgx-a100", 32, 64, "microbatch=1"),
    ("llama3-70b", "dgx-h100", 32, 32, "microbatch=1,zero=1,sp=1"),
]


def _model(m):
    return preset(m) if isinstance(m, str) else m


@pytest.mark.parametrize("layers", [1, 3, 4, 7, 10])
def test_shared_layer_schedules_equal_a_chunk_scheduled_alone(layers):
    from schedcc.target import load_target
    from schedcc.training.costs import cluster_of
    h100 = cluster_of(load_target("dgx-h100"))
    shared = None
    for cand in (Candidate(2, 4, 2, microbatch=1, schedule="1f1b", sp=True, overlap="auto"),
                 Candidate(1, 2, 1, microbatch=2, schedule="1f1b", zero=3, recompute="full")):
        shared = LayerSchedules(SMALL, cand, Settings(), h100)
        for first, last in ((False, False), (True, False), (False, True), (True, True)):
            assert shared.chunk(layers, first, last) == chunk_times(SMALL, cand, Settings(), h100, layers, first, last)


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: f"{_model(q[0]).name}-{q[2]}")
def test_bound_never_exceeds_the_scheduled_step(question):
    model, target, gpus, batch, fix = question
    model = _model(model)
    ctx = Context(model, target, gpus, batch)
    space = enumerate_space(model, gpus, batch, ctx.cluster.devices_per_node, parse_fix(fix), overlap_names(),
                            ctx.settings.attention)
    prepared = [p for p in (prepare(c, ctx) for c in space.candidates[:60]) if isinstance(p, Prepared)]
    assert prepared
    for p in prepared:
        s = finish(p, ctx)
        assert 0 < p.bound_s <= s.step_time_s, p.candidate.label()


@pytest.mark.parametrize("question", QUESTIONS, ids=lambda q: f"{_model(q[0]).name}-{q[2]}")
def test_pruned_search_gives_the_exhaustive_answer(question):
    model, target, gpus, batch, fix = question
    model = _model(model)
    full = plan(model, target, gpus=gpus, global_batch=batch, fix=fix, workers=1, progress=False, exhaustive=True)
    assert full.pruned == 0

    def same(a, b):
        return [(s.candidate, s.step_time_s) for s in a] == [(s.candidate, s.step_time_s) for s in b]

    top = plan(model, target, gpus=gpus, global_batch=batch, fix=fix, workers=1, progress=False, keep=3)
    assert top.best.candidate == full.best.candidate and top.best.step_time_s == full.best.step_time_s
    assert same(top.feasible[:3], full.feasible[:3])
    assert top.searched + top.pruned == full.searched
    assert top.pruned == 0 or top.pruned_bound_s > full.feasible[2].step_time_s
    # with band: the top 3 and every candidate within PRUNE_BAND of the best (the picture's band)
    wide = plan(model, target, gpus=gpus, global_batch=batch, fix=fix, workers=1, progress=False, keep=3, band=True)
    want = [s for s in full.feasible if s.step_time_s <= PRUNE_BAND * full.best.step_time_s]
    want = want if len(want) >= 3 else full.feasible[:3]
    assert same(wide.feasible[:len(want)], want)
    assert wide.pruned <= top.pruned


def test_pruned_search_is_the_same_with_worker_processes():
    one = plan(TINY, "dgx-h100", gpus=16, global_batch=32, workers=1, progress=False, keep=2)
    two = plan(TINY, "dgx-h100", gpus=16, global_batch=32, workers=2, progress=False, keep=2)
    assert one.pruned and one.pruned == two.pruned
    assert [s.to_json() for s in one.candidates] == [s.to_json() for s in two.candidates]

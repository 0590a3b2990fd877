"""Tied embeddings under a pipeline: the first and last ranks all-reduce their copy's gradient
(issue 22's plausibility round, planner/pipe.py ``tied_embedding_s``).

With ``pp > 1`` the input embedding sits on the first pipeline rank and the output layer, the same
weights when they are tied, on the last; Megatron-Core's ``finalize_model_grads`` all-reduces that
weight's ``main_grad`` between the two after the data-parallel reductions and before the optimizer.
The step pays it (after both ranks' reductions, before both optimizers); an untied model, or one
without a pipeline, does not.
"""

from dataclasses import replace

import pytest

from schedcc.planner import ModelSpec
from schedcc.planner.frameworks import framework, sharding
from schedcc.planner.pipe import action_lists, step_graph, tied_embedding_s
from schedcc.planner.score import Context, _durations, _stage_params, prepare, score
from schedcc.planner.space import Candidate, Settings
from schedcc.target import load_target
from schedcc.training.costs import cluster_of

MPT13 = ModelSpec(layers=40, hidden=5120, heads=40, seq=2048, vocab=50368, tied_embeddings=True, name="mpt-13b")
A100 = cluster_of(load_target("dgx-a100"))
WINNER = Candidate(32, 1, 2, virtual=7, microbatch=2, schedule="interleaved", zero=1, recompute="none")


def _ctx(model, fw="megatron", **kw):
    return Context(model, "dgx-a100", 64, 512, Settings(framework=fw, **kw))


def test_tied_embedding_gradients_are_all_reduced_between_the_pipeline_ends():
    ctx = _ctx(MPT13)
    tied, untied = score(WINNER, ctx), score(WINNER, _ctx(replace(MPT13, tied_embeddings=False)))
    assert tied.feasible and untied.feasible
    t = tied_embedding_s(WINNER, ctx.cluster, MPT13, ctx.sharding(WINNER))
    # vocab x hidden fp32 gradients (Megatron-LM's main_grad), two ranks 32 GPUs apart: over the NICs
    assert t == pytest.approx(A100.collective_time("allreduce", 50368 * 5120 * 4, 2, 32))
    assert 0.04 < t < 0.07
    # serial after the reductions: the step grows by all of it (the untied model has the same
    # parameters on the last rank, a separate output layer instead of the copy)
    assert tied.breakdown["exposed_emb"] == pytest.approx(t, rel=1e-3)
    assert tied.step_time_s - untied.step_time_s == pytest.approx(t, rel=0.05)
    assert "exposed_emb" not in untied.breakdown


def test_the_all_reduce_waits_for_both_ranks_reductions_and_the_optimizers_wait_for_it():
    ctx = _ctx(MPT13)
    p = prepare(WINNER, ctx)
    sh = ctx.sharding(WINNER)
    graph, _ = step_graph(WINNER, ctx.settings, ctx.cluster, MPT13, action_lists(WINNER, p.microbatches),
                          _durations(p.times), _stage_params(MPT13, WINNER, p.layers), sh)
    names = [op.name for op in graph.ops]
    tied = [i for i, n in enumerate(names) if n.startswith("tied")]
    assert [graph.ops[i].units[0] for i in tied] == ["r0:emb", "r1:emb"]
    preds = {i: {d.src for d in graph.deps if d.dst == i} for i in range(len(names))}
    grads = {i for i, n in enumerate(names) if n.startswith("grad")}
    assert grads and all(grads <= preds[i] for i in tied)
    for r, i in zip((0, 1), tied):
        assert i in preds[names.index(f"optimizer{r}")]


@pytest.mark.parametrize("cand", [Candidate(64, 1, 1, microbatch=2, zero=1),                 # no pipeline
                                  Candidate(32, 1, 2, microbatch=2, schedule="1f1b", zero=1)])
def test_no_all_reduce_without_a_pipeline_or_with_untied_weights(cand):
    untied = replace(MPT13, tied_embeddings=False)
    sh = sharding(framework("megatron"), cand)
    assert tied_embedding_s(cand, A100, untied, sh) == 0.0
    assert (tied_embedding_s(cand, A100, MPT13, sh) > 0) == (cand.pp > 1)


def test_the_gradient_dtype_is_the_frameworks():
    # NeMo reduces (and holds) bf16 gradients: half the bytes of Megatron-LM's fp32 main_grad
    mega = tied_embedding_s(WINNER, A100, MPT13, sharding(framework("megatron"), WINNER))
    nemo = tied_embedding_s(WINNER, A100, MPT13, sharding(framework("nemo"), WINNER))
    assert nemo < 0.6 * mega

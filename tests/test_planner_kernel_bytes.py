"""Issue 22's pricing of what the Ascend calibration found missing: the unfused softmax as fp32
torch operators (``--attention eager``), and the allocator's expandable segments in the memory
model."""

from __future__ import annotations

import shlex
from dataclasses import replace

import pytest

from schedcc.cli import main
from schedcc.emit.launch import emit
from schedcc.planner import plan
from schedcc.planner.layer import LayerSchedules
from schedcc.planner.memory import FRAGMENTATION, fragmentation_share
from schedcc.planner.model import ModelSpec, preset
from schedcc.planner.score import Context, score
from schedcc.planner.space import Candidate, Settings
from schedcc.target import load_target
from schedcc.training.costs import cluster_of
from schedcc.training.kernels import SOFTMAX_BYTES, stream_time

BLOOM = ModelSpec(name="bloom-7b1", layers=30, hidden=4096, heads=32, seq=2048, vocab=250880, tied_embeddings=True)
ASCEND = cluster_of(load_target("ascend910b-cluster"))


def _ops(model, cand, settings, phase):
    return {o.name: o.dur for o in LayerSchedules(model, cand, settings, ASCEND).layer(phase)}


@pytest.mark.parametrize("attention", ["unfused", "eager"])
def test_softmax_priced_by_its_bytes_per_score(attention):
    cand = Candidate(1, 8, 1, microbatch=4, sp=True)
    st = Settings(framework="megatron", attention=attention)
    scores = 4 * (32 / 8) * 2048 * 2048          # microbatch x heads on this rank x s x s
    fwd, bwd = SOFTMAX_BYTES[attention]
    assert _ops(BLOOM, cand, st, "forward")["softmax"] == pytest.approx(stream_time(ASCEND, scores * fwd))
    assert _ops(BLOOM, cand, st, "backward")["d_softmax"] == pytest.approx(stream_time(ASCEND, scores * bwd))


def test_eager_softmax_costs_more_time_and_memory_than_the_fused_kernel():
    cand = Candidate(1, 8, 1, microbatch=4, sp=True)
    fused = score(cand, Context(BLOOM, ASCEND, 8, 512, Settings(framework="megatron", attention="unfused")))
    eager = score(cand, Context(BLOOM, ASCEND, 8, 512, Settings(framework="megatron", attention="eager")))
    assert eager.feasible and fused.feasible
    # 66 more bytes per score and layer, 128 microbatches, 30 layers: 15 s more at the 910B's 1.2 TB/s
    extra = (sum(SOFTMAX_BYTES["eager"]) - sum(SOFTMAX_BYTES["unfused"])) * 16 * 2048 * 2048 * 30 * 128
    assert eager.step_time_s - fused.step_time_s == pytest.approx(extra / (ASCEND.hbm_bw * ASCEND.memory_efficiency),
                                                                  rel=0.02)
    # the fp32 softmax output is kept for backward: 4 bytes more per score
    assert eager.memory_terms["activations"] - fused.memory_terms["activations"] == pytest.approx(
        4 * 16 * 2048 * 2048 * 30, rel=1e-9)
    # the search offers it where the framework's softmax can run unfused, not where it cannot
    with pytest.raises(Exception, match="does not offer"):
        plan(BLOOM, "ascend910b-cluster", gpus=8, global_batch=512, fix="tp=8,pp=1,microbatch=4",
             settings=Settings(framework="torchtitan", attention="eager"), workers=1)


def test_expandable_segments_drop_the_fragmentation_term():
    assert fragmentation_share(False) == FRAGMENTATION and fragmentation_share(True) == 0.0
    model = preset("llama3-8b")
    cand = Candidate(4, 1, 2, microbatch=1, schedule="1f1b", zero=1)
    plain = score(cand, Context(model, ASCEND, 8, 64, Settings(framework="megatron")))
    segs = score(cand, Context(model, ASCEND, 8, 64, Settings(framework="megatron", expandable_segments=True)))
    assert plain.memory_terms["fragmentation"] > 1e9 and segs.memory_terms["fragmentation"] == 0.0
    assert plain.memory_per_gpu_bytes - segs.memory_per_gpu_bytes == pytest.approx(
        plain.memory_terms["fragmentation"])
    assert segs.step_time_s == pytest.approx(plain.step_time_s)   # memory only


def test_published_ascend_runs_that_ran_are_not_refused():
    """ModelLink's ChatGLM3 6B and LLaMA 33B rows ran with PYTORCH_NPU_ALLOC_CONF=expandable_segments:True;
    with the caching allocator's fragmentation counted they would not fit in 64 GB."""
    from schedcc.planner.calib_runs import read_runs
    from schedcc.planner.calibrate import base_cluster
    inp = read_runs("examples/calibration/ascend910b-modellink.toml")
    cluster, _ = base_cluster(inp)
    for run in (r for r in inp.runs if r.id in ("chatglm3-6b", "llama-33b")):
        assert run.settings.expandable_segments
        ok = score(run.candidate, Context(run.model, cluster, run.gpus, run.global_batch, run.settings))
        assert ok.feasible, (run.id, ok.reason)
        st = replace(run.settings, expandable_segments=False)
        refused = score(run.candidate, Context(run.model, cluster, run.gpus, run.global_batch, st))
        assert not refused.feasible and "out of memory" in refused.reason


def test_cli_flags_reach_the_settings(capsys):
    args = ["plan", "transformer", "--layers", "8", "--hidden", "2048", "--heads", "16", "--seq", "2048", "--vocab",
            "32000", "--gpus", "8", "--global-batch", "64", "--target", "ascend910b-cluster",
            "--fix", "tp=8,pp=1,cp=1,microbatch=1,zero=0,recompute=none,sp=1", "--format", "json", "--workers", "1",
            "--framework", "megatron"]
    assert main(args + ["--attention", "eager", "--expandable-segments"]) == 0
    eager = capsys.readouterr().out
    assert main(args + ["--attention", "unfused"]) == 0
    unfused = capsys.readouterr().out
    import json
    e, u = json.loads(eager)["candidates"][0], json.loads(unfused)["candidates"][0]
    assert e["step_time_s"] > u["step_time_s"]
    assert e["memory_terms"]["fragmentation"] == 0.0 < u["memory_terms"]["fragmentation"]


def test_megatron_launch_spells_out_the_eager_softmax():
    model = ModelSpec(name="small", layers=4, hidden=1024, heads=16, seq=2048, vocab=32000)
    res = plan(model, "dgx-h100", gpus=8, global_batch=64, fix="tp=8,pp=1,cp=1,microbatch=1,zero=0,recompute=none",
               settings=Settings(framework="megatron", attention="eager"), workers=1)
    words = shlex.split(emit(res, "megatron").text.split("MEGATRON_ARGS=(")[1].split(")")[0])
    assert "--no-masked-softmax-fusion" in words and "--attention-softmax-in-fp32" in words
    assert words[words.index("--attention-backend") + 1] == "unfused"


QWEN = ModelSpec(name="qwen1.5-0.5b", layers=24, hidden=1024, heads=16, seq=8192, vocab=151936)


@pytest.mark.parametrize("fw, fwd, bwd", [("megatron", 38, 14), ("megatron-2021", 38, 14), ("nemo", 38, 14),
                                          ("deepspeed", 38, 14), ("any", 38, 14), ("torchtitan", 22, 22),
                                          ("composer", 4, 4)])
def test_loss_priced_by_the_bytes_its_framework_moves_per_logit(fw, fwd, bwd):
    """The cross-entropy over the vocabulary as each framework's code runs it (frameworks.toml
    loss_bytes): Megatron's vocab_parallel_cross_entropy on logits.float() six passes forward
    (38 bytes a logit) and two backward (14), torch's F.cross_entropy 22/22, flash-attn's fused
    kernel 4/4."""
    from schedcc.planner.layer import _Layer
    tp = 1 if fw == "composer" else 2
    layer = _Layer(QWEN, Candidate(1, tp, 1, microbatch=1), Settings(framework=fw), ASCEND)
    logits = 8192 * 151936 / tp
    loss = {o.name: o.dur for o in layer.head(False)}["loss"]
    d_loss = {o.name: o.dur for o in layer.head(True)}["d_loss"]
    assert loss == pytest.approx(stream_time(ASCEND, logits * fwd))
    assert d_loss == pytest.approx(stream_time(ASCEND, logits * bwd))

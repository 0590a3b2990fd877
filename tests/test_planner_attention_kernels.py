"""Issue 22, validation: the H100's kernel efficiencies as published measurements (not fitted on
H100 rows), and cuDNN's fused attention as a kernel of its own (``--attention cudnn``), which the
DGX Cloud recipes with ``NVTE_FUSED_ATTN=1`` ran."""

from __future__ import annotations

import pytest

from schedcc.cli import main
from schedcc.errors import SchedccError
from schedcc.emit.launch import emit
from schedcc.planner import plan
from schedcc.planner.model import preset
from schedcc.planner.score import Context, score
from schedcc.planner.space import Candidate, Settings
from schedcc.planner.validation import load
from schedcc.target import load_target
from schedcc.training.costs import cluster_of
from schedcc.training.kernels import attention_time

H100 = cluster_of(load_target("dgx-h100"))
A100 = cluster_of(load_target("dgx-a100"))


def test_cudnn_attention_runs_at_the_measured_efficiency_where_the_cluster_has_one():
    # H100: FlashAttention-3 paper, cuDNN 516 and FlashAttention-2 320 TFLOP/s of 989 (targets/dgx-h100.toml)
    for backward in (False, True):
        flash = attention_time(H100, 32, 4096, 4096, 128, backward=backward) - H100.launch_overhead
        cudnn = attention_time(H100, 32, 4096, 4096, 128, backward=backward, kernel="cudnn") - H100.launch_overhead
        assert flash / cudnn == pytest.approx(0.52 / 0.32)
    # A100: no measurement in its file: as the FlashAttention-2 class
    assert attention_time(A100, 32, 4096, 4096, 128, kernel="cudnn") == attention_time(A100, 32, 4096, 4096, 128)


def test_h100_gemm_efficiency_is_the_a100_fit_scaled_by_measured_matmul_efficiency():
    # S. Bekman's MAMF table (BF16): A100 SXM 271.2 of 312, H100 SXM 794.5 of 989
    derived = A100.gemm_efficiency * (794.5 / 989) / (271.2 / 312)
    assert H100.gemm_efficiency == pytest.approx(derived, abs=0.0025)
    assert H100.attention_efficiency == pytest.approx((319 + 333 + 310 + 318) / 4 / 989, abs=0.005)


def test_cudnn_prices_the_15b_recipe_faster_and_the_gpt3_one_not_at_all():
    model = preset("nemotron4-15b")
    cand = Candidate(4, 4, 1, microbatch=4, zero=1, sp=True, overlap="auto")
    t = {k: score(cand, Context(model, "dgx-h100", 16, 64, Settings(framework="nemo", optimizer_bytes=10,
                                                                     attention=k))).step_time_s
         for k in ("flash", "cudnn")}
    assert 0.93 < t["cudnn"] / t["flash"] < 0.99, t      # attention is about a tenth of the step
    # the same kernel choice on a cluster without a cuDNN figure changes nothing
    a = {k: score(cand, Context(model, "dgx-a100", 16, 64, Settings(framework="nemo", optimizer_bytes=10,
                                                                     attention=k))).step_time_s
         for k in ("flash", "cudnn")}
    assert a["cudnn"] == a["flash"]


def test_the_dgxc_rows_run_the_kernel_their_configure_sh_selects():
    # NVTE_FUSED_ATTN=1 (cuDNN): nemotron/configure.sh for 15B, llama3.1/configure.sh; =0 for 340B and GPT-3
    rows = {r["id"]: r for r in load()["rows"] if r["source"] == "dgxc"}
    for rid, row in rows.items():
        want = "cudnn" if ("15b" in rid or "llama3.1" in rid) else None
        assert row.get("settings", {}).get("attention") == want, rid


def test_cudnn_is_offered_by_the_frameworks_that_run_it_and_emitted_as_megatron_spells_it(capsys):
    fix = {"tp": 4, "pp": 1, "microbatch": 4, "zero": 1, "sp": 1, "recompute": "none"}
    with pytest.raises(SchedccError, match="attention"):   # llm-foundry's Composer runs its own kernels
        plan(preset("nemotron4-15b"), "dgx-h100", 16, 64, fix={"tp": 1, "pp": 1, "microbatch": 1, "zero": 3},
             settings=Settings(framework="composer", attention="cudnn"), workers=1)
    got = plan(preset("nemotron4-15b"), "dgx-h100", 16, 64, fix=fix,
               settings=Settings(framework="megatron", attention="cudnn"), workers=1)
    assert "--attention-backend fused" in emit(got, "megatron").text
    assert main(["plan", "nemotron4-15b", "--gpus", "16", "--global-batch", "64", "-t", "dgx-h100", "--framework",
                 "nemo", "--attention", "cudnn", "--fix", "tp=4,pp=1,microbatch=4,zero=1,sp=1,recompute=none"]) == 0
    assert "dp4 tp4" in capsys.readouterr().out

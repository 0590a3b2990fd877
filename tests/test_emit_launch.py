"""schedcc plan --emit: each launch configuration accepted by its framework's own parser
(DeepSpeed's config classes, torchtitan 0.2's job-TOML parser, megatron-core's
TransformerConfig and DistributedDataParallelConfig), the rest of Megatron-LM's arguments
against the options its argument parser documents; the best candidate a framework can run."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shlex
import sys
import types
from dataclasses import replace

import pytest

from schedcc.cli import main
from schedcc.emit.launch import EMITTERS, emit, megatron_args
from schedcc.planner import plan
from schedcc.planner.model import ModelSpec

MODEL = ModelSpec(name="llama3-8b", layers=8, hidden=1024, heads=16, kv_heads=8, ffn=3584, mlp="swiglu",
                  seq=2048, vocab=32000)
SMALL = ["transformer", "--layers", "8", "--hidden", "1024", "--heads", "16", "--kv-heads", "8", "--ffn-hidden",
         "3584", "--mlp", "swiglu", "--seq", "2048", "--vocab", "32000"]


def plan_of(fix: str, gpus=16, batch=64):
    return plan(MODEL, "dgx-h100", gpus=gpus, global_batch=batch, fix=fix, workers=1)


# one plan per shape the emitters must carry: pipeline with partial recomputation and uneven stages,
# tensor parallelism with chunked overlap, ZeRO-3, ZeRO-1 with full recomputation
PLANS = {
    "pp": "dp2,tp=2,pp=4,cp=1,microbatch=1,schedule=1f1b,zero=1,recompute=partial,recompute_layers=1,overlap=none",
    "tp": "tp=8,pp=1,cp=1,microbatch=2,zero=0,recompute=none,overlap=tp4",
    "z3": "tp=1,pp=1,cp=1,microbatch=2,zero=3,recompute=full",
    "z1": "tp=2,pp=1,cp=1,microbatch=1,zero=1,recompute=full,overlap=none",
    "vpp": "tp=1,pp=4,cp=1,microbatch=1,schedule=interleaved,virtual=2,zero=0,recompute=full",
    # uneven model chunks under interleaving (1, 3, 3, 1 layers): only Megatron-Core's explicit layout says it
    "uneven-vpp": "tp=1,pp=2,cp=1,microbatch=1,schedule=interleaved,virtual=2,trim=2,zero=0,recompute=full",
}


@pytest.fixture(scope="module")
def plans():
    out = {}
    for name, fix in PLANS.items():
        out[name] = plan_of(fix.replace("dp2,", "dp=2,"))
    return out


# -- Megatron-LM: megatron-core's own config classes, then the documented options --------------------------

# Megatron-LM's megatron/training/arguments.py: the options --emit megatron may write that are not a field
# of megatron-core's TransformerConfig / DistributedDataParallelConfig (read from its argument parser:
# name -> kind; "flag" takes no value)
MEGATRON_TRAINING_OPTIONS = {
    "--seq-length": int, "--max-position-embeddings": int, "--micro-batch-size": int, "--global-batch-size": int,
    "--num-layers-per-virtual-pipeline-stage": int, "--decoder-first-pipeline-num-layers": int,
    "--decoder-last-pipeline-num-layers": int, "--tp-comm-overlap-cfg": str, "--use-flash-attn": "flag",
    "--swiglu": "flag", "--untie-embeddings-and-output-weights": "flag", "--group-query-attention": "flag",
    "--use-distributed-optimizer": "flag", "--use-megatron-fsdp": "flag", "--overlap-grad-reduce": "flag",
    "--overlap-param-gather": "flag", "--grad-reduce-in-bf16": "flag",
    "--no-masked-softmax-fusion": "flag", "--attention-softmax-in-fp32": "flag",
    "--data-parallel-sharding-strategy": ("no_shard", "optim", "optim_grads", "optim_grads_params"),
}
# not options of Megatron-LM any more or not what the plan priced: never emitted
MEGATRON_NEVER = ("--use-flash-attn",)
# options that are fields of megatron-core's config classes (Megatron-LM builds them from the dataclasses)
TRANSFORMER_FIELDS = {"--num-layers": "num_layers", "--hidden-size": "hidden_size",
                      "--ffn-hidden-size": "ffn_hidden_size", "--num-attention-heads": "num_attention_heads",
                      "--num-query-groups": "num_query_groups", "--tensor-model-parallel-size":
                      "tensor_model_parallel_size", "--pipeline-model-parallel-size": "pipeline_model_parallel_size",
                      "--context-parallel-size": "context_parallel_size", "--sequence-parallel": "sequence_parallel",
                      "--recompute-granularity": "recompute_granularity", "--recompute-method": "recompute_method",
                      "--recompute-num-layers": "recompute_num_layers", "--tp-comm-overlap": "tp_comm_overlap",
                      "--bf16": "bf16", "--attention-backend": "attention_backend",
                      "--pipeline-model-parallel-layout": "pipeline_model_parallel_layout"}


def parse_megatron(words: list[str]) -> dict[str, object]:
    out, i = {}, 0
    while i < len(words):
        opt = words[i]
        assert opt.startswith("--"), opt
        if i + 1 < len(words) and not words[i + 1].startswith("--"):
            out[opt] = words[i + 1]
            i += 2
        else:
            out[opt] = True
            i += 1
    return out


def check_megatron_schema(args: dict[str, object]) -> None:
    for opt, value in args.items():
        assert opt not in MEGATRON_NEVER, opt
        if opt in TRANSFORMER_FIELDS:
            continue
        assert opt in MEGATRON_TRAINING_OPTIONS, f"{opt} is no Megatron-LM option"
        kind = MEGATRON_TRAINING_OPTIONS[opt]
        if kind == "flag":
            assert value is True, f"{opt} takes no value"
        elif kind is int:
            assert int(value) > 0
        elif isinstance(kind, tuple):
            assert value in kind, f"{opt} {value}: not one of {kind}"


@pytest.mark.parametrize("name", ["pp", "tp", "z3", "z1"])
def test_megatron_arguments_against_its_documented_options(plans, name):
    out = emit(plans[name], "megatron")
    script = out.text
    assert script.startswith("#!/bin/bash") and "MEGATRON_ARGS=(" in script
    block = script.split("MEGATRON_ARGS=(")[1].split(")")[0]
    args = parse_megatron(shlex.split(block))
    check_megatron_schema(args)
    cand = out.chosen.candidate
    assert args["--tensor-model-parallel-size"] == str(cand.tp) and args["--micro-batch-size"] == str(cand.microbatch)
    with pytest.raises(AssertionError):     # the schema check can fail
        check_megatron_schema({**args, "--tensor-paralel-size": "2"})


@pytest.mark.parametrize("name", ["pp", "tp", "z3", "z1", "vpp", "uneven-vpp"])
def test_megatron_arguments_build_megatron_core_configs(plans, name):
    pytest.importorskip("megatron.core.transformer", reason="megatron-core is not installed (python3 tasks.py test "
                                                            "installs it)")
    from megatron.core.distributed import DistributedDataParallelConfig
    from megatron.core.transformer import TransformerConfig
    out = emit(plans[name], "megatron")
    args = parse_megatron(megatron_args(_launch(out, plans[name])))
    fields = {f.name: f for f in dataclasses.fields(TransformerConfig)}
    kw = {}
    for opt, field in TRANSFORMER_FIELDS.items():
        if opt in args:
            v = args[opt]
            kw[field] = True if v is True else (int(v) if v.isdigit() else v)
            assert field in fields
    if "--num-layers-per-virtual-pipeline-stage" in args:
        kw["virtual_pipeline_model_parallel_size"] = MODEL.layers // (
            kw["pipeline_model_parallel_size"] * int(args["--num-layers-per-virtual-pipeline-stage"]))
    if "--decoder-first-pipeline-num-layers" in args:
        kw["num_layers_in_first_pipeline_stage"] = int(args["--decoder-first-pipeline-num-layers"])
        kw["num_layers_in_last_pipeline_stage"] = int(args["--decoder-last-pipeline-num-layers"])
    kw["gated_linear_unit"] = "--swiglu" in args
    if "attention_backend" in kw:
        from megatron.core.transformer.enums import AttnBackend
        kw["attention_backend"] = AttnBackend[kw["attention_backend"]]
    if kw.get("tp_comm_overlap"):   # Megatron-LM refuses --tp-comm-overlap without --sequence-parallel
        assert kw.get("sequence_parallel"), args
    cand = out.chosen.candidate
    if "pipeline_model_parallel_layout" in kw:   # the layout carries the chunks: no other split option
        assert "--num-layers-per-virtual-pipeline-stage" not in args and "--decoder-first-pipeline-num-layers" not in args
        kw["virtual_pipeline_model_parallel_size"] = cand.virtual if cand.virtual > 1 else None
    if kw.get("pipeline_model_parallel_size", 1) > 1:
        import torch
        kw["pipeline_dtype"] = torch.bfloat16      # Megatron-LM sets it from --bf16
    cfg = TransformerConfig(**kw)        # its __post_init__ checks the combination
    assert cfg.tensor_model_parallel_size == out.chosen.candidate.tp
    if cfg.pipeline_model_parallel_layout is not None:   # the layout Megatron-Core parsed is the plan's split
        layout = cfg.pipeline_model_parallel_layout
        layout.validate_layer_layout(MODEL.layers, None)
        per_chunk = [sum(1 for t in layout.layout[i % cand.pp][i // cand.pp] if t.name == "decoder")
                     for i in range(cand.pp * cand.virtual)]
        assert per_chunk == [1, 3, 3, 1] and cand.trim == 2, per_chunk
    ddp = DistributedDataParallelConfig(
        use_distributed_optimizer="--use-distributed-optimizer" in args,
        use_megatron_fsdp="--use-megatron-fsdp" in args,
        data_parallel_sharding_strategy=args.get("--data-parallel-sharding-strategy", "no_shard"),
        overlap_grad_reduce="--overlap-grad-reduce" in args, overlap_param_gather="--overlap-param-gather" in args,
        grad_reduce_in_fp32="--grad-reduce-in-bf16" not in args)
    assert ddp.use_megatron_fsdp == (out.chosen.candidate.zero >= 2)
    with pytest.raises((ValueError, AssertionError)):   # and they can refuse
        TransformerConfig(**{**kw, "recompute_method": None, "recompute_granularity": "full"})


def _launch(out, res):
    from schedcc.emit.launch import Launch
    from schedcc.planner.overlap import chosen_chunks
    ctx = res.context
    s = out.chosen
    return Launch(s.candidate, ctx.model, res.gpus, res.global_batch, ctx.settings, s.step_time_s, s.mfu, 1.0,
                  chosen_chunks(ctx.model, s.candidate, ctx.settings, ctx.cluster), res.target,
                  ctx.cluster.devices_per_node)


def test_overlap_chunks_and_recomputation_are_spelled_out(plans):
    text = emit(plans["tp"], "megatron").text
    assert "forward: each AllGather+GEMM and GEMM+ReduceScatter in 4 chunks" in text
    assert "num_splits: 4" in text and "--tp-comm-overlap-cfg tp_comm_overlap.yaml" in text
    text = emit(plans["pp"], "megatron").text
    assert "partial: the first 1 layer of every model chunk" in text
    assert "--recompute-method block" in text and "--recompute-num-layers 1" in text


# -- torchtitan 0.2's job TOML -------------------------------------------------------------------------------

def torchtitan_manager():
    spec = sys.modules["torchtitan"].__spec__ if "torchtitan" in sys.modules else importlib.util.find_spec("torchtitan")
    if spec is None:
        pytest.skip("torchtitan is not installed (python3 tasks.py test installs torchtitan 0.2.2)")
    if "torchtitan" not in sys.modules or not hasattr(sys.modules["torchtitan"], "__path__"):
        # its package __init__ imports its model zoo (tokenizers, datasets): load the config parser alone
        pkg = types.ModuleType("torchtitan")
        pkg.__path__ = list(spec.submodule_search_locations)
        pkg.__spec__ = spec
        sys.modules["torchtitan"] = pkg
    try:
        from torchtitan.config.manager import ConfigManager
        import torchtitan.config.job_config  # noqa: F401  (0.3 replaced the job TOML with Python configs)
    except ImportError as err:
        pytest.skip(f"this torchtitan has no job-TOML parser (0.2's torchtitan.config.job_config): {err}")
    return ConfigManager


@pytest.mark.parametrize("name", ["vpp", "tp", "z3"])
def test_torchtitan_toml_is_accepted_by_its_parser(plans, tmp_path, name):
    ConfigManager = torchtitan_manager()
    out = emit(plans[name], "torchtitan")
    path = tmp_path / "job.toml"
    path.write_text(out.text)
    cfg = ConfigManager().parse_args(["--job.config_file", str(path)])
    c = out.chosen.candidate
    assert cfg.parallelism.tensor_parallel_degree == c.tp and cfg.parallelism.pipeline_parallel_degree == c.pp
    assert cfg.activation_checkpoint.mode == {"none": "none", "full": "full"}.get(c.recompute, "selective")
    path.write_text(out.text.replace("[parallelism]", "[parallelism]\npipeline_degree = 2"))
    with pytest.raises(ValueError, match="Invalid field"):   # its parser refuses what it does not know
        ConfigManager().parse_args(["--job.config_file", str(path)])


def titan_chunks(cfg, num_layers: int, pp: int) -> list[list[str]]:
    """The model chunks torchtitan 0.2's pipeline_llm makes of a parsed job config (its checks of
    the stage count, then its own generate_llm_fqn_per_model_part), without a model or a mesh."""
    import ast
    import math
    # its module imports the model zoo (tokenizers): run torchtitan's own function, compiled alone
    source = open(importlib.util.find_spec("torchtitan.distributed").submodule_search_locations[0]
                  + "/pipeline_parallel.py", encoding="utf-8").read()
    fn = next(n for n in ast.parse(source).body
              if isinstance(n, ast.FunctionDef) and n.name == "generate_llm_fqn_per_model_part")
    space: dict = {}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), "pipeline_parallel.py", "exec"), space)
    generate_llm_fqn_per_model_part = space["generate_llm_fqn_per_model_part"]
    from torch.distributed.pipelining.schedules import PipelineScheduleSingle, get_schedule_class
    par = cfg.parallelism
    single = issubclass(get_schedule_class(par.pipeline_parallel_schedule), PipelineScheduleSingle)
    first, last = par.pipeline_parallel_first_stage_less_layers, par.pipeline_parallel_last_stage_less_layers
    if par.pipeline_parallel_layers_per_stage is not None:   # pipeline_llm's checks, as it makes them
        n = math.ceil((num_layers + first + last) / par.pipeline_parallel_layers_per_stage)
        assert n % pp == 0, f"torchtitan: {n} virtual stages do not divide over pp {pp}"
        assert (n // pp == 1) if single else (n // pp >= 2), f"{par.pipeline_parallel_schedule}: {n // pp} a rank"
    else:
        n = pp * (1 if single else 2)
    parts = par.module_fqns_per_model_part or generate_llm_fqn_per_model_part(n, num_layers, first, last)
    assert (len(parts) // pp == 1) if single else (len(parts) // pp >= 2 and len(parts) % pp == 0)
    return parts


@pytest.mark.parametrize("name", ["vpp", "uneven-vpp", "pp", "twelve"])
def test_torchtitan_splits_the_layers_as_the_plan_priced(plans, tmp_path, name):
    """The chunks torchtitan makes from the TOML hold the plan's layers per chunk, in order. The
    plan's trimmed interleaved chunks put their extra layers in the middle (12 layers, pp 2,
    virtual 3, trim 1: 1 2 3 3 2 1; llama3-70b pp 8 v5 t1: 1, 2 x 18, 3, 3, 2 x 18, 1), torchtitan's
    rule on the first chunks: from layers_per_stage and less_layers it made 1 3 3 3 2 0 (and 28
    chunks for the 70B, refused over 8 ranks); such chunks now name their modules."""
    ConfigManager = torchtitan_manager()
    if name == "twelve":
        res = plan(replace(MODEL, layers=12), "dgx-h100", gpus=16, global_batch=64, workers=1,
                   fix="tp=1,pp=2,cp=1,microbatch=1,schedule=interleaved,virtual=3,trim=1,zero=0,recompute=full")
    elif name == "pp":   # partial recomputation: torchtitan passes it over; the same layout without it
        res = plan_of("dp=2,tp=2,pp=4,cp=1,microbatch=1,schedule=1f1b,zero=0,recompute=full,trim=1")
    else:
        res = plans[name]
    out = emit(res, "torchtitan")
    n_layers = res.context.model.layers
    path = tmp_path / "job.toml"
    path.write_text(out.text)
    cfg = ConfigManager().parse_args(["--job.config_file", str(path)])
    c = out.chosen.candidate
    parts = titan_chunks(cfg, n_layers, c.pp)
    layers = [[m for m in p if m.startswith("layers.")] for p in parts]
    assert [len(x) for x in layers] == list(_launch(out, res).layers)
    assert [m for x in layers for m in x] == [f"layers.{i}" for i in range(n_layers)]
    assert parts[0][0] == "tok_embeddings" and parts[-1][-2:] == ["norm", "output"]


def test_torchtitan_passes_over_zero_bubble_with_one_stage_a_rank():
    # torchtitan 0.2's zero-bubble schedules (InterleavedZeroBubble, ZBVZeroBubble) need two or
    # more stages a rank (pipeline_llm refuses fewer); the plan's ZB-H1 runs one
    from schedcc.errors import SchedccError
    res = plan_of("dp=8,tp=1,pp=2,cp=1,microbatch=1,schedule=zb-h1,zero=0,recompute=full")
    with pytest.raises(SchedccError, match="no feasible candidate of this plan can run on torchtitan"):
        emit(res, "torchtitan")


def test_megatron_script_is_valid_shell_with_the_layout_quoted(plans, tmp_path):
    import subprocess
    text = emit(plans["uneven-vpp"], "megatron").text
    assert "--pipeline-model-parallel-layout 'Et*1|t*3|t*3|t*1L'" in text
    path = tmp_path / "launch.sh"
    path.write_text(text.replace('torchrun ', 'printf "%s\\n" '))
    run = subprocess.run(["bash", str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    words = run.stdout.split("\n")
    assert words[words.index("--pipeline-model-parallel-layout") + 1] == "Et*1|t*3|t*3|t*1L"


def test_torchtitan_holds_fsdp_weights_under_a_pipeline_as_priced():
    """FSDP under a pipeline schedule is priced without resharding (planner.frameworks): the TOML
    must not ask torchtitan to reshard after every forward."""
    from schedcc.planner.space import Settings
    res = plan(MODEL, "dgx-h100", gpus=4, global_batch=16, workers=1, settings=Settings(framework="torchtitan"),
               fix="dp=2,tp=1,pp=2,cp=1,microbatch=1,schedule=1f1b,zero=3,reshard=0,recompute=full")
    text = emit(res, "torchtitan").text
    assert 'fsdp_reshard_after_forward = "never"' in text


def test_torchtitan_passes_over_what_it_cannot_run(plans):
    from schedcc.errors import SchedccError
    with pytest.raises(SchedccError, match="no feasible candidate of this plan can run on torchtitan"):
        emit(plans["z1"], "torchtitan")        # every candidate pinned to ZeRO-1
    res = plan_of("tp=2,pp=1,cp=1,microbatch=1,recompute=full,overlap=none")   # zero searched
    out = emit(res, "torchtitan")
    assert out.chosen.candidate.zero != 1
    if res.best.candidate.zero == 1:
        assert out.rank > 1 and "torchtitan has no ZeRO-1" in out.notes[0]


# -- DeepSpeed's config classes ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["z3", "z1"])
def test_deepspeed_json_is_accepted_by_its_config_class(plans, monkeypatch, name):
    pytest.importorskip("deepspeed.runtime.config", reason="deepspeed is not installed (python3 tasks.py test "
                                                           "installs its pure-Python package)")
    import deepspeed.runtime.config as dsc
    out = emit(plans[name], "deepspeed")
    cfg = json.loads(out.text)
    c = out.chosen.candidate

    class MPU:   # the data-parallel group as Megatron-DeepSpeed's mpu reports it
        def get_data_parallel_world_size(self):
            return c.dp

        def get_model_parallel_world_size(self):
            return c.tp * c.pp

        def get_data_parallel_rank(self):
            return 0

        def get_model_parallel_rank(self):
            return 0

    monkeypatch.setattr(dsc.dist, "get_rank", lambda *a, **k: 0)   # no process group on this machine
    parsed = dsc.DeepSpeedConfig(cfg, mpu=MPU())
    assert parsed.zero_optimization_stage == c.zero and parsed.train_batch_size == 64
    assert parsed.gradient_accumulation_steps * c.microbatch * c.dp == 64
    bad = json.loads(out.text)
    bad["zero_optimization"]["stages"] = 2
    with pytest.raises(Exception):   # and it refuses an unknown ZeRO key
        dsc.DeepSpeedConfig(bad, mpu=MPU())


def test_deepspeed_json_follows_the_framework_the_plan_priced(monkeypatch):
    """Planned as DeepSpeed runs it (--framework deepspeed: ZeRO-2 in 500M-element buckets), the
    JSON carries that stage and that bucket, and DeepSpeed's config class accepts it."""
    pytest.importorskip("deepspeed.runtime.config", reason="deepspeed is not installed")
    import deepspeed.runtime.config as dsc
    from schedcc.planner.space import Settings
    res = plan(MODEL, "dgx-h100", gpus=8, global_batch=32, workers=1, settings=Settings(framework="deepspeed"),
               fix="tp=1,pp=1,cp=1,microbatch=2,zero=2,recompute=none")
    out = emit(res, "deepspeed")
    cfg = json.loads(out.text)
    assert cfg["zero_optimization"]["stage"] == 2 == out.chosen.candidate.zero
    assert cfg["zero_optimization"]["reduce_bucket_size"] == 500_000_000
    assert cfg["communication_data_type"] == "bf16"   # ZeRO-2 reduces its bf16 partition (frameworks.toml)

    class MPU:
        def get_data_parallel_world_size(self):
            return 8

        def get_model_parallel_world_size(self):
            return 1

        def get_data_parallel_rank(self):
            return 0

        def get_model_parallel_rank(self):
            return 0

    monkeypatch.setattr(dsc.dist, "get_rank", lambda *a, **k: 0)
    parsed = dsc.DeepSpeedConfig(cfg, mpu=MPU())
    assert parsed.zero_optimization_stage == 2 and parsed.zero_config.reduce_bucket_size == 500_000_000


def test_cli_emit_writes_with_the_report_and_refuses_unknown(tmp_path, capsys):
    out = tmp_path / "launch.sh"
    code = main(["plan", *SMALL, "--gpus", "16", "--global-batch", "64", "--target", "dgx-h100", "--fix",
                 PLANS["tp"], "--workers", "1", "--emit", "megatron", "-o", str(out)])
    assert code == 0 and out.read_text().startswith("#!/bin/bash")
    assert "candidates scored" in capsys.readouterr().out
    code = main(["plan", *SMALL, "--gpus", "16", "--global-batch", "64", "--target", "dgx-h100",
                 "--emit", "jax", "-o", str(tmp_path / "x")])
    assert code == 2 and "--emit" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert set(EMITTERS) == {"megatron", "torchtitan", "deepspeed"}
    assert replace  # (kept for readers extending the table)


def test_emit_ranks_what_can_beat_the_best_runnable_not_everything():
    """--emit once made the search exhaustive (llama3-70b on 1,024 H100s: every candidate that fits
    scheduled, about 20x the CPU); it now schedules every candidate whose bound can beat the best
    one the framework can run: the same file, the same rank, the same passed-over list."""
    from schedcc.commands.plan import _runnable
    fix = "cp=1,microbatch=1,recompute=full"
    full = plan(MODEL, "dgx-h100", gpus=16, global_batch=64, fix=fix, workers=1, exhaustive=True)
    pruned_any = False
    for name in EMITTERS:
        res = plan(MODEL, "dgx-h100", gpus=16, global_batch=64, fix=fix, workers=1, runnable=_runnable(name))
        a, b = emit(res, name), emit(full, name)
        assert (a.text, a.rank, a.notes) == (b.text, b.rank, b.notes), name
        pruned_any |= res.pruned > 0
    assert pruned_any

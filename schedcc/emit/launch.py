"""The planner's answer as a launch configuration: Megatron-LM arguments, a torchtitan job
TOML, a DeepSpeed config JSON (``schedcc plan ... --emit megatron|torchtitan|deepspeed``).

Each framework is a row of :data:`EMITTERS`: the configurations it cannot run
(:attr:`Emitter.refuses`, a list of ``(rule, reason)``), and a renderer built
from a table of (option, value) rows over a :class:`Launch` (the candidate,
the model, the batch, the framework settings, the tensor-parallel chunk count
each phase runs with). :func:`emit` takes the best-ranked feasible candidate
the framework can run (saying which ones it passed over and why) and renders
it; the per-layer chunking of ``ov=auto`` (:func:`schedcc.planner.overlap.chosen_chunks`)
and the recomputation choice are spelled out in the output's comments (JSON
has none: DeepSpeed's file carries them under a ``"schedcc"`` key, which
DeepSpeed ignores). A framework switch (a later ``--framework``) plugs in as
the same ``refuses`` rules applied to the search itself.

Example::

    >>> from schedcc.planner import plan, preset
    >>> res = plan(preset("llama3-8b"), "dgx-h100", gpus=16, global_batch=64, workers=1,
    ...            fix="tp=2,pp=2,cp=1,microbatch=1,schedule=1f1b,zero=1,recompute=full,overlap=none")
    >>> out = emit(res, "megatron")
    >>> "--tensor-model-parallel-size 2" in out.text and "--recompute-granularity full" in out.text
    True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

from schedcc.errors import SchedccError, plural
from schedcc.planner.space import Candidate, stage_layers


@dataclass
class Launch:
    """What an emitter reads: the chosen candidate and everything around it."""

    cand: Candidate
    model: object
    gpus: int
    global_batch: int
    settings: object
    step_s: float
    mfu: float
    memory_gb: float
    chunks: dict[str, int]         # phase -> K (tensor-parallel overlap), empty: none
    target: str
    devices_per_node: int

    @property
    def layers(self) -> tuple[int, ...]:
        return stage_layers(self.model.layers, self.cand.pp * max(self.cand.virtual, 1), max(self.cand.trim, 0))

    @property
    def sharding(self):
        """How the plan priced the candidate's data parallelism (dtypes per ZeRO stage included:
        DeepSpeed's ZeRO-2 reduces bf16 though its stage 0/1 default is fp32)."""
        from schedcc.planner.frameworks import framework, sharding
        return sharding(framework(self.settings.framework), self.cand, self.settings)

    @property
    def accumulation(self) -> int:
        return self.global_batch // (self.cand.dp * self.cand.microbatch)

    def recompute_words(self) -> str:
        c = self.cand
        return {"none": "none: every layer's activations are kept",
                "full": "full: every layer's forward runs again before its backward",
                "selective": "selective: the attention scores are recomputed (Korthikanti et al. 2022)",
                "partial": f"partial: the first {plural(c.recompute_layers, 'layer')} of every model chunk run their "
                           f"forward again, the others keep their activations"}[c.recompute]

    def chunk_words(self) -> list[str]:
        if not self.chunks:
            return ["tensor-parallel communication: not chunked (" + (
                "tp = 1)" if self.cand.tp == 1 else "overlap=none)")]
        out = [f"tensor-parallel communication overlap ({'ov=' + self.cand.overlap}, chosen per layer "
               "by scheduling one layer): every layer alike:"]
        for phase in ("forward", "backward"):
            k = self.chunks.get(phase, 1)
            out.append(f"  {phase}: " + (f"each AllGather+GEMM and GEMM+{'ReduceScatter' if self.cand.sp else 'AllReduce'}"
                                         f" in {k} chunks of tokens" if k > 1 else "not chunked (no gain)"))
        return out

    def header(self, framework: str, comment: str) -> list[str]:
        lines = [f"{framework} launch for {self.cand.label()}: {self.model.name} on {self.gpus} x {self.target}",
                 f"schedcc plan predicts {self.step_s:.3f} s per step, MFU {self.mfu:.1%}, "
                 f"{self.memory_gb:.1f} GB per GPU",
                 f"recomputation: {self.recompute_words()}", *self.chunk_words()]
        if len(set(self.layers)) > 1:
            lines.append("pipeline stages: " + " ".join(str(n) for n in self.layers) + " layers")
        return [f"{comment} {x}".rstrip() for x in lines]


@dataclass(frozen=True)
class Emitter:
    name: str
    suffix: str
    refuses: tuple[tuple[Callable[[Candidate], bool], str], ...]
    render: Callable[[Launch], str]
    notes: Callable[[Launch], list[str]] = lambda launch: []

    def reason(self, c: Candidate) -> str | None:
        return next((why for rule, why in self.refuses if rule(c)), None)


# -- Megatron-LM ---------------------------------------------------------------------------------

def _megatron_rows(L: Launch) -> list[tuple[str, object]]:
    c, m = L.cand, L.model
    rc = {"none": [], "selective": [("--recompute-granularity", "selective")],
          "full": [("--recompute-granularity", "full"), ("--recompute-method", "uniform"),
                   ("--recompute-num-layers", 1)],
          "partial": [("--recompute-granularity", "full"), ("--recompute-method", "block"),
                      ("--recompute-num-layers", c.recompute_layers)]}[c.recompute]
    zero = {0: [], 1: [("--use-distributed-optimizer", True)],
            2: [("--use-megatron-fsdp", True), ("--data-parallel-sharding-strategy", "optim_grads")],
            3: [("--use-megatron-fsdp", True), ("--data-parallel-sharding-strategy", "optim_grads_params")]}[c.zero]
    layers = L.layers
    even = len(set(layers)) == 1
    vpp = ("--num-layers-per-virtual-pipeline-stage", layers[0] if c.virtual > 1 and even else None)
    if even or c.pp == 1:
        uneven = []
    elif c.virtual == 1 and len(set(layers[1:-1])) <= 1:   # only the first and last stage differ
        uneven = [("--decoder-first-pipeline-num-layers", layers[0]),
                  ("--decoder-last-pipeline-num-layers", layers[-1])]
    else:   # any other split (and every uneven split with interleaving): the explicit layout
        uneven = [("--pipeline-model-parallel-layout", pipeline_layout(layers))]
    dp_sharded = c.dp * c.cp > 1
    rows = [
        ("--num-layers", m.layers), ("--hidden-size", m.hidden), ("--ffn-hidden-size", m.ffn_size),
        ("--num-attention-heads", m.heads),
        ("--group-query-attention", m.kv < m.heads), ("--num-query-groups", m.kv if m.kv < m.heads else None),
        ("--seq-length", m.seq), ("--max-position-embeddings", m.seq),
        ("--swiglu", m.gated), ("--untie-embeddings-and-output-weights", not m.tied_embeddings),
        ("--bf16", True),
        ("--attention-backend", {"eager": "unfused", "cudnn": "fused"}.get(L.settings.attention, L.settings.attention)
         if L.settings.attention in ("flash", "unfused", "eager", "cudnn") else None),
        ("--no-masked-softmax-fusion", L.settings.attention == "eager"),
        ("--attention-softmax-in-fp32", L.settings.attention == "eager"),
        ("--tensor-model-parallel-size", c.tp), ("--pipeline-model-parallel-size", c.pp), vpp,
        ("--context-parallel-size", c.cp if c.cp > 1 else None), ("--sequence-parallel", c.sp),
        ("--micro-batch-size", c.microbatch), ("--global-batch-size", L.global_batch),
        *zero, *rc, *uneven,
        ("--overlap-grad-reduce", dp_sharded and L.settings.grad_overlap),
        ("--overlap-param-gather", dp_sharded and c.zero >= 1 and L.settings.param_gather_overlap),
        ("--grad-reduce-in-bf16", L.sharding.grad_reduce_bytes == 2),
        ("--tp-comm-overlap", any(k > 1 for k in L.chunks.values())),
        ("--tp-comm-overlap-cfg", "tp_comm_overlap.yaml" if any(k > 1 for k in L.chunks.values()) else None)]
    return [(k, v) for k, v in rows if v is not None and v is not False]


def pipeline_layout(layers: tuple[int, ...]) -> str:
    """Megatron-Core's ``--pipeline-model-parallel-layout`` for model chunks of *layers* layers
    in layer order (chunk i on pipeline rank i mod pp): ``E`` the embedding, ``t`` a layer,
    ``L`` the loss, ``|`` between chunks.

    >>> pipeline_layout((3, 4, 4, 3))
    'Et*3|t*4|t*4|t*3L'
    """
    parts = [f"t*{n}" for n in layers]
    parts[0] = "E" + parts[0]
    parts[-1] += "L"
    return "|".join(parts)


def megatron_args(L: Launch) -> list[str]:
    """The command-line arguments (a list of words)."""
    out = []
    for k, v in _megatron_rows(L):
        out.append(k)
        if v is not True:
            out.append(str(v))
    return out


# Transformer Engine's userbuffer sites (Megatron-LM's --tp-comm-overlap-cfg YAML): schedcc's
# chunked sites, forward and backward; AllGather+GEMM sites overlap by a ring of tp steps in TE
SITES = {"forward": (("qkv_fprop", "ag"), ("proj_fprop", "rs"), ("fc1_fprop", "ag"), ("fc2_fprop", "rs")),
         "backward": (("proj_dgrad", "ag"), ("fc2_dgrad", "ag"), ("fc1_dgrad", "rs"), ("qkv_dgrad", "rs"))}


def tp_overlap_yaml(L: Launch) -> str:
    lines = []
    for phase, sites in SITES.items():
        k = L.chunks.get(phase, 1)
        if k <= 1:
            lines.append(f"# {phase}: schedcc does not chunk it (TE's defaults apply to these GEMMs)")
            continue
        for name, kind in sites:
            if kind == "rs":
                lines += [f"{name}:", "  method: pipeline", f"  num_splits: {k}"]
            else:
                lines += [f"{name}:", "  method: ring_exchange   # TE overlaps AllGather+GEMM in tp ring steps"]
    return "\n".join(lines) + "\n"


def render_megatron(L: Launch) -> str:
    lines = ["#!/bin/bash", *L.header("Megatron-LM", "#"),
             "# Add your data, tokenizer, optimizer and checkpoint arguments; every number below is the plan's."]
    if any(k > 1 for k in L.chunks.values()):
        lines += ["cat > tp_comm_overlap.yaml <<'EOF'", tp_overlap_yaml(L).rstrip("\n"), "EOF"]
    lines.append("MEGATRON_ARGS=(")
    for k, v in _megatron_rows(L):
        lines.append(f"    {k}" + ("" if v is True else f" {v}"))
    lines.append(")")
    nodes = max(1, L.gpus // L.devices_per_node)
    lines.append(f"torchrun --nproc-per-node {min(L.gpus, L.devices_per_node)} --nnodes {nodes} pretrain_gpt.py "
                 '"${MEGATRON_ARGS[@]}"')
    return "\n".join(lines) + "\n"


# -- torchtitan (0.2 job TOML) --------------------------------------------------------------------

TITAN_SCHEDULES = {"1f1b": "1F1B", "interleaved": "Interleaved1F1B", "zb-h1": "InterleavedZeroBubble",
                   "zb-h2": "InterleavedZeroBubble", "none": "1F1B"}
TITAN_FLAVORS = {"llama3-8b": ("llama3", "8B"), "llama3-70b": ("llama3", "70B"), "llama3.1-405b": ("llama3", "405B")}


def torchtitan_table(L: Launch) -> dict[str, dict[str, object]]:
    c, m = L.cand, L.model
    name, flavor = TITAN_FLAVORS.get(m.name, ("llama3", "debugmodel"))
    shard = c.dp if c.zero >= 2 else 1
    par = {"data_parallel_replicate_degree": c.dp // shard, "data_parallel_shard_degree": shard,
           "tensor_parallel_degree": c.tp, "pipeline_parallel_degree": c.pp, "context_parallel_degree": c.cp,
           "enable_async_tensor_parallel": any(k > 1 for k in L.chunks.values())}
    if c.zero >= 2:   # under a pipeline schedule FSDP holds the weights until the last backward (as priced)
        par["fsdp_reshard_after_forward"] = "always" if c.zero == 3 and c.reshard and c.pp == 1 else "never"
    if c.pp > 1:
        par["pipeline_parallel_schedule"] = TITAN_SCHEDULES[c.schedule]
        par["pipeline_parallel_microbatch_size"] = c.microbatch
        layers = L.layers
        base = max(layers)
        par["pipeline_parallel_first_stage_less_layers"] = base - layers[0]
        par["pipeline_parallel_last_stage_less_layers"] = base - layers[-1]
        par["pipeline_parallel_layers_per_stage"] = base
    local = L.global_batch // c.dp if c.pp > 1 else c.microbatch
    ac = {"none": {"mode": "none"}, "full": {"mode": "full"},
          "selective": {"mode": "selective", "selective_ac_option": "op"}}[c.recompute]
    return {"job": {"description": f"schedcc plan: {c.label()}"},
            "model": {"name": name, "flavor": flavor},
            "training": {"local_batch_size": local, "global_batch_size": L.global_batch, "seq_len": m.seq,
                         "mixed_precision_param": "bfloat16", "mixed_precision_reduce": "float32"},
            "parallelism": par, "activation_checkpoint": ac,
            "compile": {"enable": bool(par["enable_async_tensor_parallel"])}}


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def render_torchtitan(L: Launch) -> str:
    lines = L.header("torchtitan", "#")
    if L.model.name not in TITAN_FLAVORS:
        lines.append(f"# {L.model.name} is no torchtitan flavor: register its sizes (layers {L.model.layers}, "
                     f"hidden {L.model.hidden}, heads {L.model.heads}) as a flavor and name it below")
    if L.cand.zero == 2:
        lines.append("# ZeRO-2: FSDP2 keeps the gathered weights after forward (fsdp_reshard_after_forward = never)")
    for section, values in torchtitan_table(L).items():
        lines += ["", f"[{section}]"] + [f"{k} = {_toml_value(v)}" for k, v in values.items()]
    return "\n".join(lines) + "\n"


# -- DeepSpeed ---------------------------------------------------------------------------------------

def deepspeed_config(L: Launch) -> dict:
    c = L.cand
    cfg: dict = {"train_batch_size": L.global_batch, "train_micro_batch_size_per_gpu": c.microbatch,
                 "gradient_accumulation_steps": L.accumulation, "bf16": {"enabled": True},
                 "zero_optimization": {"stage": c.zero, "overlap_comm": bool(L.settings.grad_overlap),
                                       "contiguous_gradients": True, "reduce_scatter": True,
                                       **({"reduce_bucket_size": int(L.settings.bucket_elements)}
                                          if L.settings.bucket_elements else {})},
                 "communication_data_type": "bf16" if L.sharding.grad_reduce_bytes == 2 else "fp32"}
    if c.recompute == "full":
        cfg["activation_checkpointing"] = {"partition_activations": False, "contiguous_memory_optimization": False,
                                           "cpu_checkpointing": False}
    if c.tp > 1:
        cfg["tensor_parallel"] = {"autotp_size": c.tp}
    if c.pp > 1:
        cfg["pipeline"] = {"stages": "auto", "partition": "parameters", "activation_checkpoint_interval":
                           1 if c.recompute == "full" else 0}
    cfg["schedcc"] = {"configuration": c.label(), "predicted_step_s": round(L.step_s, 4),
                      "recomputation": L.recompute_words(), "tensor_parallel_overlap": " ".join(L.chunk_words()),
                      "launch": f"Megatron-DeepSpeed: --tensor-model-parallel-size {c.tp} "
                                f"--pipeline-model-parallel-size {c.pp}" + (" --sequence-parallel" if c.sp else "")
                                + (" --checkpoint-activations" if c.recompute == "full" else "")}
    return cfg


def render_deepspeed(L: Launch) -> str:
    return json.dumps(deepspeed_config(L), indent=2) + "\n"


def _state_notes(L: Launch, name: str) -> list[str]:
    """What the plan priced that *name*'s launch cannot say: another attention kernel, another
    optimizer state size."""
    out = []
    if L.settings.attention == "triton":
        out.append(f"the plan priced the 2023 Triton FlashAttention; {name} runs its own fused kernel "
                   "(faster: re-plan with --attention flash)")
    if L.sharding.optimizer_bytes != (8 if L.sharding.fp32_params else 12):
        out.append(f"the plan priced {L.sharding.optimizer_bytes} optimizer bytes a parameter; {name} keeps "
                   f"{8 if L.sharding.fp32_params else 12} (fp32 master weights and Adam's moments): expect more "
                   "memory than planned")
    return out


def _megatron_notes(L: Launch) -> list[str]:
    return _state_notes(L, "Megatron-LM")


def _torchtitan_notes(L: Launch) -> list[str]:
    out = _state_notes(L, "torchtitan")
    if L.sharding.grad_reduce_bytes == 2:
        out.append("the plan priced bf16 gradient reduction; torchtitan 0.2 reduces in float32 only "
                   "(training.mixed_precision_reduce): expect slower reductions than planned")
    return out


def _deepspeed_notes(L: Launch) -> list[str]:
    if any(k > 1 for k in L.chunks.values()):
        return ["DeepSpeed does not chunk tensor-parallel collectives against GEMMs: expect the step of "
                "overlap=none (schedcc plan --fix overlap=none scores it)"] + _state_notes(L, "DeepSpeed")
    return _state_notes(L, "DeepSpeed")


def _data_rules(name: str) -> tuple[tuple[Callable[[Candidate], bool], str], ...]:
    """What ``frameworks.toml`` says *name* cannot run among the dimensions the emitters do not
    check themselves: uneven stages (``trim``) and FSDP without resharding."""
    from schedcc.planner.frameworks import framework
    fw = framework(name)
    return ((lambda c: c.trim > 0 and not fw.offers("trim", c.trim),
             f"{fw.title} needs even pipeline stages (frameworks.toml: uneven_stages = false)"),
            (lambda c: c.zero >= 3 and not fw.offers("reshard", c.reshard),
             f"{fw.title} reshards FSDP's weights after the forward (frameworks.toml: reshard)"))


EMITTERS: dict[str, Emitter] = {e.name: e for e in (
    Emitter("megatron", ".sh", (
        (lambda c: c.schedule in ("zb-h1", "zb-h2"), "Megatron-LM has no zero-bubble schedule (ZB-H1/H2)"),
        (lambda c: c.zero >= 2 and c.pp > 1, "Megatron FSDP needs pp = 1"),
        (lambda c: c.tp > 1 and c.overlap != "none" and not c.sp,
         "Megatron-LM overlaps tensor-parallel communication (--tp-comm-overlap) only with sequence parallelism"),
        *_data_rules("megatron")),
        render_megatron, _megatron_notes),
    Emitter("torchtitan", ".toml", (
        (lambda c: c.zero == 1, "torchtitan has no ZeRO-1 (it shards with FSDP2: ZeRO-3, or ZeRO-2 without "
                                "resharding)"),
        (lambda c: c.recompute == "partial", "torchtitan recomputes every n-th layer, not the first n of a chunk"),
        (lambda c: c.tp > 1 and not c.sp, "torchtitan's tensor parallelism is sequence-parallel"),
        *_data_rules("torchtitan")),
        render_torchtitan, _torchtitan_notes),
    Emitter("deepspeed", ".json", (
        (lambda c: c.schedule in ("interleaved", "zb-h1", "zb-h2"), "DeepSpeed's pipeline engine runs 1F1B only"),
        (lambda c: c.cp > 1, "DeepSpeed has no ring context parallelism"),
        (lambda c: c.recompute in ("selective", "partial"), "DeepSpeed checkpoints whole layers only"),
        (lambda c: c.zero >= 2 and c.pp > 1, "DeepSpeed's ZeRO-2/3 do not combine with its pipeline engine"),
        *_data_rules("deepspeed")),
        render_deepspeed, _deepspeed_notes),
)}


@dataclass
class Emitted:
    framework: str
    text: str
    chosen: object          # the Scored candidate emitted
    rank: int               # its place in the plan's ranking (1: the winner)
    notes: list[str] = field(default_factory=list)


def emit(result, framework: str, context=None) -> Emitted:
    """The launch configuration of the best feasible candidate of *result* (a
    :class:`~schedcc.planner.search.PlanResult`) that *framework* can run (module docstring).
    *context* (a :class:`~schedcc.planner.score.Context`) prices the overlap choice; by
    default one is made from the result's model and cluster."""
    if framework not in EMITTERS:
        raise SchedccError(f"--emit {framework}: unknown framework", notes=["frameworks: " + ", ".join(EMITTERS)])
    e = EMITTERS[framework]
    passed: list[str] = []
    for rank, s in enumerate(result.feasible, start=1):
        why = e.reason(s.candidate)
        if why is None:
            break
        passed.append(f"#{rank} {s.candidate.label()}: {why}")
    else:
        raise SchedccError(f"--emit {framework}: no feasible candidate of this plan can run on {framework}",
                           notes=(passed[:3] or ["the plan has no feasible candidate"])
                           + [f"--framework {framework} searches only what {framework} can run"
                              + (" (with a --fix it can run)" if passed else "")])
    ctx = context or _context(result)
    from schedcc.planner.overlap import chosen_chunks
    chunks = chosen_chunks(ctx.model, s.candidate, ctx.settings, ctx.cluster)
    launch = Launch(s.candidate, ctx.model, result.gpus, result.global_batch, ctx.settings, s.step_time_s, s.mfu,
                    s.memory_per_gpu_bytes / 1e9, chunks, result.target, ctx.cluster.devices_per_node)
    notes = []
    if passed:
        notes.append(f"emitting #{rank}, the best candidate {framework} can run; passed over: " + "; ".join(passed[:3])
                     + (f" (and {len(passed) - 3} more)" if len(passed) > 3 else ""))
    return Emitted(framework, e.render(launch), s, rank, notes + e.notes(launch))


def _context(result):
    from schedcc.planner.score import Context
    ctx = getattr(result, "context", None)
    if ctx is None:
        raise SchedccError("emit needs the plan's context (schedcc.plan keeps it on the result)")
    return ctx

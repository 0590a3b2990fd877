"""``schedcc plan MODEL --gpus N --global-batch B --target CLUSTER``: the auto-parallel planner."""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.commands.values import size, whole
from schedcc.errors import SchedccError
from schedcc.training.costs import PLANNER_CLUSTERS

HELP = "search dp/tp/pp/cp, microbatching, ZeRO and recomputation for a model on a cluster"
DESCRIPTION = """\
Search the parallel configurations of a transformer on N GPUs of a cluster
model (data, tensor, pipeline and context parallelism, virtual stages,
microbatch size, pipeline schedule, ZeRO stage, activation recomputation,
sequence parallelism), score every one by scheduling its training step
(operators of a layer, then the pipeline of microbatches and the data-parallel
collectives), and rank them: step time, tokens/s, TFLOP/s and MFU per GPU,
memory per GPU, exposed communication, bubble. docs/planner.md explains it;
docs/validation.md holds the cost model against published runs.

examples:
  schedcc plan llama3-70b --gpus 1024 --global-batch 1024 --target dgx-h100
  schedcc plan llama3-70b --gpus 1024 --global-batch 1024 --target dgx-h100 --explain --svg plan.svg
  schedcc plan transformer --layers 80 --hidden 8192 --heads 64 --kv-heads 8 --ffn-hidden 28672 \\
      --mlp swiglu --seq 4096 --vocab 128256 --gpus 1024 --global-batch 1024 --target dgx-h100 --fix tp=8,pp=8
  schedcc plan gpt-1t --gpus 3072 --global-batch 3072 --target dgx-a100 \\
      --fix tp=8,pp=64,microbatch=1,schedule=1f1b,zero=0,recompute=full,sp=0 --attention unfused
  schedcc plan llama3-70b --gpus 256 --global-batch 512 --target ascend910b-cluster --fix tp=8,overlap=auto
  schedcc plan llama3-70b --gpus 512 --global-batch 1024 --target dgx-h100 --framework deepspeed
  schedcc plan gpt3-175b --gpus 64 --global-batch 64 --target a100 --format json --ray auto"""


PLANNER_TARGETS = (f"the planner's cluster models: {', '.join(PLANNER_CLUSTERS)} (docs/planner.md; "
                   "they add memory_capacity and the kernel model to [cluster])")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from schedcc.planner.model import preset_names
    from schedcc.planner.calib_runs import ATTENTIONS, SETTING_RANGES
    parser.add_argument("model", help="'transformer' (give its sizes) or a named model: " + ", ".join(preset_names()))
    parser.add_argument("--gpus", type=size("gpus"), required=True, help="devices to use (the node count follows)")
    parser.add_argument("--global-batch", type=size("global_batch"), required=True, help="sequences per optimizer step")
    parser.add_argument("-t", "--target", required=True, help="cluster model: " + ", ".join(PLANNER_CLUSTERS))
    parser.add_argument("--fix", metavar="K=V,...", action="append",
                        help="pin dimensions: dp, tp, pp, cp, virtual, microbatch, schedule, zero, recompute "
                             "(none, selective, full, partial), recompute_layers (per model chunk, with partial), sp, "
                             "overlap, reshard (zero=3: FSDP reshards after forward, 1 or 0), trim (layers fewer on "
                             "the first and last stage) (e.g. --fix tp=8,pp=8); the rest are searched")
    parser.add_argument("--top", type=whole(1, 100_000, "rows printed"), default=10, help="rows of the table (default 10)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--explain", action="store_true", help="say what makes the winner win")
    parser.add_argument("--svg", metavar="OUT.svg", help="draw step time against memory, the Pareto front marked (.svg/.png)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the report (text or JSON) to OUT instead of standard "
                                                          "output; with --emit, the launch configuration")
    parser.add_argument("--emit", choices=("megatron", "torchtitan", "deepspeed"),
                        help="write the launch configuration of the best candidate the framework can run: Megatron-LM "
                             "arguments (a shell script), a torchtitan job TOML, a DeepSpeed config JSON; to -o, else "
                             "to standard output (the report then goes to standard error)")
    run = parser.add_argument_group("where candidates are scored")
    run.add_argument("--workers", type=whole(1, 1024, "processes on this machine"), default=None, help="processes (default: the number of cores; 1: none)")
    run.add_argument("--ray", metavar="auto|ADDRESS", help="score on Ray: 'auto' starts or joins a local Ray, "
                                                          "an address joins a cluster (pip install 'schedcc[ray]')")
    run.add_argument("--exhaustive", action="store_true",
                     help="schedule every candidate that fits (default: only those whose lower bound can enter the "
                          "--top rows; with --svg, also the picture's band; with --emit, every one that can beat "
                          "the best the framework can run)")
    run.add_argument("--progress", choices=("auto", "on", "off"), default="auto",
                     help="progress on stderr (default: a bar on a terminal after 2 s, elsewhere a line every 5 s; "
                          "on: a line every 2 s; off: none)")
    model = parser.add_argument_group("model sizes (for 'transformer', or to override a named model)")
    model.add_argument("--layers", type=size("layers"))
    model.add_argument("--hidden", type=size("hidden"))
    model.add_argument("--heads", type=size("heads"))
    model.add_argument("--kv-heads", type=size("kv_heads"), help="key/value heads (grouped-query attention; default: --heads)")
    model.add_argument("--ffn-hidden", type=size("ffn_hidden"), help="MLP width (default 4 x hidden)")
    model.add_argument("--seq", type=size("seq"), help="sequence length")
    model.add_argument("--vocab", type=size("vocab"))
    model.add_argument("--mlp", choices=("gelu", "swiglu"))
    model.add_argument("--dropout", action="store_true", default=None, help="dropout after attention and MLP")
    model.add_argument("--tied-embeddings", action="store_true", default=None, help="output layer shares the embedding")
    fw = parser.add_argument_group("the framework (not searched; defaults: the framework's, docs/planner.md)")
    from schedcc.planner.frameworks import names
    fw.add_argument("--framework", default="any", metavar="NAME",
                    help="search only what this software can run, priced as it runs it: " + ", ".join(names())
                    + " (default any: every technique)")
    fw.add_argument("--attention", choices=ATTENTIONS, default=None,
                    help="attention kernel: fused (FlashAttention-2 class), QK^T, softmax, dropout, PV apart, "
                         "the 2023 Triton FlashAttention (llm-foundry's attn_impl: triton), or eager: unfused "
                         "with the softmax as torch operators in fp32 (--no-masked-softmax-fusion), or cudnn: cuDNN's "
                         "fused attention (Transformer Engine's default on Hopper) (default: the framework's first)")
    overlap = fw.add_mutually_exclusive_group()
    overlap.add_argument("--grad-overlap", action="store_true",
                         help="reduce gradients under the backward that produces them (torch DDP's buckets)")
    overlap.add_argument("--no-grad-overlap", action="store_true",
                         help="reduce gradients after the last backward instead of under it")
    fw.add_argument("--no-param-gather-overlap", action="store_true",
                    help="ZeRO 1/2: gather weights after the optimizer instead of under the first forwards")
    fw.add_argument("--grad-reduce-bytes", type=whole(*SETTING_RANGES["grad_reduce_bytes"]),
                    choices=(2, 4), default=None,
                    help="bytes per gradient element reduced (4: fp32, Megatron-LM; 2: bf16, NeMo, FSDP 'PURE'); "
                         "Megatron-style frameworks keep the gradients in that dtype too (default: the framework's)")
    fw.add_argument("--bucket-elements", type=whole(*SETTING_RANGES["bucket_elements"]),
                    default=None, help="gradients per reduction bucket (Megatron 40M, DeepSpeed 500M; default: "
                                       "the framework's)")
    fw.add_argument("--fp32-params", action="store_true", default=None,
                    help="parameters kept in fp32, the optimizer's master copy (PyTorch FSDP mixed precision)")
    fw.add_argument("--optimizer-bytes", type=whole(*SETTING_RANGES["optimizer_bytes"]), default=None,
                    help="optimizer state bytes per parameter before sharding: 12 (fp32 master weight and Adam's "
                         "moments), 8 (fp32 parameters are the master), 10 (NeMo distributed_fused_adam, bf16 "
                         "parameters), 4 (its bf16 moments); default: the framework's")
    fw.add_argument("--expandable-segments", action="store_true", default=None,
                    help="the allocator's expandable segments (PYTORCH_CUDA_ALLOC_CONF or PYTORCH_NPU_ALLOC_CONF="
                         "expandable_segments:True): memory without the fragmentation term")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", dest="set_values",
                        help="override a cluster number, e.g. --set gemm_efficiency=0.7 (repeatable)")


_SIZES = {"layers": "layers", "hidden": "hidden", "heads": "heads", "kv_heads": "kv_heads", "ffn_hidden": "ffn",
          "seq": "seq", "vocab": "vocab", "mlp": "mlp", "dropout": "dropout", "tied_embeddings": "tied_embeddings"}


def build_model(args: argparse.Namespace):
    from schedcc.planner.model import ModelSpec, preset
    sizes = {field: getattr(args, opt) for opt, field in _SIZES.items() if getattr(args, opt) is not None}
    if args.model == "transformer":
        missing = [f"--{k}" for k in ("layers", "hidden", "heads", "seq", "vocab") if k not in sizes]
        if missing:
            raise SchedccError(f"plan transformer needs {', '.join(missing)}",
                               notes=["or name a model: schedcc plan llama3-70b ..."])
        spec = ModelSpec(name="transformer", **sizes)
        spec.check()
        return spec
    return preset(args.model, **sizes)


def _runnable(framework: str | None):
    """With --emit: the test of a candidate the framework can run (the search then ranks every
    candidate that can beat the best one it can run, not every candidate)."""
    if not framework:
        return None
    from schedcc.emit.launch import EMITTERS
    emitter = EMITTERS.get(framework)
    return None if emitter is None else (lambda c: emitter.reason(c) is None)


def run(args: argparse.Namespace) -> int:
    from schedcc.planner import plan
    from schedcc.planner.space import Settings
    from schedcc.target import load_target
    from schedcc.training.costs import apply_overrides, cluster_of, parse_overrides
    from schedcc.commands import outputs
    from schedcc.fileio import announce, check_outputs, write_output
    check_outputs(outputs(args, ("--svg",), ("-o", "--output")))
    if args.svg and not args.svg.lower().endswith((".svg", ".png")):
        raise SchedccError(f"--svg {args.svg}: use a .svg or .png file name")
    if args.ray and args.workers is not None:
        raise SchedccError("--ray and --workers: choose one (Ray schedules its own workers)")
    model = build_model(args)
    target = apply_overrides(load_target(args.target), parse_overrides(args.set_values))
    from schedcc.commands.values import option_error
    if target.domain != "cluster":
        raise option_error(args, "--target", f"target '{target.name}' is not a cluster model (it has no [cluster] "
                           "table)", notes=[PLANNER_TARGETS])
    cluster = cluster_of(target)
    if not cluster.memory_capacity or not cluster.compute_units:
        raise option_error(args, "--set" if args.set_values and any(
            s.startswith(("memory_capacity", "compute_units")) for s in args.set_values) else "--target",
            f"cluster model '{target.name}' has no memory_capacity or compute_units for the planner",
            notes=[PLANNER_TARGETS])
    given = {"attention": args.attention, "grad_reduce_bytes": args.grad_reduce_bytes,
             "bucket_elements": args.bucket_elements, "fp32_params": args.fp32_params,
             "optimizer_bytes": args.optimizer_bytes,
             "grad_overlap": False if args.no_grad_overlap else True if args.grad_overlap else None,
             "param_gather_overlap": False if args.no_param_gather_overlap else None,
             "expandable_segments": args.expandable_segments}
    settings = Settings(framework=args.framework, **{k: v for k, v in given.items() if v is not None})
    for given in args.fix or ():
        if not given.replace(",", "").strip():
            raise SchedccError("--fix names no dimension", notes=["for example --fix tp=8,pp=8"])
    fix = ",".join(args.fix) if args.fix else None
    progress = {"auto": None, "on": True, "off": False}[args.progress]
    try:
        res = plan(model, target, gpus=args.gpus, global_batch=args.global_batch, fix=fix, settings=settings,
                   workers=args.workers, ray=args.ray, progress=progress, explain=args.explain, keep=args.top,
                   band=bool(args.svg), exhaustive=args.exhaustive, runnable=_runnable(args.emit))
    except SchedccError as err:
        if err.loc is None and " GPUs" in err.message:  # nothing fits, or no layout uses them: the GPU count
            from schedcc.commands.values import option_error
            raise option_error(args, "--gpus", err.message, err.notes) from None
        raise
    note = ""
    if args.format == "json":
        data = res.to_json(None)
        data["flop_formula"] = ("model FLOPs = 3 x forward; forward per sequence = 2 s (matrix parameters) "
                                "+ 4 L s^2 h; MFU = model FLOPs / (step time x GPUs x peak)")
        if args.explain:
            from schedcc.emit.planner import explain_lines
            data["explain"] = explain_lines(res, args.top)
        text = json.dumps(data, indent=1) + "\n"
    else:
        from schedcc.emit.planner import plan_text
        text = plan_text(res, args.top, args.explain)
    emitted = None
    if args.emit:
        from schedcc.emit.launch import emit
        emitted = emit(res, args.emit)
    # The picture, the report and the launch file are written together, or none (the run's one transaction).
    if args.svg:
        from schedcc.viz.pareto import write_pareto
        note = write_pareto(args.svg, res) or f"wrote {args.svg}"
    if emitted is not None:
        if args.output:
            write_output(args.output, emitted.text)
            sys.stdout.write(text)
        else:
            sys.stdout.write(emitted.text)
            sys.stderr.write(text)
        for n in emitted.notes:
            sys.stderr.write(f"note: {n}\n")
    elif args.output is not None:
        write_output(args.output, text)
    else:
        sys.stdout.write(text)
    if note:
        announce(note)
    return 0

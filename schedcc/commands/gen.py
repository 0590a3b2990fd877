"""``schedcc gen transformer ...``: write the IR of one training step."""

from __future__ import annotations

import argparse
import sys

from schedcc.commands import outputs
from schedcc.commands.values import ITERATIONS, size
from schedcc.errors import plural
from schedcc.fileio import announce, check_outputs, is_standard_output, write_output
from schedcc.ir import print_program

HELP = "generate the IR of a training step (transformer, with dp/tp/pp)"
DESCRIPTION = """\
Write the IR of one training step of a GPT-style transformer: per layer the
forward and backward operators with FLOPs from the standard formulas (backward
split into input-gradient B and weight-gradient W), tensor-parallel all-reduces,
pipeline send/recv between stages in the order of --schedule, data-parallel
gradient all-reduce (or reduce-scatter + all-gather with --zero) and Adam.
One function per pipeline stage; see docs/training.md.

With --tp-comm-overlap K|auto the tensor- and expert-parallel collectives and
the GEMMs around them are cut into K chunks that overlap (auto: K per layer
and whether to pair microbatches, chosen by scheduling the candidates on
--target under --policy); see docs/training.md.

examples:
  schedcc gen transformer --layers 24 --hidden 4096 --seq 2048 --micro-batch 1 \\
      --microbatches 16 --dp 8 --tp 4 --pp 4 -o step.ir
  schedcc step.ir --target h100-128x --policy priority
  schedcc gen transformer --layers 24 --hidden 4096 --microbatches 16 --dp 8 --tp 4 --pp 4 \\
      --tp-comm-overlap auto -o overlapped.ir
  schedcc gen transformer --layers 8 --hidden 4096 --microbatches 8 --dp 8 --experts 8 --top-k 2 --ep 8 \\
      --tp-comm-overlap 4 -o moe.ir"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", choices=("transformer",), help="the model family")
    parser.add_argument("--layers", type=size("layers"), default=24, help="transformer layers (default 24)")
    parser.add_argument("--hidden", type=size("hidden"), default=4096, help="hidden size (default 4096)")
    parser.add_argument("--seq", type=size("seq"), default=2048, help="sequence length (default 2048)")
    parser.add_argument("--micro-batch", type=size("micro_batch"), default=1, help="sequences per microbatch (default 1)")
    parser.add_argument("--microbatches", type=size("microbatches"), default=16, help="microbatches per step (default 16)")
    parser.add_argument("--heads", type=size("heads"), default=None, help="attention heads (default hidden/128)")
    parser.add_argument("--vocab", type=size("vocab"), default=51200, help="vocabulary size (default 51200)")
    parser.add_argument("--dp", type=size("dp"), default=1, help="data-parallel degree")
    parser.add_argument("--tp", type=size("tp"), default=1, help="tensor-parallel degree")
    parser.add_argument("--pp", type=size("pp"), default=1, help="pipeline-parallel degree (stages)")
    parser.add_argument("--zero", action="store_true",
                        help="sharded data parallel: reduce-scatter gradients, all-gather parameters")
    parser.add_argument("--schedule", default="1f1b", choices=("gpipe", "1f1b", "zb-h1", "zb-h2"),
                        help="the pipeline order of each stage's program (default 1f1b)")
    parser.add_argument("--sequence-parallel", action="store_true",
                        help="Megatron's sequence parallelism: all-gather before and reduce-scatter after "
                             "the tensor-parallel GEMMs, norms on 1/tp of the tokens")
    parser.add_argument("--experts", type=size("experts"), default=0, help="mixture-of-experts layers with this many experts")
    parser.add_argument("--top-k", type=size("top_k"), default=2, help="experts per token (default 2)")
    parser.add_argument("--ep", type=size("ep"), default=1, help="expert-parallel degree (divides --dp and --experts)")
    from schedcc.commands import overlap_opts
    grp = overlap_opts.add_arguments(parser, "hiding tensor- and expert-parallel communication (docs/training.md)")
    grp.add_argument("--target", metavar="CLUSTER",
                     help="cluster model the choice is priced on (default: h100-8x or h100-128x, by size)")
    grp.add_argument("--policy", default="priority", help="policy the candidates are scheduled under (default priority)")
    grp.add_argument("--set", action="append", metavar="KEY=VALUE", dest="set_values",
                     help="override a cluster number for the choice, e.g. --set contention=0.2")
    grp.add_argument("--iterations", type=ITERATIONS, default=3, help="steps simulated per candidate (default 3)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write the IR to OUT (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from schedcc.training.generator import TransformerConfig, generate_program
    check_outputs(outputs(args, ("-o", "--output")))
    from schedcc.commands import overlap_opts
    from schedcc.commands.values import refuse_unused
    chunks, _ = overlap_opts.mode(args)
    needs = "prices --tp-comm-overlap's choice: give --tp-comm-overlap"
    refuse_unused(args, [(opt, dest, chunks is not None, needs) for opt, dest in (
        ("--target", "target"), ("--policy", "policy"), ("--set", "set_values"), ("--iterations", "iterations"),
        ("--max-activation-gib", "max_activation_gib"))])
    cfg = TransformerConfig(layers=args.layers, hidden=args.hidden, seq=args.seq, micro_batch=args.micro_batch,
                            microbatches=args.microbatches, dp=args.dp, tp=args.tp, pp=args.pp,
                            heads=args.heads, vocab=args.vocab, zero=args.zero, schedule=args.schedule,
                            sequence_parallel=args.sequence_parallel, experts=args.experts, top_k=args.top_k,
                            ep=args.ep)
    program = generate_program(cfg)
    # The smallest shipped cluster with a device for every rank (one node holds 8).
    cluster = args.target or ("h100-8x" if cfg.dp * cfg.tp * cfg.pp <= 8 else "h100-128x")
    moe = f" experts={cfg.experts} top_k={cfg.top_k} ep={cfg.ep}" if cfg.experts else ""
    head = (f"# transformer: layers={cfg.layers} hidden={cfg.hidden} seq={cfg.seq} micro_batch={cfg.micro_batch} "
            f"microbatches={cfg.microbatches} dp={cfg.dp} tp={cfg.tp} pp={cfg.pp} zero={cfg.zero} "
            f"schedule={cfg.schedule}" + (" sequence_parallel=True" if cfg.sequence_parallel else "") + moe +
            f"\n# generated by: schedcc gen transformer; schedule it with 'schedcc FILE --target {cluster}'\n")
    report = ""
    if chunks is not None:
        from schedcc.commands.train import cluster_model_named
        from schedcc.emit.training import format_overlap
        ov = overlap_opts.decompose(args, program, cluster_model_named(cluster, args.set_values), args.policy,
                                    args.iterations)
        program = ov.program
        head += "".join(f"# {line}\n" for line in format_overlap(ov).splitlines()[:2])
        report = format_overlap(ov)
    text = head + print_program(program)
    if args.output is not None and not is_standard_output(args.output):
        write_output(args.output, text)
        n = sum(len(b.instrs) - 1 for _, b in program.blocks())
        sys.stderr.write(report)
        announce(f"wrote {args.output}: {n} operators on {plural(cfg.pp, 'stage')}")
    elif args.output is not None:
        sys.stderr.write(report)
        write_output(args.output, text)
    else:
        sys.stderr.write(report)
        sys.stdout.write(text)
    return 0

"""``schedcc train STEP.ir --target CLUSTER``: schedule a training step under one policy.

The default command hands a program over to this one when its ``--target``
is a cluster model, so ``schedcc step.ir --target h100-8x --policy priority``
works as well.
"""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.errors import SchedccError

HELP = "schedule a training step on a cluster model (also: schedcc STEP.ir --target h100-8x)"
DESCRIPTION = """\
Schedule the operators of a distributed training step (IR with flops/bytes and
collectives) on a cluster model under a policy, and report step time, compute,
communication, exposed communication, overlap ratio, bubble and peak activation
memory per rank. docs/training.md explains the numbers.

examples:
  schedcc train step.ir --target h100-8x --policy priority
  schedcc train step.ir --target h100-128x --policy ddp --bucket-mb 50 --trace step.json
  schedcc step.ir --target h100-8x --policy fifo     (the default command: --policy and --format)
  schedcc train step.ir --target ascend910b-8x --set link_bw=100GB/s --format json"""


def add_training_arguments(parser: argparse.ArgumentParser, policy: bool = True) -> None:
    """Options for training steps; the default command adds them too."""
    from schedcc.training.policies import POLICIES, POLICY_HELP
    grp = parser.add_argument_group("training graphs (with a cluster --target, see docs/training.md)")
    if policy:
        grp.add_argument("--policy", default="priority", choices=list(POLICIES),
                         help="; ".join(f"{k}: {v}" for k, v in POLICY_HELP.items()) + " (default priority)")
    grp.add_argument("--set", action="append", metavar="KEY=VALUE", dest="set_values",
                     help="override a cluster number, e.g. --set link_bw=200GB/s (repeatable)")
    grp.add_argument("--group", action="append", metavar="NAME=SIZE", dest="group_sizes",
                     help="size of a group whose collectives give no 'ranks', e.g. --group dp=8")
    grp.add_argument("--iterations", type=int, default=3,
                     help="steps simulated; the one before the last is measured (default 3)")
    grp.add_argument("--bucket-mb", type=float, default=25.0, help="ddp bucket size in MiB (default 25)")
    grp.add_argument("--partition-mb", type=float, default=16.0, help="priority chunk size in MiB (default 16)")
    grp.add_argument("--credit-mb", type=float, default=None,
                     help="priority: MiB in flight at once (default: one chunk)")
    grp.add_argument("--trace", metavar="OUT.json", help="write a Chrome trace (Perfetto, chrome://tracing)")
    grp.add_argument("--timeline", metavar="OUT.svg", help="draw ranks x time as .svg or .png")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="training step in schedcc IR; '-' reads standard input")
    parser.add_argument("-t", "--target", required=True, help="cluster model: h100-8x, ascend910b-8x, h100-128x, ...")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    add_training_arguments(parser)


def parse_groups(items: list[str] | None) -> dict[str, int]:
    out = {}
    for item in items or ():
        name, sep, size = item.partition("=")
        if not sep or not size.strip().isdigit() or not name.strip():
            raise SchedccError(f"--group '{item}': expected NAME=SIZE, e.g. --group dp=8")
        out[name.strip()] = int(size)
    return out


def policy_options(args: argparse.Namespace, policy: str) -> dict:
    if policy == "ddp":
        return {"bucket_mb": args.bucket_mb}
    if policy == "priority":
        return {"partition_mb": args.partition_mb, "credit_mb": args.credit_mb}
    return {}


def load_graph(args: argparse.Namespace):
    from schedcc.fileio import read_input
    from schedcc.frontends.ir_text import parse
    from schedcc.training.costs import apply_overrides, parse_overrides
    from schedcc.training.graph import build_training_graph
    from schedcc.target import load_target
    text, name = read_input(args.file)
    args._source_text = text
    program = parse(text, name)
    target = apply_overrides(load_target(args.target), parse_overrides(args.set_values))
    if args.iterations < 1:
        raise SchedccError(f"--iterations must be at least 1, got {args.iterations}")
    from schedcc.training.graph import refine_location
    try:
        return build_training_graph(program, target, parse_groups(args.group_sizes)), name
    except SchedccError as err:
        raise refine_location(err, text) from None


def write_pictures(args: argparse.Namespace, result, title: str) -> list[str]:
    from schedcc.viz.training import write_step_timeline, write_step_trace
    notes = []
    inputs = (args.file,)
    if args.trace:
        write_step_trace(args.trace, result, inputs)
        notes.append(f"wrote {args.trace} (open it in https://ui.perfetto.dev or chrome://tracing)")
    if args.timeline:
        note = write_step_timeline(args.timeline, result, title, inputs)
        notes.append(note or f"wrote {args.timeline}")
    return notes


def _ms(us: float) -> str:
    return f"{us / 1000:,.3f} ms"


def format_result(result, name: str) -> str:
    lines = [f"{name} on {result.target}, policy {result.policy}: {result.operators} operators, "
             f"{len(result.ranks)} rank(s); {result.iterations} step(s) simulated, "
             + ("the one before the last measured" if result.iterations > 1 else "one step measured"),
             f"  step time              {_ms(result.step_time_us)}",
             f"  compute                {_ms(result.compute_us)}",
             f"  communication          {_ms(result.comm_us)}",
             f"  exposed communication  {_ms(result.exposed_comm_us)} ({result.exposed_fraction:.1%} of communication)",
             f"  overlap ratio          {result.overlap_ratio:.3f}  (computing while communicating / communicating)",
             f"  bubble                 {result.bubble:.1%}  (compute stream idle, mean over ranks)",
             "",
             "  rank  compute (ms)  comm (ms)  exposed (ms)  overlap  bubble  peak act (GiB)  utilisation"]
    for s in result.ranks:
        util = ", ".join(f"{k} {v:.0%}" for k, v in s.utilisation.items())
        lines.append(f"  {s.rank:>4}  {s.compute_us / 1000:>12,.3f}  {s.comm_us / 1000:>9,.3f}  "
                     f"{s.exposed_comm_us / 1000:>12,.3f}  {s.overlap_ratio:>7.3f}  {s.bubble:>6.1%}  "
                     f"{s.peak_activation_bytes / 2**30:>14.2f}  {util}")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from schedcc.training.api import schedule
    tg, name = load_graph(args)
    result = schedule(tg, tg.target, args.policy, args.iterations, **policy_options(args, args.policy))
    notes = write_pictures(args, result, f"{name}: {args.policy} on {tg.target.name}")
    if args.format == "json":
        sys.stdout.write(json.dumps({"file": name, **result.to_json()}, indent=2) + "\n")
    else:
        sys.stdout.write(format_result(result, name))
    for note in notes:
        sys.stderr.write(note + "\n")
    return 0


def is_cluster_target(spec: str) -> bool:
    """Whether the default command's --target names a cluster model (then this command runs)."""
    from schedcc.target import load_target
    try:
        return "cluster" in load_target(spec).raw
    except SchedccError:
        return False


def run_from_default(args: argparse.Namespace) -> int:
    """Run for ``schedcc FILE --target CLUSTER``: options the default command lacks take their defaults."""
    for option, attr in (("-o/--output", "output"), ("--emit-dag", "emit_dag"), ("--explain", "explain"),
                         ("--emit-pipeline", "emit_pipeline"), ("--show-pipeline", "show_pipeline"),
                         ("--pipeline (software pipelining)", "pipeline"), ("--emit-kernel", "emit_kernel")):
        if getattr(args, attr, None):
            raise SchedccError(f"{option} does not apply to a training step (target '{args.target}' is a cluster model)",
                               notes=["'schedcc train --help' lists the options for training steps: "
                                      "--policy, --trace, --timeline, --set, --format json ..."])
    parser = argparse.ArgumentParser(add_help=False)
    add_arguments(parser)
    defaults = vars(parser.parse_args([args.file, "--target", args.target]))
    for key, value in defaults.items():
        if not hasattr(args, key):
            setattr(args, key, value)
    return run(args)

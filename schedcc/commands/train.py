"""``schedcc train STEP.ir --target CLUSTER``: schedule a training step under one policy.

The default command hands a program over to this one when its ``--target``
is a cluster model, so ``schedcc step.ir --target h100-8x --policy priority``
works as well.
"""

from __future__ import annotations

import argparse
import json
import re
import sys

from schedcc.commands.values import ITERATIONS, MIB
from schedcc.errors import SchedccError
from schedcc.fileio import announce

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
    grp.add_argument("--iterations", type=ITERATIONS, default=3,
                     help="steps simulated; the one before the last is measured (default 3)")
    grp.add_argument("--bucket-mb", type=MIB, default=25.0, help="ddp bucket size in MiB (default 25)")
    grp.add_argument("--partition-mb", type=MIB, default=16.0, help="priority chunk size in MiB (default 16)")
    grp.add_argument("--credit-mb", type=MIB, default=None,
                     help="priority: MiB in flight at once (default: one chunk)")
    grp.add_argument("--trace", metavar="OUT.json", help="write a Chrome trace (Perfetto, chrome://tracing)")
    grp.add_argument("--timeline", metavar="OUT.svg", help="draw ranks x time as .svg or .png")
    grp.add_argument("--timeline-window", metavar="START:END",
                     help="draw only this stretch of the timeline, in ms (e.g. 100:102: chunks become visible)")
    from schedcc.commands import overlap_opts
    overlap_opts.add_arguments(parser, "hiding tensor- and expert-parallel communication: the step as given "
                                       "and transformed, both reported (docs/training.md)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="training step in schedcc IR; '-' reads standard input")
    parser.add_argument("-t", "--target", required=True, help="cluster model: h100-8x, ascend910b-8x, h100-128x, ...")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    add_training_arguments(parser)
    from schedcc.commands import exact_opts
    exact_opts.add_arguments(parser)


def parse_groups(items: list[str] | None) -> dict[str, int]:
    """``["dp=8"]`` -> ``{"dp": 8}``; a size is a whole number of ranks, at most the largest cluster's."""
    from schedcc.training.limits import SIZES
    hi = SIZES["gpus"].hi
    out = {}
    for item in items or ():
        name, sep, size = item.partition("=")
        if not sep or not re.fullmatch(r"\s*\d{1,30}\s*", size, re.ASCII) or not name.strip():
            raise SchedccError(f"--group '{item}': expected NAME=SIZE, e.g. --group dp=8")
        if not 1 <= int(size) <= hi:
            raise SchedccError(f"--group {item}: a group has from 1 to {hi:,} ranks (the largest clusters have "
                               f"about 100,000 devices), got {int(size):,}")
        if name.strip() in out:
            raise SchedccError(f"--group {item}: the size of '{name.strip()}' is given twice")
        out[name.strip()] = int(size)
    return out


def policy_options(args: argparse.Namespace, policy: str) -> dict:
    if policy == "ddp":
        return {"bucket_mb": args.bucket_mb}
    if policy == "priority":
        return {"partition_mb": args.partition_mb, "credit_mb": args.credit_mb}
    return {}


def step_options(args: argparse.Namespace, policy: str | None = None, policies: list[str] | None = None):
    """The job options of a training step from the command line (*policies*: every policy the
    command runs, for the options that apply to one of them)."""
    from schedcc.commands.values import refuse_unused
    from schedcc.driver.job import Options
    chosen = set(policies or [policy or args.policy])
    overlap = getattr(args, "tp_comm_overlap", None)
    refuse_unused(args, [
        ("--bucket-mb", "bucket_mb", "ddp" in chosen, "sizes the buckets of --policy ddp"),
        ("--partition-mb", "partition_mb", "priority" in chosen, "sizes the chunks of --policy priority"),
        ("--credit-mb", "credit_mb", "priority" in chosen, "bounds the chunks in flight of --policy priority"),
        ("--max-activation-gib", "max_activation_gib", overlap == "auto",
         "bounds what --tp-comm-overlap auto may keep"),
        ("--time-limit", "time_limit", getattr(args, "exact", False), "limits the exact solver: give --exact"),
        ("--workers", "workers", getattr(args, "exact", False), "sets the exact solver's threads: give --exact"),
    ])
    policy = policy or args.policy
    exact = {}
    if getattr(args, "exact", False):
        from schedcc.commands import exact_opts
        limits = exact_opts.limits(args)
        exact = {"exact": True, "time_limit": limits.time_limit, "workers": limits.workers}
    return Options(policy=policy, iterations=args.iterations,
                   groups=tuple(parse_groups(args.group_sizes).items()),
                   policy_options=tuple(policy_options(args, policy).items()), **exact)


def cluster_model(args: argparse.Namespace):
    """The cluster model of ``--target``, with ``--set`` applied: loaded once per run."""
    return cluster_model_named(args.target, args.set_values)


def cluster_model_named(name: str, set_values: list[str] | None):
    """The cluster model *name* with ``--set`` items applied (a clear error for another model)."""
    from schedcc.target import load_target
    from schedcc.training.costs import apply_overrides, cluster_of, parse_overrides
    target = apply_overrides(load_target(name), parse_overrides(set_values))
    cluster_of(target)  # a clear error when it is not a cluster model
    return target


WINDOW_MS = 1e9  # the end of a --timeline-window: a step of 11 days is far beyond any


def parse_window(text: str | None) -> tuple[float, float] | None:
    """``--timeline-window 100:102`` (ms) -> (100000.0, 102000.0) microseconds; both ends finite,
    from 0 to :data:`WINDOW_MS` milliseconds, the start before the end."""
    if text is None:
        return None
    a, sep, b = text.partition(":")
    try:
        lo, hi = float(a), float(b)
    except ValueError:
        lo = hi = -1.0
    if not sep or not 0 <= lo < hi <= WINDOW_MS:  # also NaN and infinities
        raise SchedccError(f"--timeline-window '{text}': expected START:END in milliseconds, the start before "
                           f"the end, both from 0 to {WINDOW_MS:g} (11 days), e.g. 100:102")
    return lo * 1000, hi * 1000


def write_pictures(result, title: str, inputs: tuple[str, ...], trace: str | None = None,
                   timeline: str | None = None, window: tuple[float, float] | None = None) -> list[str]:
    from schedcc.viz.training import write_step_timeline, write_step_trace
    notes = []
    if trace:
        write_step_trace(trace, result, inputs)
        notes.append(f"wrote {trace} (open it in https://ui.perfetto.dev or chrome://tracing)")
    if timeline:
        note = write_step_timeline(timeline, result, title, inputs, window)
        notes.append(note or f"wrote {timeline}")
    return notes


def present(result, name: str, fmt: str, source_path: str, trace: str | None = None,
            timeline: str | None = None, window: tuple[float, float] | None = None) -> int:
    """Write the pictures asked for and print the report of one scheduled step."""
    from schedcc.emit.training import format_step
    notes = write_pictures(result, f"{name}: {result.policy} on {result.target}", (source_path,), trace, timeline,
                           window)
    if fmt == "json":
        sys.stdout.write(json.dumps({"file": name, **result.to_json()}, indent=2) + "\n")
    else:
        sys.stdout.write(format_step(result, name))
    for note in notes:
        announce(note)
    return 0


def run(args: argparse.Namespace) -> int:
    from schedcc.driver.job import Job, run_job
    from schedcc.errors import located
    from schedcc.commands import outputs
    from schedcc.fileio import check_outputs, read_input
    from schedcc.frontends import parse_source
    from schedcc.commands import overlap_opts
    check_outputs(outputs(args, ("--trace",), ("--timeline",)), (args.file,))
    _refuse_torch_files(args.file)
    text, name = read_input(args.file)
    with located(text, name):
        if overlap_opts.mode(args)[0] is not None:
            return _run_overlap(args, parse_source(text, name, "ir").program, name)
        job = Job(parse_source(text, name, "ir"), cluster_model(args), step_options(args))
        return present(run_job(job).step, name, args.format, args.file, args.trace, args.timeline,
                       parse_window(args.timeline_window))


def _refuse_torch_files(path: str) -> None:
    """A saved PyTorch graph or a profiler trace given to ``train`` (which reads schedcc IR): say which
    command reads it, instead of a parse error about its bytes."""
    if path == "-":
        return
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return  # read_input reports it
    if head.startswith(b"PK\x03\x04") or path.endswith(".pt2"):
        raise SchedccError(f"{path}: a saved PyTorch graph (torch.export .pt2), not a schedcc IR training step",
                           notes=[f"reorder its collectives with: schedcc fx {path} --target CLUSTER "
                                  "(docs/torch-fx.md)"])
    if path.endswith((".json", ".json.gz")) and (head.startswith(b"\x1f\x8b") or b'"traceEvents"' in head
                                                 or b'"schemaVersion"' in head):
        raise SchedccError(f"{path}: a profiler trace (Chrome-trace JSON), not a schedcc IR training step",
                           notes=["replay it, with every rank's file, with: schedcc replay FILE-OR-FOLDER... "
                                  "(docs/traces.md)"])


def _run_overlap(args: argparse.Namespace, program, name: str) -> int:
    """``--tp-comm-overlap``: the step as given and transformed, scheduled under the policy."""
    from schedcc.commands import overlap_opts
    from schedcc.emit.training import format_before_after, format_overlap, format_step
    if getattr(args, "exact", False):
        raise SchedccError("--exact and --tp-comm-overlap do not combine: schedule the transformed step "
                           "(schedcc gen ... --tp-comm-overlap K -o step.ir) with --exact")
    opts = step_options(args)
    target, groups, options = cluster_model(args), dict(opts.groups), dict(opts.policy_options)
    ov = overlap_opts.decompose(args, program, target, args.policy, args.iterations, groups, **options)
    before, after = overlap_opts.before_after(ov, program, target, args.policy, args.iterations, groups, **options)
    notes = write_pictures(after, f"{name}: {after.policy} on {after.target}, tp-comm-overlap "
                                  f"{args.tp_comm_overlap}", (args.file,), args.trace, args.timeline,
                           parse_window(args.timeline_window))
    if args.format == "json":
        data = {"file": name, **after.to_json(),
                "overlap": {**ov.to_json(), "before": before.to_json(summary=True)}}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_step(after, name) + "\n" + format_before_after(before, after) + "\n"
                         + format_overlap(ov))
    for note in notes:
        announce(note)
    return 0

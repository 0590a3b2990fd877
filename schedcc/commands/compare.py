"""``schedcc compare STEP.ir --target CLUSTER``: one table across scheduling policies."""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.commands.train import (add_training_arguments, cluster_model, parse_window, policy_options, step_options,
                                    write_pictures)
from schedcc.fileio import announce

HELP = "compare the scheduling policies of a training step in one table"
DESCRIPTION = """\
Schedule a training step under every policy (or those given with --policies)
and print one table: step time, speedup over fifo, compute, communication,
exposed communication, overlap ratio, bubble and peak activation memory.
--trace and --timeline draw the fastest policy's schedule. With
--tp-comm-overlap each policy is also run on the transformed step (a
"+overlap" row), and what was chosen is printed below the table.

examples:
  schedcc compare step.ir --target h100-8x
  schedcc compare step.ir --target h100-8x --policies fifo,priority --partition-mb 32 --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="training step in schedcc IR; '-' reads standard input")
    parser.add_argument("-t", "--target", required=True, help="cluster model: h100-8x, ascend910b-8x, ...")
    parser.add_argument("--policies", default="fifo,ddp,priority,critical-path",
                        help="comma-separated policies (default: all four)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    add_training_arguments(parser, policy=False)


def run(args: argparse.Namespace) -> int:
    from schedcc.commands import overlap_opts
    from schedcc.emit.training import format_compare, format_overlap
    from schedcc.errors import SchedccError, located
    from schedcc.commands import outputs
    from schedcc.fileio import check_outputs, read_input
    from schedcc.frontends.ir_text import parse
    from schedcc.training.api import schedule
    from schedcc.training.graph import build_training_graph
    from schedcc.training.policies import POLICIES
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    for k, p in enumerate(policies):
        if p not in POLICIES:
            raise SchedccError(f"--policies: unknown policy '{p}'", notes=["policies: " + ", ".join(POLICIES)])
        if p in policies[:k]:
            raise SchedccError(f"--policies: '{p}' is named twice", notes=["each policy is one column of the table"])
    if not policies:
        raise SchedccError("--policies names no policy", notes=["policies: " + ", ".join(POLICIES)])
    check_outputs(outputs(args, ("--trace",), ("--timeline",)), (args.file,))
    text, name = read_input(args.file)
    with located(text, name):
        target = cluster_model(args)
        first = step_options(args, policies[0], policies)
        tg = build_training_graph(parse(text, name), target, dict(first.groups))  # built once for every policy
        labels = list(policies)
        overlaps = []
        if overlap_opts.mode(args)[0] is not None:
            results = []
            for p in policies:
                ov = overlap_opts.decompose(args, tg, target, p, args.iterations, **policy_options(args, p))
                results += overlap_opts.before_after(ov, tg, target, p, args.iterations, **policy_options(args, p))
                overlaps.append(ov)
            labels = [lab for p in policies for lab in (p, f"{p} +overlap")]
        else:
            results = [schedule(tg, target, p, args.iterations, **policy_options(args, p)) for p in policies]
    notes = []
    if args.trace or args.timeline:  # pictures of the best policy
        best = min(results, key=lambda r: r.step_time_us)
        notes = write_pictures(best, f"{name}: {best.policy} on {target.name}", (args.file,), args.trace,
                               args.timeline, parse_window(args.timeline_window))
    if args.format == "json":
        base = next((r for r, lab in zip(results, labels) if lab == "fifo"), results[0])
        data = {"file": name, "target": target.name, "baseline": base.policy,
                "policies": [{**r.to_json(), "speedup": base.step_time_us / r.step_time_us,
                              **({"label": lab, "overlap": lab.endswith("+overlap")} if overlaps else {})}
                             for r, lab in zip(results, labels)]}
        if overlaps:
            data["overlap"] = [ov.to_json() for ov in overlaps]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_compare(results, name, labels))
        for ov in overlaps:
            sys.stdout.write("\n" + format_overlap(ov))
    for note in notes:
        announce(note)
    return 0

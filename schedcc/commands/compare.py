"""``schedcc compare STEP.ir --target CLUSTER``: one table across scheduling policies."""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.commands.train import add_training_arguments, load_graph, policy_options, write_pictures

HELP = "compare the scheduling policies of a training step in one table"
DESCRIPTION = """\
Schedule a training step under every policy (or those given with --policies)
and print one table: step time, speedup over fifo, compute, communication,
exposed communication, overlap ratio, bubble and peak activation memory.
--trace and --timeline draw the fastest policy's schedule.

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


def format_table(results, name: str) -> str:
    base = next((r for r in results if r.policy == "fifo"), results[0])
    head = (f"{name} on {results[0].target}: {results[0].operators} operators, {len(results[0].ranks)} rank(s)\n"
            f"  {'policy':<14} {'step (ms)':>10} {'speedup':>8} {'compute':>9} {'comm':>9} {'exposed':>9} "
            f"{'exposed%':>8} {'overlap':>7} {'bubble':>7} {'peak act GiB':>12}\n")
    rows = []
    for r in results:
        peak = max(r.peak_activation_bytes.values(), default=0) / 2**30
        rows.append(f"  {r.policy:<14} {r.step_time_us / 1000:>10,.3f} {base.step_time_us / r.step_time_us:>7.3f}x "
                    f"{r.compute_us / 1000:>9,.3f} {r.comm_us / 1000:>9,.3f} {r.exposed_comm_us / 1000:>9,.3f} "
                    f"{r.exposed_fraction:>8.1%} {r.overlap_ratio:>7.3f} {r.bubble:>7.1%} {peak:>12.2f}")
    note = f"  speedup is over {base.policy}; times in ms; one steady-state step (docs/training.md)"
    return head + "\n".join(rows) + "\n" + note + "\n"


def run(args: argparse.Namespace) -> int:
    from schedcc.errors import SchedccError
    from schedcc.training.api import schedule
    from schedcc.training.policies import POLICIES
    policies = [p.strip() for p in args.policies.split(",") if p.strip()]
    for p in policies:
        if p not in POLICIES:
            raise SchedccError(f"unknown policy '{p}'", notes=["policies: " + ", ".join(POLICIES)])
    if not policies:
        raise SchedccError("--policies names no policy")
    tg, name = load_graph(args)
    results = [schedule(tg, tg.target, p, args.iterations, **policy_options(args, p)) for p in policies]
    notes = []
    if args.trace or args.timeline:  # pictures of the best policy
        best = min(results, key=lambda r: r.step_time_us)
        notes = write_pictures(args, best, f"{name}: {best.policy} on {tg.target.name}")
    if args.format == "json":
        base = next((r for r in results if r.policy == "fifo"), results[0])
        data = {"file": name, "target": tg.target.name, "baseline": base.policy,
                "policies": [{**r.to_json(), "speedup": base.step_time_us / r.step_time_us} for r in results]}
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_table(results, name))
    for note in notes:
        sys.stderr.write(note + "\n")
    return 0

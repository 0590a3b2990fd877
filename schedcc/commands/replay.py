"""``schedcc replay TRACES...``: replay PyTorch profiler traces of a real run, and ask what-ifs."""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.commands.values import MIB, whole
from schedcc.errors import plural

HELP = "replay PyTorch profiler traces (one per rank): measured vs replayed steps, exposed communication, what-ifs"
DESCRIPTION = """\
Read the Kineto traces torch.profiler wrote for every rank of one job (files,
or folders of *.json / *.json.gz), rebuild the profiled steps as a graph
(host operators, collectives and GPU kernels with their measured durations;
the waits found in the trace as dependences; each collective matched across
ranks) and replay it with schedcc's scheduler. Prints measured against
replayed step times and the exposed communication per rank as Holistic
Trace Analysis defines it. With a what-if (--policy, --bucket-mb or
--tp-chunks) the changed step is scheduled too and the predicted gain
printed; --trace / --timeline then draw the what-if's schedule.
docs/traces.md explains the numbers.

examples:
  schedcc replay traces/                          (rank0.json, rank1.json, ...)
  schedcc replay traces/ --bucket-mb 4 --trace whatif.json
  schedcc replay rank0.json rank1.json --policy priority --partition-mb 1
  schedcc replay tp-traces/ --tp-chunks 4 --timeline tp.svg --format json
  schedcc replay rank-0.json.gz rank-1.json.gz --subset   (2 ranks of a 128-rank job)"""

TP_CHUNKS = whole(2, 64, "chunks per tensor-parallel site; each chunk is a collective of its own")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from schedcc.training.policies import POLICIES
    parser.add_argument("traces", nargs="+", metavar="TRACE",
                        help="one Kineto trace per rank (.json or .json.gz), or folders of them")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--subset", action="store_true",
                        help="the files are some ranks of a larger job (a sample): replay those ranks, each "
                             "collective among the ranks given, instead of stopping at the ranks missing")
    grp = parser.add_argument_group("what-ifs (one at a time)")
    grp.add_argument("--policy", choices=list(POLICIES),
                     help="schedule the traced step under this policy (host threads keep their order): "
                          "priority cuts data-parallel collectives into --partition-mb chunks, critical-path "
                          "orders collectives by the critical path, ddp regroups gradients into --bucket-mb buckets")
    grp.add_argument("--bucket-mb", type=MIB, default=None, metavar="MB",
                     help="DDP traces: regroup the gradients into buckets of this many MiB (DDP's default is 25)")
    grp.add_argument("--partition-mb", type=MIB, default=16.0, metavar="MB", help="priority: chunk size in MiB (default 16)")
    grp.add_argument("--credit-mb", type=MIB, default=None, metavar="MB", help="priority: MiB in flight at once (default: one chunk)")
    grp.add_argument("--tp-chunks", type=TP_CHUNKS, default=None, metavar="K",
                     help="tensor-parallel traces: cut every GEMM + all-reduce site into this many chunks")
    out = parser.add_argument_group("pictures")
    out.add_argument("--trace", metavar="OUT.json",
                     help="write the replayed (or what-if) schedule as a Chrome trace (Perfetto, chrome://tracing)")
    out.add_argument("--timeline", metavar="OUT.svg", help="draw ranks x time as .svg or .png")


def _what_if(args: argparse.Namespace) -> dict | None:
    from schedcc.commands.values import option_error
    asked = {k: v for k, v in (("--policy", args.policy), ("--bucket-mb", args.bucket_mb),
                               ("--tp-chunks", args.tp_chunks)) if v is not None}
    if args.policy == "ddp":
        return {"bucket_mb": args.bucket_mb if args.bucket_mb is not None else 25.0}
    if len(asked) > 1:
        second = list(asked)[1]
        raise option_error(args, second, f"{second}: one what-if at a time ({' and '.join(asked)} given)",
                           ["run schedcc replay once per what-if"])
    if args.policy is not None:
        return {"policy": args.policy, "partition_mb": args.partition_mb, "credit_mb": args.credit_mb}
    if args.bucket_mb is not None:
        return {"bucket_mb": args.bucket_mb}
    if args.tp_chunks is not None:
        return {"tp_chunks": args.tp_chunks}
    return None


def run(args: argparse.Namespace) -> int:
    from schedcc.emit.replay import format_replay, format_what_if
    from schedcc.fileio import announce, check_outputs
    from schedcc.torch.kineto import trace_files
    from schedcc.torch.replay import replay
    from schedcc.torch.whatif import what_if
    asked = _what_if(args)
    files = [str(p) for p in trace_files(args.traces)]
    check_outputs({"--trace": args.trace, "--timeline": args.timeline}, tuple(files))
    result = replay(files, subset=args.subset)
    change = what_if(result, **asked) if asked is not None else None
    name = args.traces[0] if len(args.traces) == 1 else f"{len(files)} traces"
    timed = change.timed if change is not None else result.timed
    notes = []
    if args.trace:
        from schedcc.viz.replay import write_replay_trace
        meta = {"replay_of": files, "schedule": change.label if change else "replay",
                "step_us": change.step_us if change else result.replayed_us}
        write_replay_trace(args.trace, timed, meta, tuple(files))
        notes.append(f"wrote {args.trace} (open it in https://ui.perfetto.dev or chrome://tracing)")
    if args.timeline:
        from schedcc.viz.replay import write_replay_timeline
        title = (f"{name}: what-if {change.label}, {change.step_us / 1000:,.1f} ms "
                 f"({change.gain:+.1%} vs {change.baseline_label})" if change is not None else
                 f"{name}: replay of {plural(len(result.steps), 'profiled step')}, {plural(len(result.traces), 'rank')} "
                 f"({result.replayed_us / 1000:,.1f} ms; measured {result.measured_us / 1000:,.1f} ms)")
        note = write_replay_timeline(args.timeline, timed, title, tuple(files))
        notes.append(note or f"wrote {args.timeline}")
    if args.format == "json":
        data = {"file": name, **result.to_json()}
        if change is not None:
            data["what_if"] = change.to_json()
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_replay(result, name))
        if result.step.fit is not None and result.step.fit.samples:
            sys.stdout.write(f"\n  collective cost fit (prices what the trace did not run): "
                             f"{result.step.fit.describe()}\n")
        if change is not None:
            sys.stdout.write("\n" + format_what_if(change))
    for note in notes:
        announce(note)  # after the commit: a failed run never says "wrote"
    return 0

"""``schedcc pipeline``: build or import a pipeline-parallel schedule and time it."""

from __future__ import annotations

import argparse
import json
import re
import sys

from schedcc.commands.values import size
from schedcc.errors import SchedccError
from schedcc.fileio import announce

HELP = "evaluate a pipeline-parallel schedule (gpipe, 1f1b, interleaved, zb-h1, zb-h2, dualpipev, auto, or --import)"
DESCRIPTION = """\
Build a pipeline-parallel schedule as a graph (per-rank action lists in the
notation of torch.distributed.pipelining), schedule it with the list scheduler
and report the makespan, the bubble fraction and the peak activation memory
per rank. Without --target, actions take unit costs (F=1, B=2, or
--unit-costs); with a cluster --target they take the transformer cost model
(--layers, --hidden, --seq, --micro-batch, --tp) and transfers between ranks
take time on a comm:pp channel. docs/training.md explains the output.

examples:
  schedcc pipeline --schedule 1f1b --stages 4 --microbatches 8
  schedcc pipeline --schedule interleaved --virtual 2 --stages 4 --microbatches 8 --timeline pp.svg
  schedcc pipeline --schedule auto --stages 4 --microbatches 16 --memory-limit 6 --unit-costs F=1,I=1,W=1
  schedcc pipeline --schedule zb-h1 --stages 4 --microbatches 16 --target h100-128x --trace pp.json
  schedcc pipeline --schedule dualpipev --stages 4 --microbatches 8 --unit-costs F=1,I=1,W=1,FB=2
  schedcc pipeline --import schedule.txt --unit-costs F=1,B=2,I=1,W=1"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from schedcc.training.pipeline import SCHEDULES
    parser.add_argument("--schedule", default="1f1b", choices=SCHEDULES + ("auto",),
                        help="the schedule to build (default 1f1b)")
    parser.add_argument("--import", dest="import_file", metavar="FILE",
                        help="evaluate per-rank action lists (one rank per line, or JSON list of lists)")
    parser.add_argument("--stages", type=size("pp"), default=4, help="pipeline stages = ranks (default 4)")
    parser.add_argument("--microbatches", type=size("microbatches"), default=8, help="microbatches per step (default 8)")
    parser.add_argument("--virtual", type=size("virtual"), default=2, help="stages per rank for interleaved (default 2)")
    parser.add_argument("--memory-limit", metavar="N",
                        help="per-rank activation limit: microbatch activations of one stage (e.g. 4), "
                             "or bytes with --target (e.g. 20GiB)")
    parser.add_argument("--unit-costs", metavar="F=1,B=2,I=1,W=1,C=0",
                        help="abstract action costs (C: one transfer between ranks; FB: an OVERLAP_F_B "
                             "composite, default F+B); default F=1,B=2")
    parser.add_argument("-t", "--target", help="cluster model for real costs (e.g. h100-128x)")
    parser.add_argument("--set", action="append", metavar="KEY=VALUE", dest="set_values",
                        help="override a cluster number, e.g. --set net_bw=25GB/s")
    model = parser.add_argument_group("model (with --target)")
    model.add_argument("--layers", type=size("layers"), default=24)
    model.add_argument("--hidden", type=size("hidden"), default=4096)
    model.add_argument("--seq", type=size("seq"), default=2048)
    model.add_argument("--micro-batch", type=size("micro_batch"), default=1)
    model.add_argument("--tp", type=size("tp"), default=1, help="tensor parallelism inside each stage")
    model.add_argument("--dp", type=size("dp"), default=1, help="data parallelism (spaces the pipeline ranks apart)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--trace", metavar="OUT.json", help="write a Chrome trace")
    parser.add_argument("--timeline", metavar="OUT.svg", help="draw ranks x time (.svg or .png)")


MAX_ACTIVATIONS = 1e6  # --memory-limit in microbatch activations: a rank never holds more than 4,096 x 128
MAX_BYTES = 1e15       # --memory-limit in bytes: a petabyte per device


def _size(text: str) -> float:
    """``--memory-limit``: a count of microbatch activations (``6``, ``2.5``) or bytes (``20GiB``),
    greater than 0 and at most :data:`MAX_ACTIVATIONS` or :data:`MAX_BYTES`."""
    from schedcc.frontends.ir_text import UNIT_SCALE
    import re
    m = re.fullmatch(r"\s*([0-9]{0,20}\.?[0-9]{1,20}(?:[eE][+-]?[0-9]{1,4})?)\s*([A-Za-z]*)\s*", text)
    if not m or (m.group(2) and not (m.group(2) in UNIT_SCALE and m.group(2).endswith("B"))):
        raise SchedccError(f"--memory-limit: cannot read '{text}'", notes=["write a number, or bytes like 20GiB"])
    value = float(m.group(1)) * (UNIT_SCALE[m.group(2)] if m.group(2) else 1)
    hi, what = (MAX_BYTES, "bytes; a petabyte per device") if m.group(2) else \
        (MAX_ACTIVATIONS, "microbatch activations per rank")
    if not 0 < value <= hi:
        raise SchedccError(f"--memory-limit: must be greater than 0 and at most {hi:g} ({what}), got '{text}'")
    return value


def run(args: argparse.Namespace) -> int:
    from schedcc.errors import located
    from schedcc.commands import outputs
    from schedcc.fileio import check_outputs, read_input
    check_outputs(outputs(args, ("--trace",), ("--timeline",)),
                  (args.import_file,) if args.import_file else ())
    if not args.import_file:
        return _run(args, None)
    text, fname = read_input(args.import_file)
    with located(text, fname):
        return _run(args, (text, fname))


def _run(args: argparse.Namespace, imported: tuple[str, str] | None) -> int:
    from schedcc.commands.train import cluster_model
    from schedcc.emit.training import format_pipeline
    from schedcc.training.costs import cluster_of
    from schedcc.training.pipeline import PipelineResult, evaluate_named
    from schedcc.training.pipeline_graph import StageCosts, evaluate
    from schedcc.training.pipeline_import import costs_from_target, parse_schedule_text, parse_unit_costs

    lists = None
    name = args.schedule
    inputs: tuple[str, ...] = ()
    if imported is not None:
        text, fname = imported
        lists = parse_schedule_text(text, fname)
        inputs = (args.import_file,)
        name = f"import:{fname}"
    stages = args.stages
    if lists is not None:
        stages = 1 + max((x.stage for acts in lists for a in acts for x in (a.sub or (a,))), default=0)
    act_bytes = None
    unit = "units"
    if args.target:
        if args.unit_costs is not None:
            raise SchedccError("--unit-costs and --target exclude each other",
                               notes=["unit costs are abstract; a target gives real ones"])
        target = cluster_model(args)
        cluster = cluster_of(target)
        ranks = (len(lists) if lists is not None else args.stages) * args.tp * args.dp
        if ranks > cluster.world:
            from schedcc.commands.values import option_error
            raise option_error(args, "--target", f"{ranks} devices needed (stages x tp x dp), target '{target.name}' "
                               f"has {cluster.world}", notes=["choose a larger model, e.g. h100-128x, or fewer ranks"])
        costs, act_bytes = costs_from_target(target, stages, args.layers, args.hidden, args.seq,
                                             args.micro_batch, args.tp, args.dp)
        unit = "us"
    else:
        costs = parse_unit_costs(args.unit_costs) if args.unit_costs is not None else StageCosts()
    limit = None
    if args.memory_limit is not None:
        limit = _size(args.memory_limit)
        in_bytes = re.search(r"[A-Za-z]\s*$", args.memory_limit) is not None
        if in_bytes and not act_bytes:
            raise SchedccError(f"--memory-limit: '{args.memory_limit}' is bytes, which needs --target",
                               notes=["a cluster model says how many bytes one microbatch's activations take; "
                                      "without one, write a count of them (e.g. 4)"])
        if act_bytes and in_bytes:
            limit = limit / act_bytes
        if limit <= 0:
            raise SchedccError("--memory-limit must be positive")
    if lists is not None:
        ranks = len(lists)
        mbs = 1 + max((x.mb for acts in lists for a in acts for x in (a.sub or (a,)) if x.mb is not None), default=0)
        res = PipelineResult(name, ranks, mbs, stages // max(ranks, 1), evaluate(lists, costs), unit)
    else:
        if args.schedule == "interleaved" and args.virtual < 2:
            raise SchedccError("interleaved needs --virtual 2 or more")
        try:
            res = evaluate_named(args.schedule, args.stages, args.microbatches, args.virtual, costs, limit, unit)
        except SchedccError as err:
            if act_bytes and limit is not None:
                err.notes.append(f"one microbatch's activations on one stage take {act_bytes / 2**30:.3g} GiB, "
                                 f"so --memory-limit {args.memory_limit} is {limit:.3g} of them")
            if limit is not None and err.loc is None and "limit" in err.message:  # the option to change
                from schedcc.commands.values import option_error
                raise option_error(args, "--memory-limit", err.message, err.notes) from None
            raise
    notes = []
    if args.trace:
        from schedcc.viz.training import write_pipeline_trace
        write_pipeline_trace(args.trace, res, inputs)
        notes.append(f"wrote {args.trace} (open it in https://ui.perfetto.dev or chrome://tracing)")
    if args.timeline:
        from schedcc.viz.training import write_pipeline_timeline
        notes.append(write_pipeline_timeline(args.timeline, res, inputs) or f"wrote {args.timeline}")
    data = res.to_json()
    if act_bytes:
        data["peak_activation_bytes"] = {r: v * act_bytes for r, v in data["peak_activation"].items()}
    if args.format == "json":
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(format_pipeline(data, act_bytes))
    for note in notes:
        announce(note)
    return 0

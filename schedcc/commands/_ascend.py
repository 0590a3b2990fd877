"""The Ascend part of ``schedcc FILE --target ascend``: its options, and the presenter of its results.

The job is :func:`schedcc.ascend.job.run_kernels` (through the driver); this
module prints what it found and writes the files asked for.
"""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.commands.values import whole
from schedcc.errors import SchedccError
from schedcc.fileio import announce, write_output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("Ascend targets (--target ascend910b / ascend910a)")
    group.add_argument("--emit-timeline", metavar="FILE",
                       help="draw the pipes over time, one lane per pipe (.svg, or .png with a converter)")
    group.add_argument("--trace", metavar="FILE",
                       help="write a Chrome trace (JSON: Perfetto, chrome://tracing) with one thread per pipe")
    group.add_argument("--tiles", type=whole(1, 1024, "tiles unrolled into straight-line code; 1,024 tiles "
                                                     "are about 25,000 instructions, 2 s"), default=1, metavar="N",
                       help="unroll every tile loop into straight-line code for N tiles, so that tiles "
                            "overlap (also with --pipeline)")
    group.add_argument("--buffers", type=whole(1, 16, "buffer copies per tile; Ascend C's BUFFER_NUM is 1 or 2"),
                       default=None, metavar="K",
                       help="rotate each tile over K buffer copies (Ascend C's BUFFER_NUM): alone, the tile "
                            "loop stays a loop with flags across its back edge; with --tiles, the tiles are "
                            "unrolled (default 2)")
    group.add_argument("--no-code", action="store_true",
                       help="do not print the synchronised program, or with --pipeline the pipelined loops' code "
                            "(it is still written with -o)")


def check_options(args: argparse.Namespace) -> None:
    """Refuse Ascend-only options for other targets, before any work is done."""
    for opt, value in (("--emit-timeline", args.emit_timeline), ("--trace", args.trace)):
        if value:
            raise SchedccError(f"{opt} draws the pipes of an Ascend target; '{args.target}' is not one",
                               notes=["use --target ascend910b (alias ascend) or ascend910a"])


def present(args: argparse.Namespace, result, name: str) -> int:
    """Print an Ascend job's report and write the code, DAG, timeline and trace asked for."""
    from schedcc.emit.ascend import (format_code, format_explain, format_loop, format_pipelined, format_report,
                                     kernels_json, loop_json, pipelined_json)
    from schedcc.viz.ascend import loop_timeline_bars, loop_trace_events, timeline_bars, trace_events
    res = result.ascend
    target = res.target
    kernels, loops, pipelined = res.kernels, res.loops, res.pipelined
    reported = res.reported
    inputs = (args.file,)
    notes = []
    code = format_code(kernels, loops)
    # Everything is computed before anything is written.
    if args.output:
        write_output(args.output, code, inputs)
    if getattr(args, "emit_dag", None):
        from schedcc.viz.dag_dot import results_to_dot, write_dag_picture
        note = write_dag_picture(results_to_dot(kernels, f"{name} on {target.name}: dependence DAG "
                                                "(red: critical path)"), args.emit_dag, inputs)
        if note:
            notes.append(note)
    if args.emit_timeline:
        from schedcc.viz.timeline import write_timeline
        lanes = [p for p in target.units]
        if loops:
            bars = [b for lk in loops for b in loop_timeline_bars(lk)]
            title = f"{name} on {target.name}: the tile loop, {loops[0].iterations} iterations"
        else:
            bars, title = timeline_bars(kernels), f"{name} on {target.name}: pipes over time (blocks end to end)"
        note = write_timeline(args.emit_timeline, bars, lanes=lanes, title=title, inputs=inputs)
        if note:
            notes.append(note)
    if args.trace:
        from schedcc.viz.chrome_trace import write_chrome_trace
        events, flows = trace_events(reported)
        for lk in loops:
            events += loop_trace_events(lk)
        write_chrome_trace(args.trace, events, flows, metadata={"source": name, "target": target.name},
                           inputs=inputs)
    if args.format == "json":
        doc = kernels_json(kernels)
        if loops:
            doc["loops"] = [loop_json(lk) for lk in loops]
        if pipelined:
            doc["pipelined"] = [pipelined_json(p) for p in pipelined]
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
    else:
        for p in pipelined:
            sys.stdout.write(format_pipelined(p) + "\n\n")
        sys.stdout.write(format_report(reported))
        for lk in loops:
            sys.stdout.write(format_loop(lk) + "\n\n")
        if getattr(args, "explain", False):
            for k in kernels:
                if k.sync.flags or k.sync.barriers:
                    sys.stdout.write(format_explain(k) + "\n\n")
        if not args.no_code:
            sys.stdout.write("\n" + code)
    for note in notes:
        announce(note)
    return 0

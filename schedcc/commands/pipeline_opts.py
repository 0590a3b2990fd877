"""The ``--pipeline`` family of options of the default command (software pipelining).

Kept apart from ``schedule.py`` so that the default command only hands over to it.
"""

from __future__ import annotations

import argparse
import sys

from schedcc.fileio import announce, write_output
from schedcc.sched.modulo import ALGORITHMS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("software pipelining (docs/modulo.md)")
    group.add_argument("--pipeline", action="store_true",
                       help="modulo-schedule every loop: II, stages, registers, kernel table, generated code "
                            "(-o writes the pipelined program, in FILE's language: .ir, .ll or .s)")
    group.add_argument("--modulo", choices=list(ALGORITHMS), default="ims",
                       help="modulo scheduler: " + "; ".join(f"{k}: {v}" for k, v in ALGORITHMS.items()))
    group.add_argument("--emit-kernel", metavar="FILE",
                       help="draw overlapping iterations, not pipelined vs pipelined (.svg or .png); implies --pipeline")


def wants_pipeline(args: argparse.Namespace) -> bool:
    return bool(args.pipeline or args.emit_kernel)


def present(args: argparse.Namespace, result, source, list_doc=None) -> int:
    """Print the pipelining report (text) or add ``loops`` to the JSON document *list_doc*;
    write the pipelined program and the kernel picture asked for."""
    # Here, not at the top: the default command imports this module for its options.
    from schedcc.emit.json_out import dumps
    from schedcc.emit.modulo_out import format_pipeline, format_pipeline_explain, loops_json
    inputs = (args.file,)
    notes = []
    if args.output:  # the pipelined program in the input's language
        write_output(args.output, result.text, inputs)
    if args.emit_kernel:
        from schedcc.viz.kernel import write_kernel_picture
        note = write_kernel_picture(args.emit_kernel, result.loops, result.target, inputs)
        if note:
            notes.append(note)
    if args.format == "json":
        doc = dict(list_doc or {})
        doc["loops"] = loops_json(result)
        sys.stdout.write(dumps(doc))
    else:
        sys.stdout.write(format_pipeline(result, show_code=not getattr(args, "no_code", False),
                                         chosen=bool(getattr(args, "functions", None) or getattr(args, "blocks", None))))
        if args.explain:
            for res in result.loops:
                sys.stdout.write("\n" + format_pipeline_explain(res))
    for note in notes:
        announce(note)
    return 0

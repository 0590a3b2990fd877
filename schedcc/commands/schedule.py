"""``schedcc FILE --target T``: list-schedule every block and report."""

from __future__ import annotations

import argparse
import sys

from schedcc.driver import schedule_program
from schedcc.emit.json_out import dumps, program_json
from schedcc.emit.explain import format_walkthrough
from schedcc.emit.text import format_program
from schedcc.fileio import check_distinct_outputs, read_input, write_output
from schedcc.frontends import LANGS, parse_source
from schedcc.sched.priority import PRIORITIES, PRIORITY_HELP
from schedcc.viz.dag_dot import results_to_dot, write_dag_picture
from schedcc.viz.pipeline_diagram import format_block_diagrams
from schedcc.viz.pipeline_svg import write_pipeline_picture
from schedcc.ascend.model import is_ascend
from schedcc.target.overrides import apply_overrides
from schedcc.target import load_target
from schedcc.commands import _ascend
from schedcc.commands import pipeline_opts

HELP = "schedule a program (the default command)"
DESCRIPTION = """\
Schedule every basic block of FILE for a machine model and report the
schedule, the cycles saved against the original order and a lower bound.

examples:
  schedcc examples/lecture.ir --target mips4
  schedcc examples/lecture.ir --target mips4 --explain --emit-dag dag.svg
  schedcc examples/lecture.ir --target mips4 --show-pipeline --emit-pipeline pipe.svg
  schedcc prog.ir --target la464 --format json -o prog.sched.ir
  schedcc prog.ll --target la464 -o prog.sched.ll     (LLVM IR, e.g. clang -S -emit-llvm)
  schedcc prog.s --target loongarch -o prog.sched.s   (LoongArch64 assembly)
  schedcc examples/ascend/vector_add.ir --target ascend --emit-timeline pipes.svg

-o writes the output program: the scheduled program in FILE's language, or for
Ascend targets the synchronised Ascend C-style code (docs/ascend.md)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE",
                        help="program: schedcc IR (.ir), LLVM IR (.ll) or LoongArch assembly (.s); "
                             "'-' reads standard input")
    parser.add_argument("--lang", choices=LANGS,
                        help="language of FILE (default: from its extension; .ir otherwise)")
    parser.add_argument("-t", "--target", default="generic",
                        help="machine model: a name from 'schedcc targets' or a path to a .toml file "
                             "(default: generic)")
    parser.add_argument("--policy", default="priority", choices=("fifo", "ddp", "priority", "critical-path"),
                        help="with a cluster target (a training step): the scheduling policy; "
                             "'schedcc train --help' lists every training option")
    parser.add_argument("--priority", default="critical-path", choices=list(PRIORITIES),
                        help="list-scheduling priority: " + "; ".join(f"{k}: {v}" for k, v in PRIORITY_HELP.items()))
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="write the output program to OUT: the scheduled program in FILE's language, or "
                             "for Ascend targets the synchronised Ascend C-style code")
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        help="override one value of the machine model, by its dotted TOML path "
                             "(e.g. classes.copy_in.params.bandwidth=128); repeatable")
    parser.add_argument("--emit-dag", metavar="FILE", help="draw the dependence DAG (.svg, .png, .pdf or .dot)")
    parser.add_argument("--explain", action="store_true",
                        help="walk through the list scheduler's steps as the lecture does (text output)")
    parser.add_argument("--show-pipeline", action="store_true",
                        help="draw the pipeline diagram (stages per cycle, stalls) of the original and the "
                             "scheduled order (text output)")
    parser.add_argument("--emit-pipeline", metavar="FILE.svg",
                        help="draw the pipeline diagram of both orders side by side as SVG")
    check = parser.add_mutually_exclusive_group()
    check.add_argument("--verify", dest="verify", action="store_true", default=None,
                       help="check every schedule with the independent verifier (the default)")
    check.add_argument("--no-verify", dest="verify", action="store_false",
                       help="skip the verifier (it takes about half the time of scheduling)")
    pipeline_opts.add_arguments(parser)
    _ascend.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from schedcc.commands.train import is_cluster_target, run_from_default
    if is_cluster_target(args.target):  # a training step: see 'schedcc train' and docs/training.md
        return run_from_default(args)
    check_distinct_outputs({opt: getattr(args, attr, None) for opt, attr in (
        ("-o", "output"), ("--emit-dag", "emit_dag"), ("--emit-pipeline", "emit_pipeline"),
        ("--emit-kernel", "emit_kernel"), ("--emit-timeline", "emit_timeline"), ("--trace", "trace"))})
    text, name = read_input(args.file)
    args._source_text = text
    source = parse_source(text, name, args.lang)
    program = source.program
    if not any(b.instrs for _, b in program.blocks()):
        sys.stderr.write(f"note: {name} has no instructions\n")
    target = apply_overrides(load_target(args.target), args.set)
    if is_ascend(target):
        return _ascend.run(args, program, target, name)
    _ascend.check_options(args)
    result = schedule_program(program, target, priority=args.priority, explain=args.explain,
                              check=args.verify)
    if pipeline_opts.wants_pipeline(args):
        if args.set:
            args.target = target  # the model with the --set changes
        doc = program_json(result, args.priority) if args.format == "json" else None
        return pipeline_opts.run_pipeline(args, program, doc)
    notes = []
    inputs = (args.file,)
    # Everything is computed before anything is written: a failure leaves no half-written files.
    if args.output:
        write_output(args.output, source.render(result.scheduled_program()), inputs)
    if args.emit_dag:
        title = f"{name} on {result.target.name}: dependence DAG (red: critical path)"
        note = write_dag_picture(results_to_dot(result.blocks, title), args.emit_dag, inputs)
        if note:
            notes.append(note)
    if args.emit_pipeline:
        write_pipeline_picture(result, args.emit_pipeline, inputs)
    if args.format == "json":
        sys.stdout.write(dumps(program_json(result, args.priority)))
    else:
        sys.stdout.write(format_program(result))
        if args.show_pipeline and not args.explain:  # --explain shows it already
            for res in result.blocks:
                sys.stdout.write("\n" + format_block_diagrams(res, result.target))
        if args.explain:
            for res in result.blocks:
                sys.stdout.write("\n" + format_walkthrough(res, result.target))
    for note in notes:
        sys.stderr.write(note + "\n")
    return 0

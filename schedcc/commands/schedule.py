"""``schedcc FILE --target T``: schedule a program for any machine model and report.

The job itself is the library's (:func:`schedcc.driver.job.run_job`, which
picks the domain from the target); this module reads the options, and hands
the result to the presenter of its domain, which prints it and writes the
files asked for.
"""

from __future__ import annotations

import argparse
import os
import sys

from schedcc.commands import _ascend, exact_opts, outputs, pipeline_opts, select_opts
from schedcc.errors import SchedccError, located
from schedcc.fileio import announce, check_outputs, read_input
from schedcc.frontends import LANGS, parse_source
from schedcc.sched.priority import PRIORITIES, PRIORITY_HELP

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
  schedcc examples/lecture.ir --target mips4 --exact       (the proven optimum next to the heuristic)

-o writes the output program: the scheduled program in FILE's language, or for
Ascend targets the synchronised Ascend C-style code (docs/ascend.md)."""

# Options that only one domain understands, as (option, attribute, the domains that take it).
_DOMAIN_ONLY = (
    ("-o/--output", "output", ("cpu", "ascend")),
    ("--emit-dag", "emit_dag", ("cpu", "ascend")),
    ("--explain", "explain", ("cpu", "ascend")),
    ("--emit-pipeline", "emit_pipeline", ("cpu",)),
    ("--show-pipeline", "show_pipeline", ("cpu",)),
    ("--pipeline (software pipelining)", "pipeline", ("cpu", "ascend")),
    ("--emit-kernel", "emit_kernel", ("cpu",)),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE",
                        help="program: schedcc IR (.ir), LLVM IR (.ll) or LoongArch or RISC-V assembly (.s); "
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
    parser.add_argument("--no-repair", dest="repair", action="store_false",
                        help="the plain list scheduler: no repair rounds when a block misses its lower bound "
                             "(to compare priorities as the lecture does)")
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
    select_opts.add_arguments(parser)
    pipeline_opts.add_arguments(parser)
    exact_opts.add_arguments(parser)
    _ascend.add_arguments(parser)


def load_model(args: argparse.Namespace):
    """The machine model of ``--target`` with every ``--set``: loaded once per run."""
    from schedcc.target import load_target
    from schedcc.target.overrides import apply_overrides
    return apply_overrides(load_target(args.target), args.set)


def job_options(args: argparse.Namespace):
    from schedcc.driver.job import Options
    limits = exact_opts.limits(args)
    return Options(priority=args.priority, explain=args.explain, verify=args.verify is not False,
                   pipeline=pipeline_opts.wants_pipeline(args), modulo=args.modulo, tiles=args.tiles,
                   buffers=args.buffers, policy=args.policy, exact=args.exact,
                   time_limit=limits.time_limit, workers=limits.workers, repair=args.repair,
                   functions=tuple(args.functions), blocks=tuple(args.blocks))


def check_options(args: argparse.Namespace, domain: str, target_name: str) -> None:
    """Refuse, before any work, an option the target's domain has no use for."""
    for option, attr, domains in _DOMAIN_ONLY:
        if getattr(args, attr, None) and domain not in domains:
            if domain == "cluster":
                raise SchedccError(f"{option} does not apply to a training step (target '{target_name}' is a "
                                   "cluster model)",
                                   notes=["'schedcc train --help' lists the options for training steps: "
                                          "--policy, --trace, --timeline, --set, --format json ..."])
            raise SchedccError(f"{option} draws a CPU's pipeline; an Ascend core's pipes are drawn with "
                               "--emit-timeline FILE.svg")
    from schedcc.commands.values import refuse_unused
    pipelining = pipeline_opts.wants_pipeline(args)
    refuse_unused(args, [
        ("--tiles", "tiles", domain == "ascend", "unrolls the tile loops of an Ascend kernel (--target ascend)"),
        ("--buffers", "buffers", domain == "ascend", "rotates an Ascend kernel's tiles over buffer copies "
                                                     "(--target ascend)"),
        ("--no-code", "no_code", domain == "ascend" or pipelining,
         "hides the code of an Ascend kernel or of pipelined loops (--pipeline)"),
        ("--policy", "policy", domain == "cluster", "orders a training step's communication (a cluster --target)"),
        ("--modulo", "modulo", pipelining, "chooses the modulo scheduler of --pipeline"),
        ("--time-limit", "time_limit", args.exact, "limits the exact solver: give --exact"),
        ("--workers", "workers", args.exact, "sets the exact solver's threads: give --exact"),
        ("--no-repair", "repair", not pipelining and domain != "cluster",
         "turns off the list scheduler's repair rounds, which --pipeline and training steps do not run"),
    ])
    if domain != "cpu" and (args.functions or args.blocks):
        option = "--function" if args.functions else "--block"
        from schedcc.commands.values import option_error
        raise option_error(args, option, f"{option} chooses blocks of an instruction program (a CPU target); "
                           f"target '{target_name}' is {'an Ascend' if domain == 'ascend' else 'a cluster'} model",
                           value=False)
    if domain == "cpu":
        _ascend.check_options(args)
    elif domain == "cluster" and args.emit_timeline:
        raise SchedccError("--emit-timeline draws the pipes of an Ascend target",
                           notes=["a training step's timeline: schedcc train STEP.ir --target "
                                  f"{target_name} --timeline OUT.svg"])


def run(args: argparse.Namespace) -> int:
    check_outputs(outputs(args, ("-o", "--output"), ("--emit-dag",), ("--emit-pipeline",), ("--emit-kernel",),
                          ("--emit-timeline",), ("--trace",)), (args.file,))
    exact_opts.limits(args)  # a bad --time-limit is refused before any work
    text, name = read_input(args.file)
    with located(text, name):
        from schedcc.driver.job import Job, run_job
        source = parse_source(text, name, args.lang)
        target = load_model(args)
        check_options(args, target.domain, args.target)
        chosen = select_opts.selection(args, source.program)
        if not any(b.instrs for f, b in source.program.blocks() if chosen is None or chosen.wants(f.name, b.label)):
            sys.stderr.write(f"note: {name} has no instructions" + (" in the blocks chosen\n" if chosen else "\n"))
        result = run_job(Job(source, target, job_options(args)))
        return _PRESENTERS[result.domain](args, result, name)


def _present_cpu(args: argparse.Namespace, result, name: str) -> int:
    from schedcc.emit.explain import format_walkthrough
    from schedcc.emit.json_out import program_json, program_json_text
    from schedcc.emit.text import format_program
    from schedcc.fileio import write_output
    from schedcc.viz.pipeline_diagram import format_block_diagrams
    blocks = result.blocks
    if result.loops is not None:
        doc = program_json(blocks, args.priority) if args.format == "json" else None
        return pipeline_opts.present(args, result.loops, result.job.source, doc)
    notes = []
    inputs = (args.file,)
    # Everything is computed before anything is written: a failure leaves no half-written files.
    if args.output:
        write_output(args.output, result.job.source.render(blocks.scheduled_program()), inputs)
    if args.emit_dag:
        from schedcc.viz.dag_dot import write_block_pictures
        title = f"{os.path.basename(name)} on {blocks.target.name}: dependence DAG (red: critical path)"
        note = write_block_pictures(blocks.blocks, args.emit_dag, title, inputs)
        if note:
            notes.append(note)
    if args.emit_pipeline:
        from schedcc.viz.pipeline_svg import write_pipeline_picture
        write_pipeline_picture(blocks, args.emit_pipeline, inputs)
    if args.format == "json":
        sys.stdout.write(program_json_text(blocks, args.priority))
    else:
        sys.stdout.write(format_program(blocks))
        if args.show_pipeline and not args.explain:  # --explain shows it already
            for res in blocks.blocks:
                sys.stdout.write("\n" + format_block_diagrams(res, blocks.target))
        if args.explain:
            for res in blocks.blocks:
                sys.stdout.write("\n" + format_walkthrough(res, blocks.target))
    for note in notes:
        announce(note)
    return 0


def _present_step(args: argparse.Namespace, result, name: str) -> int:
    from schedcc.commands import train
    return train.present(result.step, name, args.format, args.file, trace=args.trace)


_PRESENTERS = {"cpu": _present_cpu, "ascend": _ascend.present, "cluster": _present_step}

"""``schedcc gap DIR --target T``: the heuristic against the proven optimum on every file.

Every input file (``.ir``, ``.ll``, ``.s``) in DIR is scheduled twice, by the
list scheduler and by the exact solver (:mod:`schedcc.sched.exact`), block by
block; the table has one row per file (its blocks summed) and the totals.
A file the target cannot schedule (unknown opcodes, a syntax error) is
listed as skipped with the reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from schedcc.commands import exact_opts, values
from schedcc.errors import SchedccError

HELP = "compare the list scheduler with the proven optimum on every file of a directory"
DESCRIPTION = """\
Schedule every input file (.ir, .ll, .s) of DIR with the list scheduler and
exactly (CP-SAT), and print per file the heuristic's makespan, the optimum
(or the best found and its bound), the gap and the solve time, then the totals.
docs/exact.md explains the model and its proofs.

examples:
  schedcc gap examples --target mips4
  schedcc gap examples/loops --target la664 --time-limit 5 --format json
  schedcc gap examples/ascend --target ascend910b"""

EXTENSIONS = (".ir", ".ll", ".s")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="DIR", help="directories (or files) of programs")
    parser.add_argument("-t", "--target", default="generic", help="machine model (default: generic)")
    from schedcc.sched.priority import PRIORITIES
    parser.add_argument("--priority", default="critical-path", metavar="{" + ",".join(PRIORITIES) + "}",
                        help="the list scheduler's priority (default: critical-path)")
    parser.add_argument("-r", "--recursive", action="store_true", help="also the files in subdirectories")
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        help="override one value of the machine model (as for the default command)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    exact_opts.add_arguments(parser, always=True)


def input_files(args: argparse.Namespace) -> list[Path]:
    """The files to compare, sorted; a path that names none is an error on the command line."""
    out: list[Path] = []
    for arg in args.paths:
        path = Path(arg)
        if path.is_file():
            out.append(path)
            continue
        if not path.is_dir():
            raise values.argument_error(args, arg, f"{arg}: no such file or directory")
        found = sorted(p for p in (path.rglob("*") if args.recursive else path.iterdir())
                       if p.is_file() and p.suffix in EXTENSIONS)
        if not found:
            notes = ["add -r to look into its subdirectories"] if not args.recursive and any(
                p.is_dir() for p in path.iterdir()) else []
            raise values.argument_error(args, arg, f"{arg} has no input files ({', '.join(EXTENSIONS)})",
                                            notes=notes)
        out += found
    return out


def compare_file(path: Path, target, options) -> dict:
    """One row of the table: the file's blocks, heuristic and exact, summed."""
    from schedcc.driver.job import Job, run_job
    from schedcc.errors import located
    from schedcc.fileio import read_input
    from schedcc.frontends import parse_source
    text, name = read_input(str(path))
    try:
        with located(text, name):
            results = run_job(Job(parse_source(text, name), target, options)).exact_results()
    except SchedccError as err:
        return {"file": str(path), "error": err.render().splitlines()[0]}
    return {"file": str(path), "blocks": len(results),
            "heuristic": sum(e.heuristic_makespan for _, e in results),
            "optimal": sum(e.makespan for _, e in results),
            "bound": sum(e.lower_bound for _, e in results),
            "proven": sum(1 for _, e in results if e.optimal),
            "heuristic_optimal": sum(1 for _, e in results if e.optimal and e.heuristic_makespan == e.makespan),
            "seconds": sum(e.seconds for _, e in results),
            "details": [{"block": b, **e.to_json()} for b, e in results]}


def run(args: argparse.Namespace) -> int:
    from schedcc.commands.schedule import load_model
    from schedcc.driver.job import Options
    from schedcc.emit.exact_out import format_gap_table
    from schedcc.sched.priority import PRIORITIES
    limits = exact_opts.limits(args)
    if args.priority not in PRIORITIES:
        raise values.option_error(args, "--priority", f"unknown priority '{args.priority}'",
                                      notes=[f"choose one of: {', '.join(PRIORITIES)}"])
    files = input_files(args)
    target = load_model(args)
    if target.domain == "cluster":
        raise values.option_error(args, "--target", f"'{args.target}' is a cluster model; gap compares "
                                      "instruction blocks and Ascend kernels",
                                      notes=[f"a training step: schedcc STEP.ir --target {args.target} --exact"])
    options = Options(priority=args.priority, exact=True, time_limit=limits.time_limit, workers=limits.workers)
    rows = [compare_file(path, target, options) for path in files]
    if args.format == "json":
        sys.stdout.write(json.dumps({"target": target.name, "time_limit": limits.time_limit, "files": rows},
                                    indent=2) + "\n")
    else:
        sys.stdout.write(format_gap_table(rows, target.name))
    return 0

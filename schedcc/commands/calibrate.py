"""``schedcc calibrate RUNS.toml -o CLUSTER.toml``: fit a cluster file to measured runs."""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.errors import SchedccError

HELP = "fit a cluster file's shared constants to measured steps of your own runs"
DESCRIPTION = """\
Fit the constants of a cluster file that no datasheet gives (GEMM, attention
and streaming-kernel efficiencies, collective efficiency inside a node and
between nodes, latencies, contention) to measured steps of your own runs, and
write a cluster file for `schedcc plan --target FILE.toml`. RUNS.toml names
the cluster file to start from and lists the runs: model, GPUs, global batch,
configuration and the measured step (or a PyTorch profiler trace). Runs not
fitted are held out: the report gives their errors and the Kendall rank
correlation of predicted and measured steps. docs/planner.md explains the file.

examples:
  schedcc calibrate examples/calibration/jeanzay-a100-bloom.toml -o jeanzay.toml
  schedcc plan llama3-70b --gpus 384 --global-batch 2048 --target jeanzay.toml
  schedcc calibrate runs.toml --fit-on a,b --constants compute,net_efficiency
  schedcc calibrate runs.toml --fit-on auto --constants attention_efficiency,net_efficiency
  schedcc calibrate runs.toml --format json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("runs", help="the calibration file (TOML: [cluster], [fit], [[runs]])")
    parser.add_argument("-o", "--output", metavar="CLUSTER.toml",
                        help="write the fitted cluster file (nothing is written when the input is refused)")
    parser.add_argument("--fit-on", metavar="ID,...",
                        help="the runs to fit (the others are held out); 'auto': the two (or one per constant) "
                             "whose sensitivities tell the constants apart best, chosen without looking at "
                             "their measured steps; default: [fit] on, or the runs "
                             "marked fit = true, or every run not marked fit = false")
    parser.add_argument("--constants", metavar="NAME,...",
                        help="the constants to fit: compute, gemm_efficiency, attention_efficiency, "
                             "memory_efficiency, comm_efficiency, net_efficiency, link_latency, net_latency, "
                             "contention, launch_overhead (default: [fit] constants, or those the fitted runs "
                             "can tell apart, at most one per run)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")


def _names(text: str | None) -> list[str] | None:
    return [x.strip() for x in text.split(",") if x.strip()] if text else None


def run(args: argparse.Namespace) -> int:
    from schedcc.commands.values import option_error
    from schedcc.emit.calibration import cluster_file, report_json, report_text
    from schedcc.fileio import announce, check_outputs, write_output
    from schedcc.planner.calib_runs import read_runs
    from schedcc.planner.calibrate import KNOBS, calibrate
    check_outputs({"--output": args.output}, (args.runs,))
    if args.output and not args.output.endswith(".toml") and args.output != "-":
        raise option_error(args, "--output", f"--output {args.output}: a cluster file ends in .toml "
                                             "(schedcc plan --target reads it by that name)")
    constants = _names(args.constants)
    for c in constants or ():
        if c not in KNOBS:
            raise option_error(args, "--constants", f"--constants: unknown constant '{c}'",
                               notes=["constants: " + ", ".join(KNOBS)])
    inp = read_runs(args.runs)
    fit_on = _names(args.fit_on)
    ids = [r.id for r in inp.runs]
    for x in fit_on or ():
        if x not in ids and fit_on != ["auto"]:
            raise option_error(args, "--fit-on", f"--fit-on: no run of {args.runs} has the id '{x}'",
                               notes=["runs: " + ", ".join(ids)])
    try:
        fit = calibrate(inp, constants, fit_on)
    except SchedccError as err:
        if err.loc is None and "too few runs" in err.message and (args.constants or args.fit_on):
            raise option_error(args, "--constants" if args.constants else "--fit-on", err.message,
                               notes=err.notes) from None
        about_constants = err.message.startswith(("unknown constant", "a constant is asked twice", "'compute'"))
        if err.loc is None and (about_constants or "too few runs" in err.message):
            # the file's [fit] table asked it: point there, as every other error in the file does
            key = "constants" if about_constants or inp.constants else "on"
            located = inp.locate(err.message, key, table="fit", notes=err.notes)
            if located.loc is not None:
                raise located from None
        raise
    command = "schedcc calibrate " + " ".join(getattr(args, "_argv", [])[1:])
    text = (json.dumps(report_json(fit), indent=1) + "\n") if args.format == "json" else report_text(fit)
    if args.output:
        write_output(args.output, cluster_file(fit, command.strip()), (args.runs,))
    sys.stdout.write(text)
    if args.output and args.output != "-":
        announce(f"wrote {args.output}: use it with schedcc plan ... --target {args.output}")
    if fit.unstable:
        sys.stderr.write("warning: the fit is unstable (see the report); the cluster file says so\n")
    return 0

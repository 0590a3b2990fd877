"""``schedcc report FILE --target T -o report.html``: one self-contained HTML page."""

from __future__ import annotations

import argparse
import sys

from schedcc.commands import outputs
from schedcc.driver import schedule_program
from schedcc.fileio import announce, check_outputs, is_standard_output, read_input, write_output
from schedcc.errors import located, plural
from schedcc.frontends import LANGS, parse_source
from schedcc.sched.priority import PRIORITIES

HELP = "write a self-contained HTML report (DAG, schedule, pipeline, walkthrough)"
DESCRIPTION = """\
Schedule every block of FILE and write one HTML page with the dependence DAG,
the schedule table, the pipeline diagram of the original and the scheduled
order, and the lecture-style walkthrough of the list scheduler; for loops,
the software-pipelined kernel (the modulo scheduler's picture). The
page needs no network: pictures and styles are inline, there is no script.

examples:
  schedcc report examples/lecture.ir --target mips4 -o lecture.html"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="program: schedcc IR (.ir), LLVM IR (.ll) or LoongArch "
                                                     "assembly (.s); '-' reads standard input")
    parser.add_argument("-t", "--target", default="generic", help="machine model (default: generic)")
    parser.add_argument("--lang", choices=LANGS,
                        help="language of the input files (default: from the extension; .ir otherwise)")
    parser.add_argument("--priority", default="critical-path", choices=list(PRIORITIES),
                        help="list-scheduling priority (default: critical-path)")
    parser.add_argument("-o", "--output", metavar="OUT.html", required=True, help="the page to write")
    parser.add_argument("--title", help="the page's title (default: file and target)")


def run(args: argparse.Namespace) -> int:
    from schedcc.report.html import report_html  # Graphviz is needed only here

    check_outputs(outputs(args, ("-o", "--output")), (args.file,))
    text, name = read_input(args.file)
    with located(text, name):
        source = parse_source(text, name, args.lang)
        result = schedule_program(source.program, args.target, priority=args.priority, explain=True)
        notes: list[str] = []
        page = report_html(result, source_text=text, source_path=None if args.file == "-" else args.file,
                           title=args.title, source=source, notes=notes)
    write_output(args.output, page, (args.file,))
    blocks = len(result.blocks)
    # With -o - the page is standard output: the summary goes to standard error.
    out = sys.stderr if is_standard_output(args.output) else sys.stdout
    announce(f"wrote {args.output}: {blocks} block{'s' if blocks != 1 else ''}, "
             f"{plural(sum(r.makespan for r in result.blocks), 'cycle')} scheduled, "
             f"{sum(r.original_makespan for r in result.blocks)} in the original order", out)
    for note in notes:
        sys.stderr.write(f"note: {note}\n")
    return 0

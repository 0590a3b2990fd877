"""``schedcc deps FILE --target T [--answer MINE.txt]``: list every dependence, or check a student's list."""

from __future__ import annotations

import argparse
import sys

from schedcc.dag import build_dag
from schedcc.teaching.deps_answer import all_dependences, check_answer, wait_of
from schedcc.emit.explain import lecture_weights
from schedcc.errors import SchedccError, located
from schedcc.fileio import read_input
from schedcc.frontends import LANGS
from schedcc.teaching.grading import parse_program
from schedcc.target import check_opcodes, load_target

HELP = "list every dependence of a block (RAW/WAR/WAW/memory) and the node weights, or check your list"
DESCRIPTION = """\
List every dependence between the instructions of each block (one line each,
'#0 -> #1 RAW t0 (+3)'), and each node's weight as the lecture computes it
(the longest path of edge latencies to the end of the block). With --answer,
check a list you wrote in the same form instead: which lines are right,
which are wrong, which DAG edges you missed.

exit status: 0 (your list is right), 1 (it is not), 2 bad input.

examples:
  schedcc deps docs/assignments/01-dependences/program.ir --target mips4
  schedcc deps docs/assignments/01-dependences/program.ir --target mips4 --answer my-deps.txt"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the program")
    parser.add_argument("-t", "--target", default="generic", help="machine model (default: generic)")
    parser.add_argument("--lang", choices=LANGS,
                        help="language of the input files (default: from the extension; .ir otherwise)")
    parser.add_argument("--answer", metavar="MINE.txt", help="check this list of dependences and weights")
    parser.add_argument("--block", metavar="LABEL", help="only this block (LABEL or FUNCTION/LABEL)")


def run(args: argparse.Namespace) -> int:
    text, name = read_input(args.file)
    with located(text, name):
        return _run(args, text, name)


def _run(args: argparse.Namespace, text: str, name: str) -> int:
    program = parse_program(text, name, args.lang)
    target = load_target(args.target)
    check_opcodes(program, target)
    blocks = [(f, b) for f, b in program.blocks()
              if args.block in (None, b.label, f"{f.name}/{b.label}", f"{f.name} / {b.label}")]
    if not blocks:
        raise SchedccError(f"no block '{args.block}' in {name}")
    if args.answer:
        answer, answer_name = read_input(args.answer)
        func, block = blocks[0]
        with located(answer, answer_name):
            report = check_answer(block, target, answer, answer_name)
        print(f"checking {answer_name} against {func.name} / {block.label} of {name} on {target.name}")
        print(f"  right: {len(report.right)}")
        for line in report.wrong:
            print(f"  wrong: {line}")
        for line in report.missing:
            print(f"  missing: {line}")
        if not report.answered:
            print(f"result: nothing answered: {answer_name} lists no dependence and no weight "
                  "(write '#0 -> #1 RAW t0' or '#0 weight 6', one per line)")
            return 1
        print("result: " + ("all right" if report.ok else
                            f"{len(report.wrong)} wrong, {len(report.missing)} missing"))
        return 0 if report.ok else 1
    for count, (func, block) in enumerate(blocks):
        dag = build_dag(block, target)
        if count:
            print()
        print(f"{func.name} / {block.label} on {target.name}:")
        for i, ins in enumerate(block.instrs):
            print(f"  #{i} {ins}")
        print("dependences (+ cycles the second must wait after the first issues):")
        deps = all_dependences(block, target)
        if not deps:
            print("  none")
        for d in deps:
            print(f"  {d} (+{wait_of(d, dag, target)})")
        weights = lecture_weights(dag)
        print("node weights (longest path of edge latencies to the end; the DAG keeps the largest latency "
              "per pair):")
        print("  " + ", ".join(f"#{n} {weights[n]}" for n in range(len(dag))))
    sys.stdout.flush()
    return 0

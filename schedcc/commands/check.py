"""``schedcc check STUDENT --against ORIGINAL --target T``: grade a hand-made order.

Exit status: 0 the student's program is a legal reordering of the original,
1 it is not (an instruction added, lost or changed, or a dependence broken),
2 bad input (a file that does not parse, an unknown target or opcode).
"""

from __future__ import annotations

import argparse
import json
import sys

from schedcc.errors import SchedccError, attach_source, plural
from schedcc.fileio import read_input
from schedcc.frontends import LANGS
from schedcc.teaching.grading import BlockCheck, CheckResult, check_reordering, parse_program
from schedcc.sched.priority import PRIORITIES
from schedcc.viz.pipeline_diagram import diagram_for, format_diagram

HELP = "check a hand-scheduled program against the original (legal? how many cycles?)"
DESCRIPTION = """\
Check that STUDENT is a legal reordering of ORIGINAL: the same instructions
in every block, every dependence of the original respected. Then issue the
student's order in order on the target and compare its cycles with the
original order, schedcc's list schedule and the lower bound.

exit status: 0 legal reordering, 1 illegal reordering (the first violated
dependence is named), 2 bad input (syntax error, unknown target or opcode).

examples:
  schedcc check mine.ir --against examples/lecture.ir --target mips4
  schedcc check mine.ir --against examples/lecture.ir --target mips4 --show-pipeline"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("student", metavar="STUDENT", help="the reordered program: schedcc IR (.ir), LLVM IR "
                                                          "(.ll) or LoongArch or RISC-V assembly (.s)")
    parser.add_argument("--against", metavar="ORIGINAL", required=True, help="the original program")
    parser.add_argument("-t", "--target", default="generic", help="machine model (default: generic)")
    parser.add_argument("--lang", choices=LANGS,
                        help="language of the input files (default: from the extension; .ir otherwise)")
    parser.add_argument("--priority", default="critical-path", choices=list(PRIORITIES),
                        help="priority of the list schedule to compare with (default: critical-path)")
    parser.add_argument("--show-pipeline", action="store_true",
                        help="draw your order and schedcc's on the pipeline (text)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    from schedcc.commands import select_opts
    select_opts.add_arguments(parser)


def _parse(path: str, lang: str | None):
    text, name = read_input(path)
    try:
        return parse_program(text, name, lang)
    except SchedccError as err:
        raise attach_source(err, text) from None


def run(args: argparse.Namespace) -> int:
    original = _parse(args.against, args.lang)
    student = _parse(args.student, args.lang)
    from schedcc.commands.select_opts import selection
    result = check_reordering(student, original, args.target, args.priority, selection(args, original))
    if args.format == "json":
        sys.stdout.write(json.dumps(result_json(result), indent=2) + "\n")
    else:
        sys.stdout.write(format_check(result, args.show_pipeline))
    return 0 if result.legal else 1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _compare(mine: int, other: int, name: str) -> str:
    if mine == other:
        return f"as fast as {name}"
    return f"{_plural(abs(mine - other), 'cycle')} {'slower' if mine > other else 'faster'} than {name}"


def format_block(b: BlockCheck, result: CheckResult, show_pipeline: bool) -> list[str]:
    head = f"{b.function} / {b.block}"
    if b.problems:
        lines = [f"{head}: not the same instructions as the original"]
        return lines + [f"  {p}" for p in b.problems]
    if b.violations:
        first = b.violations[0]
        lines = [f"{head}: ILLEGAL reordering: {len(b.violations)} "
                 f"dependence{'s are' if len(b.violations) != 1 else ' is'} violated"]
        where = f"{first.loc}: " if first.loc else ""
        lines.append(f"  {where}first violation: {first.message}")
        if first.needed_loc is not None:
            lines.append(f"    {b.dag.ops[first.needed].payload} is at {first.needed_loc}; "
                         f"it must come first")
        for v in b.violations[1:]:
            lines.append(f"  {f'{v.loc}: ' if v.loc else ''}also: {v.message}")
        return lines
    assert b.cycles is not None
    lines = [f"{head}: legal reordering of {_plural(b.instructions, 'instruction')}"]
    rows = [("your order", b.cycles, f"{_plural(len(b.stalls), 'stall')}" if b.stalls else "no stall"),
            ("original order", b.original_cycles, ""),
            ("schedcc", b.scheduler_cycles,
             f"the original order, kept: list scheduling ({result.priority} priority) takes {b.list_cycles}"
             if b.scheduler_kept_original else f"list scheduling, {result.priority} priority"),
            ("lower bound", b.lower_bound, b.bound_reason)]
    for name, cycles, note in rows:
        word = "cycle " if cycles == 1 else "cycles"  # "1 cycle", the notes aligned
        lines.append((f"  {name:<15} {cycles:>4} {word}" + (f"  ({note})" if note else "")).rstrip())
    verdict = [_compare(b.cycles, b.original_cycles, "the original"),
               _compare(b.cycles, b.scheduler_cycles, "schedcc")]
    gap = b.cycles - b.lower_bound
    verdict.append("optimal: it reaches the lower bound" if gap == 0 else f"{_plural(gap, 'cycle')} above the lower bound")
    lines.append("  " + "; ".join(verdict))
    for orig, why in sorted(b.stalls.items(), key=lambda kv: b.issue[kv[0]]):
        lines.append(f"  stall before cycle {b.issue[orig]}: #{orig} {b.dag.ops[orig].payload} {why}")
    if show_pipeline:
        t = result.target
        mine = diagram_for(b.dag, b.issue, b.order, t, f"your order: {plural(b.cycles, 'cycle')}")
        s = list_schedule_of(b, result)
        theirs = diagram_for(b.dag, s.cycle, s.order, t, f"schedcc's order: {plural(s.makespan, 'cycle')}")
        cols, first = max(mine.cycles, theirs.cycles), min(mine.first, theirs.first)
        lines += [""] + format_diagram(mine, cols, first=first).rstrip("\n").split("\n")
        lines += [""] + format_diagram(theirs, cols, first=first).rstrip("\n").split("\n")
    return lines


def list_schedule_of(b: BlockCheck, result: CheckResult):
    from schedcc.sched import list_schedule
    return list_schedule(b.dag, priority=result.priority)


def format_check(result: CheckResult, show_pipeline: bool = False) -> str:
    out = [f"checking {result.student.source} against {result.original.source} on {result.target.name}", ""]
    for p in result.problems:
        out.append(p)
    for b in result.blocks:
        out += format_block(b, result, show_pipeline)
        out.append("")
    if result.legal:
        total = result.cycles
        best = sum(b.scheduler_cycles for b in result.blocks)
        bound = sum(b.lower_bound for b in result.blocks)
        out.append(f"result: LEGAL; {plural(total, 'cycle')} (schedcc {best}, lower bound {bound})")
    else:
        bad = sum(1 for b in result.blocks if not b.legal) + len(result.problems)
        out.append(f"result: ILLEGAL reordering ({_plural(bad, 'problem')}); exit status 1")
    return "\n".join(out) + "\n"


def result_json(result: CheckResult) -> dict:
    blocks = []
    for b in result.blocks:
        blocks.append({
            "function": b.function, "block": b.block, "legal": b.legal, "problems": b.problems,
            "violations": [{"early": v.early, "needed": v.needed, "kind": v.kind, "reason": v.reason,
                            "message": v.message, "line": v.loc.line if v.loc else None}
                           for v in b.violations],
            "order": b.order, "cycles": b.cycles, "original_cycles": b.original_cycles,
            "scheduler_cycles": b.scheduler_cycles, "scheduler_kept_original": b.scheduler_kept_original,
            "list_cycles": b.list_cycles, "lower_bound": b.lower_bound,
            "stalls": [{"id": i, "cycle": b.issue[i], "why": w} for i, w in sorted(b.stalls.items())],
        })
    return {"student": result.student.source, "original": result.original.source,
            "target": result.target.name, "legal": result.legal, "cycles": result.cycles,
            "problems": result.problems, "blocks": blocks}

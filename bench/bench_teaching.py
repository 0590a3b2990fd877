"""Timing of the teaching kit on large blocks: the pipeline diagram (text, SVG),
the walkthrough, `schedcc check` and the HTML report.

    python bench/bench_teaching.py            # 1,000 / 5,000 / 20,000-instruction blocks

Results and the machine are recorded in docs/performance.md ("## Teaching kit").
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from schedcc import parse  # noqa: E402
from schedcc.driver import schedule_program  # noqa: E402
from schedcc.emit.explain import format_walkthrough  # noqa: E402
from schedcc.teaching.grading import check_reordering  # noqa: E402
from schedcc.ir import print_program  # noqa: E402
from schedcc.report.html import report_html  # noqa: E402
from schedcc.viz.pipeline_diagram import format_block_diagrams  # noqa: E402
from schedcc.viz.pipeline_svg import pipeline_svg  # noqa: E402


def random_block(n: int, seed: int = 1) -> str:
    rnd = random.Random(seed)
    regs = [f"r{i}" for i in range(32)]
    lines = []
    for i in range(n):
        d, a, b = rnd.choice(regs), rnd.choice(regs), rnd.choice(regs)
        kind = rnd.random()
        if kind < 0.2:
            lines.append(f"{d} = load A[i + {rnd.randrange(64)}]")
        elif kind < 0.3:
            lines.append(f"store B[i + {rnd.randrange(64)}], {a}")
        elif kind < 0.5:
            lines.append(f"{d} = {a} * {b}")
        else:
            lines.append(f"{d} = {a} + {b}")
    return "\n".join(lines) + "\n"


def timed(label: str, fn):
    t0 = time.perf_counter()
    value = fn()
    dt = time.perf_counter() - t0
    print(f"  {label:<38} {dt * 1000:9.1f} ms")
    return value


def main() -> None:
    for n in (1_000, 5_000, 20_000):
        text = random_block(n)
        print(f"{n} instructions, target la464")
        program = parse(text, "bench.ir")
        result = timed("schedule (baseline, explain=True)",
                       lambda: schedule_program(program, "la464", explain=True))
        res, target = result.blocks[0], result.target
        timed("pipeline diagram, text", lambda: format_block_diagrams(res, target))
        timed("pipeline diagram, SVG", lambda: pipeline_svg([res], target))
        timed("walkthrough (--explain)", lambda: format_walkthrough(res, target))
        student = parse(print_program(result.scheduled_program()), "mine.ir")
        check = timed("check (the scheduled order)", lambda: check_reordering(student, program, "la464"))
        assert check.legal
        timed("report HTML (no DAG picture above 250)", lambda: report_html(result, text))


if __name__ == "__main__":
    main()

"""The pipeline diagram and the lecture walkthrough: stage mapping, stalls, and a plain golden file."""

import subprocess
import sys
from pathlib import Path

from schedcc import parse
from schedcc.driver import schedule_program
from schedcc.emit.explain import lecture_weights
from schedcc.viz.pipeline_diagram import block_diagrams, stage_cycles
from schedcc.viz.pipeline_svg import pipeline_svg

ROOT = Path(__file__).resolve().parent.parent


def test_stage_mapping_mips4():
    # ID at issue, RR, ALU, RW at issue + latency: a consumer issued 3 cycles
    # later reads in RR the cycle after the producer's RW.
    assert stage_cycles(5, 3, ("ID", "RR", "ALU", "RW")) == [(5, "ID"), (6, "RR"), (7, "ALU"), (8, "RW")]
    producer_rw = dict((s, t) for t, s in stage_cycles(0, 3, ("ID", "RR", "ALU", "RW")))["RW"]
    consumer_rr = dict((s, t) for t, s in stage_cycles(3, 3, ("ID", "RR", "ALU", "RW")))["RR"]
    assert consumer_rr == producer_rw + 1


def test_stage_mapping_long_and_short_latency():
    assert stage_cycles(0, 1, ("IF", "ID", "EX", "WB")) == [(0, "IF"), (1, "ID"), (2, "EX"), (3, "WB")]
    assert stage_cycles(0, 6, ("IF", "ID", "EX", "WB")) == (
        [(0, "IF"), (1, "ID")] + [(t, "EX") for t in range(2, 6)] + [(6, "WB")])


def test_lecture_diagrams(lecture_text):
    result = schedule_program(parse(lecture_text), "mips4")
    original, scheduled = block_diagrams(result.blocks[0], result.target)
    assert [r.issue for r in original.rows] == [0, 3, 4, 6, 7, 8]
    assert {r.node: r.stalls for r in original.rows if r.stalls} == {1: [1, 2], 3: [5]}
    assert {r.node: r.stalls for r in scheduled.rows if r.stalls} == {3: [5]}
    # The last RW falls in cycle makespan.
    assert (original.cycles - 1, scheduled.cycles - 1) == (11, 9) == (original.makespan, scheduled.makespan)
    assert original.stall_cycles - scheduled.stall_cycles == 2


def test_multi_issue_stalls_count_free_slots():
    # Two independent adds issue together on a 4-wide machine: no stall for the second.
    result = schedule_program(parse("a = b + c\nd = e + f\ng = a * d\n"), "la464")
    original, _ = block_diagrams(result.blocks[0], result.target)
    assert [r.issue for r in original.rows] == [0, 0, 1]
    assert [r.stalls for r in original.rows] == [[], [], [0]]


def test_lecture_weights_match_the_lecture(lecture_text):
    result = schedule_program(parse(lecture_text), "mips4")
    assert lecture_weights(result.blocks[0].dag) == {0: 6, 1: 3, 2: 3, 3: 0, 4: 0, 5: 0}


def test_svg_is_wellformed(lecture_text):
    import xml.etree.ElementTree as ET

    result = schedule_program(parse(lecture_text), "mips4")
    svg = pipeline_svg(result.blocks, result.target, "t")
    root = ET.fromstring(svg)
    texts = "".join(root.itertext())
    assert "original order: 11 cycles" in texts and "scheduled order: 9 cycles" in texts


def test_explain_golden():
    """The whole --explain output, byte for byte (regenerate with the command in the assert message)."""
    cmd = [sys.executable, "-m", "schedcc.cli", "examples/lecture.ir", "--target", "mips4", "--explain"]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    golden = (ROOT / "tests" / "golden" / "lecture-explain.txt").read_text()
    assert out == golden, "regenerate: python -m schedcc.cli examples/lecture.ir --target mips4 --explain " \
                          "> tests/golden/lecture-explain.txt"


def test_large_blocks_are_drawn_in_part():
    from schedcc.viz.pipeline_diagram import ROW_LIMIT, format_diagram

    text = "".join(f"r{i} = r{i - 1} + 1\n" for i in range(1, ROW_LIMIT + 21))
    result = schedule_program(parse(text), "mips4")
    original, scheduled = block_diagrams(result.blocks[0], result.target)
    assert len(original.rows) == ROW_LIMIT and original.omitted == 20
    assert original.makespan == 3 * (ROW_LIMIT + 20)  # the whole block's, not the drawn part's
    assert f"... and 20 more instructions, not drawn (the first {ROW_LIMIT} are shown" in format_diagram(original)
    assert "20 more instructions, not drawn" in pipeline_svg(result.blocks, result.target)


def test_issue_stage_from_the_target_file():
    # la464 issues in IS: the front end IF ID RN runs before, a stall waits before IS.
    result = schedule_program(parse("x = load A[i]\ny = x + 1\n"), "la464")
    original, _ = block_diagrams(result.blocks[0], result.target)
    load, add = original.rows
    assert load.cells == [(-3, "IF"), (-2, "ID"), (-1, "RN"), (0, "IS"), (1, "EX"), (2, "EX"), (3, "EX"),
                          (4, "WB")]
    assert add.stalls == [0, 1, 2, 3] and ("IS" in dict((s, t) for t, s in add.cells))
    assert dict((s, t) for t, s in add.cells)["IS"] == 4 and add.cells[0] == (-3, "IF")
    assert original.first == -3


def test_bad_issue_stage_is_reported(tmp_path):
    import pytest
    from schedcc.errors import SchedccError
    from schedcc.target import load_target
    from schedcc.viz.pipeline_diagram import issue_stage_index

    text = (ROOT / "targets" / "mips4.toml").read_text() + '\n[diagram]\nissue_stage = "XX"\n'
    path = tmp_path / "bad.toml"
    path.write_text(text.replace('name = "mips4"', 'name = "bad"').replace('aliases = ["lecture"]', ''))
    with pytest.raises(SchedccError, match="issue_stage = 'XX' is not one of the stages ID RR ALU RW"):
        issue_stage_index(load_target(str(path)))



from hypothesis import given, settings, strategies as st  # noqa: E402

_OPS = st.tuples(st.integers(0, 4), st.integers(0, 4), st.integers(0, 4), st.sampled_from(["+", "*", "load"]))


@settings(max_examples=40, deadline=None)
@given(st.lists(_OPS, min_size=1, max_size=12), st.sampled_from(["mips4", "la464", "generic"]))
def test_diagram_agrees_with_the_schedule(ops, target_name):
    lines = [f"r{d} = load A[r{a}]" if op == "load" else f"r{d} = r{a} {op} r{b}" for d, a, b, op in ops]
    result = schedule_program(parse("\n".join(lines) + "\n"), target_name)
    res, target = result.blocks[0], result.target
    stages = list(target.stages)
    issue_stage = stages[0] if target_name != "la464" else "IS"
    for diagram, sched in zip(block_diagrams(res, target), (res.original.cycle, res.schedule.cycle)):
        where = {}
        for row in diagram.rows:
            cycles = [t for t, _ in row.cells]
            assert cycles == list(range(cycles[0], cycles[-1] + 1)) or row.stalls  # contiguous but for stalls
            assert sorted(cycles + row.stalls) == list(range(min(cycles + row.stalls), max(cycles) + 1))
            at = {s: t for t, s in reversed(row.cells)}  # first cycle of each stage
            assert at[issue_stage] == row.issue == sched[row.node]
            assert all(t < row.issue for t in row.stalls)
            assert max(cycles) >= row.issue + res.dag.ops[row.node].latency
            where[row.node] = row
        if target_name == "mips4":
            # No forwarding: a consumer reads (RR) after its producer wrote (RW).
            for d in res.dag.deps:
                u, v = d.src, d.dst
                if d.kind == "RAW":
                    rw = max(t for t, s in where[u].cells if s == "RW")
                    rr = min(t for t, s in where[v].cells if s == "RR")
                    assert rr > rw
            assert diagram.cycles - 1 == diagram.makespan


def test_svg_stacks_the_orders_when_too_wide(lecture_text):
    import re

    result = schedule_program(parse(lecture_text), "mips4")
    side = pipeline_svg(result.blocks, result.target)
    stacked = pipeline_svg(result.blocks, result.target, max_width=400)
    width = lambda svg: float(re.search(r'width="([\d.]+)"', svg).group(1))  # noqa: E731
    height = lambda svg: float(re.search(r'height="([\d.]+)"', svg).group(1))  # noqa: E731
    assert width(stacked) < width(side) and height(stacked) > height(side)

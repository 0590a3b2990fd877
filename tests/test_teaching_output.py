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

"""Software pipelining of LoongArch assembly (issue 12): which loops, the reasons for
the others, registers (liveness over the function, the calling convention,
callee-saved registers saved when needed, "needs N registers, M free"), run-time
checks, and the text written back (new labels and branches; every other line as
it was). Running the output: tests/test_swp_run.py and tests/test_swp_property.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools import need

from schedcc.frontends import parse_source
from schedcc.swp.asm_liveness import free_registers, live_in
from schedcc.driver.loops import pipeline_source

ROOT = Path(__file__).resolve().parent.parent
SWP = ROOT / "examples" / "swp"

SUM = """\t.text
\t.globl\tf
\t.type\tf,@function
f:
\tmovgr2fr.d\t$fa0, $zero
.LBB0_1:
\tfld.d\t$fa1, $a1, 0
\tfadd.d\t$fa0, $fa0, $fa1
\taddi.d\t$a1, $a1, 8
\taddi.d\t$a0, $a0, -1
\tbnez\t$a0, .LBB0_1
\tret
"""


def _pipeline(text: str, target: str = "la464"):
    return pipeline_source(parse_source(text, "t.s"), target)


def test_a_counted_loop_is_pipelined_and_the_rest_of_the_file_is_kept():
    res = _pipeline(SUM)
    (loop,) = res.loops
    assert loop.pipelined and loop.name == "f/.LBB0_1"
    out = res.text.splitlines()
    lines = SUM.splitlines()
    assert out[:6] == lines[:6]                      # up to and including the loop's label
    assert out[-1] == "\tret" and out[-2] == ".LBB0_1.exit:"   # the fall-through exit got a label
    orig = out.index(".LBB0_1.orig:")
    assert out[orig + 1:orig + 5] == lines[6:10] and out[orig + 5] == "\tbnez\t$a0, .LBB0_1.orig"
    assert any(line.startswith("\tbeqz\t$a0, .LBB0_1.exit") for line in out)  # the rest, if any, in the original
    assert "registers: the loop's own" in loop.registers_text


def test_output_assembles(tmp_path):
    need("llvm-mc-16")
    for path in (SWP / "kernels-O1.s", SWP / "kernels-O2.s", SWP / "not_pipelined-O2.s"):
        out = tmp_path / (path.stem + ".swp.s")
        out.write_text(pipeline_source(parse_source(path.read_text(), str(path)), "la464").text)
        subprocess.run(["llvm-mc-16", "--triple=loongarch64", "--filetype=obj", str(out), "-o",
                        str(tmp_path / "x.o")], check=True)


@pytest.mark.parametrize("loop, reason", [
    ("\tfld.d\t$fa1, $a1, 0\n\taddi.d\t$a0, $a0, -1\n\tbeqz\t$a0, .LBB0_1\n", "runs while 'beqz"),
    ("\tlu32i.d\t$a2, 5\n\taddi.d\t$a0, $a0, -1\n\tbnez\t$a0, .LBB0_1\n", "writes part of $a2"),
    ("\tld.d\t$a0, $a1, 0\n\taddi.d\t$a1, $a1, 8\n\tbnez\t$a0, .LBB0_1\n", "does not compare an induction variable"),
    ("\taddi.d\t$a0, $a0, 3\n\tbne\t$a0, $a2, .LBB0_1\n", "only for steps that are powers of two"),
    ("\taddi.d\t$a0, $a0, 1\n\tbge\t$a0, $a2, .LBB0_1\n", "counts up by 1 but"),
    ("\tbl\tg\n\taddi.d\t$a0, $a0, -1\n\tbnez\t$a0, .LBB0_1\n", "the loop calls g (line 7)"),
    ("\tfld.d\t$fa1, $a1, 0\n\tblt\t$a0, $a1, .LBB0_2\n\taddi.d\t$a0, $a0, -1\n.LBB0_2:\n\tbnez\t$a0, .LBB0_1\n",
     "if-converted to one block: no induction variable"),   # the counter steps only under the condition
])
def test_loops_that_are_not_pipelined_say_why(loop, reason):
    text = "\t.text\n\t.globl\tf\n\t.type\tf,@function\nf:\n\tmove\t$a3, $zero\n.LBB0_1:\n" + loop + "\tret\n"
    res = _pipeline(text)
    assert len(res.loops) == 1
    assert not res.loops[0].pipelined and reason in res.loops[0].reason, res.loops[0].reason
    assert res.text == text


def test_liveness_respects_the_calling_convention():
    src = parse_source((SWP / "kernels-O2.s").read_text(), "k.s")
    dot = src.program.function("dot")
    free = free_registers(dot, ".LBB1_2")
    assert "$a3" in free and "$t0" in free and "$ft0" in free
    assert "$a1" not in free and "$fa0" not in free       # used by the loop
    assert not any(r.startswith(("$s", "$fs")) for r in free)  # callee-saved: the caller's values
    assert "$ra" not in free and "$sp" not in free
    # a function that saves $s0 itself may use it between the save and the restore
    text = ("f:\n\taddi.d\t$sp, $sp, -16\n\tst.d\t$s0, $sp, 8\n.L1:\n\taddi.d\t$a0, $a0, -1\n\tbnez\t$a0, .L1\n"
            "\tld.d\t$s0, $sp, 8\n\taddi.d\t$sp, $sp, 16\n\tret\n")
    f = parse_source(text, "s.s").program.functions[0]
    assert "$s0" in free_registers(f, ".L1") and "$s1" not in free_registers(f, ".L1")
    # a jump the code cannot follow: everything is live
    text = "f:\n.L1:\n\taddi.d\t$a0, $a0, -1\n\tbnez\t$a0, .L1\n\tjr\t$t5\n"
    f = parse_source(text, "j.s").program.functions[0]
    assert free_registers(f, ".L1", live_in(f)) == []


def test_registers_running_out_is_reported_with_the_numbers():
    res = pipeline_source(parse_source((SWP / "not_pipelined-O2.s").read_text(), "np.s"), "la464")
    crowded = next(r for r in res.loops if r.name.startswith("crowded"))
    assert not crowded.pipelined
    assert crowded.reason.startswith("needs ") and " floating-point registers at once, " in crowded.reason
    assert "free (its own and those dead across the loop), at every II below the" in crowded.reason
    reasons = {r.name.split("/")[0]: r.reason for r in res.loops}
    assert reasons["calls"].startswith("the loop calls %plt(g)")
    assert reasons["branches"] is None     # if-converted and pipelined (issue 19)
    assert "spans 2 blocks" in reasons["search"] and "an early exit (a search loop) is not if-converted" \
        in reasons["search"]


def test_callee_saved_registers_are_saved_when_the_free_ones_do_not_suffice():
    res = pipeline_source(parse_source((SWP / "kernels-O2.s").read_text(), "k.s"), "la464")
    fir = next(r for r in res.loops if r.name.startswith("fir"))
    assert fir.pipelined and fir.schedule.ii == fir.schedule.mii.value
    assert "callee-saved ones saved on the stack around it ($s0" in fir.registers_text
    code = "\n".join(line for _, lines in fir.code for line in lines)
    assert "\taddi.d\t$sp, $sp, -" in code and "\tst.d\t$s0, $sp, 0" in code and "\tld.d\t$s0, $sp, 0" in code


def test_with_few_registers_the_ii_grows_until_the_code_fits(monkeypatch):
    import schedcc.swp.asm_codegen as asm_codegen
    from schedcc.swp.asm_isa import LOONGARCH
    monkeypatch.setattr(asm_codegen, "free_registers", lambda *args: ["$t0", "$ft0"])
    monkeypatch.setattr(LOONGARCH, "callee_saved_order", ())
    res = pipeline_source(parse_source((SWP / "kernels-O2.s").read_text(), "k.s"), "la464")
    saxpy = res.loops[0]
    attempts = saxpy.schedule.attempts
    assert saxpy.pipelined and saxpy.schedule.ii > saxpy.schedule.mii.value
    assert attempts[0].outcome.startswith("rejected: needs 9 floating-point registers at once, 3 free")
    assert attempts[-1].outcome == "scheduled" and saxpy.schedule.ii < saxpy.cycles_before


def test_run_time_checks_guard_pointers_that_may_overlap():
    res = pipeline_source(parse_source((SWP / "kernels-O2.s").read_text(), "k.s"), "la464")
    saxpy = next(r for r in res.loops if r.name.startswith("saxpy"))
    guard = saxpy.code[0][1]
    # |$a1 - $a2| must leave room for the iterations in flight: else the original loop runs
    assert "\tsub.d\t$t0, $a1, $a2" in guard and any(line.startswith("\tsltui\t$t0, $t0, ") for line in guard)
    assert not any(d.kind == "MEM" and {d.src, d.dst} == {1, 3} for d in saxpy.dag.deps)

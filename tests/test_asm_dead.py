"""Dead definitions in the pipelined assembly (issue 19): a rotated loop's end-of-body copy
of the header (``addi.w $t1, $t0, 0``) in the kernel iterations that lost their branch is
written again before any read; the code generator leaves it out (schedcc/swp/asm_dead.py)."""

import re
from pathlib import Path

from schedcc.driver.loops import pipeline_source
from schedcc.frontends import parse_source
from schedcc.ir import Const, Instr, Label, Mem, Reg
from schedcc.swp.asm_dead import drop_dead
from schedcc.swp.asm_isa import LOONGARCH

ROOT = Path(__file__).resolve().parent.parent
WHILE_FORM = ROOT / "examples" / "loops" / "while_form.s"


def addi(dst, src, k=0, op="addi.w"):
    return Instr(op, Reg(dst), (Reg(src), Const(k)))


def test_a_definition_written_again_before_a_read_is_dropped():
    code = [addi("$t1", "$t0"), addi("$t2", "$t2", 1, "addi.d"), addi("$t1", "$t0")]
    assert drop_dead(code, LOONGARCH, set()) == code[1:]


def test_a_definition_read_branched_past_labelled_or_with_effects_is_kept():
    read = [addi("$t1", "$t0"), addi("$t2", "$t1", 1, "addi.d"), addi("$t1", "$t0")]
    assert drop_dead(read, LOONGARCH, set()) == read
    label = [addi("$t1", "$t0"), "L", addi("$t1", "$t0")]
    assert drop_dead(label, LOONGARCH, {"L"}) == label
    branch = [addi("$t1", "$t0"), Instr("bnez", None, (Reg("$t3"), Label("L"))), addi("$t1", "$t0")]
    assert drop_dead(branch, LOONGARCH, {"L"}) == branch
    tied = [addi("$t1", "$t0"), Instr("lu32i.d", Reg("$t1"), (Const(5),))]   # keeps the low half it read
    assert drop_dead(tied, LOONGARCH, set()) == tied
    load = [Instr("ld.d", Reg("$t1"), (Mem(Reg("$a0"), 0),)), addi("$t1", "$t0")]  # may fault: kept
    assert drop_dead(load, LOONGARCH, set()) == load
    at_end = [addi("$t1", "$t0")]                                              # may be live after
    assert drop_dead(at_end, LOONGARCH, set()) == at_end


def _dead_in_text(lines: list[str]) -> list[str]:
    """An independent check on the text: a line 'op rd, ...' whose rd is written by a later
    line of the same straight run before any line names it as a source."""
    runs, run = [], []
    for line in lines:
        s = line.strip()
        if not s or s.startswith("#") or s.endswith(":"):
            runs.append(run)
            run = []
            continue
        run.append(s)
        if s.split()[0].startswith(("b", "j", "ret")):
            runs.append(run)
            run = []
    runs.append(run)
    dead = []
    for run in runs:
        for i, s in enumerate(run):
            op, *regs = re.findall(r"[\w.]+|\$\w+", s)
            if not regs or op.startswith(("st", "fst", "ld", "fld", "b")) or "x." in op:
                continue
            rd = regs[0]
            for later in run[i + 1:]:
                lop, *lregs = re.findall(r"[\w.]+|\$\w+", later)
                if rd in lregs[1:] or (lop.startswith(("st", "fst", "b")) and rd in lregs):
                    break
                if lregs and lregs[0] == rd:
                    dead.append(s)
                    break
    return dead


def test_the_rotated_while_loops_pipelined_carry_no_dead_copy():
    src = parse_source(WHILE_FORM.read_text(), "while_form.s")
    res = pipeline_source(src, "la464")
    assert [r.pipelined for r in res.loops] == [True, True, True]
    new = [line for r in res.loops for _, lines in r.code for line in lines]  # with the labels
    assert not _dead_in_text(new)
    # the checker finds them in what the code generator wrote before (the copies it now leaves out)
    before = ["addi.w $t6, $t0, 0", "addi.d $t0, $t0, 1", "slli.d $t2, $t6, 2", "addi.w $t6, $t0, 0",
              "fldx.s $ft0, $a1, $t2", "addi.w $t6, $t0, 0"]
    assert _dead_in_text(before) == ["addi.w $t6, $t0, 0"]

    assert sum(line.split() == ["addi.w", "$t6,", "$t0,", "0"] for line in new) == 10  # 16 with the dead copies

"""Loop rotation in assembly (issue 19, schedcc/swp/asm_rotate.py): LoongArch loops tested
at their top, as a compiler that does not rotate loops writes them (clang's passes off,
mem2reg, then ``llc -disable-block-placement``), are rotated, pipelined and compute what
they did under qemu-loongarch64 for trip counts 0..24; a rotated loop that is not
pipelined leaves the text as it was, with the reason saying what was tried."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from swp_tools import LA, run, run_program
from tools import need

from schedcc.driver.loops import pipeline_source
from schedcc.frontends import parse_source
from schedcc.swp.asm_pipeline import pipeline_asm
from schedcc.swp.asm_rotate import NotRotated, rotate_asm

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"
TOOLS = ("clang-16", "opt-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")

PROGRAMS = {
    "while_lt": """
KERNEL void k(long n, const double *restrict a, double *restrict b) {
    long i = 0;
    while (i < n) { b[i] = a[i] * a[i] + b[i]; i++; }
}
RUN { double a[LEN], b[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); k(n, a, b); out(b, LEN); }
""",
    "for_ne_sum": """
KERNEL long k(long n, const long *restrict a) {
    long t = 0;
    for (long i = 0; i != n; i++) t += a[i] * 3;
    return t;
}
RUN { long c[LEN]; filll(c, LEN, 3); out1l(k(n, c)); }
""",
    "countdown": """
KERNEL void k(long n, double *restrict b, const double *restrict d) {
    long i = n;
    while (i > 0) { i--; b[i] = d[i] + d[i] * b[i]; }
}
RUN { double b[LEN], d[LEN]; fill(b, LEN, 2); fill(d, LEN, 4); k(n, b, d); out(b, LEN); }
""",
    "int_for": """
KERNEL void k(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++)
        a[i] = b[i] + c[i];
}
RUN { double a[LEN], b[LEN], c[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3); k(n, a, b, c); out(a, LEN); }
""",
}

# A while loop with an if in its body: rotated, then if-converted to one block.
MULTI = {
    "while_if": """
KERNEL void k(int n, double *restrict a, const double *restrict b) {
    int i = 0;
    while (i < n) { if (b[i] > 0) a[i] = b[i] * 2; i++; }
}
RUN { double a[LEN], b[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); k(n, a, b); out(a, LEN); }
""",
    # if/else whose two arms each jump back to the test (llc copies the end): they join in <header>.latch
    "two_ends": """
KERNEL void k(int n, double *restrict a, const double *restrict b, double *restrict c,
              const double *restrict d, const double *restrict e) {
    for (int i = 0; i < n - 1; i++) {
        if (b[i] < 0) c[i + 1] = a[i] + d[i] * d[i];
        else a[i] = c[i] + d[i] * e[i];
    }
}
RUN { double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3);
      fill(d, LEN, 4); fill(e, LEN, 5); k(n, a, b, c, d, e); out(a, LEN); out(c, LEN); }
""",
    # the end of the loop is not its last block in the text: the other arm jumps into it
    "end_in_the_middle": """
KERNEL void k(int n, double *restrict a, const double *restrict b, const double *restrict c,
              const double *restrict d, const double *restrict e) {
    int j = -1;
    for (int i = 0; i < n; i++) {
        if (b[i] > 0) { j++; a[j] = b[i] + d[i] * e[i]; }
        else { j++; a[j] = c[i] + d[i] * e[i]; }
    }
}
RUN { double a[LEN], b[LEN], c[LEN], d[LEN], e[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3);
      fill(d, LEN, 4); fill(e, LEN, 5); k(n, a, b, c, d, e); out(a, LEN); }
""",
}


def while_form(tmp: Path, name: str, body: str) -> Path:
    """A C kernel compiled as a non-rotating compiler writes it: every loop tested at its top
    (as bench/bench_loop_corpus.py --levels mem2reg --langs s does)."""
    c = tmp / f"{name}.c"
    c.write_text('#include "corpus.h"\n' + body)
    raw, ll, s = tmp / f"{name}.raw.ll", tmp / f"{name}.ll", tmp / f"{name}.s"
    run(["clang-16", *LA, "-O1", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", f"-I{CORPUS}", c, "-o", raw])
    run(["opt-16", "-passes=mem2reg", "-S", raw, "-o", ll])
    run(["llc-16", "-mtriple=loongarch64", "-O2", "-disable-block-placement", ll, "-o", s])
    return s


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_loops_tested_at_the_top_are_rotated_pipelined_and_compute_the_same(tmp_path, name):
    need(*TOOLS)
    path = while_form(tmp_path, name, PROGRAMS[name])
    text = path.read_text()
    res = pipeline_asm(parse_source(text, str(path)), "la464")
    (loop,) = [r for r in res.loops if r.name.startswith("k/")]
    assert loop.pipelined and loop.rotated, loop.reason
    assert loop.name.endswith(".body") or "~" not in loop.name
    out = tmp_path / f"{name}.swp.s"
    out.write_text(res.text)
    assert run_program(path) == run_program(out)
    if name == "int_for":   # the int counter, read sign-extended, and the bound are checked to fit in 32 bits
        assert any("addi.w" in line for line in loop.code[0][1]), loop.code[0][1]
    # Outside the function with the rotated loop, the file is byte for byte the same.
    assert res.text.split("\nk:")[0] == text.split("\nk:")[0]


@pytest.mark.parametrize("name", sorted(MULTI))
def test_while_loops_with_an_if_are_rotated_if_converted_pipelined_and_compute_the_same(tmp_path, name):
    need(*TOOLS)
    path = while_form(tmp_path, name, MULTI[name])
    text = path.read_text()
    res = pipeline_asm(parse_source(text, str(path)), "la464")
    (loop,) = [r for r in res.loops if r.name.startswith("k/")]
    assert loop.pipelined and loop.rotated and loop.if_converted, loop.reason
    out = tmp_path / f"{name}.swp.s"
    out.write_text(res.text)
    assert run_program(path) == run_program(out)
    assert res.text.split("\nk:")[0] == text.split("\nk:")[0]
    if name == "while_if":   # the int counter's sign extension is computed again at the top of the body: its
        # addresses are known, so no recurrence through memory binds the loop (two_ends has a true one, c[i + 1])
        assert loop.schedule.ii < loop.cycles_before / 2, (loop.schedule.ii, loop.cycles_before)


WHILE = """\t.text
f:
\tmove\t$a2, $zero
.L1:
\taddi.w\t$a3, $a2, 0
\tbge\t$a3, $a0, .L3
\tslli.d\t$a4, $a3, 3
\tfldx.d\t$fa0, $a1, $a4
\tfadd.d\t$fa0, $fa0, $fa0
\tfstx.d\t$fa0, $a1, $a4
\taddi.d\t$a2, $a2, 1
\tb\t.L1
.L3:
\tret
"""


def test_a_rotated_loop_not_pipelined_leaves_the_text_as_it_was():
    # An int counter stepping by 4094, read sign-extended: its first and last values would be checked on
    # entry to fit in 32 bits, but the step does not fit in the check's 12-bit immediates.
    text = WHILE.replace("\taddi.d\t$a2, $a2, 1", "\taddi.d\t$a2, $a2, 2047\n\taddi.d\t$a2, $a2, 2047")
    res = pipeline_asm(parse_source(text, "w.s"), "la464")
    (loop,) = res.loops
    assert not loop.pipelined
    assert "tests at its top ('.L1'); rotated to test at its end in '.L1.body': 'addi.w' sign-extends $a2" \
        in loop.reason
    assert res.text == text


def test_an_int_counter_is_pipelined_behind_a_check_that_it_fits_in_32_bits():
    res = pipeline_asm(parse_source(WHILE, "w.s"), "la464")
    (loop,) = res.loops
    assert loop.pipelined, loop.reason
    for reg in ("a2", "a0"):   # the counter on entry, the bound
        assert re.search(rf"\taddi\.w\t(\$\w+), \${reg}, 0\n\tbne\t\1, \${reg}, \.L1\.body\.orig\n", res.text)


def test_rotation_copies_the_header_and_inverts_its_test():
    new, body = rotate_asm(parse_source(WHILE, "w.s"), "f", ".L1")
    assert body == ".L1.body"
    assert new.splitlines()[6:] == [".L1.body:", "\taddi.w\t$a3, $a2, 0", "\tslli.d\t$a4, $a3, 3",
                                    "\tfldx.d\t$fa0, $a1, $a4",
                                    "\tfadd.d\t$fa0, $fa0, $fa0", "\tfstx.d\t$fa0, $a1, $a4",
                                    "\taddi.d\t$a2, $a2, 1", "\taddi.w\t$a3, $a2, 0", "\tblt\t$a3, $a0, .L1.body",
                                    ".L3:", "\tret"]


def test_the_header_is_computed_again_at_the_top_of_the_body_only_when_that_changes_nothing():
    # The body reads $a3, which the header writes from $a2: computed again at its top, $a3 comes from the
    # induction variable of the same iteration, not from the end of the previous one.
    new, _ = rotate_asm(parse_source(WHILE, "w.s"), "f", ".L1")
    assert new.count("\taddi.w\t$a3, $a2, 0") == 3
    # A header that reads what it writes (running it twice is not running it once): only the guard and the end.
    text = WHILE.replace("\taddi.w\t$a3, $a2, 0\n", "\taddi.d\t$a3, $a3, 1\n")
    new, _ = rotate_asm(parse_source(text, "w.s"), "f", ".L1")
    assert new.count("\taddi.d\t$a3, $a3, 1") == 2
    # A body that does not read what the header writes: nothing to compute again.
    text = WHILE.replace("\tslli.d\t$a4, $a3, 3", "\tslli.d\t$a4, $a2, 3")
    new, _ = rotate_asm(parse_source(text, "w.s"), "f", ".L1")
    assert new.count("\taddi.w\t$a3, $a2, 0") == 2


def test_an_int_counter_read_at_the_top_of_the_body_does_not_bind_the_loop_through_memory():
    # b[i] = b[i] * a[i] with an int i: without the header computed again, the body's index is the previous
    # iteration's sign extension, its addresses unknown, and a store may meet the next iteration's loads.
    text = WHILE.replace("\tfadd.d\t$fa0, $fa0, $fa0", "\tfldx.d\t$fa1, $a5, $a4\n\tfmul.d\t$fa0, $fa0, $fa1")
    res = pipeline_asm(parse_source(text, "w.s"), "la464")
    (loop,) = res.loops
    assert loop.pipelined, loop.reason
    assert loop.schedule.ii == loop.schedule.mii.value == 3 and loop.schedule.mii.rec.value == 1


def test_a_jump_to_the_exit_follows_when_the_exit_is_elsewhere():
    text = WHILE.replace(".L3:\n\tret\n", ".L5:\n\tnop\n.L3:\n\tret\n")
    new, _ = rotate_asm(parse_source(text, "w.s"), "f", ".L1")
    assert "\tblt\t$a3, $a0, .L1.body\n\tb\t.L3\n.L5:" in new


def test_a_body_entered_from_elsewhere_is_not_rotated():
    text = WHILE.replace("\tslli.d", ".L2:\n\tslli.d").replace("\tmove\t$a2, $zero\n",
                                                              "\tmove\t$a2, $zero\n\tbnez\t$a2, .L2\n")
    with pytest.raises(NotRotated, match="'.L2' is entered from"):
        rotate_asm(parse_source(text, "w.s"), "f", ".L1")
    res = pipeline_asm(parse_source(text, "w.s"), "la464")   # two entries: no natural loop at all
    assert res.text == text and not any(r.pipelined for r in res.loops)


def test_riscv_loops_tested_at_the_top_are_rotated_pipelined_and_compute_the_same(tmp_path):
    need("clang-16", "opt-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-riscv64")
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_mca_loops import FLAGS, run_riscv
    c = tmp_path / "rv.c"
    c.write_text('#include "corpus.h"\n' + PROGRAMS["while_lt"])
    raw, ll, s = tmp_path / "rv.raw.ll", tmp_path / "rv.ll", tmp_path / "rv.s"
    run(["clang-16", *FLAGS, "-O0", "-Xclang", "-disable-O0-optnone", "-S", "-emit-llvm", f"-I{CORPUS}", c, "-o", raw])
    run(["opt-16", "-passes=mem2reg", "-S", raw, "-o", ll])
    run(["llc-16", "-mtriple=riscv64", "-mattr=+m,+a,+f,+d,+c", "-O2", "-disable-block-placement", ll, "-o", s])
    text = s.read_text()
    res = pipeline_asm(parse_source(text, str(s)), "sifive-u74")
    (loop,) = [r for r in res.loops if r.name.startswith("k/")]
    assert loop.pipelined and loop.name.endswith(".body"), loop.reason
    assert run_riscv(res.text, tmp_path, "pipelined") == run_riscv(text, tmp_path, "original")


FOR = """\t.text
f:
\tmove\t$a2, $zero
.L1:
\tblt\t$a2, $a0, .L3
\tret
.L3:
\tfld.d\t$fa0, $a1, 0
\tfadd.d\t$fa0, $fa0, $fa0
\tfst.d\t$fa0, $a1, 0
\taddi.d\t$a1, $a1, 8
\taddi.d\t$a2, $a2, 1
\tb\t.L1
"""


def test_a_header_branching_into_the_body_keeps_its_test_and_labels_the_exit():
    text = FOR
    new, body = rotate_asm(parse_source(text, "f.s"), "f", ".L1")
    assert body == ".L3"
    assert new.splitlines()[4:] == ["\tblt\t$a2, $a0, .L3", ".L1.exit:", "\tret", ".L3:", "\tfld.d\t$fa0, $a1, 0",
                                    "\tfadd.d\t$fa0, $fa0, $fa0", "\tfst.d\t$fa0, $a1, 0", "\taddi.d\t$a1, $a1, 8",
                                    "\taddi.d\t$a2, $a2, 1", "\tblt\t$a2, $a0, .L3", "\tb\t.L1.exit"]
    assert new.endswith("\n")
    res = pipeline_asm(parse_source(text, "f.s"), "la464")
    assert res.loops[0].pipelined, res.loops[0].reason
    assert res.text.startswith(new.split(".L3:")[0])


# examples/loops/while_form.{ir,ll,s}: the same while loops (LightIR's style in .ll, a course back end's in .s)
DRIVER = """#include "corpus.h"
void saxpy(int n, float a, float *x, float *y);
void relu(int n, int *x);
int sumif(int n, int *x, int t);
RUN {
    float x[LEN], y[LEN];
    int v[LEN], w[LEN];
    fillf(x, LEN, 1); fillf(y, LEN, 2); filli(v, LEN, 3); filli(w, LEN, 4);
    saxpy(n, numf(3), x, y);
    relu(n, v);
    outf(y, LEN); outi(v, LEN); out1l(sumif(n, w, 2));
}
"""


@pytest.mark.parametrize("lang", ["ir", "ll", "s"])
def test_every_loop_of_the_while_form_examples_is_rotated_and_pipelined(lang):
    path = ROOT / "examples" / "loops" / f"while_form.{lang}"
    res = pipeline_source(parse_source(path.read_text(), str(path)), "la464")
    assert len(res.loops) == 3 and all(r.pipelined and r.rotated for r in res.loops), [r.reason for r in res.loops]
    if lang != "ir":    # relu and sumif: an if in the body
        assert [r.if_converted for r in res.loops] == [False, True, True]


@pytest.mark.parametrize("lang", ["ll", "s"])
def test_the_while_form_examples_compute_the_same_pipelined(tmp_path, lang):
    need(*TOOLS)
    path = ROOT / "examples" / "loops" / f"while_form.{lang}"
    text = path.read_text()
    c = tmp_path / "driver.c"
    c.write_text(DRIVER)
    run(["clang-16", *LA, "-O1", "-S", f"-I{CORPUS}", c, "-o", tmp_path / "driver.s"])
    driver = (tmp_path / "driver.s").read_text()
    outputs = []
    for name, code in (("original", text), ("pipelined", pipeline_source(parse_source(text, str(path)), "la464").text)):
        src = tmp_path / f"{name}.{lang}"
        src.write_text(code)
        if lang == "ll":    # LightIR names no target features: hard floating point, as clang's driver asks
            run(["llc-16", "-mtriple=loongarch64", "-mattr=+d", "-O2", src, "-o", src.with_suffix(".s")])
        asm = src.with_suffix(".s").read_text()
        # no .globl (local symbols) nor unwind tables (ld.lld 16 cannot relocate them); labels apart from the driver's
        asm = re.sub(r"^\s*\.(globl|cfi_\w+)\b.*\n", "", asm, flags=re.M).replace(".L", ".Lx")
        prog = tmp_path / f"{name}.prog.s"   # one file: the assembler resolves the calls
        prog.write_text(driver + "\n" + asm)
        outputs.append(run_program(prog))
    assert outputs[0] == outputs[1] and len(outputs[0]) == 8 * 3 * 25

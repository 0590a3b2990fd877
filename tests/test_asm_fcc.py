"""Floating-point compares in LoongArch loops (issue 19): ``$fcc`` registers are values
of their own register class, renamed like the others (schedcc/swp/asm_codegen.py), so
a loop that compares and selects (``fcmp`` + ``fsel``: a maximum, a conditional
scalar) is pipelined and computes what it did under qemu-loongarch64 for trip counts
0..24; a flag still needed after the loop (no flag-to-flag move) is refused with the
reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from swp_tools import LA, run, run_program
from tools import need

from schedcc.driver.loops import pipeline_source
from schedcc.frontends import parse_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"
TOOLS = ("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")

PROGRAMS = {
    "maximum": """
KERNEL double k(int n, const double *restrict a) {
    double x = a[0];
    for (int i = 0; i < n; i++)
        if (a[i] > x)
            x = a[i];
    return x;
}
RUN { double a[LEN]; fill(a, LEN, 1); out1(k(n, a)); }
""",
    "conditional_scalar": """
KERNEL void k(int n, const double *restrict a, double *restrict b, const double *restrict d) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > 0)
            s = d[i] * d[i];
        b[i] = s + d[i];
    }
}
RUN { double a[LEN], b[LEN], d[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(d, LEN, 4); k(n, a, b, d); out(b, LEN); }
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_loops_with_a_floating_point_compare_are_pipelined_and_compute_the_same(tmp_path, name):
    need(*TOOLS)
    c = tmp_path / f"{name}.c"
    c.write_text('#include "corpus.h"\n' + PROGRAMS[name])
    path = tmp_path / f"{name}.s"
    run(["clang-16", *LA, "-fno-math-errno", "-O2", "-S", f"-I{CORPUS}", c, "-o", path])
    text = path.read_text()
    assert "fcmp." in text and "$fcc" in text
    res = pipeline_source(parse_source(text, str(path)), "la464")
    (loop,) = [r for r in res.loops if r.name.startswith("k/")]
    assert loop.pipelined, loop.reason
    pipelined = path.with_name(path.stem + ".swp.s")
    pipelined.write_text(res.text)
    assert run_program(pipelined) == run_program(path)


def test_a_flag_live_after_the_loop_is_refused_with_the_reason():
    text = ("\t.text\n\t.globl\tf\n\t.type\tf,@function\nf:\n.LBB0_1:\n\tfld.d\t$fa1, $a1, 0\n"
            "\tfcmp.clt.d\t$fcc0, $fa1, $fa0\n\tfmul.d\t$fa2, $fa1, $fa1\n\tfst.d\t$fa2, $a1, 0\n"
            "\taddi.d\t$a1, $a1, 8\n\taddi.d\t$a0, $a0, -1\n\tbnez\t$a0, .LBB0_1\n"
            "\tbcnez\t$fcc0, .LBB0_3\n\tret\n.LBB0_3:\n\tret\n")
    res = pipeline_source(parse_source(text, "f.s"), "la464")
    (loop,) = res.loops
    assert not loop.pipelined and "condition flag ($fcc0) would have to be copied" in loop.reason, loop.reason
    assert res.text == text

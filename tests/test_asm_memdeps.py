"""Memory dependences and sign extensions in assembly loops (issue 19,
schedcc/swp/asm_ranges.py): two pointers stepping by different strides are separated
by a run-time check that the bytes each sweeps over the whole loop do not overlap;
stack slots at distinct offsets never meet (their widths counted); an ``int`` index
other than the tested counter, read through ``addi.w``, is followed behind a check
that its first and last values fit in 32 bits. Each program runs under qemu with the
arrays apart and overlapping, for trip counts 0..24, and must print what the original
does."""

from __future__ import annotations

import sys
from pathlib import Path

from swp_tools import LA, run, run_program
from test_asm_rotate import while_form
from tools import need

from schedcc.frontends import parse_source
from schedcc.swp.asm_loops import AsmLoop, find_asm_loops
from schedcc.swp.asm_pipeline import pipeline_asm
from schedcc.swp.dependences import loop_dag

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"

# a[2i] += b[i] (TSVC s171's shape) without restrict: called with the arrays apart and overlapping.
STRIDES = """#include "corpus.h"
KERNEL void k(long n, double *a, const double *b) {
    for (long i = 0; i < n; i++)
        a[2 * i] += b[i];
}
RUN {
    double a[2 * LEN + 8], b[LEN];
    fill(a, 2 * LEN + 8, 1); fill(b, LEN, 2);
    k(n, a, b); out(a, 2 * LEN + 8);
    k(n, a, a + 3); out(a, 2 * LEN + 8);
    k(n, a + 5, a); out(a, 2 * LEN + 8);
    k(n, a + 2 * n + 1, a); out(a, 2 * LEN + 8);
}
"""

# A second int index stepping by 2, read sign-extended (addi.w) to address b.
SECOND_INDEX = """
KERNEL void k(int n, double *restrict a, const double *restrict b) {
    int j = 1;
    for (int i = 0; i < n; i++) { a[i] = b[j] * a[i] + b[j]; j += 2; }
}
RUN { double a[LEN], b[2 * LEN + 2]; fill(a, LEN, 1); fill(b, 2 * LEN + 2, 2); k(n, a, b); out(a, LEN); }
"""


def _kernel_loop(res):
    (loop,) = [r for r in res.loops if r.name.startswith("k/")]
    return loop


def test_pointers_with_different_strides_are_pipelined_behind_a_range_check(tmp_path):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    c, s = tmp_path / "strides.c", tmp_path / "strides.s"
    c.write_text(STRIDES)
    run(["clang-16", *LA, "-fno-math-errno", "-O2", "-S", f"-I{CORPUS}", c, "-o", s])
    source = parse_source(s.read_text(), str(s))
    (x,) = [f for f in find_asm_loops(source) if isinstance(f, AsmLoop) and f.name.startswith("k/")]
    assert x.ranges and not x.checks            # different strides: the whole-loop ranges are checked
    res = pipeline_asm(source, "la464")
    loop = _kernel_loop(res)
    assert loop.pipelined, loop.reason
    assert loop.schedule.ii < loop.cycles_before
    guard = "\n".join(loop.code[0][1])
    assert ".apart0" in guard and guard.count(".orig") >= 3
    out = tmp_path / "strides.swp.s"
    out.write_text(res.text)
    assert run_program(s) == run_program(out)


def test_riscv_pointers_with_different_strides_compute_the_same(tmp_path):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-riscv64")
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_mca_loops import FLAGS, run_riscv
    c, s = tmp_path / "rv.c", tmp_path / "rv.s"
    c.write_text(STRIDES)
    run(["clang-16", *FLAGS, "-S", f"-I{CORPUS}", c, "-o", s])
    text = s.read_text()
    res = pipeline_asm(parse_source(text, str(s)), "sifive-u74")
    loop = _kernel_loop(res)
    assert loop.pipelined, loop.reason
    assert run_riscv(res.text, tmp_path, "pipelined") == run_riscv(text, tmp_path, "original")


def test_a_second_int_index_is_followed_behind_a_check_that_it_fits_in_32_bits(tmp_path):
    need("clang-16", "opt-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    path = while_form(tmp_path, "second", SECOND_INDEX)
    text = path.read_text()
    res = pipeline_asm(parse_source(text, str(path)), "la464")
    loop = _kernel_loop(res)
    assert loop.pipelined, loop.reason
    guard = "\n".join(loop.code[0][1])
    assert "srai.d" in guard and "sltui" in guard      # (value >> 31) is 0 or -1
    out = tmp_path / "second.swp.s"
    out.write_text(res.text)
    assert run_program(path) == run_program(out)


STACK = """\t.text
f:
.L1:
\tfld.d\t$fa0, $sp, 8
\tfadd.d\t$fa0, $fa0, $fa1
\tfst.d\t$fa0, $sp, 16
\tld.w\t$a3, $sp, 12
\tst.d\t$a3, $a1, 0
\taddi.d\t$a1, $a1, 8
\taddi.d\t$a0, $a0, -1
\tbnez\t$a0, .L1
\tret
"""


def test_distinct_stack_slots_never_meet_overlapping_ones_do():
    (x,) = find_asm_loops(parse_source(STACK, "stack.s"))
    g = loop_dag(x.loop, "la464")
    mem = {(d.src, d.dst) for d in g.deps if d.kind == "MEM"}
    assert (0, 2) not in mem and (2, 0) not in mem    # [$sp + 8] and [$sp + 16], 8 bytes each: apart
    assert (2, 3) not in mem and (3, 2) not in mem      # ld.w [$sp + 12] vs fst.d [$sp + 16]: apart
    # fld.d [$sp + 8] covers bytes 8..15, ld.w [$sp + 12] bytes 12..15: a store to one meets the other
    text = STACK.replace("\tfst.d\t$fa0, $sp, 16", "\tfst.d\t$fa0, $sp, 8")
    (y,) = find_asm_loops(parse_source(text, "stack.s"))
    mem = {(d.src, d.dst, d.distance) for d in loop_dag(y.loop, "la464").deps if d.kind == "MEM"}
    assert (2, 3, 0) in mem and (3, 2, 1) in mem

"""Loop rotation of LLVM IR (issue 19, schedcc/swp/llvm_rotate.py): loops as a compiler
that does not rotate them writes them (LightIR; clang with its LLVM passes off and
mem2reg only), tested at the top, become guarded loops tested at their end and are
pipelined (bodies of several blocks then if-converted); the programs compute what they
did under qemu-loongarch64 for trip counts 0..24. What cannot be rotated says why and
stays byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from swp_tools import LA, run, run_program
from tools import need

from schedcc.driver.loops import pipeline_source
from schedcc.frontends import parse_source
from schedcc.swp.llvm_ifconv import Refused
from schedcc.swp.llvm_rotate import rotate

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"
TOOLS = ("clang-16", "opt-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")

# No floating-point literals but 0 (lld 16 cannot link LoongArch constant-pool loads).
PROGRAMS = {
    "two_loops_in_one_function": """
KERNEL void k(int n, double *restrict a, double *restrict b) {
    for (int i = 1; i < n - 1; i++)
        b[i] = a[i - 1] + a[i] + a[i + 1];
    for (int i = 1; i < n - 1; i++)
        a[i] = b[i] * b[i];
}
RUN { double a[LEN], b[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); k(n, a, b); out(a, LEN); out(b, LEN); }
""",
    "while_loop": """
KERNEL void k(int n, double *restrict a, const double *restrict b) {
    int i = 0;
    while (i < n) { a[i] = a[i] * b[i] + b[i]; i = i + 1; }
}
RUN { double a[LEN], b[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); k(n, a, b); out(a, LEN); }
""",
    "values_used_after_the_loop": """
KERNEL long k(long n, const long *restrict a) {
    long i = 0, s = 0;
    while (i < n) { s = s + a[i] * 3; i = i + 1; }
    return s + i;
}
RUN { long a[LEN]; filll(a, LEN, 1); out1l(k(n, a)); }
""",
    "for_loop_with_an_if": """
KERNEL void k(int n, double *restrict a, const double *restrict b) {
    for (int i = 0; i < n; i++)
        if (b[i] > 0)
            a[i] = a[i] + b[i];
}
RUN { double a[LEN], b[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); k(n, a, b); out(a, LEN); }
""",
}


def _unrotated(tmp: Path, name: str) -> Path:
    """The program as a non-rotating compiler writes it: clang's passes off, then mem2reg."""
    c = tmp / f"{name}.c"
    c.write_text('#include "corpus.h"\n' + PROGRAMS[name])
    raw, out = tmp / f"{name}.raw.ll", tmp / f"{name}.ll"
    run(["clang-16", *LA, "-fno-math-errno", "-O1", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm",
         f"-I{CORPUS}", c, "-o", raw])
    run(["opt-16", "-passes=mem2reg", "-S", raw, "-o", out])
    return out


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_while_loops_are_rotated_pipelined_and_compute_the_same(tmp_path, name):
    need(*TOOLS)
    path = _unrotated(tmp_path, name)
    res = pipeline_source(parse_source(path.read_text(), str(path)), "la464")
    loops = [r for r in res.loops if r.name.startswith("@k/")]
    assert loops and all(loop.pipelined for loop in loops), [loop.reason for loop in loops]
    assert "%rot." in res.text
    pipelined = path.with_name(path.stem + ".swp.ll")
    pipelined.write_text(res.text)
    assert run_program(pipelined) == run_program(path)


# LightIR's style: named values, labels label_*, the test at the top.
LIGHTIR = """define i32 @sum(i32* %arg0, i32 %arg1) {
label_entry:
  br label %label_cond
label_cond:
  %op2 = phi i32 [ 0, %label_entry ], [ %op9, %label_body ]
  %op3 = phi i32 [ 0, %label_entry ], [ %op8, %label_body ]
  %op4 = icmp slt i32 %op3, %arg1
  br i1 %op4, label %label_body, label %label_end
label_body:
  %op5 = sext i32 %op3 to i64
  %op6 = getelementptr i32, i32* %arg0, i64 %op5
  %op7 = load i32, i32* %op6
  %op8 = add i32 %op3, 1
  %op9 = add i32 %op2, %op7
  br label %label_cond
label_end:
  ret i32 %op2
}
"""


def test_a_lightir_loop_is_rotated_and_its_result_leaves_through_a_phi():
    out, block = rotate(LIGHTIR, "@sum", "label_cond")
    assert block == "label_body"
    assert "%rot.op2 = phi i32 [ %op2, %label_cond ], [ %op9, %label_body ]" in out
    assert "%rot.n.op4 = icmp slt i32 %op8, %arg1" in out
    assert "br i1 %rot.n.op4, label %label_body, label %label_end" in out
    assert "%rot.op2.lcssa = phi i32 [ %op2, %label_cond ], [ %op9, %label_body ]" in out
    assert "ret i32 %rot.op2.lcssa" in out
    res = pipeline_source(parse_source(LIGHTIR, "sum.ll"), "la464")
    (loop,) = res.loops
    assert loop.pipelined, loop.reason
    assert res.text.startswith(LIGHTIR[:LIGHTIR.index("label_cond:")])


def test_a_loop_leaving_from_its_body_is_not_rotated_and_says_why():
    text = LIGHTIR.replace("  %op8 = add i32 %op3, 1\n", "  %op8 = add i32 %op3, 1\n  %stop = icmp eq i32 %op7, 0\n"
                           "  br i1 %stop, label %label_end, label %label_next\nlabel_next:\n")
    text = text.replace("label_end:\n  ret i32 %op2", "label_end:\n  %r = phi i32 [ %op2, %label_cond ], "
                        "[ %op2, %label_body ]\n  ret i32 %r")
    with pytest.raises(Refused, match="leaves the loop"):
        rotate(text, "@sum", "label_cond")
    res = pipeline_source(parse_source(text, "sum.ll"), "la464")
    (loop,) = res.loops
    assert not loop.pipelined and loop.kind == "multi-block"
    assert res.text == text

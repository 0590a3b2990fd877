"""If-conversion of LLVM IR loops of several blocks (issue 19, schedcc/swp/llvm_ifconv.py):
triangles, diamonds and nested ifs become one predicated block that is pipelined, and
the program computes what it did under qemu-loongarch64 for trip counts 0..24; bodies
that cannot be made safe (a call, an early exit) are refused with the reason and the
file stays byte for byte as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from swp_tools import LA, run, run_program
from tools import need

from schedcc.driver.loops import pipeline_source
from schedcc.frontends import parse_source
from schedcc.swp.llvm_ifconv import Refused, if_convert

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"
TOOLS = ("clang-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")

# Each kernel has a loop whose body clang leaves with several blocks; the data (corpus.h)
# has both signs, so every arm runs.
PROGRAMS = {
    "two_loops_in_one_function": """
KERNEL void k(int n, double *restrict a, double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++)
        if (c[i] > 0)
            a[i] = a[i] + c[i];
    for (int i = 0; i < n; i++)
        if (c[i] < 0)
            b[i] = b[i] * c[i];
}
RUN { double a[LEN], b[LEN], c[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3); k(n, a, b, c);
      out(a, LEN); out(b, LEN); }
""",
    "triangle_store": """
KERNEL void k(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++)
        if (b[i] > 0)
            a[i] += b[i] * c[i];
}
RUN { double a[LEN], b[LEN], c[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3); k(n, a, b, c); out(a, LEN); }
""",
    "diamond_two_stores": """
KERNEL void k(int n, double *restrict a, double *restrict b, const double *restrict c, const double *restrict d) {
    for (int i = 0; i < n - 1; i++) {
        if (c[i] < 0) {
            b[i + 1] = a[i] + d[i] * d[i];
        } else {
            a[i] = b[i] + d[i] * c[i];
        }
    }
}
RUN { double a[LEN], b[LEN], c[LEN], d[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3); fill(d, LEN, 4);
      k(n, a, b, c, d); out(a, LEN); out(b, LEN); }
""",
    "nested_ifs": """
KERNEL void k(int n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (int i = 0; i < n; i++) {
        if (b[i] > 0) {
            if (c[i] > 0)
                a[i] = b[i] * c[i];
            else
                a[i] = a[i] - c[i];
        }
    }
}
RUN { double a[LEN], b[LEN], c[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3); k(n, a, b, c); out(a, LEN); }
""",
    "division_under_condition": """
KERNEL void k(int n, long *restrict a, const long *restrict b, const long *restrict c) {
    for (int i = 0; i < n; i++)
        if (c[i] > 3)
            a[i] = b[i] / (c[i] - 4) + a[i];
}
RUN { long a[LEN], b[LEN], c[LEN]; filll(a, LEN, 1); filll(b, LEN, 2); filll(c, LEN, 3); k(n, a, b, c); outl(a, LEN); }
""",
}


def _program(tmp: Path, name: str, level: str) -> Path:
    c = tmp / f"{name}.c"
    c.write_text('#include "corpus.h"\n' + PROGRAMS[name])
    out = tmp / f"{name}{level}.ll"
    run(["clang-16", *LA, "-fno-math-errno", level, "-S", "-emit-llvm", f"-I{CORPUS}", c, "-o", out])
    return out


@pytest.mark.parametrize("level", ["-O1", "-O2"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_if_converted_loops_are_pipelined_and_compute_the_same(tmp_path, name, level):
    need(*TOOLS)
    path = _program(tmp_path, name, level)
    text = path.read_text()
    res = pipeline_source(parse_source(text, str(path)), "la464")
    loops = [r for r in res.loops if r.name.startswith("@k/")]
    assert loops and all(loop.pipelined for loop in loops), [loop.reason for loop in loops]
    assert "%ifc." in res.text
    pipelined = path.with_name(path.stem + ".swp.ll")
    pipelined.write_text(res.text)
    assert run_program(pipelined) == run_program(path)


def test_the_if_converted_code_is_what_runs(tmp_path):
    """Invert one guard of the pipelined kernel: the output changes, so the test above
    runs the predicated code."""
    need(*TOOLS)
    path = _program(tmp_path, "triangle_store", "-O2")
    res = pipeline_source(parse_source(path.read_text(), str(path)), "la464")
    kernel = res.text[res.text.index("swp."):]
    guard = next(line for line in kernel.splitlines() if "ptr %ifc.scratch" in line and "select i1" in line)
    a, b = guard.split("ptr ")[1].rstrip(", "), "%ifc.scratch"
    broken = res.text.replace(guard, guard.replace(f"ptr {a}, ptr {b}", f"ptr {b}, ptr {a}"))
    bad = path.with_name("broken.ll")
    bad.write_text(broken)
    assert run_program(bad) != run_program(path)


LOOP = """define void @f(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %j, %next ]
  %p = getelementptr inbounds i64, ptr %a, i64 %i
  %v = load i64, ptr %p
  %c = icmp slt i64 %v, 0
  br i1 %c, label %then, label %next
then:
  BODY
  br label %next
next:
  %j = add i64 %i, 1
  %d = icmp eq i64 %j, %n
  br i1 %d, label %exit, label %loop
exit:
  ret void
}
declare void @g(i64)
"""


@pytest.mark.parametrize("body, why", [
    ("call void @g(i64 %v)", "the call to @g runs only under a condition"),
    ("store volatile i64 0, ptr %p", "a volatile or atomic access under a condition"),
    ("%s = alloca i64", "'alloca' under a condition"),
])
def test_unsafe_bodies_are_refused_with_the_reason(body, why):
    text = LOOP.replace("BODY", body)
    with pytest.raises(Refused, match=why):
        if_convert(text, "@f", "loop")
    res = pipeline_source(parse_source(text, "t.ll"), "la464")
    (loop,) = res.loops
    assert not loop.pipelined and why in loop.reason and loop.kind == "multi-block"
    assert res.text == text


def test_an_early_exit_is_refused_with_the_reason():
    text = LOOP.replace("br i1 %c, label %then, label %next", "br i1 %c, label %exit, label %next")
    text = text.replace("then:\n  BODY\n  br label %next\n", "")
    res = pipeline_source(parse_source(text, "t.ll"), "la464")
    (loop,) = res.loops
    assert not loop.pipelined and "early exit" in loop.reason
    assert res.text == text


def test_a_division_is_guarded_and_the_rest_stays_as_it_was():
    text = LOOP.replace("BODY", "%q = sdiv i64 %n, %v\n  store i64 %q, ptr %p")
    out = if_convert(text, "@f", "loop")
    assert "%ifc.t0 = select i1 %c, i64 %v, i64 1" in out and "sdiv i64 %n, %ifc.t0" in out
    assert "%ifc.scratch = alloca [64 x i8], align 16" in out
    assert out.startswith("define void @f(ptr %a, i64 %n) {\nentry:\n  %ifc.scratch")
    # outside the loop, byte for byte
    assert out.endswith(text[text.index("exit:"):])


TYPED_TWO_STORES = """define void @k(i32 %n, i32* %a, i32* %b, i32* %c) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %pc = getelementptr i32, i32* %c, i32 %i
  %x = load i32, i32* %pc
  %pos = icmp sgt i32 %x, 0
  br i1 %pos, label %then, label %latch
then:
  %pa = getelementptr i32, i32* %a, i32 %i
  store i32 %x, i32* %pa
  %pb = getelementptr i32, i32* %b, i32 %i
  store i32 %x, i32* %pb
  br label %latch
latch:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"""


def test_typed_pointer_stores_of_one_type_share_one_cast_of_the_scratch_slot():
    """LightIR's typed pointers: each store under the condition goes through a select of its
    address and the scratch slot cast to i32*; the cast is written once, not once per store."""
    text = if_convert(TYPED_TWO_STORES, "@k", "loop")
    casts = [line for line in text.splitlines() if "bitcast" in line]
    assert len(casts) == 1 and casts[0].rstrip().endswith("to i32*"), casts
    assert sum("select i1" in line and "i32* %ifc.scratch." in line for line in text.splitlines()) == 2

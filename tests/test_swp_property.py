"""Property (issue 12): software pipelining of compiler output never changes what a
program computes. Hypothesis writes small C loops (integer and floating-point
arithmetic, loads at several offsets, stores, reductions, min/max, counting up
or down by 1 or 2, restrict or not), clang-16 compiles them at -O1/-O2 to LLVM
IR or LoongArch assembly, schedcc pipelines every loop it can, and the program
runs under qemu for trip counts 0..20: the output must be the original's, bit
for bit. Bounded: a few programs of three loops each (CI runs a fixed set).
"""

from __future__ import annotations

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from swp_tools import DATA, TOOLS, compile_c, run_program
from tools import missing

from schedcc.frontends import parse_source
from schedcc.driver.loops import pipeline_source

import pytest

OFFSETS = st.integers(-2, 2)


@st.composite
def expr(draw, kind: str, depth: int = 0) -> str:
    leaves = [f"a[i + {draw(OFFSETS)}]", f"b[i + {draw(OFFSETS)}]", "p", "q", "s"]
    if kind == "long":
        leaves += [str(draw(st.integers(-9, 9))), "(long)i"]
    if depth >= 2 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(leaves))
    left, right = draw(expr(kind, depth + 1)), draw(expr(kind, depth + 1))
    ops = ["+", "-", "*"] + (["&", "^", "|", "min", "max", "shr", "div"] if kind == "long" else [])
    op = draw(st.sampled_from(ops))
    if op == "min":
        return f"({left} < {right} ? {left} : {right})"
    if op == "max":
        return f"({left} > {right} ? {left} : {right})"
    if op == "shr":
        return f"(({left}) >> {draw(st.integers(1, 5))})"
    if op == "div":
        return f"(({left}) / (({right}) | 1))"
    return f"({left} {op} {right})"


@st.composite
def loop(draw, index: int) -> tuple[str, str]:
    """(the kernel's definition, the driver's call and output)."""
    kind = draw(st.sampled_from(["long", "double"]))
    restrict = "restrict " if draw(st.booleans()) else ""
    down = draw(st.booleans())
    step = draw(st.sampled_from([1, 1, 2]))
    head = (f"for (int i = n - 1; i >= 0; i -= {step})" if down else f"for (int i = 0; i < n; i += {step})")
    body = []
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(["store", "store", "sum"]))
        e = draw(expr(kind))
        if target == "sum":
            body.append(f"s = s + {e};")
        else:
            body.append(f"c[i + {draw(st.integers(0, 1))}] = {e};")
    name = f"k{index}"
    t = kind
    kernel = (f"static __attribute__((noinline)) {t} {name}(int n, const {t} *{restrict}a, const {t} *{restrict}b, "
              f"{t} *{restrict}c, {t} p, {t} q) {{\n    {t} s = p;\n    {head} {{\n        "
              + "\n        ".join(body) + "\n    }\n    return s;\n}\n")
    call = (f"    {{ {t} r = {name}(n, A{t[0]} + 4, B{t[0]} + 4, C{t[0]} + 4, P{t[0]}, Q{t[0]});\n"
            f"      emit(bits_{t[0]}(r)); for (int i = 0; i < LEN; i++) emit(bits_{t[0]}(C{t[0]}[i])); }}\n")
    return kernel, call


PROGRAM = """#include "prelude.h"
#define MAXN 20
#define LEN (MAXN + 10)
INLINE void emit(long v) {
    long buf = v;
    register long a0 __asm__("$a0") = 1;
    register long a1 __asm__("$a1") = (long)&buf;
    register long a2 __asm__("$a2") = 8;
    register long a7 __asm__("$a7") = 64;
    __asm__ volatile("syscall 0" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
}
INLINE long bits_l(long v) { return v; }
INLINE long bits_d(double d) { long b; __builtin_memcpy(&b, &d, 8); return b; }
INLINE double num(long k) { volatile long t = k; return (double)t; }
%KERNELS%
ENTRY {
    volatile int top = MAXN;
    long Al[LEN], Bl[LEN], Cl[LEN];
    double Ad[LEN], Bd[LEN], Cd[LEN];
    for (int n = 0; n <= top; n++) {
        long Pl = n - 3, Ql = 7;
        double Pd = num(n) / num(4), Qd = num(3) / num(2);
        for (int i = 0; i < LEN; i++) {
            Al[i] = (i * 29 + n) % 17 - 8; Bl[i] = (i * 13) % 11 - 5; Cl[i] = i;
            Ad[i] = num(Al[i]) / num(8); Bd[i] = num(Bl[i]) / num(4); Cd[i] = num(i);
        }
%CALLS%    }
    finish(0);
}
"""


@pytest.mark.skipif(bool(missing(*TOOLS)), reason="needs clang-16, llvm-16, lld-16 and qemu-user")
@settings(max_examples=12, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking: slow
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
@given(loops=st.tuples(loop(0), loop(1), loop(2)), level=st.sampled_from(["-O1", "-O2"]),
       lang=st.sampled_from(["ll", "s"]), target=st.sampled_from(["la464", "la664"]))
def test_pipelined_c_loops_compute_the_same(tmp_path_factory, loops, level, lang, target):
    tmp = tmp_path_factory.mktemp("swp")
    c = tmp / "loops.c"
    c.write_text(PROGRAM.replace("%KERNELS%", "".join(k for k, _ in loops))
                 .replace("%CALLS%", "".join(call for _, call in loops)))
    program = compile_c(c, tmp / f"loops.{lang}", level, lang, [DATA / "c"])
    result = pipeline_source(parse_source(program.read_text(), str(program)), target)
    pipelined = tmp / f"loops.swp.{lang}"
    pipelined.write_text(result.text)
    assert run_program(pipelined) == run_program(program), c.read_text()

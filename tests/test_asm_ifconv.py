"""If-conversion in assembly (issue 19, schedcc/swp/asm_ifconv.py, asm_predicate.py):
LoongArch loops whose body has several blocks (an ``if`` clang -O2 kept as a branch)
become one predicated block, are pipelined and compute what they did under
qemu-loongarch64 for trip counts 0..24; a body that cannot be made safe is refused
with the reason and the text stays as it was; lines outside the converted loop stay
byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from swp_tools import LA, run, run_program
from tools import need

from schedcc.frontends import parse_source
from schedcc.frontends.riscv_asm import parse_riscv
from schedcc.swp.asm_ifconv import NotConverted, if_convert_asm
from schedcc.swp.asm_loops import analyse_asm_loop
from schedcc.swp.asm_pipeline import pipeline_asm

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"
TOOLS = ("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")

PROGRAMS = {
    # a triangle: a store under a condition (through the guarded address)
    "triangle": """
KERNEL void k(long n, double *restrict a, const double *restrict b, const double *restrict c) {
    for (long i = 0; i < n; i++)
        if (b[i] > 0)
            a[i] += b[i] * c[i];
}
RUN { double a[LEN], b[LEN], c[LEN]; fill(a, LEN, 1); fill(b, LEN, 2); fill(c, LEN, 3); k(n, a, b, c); out(a, LEN); }
""",
    # a diamond: integer loads on both paths, merged with maskeqz/masknez
    "diamond": """
KERNEL void k(long n, long *restrict d, const long *restrict a, const long *restrict b, const long *restrict c) {
    for (long i = 0; i < n; i++) {
        long x;
        if (c[i] > 0)
            x = a[i] * 3 + 1;
        else
            x = b[i] - 7;
        d[i] = x;
    }
}
RUN { long a[LEN], b[LEN], c[LEN], d[LEN]; filll(a, LEN, 1); filll(b, LEN, 2); filll(c, LEN, 3); filll(d, LEN, 4);
      k(n, d, a, b, c); outl(d, LEN); }
""",
    # nested conditions on floating-point values (Livermore kernel 20's shape): fsel
    "nested": """
KERNEL void k(long n, double s, double t, double *restrict x, const double *restrict y, const double *restrict z) {
    for (long i = 0; i < n; i++) {
        double d = 1;
        if (y[i] != 0) {
            d = z[i] / y[i];
            if (t < d)
                d = t;
            if (s > d)
                d = s;
        }
        x[i] = x[i] * d;
    }
}
RUN { double x[LEN], y[LEN], z[LEN]; fill(x, LEN, 1); fill(y, LEN, 2); fill(z, LEN, 3);
      k(n, num(1) / num(4), num(3) / num(2), x, y, z); out(x, LEN); }
""",
}


def compile_o2(tmp: Path, name: str, body: str) -> Path:
    c = tmp / f"{name}.c"
    c.write_text('#include "corpus.h"\n' + body)
    s = tmp / f"{name}.s"
    run(["clang-16", *LA, "-fno-math-errno", "-O2", "-S", f"-I{CORPUS}", c, "-o", s])
    return s


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bodies_of_several_blocks_are_if_converted_pipelined_and_compute_the_same(tmp_path, name):
    need(*TOOLS)
    path = compile_o2(tmp_path, name, PROGRAMS[name])
    text = path.read_text()
    src = parse_source(text, str(path))
    (found,) = [b for b in src.program.function("k").blocks if b.label.startswith(".LBB")][:1] or [None]
    res = pipeline_asm(src, "la464")
    (loop,) = [r for r in res.loops if r.name.startswith("k/")]
    assert loop.pipelined and loop.if_converted and not loop.rotated, loop.reason
    assert loop.schedule.ii < loop.cycles_before
    kernel = "\n".join(line for _, lines in loop.code for line in lines)
    assert ("fsel" if name != "diamond" else "maskeqz") in kernel
    out = tmp_path / f"{name}.swp.s"
    out.write_text(res.text)
    assert run_program(path) == run_program(out)
    # Outside the function with the converted loop, the file is byte for byte the same.
    assert res.text.split("\nk:")[0] == text.split("\nk:")[0]
    assert res.text.split(".Lfunc_end1:")[1] == text.split(".Lfunc_end1:")[1]
    assert found is not None


VIF = """\t.text
f:
\tnop
\tb\t.L3
.L2:
\taddi.d\t$a2, $a2, 8
\taddi.d\t$a1, $a1, 8
\taddi.d\t$a0, $a0, -1
\tbeqz\t$a0, .L5
.L3:
\tfld.d\t$fa1, $a2, 0
\tfcmp.cule.d\t$fcc0, $fa1, $fa0
\tbcnez\t$fcc0, .L2
# %bb.4:
\tfst.d\t$fa1, $a1, 0
\tb\t.L2
.L5:
\tret
g:
\tmove\t$a0, $zero
\tret
"""


def test_a_triangle_becomes_one_block_with_a_guarded_store_and_the_rest_of_the_file_stays():
    new = if_convert_asm(parse_source(VIF, "v.s"), "f", ".L3")
    before, after = VIF.split(".L2:")[0], VIF.split(".L5:")[1]
    assert new.startswith(before) and new.endswith(".L5:" + after)
    block = new[len(before):new.index(".L5:")].splitlines()
    assert block == [".L3:", "\taddi.d\t$t0, $sp, -64",                     # the scratch bytes below $sp
                     "\tfld.d\t$fa1, $a2, 0", "\tfcmp.cule.d\t$fcc0, $fa1, $fa0",
                     "\tmovcf2gr\t$t1, $fcc0",                          # the store runs where $fcc0 is clear:
                     "\tmaskeqz\t$t0, $t0, $t1", "\tmasknez\t$t1, $a1, $t1",  # $a1 there, the scratch bytes
                     "\tor\t$t0, $t1, $t0", "\tfst.d\t$fa1, $t0, 0",        # elsewhere
                     "\taddi.d\t$a2, $a2, 8", "\taddi.d\t$a1, $a1, 8", "\taddi.d\t$a0, $a0, -1",
                     "\tbnez\t$a0, .L3"]                                # the latch's test, inverted
    x = analyse_asm_loop(*(lambda s: (s.program.function("f"), s.program.function("f").block(".L3")))(
        parse_source(new, "v.s")))
    store = next(a for a in x.loop.accesses.values() if a.write)
    assert store.address.terms == (("v:$a1", 1),) and store.address.step == 8   # the guarded address reads as $a1
    assert [sorted((c.first, c.second)) for c in x.checks] == [["$a1", "$a2"]]   # a run-time check parts them
    res = pipeline_asm(parse_source(VIF, "v.s"), "la464")
    assert res.loops[0].pipelined, res.loops[0].reason
    assert res.text.split("\ng:")[1] == VIF.split("\ng:")[1]


def test_a_load_of_a_location_the_iteration_writes_anyway_runs_unguarded():
    text = VIF.replace("\tfcmp.cule.d", "\tfst.d\t$fa1, $a3, 16\n\tfcmp.cule.d").replace(
        "\tfst.d\t$fa1, $a1, 0\n", "\tfld.d\t$fa2, $a3, 16\n\tfld.d\t$fa3, $a3, 8\n\tfadd.d\t$fa1, $fa2, $fa3\n"
                                   "\tfst.d\t$fa1, $a1, 0\n")
    new = if_convert_asm(parse_source(text, "v.s"), "f", ".L3")
    assert "\tfld.d\t$ft0, $a3, 16" in new.splitlines()           # stored unconditionally above: speculated
    assert ", $a3, 8\n" not in new.replace("\taddi.d\t$t2, $a3, 8\n", "")   # not accessed unconditionally:
    assert "\tfld.d\t$ft1, $t2, 0" in new                                # guarded (its address in $t2)


@pytest.mark.parametrize("arm, reason", [
    ("\tbreak\t7\n", "'break' (line 15) runs only under a condition and schedcc does not know it is safe"),
    ("\tdbar\t0\n", "'dbar' (line 15) runs only under a condition"),
    ("\tlu32i.d\t$a4, 1\n", "'lu32i.d' (line 15) writes part of a register under a condition"),
    ("\tbnez\t$a5, .L5\n", "'.L3~1' may leave the loop (to '.L5'): an early exit (a search loop) is not if-converted"),
    ("\tst.d\t$a4, $sp, -8\n", "'st.d' (line 15) addresses below $sp, where guarded accesses go"),
])
def test_an_unsafe_body_is_refused_with_the_reason_and_left_as_it_was(arm, reason):
    text = VIF.replace("# %bb.4:\n", "# %bb.4:\n" + arm)
    with pytest.raises(NotConverted) as err:
        if_convert_asm(parse_source(text, "v.s"), "f", ".L3")
    assert reason in str(err.value)
    res = pipeline_asm(parse_source(text, "v.s"), "la464")
    (loop,) = [r for r in res.loops if r.name == "f/.L3"]
    assert not loop.pipelined and "not if-converted: " + reason.split(" (line")[0] in loop.reason
    assert res.text == text


def test_a_flag_live_where_paths_join_is_refused():
    # $fcc0 is read after the join (by the latch): flags have no select
    text = VIF.replace("\taddi.d\t$a0, $a0, -1\n", "\taddi.d\t$a0, $a0, -1\n\tmovcf2gr\t$a5, $fcc0\n"
                       "\tadd.d\t$a6, $a6, $a5\n").replace("# %bb.4:\n", "# %bb.4:\n\tfcmp.clt.d\t$fcc0, $fa1, $fa0\n")
    with pytest.raises(NotConverted, match=r"the condition flag \$fcc0 differs on the paths that join"):
        if_convert_asm(parse_source(text, "v.s"), "f", ".L3")


def test_the_same_end_copied_into_both_branches_tests_once():
    # clang copies `i++; if (i == n) exit` into both arms (TSVC s161): one test on the common value
    text = """f:
\tb\t.L3
.L2:
\tfld.d\t$fa1, $a1, 0
\tfst.d\t$fa1, $a3, 0
\taddi.d\t$a6, $a6, 1
\tbeq\t$a6, $a0, .L5
.L3:
\tfld.d\t$fa2, $a2, 0
\tfcmp.cule.d\t$fcc0, $fa0, $fa2
\tbceqz\t$fcc0, .L2
\tfst.d\t$fa2, $a1, 0
\taddi.d\t$a6, $a6, 1
\tbne\t$a6, $a0, .L3
.L5:
\tret
"""
    new = if_convert_asm(parse_source(text, "s.s"), "f", ".L3")
    body = new[new.index(".L3:"):new.index(".L5:")].splitlines()
    assert body.count("\taddi.d\t$t2, $a6, 1") + body.count("\taddi.d\t$t3, $a6, 1") == 1, body
    step = next(line for line in body if line.endswith(", $a6, 1")).split("\t")[2].split(",")[0]
    assert body[-1] == f"\tbne\t{step}, $a0, .L3"       # the copies' test, once, on the common value
    assert f"\tmove\t$a6, {step}" in body
    res = pipeline_asm(parse_source(text, "s.s"), "la464")
    assert res.loops[0].pipelined, res.loops[0].reason


def test_riscv_is_refused_with_the_reason():
    text = "f:\n.L1:\n\tbeqz\ta1, .L2\n\taddi\ta2, a2, 1\n.L2:\n\taddi\ta0, a0, -1\n\tbnez\ta0, .L1\n\tret\n"
    with pytest.raises(NotConverted, match="RV64GC has no conditional-zero instruction"):
        if_convert_asm(parse_riscv(text, "r.s"), "f", ".L1")


def test_a_loop_tested_at_its_top_with_an_if_in_its_body_says_so():
    text = ("f:\n.L1:\n\tbeqz\t$a0, .L9\n\tbnez\t$a2, .L3\n\taddi.d\t$a3, $a3, 1\n.L3:\n\taddi.d\t$a0, $a0, -1\n"
            "\tb\t.L1\n.L9:\n\tret\n")
    with pytest.raises(NotConverted, match="the loop leaves from its header '.L1' .to '.L9'.: a loop tested at its "
                                           "top whose body has several blocks is not if-converted"):
        if_convert_asm(parse_source(text, "t.s"), "f", ".L1")

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


STRIDE24 = """\t.text
f:
.L1:
\tfld.d\t$fa0, $a1, 0
\tfld.d\t$fa1, $a2, 0
\tfadd.d\t$fa0, $fa1, $fa0
\tfst.d\t$fa0, $a1, 0
\taddi.d\t$a1, $a1, 24
\taddi.d\t$a2, $a2, 8
\taddi.d\t$a0, $a0, -1
\tbnez\t$a0, .L1
\tret
"""


def _passes(code, regs: dict[str, int]) -> bool:
    """Runs the guard's code (64-bit arithmetic): True unless it branches to ORIG."""
    mask = (1 << 64) - 1

    def signed(v):
        v &= mask
        return v - (1 << 64) if v >> 63 else v
    regs = dict(regs, **{"$zero": 0})
    at = {item: n for n, item in enumerate(code) if isinstance(item, str)}
    n = 0
    while n < len(code):
        ins = code[n]
        n += 1
        if isinstance(ins, str):
            continue
        ops = [regs[o.name] if hasattr(o, "name") and o.name in regs else getattr(o, "value", None)
               for o in ins.operands]
        target = ins.operands[-1].name if ins.opcode.startswith("b") else None
        op = ins.opcode
        if op in ("blt", "bge", "bne", "bnez", "beqz"):
            taken = {"blt": lambda: ops[0] < ops[1], "bge": lambda: ops[0] >= ops[1], "bne": lambda: ops[0] != ops[1],
                     "bnez": lambda: ops[0] != 0, "beqz": lambda: ops[0] == 0}[op]()
            if taken:
                if target == "ORIG":
                    return False
                n = at[target]
            continue
        value = {"addi.d": lambda: ops[0] + ops[1], "add.d": lambda: ops[0] + ops[1], "sub.d": lambda: ops[0] - ops[1],
                 "mul.d": lambda: ops[0] * ops[1], "slli.d": lambda: ops[0] << ops[1],
                 "srli.d": lambda: (ops[0] & mask) >> ops[1], "srai.d": lambda: ops[0] >> ops[1],
                 "div.du": lambda: (ops[0] & mask) // (ops[1] & mask),
                 "sltui": lambda: int((ops[0] & mask) < (ops[1] & mask)),
                 "addi.w": lambda: signed(((ops[0] + ops[1]) & 0xFFFFFFFF) << 32) >> 32}[op]()
        regs[ins.dest.name] = signed(value)
    return True


def test_the_range_check_passes_exactly_when_the_swept_spans_are_apart():
    from schedcc.swp.asm_isa import LOONGARCH
    from schedcc.swp.asm_ranges import range_guard
    (x,) = find_asm_loops(parse_source(STRIDE24, "s24.s"))
    assert len(x.ranges) == 1 and not x.checks      # strides 24 and 8: not a power of two, shifts and adds
    code = range_guard(LOONGARCH, x.loop, list(x.ranges), "ORIG", ".L1", list(x.extends))
    assert not any(getattr(i, "opcode", "") == "mul.d" for i in code)   # one temporary register
    seen = set()
    for trips in (1, 2, 3, 7):
        for a1 in range(800, 1100, 8):
            a2 = 1000
            store = {a1 + 24 * k + b for k in range(trips) for b in range(8)}
            load = {a2 + 8 * k + b for k in range(trips) for b in range(8)}
            # the check compares the spans (a store interleaved with the loads is refused too)
            apart = max(store) < min(load) or max(load) < min(store)
            passes = _passes(code, {"$a0": trips, "$a1": a1, "$a2": a2})
            assert passes == apart, (trips, a1)
            assert not passes or not store & load
            seen.add(apart)
    assert seen == {True, False}
    assert not _passes(code, {"$a0": 1 << 40, "$a1": 0, "$a2": 1 << 50})    # m >= 2^32: nothing may wrap


def test_the_sign_extension_check_refuses_an_index_that_leaves_32_bits():
    from test_asm_rotate import WHILE

    from schedcc.swp.asm_isa import LOONGARCH
    from schedcc.swp.asm_ranges import range_guard
    from schedcc.swp.asm_rotate import rotate_asm
    text, body = rotate_asm(parse_source(WHILE.replace("\taddi.d\t$a2, $a2, 1", "\taddi.d\t$a2, $a2, 2"), "w.s"),
                            "f", ".L1")
    (x,) = [f for f in find_asm_loops(parse_source(text, "w.s")) if isinstance(f, AsmLoop)]
    assert x.extends and not x.narrow            # a step of 2: first and last values checked
    code = range_guard(LOONGARCH, x.loop, [], "ORIG", body, list(x.extends))
    assert _passes(code, {"$a0": 100, "$a2": 0, "$a3": 0})
    assert _passes(code, {"$a0": (1 << 31) - 1, "$a2": (1 << 31) - 9, "$a3": 0})
    assert not _passes(code, {"$a0": (1 << 31) + 2, "$a2": (1 << 31) - 9, "$a3": 0})   # its last value wraps
    assert not _passes(code, {"$a0": 10, "$a2": -(1 << 31) - 5, "$a3": 0})


# Two pointers stepping by 512 bytes (a[64i] = f(b[64i]), no restrict): the run-time check's
# window (stride * stages + width either side) is beyond a 12-bit immediate.
WIDE = """#include "corpus.h"
KERNEL void k(long n, double *a, const double *b) {
    for (long i = 0; i < n; i++)
        a[64 * i] = b[64 * i] * b[64 * i] + b[64 * i];
}
RUN {
    double a[64 * LEN + 600], b[64 * LEN + 600];
    fill(a, 64 * LEN + 600, 1); fill(b, 64 * LEN + 600, 2);
    k(n, a, b); out(a, 64 * LEN + 600);
    k(n, a, a + 1); out(a, 64 * LEN + 600);
    k(n, a + 64, a); out(a, 64 * LEN + 600);
    k(n, a, a + 64 * 6); out(a, 64 * LEN + 600);
    k(n, a, a + 64 * 7); out(a, 64 * LEN + 600);
    k(n, a + 64 * 7, a); out(a, 64 * LEN + 600);
}
"""


def test_a_check_whose_window_needs_a_large_constant_is_built_in_the_guard(tmp_path):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    c, s = tmp_path / "wide.c", tmp_path / "wide.s"
    c.write_text(WIDE)
    run(["clang-16", *LA, "-fno-math-errno", "-O2", "-S", f"-I{CORPUS}", c, "-o", s])
    res = pipeline_asm(parse_source(s.read_text(), str(s)), "la464")
    loop = _kernel_loop(res)
    assert loop.pipelined, loop.reason
    guard = "\n".join(loop.code[0][1])
    assert "lu12i.w" in guard and "srli.d" in guard     # the window is beyond an addi/sltui immediate
    out = tmp_path / "wide.swp.s"
    out.write_text(res.text)
    assert run_program(s) == run_program(out)


def test_load_const_builds_every_64_bit_value():
    from schedcc.swp.asm_isa import LOONGARCH

    def execute(code) -> int:
        r = 0
        for ins in code:
            v = ins.operands[-1].value
            if ins.opcode == "lu12i.w":
                r = ((v << 12) & 0xFFFFFFFF) - ((v << 12) & 0x80000000) * 2
            elif ins.opcode == "ori":
                r |= v
            elif ins.opcode == "lu32i.d":
                r = (r & 0xFFFFFFFF) | ((v & 0xFFFFF) << 32) | (-(1 << 52) if v < 0 else 0)
            else:
                assert ins.opcode == "lu52i.d"
                r = (r & ((1 << 52) - 1)) | (v << 52)
            r = (r + (1 << 63)) % (1 << 64) - (1 << 63)
        return r

    for value in (0, 1, 2047, 2048, 2783, -2049, 0x7FFFFFFF, -(1 << 31), 1 << 31, 0xFFFFFFFF, 1 << 32,
                  -(1 << 40) + 5, (1 << 51) + 3, -(1 << 63), (1 << 63) - 1, 0x123456789ABCDEF0, 0x923456789ABCDEF0 - (1 << 64)):
        code = LOONGARCH.load_const("$t0", value)
        assert execute(code) == value, (value, [str(i) for i in code])
        assert len(code) <= 4


# A second int index starting at -1 (TSVC s124's j): clang keeps it as 0xffffffff in a 64-bit register
# (`addi.w -1; lu32i.d 0`) and reads it only through `addi.w`, so its value is sext32(entry) + 1 + k,
# never entry + 1 + k; the store a[j] is 8 * that off a, checked against b and c over the whole loop.
LOW_HALF = """#include "corpus.h"
KERNEL void k(int n, double *a, const double *b, const double *c) {
    int j = -1;
    for (int i = 0; i < n; i++) {
        if (b[i] > 0) { j++; a[j] = b[i] * c[i]; } else { j++; a[j] = c[i] - b[i]; }
    }
}
RUN {
    double a[2 * LEN + 8], b[LEN], c[LEN];
    fill(a, 2 * LEN + 8, 1); fill(b, LEN, 2); fill(c, LEN, 3);
    k(n, a, b, c); out(a, 2 * LEN + 8);
    k(n, a + 1, a, c); out(a, 2 * LEN + 8);
    k(n, a, a + 2, a + 9); out(a, 2 * LEN + 8);
    k(n, a + n, a, a + 1); out(a, 2 * LEN + 8);
}
"""


def _kernel_runs(path: Path, text: str, label: str) -> bool:
    """True when the pipelined kernel of loop *label* runs at least once in the program
    (a `break` at its top stops it), not only the original loop behind a failing guard."""
    broken = text.replace(f"{label}.kernel:\n", f"{label}.kernel:\n\tbreak 0\n", 1)
    assert broken != text
    path.write_text(broken)
    try:
        run_program(path)
    except AssertionError:
        return True
    return False


def test_an_int_read_only_through_its_low_half_is_followed_as_its_sign_extension(tmp_path):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    c, s = tmp_path / "low.c", tmp_path / "low.s"
    c.write_text(LOW_HALF)
    run(["clang-16", *LA, "-fno-math-errno", "-O1", "-S", f"-I{CORPUS}", c, "-o", s])
    source = parse_source(s.read_text(), str(s))
    (x,) = [f for f in find_asm_loops(source) if isinstance(f, AsmLoop) and f.name.startswith("k/")]
    (ext,) = x.extends
    (j, _), = ext.terms
    assert j.startswith("w:") and not ext.unsigned           # the low 32 bits, sign-extended on entry
    assert x.ranges and all((j, 8) in r.terms for r in x.ranges)   # a[j]: 8 * j off a
    res = pipeline_asm(source, "la464")
    loop = _kernel_loop(res)
    assert loop.pipelined, loop.reason
    assert loop.schedule.ii < loop.cycles_before
    out = tmp_path / "low.swp.s"
    out.write_text(res.text)
    assert run_program(s) == run_program(out)
    assert _kernel_runs(tmp_path / "low.brk.s", res.text, loop.loop.block.label)


SCALED = """\t.text
f:
.L1:
\taddi.d\t$a6, $a6, 1
\tfld.d\t$fa1, $a2, 0
\taddi.w\t$a7, $a6, 0
\tslli.d\t$a7, $a7, 3
\tfstx.d\t$fa1, $a1, $a7
\taddi.d\t$a2, $a2, 8
\taddi.d\t$a0, $a0, -1
\tbnez\t$a0, .L1
\tret
"""


def test_the_range_check_of_a_scaled_sign_extended_index_passes_only_when_exact_and_apart():
    from schedcc.swp.asm_isa import LOONGARCH
    from schedcc.swp.asm_ranges import range_guard
    (x,) = find_asm_loops(parse_source(SCALED, "scaled.s"))
    assert x.extends and x.extends[0].terms == (("w:$a6", 1),)
    (r,) = x.ranges
    assert ("w:$a6", 8) in r.terms
    code = range_guard(LOONGARCH, x.loop, list(x.ranges), "ORIG", ".L1", list(x.extends))

    def sext(v):
        v &= 0xFFFFFFFF
        return v - (1 << 32) if v >> 31 else v
    seen = set()
    for trips in (1, 2, 5):
        for j in (0xFFFFFFFF, 3, -4, 0x7FFFFFFE, 0x17FFFFFFE, (1 << 32) + 2):
            for a2 in range(960, 1100, 8):
                a1 = 1000
                # the real loop: a store at a1 + 8 * sext32(j + 1 + k), a load at a2 + 8 * k
                store = {a1 + 8 * sext(j + 1 + k) + b for k in range(trips) for b in range(8)}
                load = {a2 + 8 * k + b for k in range(trips) for b in range(8)}
                wraps = any(sext(j + 1 + k) != sext(j) + 1 + k for k in range(trips))
                passes = _passes(code, {"$a0": trips, "$a1": a1, "$a2": a2, "$a6": j})
                assert not passes or not (wraps or store & load), (trips, j, a2)
                if passes:
                    seen.add(j)
                elif not wraps and (max(store) < min(load) or max(load) < min(store)):
                    raise AssertionError(("refused though apart", trips, j, a2))
    assert {0xFFFFFFFF, 0x17FFFFFFE, -4} <= seen     # -1 kept zero-extended (or with any upper half): followed


ZEXT = """\t.text
f:
.L1:
\tfld.d\t$fa0, $a1, 0
\tfst.d\t$fa0, $a2, 0
\taddi.d\t$a1, $a1, 8
\taddi.d\t$a2, $a2, 8
\taddi.d\t$a0, $a0, -1
\tbstrpick.d\t$t0, $a0, 31, 0
\tbnez\t$t0, .L1
\tret
"""


def test_a_loop_test_of_a_zero_extended_counter_is_read_behind_a_check():
    from schedcc.swp.asm_isa import LOONGARCH
    from schedcc.swp.asm_ranges import range_guard
    (x,) = find_asm_loops(parse_source(ZEXT, "zext.s"))
    assert isinstance(x, AsmLoop), x.reason
    assert x.loop.iv.reg == "v:$a0" and x.loop.exit.op == "ne"
    (ext,) = x.extends
    assert ext.unsigned and ext.terms == (("$a0", 1),)
    code = range_guard(LOONGARCH, x.loop, [], "ORIG", ".L1", list(x.extends))
    assert _passes(code, {"$a0": 10, "$a1": 0, "$a2": 4096})
    assert _passes(code, {"$a0": 1 << 32, "$a1": 0, "$a2": 4096})     # counter values 2^32 - 1 .. 0
    assert not _passes(code, {"$a0": (1 << 32) + 5, "$a1": 0, "$a2": 4096})   # the real loop stops at 2^32
    assert not _passes(code, {"$a0": 0, "$a1": 0, "$a2": 4096})       # -1: 2^32 - 1 more iterations
    # RISC-V has no single zero extension: the same loop there is not read as a counter test
    assert LOONGARCH.zero_extension(x.original.instrs[5]) == "$a0"


def test_livermore_17_tests_a_zero_extension_and_runs_pipelined(tmp_path):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    s = tmp_path / "k17.s"
    run(["clang-16", *LA, "-fno-math-errno", "-O1", "-S", f"-I{CORPUS}", CORPUS / "livermore_k17.c", "-o", s])
    res = pipeline_asm(parse_source(s.read_text(), str(s)), "la464")
    (loop,) = [r for r in res.loops if r.name.startswith("implicit_cond/")]
    assert loop.pipelined and loop.if_converted, loop.reason
    out = tmp_path / "k17.swp.s"
    out.write_text(res.text)
    assert run_program(s) == run_program(out)
    assert _kernel_runs(tmp_path / "k17.brk.s", res.text, loop.loop.block.label)


def test_a_guard_where_every_register_is_live_saves_callee_saved_ones_before_it(tmp_path):
    """PolyBench trmm at -O1: the innermost loop's own registers are all live at its top and
    none is free, so the guard's temporary can only be a callee-saved register: they are
    saved before the guard, and a failing test restores them on its way to the original loop."""
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    s = tmp_path / "trmm.s"
    run(["clang-16", *LA, "-fno-math-errno", "-O1", "-S", f"-I{CORPUS}", CORPUS / "polybench_trmm.c", "-o", s])
    res = pipeline_asm(parse_source(s.read_text(), str(s)), "la464")
    (loop,) = [r for r in res.loops if r.pipelined and r.name.startswith("trmm/")]
    label = loop.loop.block.label
    code = [line for _, lines in loop.code for line in lines]
    first = next(k for k, line in enumerate(code) if line.startswith("\tbl") or line.startswith("\tbnez"))
    assert any(line.startswith("\tst.d\t$s") for line in code[:first])     # saved before the first test
    assert f"\tb\t{label}.orig" in code and f"{label}.restore:" in code
    out = tmp_path / "trmm.swp.s"
    out.write_text(res.text)
    assert run_program(s) == run_program(out)                # n = 0..24: short ones leave through the restore
    assert _kernel_runs(tmp_path / "trmm.brk.s", res.text, label)

"""Software pipelining checked by running it (issue 12): the kernels of
examples/swp/kernels.c with the driver tests/data/swp/driver.c, compiled by
clang-16 at -O1 and -O2 to LLVM IR and to LoongArch assembly, pipelined by
schedcc, built for loongarch64 (llc-16, llvm-mc-16, ld.lld-16) and run under
qemu-loongarch64 for trip counts 0..24: the pipelined program must write
exactly what the original writes (every result, bit for bit), the pipelined
code must be what runs (a broken kernel changes the output), and nothing
outside the loops may change.
"""

from __future__ import annotations

import re

import pytest

from swp_tools import TOOLS, kernels_program, run_program
from tools import need

from schedcc.frontends import parse_source
from schedcc.swp.asm_loops import find_asm_loops
from schedcc.driver.loops import pipeline_source

KERNELS = ["saxpy", "dot", "stencil", "fir", "matvec_row", "horner", "prefix_sum", "div_reduce", "clamp",
           "add_into"]


def _pipeline(path, target):
    source = parse_source(path.read_text(), str(path))
    result = pipeline_source(source, target)
    out = path.with_name(path.stem + ".swp" + path.suffix)
    out.write_text(result.text)
    return result, out


@pytest.mark.parametrize("lang", ["ll", "s"])
@pytest.mark.parametrize("level, target", [("-O1", "la464"), ("-O2", "la464"), ("-O2", "la664")])
def test_pipelined_kernels_compute_the_same(tmp_path, level, target, lang):
    need(*TOOLS)
    program = kernels_program(tmp_path, level, lang)
    result, pipelined = _pipeline(program, target)
    done = {r.name.split("/")[0].lstrip("@") for r in result.loops if r.pipelined}
    assert set(KERNELS) <= done, [(r.name, r.reason) for r in result.loops if not r.pipelined]
    expected = run_program(program)
    assert len(expected) == 25 * 8 * (8 * 28 + 3)   # n = 0..24: eight arrays, three sums
    assert run_program(pipelined) == expected
    if lang == "s":
        # byte for byte outside the loops: every original line is still there, in order,
        # but the loop branches (retargeted to the original loop's new label)
        pipelined_names = {r.name for r in result.loops if r.pipelined}
        original = find_asm_loops(parse_source(program.read_text(), str(program)))
        branches = {x.branch.loc.line for x in original if x.name in pipelined_names}
        kept = [line for k, line in enumerate(program.read_text().splitlines(), 1) if k not in branches]
        it = iter(pipelined.read_text().splitlines())
        assert all(line in it for line in kept)


@pytest.mark.parametrize("lang", ["ll", "s"])
def test_the_pipelined_kernel_is_what_runs(tmp_path, lang):
    """Break one instruction of saxpy's kernel: the output changes, so the tests above
    compare the pipelined code, not the original loop it falls back to."""
    need(*TOOLS)
    program = kernels_program(tmp_path, "-O2", lang)
    result, pipelined = _pipeline(program, "la464")
    text = pipelined.read_text()
    saxpy = next(r for r in result.loops if r.name.startswith(("@saxpy", "saxpy")))
    kernel = next(label for label, _ in saxpy.code if label.endswith("kernel"))
    start = text.index(f"{kernel}:")
    if lang == "ll":
        broken = re.sub(r"(llvm\.fmuladd\.f64\(double [^,]+, double )(%[\w.]+)", r"\1%1", text[start:], count=1)
    else:
        broken = re.sub(r"fmadd\.d\t(\$\w+), (\$\w+)", r"fmadd.d\t\1, \1", text[start:], count=1)
    assert broken != text[start:]
    pipelined.write_text(text[:start] + broken)
    assert run_program(pipelined) != run_program(program)


def test_run_time_checks_keep_overlapping_arrays_apart(tmp_path, monkeypatch):
    """In assembly, add_into(n, x, x + 1) has its store one element after its load:
    without the run-time check of the distance between the two base registers the
    pipelined code would read x[i+1] before iteration i wrote it. With the check
    the program runs the original loop there: the same output; without it, not."""
    need(*TOOLS)
    program = kernels_program(tmp_path, "-O2", "s")
    expected = run_program(program)
    result, pipelined = _pipeline(program, "la464")
    assert any(r.name.startswith("add_into") and r.pipelined for r in result.loops)
    assert run_program(pipelined) == expected
    import schedcc.swp.asm_pipeline as asm_pipeline
    real = asm_pipeline.generate_asm

    def unchecked(text, x, *args):
        x.checks = []   # the dependences stay dropped, the checks are gone
        return real(text, x, *args)
    monkeypatch.setattr(asm_pipeline, "generate_asm", unchecked)
    _, broken = _pipeline(program, "la464")
    assert run_program(broken) != expected


def test_code_made_with_few_registers_computes_the_same(tmp_path, monkeypatch):
    """Two free registers and no callee-saved ones: larger IIs, copies packed tightly."""
    need(*TOOLS)
    import schedcc.swp.asm_codegen as asm_codegen
    from schedcc.swp.asm_isa import LOONGARCH
    monkeypatch.setattr(asm_codegen, "free_registers", lambda *args: ["$t0", "$ft0"])
    monkeypatch.setattr(LOONGARCH, "callee_saved_order", ())
    program = kernels_program(tmp_path, "-O1", "s")
    result, pipelined = _pipeline(program, "la464")
    assert sum(r.pipelined for r in result.loops) >= 6
    assert any(r.pipelined and r.schedule.ii > r.schedule.mii.value for r in result.loops)
    assert run_program(pipelined) == run_program(program)

"""The front ends on real compiler output: clang-16 compiles small C programs
at -O0/-O1/-O2; schedcc schedules the LLVM IR and the LoongArch64 assembly;
the scheduled output must be accepted by LLVM's tools and compute what the
original computed (native run for LLVM IR, qemu-loongarch64 for assembly).

Needs Debian's clang-16, llvm-16, lld-16 and qemu-user (`python3 tasks.py test`
installs them); each test skips, saying which tool is missing, without them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools import need

from schedcc.driver import schedule_program
from schedcc.frontends import parse_source

DATA = Path(__file__).resolve().parent / "data" / "c"
PROGRAMS = ["arrays", "overlap", "floats", "arith"]
LEVELS = ["-O0", "-O1", "-O2"]
LA_FLAGS = ["--target=loongarch64-linux-gnu", "-ffreestanding", "-fno-builtin", "-nostdlib", f"-I{DATA}"]


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=60, **kw)
    assert proc.returncode == 0 or kw.get("check") is False, f"{cmd}: {proc.stderr}"
    return proc


def schedule_text(text: str, name: str, target: str) -> str:
    source = parse_source(text, name)
    result = schedule_program(source.program, target)  # verifies every block
    return source.render(result.scheduled_program())


def build_and_run_la(asm: Path) -> int:
    obj, elf = asm.with_suffix(".o"), asm.with_suffix(".elf")
    run(["llvm-mc-16", "--triple=loongarch64", "--filetype=obj", asm, "-o", obj])
    run(["ld.lld-16", "-static", "-z", "max-page-size=16384", "-e", "_start", obj, "-o", elf])
    return subprocess.run(["qemu-loongarch64", str(elf)], timeout=60).returncode


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("program", PROGRAMS)
def test_loongarch_assembly_runs_the_same_after_scheduling(tmp_path, program, level):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    original = tmp_path / f"{program}.s"
    run(["clang-16", *LA_FLAGS, level, "-S", DATA / f"{program}.c", "-o", original])
    text = original.read_text()
    target = "la464" if level != "-O1" else "la664"
    scheduled_text = schedule_text(text, str(original), target)
    # Only the order of instruction lines may change: same lines, and every
    # non-instruction line (directive, label, comment) exactly where it was.
    before, after = text.splitlines(), scheduled_text.splitlines()
    assert sorted(before) == sorted(after)
    for old, new in zip(before, after):
        if not old.startswith("\t") or old.lstrip().startswith(("#", ".")):
            assert old == new
    scheduled = tmp_path / f"{program}.sched.s"
    scheduled.write_text(scheduled_text)
    expected = build_and_run_la(original)
    assert build_and_run_la(scheduled) == expected
    assert expected != 1  # the program ran to its exit syscall


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("program", PROGRAMS)
def test_llvm_ir_runs_the_same_after_scheduling(tmp_path, program, level):
    need("clang-16", "llvm-as-16")
    original = tmp_path / f"{program}.ll"
    # native code: the run checks the meaning; no vectors (outside the subset)
    run(["clang-16", level, "-S", "-emit-llvm", "-fno-vectorize", "-fno-slp-vectorize", f"-I{DATA}",
         DATA / f"{program}.c", "-o", original])
    scheduled = tmp_path / f"{program}.sched.ll"
    scheduled.write_text(schedule_text(original.read_text(), str(original), "la464"))
    run(["llvm-as-16", scheduled, "-o", tmp_path / "out.bc"])
    results = []
    for ll in (original, scheduled):
        exe = ll.with_suffix(".exe")
        run(["clang-16", ll, "-o", exe])
        results.append(subprocess.run([str(exe)], timeout=60).returncode)
    assert results[0] == results[1]


@pytest.mark.parametrize("level", LEVELS)
def test_llvm_ir_for_loongarch_goes_through_llc(tmp_path, level):
    need("clang-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    original = tmp_path / "arrays.ll"
    run(["clang-16", *LA_FLAGS, level, "-S", "-emit-llvm", DATA / "arrays.c", "-o", original])
    scheduled = tmp_path / "arrays.sched.ll"
    scheduled.write_text(schedule_text(original.read_text(), str(original), "loongarch"))
    run(["llc-16", "-mtriple=loongarch64", scheduled, "-o", tmp_path / "arrays.sched.s"])
    asm = tmp_path / "arrays.sched.s"
    assert build_and_run_la(asm) == build_and_run_la(_llc(original, tmp_path / "arrays.s"))


def _llc(ll: Path, out: Path) -> Path:
    run(["llc-16", "-mtriple=loongarch64", ll, "-o", out])
    return out


@pytest.mark.parametrize("level", LEVELS + ["-O3"])
def test_hosted_program_with_calls_switch_and_globals(tmp_path, level):
    """LLVM IR with calls, phis, switch, globals and memcpy runs the same; its
    LoongArch IR and assembly are scheduled and accepted by llc and llvm-mc."""
    need("clang-16", "llc-16", "llvm-mc-16")
    src = DATA / "course.c"
    outputs = []
    original = tmp_path / "course.ll"
    run(["clang-16", level, "-S", "-emit-llvm", "-fno-vectorize", "-fno-slp-vectorize", src, "-o", original])
    scheduled = tmp_path / "course.sched.ll"
    scheduled.write_text(schedule_text(original.read_text(), str(original), "la664"))
    for ll in (original, scheduled):
        exe = ll.with_suffix(".exe")
        run(["clang-16", ll, "-o", exe])
        outputs.append(run([exe]).stdout)
    assert outputs[0] == outputs[1] and outputs[0].startswith("55 6 1")
    for flag, suffix, tool in (("-emit-llvm", ".ll", ["llc-16", "-mtriple=loongarch64"]),
                               (None, ".s", ["llvm-mc-16", "--triple=loongarch64", "--filetype=obj"])):
        la = tmp_path / f"course.la{suffix}"
        run(["clang-16", "--target=loongarch64-linux-gnu", level, "-S", *([flag] if flag else []), src, "-o", la])
        out = tmp_path / f"course.la.sched{suffix}"
        out.write_text(schedule_text(la.read_text(), str(la), "la464"))
        run([*tool, out, "-o", tmp_path / "ignored"])


LIGHTIR = DATA.parent / "lightir"


@pytest.mark.parametrize("program", ["gcd_array", "sort"])
@pytest.mark.parametrize("target", ["la464", "la664"])
def test_lightir_with_typed_pointers_runs_the_same(tmp_path, program, target):
    """LightIR as the course's compilers write it (typed pointers, allocas in
    the middle of blocks, calls to the course's runtime) schedules, stays valid
    LLVM IR and prints the same when run with a small runtime."""
    need("clang-16")
    original = LIGHTIR / f"{program}.ll"
    scheduled = tmp_path / f"{program}.sched.ll"
    scheduled.write_text(schedule_text(original.read_text(), str(original), target))
    assert scheduled.read_text() != original.read_text()  # something moved
    outputs = []
    for ll in (original, scheduled):
        exe = tmp_path / (ll.stem + ".exe")
        run(["clang-16", "-w", ll, LIGHTIR / "runtime.c", "-o", exe])
        # LightIR's `void main` leaves an arbitrary exit status: compare what it prints
        outputs.append(subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout)
    assert outputs[0] == outputs[1] and outputs[0]

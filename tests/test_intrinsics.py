"""LLVM intrinsics and calls (issue 12): an intrinsic whose effect schedcc knows is an
instruction of its own, costed by the machine model's classes like the LoongArch
instruction it lowers to; memory intrinsics touch only their operands' bytes;
lifetime markers order only their object; debug intrinsics (clang -g) order
nothing; every other call is a barrier and says so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools import need

from schedcc.dag import build_dag
from schedcc.driver import schedule_program
from schedcc.frontends import parse_file, parse_source
from schedcc.target import load_target
from schedcc.verifier import VerificationError
from schedcc.verifier.block import verify

ROOT = Path(__file__).resolve().parent.parent

HEAD = "define void @f(ptr noalias %x, ptr noalias %y, ptr %p, double %a, i64 %i, i64 %n) {\n"


def _block(body: str):
    return parse_file(HEAD + body + "  ret void\n}\n", "t.ll").functions[0].blocks[0]


def _deps(block, target="la464"):
    dag = build_dag(block, load_target(target))
    return dag, {(d.src, d.dst) for d in dag.deps if d.kind != "CTRL"}


@pytest.mark.parametrize("target, latency, units", [("la464", 5, ("FPU0", "FPU1")), ("la664", 5, ("FPU0", "FPU1", "FPU2", "FPU3"))])
def test_fmuladd_is_costed_like_fmadd_not_like_a_call(target, latency, units):
    block = _block("  %c = tail call double @llvm.fmuladd.f64(double %a, double %a, double %a)\n")
    assert str(block.instrs[0]) == "%c = llvm.fmuladd.f64 %a, %a, %a"
    op = build_dag(block, load_target(target)).ops[0]
    assert (op.latency, op.units, op.kind) == (latency, units, "fp")
    asm = parse_file("f:\n  fmadd.d $fa0, $fa1, $fa2, $fa0\n  ret\n", "t.s").functions[0].blocks[0]
    assert build_dag(asm, load_target(target)).ops[0].latency == latency


@pytest.mark.parametrize("call, kind", [
    ("%c = call i64 @llvm.smax.i64(i64 %i, i64 %n)", "minmax"),
    ("%c = call i64 @llvm.umin.i64(i64 %i, i64 %n)", "minmax"),
    ("%c = call i64 @llvm.abs.i64(i64 %i, i1 true)", "minmax"),
    ("%c = call i64 @llvm.ctpop.i64(i64 %i)", "popcount"),
    ("%c = call i64 @llvm.ctlz.i64(i64 %i, i1 true)", "alu"),
    ("%c = call double @llvm.fabs.f64(double %a)", "fp"),
    ("%c = call double @llvm.sqrt.f64(double %a)", "fsqrt_d"),
])
def test_integer_and_fp_intrinsics_have_classes(call, kind):
    block = _block(f"  {call}\n  store i64 0, ptr %p\n")
    dag, deps = _deps(block)
    assert dag.ops[0].kind == kind
    assert not any(d.kind == "MEM" for d in dag.deps)  # no memory effect: the store is free to move


def test_memcpy_writes_its_destination_and_reads_its_source_only():
    block = _block("  %l = load double, ptr %x\n"
                   "  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %x, i64 32, i1 false)\n"
                   "  store double %a, ptr %x\n"
                   "  %s = alloca double\n"
                   "  store double %a, ptr %s\n"
                   "  %m = load double, ptr %y\n")
    dag, deps = _deps(block)
    copy = block.instrs[1]
    assert str(copy.mem_write) == "%y[0]" and str(copy.mem_copy_read) == "%x[0]"
    assert dag.ops[1].kind == "memop" and dag.ops[1].latency == 12  # 10 + 32 bytes at 16 a cycle
    assert (1, 2) in deps        # the store to x waits for the copy to read x
    assert (0, 2) in deps        # (and for the load of x)
    assert (0, 1) not in deps    # two reads of x
    assert (1, 4) in deps        # the load of y reads what the copy wrote
    assert (1, 3) not in deps    # the private alloca is out of its reach


def test_memset_and_lifetime_order_only_their_own_object():
    block = _block("  %s = alloca [4 x i64]\n"
                   "  call void @llvm.lifetime.start.p0(i64 32, ptr %s)\n"
                   "  store i64 1, ptr %s\n"
                   "  store double %a, ptr %x\n"
                   "  call void @llvm.memset.p0.i64(ptr %y, i8 0, i64 %n, i1 false)\n"
                   "  %v = load i64, ptr %s\n"
                   "  call void @llvm.lifetime.end.p0(i64 32, ptr %s)\n")
    dag, deps = _deps(block)
    assert dag.ops[0].kind == dag.ops[5].kind == "marker" and dag.ops[0].latency == 0
    assert {(0, 1), (1, 4), (4, 5)} <= deps        # the alloca's accesses stay between its markers
    assert not {(0, 2), (2, 5), (0, 3), (3, 5)} & deps   # x and y are other objects
    assert (2, 3) not in deps                     # memset of y: not x


def test_volatile_memcpy_and_unknown_calls_stay_barriers_with_a_note():
    text = HEAD + ("  %l = load double, ptr %x\n"
                   "  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %p, i64 8, i1 true)\n"
                   "  %r = call double @cos(double %a)\n"
                   "  store double %l, ptr %y\n  ret void\n}\n")
    block = parse_file(text, "t.ll").functions[0].blocks[0]
    assert [i.opcode for i in block.instrs[:3]] == ["load", "call", "call"]
    result = schedule_program(block and parse_file(text, "t.ll"), "la464")
    from schedcc.emit.text import format_program
    out = format_program(result)
    assert "note: #1 calls @llvm.memcpy.p0.p0.i64 (line 3): schedcc does not know what it reads or writes" in out
    assert "note: #2 calls @cos (line 4)" in out
    from schedcc.emit.json_out import program_json
    notes = program_json(result, "critical-path")["blocks"][0]["notes"]
    assert len(notes) == 2 and notes[1].startswith("#2 calls @cos")


def test_noalias_parameters_are_objects_of_their_own():
    block = _block("  %l = load double, ptr %x\n  store double %a, ptr %y\n  %m = load double, ptr %p\n"
                   "  store double %a, ptr %p\n")
    dag, deps = _deps(block)
    assert str(block.instrs[0].mem_read) == "%x[0]"
    assert (0, 1) not in deps      # restrict x and restrict y never meet
    assert (1, 3) in deps and (0, 3) in deps  # a plain pointer may point into either


def test_verifier_checks_the_source_of_a_copy():
    block = _block("  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %x, i64 8, i1 false)\n"
                   "  store double %a, ptr %x\n")
    tgt = load_target("mips4")
    with pytest.raises(VerificationError, match="out of order"):
        verify(block, tgt, {0: 3, 1: 0, 2: 4}, {0: "ALU", 1: "ALU", 2: "ALU"})
    verify(block, tgt, {0: 0, 1: 3, 2: 6}, {0: "ALU", 1: "ALU", 2: "ALU"})


def test_clang_debug_info_is_read_and_written_back(tmp_path):
    """clang -g: `!dbg` on definitions and instructions, llvm.dbg.value calls with
    metadata arguments; dbg.value reads its value (so it stays after it) and orders nothing."""
    need("clang-16", "llvm-as-16")
    src = ROOT / "tests" / "data" / "c" / "arrays.c"
    ll = tmp_path / "arrays.ll"
    subprocess.run(["clang-16", "-O1", "-g", "-S", "-emit-llvm", "-fno-vectorize", f"-I{src.parent}", str(src),
                    "-o", str(ll)], check=True)
    source = parse_source(ll.read_text(), str(ll))
    opcodes = {i.opcode for _, b in source.program.blocks() for i in b.instrs}
    assert "llvm.dbg.value" in opcodes and "call" not in opcodes
    result = schedule_program(source.program, "la464")
    out = tmp_path / "arrays.sched.ll"
    out.write_text(source.render(result.scheduled_program()))
    subprocess.run(["llvm-as-16", str(out), "-o", str(tmp_path / "a.bc")], check=True)
    runs = []
    for f in (ll, out):
        exe = tmp_path / (f.stem + ".exe")
        subprocess.run(["clang-16", str(f), "-o", str(exe)], check=True)
        runs.append(subprocess.run([str(exe)]).returncode)
    assert runs[0] == runs[1]


def test_cli_json_lists_the_notes(tmp_path):
    path = tmp_path / "c.ll"
    path.write_text("declare void @g()\ndefine void @f() {\n  call void @g()\n  ret void\n}\n")
    out = subprocess.run([sys.executable, "-m", "schedcc", str(path), "--target", "la464", "--format", "json"],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert json.loads(out)["blocks"][0]["notes"][0].startswith("#0 calls @g (line 3)")

"""The LLVM IR and LoongArch assembly front ends on hand-written inputs:
what they build, how memory is disambiguated, how errors read, how the
schedule is written back, and the CLI's choice of front end."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from schedcc.dag import build_dag
from schedcc.driver import schedule_program
from schedcc.errors import SchedccError
from schedcc.frontends import detect_lang, parse_file, parse_source

LL = """\
%struct.P = type { i32, i64 }
@g = dso_local global [16 x i32] zeroinitializer, align 4
@h = dso_local global i32 0, align 4

define dso_local i32 @f(ptr noundef %p, i32 noundef %n) #0 {
  %a = alloca i32, align 4
  %b = alloca [4 x i64], align 8
  store i32 %n, ptr %a, align 4
  %b1 = getelementptr inbounds [4 x i64], ptr %b, i64 0, i64 1
  store i64 7, ptr %b1, align 8
  %x = load i32, ptr %a, align 4
  %q = getelementptr inbounds %struct.P, ptr %p, i64 1, i32 1
  %y = load i64, ptr %q, align 8
  %i = sext i32 %n to i64
  %gi = getelementptr inbounds [16 x i32], ptr @g, i64 0, i64 %i
  store i32 %x, ptr %gi, align 4
  %z = load i32, ptr @h, align 4
  %c = icmp slt i32 %x, %z
  br i1 %c, label %then, label %done

then:
  %d = sdiv i32 %x, 3
  br label %done

done:
  %r = phi i32 [ %d, %then ], [ %x, %0 ]
  ret i32 %r
}

declare i32 @ext(i32 noundef) #1

attributes #0 = { noinline nounwind "frame-pointer"="all" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"wchar_size", i32 4}
"""


def _instrs(text, name="t.ll", block=0):
    return parse_file(text, name).functions[0].blocks[block].instrs


def test_llvm_instructions_and_memory_references():
    got = [str(i) for i in _instrs(LL)]
    assert got == [
        "store %a[0], %n {width = 4, private = true}",
        "%b1 = add %b, 8",
        "store %b[8], 7, %b1 {width = 8, private = true}",
        "%x = load %a[0] {width = 4, private = true}",
        "%q = add %p, 24",
        "%y = load [%p + 24], %q {width = 8}",
        "%i = mov %n",
        "%gi = add @g, %i",
        "store @g[4*%i], %x, %gi {width = 4}",
        "%z = load @h[0] {width = 4}",
        "%c = lt %x, %z",
        "br %c, then, done",
    ]
    assert [b.label for b in parse_file(LL, "t.ll").functions[0].blocks] == ["entry", "then", "done"]


def test_llvm_distinct_objects_do_not_alias_but_unknown_pointers_may():
    block = parse_file(LL, "t.ll").functions[0].blocks[0]
    dag = build_dag(block, "la464")
    mem = {(d.src, d.dst) for d in dag.deps if d.kind == "MEM"}
    assert (0, 3) in mem            # store %a -> load %a
    assert (2, 3) not in mem        # %b and %a are different allocas
    assert (0, 5) not in mem and (2, 5) not in mem  # [%p + 24] cannot reach the private allocas
    assert (5, 8) in mem            # but it may point into @g
    assert (9, 10) not in mem       # @g and @h do not alias
    assert (1, 2) in {(d.src, d.dst) for d in dag.deps if d.kind == "RAW"}  # address first


def test_llvm_phi_and_alloca_stay_at_the_block_head_when_written_back():
    text = """\
define i32 @k(ptr %p) {
  %1 = alloca i32, align 4
  %2 = alloca i32, align 4
  %3 = load i32, ptr %p, align 4
  %4 = mul i32 %3, %3
  %5 = mul i32 %4, %4
  store i32 1, ptr %1, align 4
  store i32 2, ptr %2, align 4
  %6 = load i32, ptr %1, align 4
  %7 = add i32 %5, %6
  ret i32 %7
}
"""
    source = parse_source(text, "k.ll")
    assert len(source.program.functions[0].blocks[0].instrs) == 8  # the allocas are not scheduled
    result = schedule_program(source.program, "la464")
    out = source.render(result.scheduled_program()).splitlines()
    assert out[1:3] == ["  %1 = alloca i32, align 4", "  %2 = alloca i32, align 4"]
    # unnamed values are renumbered in their new textual order, as LLVM requires
    numbers = [int(line.split("=")[0].strip()[1:]) for line in out[1:-2] if line.strip().startswith("%")]
    assert numbers == sorted(numbers)
    assert sorted(out) != sorted(text.splitlines()) or out != text.splitlines()


def test_llvm_syntax_error_is_located_with_expected_tokens():
    with pytest.raises(SchedccError) as info:
        parse_file("define i32 @f() {\n  %x = add i32 1 2\n  ret i32 %x\n}\n", "bad.ll")
    text = info.value.render()
    assert text.startswith("bad.ll:2:18: error: unexpected '2'")
    assert "  %x = add i32 1 2\n" in text and "^" in text and "note: expected ','" in text


def test_llvm_structural_errors():
    with pytest.raises(SchedccError, match="duplicate label '1'"):
        parse_file("define void @f() {\n  br label %1\n1:\n  br label %1\n1:\n  ret void\n}\n", "d.ll")
    with pytest.raises(SchedccError, match="malformed 'br'"):
        parse_file("define void @f(i1 %c) {\n  br i1 %c\n}\n", "b.ll")
    with pytest.raises(SchedccError, match="duplicate label '.L1'"):
        parse_file("f:\n.L1:\n\tnop\n.L1:\n\tret\n", "d.s")


def test_llvm_unsupported_variable_alloca_is_a_clear_error():
    with pytest.raises(SchedccError, match="alloca of variable size"):
        parse_file("define void @f(i32 %n) {\n  %a = alloca i32, i32 %n\n  ret void\n}\n", "v.ll")


ASM = """\
\t.text
\t.globl\tf
f:                                  # @f
# %bb.0:
\taddi.d\t$sp, $sp, -32
	st.d	$a0, $sp, 0
	ld.w	$a2, $sp, 4                 # overlaps the st.d
\tld.w\t$a3, $sp, 8
\tst.d\t$a1, $r3, 16                # $r3 is $sp
\tbl\t%plt(g)
\tadd.w\t$a0, $a0, $a2
\tbeqz\t$a0, .LBB0_2
.LBB0_2:
\t.cfi_remember_state
\tmul.d\t$a0, $a0, $a0
\tret
"""


def test_asm_regions_and_instructions():
    prog = parse_file(ASM, "f.s")
    blocks = prog.functions[0].blocks
    assert [b.label for b in blocks] == ["f", "f~1", ".LBB0_2"]
    assert [str(i) for i in blocks[0].instrs] == [
        "$sp = addi.d $sp, -32",
        "st.d [$sp], $a0 {width = 8}",
        "$a2 = ld.w [$sp + 4] {width = 4}",
        "$a3 = ld.w [$sp + 8] {width = 4}",
        "st.d [$sp + 16], $a1 {width = 8}",
        "bl %plt(g)",
    ]


def test_asm_widths_decide_aliasing():
    block = parse_file(ASM, "f.s").functions[0].blocks[0]
    dag = build_dag(block, "la464")
    mem = {(d.src, d.dst) for d in dag.deps if d.kind == "MEM"}
    assert (1, 2) in mem          # st.d covers bytes 0..7, ld.w reads 4..7
    assert (1, 3) not in mem      # ld.w reads 8..11
    assert (2, 4) not in mem and (3, 4) not in mem  # st.d at 16 ($r3 is $sp)


def test_asm_write_back_changes_only_instruction_order():
    source = parse_source(ASM, "f.s")
    result = schedule_program(source.program, "la464")
    out = source.render(result.scheduled_program())
    before, after = ASM.splitlines(), out.splitlines()
    assert sorted(before) == sorted(after)
    for old, new in zip(before, after):
        if not old.startswith("\t") or old.startswith(("\t.", "\tbl", "\tbeqz", "\tret")):
            assert old == new
    assert after.index("\tst.d\t$a0, $sp, 0") < after.index("\tld.w\t$a2, $sp, 4                 # overlaps the st.d")


def test_asm_errors():
    with pytest.raises(SchedccError) as info:
        parse_file("f:\n\tadd.d $a0, $a1,\n", "e.s")
    assert info.value.render().startswith("e.s:2:")
    with pytest.raises(SchedccError, match="unknown register '\\$a9'") as info:
        parse_file("f:\n\tadd.d $a0, $a9, $a1\n", "e.s")
    assert "$a0-$a7" in info.value.render()
    with pytest.raises(SchedccError, match="'ld.w' takes rd, rj, offset"):
        parse_file("f:\n\tld.w $a0, $a1\n", "e.s")
    with pytest.raises(SchedccError, match="'amswap.w' is not supported"):
        parse_file("f:\n\tamswap.w $a0, $a1, $a2\n", "e.s")


def test_language_detection():
    assert detect_lang("x.ll") == "ll" and detect_lang("x.s") == "asm" and detect_lang("x.ir") == "ir"
    assert detect_lang("-") == "ir" and detect_lang("x.txt", "asm") == "asm"
    with pytest.raises(SchedccError, match="unknown language"):
        detect_lang("x.ll", "cobol")


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "schedcc.cli", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True)


def test_cli_schedules_and_writes_back_each_language(tmp_path, root):
    (tmp_path / "f.s").write_text(ASM)
    (tmp_path / "f.ll").write_text(LL)
    proc = _cli(tmp_path / "f.s", "--target", "loongarch", "-o", tmp_path / "out.s", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "f / f: 6 instructions on la464" in proc.stdout
    assert sorted((tmp_path / "out.s").read_text().splitlines()) == sorted(ASM.splitlines())
    proc = _cli(tmp_path / "f.ll", "--target", "la664", "-o", tmp_path / "out.ll", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "@f / entry" in proc.stdout and (tmp_path / "out.ll").exists()
    # --lang overrides the extension
    (tmp_path / "f.txt").write_text(ASM)
    proc = _cli(tmp_path / "f.txt", "--lang", "asm", "--target", "la464", cwd=root)
    assert proc.returncode == 0, proc.stderr


def test_cli_parse_error_exit_2_and_input_kept(tmp_path, root):
    bad = tmp_path / "bad.s"
    bad.write_text("f:\n\tadd.d $a0, $a1, ,\n")
    proc = _cli(bad, "--target", "la464", "-o", tmp_path / "out.s", cwd=root)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{bad}:2:")
    assert "Traceback" not in proc.stderr and not (tmp_path / "out.s").exists()
    # -o onto the input is refused before the input is even parsed (outputs are checked first)
    proc = _cli(bad, "--target", "la464", "-o", bad, cwd=root)
    assert proc.returncode == 2 and "refusing to overwrite the input file" in proc.stderr
    assert bad.read_text() == "f:\n\tadd.d $a0, $a1, ,\n"
    good = tmp_path / "good.s"
    good.write_text(ASM)
    proc = _cli(good, "--target", "la464", "-o", good, cwd=root)
    assert proc.returncode == 2 and "refusing to overwrite" in proc.stderr


def test_llvm_volatile_accesses_keep_their_order_with_stores():
    text = """\
define i32 @v() {
  %a = alloca i32, align 4
  %b = alloca i32, align 4
  store volatile i32 1, ptr %a, align 4
  %x = load volatile i32, ptr %b, align 4
  %y = load i32, ptr %b, align 4
  %s = add i32 %x, %y
  ret i32 %s
}
"""
    block = parse_file(text, "v.ll").functions[0].blocks[0]
    assert str(block.instrs[0]).startswith("store [volatile], 1")
    dag = build_dag(block, "la464")
    assert dag.has_dep(0, 1) and dag.has_dep(0, 2)  # a volatile store orders every access after it


def test_asm_in_gcc_and_course_compiler_style(root, tmp_path):
    """GCC's numeric registers, `.LFB0 = .` and `.cfi_*` directives; a course
    compiler's `.main_label_*` block labels (functions come from `.type`)."""
    path = root / "tests" / "data" / "gcc_and_course_style.s"
    source = parse_source(path.read_text(), str(path))
    funcs = source.program.functions
    assert [f.name for f in funcs] == ["f", "main"]
    assert [b.label for b in funcs[1].blocks] == ["main", ".main_label_entry", ".main_label_exit"]
    f3 = funcs[0].blocks[3]
    assert str(f3.instrs[2]) == "st.w [$fp - 20], $t0 {width = 4}"  # $r22 is $fp, $r12 is $t0
    out = source.render(schedule_program(source.program, "la464").scheduled_program())
    assert sorted(out.splitlines()) == sorted(path.read_text().splitlines())
    if shutil.which("llvm-mc-16"):
        (tmp_path / "out.s").write_text(out)
        subprocess.run(["llvm-mc-16", "--triple=loongarch64", "--filetype=obj", str(tmp_path / "out.s"),
                        "-o", str(tmp_path / "out.o")], check=True)


def test_llvm_private_allocas_are_out_of_reach_of_pointers():
    text = """\
declare void @use(ptr)
declare void @llvm.lifetime.start.p0(i64, ptr)

define i32 @e(ptr %p, ptr %q) {
  %kept = alloca i32, align 4
  %arr = alloca [4 x i32], align 4
  %stored = alloca i32, align 4
  %passed = alloca [2 x i32], align 4
  call void @llvm.lifetime.start.p0(i64 16, ptr %arr)
  %a1 = getelementptr inbounds [4 x i32], ptr %arr, i64 0, i64 1
  store ptr %stored, ptr %q, align 8
  %p1 = getelementptr inbounds [2 x i32], ptr %passed, i64 0, i64 1
  call void @use(ptr %p1)
  store i32 1, ptr %kept, align 4
  store i32 2, ptr %a1, align 4
  store i32 3, ptr %stored, align 4
  store i32 4, ptr %passed, align 4
  %x = load i32, ptr %p, align 4
  ret i32 %x
}
"""
    fn = parse_file(text, "e.ll").functions[0]
    block = fn.blocks[0]
    private = {str(i.operands[0]).split("[")[0] for i in block.instrs if i.attr("private")}
    assert private == {"%kept", "%arr"}
    dag = build_dag(block, "la464")
    load = len(block.instrs) - 2
    stores = {str(block.instrs[u].operands[0]).split("[")[0]: u for u in range(load)
              if block.instrs[u].opcode == "store" and block.instrs[u].attr("width") == 4}
    assert not dag.has_dep(stores["%kept"], load) and not dag.has_dep(stores["%arr"], load)
    assert dag.has_dep(stores["%stored"], load) and dag.has_dep(stores["%passed"], load)

"""``schedcc qemu``: the original and the pipelined program built and run under qemu-user, their
outputs compared (issue 19: the recipe of the tests as one documented command)."""

import subprocess
from pathlib import Path

from tools import need

from schedcc.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "bench" / "corpus"


def test_a_c_program_runs_the_same_pipelined(capsys):
    need("clang-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
    assert main(["qemu", str(CORPUS / "tsvc_s000.c"), "--target", "la464"]) == 0
    out = capsys.readouterr().out
    assert "s000/.LBB1_2: II 2" in out and "same output and exit status" in out
    assert "original under qemu-loongarch64:  200 bytes" in out


def test_llvm_ir_and_risc_v(tmp_path, capsys):
    need("clang-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64", "qemu-riscv64")
    ll = tmp_path / "s000.ll"
    subprocess.run(["clang-16", "--target=loongarch64-linux-gnu", "-ffreestanding", "-fno-builtin", "-nostdlib",
                    "-fno-math-errno", "-O2", f"-I{CORPUS}", "-S", "-emit-llvm", str(CORPUS / "tsvc_s000.c"),
                    "-o", str(ll)], check=True)
    assert main(["qemu", str(ll), "--target", "la664", "--keep", str(tmp_path / "built")]) == 0
    out = capsys.readouterr().out
    assert "same output" in out and (tmp_path / "built" / "pipelined.elf").exists()
    assert main(["qemu", str(CORPUS / "livermore_k01.c"), "--target", "sifive-u74"]) == 0
    out = capsys.readouterr().out
    assert "under qemu-riscv64" in out and "same output" in out


def test_a_program_without_start_is_refused(capsys):
    assert main(["qemu", str(ROOT / "examples" / "loops" / "while_form.s"), "--target", "la464"]) == 2
    err = capsys.readouterr().err
    assert "defines no _start" in err and "Traceback" not in err

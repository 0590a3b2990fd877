"""Building and running software-pipelined programs for loongarch64 under qemu
(tests/test_swp_run.py, tests/test_swp_property.py, bench/bench_swp.py).

A program is C compiled by clang-16 to LLVM IR (then llc-16) or to assembly,
pipelined by schedcc, assembled by llvm-mc-16, linked freestanding by ld.lld-16
and run by qemu-loongarch64; what it writes to standard output is its result.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
KERNELS = ROOT / "examples" / "swp" / "kernels.c"
TOOLS = ("clang-16", "llc-16", "llvm-mc-16", "ld.lld-16", "qemu-loongarch64")
LA = ["--target=loongarch64-linux-gnu", "-ffreestanding", "-fno-builtin", "-nostdlib"]


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, timeout=120, **kw)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))}: {proc.stderr.decode(errors='replace')}")
    return proc


def static_kernels(text: str) -> str:
    """The kernels of a C file made `static` and `noinline`: lld 16 cannot link a LoongArch
    call to a global symbol, but the assembler resolves a call to a local one."""
    return re.sub(r"^(void|double|long|int) ", r"static __attribute__((noinline)) \1 ", text, flags=re.M)


def compile_c(c_file: Path, out: Path, level: str, lang: str, include: list[Path] = ()) -> Path:
    """clang-16 for loongarch64: LLVM IR (lang 'll') or assembly ('s')."""
    flags = ["-S", "-emit-llvm"] if lang == "ll" else ["-S"]
    run(["clang-16", *LA, level, *flags, *[f"-I{p}" for p in include], c_file, "-o", out])
    return out


def to_asm(path: Path) -> Path:
    """LLVM IR through llc-16; assembly as it is."""
    if path.suffix != ".ll":
        return path
    out = path.with_suffix(".llc.s")
    run(["llc-16", "-mtriple=loongarch64", "-O2", path, "-o", out])
    return out


def run_program(path: Path) -> bytes:
    """Assemble, link and run a program (.s, or .ll through llc); its standard output."""
    asm = to_asm(path)
    obj, elf = asm.with_suffix(".o"), asm.with_suffix(".elf")
    run(["llvm-mc-16", "--triple=loongarch64", "--filetype=obj", asm, "-o", obj])
    run(["ld.lld-16", "-static", "-z", "max-page-size=16384", "-e", "_start", obj, "-o", elf])
    proc = subprocess.run(["qemu-loongarch64", str(elf)], capture_output=True, timeout=120)
    assert proc.returncode == 0, f"{elf} exited with {proc.returncode}"
    return proc.stdout


def kernels_program(tmp: Path, level: str, lang: str) -> Path:
    """examples/swp/kernels.c with tests/data/swp/driver.c, compiled to *lang*."""
    (tmp / "kernels.static.c").write_text(static_kernels(KERNELS.read_text()))
    return compile_c(DATA / "swp" / "driver.c", tmp / f"driver{level}.{lang}", level, lang,
                     [tmp, DATA / "c"])

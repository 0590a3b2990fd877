"""``schedcc qemu PROG``: build the original and the software-pipelined program, run both
under qemu-user and compare what they write.

The recipe the tests and benches use (tests/swp_tools.py, bench/bench_loop_corpus.py), as one
command for a student's own program: a freestanding program (its own ``_start``, no libc: see
bench/corpus/corpus.h for one way to write it) in C (compiled by clang-16), LLVM IR (through
llc-16) or assembly; assembled by llvm-mc-16, linked by ld.lld-16, run by qemu-loongarch64 or
qemu-riscv64. Exit 0 when both write the same bytes and exit alike, 1 when they differ, 2 on
bad input or a missing or failing tool.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from schedcc.errors import SchedccError

HELP = "build the original and the pipelined program, run both under qemu and compare their output"
DESCRIPTION = """\
Pipeline every loop of PROG (as --pipeline does), then build the original and
the pipelined program (C through clang-16, LLVM IR through llc-16; llvm-mc-16;
ld.lld-16 -static -e _start) and run both under qemu-user: the same output and
exit status, or the first byte where they differ (exit 1). PROG is freestanding:
it defines _start and writes its results itself (bench/corpus/corpus.h).

examples:
  schedcc qemu bench/corpus/tsvc_s000.c --target la464
  schedcc qemu prog.ll --target la664
  schedcc qemu prog.s --target sifive-u74       (RISC-V assembly, qemu-riscv64)"""

ISAS = {  # isa -> (clang target, llc triple, llvm-mc flags, qemu)
    "loongarch64": ("--target=loongarch64-linux-gnu", "loongarch64", ["--triple=loongarch64"], "qemu-loongarch64"),
    "riscv64": ("--target=riscv64-linux-gnu", "riscv64", ["--triple=riscv64", "-mattr=+m,+a,+f,+d,+c"],
                "qemu-riscv64"),
}
PACKAGES = {"clang-16": "clang-16", "llc-16": "llvm-16", "llvm-mc-16": "llvm-16", "ld.lld-16": "lld-16",
            "qemu-loongarch64": "qemu-user", "qemu-riscv64": "qemu-user"}
TIMEOUT_S = 120


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="PROG", help="a freestanding program: .c, .ll or .s")
    parser.add_argument("-t", "--target", default="la464",
                        help="machine model to pipeline for (default la464); sifive-u74/u74 builds for RISC-V")
    parser.add_argument("-O", dest="level", choices=("1", "2"), default="2",
                        help="clang-16's optimisation level for a .c file (default 2)")
    parser.add_argument("--modulo", choices=("ims", "swing"), default="ims", help="modulo scheduler (default ims)")
    parser.add_argument("--keep", metavar="DIR", help="keep the built files (original.*, pipelined.*) in DIR")


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SchedccError(f"schedcc qemu needs {name}, which is not installed",
                           notes=[f"on Debian: apt install {PACKAGES.get(name, name)} (python3 tasks.py test installs "
                                  "every toolchain)"])
    return path


def _run(cmd: list, what: str) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run([str(c) for c in cmd], capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SchedccError(f"{what}: {Path(str(cmd[0])).name} did not finish in {TIMEOUT_S} s") from None
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        raise SchedccError(f"{what}: {Path(str(cmd[0])).name} failed (exit {proc.returncode})",
                           notes=err[-6:] or ["(no message)"])
    return proc


def _isa(target) -> str:
    return "riscv64" if "u74" in target.name or "riscv" in target.name else "loongarch64"


START = re.compile(r"^(_start:|define\b[^;]*@_start\()", re.M)   # assembly's label, LLVM IR's definition


def _build_and_run(text: str, lang: str, isa: str, work: Path, name: str) -> tuple[bytes, int]:
    """Assemble (llc-16 first for LLVM IR), link and run one program: its output and exit status."""
    _clang_target, triple, mc_flags, qemu = ISAS[isa]
    src = work / f"{name}.{'ll' if lang == 'll' else 's'}"
    src.write_text(text)
    asm = src
    if lang == "ll":
        asm = work / f"{name}.llc.s"
        _run([_tool("llc-16"), f"-mtriple={triple}", "-O2", src, "-o", asm], f"{name}: llc-16")
    obj, elf = work / f"{name}.o", work / f"{name}.elf"
    _run([_tool("llvm-mc-16"), *mc_flags, "--filetype=obj", asm, "-o", obj], f"{name}: llvm-mc-16")
    _run([_tool("ld.lld-16"), "-static", "-z", "max-page-size=16384", "-e", "_start", obj, "-o", elf],
         f"{name}: ld.lld-16 (lld 16 cannot resolve LoongArch calls to global symbols or PC-relative data: "
         "inline the functions, keep data on the stack)")
    try:
        proc = subprocess.run([_tool(qemu), str(elf)], capture_output=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise SchedccError(f"{name}: did not finish under {qemu} in {TIMEOUT_S} s") from None
    return proc.stdout, proc.returncode


def _describe(out: bytes, status: int) -> str:
    return f"{len(out):,} bytes of output (sha256 {hashlib.sha256(out).hexdigest()[:12]}), exit {status}"


def run(args: argparse.Namespace) -> int:
    from schedcc.driver.loops import pipeline_source
    from schedcc.frontends import parse_source
    from schedcc.target import load_target

    path = Path(args.file)
    if not path.is_file():
        raise SchedccError(f"{path}: no such file")
    target = load_target(args.target)
    isa = _isa(target)
    with tempfile.TemporaryDirectory(prefix="schedcc-qemu-") as tmp:
        work = Path(tmp)
        if path.suffix == ".c":
            text_path = work / "original.s"
            _run([_tool("clang-16"), ISAS[isa][0], "-ffreestanding", "-fno-builtin", "-nostdlib",
                  "-fno-math-errno", f"-O{args.level}", f"-I{path.parent}", "-S", path, "-o", text_path],
                 f"{path}: clang-16")
            text, name = text_path.read_text(), str(text_path)
        else:
            text, name = path.read_text(), str(path)
        if not START.search(text):
            raise SchedccError(f"{path}: defines no _start: schedcc qemu runs a freestanding program, which "
                               "starts at _start and writes its results itself",
                               notes=["bench/corpus/corpus.h and any bench/corpus/*.c show one way to write it"])
        source = parse_source(text, name)
        piped = pipeline_source(source, target, args.modulo)
        done = [r for r in piped.loops if r.pipelined]
        print(f"{path}: {len(done)} of {len(piped.loops)} loops pipelined for {target.name}")
        for r in piped.loops:
            print(f"  {r.loop.name}: " + (f"II {r.schedule.ii}" if r.pipelined else f"left alone: {r.reason}"))
        want = _build_and_run(text, source.lang, isa, work, "original")
        if want[1] < 0:
            raise SchedccError(f"{path}: the original program itself dies under {ISAS[isa][3]} (signal "
                               f"{-want[1]}): nothing to compare the pipelined one with")
        got = _build_and_run(piped.text, source.lang, isa, work, "pipelined")
        qemu = ISAS[isa][3]
        print(f"original under {qemu}:  {_describe(*want)}")
        print(f"pipelined under {qemu}: {_describe(*got)}")
        if args.keep:   # through the run's output transaction: written only when the run gets here
            from schedcc.fileio import write_output
            Path(args.keep).mkdir(parents=True, exist_ok=True)
            for f in sorted(work.iterdir()):
                write_output(Path(args.keep) / f.name, f.read_bytes(), inputs=(str(path),))
            print(f"the built files are in {args.keep}")
    if want == got:
        print("same output and exit status")
        return 0
    a, b = want[0], got[0]
    at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    print(f"DIFFERENT: first difference at byte {at:,}" + ("" if want[1] == got[1] else
                                                           f"; exit {want[1]} against {got[1]}"), file=sys.stderr)
    return 1

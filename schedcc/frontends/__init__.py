"""Front ends: each reads one language into the same IR (:mod:`schedcc.ir`).

=========  ==========================  ==============================================
language   extensions                  module
=========  ==========================  ==============================================
``ir``     ``.ir`` (and anything else)  :mod:`schedcc.frontends.ir_text`
``ll``     ``.ll``                      :mod:`schedcc.frontends.llvm_ir`
``asm``    ``.s``                       :mod:`schedcc.frontends.loongarch_asm` or
                                        :mod:`schedcc.frontends.riscv_asm` (:func:`assembly_isa`)
=========  ==========================  ==============================================

:func:`parse_source` returns a :class:`~schedcc.frontends.source.Source`,
which can also write a scheduled program back in the input's own language;
:func:`parse_file` returns just the program.

Example::

    >>> parse_file("t0 = t1 + t2\\n", "x.ir").functions[0].blocks[0].instrs[0].opcode
    'add'
"""

from __future__ import annotations

import re
from pathlib import PurePath

from schedcc.errors import SchedccError
from schedcc.ir import Program, print_program
from schedcc.frontends.source import Source

LANGS = ("ir", "ll", "asm")
EXTENSIONS = {".ir": "ir", ".ll": "ll", ".s": "asm"}
# source files a student may hand in instead of what a compiler makes of them
SOURCE_EXTENSIONS = {".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".f90": "Fortran",
                     ".rs": "Rust"}


def detect_lang(name: str, lang: str | None = None) -> str:
    """The language of file *name*: *lang* if given, else from the extension (default ``ir``)."""
    if lang is not None:
        if lang not in LANGS:
            raise SchedccError(f"unknown language '{lang}'", notes=[f"choose one of: {', '.join(LANGS)}"])
        return lang
    suffix = PurePath(name).suffix.lower() if name else ""
    if suffix in SOURCE_EXTENSIONS:
        raise SchedccError(
            f"{name}: schedcc reads compiler output, not {SOURCE_EXTENSIONS[suffix]} source: its own IR (.ir), "
            "LLVM IR (.ll) or LoongArch / RISC-V assembly (.s)",
            notes=[f"make LLVM IR: clang-16 --target=loongarch64-linux-gnu -O2 -S -emit-llvm {PurePath(name).name} "
                   f"-o {PurePath(name).stem}.ll",
                   f"or assembly: clang-16 --target=loongarch64-linux-gnu -O2 -S {PurePath(name).name} "
                   f"-o {PurePath(name).stem}.s (riscv64-linux-gnu -march=rv64gc for RISC-V)"])
    return EXTENSIONS.get(suffix, "ir")


def parse_source(text: str, name: str = "<input>", lang: str | None = None) -> Source:
    """Parse *text* (from file *name*) with the front end for *lang* or *name*'s extension."""
    lang = detect_lang(name, lang)
    if lang == "ll":
        from schedcc.frontends.llvm_ir import parse_llvm
        return parse_llvm(text, name)
    if lang == "asm":
        if assembly_isa(text, name) == "riscv64":
            from schedcc.frontends.riscv_asm import parse_riscv
            return parse_riscv(text, name)
        from schedcc.frontends.loongarch_asm import parse_asm
        return parse_asm(text, name)
    from schedcc.frontends.ir_text import parse
    program = parse(text, name)
    return Source(program, "ir", text, print_program)


_INSTR_LINE = re.compile(r"^[ \t]+([a-z][a-z0-9.]*)[ \t]+(.*)$", re.M)
CLANG = {"loongarch64": "clang-16 --target=loongarch64-linux-gnu -O2 -S prog.c -o prog.s",
         "riscv64": "clang-16 --target=riscv64-linux-gnu -march=rv64gc -O2 -S prog.c -o prog.s"}


def assembly_isa(text: str, name: str = "<input>") -> str:
    """Which assembly *text* is: ``loongarch64`` (registers ``$a0``) or ``riscv64``
    (``a0``, ``8(sp)``, or a ``.attribute 5, "rv64..."`` line); other assembly
    (x86 ``%rax``, AArch64 ``x0, [sp, #8]``) is an error saying what schedcc reads.
    Looks at the first 200 instruction lines. O(len(text)).

    >>> assembly_isa("f:\\n\\tadd.d $a0, $a1, $a2\\n"), assembly_isa("f:\\n\\tadd a0, a1, a2\\n")
    ('loongarch64', 'riscv64')
    """
    if re.search(r'^\s*\.attribute\s+(5|arch)\s*,\s*"rv', text, re.M):
        return "riscv64"
    votes = {"loongarch64": 0, "riscv64": 0, "x86": 0, "aarch64": 0}
    for k, m in enumerate(_INSTR_LINE.finditer(text)):
        if k >= 200:
            break
        operands = m.group(2).split("#")[0]
        if re.search(r"\$[a-z]", operands):
            votes["loongarch64"] += 1
        elif re.search(r"%[re]?[a-z]{1,2}\b|\(%|\$-?\d", operands):
            votes["x86"] += 1
        elif re.search(r"#-?\d|\b[xw]\d{1,2}\b", operands):
            votes["aarch64"] += 1
        elif re.search(r"\b(a[0-7]|s[0-9]|s1[01]|t[0-6]|sp|ra|zero|f[ast]\d+)\b", operands):
            votes["riscv64"] += 1
    best = max(votes, key=lambda k: votes[k])
    if votes[best] == 0 or best == "loongarch64":
        return "loongarch64"
    if best == "riscv64":
        return "riscv64"
    what = {"x86": "x86 assembly", "aarch64": "AArch64 assembly"}[best]
    raise SchedccError(f"{name} looks like {what}; schedcc reads LoongArch64 and RISC-V (RV64GC) assembly, "
                       "LLVM IR and its own IR",
                       notes=["make LoongArch or RISC-V assembly of your C file with clang: "
                              + " or ".join(CLANG.values()),
                              "or LLVM IR for any target: clang-16 -O2 -S -emit-llvm prog.c -o prog.ll"])


def parse_file(text: str, name: str = "<input>", lang: str | None = None) -> Program:
    """Like :func:`parse_source`, returning only the program."""
    return parse_source(text, name, lang).program

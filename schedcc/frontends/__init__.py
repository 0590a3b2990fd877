"""Front ends: each reads one language into the same IR (:mod:`schedcc.ir`).

=========  ==========================  ==============================================
language   extensions                  module
=========  ==========================  ==============================================
``ir``     ``.ir`` (and anything else)  :mod:`schedcc.frontends.ir_text`
``ll``     ``.ll``                      :mod:`schedcc.frontends.llvm_ir`
``asm``    ``.s``                       :mod:`schedcc.frontends.loongarch_asm`
=========  ==========================  ==============================================

:func:`parse_source` returns a :class:`~schedcc.frontends.source.Source`,
which can also write a scheduled program back in the input's own language;
:func:`parse_file` returns just the program.

Example::

    >>> parse_file("t0 = t1 + t2\\n", "x.ir").functions[0].blocks[0].instrs[0].opcode
    'add'
"""

from __future__ import annotations

from pathlib import PurePath

from schedcc.errors import SchedccError
from schedcc.ir import Program, print_program
from schedcc.frontends.source import Source

LANGS = ("ir", "ll", "asm")
EXTENSIONS = {".ir": "ir", ".ll": "ll", ".s": "asm"}


def detect_lang(name: str, lang: str | None = None) -> str:
    """The language of file *name*: *lang* if given, else from the extension (default ``ir``)."""
    if lang is not None:
        if lang not in LANGS:
            raise SchedccError(f"unknown language '{lang}'", notes=[f"choose one of: {', '.join(LANGS)}"])
        return lang
    return EXTENSIONS.get(PurePath(name).suffix.lower() if name else "", "ir")


def parse_source(text: str, name: str = "<input>", lang: str | None = None) -> Source:
    """Parse *text* (from file *name*) with the front end for *lang* or *name*'s extension."""
    lang = detect_lang(name, lang)
    if lang == "ll":
        from schedcc.frontends.llvm_ir import parse_llvm
        return parse_llvm(text, name)
    if lang == "asm":
        from schedcc.frontends.loongarch_asm import parse_asm
        return parse_asm(text, name)
    from schedcc.frontends.ir_text import parse
    program = parse(text, name)
    return Source(program, "ir", text, print_program)


def parse_file(text: str, name: str = "<input>", lang: str | None = None) -> Program:
    """Like :func:`parse_source`, returning only the program."""
    return parse_source(text, name, lang).program

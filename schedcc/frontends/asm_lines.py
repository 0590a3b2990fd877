"""What every assembly front end shares: source lines, scheduling regions, writing back.

An assembly file is read one line at a time (a Lark grammar per instruction
set, whose transformer is a :class:`LinesTransformer`): labels, then at most
one directive or instruction. :func:`build_program` cuts the instructions
into scheduling regions: a region starts at a label and ends after a control
transfer (which stays last), at a directive, at a line holding both a label
and an instruction, and around an instruction with effects beyond its
operands (``system``). Functions start at the labels ``.type``d as
functions (else the ``.globl`` ones, else every label not starting with
``.`` or a digit). :func:`write_asm` writes a schedule back by moving whole
instruction lines inside their regions; labels, directives, comments and
blank lines stay where they were.

Example::

    >>> from schedcc.frontends.loongarch_asm import parse_asm
    >>> src = parse_asm("f:\\n  addi.d $a0, $a0, 1\\n  beqz $a0, .L1\\n  addi.d $a0, $a0, 2\\n.L1:\\n  ret\\n")
    >>> [(b.label, len(b.instrs)) for b in src.program.functions[0].blocks]
    [('f', 2), ('f~1', 1), ('.L1', 1)]
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field
from typing import Callable, Protocol

from lark import Lark, Token, Transformer

from schedcc.errors import SchedccError
from schedcc.ir import Block, Function, Instr, Loc, Program, Reg
from schedcc.resources import grammar_path
from schedcc.frontends.source import block_moves, refill_lines


@dataclass
class Line:
    """One parsed source line."""

    line: int
    labels: list[Token] = field(default_factory=list)
    directive: Token | None = None
    mnemonic: Token | None = None
    operands: list = field(default_factory=list)




class LinesTransformer(Transformer):
    """Collects a grammar's ``label``, ``directive`` and ``instr`` items into :class:`Line`\\s;
    an instruction set's subclass adds its operand rules."""

    def label(self, c):
        return ("label", c[0])

    def directive(self, c):
        return ("directive", c[0])

    def instr(self, c):
        return ("instr", c[0], [x for x in c[1:] if x is not None])

    def start(self, c):
        lines: dict[int, Line] = {}
        for kind, tok, *rest in c:
            line = lines.setdefault(tok.line, Line(tok.line))
            if kind == "label":
                line.labels.append(tok)
            elif kind == "directive":
                line.directive = tok
            else:
                line.mnemonic, line.operands = tok, rest[0]
        return [lines[k] for k in sorted(lines)]


@functools.lru_cache(maxsize=None)
def lines_parser(grammar: str, transformer: type) -> Lark:
    """The LALR parser of an assembly grammar (``grammar/<grammar>``), its
    :class:`LinesTransformer` run inside the parser: no parse tree is built."""
    return Lark(grammar_path(grammar).read_text(), parser="lalr", lexer="contextual",
                maybe_placeholders=True, transformer=transformer(), cache=True)


class RegisterDecoder:
    """What every assembly decoder shares: locations, located errors, and registers
    by their ABI names. A subclass sets ``names`` (every spelling -> the ABI name),
    ``prefix`` (``$`` on LoongArch), ``operand`` (the grammar's kind of a register
    operand) and ``registers`` (the note listing them)."""

    names: dict[str, str] = {}
    prefix = ""
    operand = "reg"
    registers = ""

    def __init__(self, file: str):
        self.file = file

    def loc(self, tok: Token) -> Loc:
        return Loc(self.file, tok.line or 0, tok.column or 0)

    def error(self, tok: Token, message: str, notes: list[str] | None = None) -> SchedccError:
        return SchedccError(message, self.loc(tok), notes=notes or [], width=max(len(str(tok)), 1))

    def reg(self, op, mnemonic: Token) -> Reg:
        if op[0] != self.operand:
            raise self.error(op[1], f"'{mnemonic}' needs a register here, not '{op[1]}'")
        text = str(op[1])
        name = text[len(self.prefix):]
        if name not in self.names:
            close = difflib.get_close_matches(name, list(self.names), n=3)
            notes = [f"did you mean {', '.join(self.prefix + c for c in close)}?"] if close else []
            notes.append(self.registers)
            raise self.error(op[1], f"unknown register '{text}'", notes)
        return Reg(self.prefix + self.names[name])


class Decoder(Protocol):
    def loc(self, tok: Token) -> Loc: ...
    def error(self, tok: Token, message: str, notes: list[str] | None = None) -> SchedccError: ...
    def decode(self, line: Line) -> Instr: ...


def function_names(lines: list[Line]) -> Callable[[str], bool]:
    """Which labels start a function: those ``.type``d as ``@function``; else
    the ``.globl`` ones; else every label not starting with '.' or a digit."""
    typed, globl = set(), set()
    for line in lines:
        if line.directive is None:
            continue
        words = str(line.directive).replace(",", " ").split()
        if words[0] == ".type" and len(words) >= 3 and words[2] in ("@function", "%function"):
            typed.add(words[1])
        elif words[0] in (".globl", ".global"):
            globl.update(words[1:])
    if typed:
        return typed.__contains__
    if globl:
        return globl.__contains__
    return lambda name: not name.startswith(".") and not name[0].isdigit()


def build_program(lines: list[Line], file: str, decoder: Decoder, system: frozenset[str] = frozenset(),
                  ends_region: frozenset[str] = frozenset()) -> Program:
    """The program of *lines*: functions of scheduling regions (module docstring).
    *system*: opcodes that form a region of their own; *ends_region*: opcodes that end
    one besides the control transfers (a call). O(lines)."""
    is_function = function_names(lines)
    functions: list[Function] = []
    fname, floc = "(top)", None
    blocks: list[Block] = []
    label, label_loc, instrs = "(top)", None, []
    region = 0
    used: set[str] = set()

    def close() -> None:
        nonlocal instrs, region
        if instrs:
            name = label if region == 0 else f"{label}~{region}"
            while name in used:
                name += "'"
            used.add(name)
            blocks.append(Block(name, tuple(instrs), label_loc))
            region += 1
        instrs = []

    def close_function() -> None:
        nonlocal blocks
        close()
        if blocks:
            functions.append(Function(fname, (), tuple(blocks), floc))
        blocks = []

    defined: dict[str, Token] = {}
    for line in lines:
        if line.labels:
            close()
            for tok in line.labels:
                name = str(tok)[:-1]
                if name in defined and not name.isdigit():  # numeric labels (1:) may repeat
                    raise decoder.error(tok, f"duplicate label '{name}'",
                                        [f"first defined at {decoder.loc(defined[name])}"])
                defined[name] = tok
                if is_function(name):
                    close_function()
                    fname, floc = name, decoder.loc(tok)
                label, label_loc, region = name, decoder.loc(tok), 0
        if line.directive is not None:
            close()
        if line.mnemonic is not None:
            instr = decoder.decode(line)
            if instr.opcode in system:
                close()
            instrs.append(instr)
            if instr.is_terminator or line.labels or instr.opcode in system or instr.opcode in ends_region:
                close()  # a control transfer ends the region; so does a label sharing the line
    close_function()
    return Program(tuple(functions), file)


def write_asm(text: str, original: Program, scheduled: Program) -> str:
    """*text* with the instruction lines of every region in *scheduled*'s order."""
    lines = text.splitlines()
    out = refill_lines(lines, block_moves(original, scheduled))
    return "\n".join(out) + "\n"

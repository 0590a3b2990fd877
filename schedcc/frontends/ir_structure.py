"""From the lines of an IR file to functions and blocks.

The parser (:mod:`schedcc.frontends.ir_text`) turns every line into a
statement; :class:`StructureBuilder` assembles them into functions and blocks and
checks what a grammar cannot: labels that exist and are unique, functions
that are closed, operand shapes of ``load``/``store``/``br``/``jmp``/``ret``.
Its errors are located like the parser's.

Example::

    >>> from schedcc import parse
    >>> parse("br c, nowhere, entry\\n", "x.ir")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: x.ir:1:7: error: branch to undefined label 'nowhere'
    ...
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, NamedTuple

from lark import Token

from schedcc.errors import SchedccError
from schedcc.ir import Block, Const, Function, Instr, Label, Loc, Mem, Program, Reg
from schedcc.ir.nodes import new_instr, new_loc


NUMBER_MAX = 10**18  # the largest magnitude of a number in the IR (docs/ir.md)



_USAGE = {
    "br": "br takes a condition and two labels: br c, L1, L2",
    "jmp": "jmp takes one label: jmp L",
    "ret": "ret takes at most one value: ret or ret v",
    "load": "load takes one memory reference: d = load A[i] or d = load [p + 8]",
    "store": "store takes a memory reference and a value: store A[i], v",
}
_NO_MEMORY = ("br", "jmp", "ret", "call")

class NumberOutOfRange(ValueError):
    """A number that reads, but outside what schedcc accepts: infinite, or beyond NUMBER_MAX."""


def parse_number(text: str) -> int | float:
    """``42``, ``0x1f``, ``2.5``, ``1e9`` -> int or float; at most 1e18 in magnitude.

    >>> parse_number("0x1f"), parse_number("2.5e3")
    (31, 2500.0)
    >>> parse_number("1e400")
    Traceback (most recent call last):
    ...
    schedcc.frontends.ir_structure.NumberOutOfRange: the number 1e400 is out of range: numbers are finite and at most 1e18 in magnitude
    """
    if len(text) > 40:  # long digit strings: refuse before converting (int() of 10^6 digits is slow)
        raise NumberOutOfRange(f"the number {text[:20]}... ({len(text)} characters) is out of range: "
                               "numbers are finite and at most 1e18 in magnitude")
    if text[:2] in ("0x", "0X"):
        value: int | float = int(text, 16)
    elif any(c in text for c in ".eE"):
        value = float(text)
    else:
        value = int(text)
    if not abs(value) <= NUMBER_MAX:  # also catches inf and nan
        raise NumberOutOfRange(f"the number {text} is out of range: numbers are finite and at most 1e18 "
                               "in magnitude")
    return value


class MemRef(NamedTuple):
    mem: Mem
    tok: Token


class Statement(NamedTuple):
    kind: str  # "func", "end", "label", "instr", "ready" (an Instr from the fast path)
    tok: Token  # first token of the line, for locations
    data: Any


def token_loc(tok: Token, file: str) -> Loc:
    return new_loc(file, tok.line or 0, tok.column or 0)


# -- from lines to functions and blocks -------------------------------------------

_LABEL_POSITIONS = {"br": (1, 2), "jmp": (0,)}


@dataclass
class _OpenFunc:
    name: str
    params: tuple[Reg, ...]
    tok: Token | None
    implicit: bool


class StructureBuilder:
    def __init__(self, file: str):
        self.file = file
        self.functions: list[Function] = []
        self.blocks: list[Block] = []
        self.instrs: list[Instr] = []
        self.label: str | None = None
        self.label_tok: Token | None = None
        self.labels: dict[str, Token | None] = {}
        self.branch_refs: list[tuple[str, Token]] = []
        self.func: _OpenFunc | None = None

    def loc(self, tok: Token | None) -> Loc | None:
        return token_loc(tok, self.file) if tok is not None else None

    def error(self, tok: Token | None, message: str, notes: list[str] | None = None) -> SchedccError:
        width = len(str(tok)) if tok is not None else 1
        return SchedccError(message, self.loc(tok), notes=notes or [], width=width)

    def build(self, stmts: list[Statement]) -> Program:
        explicit = any(s.kind == "func" for s in stmts)
        if not explicit:
            self.func = _OpenFunc("main", (), None, implicit=True)
        for stmt in stmts:
            getattr(self, "_on_" + stmt.kind)(stmt)
        if self.func is not None:
            if not self.func.implicit:
                raise self.error(self.func.tok, f"function '{self.func.name}' is never closed",
                                 ["add a line with '}' at its end"])
            self._close_function()
        names: dict[str, Function] = {}
        for f in self.functions:
            if f.name in names:
                raise SchedccError(f"function '{f.name}' is defined twice", f.loc,
                                   notes=[f"first defined at {names[f.name].loc}"])
            names[f.name] = f
        return Program(tuple(self.functions), self.file)

    # statements --------------------------------------------------------------------
    def _on_func(self, stmt: Statement) -> None:
        if self.func is not None:
            raise self.error(stmt.tok, f"function '{self.func.name}' is not closed before this one starts",
                             ["add a line with '}' before 'func'"])
        params = tuple(Reg(str(p)) for p in stmt.data)
        self.func = _OpenFunc(str(stmt.tok), params, stmt.tok, implicit=False)

    def _on_end(self, stmt: Statement) -> None:
        if self.func is None or self.func.implicit:
            raise self.error(stmt.tok, "'}' without a function to close")
        self._close_function()

    def _on_label(self, stmt: Statement) -> None:
        self._need_function(stmt.tok)
        name = stmt.data
        if name in self.labels:
            first = self.labels[name]
            raise self.error(stmt.tok, f"duplicate label '{name}'",
                             [f"first defined at {self.loc(first)}"] if first is not None else [])
        self._close_block()
        self.label, self.label_tok = name, stmt.tok
        self.labels[name] = stmt.tok

    def _on_instr(self, stmt: Statement) -> None:
        self._need_function(stmt.tok)
        (first, opcode, dest, ops, syntax, opcode_tok), attrs = stmt.data
        if self.instrs and self.instrs[-1].is_terminator:
            raise self.error(first, f"instruction after '{self.instrs[-1].opcode}' needs a label",
                             ["a terminator ends its block; start a new block with 'name:'"])
        operands = self._operands(opcode, ops, first)
        file = self.file
        instr = new_instr(opcode, Reg(str(dest)) if dest is not None else None, tuple(operands), attrs,
                          new_loc(file, first.line or 0, first.column or 0), syntax,
                          None if opcode_tok is None else new_loc(file, opcode_tok.line or 0, opcode_tok.column or 0))
        self._check_shape(instr, first)
        self.instrs.append(instr)

    def _on_ready(self, stmt: Statement) -> None:
        """An instruction the fast path built (:mod:`.ir_fastpath`): well formed already."""
        self._need_function(stmt.tok)
        if self.instrs and self.instrs[-1].is_terminator:
            raise self.error(stmt.tok, f"instruction after '{self.instrs[-1].opcode}' needs a label",
                             ["a terminator ends its block; start a new block with 'name:'"])
        self.instrs.append(stmt.data)

    # helpers -------------------------------------------------------------------------
    def _need_function(self, tok: Token) -> None:
        if self.func is None:
            raise self.error(tok, "statement outside a function",
                             ["in a file with functions, every instruction belongs inside 'func name(...) { ... }'"])

    def _operands(self, opcode: str, ops: list, first: Token) -> list:
        label_positions = _LABEL_POSITIONS.get(opcode, ())
        out = []
        for pos, op in enumerate(ops):
            if isinstance(op, MemRef):
                out.append(op.mem)
            elif isinstance(op, Token):
                if pos in label_positions:
                    if op.type != "NAME":
                        raise self.error(op, f"'{op}' is not a label")
                    self.branch_refs.append((str(op), op))
                    out.append(Label(str(op)))
                else:
                    out.append(Reg(str(op)))
            else:
                out.append(op)
        return out

    def _check_shape(self, instr: Instr, tok: Token) -> None:
        op, ops = instr.opcode, instr.operands
        usage = _USAGE
        ok = True
        if op == "br":
            ok = len(ops) == 3 and instr.dest is None
        elif op == "jmp":
            ok = len(ops) == 1 and instr.dest is None
        elif op == "ret":
            ok = len(ops) <= 1 and instr.dest is None and all(not isinstance(o, Mem) for o in ops)
        elif op == "load":
            ok = len(ops) == 1 and isinstance(ops[0], Mem) and instr.dest is not None
        elif op == "store":
            ok = (len(ops) == 2 and isinstance(ops[0], Mem) and isinstance(ops[1], (Reg, Const))
                  and instr.dest is None)
        if not ok:
            raise self.error(tok, f"malformed '{op}'", [usage[op]])
        if len(ops) < 2 and op not in _NO_MEMORY:
            return  # at most one operand, on an opcode that may take memory
        mems = [o for o in ops if isinstance(o, Mem)]
        if len(mems) > 1:
            raise self.error(tok, f"'{op}' has {len(mems)} memory operands; at most one is allowed",
                             ["an instruction with a destination reads its memory operand, "
                              "one without writes it"])
        if mems and op in _NO_MEMORY:
            raise self.error(tok, f"'{op}' cannot take a memory operand ({mems[0]})")

    def _close_block(self) -> None:
        if self.label is None and not self.instrs:
            return
        label = self.label if self.label is not None else ("entry" if not self.blocks else f"bb{len(self.blocks)}")
        if self.label is None:
            if label in self.labels:
                raise self.error(self.label_tok, f"duplicate label '{label}'")
            self.labels[label] = None
        self.blocks.append(Block(label, tuple(self.instrs), self.loc(self.label_tok)))
        self.instrs, self.label, self.label_tok = [], None, None

    def _close_function(self) -> None:
        self._close_block()
        assert self.func is not None
        for name, tok in self.branch_refs:
            if name not in self.labels:

                close = difflib.get_close_matches(name, list(self.labels), n=3)
                notes = [f"did you mean {', '.join(repr(c) for c in close)}?"] if close else []
                notes.append(f"labels in '{self.func.name}': {', '.join(self.labels) or 'none'}")
                raise self.error(tok, f"branch to undefined label '{name}'", notes)
        blocks = tuple(self.blocks) or (Block("entry", ()),)
        self.functions.append(Function(self.func.name, self.func.params, blocks,
                                       self.loc(self.func.tok), self.func.implicit))
        self.blocks, self.labels, self.branch_refs, self.func = [], {}, [], None

"""Front end for the schedcc IR text format (grammar: ``grammar/ir.lark``).

Parsing runs in two steps. Lark's LALR parser turns each line into a
statement (function head, ``}``, label or instruction); the builder in
:mod:`schedcc.frontends.ir_structure` then
assembles functions and blocks and checks what a grammar cannot (labels that
exist, operand shapes). Both report errors as :class:`SchedccError` with the
file, line, column and a caret.

Example::

    >>> prog = parse("t0 = t1 + t2\\n")
    >>> str(prog.functions[0].blocks[0].instrs[0])
    't0 = t1 + t2'
"""

from __future__ import annotations

import functools

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from schedcc.errors import SchedccError, attach_source
from schedcc.ir import INFIX_OPCODES, Affine, Attr, Const, Loc, Mem, Program, Sym
from schedcc._perf import paused_gc
from schedcc.resources import grammar_path
from schedcc.frontends.ir_fastpath import fast_statement
from schedcc.frontends.ir_structure import (NUMBER_MAX, MemRef, NumberOutOfRange, Statement, StructureBuilder, parse_number,
                                            token_loc)

# Multipliers for numbers with units in attributes. Sizes become bytes, times
# become microseconds (the unit of Chrome traces).
UNIT_SCALE: dict[str, float] = {
    "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
    "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
    "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6,
}

_TERMINAL_WORDS = {
    "NAME": "a name",
    "SREG": "a register ($t0, %v)",
    "NUMBER": "a number",
    "ARRAY": "an array reference (A[i])",
    "_NL": "end of line",
    "$END": "end of file",
    "STRING": "a string",
    "UNIT": "a unit (KiB, MiB, GiB, KB, MB, GB, us, ms)",
}


class _Lines(Transformer):
    """Turns each parsed line into a :class:`Statement`. Operands stay tokens until
    :class:`StructureBuilder` knows whether a name is a register or a label."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file

    def _num(self, tok: Token) -> int | float:
        try:
            return parse_number(str(tok))
        except NumberOutOfRange as err:
            raise self._error(tok, str(err)) from None

    # -- leaves -------------------------------------------------------------
    def reg(self, c):
        return c[0]

    def const(self, c):
        return Const(self._num(c[0]), str(c[0]))

    def neg_const(self, c):
        return Const(-self._num(c[0]), "-" + str(c[0]))

    def binop(self, c):
        return str(c[0])

    # -- memory references ---------------------------------------------------
    def aconst(self, c):
        return ({}, self._num(c[0]), c[0])

    def areg(self, c):
        return ({str(c[0]): 1}, 0, c[0])

    def ascaled(self, c):
        return ({str(c[1]): int(self._num(c[0]))}, 0, c[0])

    def ascaled_r(self, c):
        return ({str(c[0]): int(self._num(c[1]))}, 0, c[0])

    def neg_term(self, c):
        terms, const, tok = c[0]
        return ({r: -k for r, k in terms.items()}, -const, tok)

    def affine(self, c):
        terms: dict[str, int] = {}
        const = 0
        sign = 1
        for item in c:
            if isinstance(item, Token) and item in ("+", "-"):
                sign = 1 if item == "+" else -1
                continue
            t, k, tok = item
            if isinstance(k, float):
                raise self._error(tok, "an index or offset must be an integer")
            for r, coef in t.items():
                terms[r] = terms.get(r, 0) + sign * coef
            const += sign * k
            sign = 1
        return (Affine.of(terms, const), c[0][2] if isinstance(c[0], tuple) else c[0])

    def array_ref(self, c):
        name, (aff, _) = c
        return MemRef(Mem(str(name), aff), name)

    def pointer_ref(self, c):
        aff, tok = c[0]
        if len(aff.terms) != 1 or aff.terms[0][1] != 1:
            raise self._error(tok, f"a pointer reference is [base] or [base + offset], not [{aff}]")
        return MemRef(Mem(None, aff), tok)

    # -- attributes ----------------------------------------------------------
    def _number_attr(self, num: Token, unit: Token | None, negative: bool) -> Attr:
        value = self._num(num)
        text = ("-" if negative else "") + str(num) + (str(unit) if unit else "")
        if unit is not None:
            value = value * UNIT_SCALE[str(unit)]
            if not abs(value) <= NUMBER_MAX:
                raise self._error(num, f"{text} is out of range: values are at most 1e18 (in bytes, FLOPs, ...)")
            if float(value).is_integer() and str(unit) not in ("ns", "us", "ms", "s"):
                value = int(value)
        return Attr(-value if negative else value, text)

    def attr_number(self, c):
        return self._number_attr(c[0], c[1] if len(c) > 1 else None, False)

    def attr_neg_number(self, c):
        return self._number_attr(c[0], c[1] if len(c) > 1 else None, True)

    def attr_name(self, c):
        word = str(c[0])
        if word in ("true", "false"):
            return Attr(word == "true")
        return Attr(word)

    def attr_string(self, c):
        return Attr(str(c[0])[1:-1], str(c[0]))

    def attr(self, c):
        return (c[0], c[1])

    def attrs(self, c):
        seen: dict[str, Token] = {}
        out = []
        for item in c:
            if item is None:
                continue
            key, value = item
            if str(key) in seen:
                raise self._error(key, f"attribute '{key}' given twice")
            seen[str(key)] = key
            out.append((str(key), value))
        return tuple(out)

    # -- instruction forms -----------------------------------------------------
    # Each returns (first token, opcode, dest token, operand list, syntax).
    def binary(self, c):
        dest, a, op, b = c
        return (dest, INFIX_OPCODES[op], dest, [a, b], "infix", None)

    def neg(self, c):
        return (c[0], "neg", c[0], [c[1]], "neg", None)

    def copy(self, c):
        return (c[0], "mov", c[0], [c[1]], "copy", None)

    def load_sugar(self, c):
        return (c[0], "load", c[0], [c[1]], "named", None)

    def named(self, c):
        dest, opcode, *ops = c
        return (dest, str(opcode), dest, ops, "named", opcode)

    def call(self, c):
        dest, callee, *args = c
        return (dest, "call", dest, [Sym(str(callee))] + [a for a in args if a is not None], "call", None)

    def store_sugar(self, c):
        ref, value = c
        return (ref.tok, "store", None, [ref, value], "named", None)

    def effect(self, c):
        opcode = c[0]
        ops = c[1] if len(c) > 1 and c[1] is not None else []
        return (opcode, str(opcode), None, ops, "named", opcode)

    def effect_call(self, c):
        callee, *args = c
        return (callee, "call", None, [Sym(str(callee))] + [a for a in args if a is not None], "call", None)

    def operands(self, c):
        return list(c)

    def instr(self, c):
        form = c[0]
        attrs = c[1] if len(c) > 1 and c[1] is not None else ()
        return Statement("instr", form[0], (form, attrs))

    # -- structure ---------------------------------------------------------------
    def func_head(self, c):
        name, *params = c
        return Statement("func", name, [p for p in params if p is not None])

    def func_end(self, c):
        return Statement("end", c[0], None)

    def label(self, c):
        return Statement("label", c[0], str(c[0]))

    def start(self, c):
        return list(c)

    def _error(self, tok: Token, message: str) -> SchedccError:
        return SchedccError(message, token_loc(tok, self.file), width=max(len(str(tok)), 1))


@functools.lru_cache(maxsize=1)
def _grammar_text() -> str:
    return grammar_path("ir.lark").read_text()


@functools.lru_cache(maxsize=1)
def _parser() -> tuple[Lark, _Lines]:
    # The transformer runs inside the LALR parser: no parse tree is built,
    # which keeps 100,000-line files fast.
    lines = _Lines("<input>")
    return Lark(_grammar_text(), parser="lalr", lexer="contextual",
                transformer=lines, maybe_placeholders=True, cache=True), lines


@functools.lru_cache(maxsize=1)
def _plain_parser() -> Lark:
    return Lark(_grammar_text(), parser="lalr", lexer="contextual", maybe_placeholders=True, cache=True)


def _describe_terminal(name: str, parser: Lark | None = None, words: dict[str, str] | None = None) -> str:
    words = _TERMINAL_WORDS if words is None else words
    if name in words:
        return words[name]
    try:
        term = (parser or _plain_parser()).get_terminal(name)
    except KeyError:
        return name
    pattern = term.pattern
    if pattern.type == "str":
        return f"'{pattern.value}'"
    return name.lower()


def describe_expected(names: set[str] | frozenset[str], parser: Lark | None = None,
                      words: dict[str, str] | None = None) -> str:
    """``expected one of: ...`` for the terminal *names* Lark reports, in words.

    Other front ends pass their own (tree-less) *parser* and *words* for their terminals."""
    words_found = sorted({_describe_terminal(n, parser, words) for n in names},
                         key=lambda w: (not w.startswith("'"), w))
    if not words_found:
        return ""
    if len(words_found) == 1:
        return f"expected {words_found[0]}"
    return "expected one of: " + ", ".join(words_found)


def syntax_error(err: UnexpectedInput, file: str, parser: Lark | None = None,
                 words: dict[str, str] | None = None) -> SchedccError:
    """A Lark parse error as a located :class:`SchedccError` (``file:line:col``, caret, expected tokens).

    Given another front end's *parser*, an unexpected token lists only the
    terminals that can really come next (Lark's ``accepts``), not every
    terminal of the parser state."""
    def expected_of(names) -> list[str]:
        text = describe_expected(set(names), parser, words)
        return [text] if text else []

    if isinstance(err, UnexpectedCharacters):
        char = err.char if err.char not in "\r\n" else "end of line"
        msg = f"unexpected character '{char}'"
        return SchedccError(msg, Loc(file, err.line, err.column), notes=expected_of(err.allowed or set()))
    if isinstance(err, UnexpectedToken):
        tok = err.token
        if tok.type == "_NL":
            what = "end of line"
        elif tok.type == "$END":
            what = "end of file"
        else:
            what = f"'{tok}'"
        line = tok.line if tok.line is not None else err.line
        col = tok.column if tok.column is not None else err.column
        expected = (getattr(err, "accepts", None) or err.expected) if parser is not None else err.expected
        return SchedccError(f"unexpected {what}", Loc(file, line, col), notes=expected_of(expected),
                            width=1 if tok.type in ("_NL", "$END") else len(str(tok)))
    if isinstance(err, UnexpectedEOF):
        return SchedccError("unexpected end of file", None, notes=expected_of(err.expected))
    return SchedccError(str(err))


_syntax_error = syntax_error


def _statements(text: str, filename: str, fast: bool) -> list[Statement]:
    """Statements of all lines: common lines through the fast path, the rest
    through Lark (given the text with the fast lines blanked, so that line
    numbers stay right), merged back in line order."""
    lark, transformer = _parser()
    transformer.file = filename
    if not fast:
        return lark.parse(text)
    quick: list[Statement] = []
    rest: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        stmt = fast_statement(line, number, filename) if line.strip() else None
        if stmt is None:
            rest.append(line)
        else:
            quick.append(stmt)
            rest.append("")
    slow = lark.parse("\n".join(rest)) if any(s.strip() for s in rest) else []
    if not slow:
        return quick
    return sorted(quick + slow, key=lambda s: s.tok.line)


def parse(text: str, filename: str = "<input>", *, fast: bool = True) -> Program:
    """Parse IR *text* into a :class:`Program`.

    Raises :class:`SchedccError` (with location and source line) on bad input.
    Runs in time linear in the length of the text. ``fast=False`` sends every
    line through the Lark grammar (the fast path must give the same result).
    """
    if not text.endswith("\n"):
        text += "\n"
    try:
        try:
            with paused_gc():
                stmts = _statements(text, filename, fast)
        except UnexpectedInput as err:
            raise _syntax_error(err, filename) from None
        except Exception as err:  # errors raised inside transformer callbacks
            inner = getattr(err, "orig_exc", None)
            if isinstance(inner, SchedccError):
                raise inner from None
            raise
        with paused_gc():
            return StructureBuilder(filename).build(stmts)
    except SchedccError as err:
        raise attach_source(err, text) from None

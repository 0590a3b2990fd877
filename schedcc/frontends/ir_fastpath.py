"""A fast path for the commonest IR lines, in front of the Lark parser.

Lark's LALR parser spends about 10 microseconds per token in CPython, which
alone would take several seconds on a 100,000-instruction block. Most lines
of such a block have one of three shapes, ``d = a OP b``, ``d = load A[i + c]``
and ``store A[i + c], v``; a single regular expression recognises those and
builds exactly the statement the grammar's transformer would build. Any line
it does not recognise in full (attributes, calls, labels, anything unusual,
anything wrong) goes to Lark, which stays the definition of the language and
the source of every error message. ``tests/test_parser_fastpath.py`` checks
with hypothesis that both paths agree.

Example::

    >>> fast_statement("t0 = t1 + t2", 1).data
    Instr(opcode='add', dest=Reg(name='t0'), operands=(Reg(name='t1'), Reg(name='t2')), attrs=(), loc=Loc(file='<input>', line=1, col=1), syntax='infix', opcode_loc=None)
    >>> fast_statement("t0 = t1 + t2 {width = 4}", 1) is None   # attributes: Lark's job
    True
"""

from __future__ import annotations

import re

from lark import Token

from schedcc.frontends.ir_structure import Statement, parse_number
from schedcc.ir import INFIX_OPCODES, Affine, Const, Mem, Reg
from schedcc.ir.nodes import new_instr, new_loc

_NAME = r"[A-Za-z_][A-Za-z0-9_.]*"
_REG = rf"(?:{_NAME}|[$%][A-Za-z0-9_][A-Za-z0-9_.]*)"
_NUM = r"(?:0[xX][0-9a-fA-F]+|(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)"
_VAL = rf"(?:{_REG}|{_NUM})"
_OP = r"(?:<<|>>|<=|>=|==|!=|[-+*/&|^<>])"
_INDEX = r"[A-Za-z_][A-Za-z0-9_]*(?:[ \t]*[-+][ \t]*\d+)?|\d+"
_TAIL = r"[ \t]*(?:(?:#|//).*)?$"

_BINARY = re.compile(rf"[ \t]*(?P<d>{_REG})[ \t]*=[ \t]*(?P<a>{_VAL})[ \t]*(?P<op>{_OP})[ \t]*(?P<b>{_VAL}){_TAIL}")
_LOAD = re.compile(rf"[ \t]*(?P<d>{_REG})[ \t]*=[ \t]*(?P<opc>load)[ \t]+(?P<arr>[A-Za-z_][A-Za-z0-9_]*)?"
                   rf"\[[ \t]*(?P<idx>{_INDEX})[ \t]*\]{_TAIL}")
_STORE = re.compile(rf"[ \t]*(?P<opc>store)[ \t]+(?P<arr>[A-Za-z_][A-Za-z0-9_]*)?\[[ \t]*(?P<idx>{_INDEX})[ \t]*\]"
                    rf"[ \t]*,[ \t]*(?P<v>{_VAL}){_TAIL}")
_INDEX_PARTS = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)?[ \t]*(?:([-+])[ \t]*(\d+))?|(\d+)")
_KEYWORDS = {"func", "call"}
_NUM_RE = re.compile(_NUM)
_NUM_START = frozenset("0123456789.")


def _new_token(kind: str, text: str, line: int, col: int) -> Token:
    """``Token(kind, text, line=line, column=col)`` without Lark's keyword handling
    (a third of the fast path's time on a 100,000-line block)."""
    tok = str.__new__(Token, text)
    tok.type, tok.value, tok.line, tok.column = kind, text, line, col
    tok.start_pos = tok.end_line = tok.end_column = tok.end_pos = None
    return tok


def _token(text: str, line: int, col: int) -> Token:
    return _new_token("SREG" if text[0] in "$%" else "NAME", text, line, col)


def _value(m: re.Match, group: str, line: int):
    """The operand itself: a constant, or the register (no token: an operand of these
    shapes is never a label, and nothing reports an error at it)."""
    text = m.group(group)
    if text[0] in _NUM_START:  # the pattern matched a number: a register starts otherwise
        return Const(parse_number(text), text)
    if text in _KEYWORDS:
        raise ValueError
    return Reg(text)


def _mem(m: re.Match, line: int):
    arr, idx = m.group("arr"), m.group("idx").strip()
    parts = _INDEX_PARTS.fullmatch(idx)
    if parts is None:
        raise ValueError
    reg, sign, num, lone = parts.groups()
    if len(num or lone or "") > 18:
        raise ValueError  # out of range, perhaps: Lark's path says so with the location
    if lone is not None:
        if arr is None:
            raise ValueError  # [16] is not a pointer reference; let Lark say so
        aff = Affine((), parse_number(lone))  # out of range: Lark reports it, located
    else:
        if reg in _KEYWORDS:
            raise ValueError
        const = parse_number(num) if num else 0
        aff = Affine(((reg, 1),), -const if sign == "-" else const)
    return Mem(arr, aff)


def fast_statement(text: str, line: int, file: str = "<input>"):
    """The statement for one line of IR, or None when Lark must parse it.

    Its kind is ``"ready"`` and its data the finished :class:`~schedcc.ir.Instr`:
    these three shapes are well formed by construction (the checks the structure
    builder makes of other lines hold), so the builder only places it."""
    try:
        m = _BINARY.match(text)
        if m is not None:
            dest = m.group("d")
            if dest in _KEYWORDS:
                return None
            col = m.start("d") + 1
            instr = new_instr(INFIX_OPCODES[m.group("op")], Reg(dest), (_value(m, "a", line), _value(m, "b", line)),
                              (), new_loc(file, line, col), "infix", None)
            return Statement("ready", _token(dest, line, col), instr)
        m = _LOAD.match(text)
        if m is not None:
            dest = m.group("d")
            if dest in _KEYWORDS:
                return None
            col = m.start("d") + 1
            instr = new_instr("load", Reg(dest), (_mem(m, line),), (), new_loc(file, line, col), "named",
                              new_loc(file, line, m.start("opc") + 1))
            return Statement("ready", _token(dest, line, col), instr)
        m = _STORE.match(text)
        if m is not None:
            col = m.start("opc") + 1
            loc = new_loc(file, line, col)
            instr = new_instr("store", None, (_mem(m, line), _value(m, "v", line)), (), loc, "named", loc)
            return Statement("ready", _new_token("NAME", "store", line, col), instr)
    except ValueError:
        return None
    return None

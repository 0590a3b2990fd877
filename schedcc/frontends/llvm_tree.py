"""LLVM IR parse tree -> plain values, for :mod:`schedcc.frontends.llvm_ir`.

:class:`ToValues` turns the Lark tree of ``grammar/llvm_ir.lark`` into types
(:class:`~schedcc.frontends.llvm_types.LType`), values (:class:`Val`) and
instructions (:class:`LInstr`) that still carry their tokens for locations.

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> src = parse_llvm("define i32 @f(i32 %a) {\\n  %b = add i32 %a, 1\\n  ret i32 %b\\n}\\n", "f.ll")
    >>> [i.opcode for i in src.program.functions[0].blocks[0].instrs]
    ['add', 'ret']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from lark import Token, Transformer

from schedcc.errors import SchedccError
from schedcc.frontends.llvm_types import _FLOAT_BITS, LType
from schedcc.ir import Loc


@dataclass(frozen=True)
class Val:
    kind: str                      # local, global, int, float, word, agg, gep, conv
    text: str
    tok: Token
    data: tuple = ()


@dataclass
class LInstr:
    op: str                        # LLVM opcode
    result: Token | None
    tok: Token                     # first token, for locations
    items: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)


def _keyword_rule(children: list) -> list:
    """Children of a ``!rule`` (which keeps its keyword for the location): the
    keyword, then everything but punctuation and flags."""
    return [children[0]] + [x for x in children[1:] if not isinstance(x, Token)]


MAX_COUNT = 2**64 - 1  # LLVM counts an array's elements in 64 bits
MAX_VECTOR = 2**32 - 1  # and a vector's in 32
MAX_INT_BITS = 2**23 - 1  # LLVM's widest integer type (IntegerType::MAX_INT_BITS)
MAX_ALIGN = 2**32  # LLVM's largest alignment (Value::MaxAlignmentExponent = 32)
MAX_DIGITS = 40        # an integer literal: 128 bits take 39 digits; a longer one is refused at the number


def _int(tok, text: str | None = None) -> int:
    """An integer literal of at most :data:`MAX_DIGITS` digits, else an error at the number
    (Python refuses to convert more than 4,300 digits; no value schedcc reads needs more
    than 128 bits). O(len(tok))."""
    text = str(tok) if text is None else text
    digits = len(text.lstrip("+-"))
    if digits > MAX_DIGITS:
        raise SchedccError(f"an integer of {digits:,} digits: schedcc reads integers of at most {MAX_DIGITS} "
                           "digits (128 bits)", Loc("", tok.line, tok.column), width=min(len(text), 160))
    return int(text)


def _error(tok, message: str) -> SchedccError:
    """An error at *tok* (its file is filled in by :func:`schedcc.frontends.llvm_ir.parse_llvm`)."""
    return SchedccError(message, Loc("", tok.line, tok.column), width=max(1, min(len(str(tok)), 160)))


def _count(tok, most: int = MAX_COUNT) -> int:
    """An array's or vector's element count; past 64 bits (a vector: 32) an error at the number
    (its file is filled in by :func:`schedcc.frontends.llvm_ir.parse_llvm`)."""
    n = _int(tok)
    if most == MAX_VECTOR and n > most:
        raise _error(tok, f"a vector of {n:,} elements: LLVM counts a vector's elements in 32 bits "
                          f"(at most {MAX_VECTOR:,})")
    if n > MAX_COUNT:
        raise SchedccError(f"an array of {n:,} elements: LLVM counts elements in 64 bits "
                           f"(at most {MAX_COUNT:,})", Loc("", tok.line, tok.column))
    return n


def _bytes(t: LType) -> int | None:
    """The size of an array of numbers and pointers, None for one holding a struct or a named
    type (their layout is known later). O(depth)."""
    if t.kind == "int":
        return max(1, (t.bits + 7) // 8)
    if t.kind == "float":
        return max(1, t.bits // 8)
    if t.kind == "ptr":
        return 8
    if t.kind in ("array", "vector") and t.elem is not None:
        inner = _bytes(t.elem)
        return None if inner is None else inner * t.count
    return None


def _check_constant(t: LType, v: Val) -> None:
    """A constant that its type cannot hold is an error at it, as LLVM's: an integer past the
    type's bits (signed or unsigned), a decimal float that overflows to infinity, a hex float
    of the wrong length (``0x`` and 16 digits for a double). O(len(text))."""
    if v.kind == "int" and t.kind == "int" and t.bits:
        n = v.data[0]
        if not -(1 << (t.bits - 1)) <= n < (1 << t.bits):
            raise _error(v.tok, f"the constant {v.text[:40]} does not fit in {t.name}")
    elif v.kind == "float" and t.kind == "float":
        text = v.text.lstrip("-")
        if text.startswith("0x"):
            digits = text[2:]
            if not (digits[:1] and digits[0] in "KLMHR") and len(digits) != 16:
                raise _error(v.tok, f"a hexadecimal float of {len(digits):,} digits: LLVM writes a "
                                        "double's or a float's bits as 0x and 16 digits")
        elif not math.isfinite(float(text)):
            raise _error(v.tok, f"the constant {v.text[:40]} overflows {t.name} (LLVM: floating point "
                                "constant invalid for type)")


class ToValues(Transformer):
    # types
    def simple_type(self, c):
        word = str(c[0])
        if word.startswith("i"):
            bits = _int(c[0], word[1:])
            if not 1 <= bits <= MAX_INT_BITS:
                raise _error(c[0], f"an integer type of {bits:,} bits: LLVM's are from 1 to {MAX_INT_BITS:,} bits")
            return LType("int", bits=bits, name=word)
        if word in _FLOAT_BITS:
            return LType("float", bits=_FLOAT_BITS[word], name=word)
        return LType(word, name=word)

    def named_type(self, c):
        return LType("named", name=str(c[0]))

    def array_type(self, c):
        t = LType("array", elem=c[1], count=_count(c[0]), name=f"[{c[0]} x {c[1]}]")
        size = _bytes(t)
        if size is not None and size > MAX_COUNT:
            raise _error(c[0], f"a type of {size:,} bytes: LLVM sizes types in 64 bits")
        return t

    def vector_type(self, c):
        return LType("vector", elem=c[1], count=_count(c[0], MAX_VECTOR), name=f"<{c[0]} x {c[1]}>")

    def struct_type(self, c):
        return LType("struct", fields=tuple(x for x in c if x is not None), name="{...}")

    def pointer_type(self, c):
        return LType("ptr", elem=c[0], name=f"{c[0]}*")

    def packed_type(self, c):
        return LType("struct", fields=tuple(x for x in c if x is not None), packed=True, name="<{...}>")

    # values
    def local(self, c):
        return Val("local", str(c[0]), c[0])

    def global_ref(self, c):
        return Val("global", str(c[0]), c[0])

    def int_const(self, c):
        return Val("int", str(c[0]), c[0], (_int(c[0]),))

    def float_const(self, c):
        return Val("float", str(c[0]), c[0])

    def word_const(self, c):
        return Val("word", str(c[0]), c[0])

    def aggregate_const(self, c):
        tok = c[0] if c and isinstance(c[0], Token) else Token("AGG", "{...}")
        return Val("agg", "{...}", tok)

    def gep_const(self, c):
        src_type, base, *indices = [x for x in c if not (isinstance(x, Token) and x == "inbounds")]
        return Val("gep", "getelementptr (...)", base[1].tok, (src_type, base, tuple(indices)))

    def conv_const(self, c):
        op, (t, v), to = c
        return Val("conv", f"{op} (...)", op, (str(op), t, v, to))

    def asm_const(self, c):
        return Val("asm", "asm " + str(c[-2]), c[-2])

    def typed_value(self, c):
        t, v = c[0], c[1]
        if isinstance(v, Val) and isinstance(t, LType):
            _check_constant(t, v)
        return (t, v)

    def align(self, c):
        n = _int(c[0])
        if not 1 <= n <= MAX_ALIGN or n & (n - 1):
            raise _error(c[0], f"align {n:,}: LLVM's alignments are powers of 2 from 1 to 2**32")
        return ("align", n)

    def metadata(self, c):
        return ("md", str(c[0]), str(c[1]))

    # instructions: (op, head tokens / values, rest)
    def _instr(self, op: str, tok: Token, items, **extra) -> LInstr:
        return LInstr(op, None, tok, list(items), extra)

    def binary(self, c):
        op, *rest = c
        flags = [x for x in rest if isinstance(x, Token) and x.type == "FLAG"]
        t, a, b, *more = [x for x in rest if x not in flags]
        return self._instr(str(op), op, [self.typed_value([t, a]), self.typed_value([t, b]), *more])

    def fneg(self, c):
        items = [x for x in c if not (isinstance(x, Token) and x.type == "FLAG")]
        return self._instr("fneg", items[0][1].tok, items)

    def icmp(self, c):
        pred, t, a, b, *more = c
        return self._instr("icmp", pred, [self.typed_value([t, a]), self.typed_value([t, b]), *more],
                           pred=str(pred))

    def fcmp(self, c):
        c = [x for x in c if not (isinstance(x, Token) and x.type == "FLAG")]
        pred, t, a, b, *more = c
        return self._instr("fcmp", pred, [(t, a), (t, b), *more], pred=str(pred))

    def alloca(self, c):
        kw, t, *more = _keyword_rule(c)
        return self._instr("alloca", kw, more, type=t)

    def load(self, c):
        volatile, t, ptr, *more = c
        return self._instr("load", ptr[1].tok, [ptr, *more], type=t, volatile=volatile is not None)

    def store(self, c):
        volatile, value, ptr, *more = c
        return self._instr("store", value[1].tok, [value, ptr, *more], volatile=volatile is not None)

    def gep(self, c):
        t, base, *more = c
        return self._instr("getelementptr", base[1].tok, [base, *more], type=t)

    def conv(self, c):
        op, value, to, *more = c
        return self._instr(str(op), op, [value, *more], to=to)

    def select(self, c):
        items = [x for x in c if not (isinstance(x, Token) and x.type == "FLAG")]
        return self._instr("select", items[0][1].tok, items)

    def aggregate_op(self, c):
        op, *items = c
        return self._instr(str(op), op, [x for x in items if not isinstance(x, Token)])

    def index(self, c):
        return ("index", _int(c[0]))

    def freeze(self, c):
        return self._instr("freeze", c[0][1].tok, c)

    def phi_in(self, c):
        return ("phi_in", c[0], c[1])

    def phi(self, c):
        kw, type_, *items = _keyword_rule(c)
        return self._instr("phi", kw, items, type=type_)

    def fn_params(self, c):
        return ("fn_params",)

    def arg(self, c):
        return (c[0], c[-1])

    def md_value_arg(self, c):
        # ``metadata i32 %x``: the wrapped value is what the call reads
        return (self.simple_type([c[1]]), c[2])

    def md_arg(self, c):
        return None  # a metadata node: nothing to read

    def param_attr(self, c):
        return str(c[0]) if c and isinstance(c[0], Token) and c[0].type == "WORD" else None

    def call(self, c):
        callee = next(x for x in c if isinstance(x, Val))
        pos = c.index(callee)
        ret_type = next(x for x in reversed(c[:pos]) if isinstance(x, LType))
        args = [x for x in c[pos + 1:] if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], LType)]
        return self._instr("call", callee.tok, args, callee=callee, type=ret_type)

    def br(self, c):
        kw, *items = _keyword_rule(c)
        return self._instr("br", kw, items)

    def ret(self, c):
        kw, t, *more = _keyword_rule(c)
        value = more[0] if more and isinstance(more[0], Val) else None
        return self._instr("ret", kw, [(t, value)] if value is not None else [], type=t)

    def case(self, c):
        return ("case", c[0], c[1])

    def switch(self, c):
        return self._instr("switch", c[0][1].tok, c)

    def unreachable(self, c):
        kw, *items = _keyword_rule(c)
        return self._instr("unreachable", kw, items)

    def assign(self, c):
        result, instr = c
        instr.result = result
        instr.tok = result
        return instr

    def effect(self, c):
        return c[0]

    def label(self, c):
        return ("label", c[0])

    # module level
    def type_def(self, c):
        return ("type", str(c[0]), c[1] if isinstance(c[1], LType) else LType("other", name=str(c[0])))

    def global_def(self, c):
        t = next(x for x in c if isinstance(x, LType))
        return ("global", str(c[0]), t)

    def param(self, c):
        name = c[-1] if isinstance(c[-1], Token) and c[-1].type == "LOCAL" else None
        return ("param", c[0], name, tuple(x for x in c[1:] if isinstance(x, str)))

    def varargs(self, c):
        return ("param", None, None)

    def define(self, c):
        name_tok = next(x for x in c if isinstance(x, Token) and x.type == "GLOBAL")
        params = [x for x in c if isinstance(x, tuple) and x[0] == "param"]
        body = [x for x in c if isinstance(x, LInstr) or (isinstance(x, tuple) and x[0] == "label")]
        return ("define", name_tok, params, body)

    def start(self, c):
        return list(c)

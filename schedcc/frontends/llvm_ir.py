"""Front end for an LLVM IR subset (LightIR; clang -S -emit-llvm), grammar ``grammar/llvm_ir.lark``.

Each LLVM instruction becomes one schedcc :class:`~schedcc.ir.Instr` with a
generic opcode the machine models know (``sdiv`` -> ``div``, ``icmp slt`` ->
``lt``, ``fcmp olt`` -> ``fcmp.olt``, ``sitofp`` -> ``itof``, ``zext`` ->
``mov``, ``getelementptr`` -> ``add``, ``br`` -> ``br``/``jmp``, ...; the table
is :data:`OPCODES` and docs/frontends.md). ``phi`` and ``alloca`` are not
scheduled: they cost nothing at run time, and when written back they stay at
the head of their block.

Memory: every pointer is traced back through ``getelementptr`` and casts to
its *object*. An ``alloca`` or a global is an object of its own, named like
the value (``%3``, ``@g``), and becomes the array of the memory reference;
distinct objects never alias. Offsets are bytes: constant indices fold into
the constant (``gep %struct.P, ptr %p, i64 1, i32 1`` is ``+ 24``), variable
indices become scaled terms (``@g[4*%10]``). A pointer with no known object
(a parameter, a loaded pointer) is a pointer reference ``[%p + 8]``, which may
alias anything. Each access carries its size in bytes as ``width``, so
overlapping byte ranges alias. A load or store also reads its pointer
register, so the address computation stays before it.

Writing back (:func:`write_llvm`) moves whole lines inside blocks and
renumbers the unnamed values (``%8``) of each block in their new textual
order, which LLVM requires.

Example::

    >>> src = parse_llvm("define i32 @f(ptr %p) {\\n  %a = load i32, ptr %p\\n  ret i32 %a\\n}\\n")
    >>> [str(i) for i in src.program.functions[0].blocks[0].instrs]
    ['%a = load [%p] {width = 4}', 'ret %a']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from ..errors import SchedccError, attach_source
from ..ir import Affine, Attr, Block, Const, Function, Instr, Label, Loc, Mem, Program, Reg, Sym
from ..resources import grammar_path
from .ir_text import syntax_error
from .source import Source, block_moves, one_instruction_per_line, refill_lines

# LLVM opcode -> schedcc opcode.
OPCODES: dict[str, str] = {
    "add": "add", "sub": "sub", "mul": "mul", "sdiv": "div", "udiv": "div", "srem": "rem", "urem": "rem",
    "shl": "shl", "lshr": "shr", "ashr": "shr", "and": "and", "or": "or", "xor": "xor",
    "fadd": "fadd", "fsub": "fsub", "fmul": "fmul", "fdiv": "fdiv", "frem": "frem", "fneg": "fneg",
    "zext": "mov", "sext": "mov", "trunc": "mov", "bitcast": "mov", "ptrtoint": "mov",
    "inttoptr": "mov", "addrspacecast": "mov", "freeze": "mov",
    "sitofp": "itof", "uitofp": "itof", "fptosi": "ftoi", "fptoui": "ftoi",
    "fpext": "fcvt.d.s", "fptrunc": "fcvt.s.d", "select": "select",
}
ICMP: dict[str, str] = {
    "eq": "eq", "ne": "ne", "slt": "lt", "ult": "lt", "sle": "le", "ule": "le",
    "sgt": "gt", "ugt": "gt", "sge": "ge", "uge": "ge",
}
UNKNOWN_WIDTH = 1 << 30  # an access of unknown size overlaps everything at its base

_WORDS = {
    "LOCAL": "a local value (%x)", "GLOBAL": "a global (@g)", "INT": "an integer", "FLOAT": "a number",
    "TYPE": "a type (i32, double, ptr)", "WORD": "a keyword", "LABEL_DEF": "a label (name:)",
    "BINOP": "an opcode (add, sub, ...)", "CONVOP": "a conversion (zext, sitofp, ...)",
    "IPRED": "an icmp predicate (eq, slt, ...)", "FPRED": "an fcmp predicate (olt, oeq, ...)",
    "FLAG": "a flag (nsw, nuw, fast, ...)", "MDKIND": "metadata (!tbaa)", "MDREF": "a metadata node (!5)",
    "STRING": "a string", "ATTR_REF": "an attribute group (#0)", "$END": "end of file",
    "GKIND": "'global' or 'constant'", "CONSTWORD": "a constant (null, undef, true, ...)",
}


# -- types -------------------------------------------------------------------------

@dataclass(frozen=True)
class LType:
    kind: str                      # int, float, ptr, void, label, named, array, vector, struct, other
    bits: int = 0                  # int width, float size in bits
    elem: "LType | None" = None
    count: int = 0
    fields: tuple["LType", ...] = ()
    packed: bool = False
    name: str = ""

    def __str__(self) -> str:
        return self.name or self.kind


_FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "x86_fp80": 128, "fp128": 128,
               "ppc_fp128": 128}


def _align(offset: int, align: int) -> int:
    return (offset + align - 1) // align * align


class Layout:
    """Sizes and alignments for a 64-bit target (LoongArch64, x86-64), natural alignment."""

    def __init__(self, named: dict[str, LType]):
        self.named = named

    def resolve(self, t: LType) -> LType:
        seen = 0
        while t.kind == "named":
            if t.name not in self.named or seen > 100:
                raise KeyError(t.name)
            t, seen = self.named[t.name], seen + 1
        return t

    def size_align(self, t: LType) -> tuple[int, int]:
        t = self.resolve(t)
        if t.kind == "int":
            size = max(1, (t.bits + 7) // 8)
            size = 1 << (size - 1).bit_length()
            return size, min(size, 16)
        if t.kind == "float":
            size = t.bits // 8
            return size, size
        if t.kind == "ptr":
            return 8, 8
        if t.kind in ("array", "vector"):
            assert t.elem is not None
            es, ea = self.size_align(t.elem)
            return es * t.count, ea
        if t.kind == "struct":
            off, align = 0, 1
            for f in t.fields:
                fs, fa = self.size_align(f)
                fa = 1 if t.packed else fa
                off = _align(off, fa) + fs
                align = max(align, fa)
            return _align(off, align), align
        raise KeyError(str(t))

    def size(self, t: LType) -> int:
        return self.size_align(t)[0]

    def field_offset(self, t: LType, index: int) -> int:
        t = self.resolve(t)
        off = 0
        for k, f in enumerate(t.fields):
            fs, fa = self.size_align(f)
            off = _align(off, 1 if t.packed else fa)
            if k == index:
                return off
            off += fs
        raise KeyError(index)


# -- parse tree -> plain values ------------------------------------------------------

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


class _ToValues(Transformer):
    # types
    def simple_type(self, c):
        word = str(c[0])
        if word.startswith("i"):
            return LType("int", bits=int(word[1:]), name=word)
        if word in _FLOAT_BITS:
            return LType("float", bits=_FLOAT_BITS[word], name=word)
        return LType(word, name=word)

    def named_type(self, c):
        return LType("named", name=str(c[0]))

    def array_type(self, c):
        return LType("array", elem=c[1], count=int(c[0]), name=f"[{c[0]} x {c[1]}]")

    def vector_type(self, c):
        return LType("vector", elem=c[1], count=int(c[0]), name=f"<{c[0]} x {c[1]}>")

    def struct_type(self, c):
        return LType("struct", fields=tuple(x for x in c if x is not None), name="{...}")

    def packed_type(self, c):
        return LType("struct", fields=tuple(x for x in c if x is not None), packed=True, name="<{...}>")

    # values
    def local(self, c):
        return Val("local", str(c[0]), c[0])

    def global_ref(self, c):
        return Val("global", str(c[0]), c[0])

    def int_const(self, c):
        return Val("int", str(c[0]), c[0], (int(c[0]),))

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
        return (c[0], c[1])

    def align(self, c):
        return ("align", int(c[0]))

    def metadata(self, c):
        return ("md", str(c[0]), str(c[1]))

    # instructions: (op, head tokens / values, rest)
    def _instr(self, op: str, tok: Token, items, **extra) -> LInstr:
        return LInstr(op, None, tok, list(items), extra)

    def binary(self, c):
        op, *rest = c
        flags = [x for x in rest if isinstance(x, Token) and x.type == "FLAG"]
        t, a, b, *more = [x for x in rest if x not in flags]
        return self._instr(str(op), op, [(t, a), (t, b), *more])

    def fneg(self, c):
        items = [x for x in c if not (isinstance(x, Token) and x.type == "FLAG")]
        return self._instr("fneg", items[0][1].tok, items)

    def icmp(self, c):
        pred, t, a, b, *more = c
        return self._instr("icmp", pred, [(t, a), (t, b), *more], pred=str(pred))

    def fcmp(self, c):
        c = [x for x in c if not (isinstance(x, Token) and x.type == "FLAG")]
        pred, t, a, b, *more = c
        return self._instr("fcmp", pred, [(t, a), (t, b), *more], pred=str(pred))

    def alloca(self, c):
        kw, t, *more = _keyword_rule(c)
        return self._instr("alloca", kw, more, type=t)

    def load(self, c):
        t, ptr, *more = c
        return self._instr("load", ptr[1].tok, [ptr, *more], type=t)

    def store(self, c):
        value, ptr, *more = c
        return self._instr("store", value[1].tok, [value, ptr, *more])

    def gep(self, c):
        t, base, *more = c
        return self._instr("getelementptr", base[1].tok, [base, *more], type=t)

    def conv(self, c):
        op, value, to, *more = c
        return self._instr(str(op), op, [value, *more], to=to)

    def select(self, c):
        items = [x for x in c if not (isinstance(x, Token) and x.type == "FLAG")]
        return self._instr("select", items[0][1].tok, items)

    def freeze(self, c):
        return self._instr("freeze", c[0][1].tok, c)

    def phi_in(self, c):
        return ("phi_in", c[0], c[1])

    def phi(self, c):
        kw, _type, *items = _keyword_rule(c)
        return self._instr("phi", kw, items)

    def fn_params(self, c):
        return ("fn_params",)

    def arg(self, c):
        return (c[0], c[-1])

    def param_attr(self, c):
        return None

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
        return ("param", c[0], name)

    def varargs(self, c):
        return ("param", None, None)

    def define(self, c):
        name_tok = next(x for x in c if isinstance(x, Token) and x.type == "GLOBAL")
        params = [x for x in c if isinstance(x, tuple) and x[0] == "param"]
        body = [x for x in c if isinstance(x, LInstr) or (isinstance(x, tuple) and x[0] == "label")]
        closing = c[-1] if False else None
        return ("define", name_tok, params, body, closing)

    def start(self, c):
        return list(c)


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(grammar_path("llvm_ir.lark").read_text(), parser="lalr", lexer="contextual",
                maybe_placeholders=True)


# -- pointers ----------------------------------------------------------------------------

@dataclass(frozen=True)
class PtrInfo:
    """Where a pointer points: ``obj`` (an alloca or global) or, when unknown,
    base register ``base``; plus scaled index registers and a byte offset."""

    obj: str | None
    base: str | None
    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    def mem(self) -> Mem:
        terms = dict(self.terms)
        if self.obj is None:
            assert self.base is not None
            terms[self.base] = terms.get(self.base, 0) + 1
        return Mem(self.obj, Affine.of(terms, self.const))


class _FunctionBuilder:
    def __init__(self, file: str, layout: Layout, globals_: set[str]):
        self.file = file
        self.layout = layout
        self.globals = globals_
        self.ptrs: dict[str, PtrInfo] = {}
        self.allocas: set[str] = set()

    def loc(self, tok: Token) -> Loc:
        return Loc(self.file, tok.line or 0, tok.column or 0)

    def error(self, tok: Token, message: str, notes: list[str] | None = None) -> SchedccError:
        return SchedccError(message, self.loc(tok), notes=notes or [], width=max(len(str(tok)), 1))

    # values -------------------------------------------------------------------------
    def operand(self, v: Val):
        if v.kind == "local":
            return Reg(v.text)
        if v.kind == "global":
            return Sym(v.text)
        if v.kind == "int":
            return Const(v.data[0], v.text)
        if v.kind == "float":
            return Const(0.0, v.text)
        if v.kind == "word":
            return Const(1 if v.text == "true" else 0, v.text)
        if v.kind in ("gep", "conv", "asm"):
            return Sym(v.text)
        return Const(0, v.text)

    def pointer(self, v: Val) -> PtrInfo:
        if v.kind == "local":
            return self.ptrs.get(v.text, PtrInfo(None, v.text))
        if v.kind == "global":
            return PtrInfo(v.text, None)
        if v.kind == "gep":
            info = self.gep_info(v.data[0], v.data[1], list(v.data[2]), v.tok)
            if info is not None:
                return info
        if v.kind == "conv" and v.data[0] in ("bitcast", "addrspacecast"):
            return self.pointer(v.data[2])
        raise self.error(v.tok, f"unsupported pointer operand '{v.text}'",
                         ["a pointer is a local value, a global or a constant getelementptr"])

    def gep_info(self, src: LType, base: tuple, indices: list, tok: Token) -> PtrInfo | None:
        info = self.pointer(base[1])
        terms = dict(info.terms)
        const = info.const
        t = src
        try:
            for k, (_, idx) in enumerate(indices):
                if k == 0:
                    scale = self.layout.size(t)
                else:
                    rt = self.layout.resolve(t)
                    if rt.kind == "struct":
                        if idx.kind != "int":
                            return None
                        const += self.layout.field_offset(rt, idx.data[0])
                        t = rt.fields[idx.data[0]]
                        continue
                    if rt.kind not in ("array", "vector") or rt.elem is None:
                        return None
                    t = rt.elem
                    scale = self.layout.size(t)
                if idx.kind == "int":
                    const += scale * idx.data[0]
                elif idx.kind == "local":
                    terms[idx.text] = terms.get(idx.text, 0) + scale
                else:
                    return None
        except (KeyError, IndexError):
            return None
        return PtrInfo(info.obj, info.base, tuple(sorted((r, c) for r, c in terms.items() if c)), const)

    def width(self, t: LType) -> int:
        try:
            return self.layout.size(t)
        except KeyError:
            return UNKNOWN_WIDTH

    def mem_operands(self, ptr: Val) -> tuple[Mem, list]:
        info = self.pointer(ptr)
        mem = info.mem()
        extra = []
        if ptr.kind == "local" and ptr.text not in mem.regs() and ptr.text not in self.allocas:
            extra.append(Reg(ptr.text))  # the address register: keeps its computation before the access
        return mem, extra

    # instructions -------------------------------------------------------------------
    def instr(self, li: LInstr) -> tuple[Instr | None, bool]:
        """(schedcc instruction, pinned at the block head)."""
        dest = Reg(str(li.result)) if li.result is not None else None
        loc = self.loc(li.tok)
        values = [x for x in li.items if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], LType)]
        op = li.op
        if op == "phi":
            return None, True
        if op == "alloca":
            count = values[0][1] if values else None
            if count is not None and count.kind != "int":
                raise self.error(count.tok, "an alloca of variable size is not supported",
                                 ["schedcc keeps allocas at the head of their block; their size must be a constant"])
            assert dest is not None
            self.ptrs[dest.name] = PtrInfo(dest.name, None)
            self.allocas.add(dest.name)
            return None, True
        if op == "load":
            mem, extra = self.mem_operands(values[0][1])
            return Instr("load", dest, (mem, *extra), (("width", Attr(self.width(li.extra["type"]))),), loc), False
        if op == "store":
            (vt, value), (_, ptr) = values[0], values[1]
            mem, extra = self.mem_operands(ptr)
            return Instr("store", None, (mem, self.operand(value), *extra),
                         (("width", Attr(self.width(vt))),), loc), False
        if op == "getelementptr":
            base, indices = values[0], values[1:]
            info = self.gep_info(li.extra["type"], base, indices, li.tok)
            assert dest is not None
            self.ptrs[dest.name] = info if info is not None else PtrInfo(None, dest.name)
            ops = [self.operand(base[1])] + [self.operand(v) for _, v in indices if v.kind == "local"]
            if info is not None and info.const:
                ops.append(Const(info.const))
            return Instr("add" if len(ops) > 1 else "mov", dest, tuple(ops), (), loc), False
        if op in ("bitcast", "addrspacecast") and dest is not None and values[0][1].kind in ("local", "global"):
            try:
                self.ptrs[dest.name] = self.pointer(values[0][1])
            except SchedccError:
                pass
        if op == "icmp":
            return Instr(ICMP[li.extra["pred"]], dest, tuple(self.operand(v) for _, v in values), (), loc), False
        if op == "fcmp":
            return Instr("fcmp." + li.extra["pred"], dest, tuple(self.operand(v) for _, v in values), (), loc), False
        if op == "call":
            callee = li.extra["callee"]
            args = tuple(self.operand(v) for _, v in values)
            target = Sym(callee.text) if callee.kind == "global" else self.operand(callee)
            if dest is None and callee.kind != "global":
                args = (target, *args)
                target = Sym("(indirect)")
            return Instr("call", dest, (target, *args), (), loc, syntax="call"), False
        if op == "br":
            labels = [Label(v.text.lstrip("%")) for t, v in values if t.kind == "label"]
            conds = [self.operand(v) for t, v in values if t.kind != "label"]
            if conds:
                return Instr("br", None, (conds[0], *labels), (), loc), False
            return Instr("jmp", None, tuple(labels), (), loc), False
        if op == "switch":
            cond = self.operand(values[0][1])
            labels = [Label(values[1][1].text.lstrip("%"))]
            labels += [Label(case[2][1].text.lstrip("%")) for case in li.items if case[0] == "case"]
            return Instr("br", None, (cond, *labels), (), loc), False
        if op == "ret":
            return Instr("ret", None, tuple(self.operand(v) for _, v in values), (), loc), False
        if op == "unreachable":
            return Instr("ret", None, (), (), loc), False
        if op in OPCODES:
            return Instr(OPCODES[op], dest, tuple(self.operand(v) for _, v in values), (), loc), False
        raise self.error(li.tok, f"unsupported instruction '{op}'")


def _blocks(file: str, name_tok: Token, body: list, fb: _FunctionBuilder):
    """Split a function body into blocks: (label, label token, [(Instr|None, pinned line)])."""
    blocks: list[tuple[str, Token | None, list[Instr], list[int]]] = []
    label, label_tok, instrs, pinned = "entry", None, [], []
    started = False
    for item in body:
        if isinstance(item, tuple):  # a label
            if started or instrs or pinned:
                blocks.append((label, label_tok, instrs, pinned))
            tok = item[1]
            label, label_tok, instrs, pinned = str(tok)[:-1].strip('"'), tok, [], []
            started = True
            continue
        started = True
        instr, pin = fb.instr(item)
        if pin:
            pinned.append(item.tok.line)
        else:
            assert instr is not None
            if instrs and instrs[-1].is_terminator:
                raise fb.error(item.tok, "instruction after the block's terminator",
                               ["a block ends with br, switch, ret or unreachable"])
            instrs.append(instr)
    if started:
        blocks.append((label, label_tok, instrs, pinned))
    return blocks


def parse_llvm(text: str, filename: str = "<input>") -> Source:
    """Parse LLVM IR *text*; the :class:`Source` writes schedules back as LLVM IR."""
    try:
        try:
            tree = _parser().parse(text)
        except UnexpectedInput as err:
            raise syntax_error(err, filename, _parser(), _WORDS) from None
        try:
            items = _ToValues().transform(tree)
        except VisitError as err:
            raise err.orig_exc from None
        named = {name: t for kind, name, t, *_ in (x for x in items if isinstance(x, tuple) and x[0] == "type")}
        layout = Layout(named)
        globals_ = {x[1] for x in items if isinstance(x, tuple) and x[0] == "global"}
        functions: list[Function] = []
        pinned: dict[tuple[str, str], list[int]] = {}
        for item in items:
            if not (isinstance(item, tuple) and item[0] == "define"):
                continue
            _, name_tok, params, body, _ = item
            fb = _FunctionBuilder(filename, layout, globals_)
            fname = str(name_tok)
            blocks = []
            for label, label_tok, instrs, pins in _blocks(filename, name_tok, body, fb):
                loc = Loc(filename, label_tok.line, label_tok.column) if label_tok is not None else None
                blocks.append(Block(label, tuple(instrs), loc))
                pinned[(fname, label)] = pins
            param_regs = tuple(Reg(str(p[2])) for p in params if p[2] is not None)
            functions.append(Function(fname, param_regs, tuple(blocks), Loc(filename, name_tok.line, name_tok.column)))
        program = Program(tuple(functions), filename)
        one_instruction_per_line(program)
    except SchedccError as err:
        raise attach_source(err, text) from None
    return Source(program, "ll", text, lambda scheduled: write_llvm(text, program, scheduled, pinned))


# -- writing back ----------------------------------------------------------------------

_UNNAMED = re.compile(r"(?<![\w.$\-])%(\d+)(?![\w.$\-])")
_DEFINES_UNNAMED = re.compile(r"\s*%(\d+)\s*=")


def write_llvm(text: str, original: Program, scheduled: Program,
               pinned: dict[tuple[str, str], list[int]]) -> str:
    """*text* with every block's instructions in *scheduled*'s order and the
    unnamed values renumbered to the new textual order."""
    lines = text.splitlines()
    moves = block_moves(original, scheduled, pinned)
    out = refill_lines(lines, moves)
    for start, end in _function_spans(lines):
        # Unnamed values are numbered per function, in textual order: in each
        # moved block the results take the block's numbers in their new order.
        rename: dict[int, int] = {}
        for slots, sources in moves:
            if not start < slots[0] <= end:
                continue
            numbers = [int(m.group(1)) for src in sources
                       if (m := _DEFINES_UNNAMED.match(lines[src - 1])) is not None]
            rename.update((old, new) for old, new in zip(numbers, sorted(numbers)) if old != new)
        if rename:
            for n in range(start, end):
                out[n] = _UNNAMED.sub(lambda m: "%" + str(rename.get(int(m.group(1)), int(m.group(1)))), out[n])
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def _function_spans(lines: list[str]) -> list[tuple[int, int]]:
    spans, start = [], None
    for n, line in enumerate(lines):
        if line.startswith("define"):
            start = n
        elif line.startswith("}") and start is not None:
            spans.append((start, n + 1))
            start = None
    return spans

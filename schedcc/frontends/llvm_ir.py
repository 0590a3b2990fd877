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
from dataclasses import dataclass

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, VisitError

from schedcc.frontends.llvm_check import check_function
from schedcc.frontends.llvm_info import check_phis, function_info
from schedcc.errors import SchedccError, attach_source, check_nesting
from schedcc.ir import Affine, Attr, Block, Const, Function, Instr, Label, Loc, Mem, Program, Reg, Sym
from schedcc.resources import grammar_path
from schedcc.frontends.ir_text import syntax_error
from schedcc.frontends.llvm_calls import UNKNOWN_WIDTH, escaped_allocas, intrinsic_instr, typed_values
from schedcc.frontends.llvm_tree import LInstr, ToValues, Val
from schedcc.frontends.llvm_types import Layout, LType
from schedcc.frontends.source import Source, block_moves, one_instruction_per_line, refill_lines

# LLVM opcode -> schedcc opcode.
OPCODES: dict[str, str] = {
    "add": "add", "sub": "sub", "mul": "mul", "sdiv": "div", "udiv": "div", "srem": "rem", "urem": "rem",
    "shl": "shl", "lshr": "shr", "ashr": "shr", "and": "and", "or": "or", "xor": "xor",
    "fadd": "fadd", "fsub": "fsub", "fmul": "fmul", "fdiv": "fdiv", "frem": "frem", "fneg": "fneg",
    "zext": "mov", "sext": "mov", "trunc": "mov", "bitcast": "mov", "ptrtoint": "mov",
    "inttoptr": "mov", "addrspacecast": "mov", "freeze": "mov",
    "sitofp": "itof", "uitofp": "itof", "fptosi": "ftoi", "fptoui": "ftoi",
    "fpext": "fcvt.d.s", "fptrunc": "fcvt.s.d", "select": "select",
    # aggregates live in registers: picking a field is a register move
    "extractvalue": "mov", "insertvalue": "mov",
    # vector element operations keep their names: a machine model must know them
    "extractelement": "extractelement", "insertelement": "insertelement", "shufflevector": "shufflevector",
}
IFC_SCRATCH = "%ifc.scratch"   # the if-converter's scratch slot (schedcc.swp.llvm_ifconv)


def is_scratch(name: str) -> bool:
    """The if-converter's scratch slot, or (typed pointers) a cast of it, ``%ifc.scratch.*``."""
    return name == IFC_SCRATCH or name.startswith(IFC_SCRATCH + ".")
ICMP: dict[str, str] = {
    "eq": "eq", "ne": "ne", "slt": "lt", "ult": "lt", "sle": "le", "ule": "le",
    "sgt": "gt", "ugt": "gt", "sge": "ge", "uge": "ge",
}


_WORDS = {
    "LOCAL": "a local value (%x)", "GLOBAL": "a global (@g)", "INT": "an integer", "FLOAT": "a number",
    "TYPE": "a type (i32, double, ptr)", "WORD": "a keyword", "LABEL_DEF": "a label (name:)",
    "BINOP": "an opcode (add, sub, ...)", "CONVOP": "a conversion (zext, sitofp, ...)",
    "IPRED": "an icmp predicate (eq, slt, ...)", "FPRED": "an fcmp predicate (olt, oeq, ...)",
    "FLAG": "a flag (nsw, nuw, fast, ...)", "MDKIND": "metadata (!tbaa)", "MDREF": "a metadata node (!5)",
    "STRING": "a string", "ATTR_REF": "an attribute group (#0)", "$END": "end of file",
    "GKIND": "'global' or 'constant'", "CONSTWORD": "a constant (null, undef, true, ...)",
    "AGGOP": "an aggregate or vector operation (extractvalue, ...)", "TAIL": "'tail'",
    "VOLATILE": "'volatile'", "CSTRING": "a string constant (c\"...\")", "ATTR_GROUP": "an attribute group",
    "MD_BODY": "a metadata node (!{...})",
}


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    # The transformer runs inside the LALR parser: no parse tree is built.
    return Lark(grammar_path("llvm_ir.lark").read_text(), parser="lalr", lexer="contextual",
                maybe_placeholders=True, transformer=ToValues(), cache=True)


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
    def __init__(self, file: str, layout: Layout, private: set[str] = frozenset()):  # type: ignore[assignment]
        self.file = file
        self.layout = layout
        self.ptrs: dict[str, PtrInfo] = {}
        self.allocas: set[str] = set()
        self.private = private  # allocas no pointer register can reach

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

    def mem_operands(self, ptr: Val, width: int, volatile: bool = False) -> tuple[Mem, list, tuple]:
        """The memory reference, extra operands and attributes of a load or store through *ptr*."""
        info = self.pointer(ptr)
        mem = info.mem()
        if volatile:
            # A volatile access is a pointer reference of its own: it may alias
            # every other access, so stores around it keep their order.
            mem, width = Mem(None, Affine.of({"volatile": 1})), UNKNOWN_WIDTH
        extra = []
        if ptr.kind == "local" and ptr.text not in mem.regs() and ptr.text not in self.allocas:
            extra.append(Reg(ptr.text))  # the address register: keeps its computation before the access
        attrs: tuple = (("width", Attr(width)),)
        if mem.array in self.private:
            attrs += (("private", Attr(True)),)
        return mem, extra, attrs

    # instructions -------------------------------------------------------------------
    def instr(self, li: LInstr) -> tuple[Instr | None, bool]:
        """(schedcc instruction, pinned at the block head)."""
        dest = Reg(str(li.result)) if li.result is not None else None
        loc = self.loc(li.tok)
        values = typed_values(li)
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
            mem, extra, attrs = self.mem_operands(values[0][1], self.width(li.extra["type"]), li.extra["volatile"])
            return Instr("load", dest, (mem, *extra), attrs, loc), False
        if op == "store":
            (vt, value), (_, ptr) = values[0], values[1]
            mem, extra, attrs = self.mem_operands(ptr, self.width(vt), li.extra["volatile"])
            return Instr("store", None, (mem, self.operand(value), *extra), attrs, loc), False
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
        if op == "select" and dest is not None and len(values) == 3 and is_scratch(values[2][1].text) \
                and values[1][1].kind in ("local", "global"):
            # An access guarded by if-conversion (schedcc.swp.llvm_ifconv): it touches the
            # selected object, or a scratch slot only such accesses use, whose values
            # nothing reads: its dependences are the guarded pointer's.
            try:
                self.ptrs[dest.name] = self.pointer(values[1][1])
            except SchedccError:
                pass
        if op == "icmp":
            return Instr(ICMP[li.extra["pred"]], dest, tuple(self.operand(v) for _, v in values), (), loc), False
        if op == "fcmp":
            return Instr("fcmp." + li.extra["pred"], dest, tuple(self.operand(v) for _, v in values), (), loc), False
        if op == "call":
            callee = li.extra["callee"]
            known = intrinsic_instr(self, li, dest, values, loc) if callee.kind == "global" else None
            if known is not None:
                return known, False
            args = tuple(self.operand(v) for _, v in values)
            target = Sym(callee.text) if callee.kind == "global" else self.operand(callee)
            if dest is None and callee.kind != "global":
                args = (target, *args)
                target = Sym("(indirect)")
            return Instr("call", dest, (target, *args), (), loc, syntax="call"), False
        if op == "br":
            labels = [Label(v.text.lstrip("%")) for t, v in values if t.kind == "label"]
            conds = [self.operand(v) for t, v in values if t.kind != "label"]
            if (len(conds), len(labels)) not in ((0, 1), (1, 2)):
                raise self.error(li.tok, "malformed 'br'",
                                 ["br label %L, or br i1 %c, label %then, label %else"])
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


def _blocks(body: list, fb: _FunctionBuilder):
    """Split a function body into blocks: (label, label token, instructions, lines of phi/alloca)."""
    blocks: list[tuple[str, Token | None, list[Instr], list[int]]] = []
    label, label_tok, instrs, pinned = "entry", None, [], []
    started = False
    seen: dict[str, Token] = {}
    for item in body:
        if isinstance(item, tuple):  # a label
            if started or instrs or pinned:
                blocks.append((label, label_tok, instrs, pinned))
            tok = item[1]
            label, label_tok, instrs, pinned = str(tok)[:-1].strip('"'), tok, [], []
            if label in seen:
                raise fb.error(tok, f"duplicate label '{label}'", [f"first defined at {fb.loc(seen[label])}"])
            seen[label] = tok
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
        check_nesting(text, filename, "[]{}()<>", '"', (";",))  # types nest; their layout recurses
        try:
            items = _parser().parse(text)
        except UnexpectedInput as err:
            raise syntax_error(err, filename, _parser(), _WORDS) from None
        except VisitError as err:
            raise err.orig_exc from None
        named = {name: t for kind, name, t, *_ in (x for x in items if isinstance(x, tuple) and x[0] == "type")}
        layout = Layout(named)
        functions: list[Function] = []
        pinned: dict[tuple[str, str], list[int]] = {}
        infos = {}
        spans = dict(_function_spans(text.splitlines()))
        for item in items:
            if not (isinstance(item, tuple) and item[0] == "define"):
                continue
            _, name_tok, params, body = item
            allocas = {str(li.result) for li in body if isinstance(li, LInstr) and li.op == "alloca"}
            fb = _FunctionBuilder(filename, layout, allocas - escaped_allocas(body))
            for param in params:
                # A noalias pointer parameter (C's restrict) is an object of its own: what is
                # reached through it is not reached through another object (LLVM's LangRef).
                if param[2] is not None and "noalias" in param[3] and param[1] is not None \
                        and param[1].kind == "ptr":
                    fb.ptrs[str(param[2])] = PtrInfo(str(param[2]), None)
            fname = str(name_tok)
            blocks = []
            for label, label_tok, instrs, pins in _blocks(body, fb):
                loc = Loc(filename, label_tok.line, label_tok.column) if label_tok is not None else None
                blocks.append(Block(label, tuple(instrs), loc))
                pinned[(fname, label)] = pins
            param_regs = tuple(Reg(str(p[2])) for p in params if p[2] is not None)
            functions.append(Function(fname, param_regs, tuple(blocks), Loc(filename, name_tok.line, name_tok.column)))
            defined = [(str(li.result), fb.loc(li.result)) for li in body
                       if isinstance(li, LInstr) and li.result is not None]
            check_function(functions[-1], defined)
            info = function_info(body, params, name_tok.line, spans.get(name_tok.line - 1, 0))
            check_phis(body, info, {v for v, _ in defined} | set(info.params), filename, fname)
            infos[fname] = info
        program = Program(tuple(functions), filename)
        one_instruction_per_line(program)
    except SchedccError as err:
        if err.loc is not None and not err.loc.file:  # raised while the tree was built (llvm_tree)
            err.loc = Loc(filename, err.loc.line, err.loc.col)
        raise attach_source(err, text) from None
    return Source(program, "ll", text, lambda scheduled: write_llvm(text, program, scheduled, pinned),
                  {"llvm": infos})


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

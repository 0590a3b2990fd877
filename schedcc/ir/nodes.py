"""The schedcc IR: a small three-address code in plain, frozen data classes.

``Program > Function > Block > Instr``. Every instruction knows where it came
from (:class:`Loc`) so that later passes can report errors in the user's terms.
:func:`print_program` writes text that :func:`schedcc.parse` reads back to an
equal program (print -> parse round-trips).

Example::

    >>> from schedcc import parse
    >>> prog = parse("t0 = t1 + t2\\nstore A[i+1], t0\\n")
    >>> instr = prog.functions[0].blocks[0].instrs[0]
    >>> instr.opcode, instr.defs(), instr.uses()
    ('add', ('t0',), ('t1', 't2'))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Union

# Infix operators and the opcode each one stands for. The printer writes an
# instruction back in infix form when it was written that way.
INFIX_OPCODES: dict[str, str] = {
    "+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem",
    "&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr",
    "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne",
}
OPCODE_INFIX: dict[str, str] = {op: sym for sym, op in INFIX_OPCODES.items()}

# Opcodes that end a block: the IR's own, and the control transfers of the
# assembly front ends (schedcc.frontends.loongarch_asm, riscv_asm), where a call
# (``bl``, ``jirl $ra, ...``; ``jal``, ``jalr``) also ends a scheduling region.
TERMINATORS = frozenset({
    "br", "jmp", "ret",
    "b", "bl", "jr", "jirl", "beq", "bne", "blt", "bge", "bltu", "bgeu",
    "beqz", "bnez", "bceqz", "bcnez",
    # RISC-V: jumps and the assembler's branch pseudo-instructions
    "j", "jal", "jalr", "tail", "bgt", "ble", "bgtu", "bleu", "blez", "bgez", "bltz", "bgtz",
})


# Opcodes that do nothing a scheduler must order: LLVM's debug-info and
# optimisation-hint intrinsics (``llvm.dbg.value``, ``llvm.assume``). They read
# their operands and have no other effect (see :func:`has_no_effect`).
NO_EFFECT_PREFIXES = ("llvm.dbg.", "llvm.assume", "llvm.experimental.noalias.scope.decl", "llvm.donothing")


def has_no_effect(opcode: str) -> bool:
    """True for an opcode with no effect but reading its operands (a debug or hint
    intrinsic of LLVM IR, ``nop``): it writes no memory and orders nothing.

    >>> has_no_effect("llvm.dbg.value"), has_no_effect("llvm.memset.p0.i64")
    (True, False)
    """
    return opcode == "nop" or opcode.startswith(NO_EFFECT_PREFIXES)


@dataclass(frozen=True)
class Loc:
    """A source position: 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Reg:
    """A register (virtual or physical), named as written: ``t0``, ``$t0``, ``%v``."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Const:
    """An integer or floating-point constant."""

    value: int | float
    text: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.text if self.text is not None else repr(self.value)


@dataclass(frozen=True)
class Affine:
    """``sum(coef * reg) + const``: the index of an array access or a pointer offset.

    Terms are kept sorted by register name, so equal expressions compare equal.
    """

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(terms: dict[str, int], const: int = 0) -> "Affine":
        return Affine(tuple(sorted((r, c) for r, c in terms.items() if c != 0)), const)

    def regs(self) -> tuple[str, ...]:
        return tuple(r for r, _ in self.terms)

    def __str__(self) -> str:
        parts: list[str] = []
        for reg, coef in self.terms:
            text = reg if abs(coef) == 1 else f"{abs(coef)}*{reg}"
            if not parts:
                parts.append(text if coef > 0 else f"-{text}")
            else:
                parts.append(f"+ {text}" if coef > 0 else f"- {text}")
        if self.const or not parts:
            if not parts:
                parts.append(str(self.const))
            else:
                parts.append(f"+ {self.const}" if self.const > 0 else f"- {-self.const}")
        return " ".join(parts)


@dataclass(frozen=True)
class Mem:
    """A memory reference: ``A[2*i + 1]`` (array form) or ``[q + 16]`` (pointer form).

    In pointer form ``array`` is ``None`` and ``index`` holds the base register
    with coefficient 1 plus the byte offset.
    """

    array: str | None
    index: Affine

    @property
    def is_pointer(self) -> bool:
        return self.array is None

    def regs(self) -> tuple[str, ...]:
        return self.index.regs()

    def __str__(self) -> str:
        text = self.__dict__.get("_text")  # the DAG's reasons and the JSON both print it
        if text is None:
            text = self.__dict__["_text"] = f"{self.array or ''}[{self.index}]"
        return text


@dataclass(frozen=True)
class Label:
    """A branch target."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Sym:
    """A function name, the callee of ``call``."""

    name: str

    def __str__(self) -> str:
        return self.name


Operand = Union[Reg, Const, Mem, Label, Sym]
AttrScalar = Union[int, float, str, bool]


@dataclass(frozen=True)
class Attr:
    """One attribute value; ``text`` remembers how it was written (``64MiB``)."""

    value: AttrScalar
    text: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        if isinstance(self.value, bool):
            return "true" if self.value else "false"
        if isinstance(self.value, str):
            return self.value if self.value.isidentifier() else f'"{self.value}"'
        return repr(self.value)


def rename_operand(op: "Operand", names: "dict[str, str]") -> "Operand":
    """*op* with its registers renamed by *names*: a register, or the registers of an address. O(terms)."""
    if isinstance(op, Reg):
        return Reg(names.get(op.name, op.name))
    if isinstance(op, Mem):
        return Mem(op.array, Affine.of({names.get(t, t): c for t, c in op.index.terms}, op.index.const))
    return op


@dataclass(frozen=True)
class Instr:
    """One three-address instruction.

    ``syntax`` records the surface form it was written in (``infix``, ``neg``,
    ``copy``, ``named``, ``call``) so that printing gives back what a person
    would write. It does not take part in equality.
    """

    opcode: str
    dest: Reg | None = None
    operands: tuple[Operand, ...] = ()
    attrs: tuple[tuple[str, Attr], ...] = ()
    loc: Loc | None = field(default=None, compare=False)
    syntax: str = field(default="named", compare=False)
    opcode_loc: Loc | None = field(default=None, compare=False)  # where the opcode is written

    def renamed(self, names: "dict[str, str]") -> "Instr":
        """This instruction with its registers renamed by *names* (a register not in it keeps its name),
        in the destination, the operands and their addresses; everything else is kept. O(operands).

        >>> i = Instr("add", Reg("a"), (Reg("b"), Mem("A", Affine.of({"b": 1}, 8))))
        >>> format_instr(i.renamed({"a": "x", "b": "y"}))
        'x = add y, A[y + 8]'
        """
        dest = Reg(names.get(self.dest.name, self.dest.name)) if self.dest is not None else None
        return replace(self, dest=dest, operands=tuple(rename_operand(o, names) for o in self.operands))

    # -- dataflow ---------------------------------------------------------
    def defs(self) -> tuple[str, ...]:
        """Registers written."""
        return (self.dest.name,) if self.dest is not None else ()

    def uses(self) -> tuple[str, ...]:
        """Registers read, in operand order, duplicates removed."""
        cached = self.__dict__.get("_uses")  # every pass asks; the instruction never changes
        if cached is not None:
            return cached
        seen: dict[str, None] = {}
        for op in self.operands:
            if isinstance(op, Reg):
                seen[op.name] = None
            elif isinstance(op, Mem):
                for r in op.regs():
                    seen[r] = None
        cached = self.__dict__["_uses"] = tuple(seen)  # not a field: equality and hash ignore it
        return cached

    def _mem_operand(self) -> Mem | None:
        for op in self.operands:
            if isinstance(op, Mem):
                return op
        return None

    @property
    def mem_read(self) -> Mem | None:
        """The memory this instruction reads: its memory operand, if it writes a register.

        ``a = load A[i]``, ``ld.d $t0, [$sp + 8]`` (in IR form) and
        ``x_ub = copy_in xGm[i]`` all read memory this way."""
        return self._mem_operand() if self.dest is not None else None

    @property
    def mem_write(self) -> Mem | None:
        """The memory this instruction writes: its memory operand, if it writes no register
        (``store A[i], v``, ``copy_out yGm[i], y_ub``)."""
        return self._mem_operand() if self.dest is None else None

    @property
    def mem_copy_read(self) -> Mem | None:
        """The second memory operand of an instruction that writes memory: what it
        copies from (``llvm.memcpy [dst], [src]``: writes ``dst``, reads ``src``)."""
        if self.dest is not None:
            return None
        mems = [op for op in self.operands if isinstance(op, Mem)]
        return mems[1] if len(mems) > 1 else None

    @property
    def is_terminator(self) -> bool:
        return self.opcode in TERMINATORS

    @property
    def is_call(self) -> bool:
        return self.opcode == "call"

    def attr(self, name: str, default: AttrScalar | None = None) -> AttrScalar | None:
        for key, value in self.attrs:
            if key == name:
                return value.value
        return default

    @property
    def attr_dict(self) -> dict[str, AttrScalar]:
        return {k: v.value for k, v in self.attrs}

    def with_operands(self, operands: tuple[Operand, ...], dest: Reg | None = None) -> "Instr":
        return replace(self, operands=operands, dest=dest if dest is not None else self.dest)

    def __str__(self) -> str:
        return format_instr(self)


@dataclass(frozen=True)
class Block:
    """A basic block: a label and straight-line instructions, the terminator (if any) last."""

    label: str
    instrs: tuple[Instr, ...]
    loc: Loc | None = field(default=None, compare=False)

    @property
    def terminator(self) -> Instr | None:
        if self.instrs and self.instrs[-1].is_terminator:
            return self.instrs[-1]
        return None

    def successors(self) -> tuple[str, ...]:
        term = self.terminator
        if term is None:
            return ()
        return tuple(op.name for op in term.operands if isinstance(op, Label))

    def __len__(self) -> int:
        return len(self.instrs)


@dataclass(frozen=True)
class Function:
    """A function: parameters and blocks; the first block is the entry.

    ``implicit`` marks the function a file of bare instructions becomes
    (``main`` with block ``entry``); it prints without the ``func`` wrapper.
    """

    name: str
    params: tuple[Reg, ...]
    blocks: tuple[Block, ...]
    loc: Loc | None = field(default=None, compare=False)
    implicit: bool = field(default=False, compare=False)

    def block(self, label: str) -> Block:
        for b in self.blocks:
            if b.label == label:
                return b
        raise KeyError(label)


@dataclass(frozen=True)
class Program:
    """A parsed file: its functions and the name it was read from."""

    functions: tuple[Function, ...]
    source: str = field(default="<input>", compare=False)

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def blocks(self) -> Iterator[tuple[Function, Block]]:
        for f in self.functions:
            for b in f.blocks:
                yield f, b

    def __str__(self) -> str:
        return print_program(self)


# -- building many quickly -------------------------------------------------------
# A frozen dataclass's __init__ sets each field through object.__setattr__; front
# ends build a hundred thousand instructions and locations, so they fill the
# instance dict directly: the same object (equality, hash, repr), a third of the cost.
_new = object.__new__
assert tuple(f for f in Instr.__dataclass_fields__) == (
    "opcode", "dest", "operands", "attrs", "loc", "syntax", "opcode_loc"), "update new_instr"
assert tuple(Loc.__dataclass_fields__) == ("file", "line", "col"), "update new_loc"


def new_instr(opcode: str, dest: Reg | None, operands: tuple, attrs: tuple, loc: Loc | None,
              syntax: str = "named", opcode_loc: Loc | None = None) -> Instr:
    """``Instr(opcode, dest, operands, attrs, loc, syntax, opcode_loc)``, built faster."""
    obj = _new(Instr)
    d = obj.__dict__
    d["opcode"], d["dest"], d["operands"], d["attrs"] = opcode, dest, operands, attrs
    d["loc"], d["syntax"], d["opcode_loc"] = loc, syntax, opcode_loc
    return obj


def new_loc(file: str, line: int, col: int) -> Loc:
    """``Loc(file, line, col)``, built faster."""
    obj = _new(Loc)
    d = obj.__dict__
    d["file"], d["line"], d["col"] = file, line, col
    return obj


# -- printing ---------------------------------------------------------------

def _attrs_text(attrs: tuple[tuple[str, Attr], ...]) -> str:
    if not attrs:
        return ""
    return " {" + ", ".join(f"{k} = {v}" for k, v in attrs) + "}"


def format_instr(instr: Instr) -> str:
    """Render one instruction as IR text (without indentation or comment)."""
    ops = instr.operands
    dest = f"{instr.dest.name} = " if instr.dest is not None else ""
    if instr.syntax == "infix" and instr.opcode in OPCODE_INFIX and len(ops) == 2:
        a, b = ops  # registers by name: no __str__ call for the commonest operand
        body = (f"{a.name if a.__class__ is Reg else a} {OPCODE_INFIX[instr.opcode]} "
                f"{b.name if b.__class__ is Reg else b}")
    elif instr.syntax == "neg" and instr.opcode == "neg" and len(ops) == 1:
        body = f"-{ops[0]}"
    elif instr.syntax == "copy" and instr.opcode == "mov" and len(ops) == 1 and dest:
        body = str(ops[0])
    elif instr.opcode == "call" and ops and isinstance(ops[0], Sym):
        body = f"call {ops[0]}(" + ", ".join(str(o) for o in ops[1:]) + ")"
    else:
        body = instr.opcode + (" " + ", ".join(str(o) for o in ops) if ops else "")
    return dest + body + _attrs_text(instr.attrs)


def print_block(block: Block, indent: str = "  ", label: bool = True) -> str:
    lines = [f"{block.label}:"] if label else []
    lines.extend(indent + format_instr(i) for i in block.instrs)
    return "\n".join(lines)


def print_function(func: Function) -> str:
    params = ", ".join(str(p) for p in func.params)
    parts = [f"func {func.name}({params}) {{"]
    parts.extend(print_block(b) for b in func.blocks)
    parts.append("}")
    return "\n".join(parts)


def print_program(program: Program) -> str:
    """Print *program* as IR text that parses back to an equal program."""
    funcs = program.functions
    if len(funcs) == 1 and funcs[0].implicit:
        blocks = funcs[0].blocks
        if len(blocks) == 1 and blocks[0].label == "entry":
            return print_block(blocks[0], indent="", label=False) + "\n"
        return "\n".join(print_block(b) for b in blocks) + "\n"
    return "\n\n".join(print_function(f) for f in funcs) + "\n"

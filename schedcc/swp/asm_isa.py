"""What the assembly pipeliner needs to know of an instruction set: registers and
the calling convention, the opcodes it reads (loads, stores, induction steps,
loop branches) and the ones it writes (copies, the guard's arithmetic, spills),
and how an address is written.

One description per instruction set: :data:`LOONGARCH` (LP64D) and :data:`RISCV`
(RV64GC, LP64D). The loop finder (:mod:`schedcc.swp.asm_loops`), the liveness
(:mod:`schedcc.swp.asm_liveness`) and the code generator
(:mod:`schedcc.swp.asm_codegen`) read only this; another instruction set is
another description, nothing else. :func:`isa_of` picks the description of a
parsed assembly source (the front end names its instruction set).

Example::

    >>> RISCV.register_class("fa0"), RISCV.register_class("v:ft3.2"), LOONGARCH.register_class("$fcc1")
    ('fpr', 'fpr', 'fcc')
    >>> str(RISCV.move("a0", "a1")), RISCV.branch_form("bgtz", ("a0",))
    ('a0 = mv a1', ('blt', ('zero', 'a0')))
"""

from __future__ import annotations

import re
from typing import Callable

from schedcc.frontends import loongarch_asm, riscv_asm
from schedcc.frontends.source import Source
from schedcc.ir import Affine, Attr, Const, Instr, Label, Mem, Reg, Sym

_VIRTUAL = re.compile(r"v:(\$?[a-z]+\d*)")

# Canonical forms of the loop branches: (opcode, operands) as a two-register compare.
_INVERSE = {"bnez": "beqz", "beqz": "bnez", "bne": "beq", "beq": "bne", "blt": "bge", "bge": "blt",
            "bltu": "bgeu", "bgeu": "bltu", "bgt": "ble", "ble": "bgt", "bgtu": "bleu", "bleu": "bgtu",
            "bltz": "bgez", "bgez": "bltz", "blez": "bgtz", "bgtz": "blez"}


class AsmIsa:
    """An instruction set for the assembly pipeliner (module docstring). Subclasses set
    the tables and override what differs; the instances are module constants."""

    name = ""
    parse: Callable[[str, str], Source]
    zero = ra = sp = syscall_result = ""
    gpr: tuple[str, ...] = ()
    fpr: tuple[str, ...] = ()
    fcc: tuple[str, ...] = ()
    reserved: frozenset[str] = frozenset()
    callee_saved: frozenset[str] = frozenset()
    arguments: frozenset[str] = frozenset()
    at_return: frozenset[str] = frozenset()
    order: tuple[str, ...] = ()               # allocation order
    callee_saved_order: tuple[str, ...] = ()  # saved on the stack when the free ones run out
    loads: dict[str, tuple[int, str]] = {}    # opcode -> (width, form: "ri" base + offset, "rr" indexed)
    stores: dict[str, tuple[int, str]] = {}
    generic: dict[str, str] = {}              # opcode -> the schedcc IR opcode it computes
    addi = sub = sltui = andi = gmove = fmove = ""
    add = mul = divu = slli = srli = srai = ""  # the run-time checks' (:mod:`schedcc.swp.asm_ranges`)
    sext = ""                                 # sign-extends the low 32 bits with ``sext r, s, 0``
    spills: dict[str, str] = {}               # (f)(ld|st) -> opcode of a 64-bit spill
    jumps: tuple[str, ...] = ()               # unconditional control transfers: no fall-through
    inverse = _INVERSE

    @property
    def all(self) -> frozenset[str]:
        return frozenset(self.gpr + self.fpr + self.fcc)

    @property
    def caller_saved(self) -> frozenset[str]:
        return frozenset(r for r in self.all if r not in self.callee_saved and r not in self.reserved)

    def register_class(self, name: str) -> str:
        """``gpr``, ``fpr`` or ``fcc`` of a register, or of a virtual one named after it
        (``v:$fa1.2``); anything else (a temporary, a bound) is ``gpr``."""
        m = _VIRTUAL.match(name)
        if m:
            name = m.group(1)
        if name in self.fcc:
            return "fcc"
        return "fpr" if name in self.fpr else "gpr"

    def zero_extension(self, ins: Instr) -> str | None:
        """The register whose low 32 bits *ins* zero-extends, or None (none on RISC-V: RV64GC
        writes it as two shifts)."""
        return None

    def is_register(self, name: str) -> bool:
        """A physical register, or the loop's renamed one (``v:$a1``)."""
        return (name[2:] if name.startswith("v:") else name) in self.all

    def move(self, dst: str, src: str) -> Instr:
        return Instr(self.fmove if self.register_class(dst) == "fpr" else self.gmove, Reg(dst), (Reg(src),))

    def branch_form(self, op: str, regs: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """A conditional branch as a compare of two registers (``bnez a`` is ``bne a, zero``)."""
        z = self.zero
        if op in ("bnez", "beqz"):
            return op[:3], (regs[0], z)
        one = {"bltz": ("blt", 0), "bgez": ("bge", 0), "blez": ("bge", 1), "bgtz": ("blt", 1)}
        if op in one:
            base, at = one[op]
            return base, (regs[0], z) if at == 0 else (z, regs[0])
        if op in ("bgt", "ble", "bgtu", "bleu"):
            return {"bgt": "blt", "ble": "bge", "bgtu": "bltu", "bleu": "bgeu"}[op], (regs[1], regs[0])
        return op, regs

    def is_fixed(self, ins: Instr) -> bool:
        """An access whose address a code generator cannot correct (an indexed form)."""
        form = self.loads.get(ins.opcode, self.stores.get(ins.opcode, (0, "ri")))[1]
        return form == "rr"

    def control(self, ins: Instr, labels: set[str]) -> str:
        """What an instruction does to control: ``call``, ``syscall``, ``return``,
        ``indirect`` (a jump schedcc cannot follow), ``unknown`` (a branch out of the
        function), ``jump`` (to a label of the function),
        ``tail`` (a jump out: a tail call), ``branch``, ``next``."""
        raise NotImplementedError

    def spill(self, kind: str, reg: str, offset: int) -> Instr:
        """A 64-bit store (*kind* ``st``) or load (``ld``) of *reg* at ``sp + offset``."""
        op = self.spills[("f" if self.register_class(reg) == "fpr" else "") + kind]
        mem = Mem(None, Affine.of({self.sp: 1}, offset))
        attrs = (("width", Attr(8)), ("spill", Attr(reg)))
        if kind == "ld":
            return Instr(op, Reg(reg), (mem,), attrs)
        return Instr(op, None, (mem, Reg(reg)), attrs)

    def mem_text(self, base: str, offset: str, second: str | None = None) -> str:
        raise NotImplementedError

    def offset_range(self, opcode: str) -> tuple[int, int]:
        return -2048, 2047

    def format_extra(self, ins: Instr) -> list[str]:
        """Operands the instruction carries as attributes (a rounding mode)."""
        return []

    def load_const(self, dst: str, value: int) -> list[Instr]:
        """Instructions that set *dst* to the 64-bit constant *value* (any value,
        two's complement), for a guard's constant too large for an immediate."""
        raise NotImplementedError


class _LoongArch(AsmIsa):
    name = "loongarch64"
    parse = staticmethod(loongarch_asm.parse_asm)
    zero, ra, sp, syscall_result = "$zero", "$ra", "$sp", "$a0"
    gpr = tuple(["$zero", "$ra", "$tp", "$sp"] + [f"$a{k}" for k in range(8)] + [f"$t{k}" for k in range(9)]
                + ["$r21", "$fp"] + [f"$s{k}" for k in range(9)])
    fpr = tuple([f"$fa{k}" for k in range(8)] + [f"$ft{k}" for k in range(16)] + [f"$fs{k}" for k in range(8)])
    fcc = tuple(f"$fcc{k}" for k in range(8))
    reserved = frozenset({"$zero", "$tp", "$sp", "$r21"})
    callee_saved = frozenset([f"$s{k}" for k in range(9)] + ["$fp"] + [f"$fs{k}" for k in range(8)])
    arguments = frozenset([f"$a{k}" for k in range(8)] + [f"$fa{k}" for k in range(8)])
    at_return = frozenset({"$a0", "$a1", "$fa0", "$fa1", "$ra", "$sp", "$tp", "$r21"}) | callee_saved
    # Allocation order: caller-saved temporaries first, then arguments, then callee-saved (free only if saved).
    order = tuple([f"$t{k}" for k in range(9)] + [f"$a{k}" for k in range(7, -1, -1)] + [f"$s{k}" for k in range(9)]
                  + ["$fp", "$ra"] + [f"$ft{k}" for k in range(16)] + [f"$fa{k}" for k in range(7, -1, -1)]
                  + [f"$fs{k}" for k in range(8)] + [f"$fcc{k}" for k in range(8)])
    callee_saved_order = tuple([f"$s{k}" for k in range(9)] + [f"$fs{k}" for k in range(8)])
    loads, stores = loongarch_asm.LOADS, loongarch_asm.STORES
    generic = {"addi.d": "add", "add.d": "add", "sub.d": "sub", "mul.d": "mul", "slli.d": "shl", "move": "mov"}
    addi, sub, sltui, andi, gmove, fmove = "addi.d", "sub.d", "sltui", "andi", "move", "fmov.d"
    add, mul, divu, slli, srli, srai = "add.d", "mul.d", "div.du", "slli.d", "srli.d", "srai.d"
    sext = "addi.w"
    spills = {"ld": "ld.d", "st": "st.d", "fld": "fld.d", "fst": "fst.d"}
    jumps = ("b", "jr", "ret")

    def is_fixed(self, ins: Instr) -> bool:
        return super().is_fixed(ins) or "ptr" in ins.opcode

    def zero_extension(self, ins: Instr) -> str | None:
        """``bstrpick.d r, s, 31, 0``: bits 31..0 of s (an unsigned counter's test)."""
        ops = ins.operands
        return ops[0].name if ins.opcode == "bstrpick.d" and len(ops) == 3 and isinstance(ops[0], Reg) \
            and ops[1:] == (Const(31), Const(0)) else None

    def control(self, ins: Instr, labels: set[str]) -> str:
        op, ops = ins.opcode, ins.operands
        target = next((o.name for o in ops if isinstance(o, Label)), None)
        if op == "bl" or (op == "jirl" and ops and ops[0] == Reg("$ra")):
            return "call"
        if op == "syscall":
            return "syscall"
        if op == "ret" or (op == "jr" and ops == (Reg("$ra"),)) or (op == "jirl" and ops[:2] == (Reg("$zero"),
                                                                                                   Reg("$ra"))):
            return "return"
        if op in ("jr", "jirl"):
            return "indirect"
        if op == "b":
            return "jump" if target in labels else "tail"
        if ins.is_terminator:
            return "branch" if target in labels else "unknown"
        return "next"

    def mem_text(self, base: str, offset: str, second: str | None = None) -> str:
        return f"{base}, {second if second is not None else offset}"

    def offset_range(self, opcode: str) -> tuple[int, int]:
        return (-32768, 32764) if "ptr" in opcode else (-2048, 2047)

    def load_const(self, dst: str, value: int) -> list[Instr]:
        """``lu12i.w`` + ``ori`` (bits 31..0), then ``lu32i.d`` (51..32) and ``lu52i.d``
        (63..52) only where the value is not the sign extension of the lower part.

        >>> [str(i) for i in LOONGARCH.load_const("$t0", 2783)]
        ['$t0 = lu12i.w 0', '$t0 = ori $t0, 2783']
        >>> [str(i) for i in LOONGARCH.load_const("$t0", -(1 << 40) + 5)]
        ['$t0 = lu12i.w 0', '$t0 = ori $t0, 5', '$t0 = lu32i.d -256']
        """
        u = value & (1 << 64) - 1

        def signed(x: int, bits: int) -> int:
            return x - (1 << bits) if x >> (bits - 1) else x

        r = Reg(dst)
        out = [Instr("lu12i.w", r, (Const(signed(u >> 12 & 0xFFFFF, 20)),))]
        if u & 0xFFF:
            out.append(Instr("ori", r, (r, Const(u & 0xFFF))))
        if signed(u & 0xFFFFFFFF, 32) != signed(u, 64):
            out.append(Instr("lu32i.d", r, (Const(signed(u >> 32 & 0xFFFFF, 20)),)))
            if signed(u & (1 << 52) - 1, 52) != signed(u, 64):
                out.append(Instr("lu52i.d", r, (r, Const(signed(u >> 52, 12)))))
        return out


class _RiscV(AsmIsa):
    name = "riscv64"
    parse = staticmethod(riscv_asm.parse_riscv)
    zero, ra, sp, syscall_result = "zero", "ra", "sp", "a0"
    gpr = tuple(["zero", "ra", "sp", "gp", "tp"] + [f"t{k}" for k in range(7)] + [f"s{k}" for k in range(12)]
                + [f"a{k}" for k in range(8)])
    fpr = tuple([f"ft{k}" for k in range(12)] + [f"fs{k}" for k in range(12)] + [f"fa{k}" for k in range(8)])
    reserved = frozenset({"zero", "sp", "gp", "tp"})
    callee_saved = frozenset([f"s{k}" for k in range(12)] + [f"fs{k}" for k in range(12)])
    arguments = frozenset(riscv_asm.ARGUMENTS)
    at_return = frozenset({"a0", "a1", "fa0", "fa1", "ra", "sp", "gp", "tp"}) | callee_saved
    order = tuple([f"t{k}" for k in range(7)] + [f"a{k}" for k in range(7, -1, -1)] + [f"s{k}" for k in range(12)]
                  + ["ra"] + [f"ft{k}" for k in range(12)] + [f"fa{k}" for k in range(7, -1, -1)]
                  + [f"fs{k}" for k in range(12)])
    callee_saved_order = tuple([f"s{k}" for k in range(12)] + [f"fs{k}" for k in range(12)])
    loads = {op: (w, "ri") for op, w in riscv_asm.LOADS.items()}
    stores = {op: (w, "ri") for op, w in riscv_asm.STORES.items()}
    generic = {"addi": "add", "add": "add", "sub": "sub", "mul": "mul", "slli": "shl", "mv": "mov", "neg": "neg",
               "li": "mov"}
    addi, sub, sltui, andi, gmove, fmove = "addi", "sub", "sltiu", "andi", "mv", "fmv.d"
    add, mul, divu, slli, srli, srai = "add", "mul", "divu", "slli", "srli", "srai"
    sext = "addiw"
    spills = {"ld": "ld", "st": "sd", "fld": "fld", "fst": "fsd"}
    jumps = ("j", "jr", "ret", "tail")

    def control(self, ins: Instr, labels: set[str]) -> str:
        op, ops = ins.opcode, ins.operands
        target = next((o.name for o in ops if isinstance(o, Label)), None)
        if op == "call" or (op in ("jal", "jalr") and not (ops and ops[0] == Reg("zero"))):
            return "call"
        if op == "ecall":
            return "syscall"
        if op == "ret" or (op == "jr" and ops == (Reg("ra"),)):
            return "return"
        if op in ("jr", "jal", "jalr"):
            return "indirect"
        if op == "tail":
            return "tail"
        if op == "j":
            return "jump" if target in labels else "tail"
        if ins.is_terminator:
            return "branch" if target in labels else "unknown"
        return "next"

    def mem_text(self, base: str, offset: str, second: str | None = None) -> str:
        return f"{second if second is not None else offset}({base})"

    def load_const(self, dst: str, value: int) -> list[Instr]:
        """The assembler's ``li`` (it expands any 64-bit value).

        >>> [str(i) for i in RISCV.load_const("t0", 2783)]
        ['t0 = li 2783']
        """
        return [Instr("li", Reg(dst), (Const(value),))]

    def format_extra(self, ins: Instr) -> list[str]:
        rm = ins.attr("rm")
        return [str(rm)] if rm is not None else []


LOONGARCH = _LoongArch()
RISCV = _RiscV()
ISAS = {isa.name: isa for isa in (LOONGARCH, RISCV)}


def isa_of(source: Source) -> AsmIsa:
    """The description of a parsed assembly source's instruction set (LoongArch unless
    the front end says otherwise)."""
    return ISAS.get(source.extra.get("isa", "loongarch64"), LOONGARCH)


def generic_instr(isa: AsmIsa, ins: Instr) -> Instr:
    """The instruction in the schedcc IR's generic opcodes, for the symbolic evaluation
    of addresses and induction variables (``addi`` -> ``add``); ``opaque`` otherwise."""
    ops = tuple(Const(0) if o == Reg(isa.zero) else o for o in ins.operands)
    if ins.dest is None or any(isinstance(o, Mem) for o in ops):
        return ins
    if ins.opcode in isa.generic and not any(isinstance(o, Sym) for o in ops):
        return Instr(isa.generic[ins.opcode], ins.dest, ops, syntax="named")
    if ins.opcode in ("or", "ori") and len(ops) == 2 and Const(0) in ops:
        return Instr("mov", ins.dest, (ops[1] if ops[0] == Const(0) else ops[0],))
    return Instr("opaque", ins.dest)

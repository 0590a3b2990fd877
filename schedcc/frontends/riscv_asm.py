"""Front end for RISC-V (RV64GC) assembly (``.s``), grammar ``grammar/riscv_asm.lark``.

Every instruction becomes an :class:`~schedcc.ir.Instr` whose opcode is the
mnemonic (``ld``, ``fmadd.d``, and the assembler's pseudo-instructions
clang writes: ``li``, ``mv``, ``beqz``, ``call``), so a RISC-V machine model
(``targets/sifive-u74.toml``, imported from LLVM) costs it directly.
Registers are named by their ABI names (``x10`` and ``a0`` are the same
register; ``fp`` is ``s0``); ``zero`` is never written.

Scheduling regions are those of every assembly front end
(:mod:`schedcc.frontends.asm_lines`): a block starts at a label and ends
after a control transfer (``beq``, ``j``, ``jr``, ``ret``, ``tail``), which
stays last; a ``call`` ends its region too, so does an ``auipc`` (the
``.Lpcrel_hiN`` label above it, which a ``%pcrel_lo`` names, must stay on
it), and ``fence``, ``ecall`` and ``ebreak`` form regions of their own.

Memory: ``ld a0, 8(a1)`` is the pointer reference ``[a1 + 8]`` of width 8;
a relocation offset (``%lo(g)(a0)``) is a symbolic term ``[a0 + %lo(g)]``.
Accesses with the same base register value and disjoint byte ranges do not
alias; all others may (docs/dag.md).

What schedcc does not model is refused with a located error rather than
reordered blindly: atomics (``lr``/``sc``/``amo*``), CSR accesses, vector
and explicitly compressed instructions.

Example::

    >>> src = parse_riscv("f:\\n  ld a1, 8(sp)\\n  addi a0, a1, 1\\n  ret\\n")
    >>> [str(i) for i in src.program.functions[0].blocks[0].instrs]
    ['a1 = ld [sp + 8] {width = 8}', 'a0 = addi a1, 1', 'ret ra']
"""

from __future__ import annotations

import re

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, VisitError

from schedcc.errors import SchedccError, attach_source
from schedcc.ir import Affine, Attr, Const, Instr, Label, Mem, Reg, Sym
from schedcc.frontends.asm_lines import (Line, LinesTransformer, RegisterDecoder, build_program, lines_parser,
                                         write_asm)
from schedcc.frontends.ir_text import syntax_error
from schedcc.frontends.source import Source

ISA = "riscv64"
REGISTER_LIKE = re.compile(r"(x|f|a|s|t|fa|fs|ft)\d+")


def _abi_names() -> dict[str, str]:
    x = ["zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"] + [f"a{k}" for k in range(8)] \
        + [f"s{k}" for k in range(2, 12)] + ["t3", "t4", "t5", "t6"]
    f = [f"ft{k}" for k in range(8)] + ["fs0", "fs1"] + [f"fa{k}" for k in range(8)] \
        + [f"fs{k}" for k in range(2, 12)] + ["ft8", "ft9", "ft10", "ft11"]
    names = {f"x{k}": n for k, n in enumerate(x)} | {f"f{k}": n for k, n in enumerate(f)}
    names |= {n: n for n in x + f} | {"fp": "s0"}
    return names


ABI_NAMES = _abi_names()

LOADS = {"lb": 1, "lh": 2, "lw": 4, "ld": 8, "lbu": 1, "lhu": 2, "lwu": 4, "flw": 4, "fld": 8}
STORES = {"sb": 1, "sh": 2, "sw": 4, "sd": 8, "fsw": 4, "fsd": 8}
# Conditional branches: how many registers they compare before the label.
BRANCHES = {op: 2 for op in ("beq", "bne", "blt", "bge", "bltu", "bgeu", "bgt", "ble", "bgtu", "bleu")}
BRANCHES |= {op: 1 for op in ("beqz", "bnez", "blez", "bgez", "bltz", "bgtz")}
ROUNDING = frozenset({"rne", "rtz", "rdn", "rup", "rmm", "dyn"})
ARGUMENTS = tuple(f"a{k}" for k in range(8)) + tuple(f"fa{k}" for k in range(8))

# Effects beyond the operands (ordering of memory, the environment): a region of their own.
SYSTEM = frozenset({"fence", "fence.i", "fence.tso", "ecall", "ebreak"})
# What schedcc does not model: refused rather than reordered as if it were arithmetic.
UNSUPPORTED_PREFIXES = ("lr.", "sc.", "amo", "csr", "frflags", "fsflags", "frrm", "fsrm", "frcsr", "fscsr",
                        "rdcycle", "rdtime", "rdinstret", "wfi", "mret", "sret", "uret", "sfence", "hfence",
                        "cbo.", "prefetch", "c.", "v")
MAX_OPERANDS = 4  # rd, rs1, rs2, rs3 (fmadd.d) or a rounding mode
# Besides control transfers, these end their region: a call (nothing moves across it), and
# ``auipc``, which clang writes right under the label its ``%pcrel_lo(.Lpcrel_hiN)`` names:
# the label must stay on it, so nothing may move above it.
ENDS_REGION = frozenset({"call", "auipc"})

_WORDS = {"MNEMONIC": "an instruction", "DIRECTIVE": "a directive (.text)", "LABEL": "a label (name:)",
          "NAME": "a register or a symbol (a0, .LBB0_3)", "INT": "an integer", "RELOC": "a relocation (%lo)",
          "SIGN": "'+' or '-'", "_NL": "end of line", "$END": "end of file", "LPAR": "'('", "RPAR": "')'"}


class _ToLines(LinesTransformer):
    def name(self, c):
        return ("name", c[0])

    def imm(self, c):
        return ("imm", c[0])

    def sym(self, c):
        return ("sym", c[0], "".join(str(x) for x in c))

    def negsym(self, c):
        return ("sym", c[0], "-" + "".join(str(x) for x in c))

    def mem(self, c):
        offset, base = (c[0], c[1]) if len(c) == 2 else (None, c[0])
        return ("mem", base, offset)

    def reloc(self, c):
        rel, *rest = c
        return ("reloc", rel, f"{rel}({''.join(str(x) for x in rest if x is not None)})")

    def relocmem(self, c):
        rel, *inner, base = c
        return ("relocmem", base, f"{rel}({''.join(str(x) for x in inner if x is not None)})")


def _parser() -> Lark:
    return lines_parser("riscv_asm.lark", _ToLines)


class _Decoder(RegisterDecoder):
    """Turns one instruction line into an :class:`Instr`."""

    names, operand = ABI_NAMES, "name"
    registers = "registers: zero ra sp gp tp t0-t6 s0-s11 a0-a7 ft0-ft11 fs0-fs11 fa0-fa7, or x0-x31 f0-f31"

    def dest(self, op, mnemonic: Token) -> Reg | None:
        reg = self.reg(op, mnemonic)
        return None if reg.name == "zero" else reg  # writes to zero are discarded

    def immediate(self, tok: Token) -> int:
        text = str(tok)
        value = int(text, 0) if len(text) <= 24 else None
        if value is None or not -2**63 <= value < 2**64:
            raise self.error(tok, f"immediate '{text[:24]}{'...' if len(text) > 24 else ''}' is out of range: "
                                  "immediates and offsets fit in 64 bits")
        return value

    def value(self, op, mnemonic: Token):
        kind = op[0]
        if kind == "name":
            name = str(op[1])
            if name in ABI_NAMES or REGISTER_LIKE.fullmatch(name):
                return self.reg(op, mnemonic)  # a register, or a misspelt one (a9, x32): an error
            return Sym(name)  # a symbol, a label, a rounding mode (rtz) or a fence set (rw)
        if kind == "imm":
            return Const(self.immediate(op[1]), str(op[1]))
        if kind in ("sym", "reloc"):
            return Sym(op[2])
        raise self.error(op[1], f"'{mnemonic}' does not take a memory operand here")

    def address(self, op, mnemonic: Token) -> Mem:
        if op[0] not in ("mem", "relocmem"):
            raise self.error(op[1], f"'{mnemonic}' needs an address here, like 8(a1), not '{op[1]}'")
        base = self.reg(("name", op[1]), mnemonic).name
        if op[0] == "relocmem":
            return Mem(None, Affine.of({base: 1, op[2]: 1}, 0))
        return Mem(None, Affine.of({base: 1}, self.immediate(op[2]) if op[2] is not None else 0))

    def decode(self, line: Line) -> Instr:
        tok = line.mnemonic
        assert tok is not None
        op, ops, loc = str(tok), line.operands, self.loc(tok)
        if len(ops) > MAX_OPERANDS:
            raise self.error(tok, f"'{op}' has {len(ops):,} operands; a RISC-V instruction has at most {MAX_OPERANDS}")
        if op in LOADS:
            if len(ops) != 2:
                raise self.error(tok, f"'{op}' takes rd, offset(rs1)")
            return Instr(op, self.dest(ops[0], tok), (self.address(ops[1], tok),),
                         (("width", Attr(LOADS[op])),), loc)
        if op in STORES:
            if len(ops) != 2:
                raise self.error(tok, f"'{op}' takes rs2, offset(rs1)")
            return Instr(op, None, (self.address(ops[1], tok), self.reg(ops[0], tok)),
                         (("width", Attr(STORES[op])),), loc)
        if op in BRANCHES:
            n = BRANCHES[op]
            if len(ops) != n + 1:
                raise self.error(tok, f"'{op}' takes {', '.join(['rs1', 'rs2'][:n] + ['label'])}")
            return Instr(op, None, (*(self.reg(o, tok) for o in ops[:n]), self.label(ops[n], tok)), (), loc)
        if op == "j":
            if len(ops) != 1:
                raise self.error(tok, "'j' takes a label")
            return Instr("j", None, (self.label(ops[0], tok),), (), loc)
        if op == "ret":
            return Instr("ret", None, (Reg("ra"),), (), loc)
        if op == "jr":
            if len(ops) != 1:
                raise self.error(tok, "'jr' takes one register")
            return Instr("jr", None, (self.reg(ops[0], tok),), (), loc)
        if op in ("call", "tail"):
            if len(ops) != 1 or ops[0][0] not in ("name", "sym"):
                raise self.error(tok, f"'{op}' takes a function name")
            return Instr(op, None, (Sym(str(ops[0][2] if ops[0][0] == "sym" else ops[0][1])),
                                    *(Reg(a) for a in ARGUMENTS)), (), loc)
        if op in ("jal", "jalr"):  # a call or a jump; either way the end of a region
            return Instr(op, None, tuple(self.value(o, tok) if o[0] not in ("mem", "relocmem")
                                         else self.address(o, tok) for o in ops) + tuple(Reg(a) for a in ARGUMENTS),
                         (), loc)
        if op.startswith(UNSUPPORTED_PREFIXES):
            raise self.error(tok, f"'{op}' is not supported: schedcc does not model its effect on memory or "
                                  "machine state (atomics, CSRs, vector and compressed instructions)",
                             ["docs/frontends.md lists the RISC-V instructions it reads"])
        if op in SYSTEM:
            return Instr(op, None, tuple(self.value(o, tok) for o in ops) + tuple(Reg(a) for a in ARGUMENTS),
                         (), loc)
        if not ops:
            return Instr(op, None, (), (), loc)
        rest = []
        for o in ops[1:]:
            if o[0] == "name" and str(o[1]) in ROUNDING:
                continue  # fcvt.w.d a0, fa0, rtz: the rounding mode is not an operand to schedule
            rest.append(self.value(o, tok))
        attrs = tuple(("rm", Attr(str(o[1]))) for o in ops[1:] if o[0] == "name" and str(o[1]) in ROUNDING)
        return Instr(op, self.dest(ops[0], tok), tuple(rest), attrs, loc)

    def label(self, op, mnemonic: Token):
        if op[0] == "name" and str(op[1]) not in ABI_NAMES:
            return Label(str(op[1]))
        if op[0] in ("sym", "imm"):
            return Sym(str(op[2] if op[0] == "sym" else op[1]))
        raise self.error(op[1], f"'{mnemonic}' needs a label here, not '{op[1]}'")


def parse_riscv(text: str, filename: str = "<input>") -> Source:
    """Parse RISC-V assembly *text*; the :class:`Source` writes schedules back as assembly."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        try:
            lines = _parser().parse(text)
        except UnexpectedInput as err:
            raise syntax_error(err, filename, _parser(), _WORDS) from None
        except VisitError as err:
            raise err.orig_exc from None
        program = build_program(lines, filename, _Decoder(filename), SYSTEM, ENDS_REGION)
    except SchedccError as err:
        raise attach_source(err, text) from None
    return Source(program, "asm", text, lambda scheduled: write_asm(text, program, scheduled), {"isa": ISA})

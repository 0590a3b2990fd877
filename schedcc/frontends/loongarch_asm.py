"""Front end for LoongArch64 assembly (``.s``), grammar ``grammar/loongarch_asm.lark``.

Every instruction becomes an :class:`~schedcc.ir.Instr` whose opcode is the
mnemonic (``ld.w``, ``fadd.d``), so the LoongArch machine models
(``targets/la464.toml``, ``la664.toml``) cost it directly. Registers are
named by their ABI names (``$r4`` and ``$a0`` are the same register).

Scheduling regions: a block starts at a label and ends after a control
transfer (``b``, ``beq``, ``bl``, ``jr``, ``ret``, ...), which stays last. A
call (``bl``, ``jirl $ra``) therefore ends its region: nothing moves across
it. A directive or a line that holds both a label and an instruction also
ends a region, so that ``.cfi_*`` and data directives keep describing the
instructions they follow.

Memory: ``ld.w $a0, $sp, 8`` is the pointer reference ``[$sp + 8]`` of width
4; ``ldx.w $a0, $a1, $a2`` is ``[$a1 + $a2]``; a relocation offset
(``%pc_lo12(g)``) is a symbolic term ``[$a1 + %pc_lo12(g)]``. Accesses with
the same base register value and disjoint byte ranges do not alias; all
others may (see schedcc/dag.py).

Writing back moves whole instruction lines inside regions: labels,
directives, comments and blank lines stay where they were, and so does any
comment at the end of an instruction's line, which travels with it.

Example::

    >>> src = parse_asm("f:\\n  ld.w $a1, $sp, 8\\n  addi.d $a0, $a1, 1\\n  ret\\n")
    >>> [str(i) for i in src.program.functions[0].blocks[0].instrs]
    ['$a1 = ld.w [$sp + 8] {width = 4}', '$a0 = addi.d $a1, 1', 'ret $ra']
"""

from __future__ import annotations

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, VisitError

from schedcc.errors import SchedccError, attach_source
from schedcc.ir import Affine, Attr, Const, Instr, Label, Mem, Reg, Sym
from schedcc.frontends.ir_text import syntax_error
from schedcc.frontends.asm_lines import (Line, LinesTransformer, RegisterDecoder, build_program, lines_parser,
                                         write_asm)
from schedcc.frontends.source import Source


def _abi_names() -> dict[str, str]:
    names = {"r0": "zero", "r1": "ra", "r2": "tp", "r3": "sp", "r21": "r21", "r22": "fp", "s9": "fp",
             "v0": "a0", "v1": "a1"}
    names.update({f"r{4 + k}": f"a{k}" for k in range(8)})
    names.update({f"r{12 + k}": f"t{k}" for k in range(9)})
    names.update({f"r{23 + k}": f"s{k}" for k in range(9)})
    names.update({f"f{k}": f"fa{k}" for k in range(8)})
    names.update({f"f{8 + k}": f"ft{k}" for k in range(16)})
    names.update({f"f{24 + k}": f"fs{k}" for k in range(8)})
    for canonical in list(set(names.values())) + [f"fcc{k}" for k in range(8)]:
        names.setdefault(canonical, canonical)
    return names


ABI_NAMES = _abi_names()

# Mnemonic -> (bytes accessed, form): "ri" base + immediate, "rr" base + index register.
_WIDTH = {"b": 1, "bu": 1, "h": 2, "hu": 2, "w": 4, "wu": 4, "d": 8, "s": 4}
LOADS = {f"{op}.{sz}": (_WIDTH[sz], "ri") for op in ("ld",) for sz in ("b", "h", "w", "d", "bu", "hu", "wu")}
LOADS |= {f"ldx.{sz}": (_WIDTH[sz], "rr") for sz in ("b", "h", "w", "d", "bu", "hu", "wu")}
LOADS |= {"ldptr.w": (4, "ri"), "ldptr.d": (8, "ri"), "fld.s": (4, "ri"), "fld.d": (8, "ri"),
          "fldx.s": (4, "rr"), "fldx.d": (8, "rr")}
STORES = {f"st.{sz}": (_WIDTH[sz], "ri") for sz in ("b", "h", "w", "d")}
STORES |= {f"stx.{sz}": (_WIDTH[sz], "rr") for sz in ("b", "h", "w", "d")}
STORES |= {"stptr.w": (4, "ri"), "stptr.d": (8, "ri"), "fst.s": (4, "ri"), "fst.d": (8, "ri"),
           "fstx.s": (4, "rr"), "fstx.d": (8, "rr")}
# Control transfers: which operands are branch targets (the rest are registers read).
BRANCHES = {"beq": 2, "bne": 2, "blt": 2, "bge": 2, "bltu": 2, "bgeu": 2,
            "beqz": 1, "bnez": 1, "bceqz": 1, "bcnez": 1, "b": 0, "bl": 0}

# Memory or machine-state instructions whose effects schedcc does not model
# (atomics, LL/SC, bounds-checked and vector memory, privileged state):
# refused rather than scheduled as if they were arithmetic.
UNSUPPORTED_PREFIXES = ("am", "ll.", "sc.", "preld", "csr", "iocsr", "cacop", "tlb", "ldgt", "ldle",
                        "stgt", "stle", "fldgt", "fldle", "fstgt", "fstle", "ertn", "idle", "rdtime",
                        "cpucfg", "lddir", "ldpte", "vld", "vst", "xvld", "xvst")

# Instructions that write only part of their destination and keep the rest (lu32i.d sets
# bits 32-51): they read it too, as an operand marked {tied = true}.
TIED = frozenset({"lu32i.d", "bstrins.w", "bstrins.d", "movgr2frh.w"})

# Instructions with effects beyond their operands: each is a scheduling region of its own.
SYSTEM = frozenset({"syscall", "break", "dbar", "ibar"})

_WORDS = {"MNEMONIC": "an instruction", "DIRECTIVE": "a directive (.text)", "LABEL": "a label (name:)",
          "REG": "a register ($a0)", "INT": "an integer", "SYMBOL": "a symbol", "RELOC": "a relocation (%pc_lo12)",
          "SIGN": "'+' or '-'", "_NL": "end of line", "$END": "end of file"}


MAX_OPERANDS = 4  # rd, rj, rk, ra (fmadd.d) or an immediate


class _ToLines(LinesTransformer):
    def reg(self, c):
        return ("reg", c[0])

    def imm(self, c):
        return ("imm", c[0])

    def sym(self, c):
        return ("sym", c[0], "".join(str(x) for x in c if x is not None))

    def reloc(self, c):
        rel, sym, *rest = c
        return ("reloc", rel, f"{rel}({''.join(str(x) for x in [sym, *rest] if x is not None)})")


def _parser() -> Lark:
    # The transformer runs inside the LALR parser: no parse tree is built.
    return lines_parser("loongarch_asm.lark", _ToLines)


class _Decoder(RegisterDecoder):
    """Turns one instruction line into an :class:`Instr`."""

    names, prefix, operand = ABI_NAMES, "$", "reg"
    registers = ("registers: $zero $ra $tp $sp $fp $a0-$a7 $t0-$t8 $s0-$s8 $fa0-$fa7 $ft0-$ft15 "
                 "$fs0-$fs7 $fcc0-$fcc7, or $r0-$r31 $f0-$f31")

    def immediate(self, tok: Token) -> int:
        """An immediate or offset: a 64-bit value at most (the assembler encodes fewer bits)."""
        text = str(tok)
        value = int(text, 0) if len(text) <= 24 else None
        if value is None or not -2**63 <= value < 2**64:
            raise self.error(tok, f"immediate '{text[:24]}{'...' if len(text) > 24 else ''}' is out of range: "
                                  "immediates and offsets fit in 64 bits")
        return value

    def value(self, op, mnemonic: Token):
        if op[0] == "reg":
            return self.reg(op, mnemonic)
        if op[0] == "imm":
            return Const(self.immediate(op[1]), str(op[1]))
        return Sym(op[2])

    def address(self, ops: list, form: str, mnemonic: Token) -> Mem:
        if len(ops) != 2:
            shape = "rd, rj, offset" if form == "ri" else "rd, rj, rk"
            raise self.error(mnemonic, f"'{mnemonic}' takes {shape}")
        base = self.reg(ops[0], mnemonic).name
        terms = {base: 1}
        const = 0
        off = ops[1]
        if form == "rr":
            index = self.reg(off, mnemonic).name
            terms[index] = terms.get(index, 0) + 1
        elif off[0] == "imm":
            const = self.immediate(off[1])
        elif off[0] in ("reloc", "sym"):
            terms[off[2]] = 1  # a link-time offset: a symbolic term, equal only to itself
        else:
            raise self.error(off[1], f"'{mnemonic}' needs an offset here, not '{off[1]}'")
        return Mem(None, Affine.of(terms, const))

    def decode(self, line: Line) -> Instr:
        tok = line.mnemonic
        assert tok is not None
        op = str(tok)
        ops = line.operands
        loc = self.loc(tok)
        if len(ops) > MAX_OPERANDS:
            raise self.error(tok, f"'{op}' has {len(ops):,} operands; a LoongArch instruction has at most "
                                  f"{MAX_OPERANDS}")
        if op in LOADS:
            width, form = LOADS[op]
            if not ops:
                raise self.error(tok, f"'{op}' takes a destination register and an address")
            return Instr(op, self.reg(ops[0], tok), (self.address(ops[1:], form, tok),),
                         (("width", Attr(width)),), loc)
        if op in STORES:
            width, form = STORES[op]
            if not ops:
                raise self.error(tok, f"'{op}' takes a source register and an address")
            value = self.reg(ops[0], tok)
            return Instr(op, None, (self.address(ops[1:], form, tok), value), (("width", Attr(width)),), loc)
        if op in BRANCHES:
            nregs = BRANCHES[op]
            if len(ops) != nregs + 1:
                shape = ", ".join(["rj", "rd"][:nregs] + ["label"]) if op not in ("bceqz", "bcnez") else "$fccN, label"
                raise self.error(tok, f"'{op}' takes {shape}")
            regs = [self.reg(o, tok) for o in ops[:nregs]]
            target = ops[nregs]
            if target[0] == "sym":
                dest_op = Label(target[2])
            elif target[0] == "reloc":
                dest_op = Sym(target[2])
            else:
                raise self.error(target[1], f"'{op}' needs a label here, not '{target[1]}'")
            return Instr(op, None, (*regs, dest_op), (), loc)
        if op == "ret":
            return Instr("ret", None, (Reg("$ra"),), (), loc)
        if op == "jr":
            if len(ops) != 1:
                raise self.error(tok, "'jr' takes one register")
            return Instr("jr", None, (self.reg(ops[0], tok),), (), loc)
        if op == "jirl":
            # jirl rd, rj, offs: a call when it links ($ra), a jump otherwise; a block end either way
            if len(ops) != 3:
                raise self.error(tok, "'jirl' takes rd, rj, offset")
            return Instr("jirl", None, tuple(self.value(o, tok) for o in ops), (), loc)
        if op.startswith(UNSUPPORTED_PREFIXES):
            raise self.error(tok, f"'{op}' is not supported: schedcc does not model its effect on memory "
                                  "or machine state", ["docs/frontends.md lists the instructions it reads"])
        if op in SYSTEM:
            # reads the argument registers; what else it does is unknown: a barrier region of its own
            args = tuple(Reg(f"$a{k}") for k in range(8))
            return Instr(op, None, tuple(self.value(o, tok) for o in ops) + args, (), loc)
        if not ops:
            return Instr(op, None, (), (), loc)
        dest = self.reg(ops[0], tok)
        rest = tuple(self.value(o, tok) for o in ops[1:])
        if op in TIED:  # writes part of its destination: the rest is read
            return Instr(op, dest, (dest, *rest), (("tied", Attr(True)),), loc)
        return Instr(op, dest, rest, (), loc)


def parse_asm(text: str, filename: str = "<input>") -> Source:
    """Parse LoongArch assembly *text*; the :class:`Source` writes schedules back as assembly."""
    if not text.endswith("\n"):
        text += "\n"
    try:
        try:
            tree = _parser().parse(text)
        except UnexpectedInput as err:
            raise syntax_error(err, filename, _parser(), _WORDS) from None
        except VisitError as err:
            raise err.orig_exc from None
        lines = tree
        program = build_program(lines, filename, _Decoder(filename), SYSTEM)
    except SchedccError as err:
        raise attach_source(err, text) from None
    return Source(program, "asm", text, lambda scheduled: write_asm(text, program, scheduled))



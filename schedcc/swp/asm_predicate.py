"""Predicated straight-line code for LoongArch, the if-converter's toolbox
(:mod:`schedcc.swp.asm_ifconv`): conditions held in registers (:class:`Pred`),
selects (``maskeqz``/``masknez`` + ``or``; ``fsel`` on a ``$fcc`` flag),
addresses guarded by a predicate, and the allocation of the fresh registers the
converted block needs (:meth:`Code.finish`: intervals of a straight line, a
register taken again after its value's last read).

A guarded address is ``G = p ? A : S`` with ``S = $sp - 64`` (:data:`SCRATCH`
bytes below the stack pointer, which nothing of the function keeps anything in:
the LoongArch ABI has no red zone)::

    addi.d  S, $sp, -64         once per block
    masknez SP, S, c            once per predicate (c non-zero where it holds)
    maskeqz T, A, c             right before the access
    or      G, T, SP

:func:`guarded_meaning` tells the loop analysis (:mod:`schedcc.swp.asm_loops`)
to read ``G`` as ``A``: under a false predicate the access touches only the
scratch bytes, which nothing else in the loop addresses, and its value is never
used, so its dependences are ``A``'s.

Example::

    >>> from schedcc.ir import Const, Instr, Reg
    >>> body = (Instr("addi.d", Reg("S"), (Reg("$sp"), Const(-64))),
    ...         Instr("masknez", Reg("SP"), (Reg("S"), Reg("c"))),
    ...         Instr("maskeqz", Reg("T"), (Reg("$a1"), Reg("c"))),
    ...         Instr("or", Reg("G"), (Reg("T"), Reg("SP"))))
    >>> [str(i) for i in guarded_meaning(body).values()]
    ['T = mov $a1', 'G = mov T']
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.ir import Const, Instr, Label, Mem, Reg, Sym
from schedcc.swp.asm_isa import LOONGARCH, AsmIsa

SCRATCH = 64          # bytes below $sp that guarded accesses touch under a false predicate


class NotConverted(Exception):
    """Why a loop body cannot be if-converted (a sentence)."""


@dataclass(frozen=True)
class Pred:
    """A condition: ``true``; ``nz``/``z``: register non-zero / zero (``bool``: it
    holds 0 or 1); ``fcc``/``nfcc``: flag set / clear. ``stamp``: the register's
    write count when read, checked on every use."""

    kind: str
    reg: str = ""
    stamp: int = 0
    bool: bool = False

    def negated(self) -> "Pred":
        flip = {"nz": "z", "z": "nz", "fcc": "nfcc", "nfcc": "fcc"}
        return Pred(flip[self.kind], self.reg, self.stamp, self.bool)


def fmt(ins: Instr) -> str:
    """One instruction as LoongArch assembly (tab-separated, as the code generator writes)."""
    def mem(m: Mem) -> list[str]:
        regs = [t for t, c in m.index.terms for _ in range(c)]
        if len(regs) == 2 and not m.index.const:
            return regs
        return [regs[0], regs[1] if len(regs) == 2 else str(m.index.const)]
    parts: list[str] = [str(ins.dest)] if ins.dest is not None else []
    ops = ins.operands
    if ins.mem_write is not None:      # stores: value first
        ops = ops[1:] + ops[:1]
    for o in ops:
        parts += mem(o) if isinstance(o, Mem) else [o.name if isinstance(o, (Label, Sym)) else str(o)]
    return f"\t{ins.opcode}\t{', '.join(parts)}"

class Code:
    """The new block's instructions, with fresh registers and predicate helpers."""

    def __init__(self, isa: AsmIsa, free: list[str]):
        self.isa, self.free = isa, list(free)
        self.items: list[str | Instr] = []      # lines as written, or instructions on virtual registers
        self.cls: dict[str, str] = {}            # virtual register -> class
        self.writes: dict[str, int] = {}
        self.memo: dict = {}
        self.scratch = ""

    def fresh(self, cls: str) -> str:
        name = f"%{cls}{len(self.cls)}"
        self.cls[name] = cls
        return name

    def emit(self, op: str, dest: str | None, *ops) -> str | None:
        ins = Instr(op, Reg(dest) if dest else None, tuple(Reg(o) if isinstance(o, str) else o for o in ops))
        self.items.append(ins)
        self.verbatim(None, ins.defs())
        return dest

    def verbatim(self, text: str | Instr | None, defs) -> None:
        if text is not None:
            self.items.append(text)
        for r in defs:
            self.writes[r] = self.writes.get(r, 0) + 1

    def finish(self) -> list[str]:
        """The lines, every virtual register given a free one (its value's interval in the
        straight-line block: a register is taken again after its value's last read)."""
        last: dict[str, int] = {}
        for k, item in enumerate(self.items):
            if isinstance(item, Instr):
                for r in item.uses():
                    last[r] = k
        colour: dict[str, str] = {}
        pool = list(self.free)
        out = []
        for k, item in enumerate(self.items):
            if not isinstance(item, Instr):
                out.append(item)
                continue
            for r in dict.fromkeys(item.uses()):
                if last.get(r) == k and r in colour:
                    pool.insert(0, colour[r])
            for r in item.defs():
                if r in self.cls and r not in colour:
                    take = next((x for x in pool if self.isa.register_class(x) == self.cls[r]), None)
                    if take is None:
                        kind = {"gpr": "integer", "fpr": "floating-point", "fcc": "condition flag"}[self.cls[r]]
                        raise NotConverted(f"the if-converted body needs more {kind} registers than are free")
                    pool.remove(take)
                    colour[r] = take
                    if r not in last:            # never read: free again at once
                        pool.insert(0, take)
            out.append(fmt(item.renamed(colour)))
        return out

    def pred(self, kind: str, reg: str, boolean: bool = False) -> Pred:
        return Pred(kind, reg, self.writes.get(reg, 0), boolean)

    def _check(self, p: Pred) -> str:
        if self.writes.get(p.reg, 0) != p.stamp:
            raise NotConverted(f"internal: the condition in {p.reg} was overwritten before its use")
        return p.reg

    def _once(self, key, make):
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def boolean(self, p: Pred) -> str:
        """A register holding 1 where *p* holds, else 0."""
        r = self._check(p)
        if p.kind == "nz" and p.bool:
            return r
        if p.kind == "nz":
            return self._once(p, lambda: self.emit("sltu", self.fresh("gpr"), self.isa.zero, r))
        if p.kind == "z":
            return self._once(p, lambda: self.emit("sltui", self.fresh("gpr"), r, Const(1)))
        flag = self._once(("gr", r, p.stamp), lambda: self.emit("movcf2gr", self.fresh("gpr"), r))
        if p.kind == "fcc":
            return flag
        return self._once(p, lambda: self.emit("xori", self.fresh("gpr"), flag, Const(1)))

    def mask(self, p: Pred) -> tuple[str, bool]:
        """(register, sense): *p* holds where the register is non-zero (sense) or zero."""
        r = self._check(p)
        if p.kind in ("nz", "z"):
            return r, p.kind == "nz"
        return self._once(("gr", r, p.stamp), lambda: self.emit("movcf2gr", self.fresh("gpr"), r)), p.kind == "fcc"

    def flag(self, p: Pred) -> tuple[str, bool]:
        """(flag register, sense) for fsel."""
        r = self._check(p)
        if p.kind in ("fcc", "nfcc"):
            return r, p.kind == "fcc"
        return self._once(("cf", p), lambda: self.emit("movgr2cf", self.fresh("fcc"), self.boolean(p))), True

    def both(self, p: Pred | None, q: Pred) -> Pred:
        """*p* and *q* (*p* None: true)."""
        if p is None:
            return q
        a, b = self.boolean(p), self.boolean(q.negated()) if q.kind in ("z", "nfcc") else self.boolean(q)
        op = "andn" if q.kind in ("z", "nfcc") else "and"
        t = self._once((op, a, b), lambda: self.emit(op, self.fresh("gpr"), a, b))
        return self.pred("nz", t, True)

    def any(self, ps: list[Pred]) -> Pred:
        if len(ps) == 1:
            return ps[0]
        acc = self.boolean(ps[0])
        for q in ps[1:]:
            acc = self.emit("or", self.fresh("gpr"), acc, self.boolean(q))
        return self.pred("nz", acc, True)

    def chooser(self, cls: str, p: Pred, what: str) -> tuple[str, bool]:
        """What a select on *p* reads: a flag (fsel) or a mask register, with its sense."""
        if cls == "fpr":
            return self.flag(p)
        if cls != "gpr":
            raise NotConverted(f"the condition flag {what} differs on the paths that join: there is no flag select")
        return self.mask(p)

    def select(self, cls: str, how: tuple[str, bool], yes: str, no: str, dest: str) -> None:
        """dest = (the chooser holds) ? yes : no."""
        c, sense = how
        if cls == "fpr":
            self.emit("fsel", dest, *((no, yes) if sense else (yes, no)), c)
            return
        keep, drop = ("maskeqz", "masknez") if sense else ("masknez", "maskeqz")
        t1 = self.emit(keep, self.fresh("gpr"), yes, c)
        t2 = self.emit(drop, self.fresh("gpr"), no, c)
        self.emit("or", dest, t1, t2)

    def stamped(self, regs) -> tuple:
        return tuple((r, self.writes.get(r, 0)) for r in regs)

    def guarded(self, p: Pred, mem: Mem) -> str:
        """A register holding the address of *mem* where *p* holds, the scratch area's otherwise."""
        regs = [t for t, c in mem.index.terms for _ in range(c)]
        if not all(r in self.isa.all or r in self.cls for r in regs) or not 1 <= len(regs) <= 2 or \
                (len(regs) == 2 and mem.index.const) or not -2048 <= mem.index.const <= 2047:
            raise NotConverted(f"the address [{mem.index}] of an access under a condition cannot be guarded")
        if not self.scratch:
            self.scratch = self.fresh("gpr")
            self.items.insert(0, Instr("addi.d", Reg(self.scratch), (Reg(self.isa.sp), Const(-SCRATCH))))
        c, sense = self.mask(p)
        keep, drop = ("maskeqz", "masknez") if sense else ("masknez", "maskeqz")

        def make() -> str:
            sp = self._once(("sp", c, sense), lambda: self.emit(drop, self.fresh("gpr"), self.scratch, c))
            a = regs[0]
            if len(regs) == 2:
                a = self.emit("add.d", self.fresh("gpr"), *regs)
            elif mem.index.const:
                a = self.emit("addi.d", self.fresh("gpr"), regs[0], Const(mem.index.const))
            t = self.emit(keep, self.fresh("gpr"), a, c)
            return self.emit("or", self.fresh("gpr"), t, sp)
        return self._once(("g", self.stamped(regs), mem.index.const, c, sense), make)

def merge(code: Code, isa: AsmIsa, label: str, always: bool, live: frozenset[str], incoming: list[str],
           ends: dict[str, dict[str, str]], edge) -> dict[str, str]:
    """The registers where *block* starts: a select for every live register whose value
    differs on the incoming edges (into the register itself where every iteration passes)."""
    mapping: dict[str, str] = {}
    if len(incoming) == 1:
        mapping = dict(ends[incoming[0]])
        if not always:
            return mapping
    plans = []
    for r in sorted(live):
        groups: dict[str, list[str]] = {}
        for src in incoming:
            groups.setdefault(ends[src].get(r, r), []).append(src)
        if len(groups) == 1:
            (v,) = groups
            if always and v != r:
                plans.append((r, isa.register_class(r), v, []))
            elif not always:
                mapping[r] = v
            continue
        default = r if r in groups else max(groups, key=lambda v: len(groups[v]))
        cls = isa.register_class(r)
        chain = [(v, code.chooser(cls, code.any([edge(s, label) for s in groups[v]]), r))
                 for v in groups if v != default]
        plans.append((r, cls, default, chain))
    if always:
        mapping = {}
    choosers = {c for _, _, _, chain in plans for _, (c, _) in chain}
    moves = []
    for r, cls, acc, chain in plans:
        if not chain:
            if cls == "fcc":
                raise NotConverted(f"the condition flag {r} would have to be copied where paths join")
            code.verbatim(isa.move(r, acc), [r])
            continue
        for k, (v, how) in enumerate(chain):
            last = k == len(chain) - 1
            dest = r if last and always and r not in choosers else code.fresh(cls)
            code.select(cls, how, v, acc, dest)
            acc = dest
        if always and acc != r:
            moves.append((r, acc))
        elif not always:
            mapping[r] = acc
    for r, v in moves:
        code.verbatim(isa.move(r, v), [r])
    return mapping


def condition(code: Code, isa: AsmIsa, term: Instr, mapping: dict[str, str]) -> Pred:
    """The condition under which *term* branches, read through *mapping*."""
    op = term.opcode
    regs = tuple(mapping.get(o.name, o.name) for o in term.operands if isinstance(o, Reg))
    if op in ("bcnez", "bceqz"):
        return code.pred("fcc" if op == "bcnez" else "nfcc", regs[0])
    if op in ("bnez", "beqz"):
        return code.pred("nz" if op == "bnez" else "z", regs[0])
    op, (a, b) = isa.branch_form(op, regs)
    z = isa.zero
    if op in ("beq", "bne"):
        if z in (a, b):
            x = b if a == z else a
        else:
            x = code._once(("xor", code.stamped(sorted((a, b)))), lambda: code.emit("xor", code.fresh("gpr"), a, b))
        return code.pred("z" if op == "beq" else "nz", x)
    if op in ("blt", "bge", "bltu", "bgeu"):
        slt = "sltu" if op.endswith("u") else "slt"
        t = code._once((slt, code.stamped((a, b))), lambda: code.emit(slt, code.fresh("gpr"), a, b))
        return code.pred("nz" if op in ("blt", "bltu") else "z", t, True)
    raise NotConverted(f"'{term.opcode}' (line {_line(term)}) is a branch if-conversion does not read")


def is_scratch(ins: Instr, isa: AsmIsa = LOONGARCH) -> bool:
    """``addi.d S, $sp, -64``: the address of the scratch bytes, the only use of ``$sp``
    an if-converted body adds."""
    return ins.opcode == "addi.d" and ins.operands == (Reg(isa.sp), Const(-SCRATCH))


def guarded_meaning(instrs: tuple[Instr, ...], isa: AsmIsa = LOONGARCH) -> dict[int, Instr]:
    """The guarded addresses of an if-converted body (module docstring), for the loop
    analysis: ``maskeqz T, A, c`` (or ``masknez``) is read as ``T = mov A`` and ``or G,
    T, SP`` right after it as ``G = mov T`` when ``SP`` is the other mask of ``c`` over
    ``S = addi.d S, $sp, -64`` and nothing in the body addresses the bytes below ``$sp``."""
    def last_def(reg: str, before: int) -> int | None:
        return next((k for k in range(before - 1, -1, -1) if reg in instrs[k].defs()), None)
    for ins in instrs:
        m = ins.mem_read or ins.mem_write
        if m is not None and isa.sp in m.index.regs() and m.index.const < 0:
            return {}
    out: dict[int, Instr] = {}
    pair = {"maskeqz": "masknez", "masknez": "maskeqz"}
    for n, ins in enumerate(instrs):
        if ins.opcode != "or" or n == 0 or ins.dest is None or len(ins.operands) != 2 \
                or not all(isinstance(o, Reg) for o in ins.operands):
            continue
        t = instrs[n - 1]
        names = [o.name for o in ins.operands]
        if t.opcode not in pair or t.dest is None or t.dest.name not in names or len(t.operands) != 2 \
                or not all(isinstance(o, Reg) for o in t.operands):
            continue
        a, c = t.operands[0].name, t.operands[1].name
        other = names[1] if names[0] == t.dest.name else names[0]
        k = last_def(other, n - 1)
        if a in (c, t.dest.name) or other == t.dest.name or k is None:
            continue
        d = instrs[k]
        if d.opcode != pair[t.opcode] or len(d.operands) != 2 or d.operands[1] != Reg(c) \
                or last_def(c, n - 1) != last_def(c, k) or not isinstance(d.operands[0], Reg):
            continue
        j = last_def(d.operands[0].name, k)
        if j is None or not is_scratch(instrs[j], isa):
            continue
        out[n - 1] = Instr("mov", t.dest, (Reg(a),))
        out[n] = Instr("mov", ins.dest, (t.dest,))
    return out

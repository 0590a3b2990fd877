"""If-conversion of a LoongArch assembly loop whose body has several blocks (an
``if`` the compiler did not turn into a select) into one predicated block, so that
the software pipeliner can modulo-schedule it (issue 19; the LLVM IR counterpart
is :mod:`schedcc.swp.llvm_ifconv`).

The loop is an acyclic region of at most :data:`MAX_BLOCKS` blocks from its header
to its single latch (triangles, diamonds, nested ones), exiting only from the
latch. Its blocks are laid out in one order that respects their edges, and:

* every block gets a **predicate**, a condition true in the iterations that run
  it: a block every iteration passes through has none; an edge of ``bcnez $fcc0``
  is ``$fcc0`` itself, of ``bnez $a5`` the register, of ``blt`` an ``slt``
  into a fresh register, of ``bne`` an ``xor``; below a conditional block, edges
  are ``and``/``andn`` of 0/1 values, a block entered by several edges the ``or``;
* an instruction of a block that does not always run writes a **fresh register**
  (one dead across the loop and not used in it), so the values of the other path
  survive; where paths join, a register live there and different on the incoming
  edges is **merged**: ``maskeqz``/``masknez`` + ``or`` for integers, ``fsel`` on a
  ``$fcc`` flag (``movgr2cf`` when the predicate is an integer) for floating point,
  into the register itself where every iteration passes, a fresh one otherwise;
* a **load or store** under a predicate goes through a guarded address: the real
  one when the predicate holds, else a scratch area, the 64 bytes below ``$sp``
  (no code of the function keeps anything there: the LoongArch ABI has no red
  zone): ``addi.d S, $sp, -64`` once, ``masknez SP, S, p`` once per predicate,
  then ``maskeqz T, A, p`` and ``or G, T, SP`` right before the access, which reads
  ``G, 0``. So it never touches memory the original would not have touched;
  the loop analysis reads ``G`` as ``A`` (:func:`guarded_meaning`): under a false
  predicate the access touches only the scratch area, which nothing else in the
  loop addresses, and its value is never used. A load of a location the same
  iteration reads or writes unconditionally (same base value, its bytes within
  that access's) is run unguarded. Stores are never made unconditional.
* integer divisions run as they are: LoongArch's ``div``/``mod`` do not trap (a
  zero divisor gives an unspecified value); floating-point instructions do not
  either (exceptions are off). Anything else that is not plain arithmetic (a
  ``break``, a barrier, an instruction schedcc does not know) under a predicate,
  a write to part of a register (``lu32i.d``), a flag live where paths join, a
  call, several back edges, an exit other than the latch's, or a loop whose
  blocks are not one piece of text is refused with the reason.

The block keeps the header's label line; the lines of the other blocks are
replaced by it, the latch's branch (inverted when the latch fell into the header)
and, when the exit does not follow, a jump to it. Every other line of the file
stays byte for byte. RISC-V is refused: RV64GC has no conditional-zero
instruction (``czero`` is the Zicond extension). The pipeliner keeps the text only
when the loop is then pipelined (:func:`schedcc.swp.asm_pipeline.pipeline_asm`).

Complexity: O(blocks^2 + instructions x accesses) per loop.

Example (``vif`` of TSVC, clang-16 -O2: ``if (b[i] > 0) a[i] = b[i]``)::

    >>> from schedcc.frontends import parse_source
    >>> text = '''vif:
    ...     b       .L3
    ... .L2:
    ...     addi.d  $a2, $a2, 8
    ...     addi.d  $a1, $a1, 8
    ...     addi.d  $a0, $a0, -1
    ...     beqz    $a0, .L5
    ... .L3:
    ...     fld.d   $fa1, $a2, 0
    ...     fcmp.cule.d     $fcc0, $fa1, $fa0
    ...     bcnez   $fcc0, .L2
    ...     fst.d   $fa1, $a1, 0
    ...     b       .L2
    ... .L5:
    ...     ret
    ... '''
    >>> print(if_convert_asm(parse_source(text, "vif.s"), "vif", ".L3").replace("\\t", " "))
    vif:
        b       .L3
    .L3:
     addi.d $t0, $sp, -64
        fld.d   $fa1, $a2, 0
        fcmp.cule.d     $fcc0, $fa1, $fa0
     movcf2gr $t1, $fcc0
     maskeqz $t0, $t0, $t1
     masknez $t1, $a1, $t1
     or $t1, $t1, $t0
     fst.d $fa1, $t1, 0
        addi.d  $a2, $a2, 8
        addi.d  $a1, $a1, 8
        addi.d  $a0, $a0, -1
     bnez $a0, .L3
    .L5:
        ret
    <BLANKLINE>
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from schedcc.frontends.source import Source
from schedcc.ir import Affine, Block, Const, Function, Instr, Label, Mem, Reg, Sym
from schedcc.swp.asm_isa import LOONGARCH, AsmIsa, isa_of
from schedcc.swp.asm_liveness import live_in
from schedcc.swp.cfg import back_edges

MAX_BLOCKS = 8
SCRATCH = 64          # bytes below $sp that guarded accesses touch under a false predicate
_SAFE = re.compile(r"(add|addi|addu16i|sub|mul|mulh|mulw|div|mod|slt|sltu|slti|sltui|and|or|xor|nor|andn|orn|andi"
                   r"|ori|xori|sll|srl|sra|rotr|slli|srli|srai|rotri|alsl|bytepick|bstrpick|ext|clo|clz|cto|ctz"
                   r"|revb|revh|bitrev|maskeqz|masknez|lu12i|lu52i|pcaddi|pcaddu12i|pcaddu18i|pcalau12i|move|li"
                   r"|movgr2fr|movfr2gr|movgr2cf|movcf2gr|movfr2cf|movcf2fr|nop)(\..*)?"
                   r"|f(?!ld|st|scaleb)[a-z]+(\..*)?")
_INVERSE = {**LOONGARCH.inverse, "bceqz": "bcnez", "bcnez": "bceqz"}


class NotConverted(Exception):
    """Why a loop body cannot be if-converted (a sentence)."""


@dataclass(frozen=True)
class _Pred:
    """A condition: ``true``; ``nz``/``z``: register non-zero / zero (``bool``: it
    holds 0 or 1); ``fcc``/``nfcc``: flag set / clear. ``stamp``: the register's
    write count when read, checked on every use."""

    kind: str
    reg: str = ""
    stamp: int = 0
    bool: bool = False

    def negated(self) -> "_Pred":
        flip = {"nz": "z", "z": "nz", "fcc": "nfcc", "nfcc": "fcc"}
        return _Pred(flip[self.kind], self.reg, self.stamp, self.bool)


def _falls(block: Block, isa: AsmIsa) -> bool:
    term = block.terminator
    return term is None or not (term.opcode in isa.jumps or isa.control(term, set()) == "indirect")


def _line(ins: Instr) -> str:
    return str(ins.loc.line) if ins.loc else "?"


@dataclass
class _Shape:
    """The loop's region: blocks in an order respecting edges, edges (target, how),
    the latch, the exit, the blocks every iteration runs, its text range."""

    order: list[Block]
    succ: dict[str, list[tuple[str, str]]]
    latches: list[Block]    # blocks that branch back to the header (several: the compiler copied the end)
    exit: str
    always: set[str]
    first: int       # line of the first block's label
    last: int        # line of the last block's last instruction
    after: str       # the label of the block after the region's text, or ""


def _shape(source: Source, func: Function, header: str, isa: AsmIsa) -> _Shape:
    blocks = list(func.blocks)
    index = {b.label: k for k, b in enumerate(blocks)}
    headers = {h.label for _, h, _ in back_edges(func, lambda b: _falls(b, isa))}
    if header not in headers:
        raise NotConverted(f"no loop has its header at '{header}'")
    body = _natural_loop(blocks, index, header, isa)
    inside = {b.label for b in body}
    inner = sorted(headers & inside - {header}, key=index.get)
    if inner:
        raise NotConverted(f"the loop holds the inner loop at '{inner[0]}'")
    if len(body) > MAX_BLOCKS:
        raise NotConverted(f"the body has {len(body)} blocks; if-conversion takes at most {MAX_BLOCKS}")
    succ: dict[str, list[tuple[str, str]]] = {}
    for b in body:
        out: list[tuple[str, str]] = []
        for ins in b.instrs:
            kind = isa.control(ins, set(index))
            if kind not in ("next", "branch", "jump"):
                raise NotConverted(f"'{ins.opcode}' (line {_line(ins)}) is a call, a return or a jump schedcc "
                                   "cannot follow")
            if kind in ("branch", "jump"):
                out.append((next(o.name for o in ins.operands if isinstance(o, Label)),
                            "jump" if kind == "jump" else "taken"))
        if _falls(b, isa) and index[b.label] + 1 < len(blocks):
            out.append((blocks[index[b.label] + 1].label, "fall"))
        succ[b.label] = out
    latches = [func.block(lab) for lab, out in succ.items() if any(t == header for t, _ in out)]
    exits = []
    for lab, out in succ.items():
        for t, _ in out:
            if t not in inside:
                if lab not in {b.label for b in latches}:
                    raise NotConverted(f"'{lab}' may leave the loop (to '{t}'): an early exit (a search loop) is "
                                       "not if-converted")
                exits.append(t)
    for latch in latches:
        if len(succ[latch.label]) != 2 or latch.terminator is None or latch.terminator.opcode not in _INVERSE \
                or not set(t for t, _ in succ[latch.label]) - {header}:
            raise NotConverted(f"the latch '{latch.label}' does not end in a conditional branch that either goes "
                               f"back to '{header}' or leaves the loop")
    if len(set(exits)) != 1:
        raise NotConverted(f"the loop leaves to {len(set(exits))} places ({', '.join(sorted(set(exits)))})")
    # An order that respects the edges, text order among the ready blocks.
    preds: dict[str, set[str]] = {lab: set() for lab in inside}
    for lab, out in succ.items():
        for t, _ in out:
            if t in inside and t != header:
                preds[t].add(lab)
    order: list[Block] = []
    done: set[str] = set()
    while len(order) < len(body):
        ready = [b for b in body if b.label not in done and preds[b.label] <= done]
        if not ready:
            raise NotConverted("the body has a cycle other than the loop itself")
        b = min(ready, key=lambda x: index[x.label])
        order.append(b)
        done.add(b.label)
    if order[0].label != header or (len(latches) == 1 and order[-1] is not latches[0]):
        raise NotConverted(f"the loop is not entered only at '{header}'")

    def reaches_end(avoid: str) -> bool:
        seen, todo = {header}, [header]
        while todo:
            for t, _ in succ[todo.pop()]:
                if t in inside and t != header and t != avoid and t not in seen:
                    seen.add(t)
                    todo.append(t)
        return any(b.label in seen for b in latches if b.label != avoid)
    always = {b.label for b in body if b.label == header or not reaches_end(b.label)}
    # The text: one piece, labels not used from outside, nothing but code and comments in it.
    ks = sorted(index[lab] for lab in inside)
    if ks != list(range(ks[0], ks[-1] + 1)):
        raise NotConverted("the loop's blocks are not one piece of text")
    first_block, last_block = blocks[ks[0]], blocks[ks[-1]]
    if "~" in first_block.label or first_block.loc is None or any(i.loc is None for b in body for i in b.instrs):
        raise NotConverted("the loop's text cannot be located")
    first, last = first_block.loc.line, last_block.instrs[-1].loc.line
    lines = source.text.split("\n")
    code = {i.loc.line for b in body for i in b.instrs}
    heads = {b.loc.line for b in body if "~" not in b.label}
    if len(code) != sum(len(b.instrs) for b in body) or heads & code:
        raise NotConverted("a line of the loop holds several instructions, or a label and an instruction")
    for n in range(first, last + 1):
        s = lines[n - 1].strip()
        if n in code or n in heads or not s or s.startswith("#") or re.match(r"\.p2align|\.align", s):
            continue
        raise NotConverted(f"line {n} ('{s[:40]}') inside the loop is neither code nor a comment")
    outside = "\n".join(lines[:first - 1] + lines[last:])
    for b in body:
        if b.label != header and "~" not in b.label \
                and re.search(rf"(?<![\w.$]){re.escape(b.label)}(?![\w.$])", outside):
            raise NotConverted(f"'{b.label}' is used from outside the loop")
    after = blocks[ks[-1] + 1].label if ks[-1] + 1 < len(blocks) else ""
    if after != exits[0] and "~" in exits[0]:
        raise NotConverted(f"the exit '{exits[0]}' has no label to jump to")
    return _Shape(order, succ, latches, exits[0], always, first, last, after)


def _natural_loop(blocks: list[Block], index: dict[str, int], header: str, isa: AsmIsa) -> list[Block]:
    """The blocks of the loop at *header*, over all its back edges (blocks the header
    dominates that jump back to it), in text order."""
    def succ(k: int) -> list[int]:
        out = [index[t] for t in blocks[k].successors() if t in index]
        return out + ([k + 1] if _falls(blocks[k], isa) and k + 1 < len(blocks) else [])
    h = index[header]
    seen, todo = {0}, [0]
    while todo:                     # reachable from the entry without passing the header
        for t in succ(todo.pop()):
            if t != h and t not in seen:
                seen.add(t)
                todo.append(t)
    pred: dict[int, list[int]] = {}
    for k in range(len(blocks)):
        for t in succ(k):
            pred.setdefault(t, []).append(k)
    body, todo = {h}, [k for k in pred.get(h, []) if k not in seen]
    while todo:
        k = todo.pop()
        if k not in body:
            body.add(k)
            todo += pred.get(k, [])
    return [blocks[k] for k in sorted(body)]


def _fmt(ins: Instr) -> str:
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


class _Code:
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
            for r in set(item.uses()):
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
            out.append(_fmt(_substitute(item, colour)))
        return out

    def pred(self, kind: str, reg: str, boolean: bool = False) -> _Pred:
        return _Pred(kind, reg, self.writes.get(reg, 0), boolean)

    def _check(self, p: _Pred) -> str:
        if self.writes.get(p.reg, 0) != p.stamp:
            raise NotConverted(f"internal: the condition in {p.reg} was overwritten before its use")
        return p.reg

    def _once(self, key, make):
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def boolean(self, p: _Pred) -> str:
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

    def mask(self, p: _Pred) -> tuple[str, bool]:
        """(register, sense): *p* holds where the register is non-zero (sense) or zero."""
        r = self._check(p)
        if p.kind in ("nz", "z"):
            return r, p.kind == "nz"
        return self._once(("gr", r, p.stamp), lambda: self.emit("movcf2gr", self.fresh("gpr"), r)), p.kind == "fcc"

    def flag(self, p: _Pred) -> tuple[str, bool]:
        """(flag register, sense) for fsel."""
        r = self._check(p)
        if p.kind in ("fcc", "nfcc"):
            return r, p.kind == "fcc"
        return self._once(("cf", p), lambda: self.emit("movgr2cf", self.fresh("fcc"), self.boolean(p))), True

    def both(self, p: _Pred | None, q: _Pred) -> _Pred:
        """*p* and *q* (*p* None: true)."""
        if p is None:
            return q
        a, b = self.boolean(p), self.boolean(q.negated()) if q.kind in ("z", "nfcc") else self.boolean(q)
        op = "andn" if q.kind in ("z", "nfcc") else "and"
        t = self._once((op, a, b), lambda: self.emit(op, self.fresh("gpr"), a, b))
        return self.pred("nz", t, True)

    def any(self, ps: list[_Pred]) -> _Pred:
        if len(ps) == 1:
            return ps[0]
        acc = self.boolean(ps[0])
        for q in ps[1:]:
            acc = self.emit("or", self.fresh("gpr"), acc, self.boolean(q))
        return self.pred("nz", acc, True)

    def chooser(self, cls: str, p: _Pred, what: str) -> tuple[str, bool]:
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

    def guarded(self, p: _Pred, mem: Mem) -> str:
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


def _substitute(ins: Instr, colour: dict[str, str]) -> Instr:
    def r(o):
        if isinstance(o, Reg):
            return Reg(colour.get(o.name, o.name))
        if isinstance(o, Mem):
            return Mem(o.array, Affine.of({colour.get(t, t): c for t, c in o.index.terms}, o.index.const))
        return o
    return Instr(ins.opcode, r(ins.dest) if ins.dest is not None else None, tuple(r(o) for o in ins.operands),
                 ins.attrs)


_BASE_FORM = {"ldx.": "ld.", "fldx.": "fld.", "ldptr.": "ld.", "stx.": "st.", "fstx.": "fst.", "stptr.": "st."}


def if_convert_asm(source: Source, function: str, header: str) -> str:
    """The whole text with the loop at block *header* of *function* made one block;
    :class:`NotConverted` with the reason. See the module docstring."""
    isa = isa_of(source)
    if isa is not LOONGARCH:
        raise NotConverted("RISC-V loops are not if-converted: RV64GC has no conditional-zero instruction to "
                           "select with (czero.eqz/czero.nez are the Zicond extension)")
    func = source.program.function(function)
    shape = _shape(source, func, header, isa)
    live = live_in(func, isa)
    region = [i for b in shape.order for i in b.instrs]
    for i in region:
        m = i.mem_read or i.mem_write
        if m is not None and isa.sp in m.index.regs() and m.index.const < 0:
            raise NotConverted(f"'{i.opcode}' (line {_line(i)}) addresses below $sp, where guarded accesses go")
    used = {r for i in region for r in i.uses() + i.defs()}
    code = _Code(isa, [r for r in isa.order if r not in live[header] and r not in used and r not in isa.reserved])
    spec = _speculable(shape, isa)
    latches = [b.label for b in shape.latches]
    ends: dict[str, dict[str, str]] = {}
    conds: dict[str, _Pred] = {}
    incoming: dict[str, list[str]] = {b.label: [] for b in shape.order}
    for b in shape.order:
        for t, _ in shape.succ[b.label]:
            if t in incoming and t != header and b.label not in incoming[t]:
                incoming[t].append(b.label)

    def pred_of(lab: str) -> _Pred | None:
        if lab in shape.always:
            return None
        return code._once(("block", lab), lambda: code.any([edge(src, lab) for src in incoming[lab]]))

    def edge(src: str, dst: str) -> _Pred:
        def make() -> _Pred:
            p, ways = pred_of(src), {how for t, how in shape.succ[src] if t == dst}
            if len({t for t, _ in shape.succ[src]}) == 1:
                if p is None:
                    raise NotConverted(f"internal: '{src}' always runs and has one successor, a join")
                return p
            c = conds[src] if "taken" in ways else conds[src].negated()
            return code.both(p, c)
        return code._once(("edge", src, dst), make)

    lines = source.text.split("\n")
    for b in shape.order:
        lab = b.label
        if lab == header:
            mapping: dict[str, str] = {}
        else:
            mapping = _merge(code, isa, lab, lab in shape.always, live[lab], incoming[lab], ends, edge)
        body = b.instrs[:-1] if b.terminator is not None else b.instrs
        if lab in shape.always:
            if mapping:
                raise NotConverted(f"internal: registers of '{lab}' are not in place")
            for ins in body:
                code.verbatim(lines[ins.loc.line - 1], ins.defs())
        else:
            for n, ins in enumerate(body):
                _speculate(code, isa, ins, mapping, (lab, n) in spec, lambda: pred_of(lab))
        ends[lab] = mapping
        term = b.terminator
        if term is not None and term.opcode in _INVERSE and (lab not in latches or len(latches) > 1):
            c = _condition(code, isa, term, mapping)   # a latch's: the condition to go on
            back = next(o.name for o in term.operands if isinstance(o, Label)) == header
            conds[lab] = c if lab not in latches or back else c.negated()
    if len(latches) == 1:
        back = shape.latches[0].terminator
        if next(o.name for o in back.operands if isinstance(o, Label)) == header:
            branch = [lines[back.loc.line - 1]]
        else:
            regs = [o.name for o in back.operands if isinstance(o, Reg)]
            branch = [f"\t{_INVERSE[back.opcode]}\t{', '.join(regs + [header])}"]
    else:   # the copies of the end join: registers in place, then their common test
        if len({conds[lab] for lab in latches}) != 1:
            raise NotConverted(f"the {len(latches)} copies of the loop's end ({', '.join(latches)}) do not test the "
                               "same value")
        c = conds[latches[0]]
        _merge(code, isa, "", True, live[header] | live[shape.exit], latches, ends, lambda s, _: pred_of(s))
        op = {"nz": "bnez", "z": "beqz", "fcc": "bcnez", "nfcc": "bceqz"}[c.kind]
        code.emit(op, None, code._check(c), Label(header))
        branch = []
    new = [lines[func.block(header).loc.line - 1]] + code.finish() + branch
    if shape.after != shape.exit:
        new.append(f"\t{isa.jumps[0]}\t{shape.exit}")
    return "\n".join(lines[:shape.first - 1] + new + lines[shape.last:])


def _merge(code: _Code, isa: AsmIsa, label: str, always: bool, live: frozenset[str], incoming: list[str],
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


def _condition(code: _Code, isa: AsmIsa, term: Instr, mapping: dict[str, str]) -> _Pred:
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


def _speculate(code: _Code, isa: AsmIsa, ins: Instr, mapping: dict[str, str], plain: bool, pred) -> None:
    """*ins*, of a block that does not always run, made safe to run in every iteration:
    its result in a fresh register (recorded in *mapping*)."""
    op = ins.opcode
    if ins.attr("tied"):
        raise NotConverted(f"'{op}' (line {_line(ins)}) writes part of a register under a condition")

    def ren(o):
        if isinstance(o, Reg):
            return Reg(mapping.get(o.name, o.name))
        if isinstance(o, Mem):
            return Mem(o.array, Affine.of({mapping.get(t, t): c for t, c in o.index.terms}, o.index.const))
        return o
    ops = tuple(ren(o) for o in ins.operands)
    memory = op in isa.loads or op in isa.stores
    if not memory and not _SAFE.fullmatch(op):
        raise NotConverted(f"'{op}' (line {_line(ins)}) runs only under a condition and schedcc does not know it is "
                           "safe to run in every iteration")
    if memory and not (plain and op in isa.loads):
        g = code.guarded(pred(), ops[0])
        for old, new in _BASE_FORM.items():
            op = op.replace(old, new) if op.startswith(old) else op
        ops = (Mem(None, Affine.of({g: 1})),) + ops[1:]
    dest = None
    if ins.dest is not None:
        if not memory:      # the same arithmetic on the same values already ran (on another path): reuse it
            key = ("same", op, code.stamped(r for o in ops if isinstance(o, Reg) for r in [o.name]),
                   tuple(str(o) for o in ops if not isinstance(o, Reg)))
            if key in code.memo:
                mapping[ins.dest.name] = code.memo[key]
                return
        dest = code.fresh(isa.register_class(ins.dest.name))
        mapping[ins.dest.name] = dest
        if not memory:
            code.memo[key] = dest
    code.emit(op, dest, *ops)


def _speculable(shape: _Shape, isa: AsmIsa) -> set[tuple[str, int]]:
    """Loads of blocks that do not always run whose bytes an access of a block that
    always runs touches, through the same base value: they may run unguarded."""
    flat = [(b.label, n, i) for b in shape.order for n, i in enumerate(b.instrs)]
    out: set[tuple[str, int]] = set()
    for k, (lab, n, ins) in enumerate(flat):
        if lab in shape.always or ins.opcode not in isa.loads:
            continue
        m, w = ins.mem_read, ins.attr("width", 8)
        for j, (lab2, _, other) in enumerate(flat):
            m2 = other.mem_read or other.mem_write
            if lab2 not in shape.always or m2 is None or m2.index.terms != m.index.terms:
                continue
            if not m2.index.const <= m.index.const and m.index.const + w <= m2.index.const + other.attr("width", 0):
                continue
            lo, hi = (j, k) if j < k else (k, j)
            if not any(r in m.index.regs() for _, _, x in flat[lo:hi] for r in x.defs()):
                out.add((lab, n))
                break
    return out


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
        if j is None or instrs[j].opcode != "addi.d" or instrs[j].operands != (Reg(isa.sp), Const(-SCRATCH)):
            continue
        out[n - 1] = Instr("mov", t.dest, (Reg(a),))
        out[n] = Instr("mov", ins.dest, (t.dest,))
    return out

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
     or $t0, $t1, $t0
     fst.d $fa1, $t0, 0
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
from schedcc.ir import Affine, Block, Function, Instr, Label, Mem, Reg
from schedcc.ir.nodes import rename_operand
from schedcc.swp.asm_isa import LOONGARCH, AsmIsa, isa_of
from schedcc.swp.asm_liveness import live_in
from schedcc.swp.asm_predicate import Code, NotConverted, Pred, condition, merge
from schedcc.swp.cfg import back_edges, flow_successors, natural_loop

MAX_BLOCKS = 8
_SAFE = re.compile(r"(add|addi|addu16i|sub|mul|mulh|mulw|div|mod|slt|sltu|slti|sltui|and|or|xor|nor|andn|orn|andi"
                   r"|ori|xori|sll|srl|sra|rotr|slli|srli|srai|rotri|alsl|bytepick|bstrpick|ext|clo|clz|cto|ctz"
                   r"|revb|revh|bitrev|maskeqz|masknez|lu12i|lu52i|pcaddi|pcaddu12i|pcaddu18i|pcalau12i|move|li"
                   r"|movgr2fr|movfr2gr|movgr2cf|movcf2gr|movfr2cf|movcf2fr|nop)(\..*)?"
                   r"|f(?!ld|st|scaleb)[a-z]+(\..*)?")
_INVERSE = {**LOONGARCH.inverse, "bceqz": "bcnez", "bcnez": "bceqz"}


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
    loop = natural_loop(flow_successors(blocks, lambda b: _falls(b, isa)), index[header])
    body = [blocks[n] for n in sorted(loop)]
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
                if lab == header and not any(u not in inside for b in latches for u, _ in succ[b.label]):
                    raise NotConverted(f"the loop leaves from its header '{lab}' (to '{t}'): a loop tested at its "
                                       "top whose body has several blocks is not if-converted")
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
    code = Code(isa, [r for r in isa.order if r not in live[header] and r not in used and r not in isa.reserved])
    spec = _speculable(shape, isa)
    latches = [b.label for b in shape.latches]
    ends: dict[str, dict[str, str]] = {}
    conds: dict[str, Pred] = {}
    finals: dict[str, tuple] = {}
    incoming: dict[str, list[str]] = {b.label: [] for b in shape.order}
    for b in shape.order:
        for t, _ in shape.succ[b.label]:
            if t in incoming and t != header and b.label not in incoming[t]:
                incoming[t].append(b.label)

    def pred_of(lab: str) -> Pred | None:
        if lab in shape.always:
            return None
        return code._once(("block", lab), lambda: code.any([edge(src, lab) for src in incoming[lab]]))

    def edge(src: str, dst: str) -> Pred:
        def make() -> Pred:
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
            mapping = merge(code, isa, lab, lab in shape.always, live[lab], incoming[lab], ends, edge)
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
        if term is not None and term.opcode in _INVERSE and lab not in latches:
            conds[lab] = condition(code, isa, term, mapping)
        elif lab in latches and len(latches) > 1:   # the test to write at the end: the latch's own, going back
            back = next(o.name for o in term.operands if isinstance(o, Label)) == header
            regs = tuple(mapping.get(o.name, o.name) for o in term.operands if isinstance(o, Reg))
            finals[lab] = (term.opcode if back else _INVERSE[term.opcode], regs, code.stamped(regs))
    if len(latches) == 1:
        back = shape.latches[0].terminator
        if next(o.name for o in back.operands if isinstance(o, Label)) == header:
            branch = [lines[back.loc.line - 1]]
        else:
            regs = [o.name for o in back.operands if isinstance(o, Reg)]
            branch = [f"\t{_INVERSE[back.opcode]}\t{', '.join(regs + [header])}"]
    else:   # the copies of the end join: registers in place, then their common test
        if len({finals[lab] for lab in latches}) != 1:
            raise NotConverted(f"the {len(latches)} copies of the loop's end ({', '.join(latches)}) do not test the "
                               "same value")
        merge(code, isa, "", True, live[header] | live[shape.exit], latches, ends, lambda s, _: pred_of(s))
        op, regs, stamps = finals[latches[0]]
        if code.stamped(regs) != stamps:
            raise NotConverted("internal: the loop test's registers were overwritten before the end")
        code.emit(op, None, *regs, Label(header))
        branch = []
    new = [lines[func.block(header).loc.line - 1]] + code.finish() + branch
    if shape.after != shape.exit:
        new.append(f"\t{isa.jumps[0]}\t{shape.exit}")
    return "\n".join(lines[:shape.first - 1] + new + lines[shape.last:])

def _speculate(code: Code, isa: AsmIsa, ins: Instr, mapping: dict[str, str], plain: bool, pred) -> None:
    """*ins*, of a block that does not always run, made safe to run in every iteration:
    its result in a fresh register (recorded in *mapping*)."""
    op = ins.opcode
    if ins.attr("tied"):
        raise NotConverted(f"'{op}' (line {_line(ins)}) writes part of a register under a condition")

    ops = tuple(rename_operand(o, mapping) for o in ins.operands)
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

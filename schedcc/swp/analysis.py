"""The one loop analysis: a front end's :class:`~schedcc.swp.view.Body` in, a
:class:`~schedcc.swp.view.LoopView` (or a :class:`Refusal`) out.

Values are evaluated symbolically as :class:`~schedcc.swp.view.Linear` functions
of the iteration number k, following the value flow the front end gives
(``reaching``), not register names or opcodes:

1. **Induction variables.** Every value read from the previous iteration is
   first taken as its entry value; evaluating the body once then gives, for
   each, the value the next iteration reads. A name whose next value is its
   entry value plus a constant c is an induction variable stepping by c: through
   any chain of copies, extensions and additions (``addi.d $a2, $a1, 1`` ...
   ``move $a1, $a2``).
2. **Values.** The body is evaluated again with every induction variable read
   as ``entry + step * k``; other values carried from earlier iterations are
   unknown. Addresses become ``base + stride * k + offset``.
3. **The exit test**: one operand of the compare is an induction variable plus
   a constant, the other a value the loop does not change; the comparison is
   normalised (induction side on the left, branch polarity folded in).

Memory dependences between two accesses follow from their addresses
(:func:`memory_distances`). Complexity: O(n) for n instructions.

Example::

    >>> from schedcc.ir import Block, Function, Instr, Reg, Const
    >>> from schedcc.swp.view import Body, mutable_reaching
    >>> ins = (Instr("add", Reg("t"), (Reg("i"), Const(1))), Instr("mov", Reg("i"), (Reg("t"),)),
    ...        Instr("lt", Reg("c"), (Reg("i"), Reg("n"))), Instr("br", None, (Reg("c"),)))
    >>> reaching, _ = mutable_reaching(ins)
    >>> f = Function("f", (), (Block("L", ins),))
    >>> view = analyse(Body(f, f.blocks[0], ins, reaching, 2, "lt", True, "c", "exit"))
    >>> view.iv, view.exit.op, view.exit.offset
    (Induction(reg='i', step=1, node=1), 'lt', 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.ir import Const, Instr, Mem, Reg
from schedcc.swp.view import NEGATED, SWAPPED, Access, Body, ExitTest, Induction, Linear, LoopView


@dataclass(frozen=True)
class Refusal:
    """Why :func:`analyse` cannot make a view; the front end words it in its language.
    ``kind``: ``no-iv`` (nothing is stepped by a constant), ``no-test`` (the exit test
    does not compare an induction variable with a value the loop does not change), ``eq``
    (the loop goes on while the two are equal), ``direction`` (the induction variable
    moves away from its bound)."""

    kind: str
    iv: Induction | None = None
    op: str = ""
    bound: object = None


def analyse(body: Body) -> LoopView | Refusal:
    """The loop view of *body*; see the module docstring. O(n)."""
    instrs = body.block.instrs
    ivs = inductions(body)
    if not ivs:
        return Refusal("no-iv")
    read = evaluate(body, ivs)
    carried = {r for (_, r), (_, d) in body.reaching.items() if d >= 1}
    defined = body.defined | carried
    cmp = instrs[body.compare]
    found = None
    for pos in (0, 1):
        x, bound = cmp.operands[pos], cmp.operands[1 - pos]
        if not isinstance(x, Reg) or not _invariant_operand(bound, defined):
            continue
        sx = read(body.compare, x)
        if sx is not None and len(sx.terms) == 1 and sx.terms[0][1] == 1:
            iv = ivs.get(sx.terms[0][0])
            if iv is not None and sx.step == iv.step:
                found = (pos, iv, sx.const, bound)
                break
    if found is None:
        return Refusal("no-test")
    pos, iv, offset, bound = found
    op = body.op if pos == 0 else SWAPPED[body.op]
    if not body.continue_on_true:
        op = NEGATED[op]
    if op == "eq":
        return Refusal("eq", iv, op, bound)
    if op in ("lt", "le", "gt", "ge") and (op in ("lt", "le")) != (iv.step > 0):
        return Refusal("direction", iv, op, bound)
    exit_test = ExitTest(body.compare, len(instrs) - 1, body.cond, op, offset, bound, 1 - pos,
                         unsigned=body.unsigned)
    accesses = {}
    for node, ins in enumerate(instrs):
        mem = ins.mem_read or ins.mem_write
        if mem is None:
            continue
        addr: Linear | None = Linear(const=mem.index.const)
        for r, coef in mem.index.terms:
            v = read(node, Reg(r))
            addr = addr.plus(v.scaled(coef)) if addr is not None and v is not None else None
        width = ins.attr("width", 1)
        accesses[node] = Access(node, mem.array, addr, width if isinstance(width, int) else 1,
                                ins.mem_write is not None, node in body.fixed)
    last_def: dict[str, int] = {}
    for node, ins in enumerate(instrs):
        for r in ins.defs():
            last_def[r] = node
    live_in = sorted({r for node, ins in enumerate(instrs) for r in ins.uses()
                      if body.reaching.get((node, r), (0, 1))[1] >= 1})
    return LoopView(body.function, body.block, iv, exit_test, body.exit_label, body.reaching, last_def,
                    accesses, ivs, live_in=tuple(live_in), live_out=body.live_out)


def _invariant_operand(op, defined: set[str]) -> bool:
    if isinstance(op, Const):
        return isinstance(op.value, int) and op.text != "null"
    return isinstance(op, Reg) and op.name not in defined


def inductions(body: Body) -> dict[str, Induction]:
    """Every induction variable of *body* by name (step 1 of the module docstring). O(n)."""
    first = _values(body, lambda name: Linear.of(name))
    out: dict[str, Induction] = {}
    for (_, name), (src, distance) in body.reaching.items():
        if distance != 1 or name in out:
            continue
        nxt = first[src]
        if nxt is not None and nxt.terms == ((name, 1),) and nxt.step == 0 and nxt.const:
            out[name] = Induction(name, nxt.const, src)
    return out


def evaluate(body: Body, ivs: dict[str, Induction]):
    """``read(node, operand)``: the :class:`Linear` value of *operand* where *node* reads
    it, or None (step 2 of the module docstring). O(n) once, O(1) per read."""
    values = _values(body, lambda name: Linear(((name, 1),), 0, ivs[name].step) if name in ivs else None)
    return lambda node, op: _read(body, values, node, op,
                                  lambda name: Linear(((name, 1),), 0, ivs[name].step) if name in ivs else None)


def _read(body: Body, values: list, node: int, op, carried):
    if isinstance(op, Const):
        return Linear(const=op.value) if isinstance(op.value, int) else None
    if not isinstance(op, Reg):
        return None
    src = body.reaching.get((node, op.name))
    if src is None:
        return Linear.of(op.name)          # from before the loop, the same in every iteration
    if src[1] == 0:
        return values[src[0]]
    return carried(op.name) if src[1] == 1 else None


def _values(body: Body, carried) -> list[Linear | None]:
    """The value each node's meaning defines (None: not affine), in one pass."""
    values: list[Linear | None] = [None] * len(body.meaning)
    for node, ins in enumerate(body.meaning):
        if ins.dest is None or any(isinstance(o, Mem) for o in ins.operands):
            continue
        ops = [_read(body, values, node, o, carried) for o in ins.operands]
        values[node] = _apply(ins, ops)
    return values


def _apply(ins: Instr, ops: list) -> Linear | None:
    op, n = ins.opcode, len(ops)
    if op == "select" and n == 3 and ops[1] is not None and ops[1] == ops[2]:
        return ops[1]   # both arms the same value (an if-converted phi of i+1 and i+1)
    if any(v is None for v in ops):
        return None
    if op in ("mov", "li") and n == 1:
        return ops[0]
    if op == "add" and n == 2:
        return ops[0].plus(ops[1])
    if op == "sub" and n == 2:
        return ops[0].plus(ops[1], -1)
    if op == "neg" and n == 1:
        return ops[0].scaled(-1)
    if op == "mul" and n == 2:
        k0, k1 = ops[0].constant, ops[1].constant
        return ops[1].scaled(k0) if k0 is not None else ops[0].scaled(k1) if k1 is not None else None
    if op == "shl" and n == 2:
        k = ops[1].constant
        return ops[0].scaled(1 << k) if k is not None and 0 <= k < 63 else None
    return None


def memory_distances(a: Access, b: Access) -> list[int] | None:
    """Iteration distances d >= 0 at which access *a* (iteration k) and *b* (iteration k+d)
    touch a common byte (element, in schedcc IR): a list ([] = never), or None when
    unknown. The widths count: ``st.d [$sp + 8]`` meets ``ld.w [$sp + 12]``. When they
    meet at several distances, only the two smallest are listed (a dependence at a larger
    distance is implied by one at a smaller)."""
    if (a.region is None) != (b.region is None):
        return None  # a pointer may point into any array
    if a.region != b.region:
        return []
    sa, sb = a.address, b.address
    if sa is None or sb is None or sa.terms != sb.terms:
        return None
    if sa.step != sb.step:
        return None  # different strides: they may meet once, somewhere
    # a covers [ca + s*k, ca + s*k + wa), b [cb + s*(k+d), ... + wb): they meet iff
    # diff - wb < s * d < diff + wa, diff = ca - cb
    stride, diff = sa.step, sa.const - sb.const
    low, high = diff - b.width, diff + a.width
    if stride == 0:
        return [0, 1] if low < 0 < high else []
    if stride < 0:
        stride, low, high = -stride, -high, -low
    first = max(0, low // stride + 1)
    last = -(-high // stride) - 1
    return list(range(first, min(last, first + 1) + 1))

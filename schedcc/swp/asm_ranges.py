"""Run-time checks that two pointer accesses of an assembly loop never meet, whatever
their strides (issue 19): the address ranges each one sweeps over the whole trip count
do not overlap.

Assembly has lost C's ``restrict``: a store ``fst.d [$a1]`` stepping by 16 and a load
``fld.d [$a2]`` stepping by 8 may point into the same array, so without more knowledge
every store is assumed to feed the next iteration's loads. When both bases step alike,
:class:`schedcc.swp.asm_loops.Check` asks that they be far enough apart; otherwise
(different strides, a loop-invariant address against a stepping one, a base plus an
index register) a :class:`RangeCheck` asks that the bytes access *a* touches in the
whole loop and those *b* touches be disjoint. With ``m = T - 1`` (T the trip count,
computed on entry from the induction variable and the bound), access *a* at
``A + ca + sa * k`` (k = 0 .. m, ``wa`` bytes) and *b* at ``B + cb + sb * k`` are apart
when, with ``D = B - A`` (the registers on entry):

* *b* lies above: ``D - P * m >= K1`` with ``P = max(0, sa) - min(0, sb)``,
  ``K1 = wa - (cb - ca)``;
* or *b* lies below: ``D + Q * m <= K2`` with ``Q = max(0, sb) - min(0, sa)``,
  ``K2 = -wb - (cb - ca)``.

The registers of ``D`` may be scaled (``a[j]``: 8 x an index register) and may be
``w:$a6``, the low 32 bits of ``$a6`` sign-extended (an ``int`` index,
:mod:`schedcc.swp.asm_loops`): each is built in a second register by ``addi.w`` and a
shift per set bit of its coefficient. P and Q are non-negative constants, so each side is one multiply (shifts, or shifts
and adds of ``m``'s numerator: an over-estimate of ``P * m`` when the divisor of the
trip count does not divide it exactly, which only makes the check stricter) and
one compare in the guard; pairs with the same ``D`` share one check (the largest P, Q,
K1 and the smallest K2: stricter than each). The guard first makes sure ``m`` is
non-negative and below 2^32, so that nothing in the arithmetic can wrap.

Example::

    >>> from schedcc.swp.view import Access, Linear
    >>> a = Access(0, None, Linear((("v:$a2", 1),), 0, 8), 8, False)
    >>> b = Access(3, None, Linear((("v:$a1", 1),), 0, 16), 8, True)
    >>> range_check(a, b)
    RangeCheck(nodes=(0, 3), terms=(('$a1', 1), ('$a2', -1)), p=8, q=16, k1=8, k2=-8)
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.ir import Const, Instr, Label, Reg
from schedcc.swp.asm_isa import LOONGARCH, AsmIsa
from schedcc.swp.view import Access, Linear, LoopView

MAX_CONST = 2047          # P, Q, K1 and K2 are 12-bit immediates


@dataclass(frozen=True)
class RangeCheck:
    """Accesses ``nodes`` never meet when ``D - p * m >= k1`` or ``D + q * m <= k2`` on
    entry, where ``D = sum(coef * register)`` over ``terms`` and ``m`` is the trip count
    less one (module docstring)."""

    nodes: tuple[int, int]
    terms: tuple[tuple[str, int], ...]
    p: int
    q: int
    k1: int
    k2: int


@dataclass(frozen=True)
class SignExtension:
    """``addi.w r, s, 0`` at ``node`` read as a copy of s (an ``int`` index, a second
    counter): exact only while s fits in 32 bits. s is ``sum(coef * register) + const +
    step * k`` in iteration k (``terms``: the registers on entry, or ``w:$a6``: its low
    32 bits sign-extended); the guard checks that its first and last values (k = 0 and
    k = m) fit, and so every value in between. *unsigned*: a zero extension
    (``bstrpick.d r, s, 31, 0``), exact while s lies in [0, 2^32)."""

    node: int
    terms: tuple[tuple[str, int], ...]
    const: int
    step: int
    unsigned: bool = False      # a zero extension (``bstrpick.d r, s, 31, 0``): s within [0, 2^32)


def entry_term(name: str, isa: AsmIsa = LOONGARCH) -> bool:
    """*name* is a value the guard can compute on entry: a register (``v:$a1``: its entry
    value) or ``w:$a6``, the low 32 bits of a register sign-extended (an ``int`` kept in a
    64-bit register whose upper half is not its sign: clang's ``j = -1`` as 0xffffffff)."""
    return isa.is_register(name[2:] if name.startswith("w:") else name)


def sign_extension(node: int, value: Linear | None, isa: AsmIsa = LOONGARCH,
                   unsigned: bool = False) -> SignExtension | None:
    """The check for a sign extension (*unsigned*: a zero extension) of *value*, or None
    when it cannot be written."""
    if value is None or max(abs(value.const), abs(value.step)) > MAX_CONST \
            or not all(abs(c) == 1 and entry_term(t, isa) for t, c in value.terms):
        return None
    entry = tuple(sorted(((t[2:] if t.startswith("v:") else t), c) for t, c in value.terms))
    return SignExtension(node, entry, value.const, value.step, unsigned)


def range_check(a: Access, b: Access, isa: AsmIsa = LOONGARCH) -> RangeCheck | None:
    """The check that accesses *a* and *b* (pointer references, addresses known as
    functions of the iteration) sweep disjoint bytes, or None when it cannot be written."""
    sa, sb = a.address, b.address
    if a.region is not None or b.region is not None or sa is None or sb is None:
        return None
    terms: dict[str, int] = {}
    for t, c in sb.terms:
        terms[t] = terms.get(t, 0) + c
    for t, c in sa.terms:
        terms[t] = terms.get(t, 0) - c
    terms = {t: c for t, c in terms.items() if c}
    if not all(abs(c) <= MAX_CONST and entry_term(t, isa) for t, c in terms.items()):
        return None
    c = sb.const - sa.const
    p, q = max(0, sa.step) - min(0, sb.step), max(0, sb.step) - min(0, sa.step)
    k1, k2 = a.width - c, -b.width - c
    if max(p, q, abs(k1), abs(k2)) > MAX_CONST:
        return None
    entry = tuple(sorted(((t[2:] if t.startswith("v:") else t), c) for t, c in terms.items()))
    return RangeCheck((a.node, b.node), entry, p, q, k1, k2)


def range_guard(isa: AsmIsa, loop: LoopView, checks: list[RangeCheck], orig: str, label: str,
                extends: list[SignExtension] = ()) -> list:
    """The guard's code for *checks* and *extends*: instructions (virtual registers
    ``swp.t``; ``swp.u`` for a multiply by a constant not a power of two) and labels
    (strings, named after *label*), every failing test branching to *orig*."""
    if not checks and not extends:
        return []
    ex, iv, trip = loop.exit, loop.iv, loop.trip
    x, bound = iv.reg[2:], str(ex.bound)
    # One register (t) where the factors are powers of two, a second (u) for a multiply only:
    # the guard runs where every live-in of the loop is live, and the loop may have few free.
    t, u = "swp.t", "swp.u"
    out: list = []

    def emit(op: str, dst: str | None, *ops) -> None:
        out.append(Instr(op, Reg(dst) if dst else None, tuple(Reg(o) if isinstance(o, str) else o for o in ops)))

    def addi(dst: str, src: str, value: int) -> None:
        if value or dst != src:
            emit(isa.addi, dst, src, Const(value))

    # m = T - 1 = V // divisor, V = (a - b) + c: what is left to the bound after the first test
    va, vb, vc = (bound, x, trip.extra - ex.offset + ex.bound_offset) if trip.up else \
        (x, bound, trip.extra + ex.offset - ex.bound_offset)
    d = trip.divisor

    def v(first: bool) -> None:          # t = V (first) or t += V
        if first:
            emit(isa.sub, t, va, vb)
        else:
            emit(isa.add, t, t, va)
            if vb != isa.zero:
                emit(isa.sub, t, t, vb)
        addi(t, t, vc)

    def times(k: int) -> None:          # t = k * m, or more (k = -1: m, checked >= 0)
        if k == 0:
            emit(isa.addi, t, isa.zero, Const(0))
            return
        if k > 1 and k & (k - 1) and (d == 1 or k % d == 0):
            # k * m <= (k / d) * V (equal when d = 1 or d divides V): shifts and adds of V, in t
            # alone (a multiply takes a second register, which a register-starved loop lacks)
            zeros = 0
            v(True)
            for bit in bin(k // d)[3:]:
                zeros += 1
                if bit == "1":
                    emit(isa.slli, t, t, Const(zeros))
                    zeros = 0
                    v(False)
            if zeros:
                emit(isa.slli, t, t, Const(zeros))
            return
        v(True)
        if k < 0:
            emit("blt", None, t, isa.zero, Label(orig))
        if d > 1 and not d & (d - 1):
            emit(isa.srli, t, t, Const(d.bit_length() - 1))
        elif d > 1:
            addi(u, isa.zero, d)
            emit(isa.divu, t, t, u)
        if k & (k - 1) == 0:
            if k > 1:
                emit(isa.slli, t, t, Const(k.bit_length() - 1))
        elif k > 0:
            addi(u, isa.zero, k)
            emit(isa.mul, t, t, u)

    def term(r: str, c: int) -> None:
        """t += c * r; r a register or ``w:`` one's low 32 bits sign-extended, built in u
        (shifted once per set bit of |c|: no multiply, no constant to load)."""
        plain, op = not r.startswith("w:"), isa.add if c > 0 else isa.sub
        for b in range(abs(c).bit_length()):
            if not abs(c) >> b & 1:
                continue
            if plain and not b:
                emit(op, t, t, r)
                continue
            if plain:
                emit(isa.slli, u, r, Const(b))
            else:
                emit(isa.sext, u, r[2:], Const(0))
                if b:
                    emit(isa.slli, u, u, Const(b))
            emit(op, t, t, u)

    def plus(terms: tuple[tuple[str, int], ...], const: int, sign: int) -> None:
        """t = sum(coef * register) + const + sign * t (in t alone when every coefficient
        is +-1 of a register)."""
        if any(abs(c) != 1 or r.startswith("w:") for r, c in terms):
            if sign < 0:
                emit(isa.sub, t, isa.zero, t)
            for r, c in terms:
                term(r, c)
        elif sign > 0:
            for r, c in terms:
                emit(isa.add if c > 0 else isa.sub, t, t, r)
        else:
            first = [r for r, c in terms if c > 0][:1]
            for r, c in terms:
                if c < 0:
                    emit(isa.add, t, t, r)
            emit(isa.sub, t, first[0] if first else isa.zero, t)
            for r, c in terms:
                if c > 0 and r not in first:
                    emit(isa.add, t, t, r)
        addi(t, t, const)

    def fits(unsigned: bool) -> None:
        if unsigned:                     # t must be its own low 32 bits zero-extended: t >> 32 is 0
            emit(isa.srli, t, t, Const(32))
            emit("bnez", None, t, Label(orig))
            return
        emit(isa.srai, t, t, Const(31))  # t must be its own low 32 bits sign-extended: t >> 31 is 0 or -1
        addi(t, t, 1)
        emit(isa.sltui, t, t, Const(2))
        emit("beqz", None, t, Label(orig))

    # 0 <= m < 2^32: nothing below can wrap
    times(-1)
    emit(isa.srli, t, t, Const(32))
    emit("bnez", None, t, Label(orig))
    # Sign extensions of the same registers stepping alike: the lowest and the highest value fit.
    spans: dict[tuple, list[int]] = {}
    for e in extends:
        spans.setdefault((e.terms, e.step, e.unsigned), []).append(e.const)
    for (terms, step, unsigned), consts in spans.items():
        first, last = (min(consts), max(consts)) if step >= 0 else (max(consts), min(consts))
        if any(c < 0 or r.startswith("w:") for r, c in terms):
            emit(isa.addi, t, isa.zero, Const(0))
            plus(terms, first, 1)
        else:                                        # t = the first value, without a zero to add to
            addi(t, terms[0][0] if terms else isa.zero, first)
            for r, _ in terms[1:]:
                emit(isa.add, t, t, r)
        fits(unsigned)
        if step:
            times(abs(step))
            plus(terms, last, 1 if step > 0 else -1)
            fits(unsigned)
    groups: dict[tuple, list[RangeCheck]] = {}
    for c in checks:
        groups.setdefault(c.terms, []).append(c)
    for n, (terms, group) in enumerate(groups.items()):
        p, q = max(c.p for c in group), max(c.q for c in group)
        k1, k2 = max(c.k1 for c in group), min(c.k2 for c in group)
        apart = f"{label}.apart{n}"
        times(p)                                   # b above a: D - p * m - k1 >= 0
        plus(terms, -k1, -1)
        emit("bge", None, t, isa.zero, Label(apart))
        times(q)                                   # else b below a: D + q * m - k2 <= 0
        plus(terms, -k2, 1)
        emit("blt", None, isa.zero, t, Label(orig))
        out.append(apart)
    return out

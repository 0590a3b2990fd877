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

P and Q are non-negative constants, so each side is one multiply (or shift) and one
compare in the guard; pairs with the same ``D`` share one check (the largest P, Q,
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
    step * k`` in iteration k (``terms``: the registers on entry); the guard checks that
    its first and last values (k = 0 and k = m) fit, and so every value in between."""

    node: int
    terms: tuple[tuple[str, int], ...]
    const: int
    step: int


def sign_extension(node: int, value: Linear | None, isa: AsmIsa = LOONGARCH) -> SignExtension | None:
    """The check for a sign extension of *value*, or None when it cannot be written."""
    if value is None or max(abs(value.const), abs(value.step)) > MAX_CONST \
            or not all(abs(c) == 1 and isa.is_register(t) for t, c in value.terms):
        return None
    entry = tuple(sorted(((t[2:] if t.startswith("v:") else t), c) for t, c in value.terms))
    return SignExtension(node, entry, value.const, value.step)


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
    if not all(abs(c) == 1 and isa.is_register(t) for t, c in terms.items()):
        return None
    c = sb.const - sa.const
    p, q = max(0, sa.step) - min(0, sb.step), max(0, sb.step) - min(0, sa.step)
    k1, k2 = a.width - c, -b.width - c
    if max(p, q, abs(k1), abs(k2)) > MAX_CONST:
        return None
    entry = tuple(sorted(((t[2:] if t.startswith("v:") else t), c) for t, c in terms.items()))
    return RangeCheck((a.node, b.node), entry, p, q, k1, k2)


def trip_span_ok(loop: LoopView) -> bool:
    """Whether ``m`` can be computed with a shift (the divisor of the trip count is a
    power of two)."""
    d = loop.trip.divisor
    return d > 0 and not d & (d - 1)


def range_guard(isa: AsmIsa, loop: LoopView, checks: list[RangeCheck], orig: str, label: str,
                extends: list[SignExtension] = ()) -> list:
    """The guard's code for *checks* and *extends*: instructions (virtual registers
    ``swp.t`` and ``swp.u``: ``m`` is computed again where needed) and labels (strings, named after *label*), every
    failing test branching to *orig*."""
    if not checks and not extends:
        return []
    ex, iv, trip = loop.exit, loop.iv, loop.trip
    x, bound = iv.reg[2:], str(ex.bound)
    t, u = "swp.t", "swp.u"            # two registers only: the guard runs where the loop's live-ins are live
    out: list = []

    def addi(dst: str, src: str, value: int) -> None:
        if value or dst != src:
            out.append(Instr(isa.addi, Reg(dst), (Reg(src), Const(value))))

    def m_into(r: str) -> None:
        # m = T - 1 = (span + extra) / divisor, span = what is left to the bound after the first test
        if trip.up:
            out.append(Instr(isa.sub, Reg(r), (Reg(bound), Reg(x))))
            addi(r, r, trip.extra - ex.offset + ex.bound_offset)
        else:
            out.append(Instr(isa.sub, Reg(r), (Reg(x), Reg(bound))))
            addi(r, r, trip.extra + ex.offset - ex.bound_offset)

    def shift(r: str) -> None:
        if trip.divisor > 1:
            out.append(Instr(isa.srli, Reg(r), (Reg(r), Const(trip.divisor.bit_length() - 1))))

    def times(k: int) -> None:          # t = k * m (u is lost)
        m_into(t)
        shift(t)
        if k & (k - 1) == 0:
            if k > 1:
                out.append(Instr(isa.slli, Reg(t), (Reg(t), Const(k.bit_length() - 1))))
        else:
            addi(u, isa.zero, k)
            out.append(Instr(isa.mul, Reg(t), (Reg(t), Reg(u))))

    def total(r: str, terms: tuple[tuple[str, int], ...], const: int = 0) -> None:   # r = sum(coef * register)
        plus = [name for name, c in terms if c > 0]
        minus = [name for name, c in terms if c < 0]
        if plus and minus:
            out.append(Instr(isa.sub, Reg(r), (Reg(plus[0]), Reg(minus[0]))))
            plus, minus = plus[1:], minus[1:]
        else:
            addi(r, plus.pop(0) if plus else isa.zero, const)
            const = 0
        for name in plus:
            out.append(Instr(isa.add, Reg(r), (Reg(r), Reg(name))))
        for name in minus:
            out.append(Instr(isa.sub, Reg(r), (Reg(r), Reg(name))))
        addi(r, r, const)

    def fits(r: str, scratch: str) -> None:      # r must be its own low 32 bits sign-extended
        out.append(Instr(isa.sext, Reg(scratch), (Reg(r), Const(0))))
        out.append(Instr("bne", None, (Reg(scratch), Reg(r), Label(orig))))

    # 0 <= m < 2^32: nothing below can wrap
    m_into(t)
    out.append(Instr("blt", None, (Reg(t), Reg(isa.zero), Label(orig))))
    shift(t)
    out.append(Instr(isa.srli, Reg(u), (Reg(t), Const(32))))
    out.append(Instr("bnez", None, (Reg(u), Label(orig))))
    for e in extends:
        total(t, e.terms, e.const)
        fits(t, u)
        if e.step:
            times(abs(e.step))
            total(u, e.terms, e.const)
            out.append(Instr(isa.add if e.step > 0 else isa.sub, Reg(u), (Reg(u), Reg(t))))
            fits(u, t)
    groups: dict[tuple, list[RangeCheck]] = {}
    for c in checks:
        groups.setdefault(c.terms, []).append(c)
    for n, (terms, group) in enumerate(groups.items()):
        p, q = max(c.p for c in group), max(c.q for c in group)
        k1, k2 = max(c.k1 for c in group), min(c.k2 for c in group)
        apart = f"{label}.apart{n}"
        # b above a: D - p * m - k1 >= 0
        if p:
            times(p)
            total(u, terms, -k1)
            out.append(Instr(isa.sub, Reg(u), (Reg(u), Reg(t))))
        else:
            total(u, terms, -k1)
        out.append(Instr("bge", None, (Reg(u), Reg(isa.zero), Label(apart))))
        # else b below a: D + q * m - k2 <= 0
        if q:
            times(q)
            total(u, terms, -k2)
            out.append(Instr(isa.add, Reg(u), (Reg(u), Reg(t))))
        else:
            total(u, terms, -k2)
        out.append(Instr("blt", None, (Reg(isa.zero), Reg(u), Label(orig))))
        out.append(apart)
    return out

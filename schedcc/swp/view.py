"""The loop view: what the software pipeliner knows of a loop, whatever language it came from.

Every front end (schedcc IR :mod:`schedcc.swp.loops`, LLVM IR
:mod:`schedcc.swp.llvm_loops`, LoongArch assembly :mod:`schedcc.swp.asm_loops`)
maps a single-block loop into a :class:`Body`: the instructions as the
scheduler sees them, what each means as integer arithmetic, where every value
read comes from (this iteration or d iterations back), and the exit compare.
One analysis (:func:`schedcc.swp.analysis.analyse`) turns a body into a
:class:`LoopView`; the dependence graph (:mod:`schedcc.swp.dependences`), the
modulo schedulers and the code generators read only the view. A front end for
another language writes a mapping into :class:`Body` and a code generator,
nothing else.

The classes are plain frozen data:

========================  ======================================================================
:class:`Linear`           an integer as an affine function of the iteration number k:
                          ``sum(coef * entry value of name) + const + step * k``
:class:`Induction`        a value stepped by a constant every iteration (through copies and
                          extensions: the analysis follows the values, not the opcodes)
:class:`ExitTest`         the loop goes on while ``iv + offset OP bound + bound_offset``
:class:`TripCount`        how many times the body runs, from the values on entry
:class:`Access`           a load or store: ``region`` and address ``base + stride * k + offset``
:class:`FoundLoop`        what a front end's loop search finds (``find_loops``): the base of the
                          next two, with ``function``, ``block``, ``name`` and ``pipelinable``
:class:`LoopView`         all of the above for one loop, and the value flow (``reaching``)
:class:`NotPipelined`     a loop left alone, with the reason (and a ``kind`` for statistics)
========================  ======================================================================

Example::

    >>> Linear((("i", 1),), 8, 1).at(3)
    ((('i', 1),), 11)
    >>> ExitTest(5, 6, "c", "lt", 1, Const(10), 1).trip_count(1)
    TripCount(up=True, extra=0, divisor=1, exact=False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar

from schedcc.ir import Block, Const, Function, Instr, Reg

COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}
NEGATED = {"lt": "ge", "le": "gt", "gt": "le", "ge": "lt", "eq": "ne", "ne": "eq"}
SYMBOL = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


@dataclass(frozen=True)
class Linear:
    """The value ``sum(coef * entry value of name) + const + step * k`` in iteration k
    (0 for the first). ``terms`` are sorted by name, without zero coefficients."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0
    step: int = 0

    @staticmethod
    def of(name: str) -> "Linear":
        """The entry value of *name*, the same in every iteration."""
        return Linear(((name, 1),))

    def plus(self, other: "Linear", sign: int = 1) -> "Linear":
        terms = dict(self.terms)
        for name, coef in other.terms:
            terms[name] = terms.get(name, 0) + sign * coef
        return Linear(tuple(sorted((n, c) for n, c in terms.items() if c)), self.const + sign * other.const,
                      self.step + sign * other.step)

    def scaled(self, k: int) -> "Linear":
        return Linear(tuple((n, c * k) for n, c in self.terms if c * k), self.const * k, self.step * k)

    @property
    def constant(self) -> int | None:
        """The value when it is the same integer in every iteration, else None."""
        return self.const if not self.terms and not self.step else None

    def at(self, k: int) -> tuple[tuple[tuple[str, int], ...], int]:
        """(terms, constant) of the value in iteration *k*."""
        return self.terms, self.const + self.step * k


@dataclass(frozen=True)
class Induction:
    """``reg`` holds ``entry + step * k`` at the top of iteration k; ``node`` computes the
    value the next iteration reads (the step itself, or a copy of it)."""

    reg: str
    step: int
    node: int


@dataclass(frozen=True)
class TripCount:
    """The body runs ``T = (span + extra) // divisor + 1`` times, where ``span`` is
    ``bound - first`` counting up (``first - bound`` down) and ``first`` the compared value
    in the first iteration (``iv + offset - bound_offset`` on entry): exact when the first
    test passes and, for ``!=`` (``exact``), when ``span`` is a non-negative multiple of
    ``divisor`` (a run-time remainder check; otherwise the loop would step over its bound)."""

    up: bool
    extra: int
    divisor: int
    exact: bool


@dataclass(frozen=True)
class ExitTest:
    """The loop goes on while ``x OP bound + bound_offset`` with ``x = iv + offset``
    (``iv`` at the top of the iteration; ``op`` normalised: the induction side on the
    left, the branch polarity folded in). ``compare`` computes the test (in assembly it
    may be the ``branch`` itself, ``cond`` then empty); ``bound_index`` is its operand
    holding the bound, which the code generators move for the kernel's test."""

    compare: int
    branch: int
    cond: str
    op: str
    offset: int
    bound: Reg | Const
    bound_index: int
    bound_offset: int = 0
    unsigned: bool = False

    def trip_count(self, step: int) -> TripCount:
        """The trip count's formula for an induction variable stepping by *step*."""
        a = abs(step)
        up = self.op in ("lt", "le") or (self.op == "ne" and step > 0)
        extra = {"lt": a - 1, "gt": a - 1, "le": a, "ge": a, "ne": 0}[self.op]
        return TripCount(up, extra, a, self.op == "ne" and a > 1)


@dataclass(frozen=True)
class Access:
    """A load or store of ``width`` bytes (elements, in schedcc IR) at ``base + stride * k
    + offset`` of ``region`` (a named object: an array, an alloca, a stack slot) or, when
    ``region`` is None, of whatever a pointer points to. ``address`` None: not analysable.
    ``fixed``: its address cannot be corrected by a code generator (an indexed load)."""

    node: int
    region: str | None
    address: Linear | None
    width: int
    write: bool
    fixed: bool = False

    @property
    def stride(self) -> int | None:
        return self.address.step if self.address is not None else None


@dataclass(frozen=True, repr=False)
class FoundLoop:
    """A loop a front end found (``find_loops``): its function and block (the loop's
    block, or its header when it spans several) and whether the pipeliner can take it
    (``pipelinable``: a :class:`LoopView`; otherwise a :class:`NotPipelined` with the
    reason). ``repr`` is one line."""

    function: Function
    block: Block
    pipelinable: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return f"{self.function.name}/{self.block.label}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class WrapsView:
    """What a front end's pipelinable loop (assembly's, LLVM IR's) shows of the
    :class:`LoopView` it wraps (``self.loop``): its name, function and block, and its repr
    under the front end's class name. A mixin, so those loops read as :class:`FoundLoop`s."""

    loop: "LoopView"
    pipelinable: ClassVar[bool] = True

    @property
    def name(self) -> str:
        return self.loop.name

    @property
    def function(self) -> Function:
        return self.loop.function

    @property
    def block(self) -> Block:
        return self.loop.block

    def __repr__(self) -> str:
        return f"<{type(self).__name__}" + repr(self.loop)[len("<LoopView"):]


@dataclass(frozen=True, repr=False)
class LoopView(FoundLoop):
    """A single-block loop the pipeliner can transform: its body (``block``, in the
    scheduler's view), the exit test's induction variable ``iv`` and every other
    one (``inductions``, by name), the exit test, the value flow (``reaching``: (node,
    name read) -> (defining node, distance): 0 within an iteration, d from d iterations
    back; absent: a value from before the loop), the last definition of every name
    (``last_def``), the memory accesses, pairs of accesses a run-time check before the
    loop proves apart (``disjoint``), and the values read from before the loop
    (``live_in``) and used after it (``live_out``)."""

    iv: Induction
    exit: ExitTest
    exit_label: str
    reaching: dict[tuple[int, str], tuple[int, int]]
    last_def: dict[str, int]
    accesses: dict[int, Access]
    inductions: dict[str, Induction]
    disjoint: frozenset[tuple[int, int]] = frozenset()
    live_in: tuple[str, ...] = ()
    live_out: tuple[str, ...] = ()
    pipelinable: ClassVar[bool] = True

    def __repr__(self) -> str:
        e, iv = self.exit, instr_text_name(self.iv.reg)
        x = iv + (f" {'+' if e.offset > 0 else '-'} {abs(e.offset)}" if e.offset else "")
        bound = instr_text_name(str(e.bound)) + (f" {'+' if e.bound_offset > 0 else '-'} {abs(e.bound_offset)}"
                                                 if e.bound_offset else "")
        return (f"<LoopView {self.name}: {len(self.block.instrs)} instrs, {iv} {'-' if self.iv.step < 0 else '+'}= "
                f"{abs(self.iv.step)} "
                f"while {x} {SYMBOL[e.op]} {bound}>")

    @property
    def trip(self) -> TripCount:
        return self.exit.trip_count(self.iv.step)

    def address_only_uses(self) -> set[tuple[int, int]]:
        """RAW edges (induction step node, user) along which the induction variable is read
        only inside memory addresses: the code generator may read a fresher copy of it
        there and correct the address by the steps in between."""
        out = set()
        for (node, reg), (src, _) in self.reaching.items():
            iv = self.inductions.get(reg)
            if iv is None or src != iv.node or node == src:
                continue
            access = self.accesses.get(node)
            if access is not None and access.fixed:
                continue
            ins = self.block.instrs[node]
            if any(isinstance(op, Reg) and op.name == reg for op in ins.operands):
                continue
            out.add((src, node))
        return out


@dataclass(frozen=True, repr=False)
class NotPipelined(FoundLoop):
    """A loop left alone, and why (student-readable). ``kind`` groups the reasons for
    statistics: ``multi-block``, ``call``, ``effects``, ``induction``, ``trip-count``,
    ``shape``, ``registers``, ``schedule``, ``no-gain``, ``other``."""

    reason: str
    kind: str = "other"

    def __repr__(self) -> str:
        return f"<NotPipelined {self.name} ({self.kind}): {short(self.reason)}>"


def short(text: str, limit: int = 80) -> str:
    """*text* on one line, cut to *limit* characters (for a ``repr``)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def instr_text_name(name: str) -> str:
    """A register as a report shows it (``v:$a0`` is ``$a0``)."""
    return name.replace("v:$", "$")


@dataclass(frozen=True)
class Body:
    """What a front end tells :func:`schedcc.swp.analysis.analyse` about one loop.

    ``block``: the instructions as the scheduler sees them, the loop branch last.
    ``meaning``: node by node, the same instruction in the IR's integer opcodes (``add
    sub mul shl neg mov``; ``opaque`` when its value is not an affine function of its
    operands; copies, zero and sign extensions are ``mov``), which the analysis
    evaluates. ``reaching``: as in :class:`LoopView`. ``compare``: the node computing the
    exit test, its first two operands the compared values, ``op`` its comparison as
    written (``lt le gt ge eq ne``), taken back into the loop when ``continue_on_true``.
    ``fixed``: accesses whose address a code generator cannot correct. ``name`` shows a
    value in a message (assembly: ``v:$a0`` is ``$a0``)."""

    function: Function
    block: Block
    meaning: tuple[Instr, ...]
    reaching: dict[tuple[int, str], tuple[int, int]]
    compare: int
    op: str
    continue_on_true: bool
    cond: str
    exit_label: str
    unsigned: bool = False
    fixed: frozenset[int] = frozenset()
    live_out: tuple[str, ...] = ()
    name: Callable[[str], str] = str

    @property
    def defined(self) -> set[str]:
        """Names written in the body."""
        return {r for ins in self.block.instrs for r in ins.defs()}


def mutable_reaching(instrs: tuple[Instr, ...]) -> tuple[dict[tuple[int, str], tuple[int, int]], dict[str, int]]:
    """``reaching`` and ``last_def`` of a body of mutable registers (schedcc IR, assembly):
    a register read before it is written in the body comes from its last definition
    in the previous iteration (distance 1). O(n)."""
    defs: dict[str, list[int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.defs():
            defs.setdefault(r, []).append(node)
    reaching: dict[tuple[int, str], tuple[int, int]] = {}
    for node, ins in enumerate(instrs):
        for r in ins.uses():
            nodes = defs.get(r)
            if nodes:
                before = [d for d in nodes if d < node]
                reaching[(node, r)] = (before[-1], 0) if before else (nodes[-1], 1)
    return reaching, {r: nodes[-1] for r, nodes in defs.items()}


def instr_text(instr: Instr) -> str:
    """An instruction of a loop as a report shows it: the assembly pipeliner's renamed
    registers (``v:$fa1``, :mod:`schedcc.swp.asm_loops`) under their own names."""
    return str(instr).replace("v:$", "$")

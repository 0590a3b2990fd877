"""An independent verifier for block schedules.

It shares no code with the DAG builder or the schedulers: it re-derives what
must hold from the program's meaning and the machine model.

* Registers: every read still sees the value it saw in program order, at
  least the producer's latency later (RAW); a write waits for the readers of
  the previous value (WAR) and for the previous write (WAW).
* Memory: accesses that may touch the same location (its own alias test,
  after the rules of ``docs/dag.md``, including the ``width`` attribute: an
  access covers ``width`` units from its constant; an array access marked
  ``private`` is out of reach of pointer references) keep their order and
  latency; calls and instructions with unknown side effects order all memory.
* The terminator issues last.
* Resources: at most ``issue_width`` issues per cycle; each instruction on a
  unit its class may use; no unit (or extra resource) busy twice at once.

Complexity O(n + m * (f + w)) for m memory accesses in f families (same
array or pointer base) of width at most w. The pairwise rule is
:func:`_conflict`; :func:`_check_memory` applies it without comparing all
pairs, and ``tests/test_scheduler.py`` checks both against each other.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> block = parse("a = load A[i]\\nb = a + 1\\n").functions[0].blocks[0]
    >>> verify(block, load_target("mips4"), {0: 0, 1: 1}, {0: "ALU", 1: "ALU"})
    Traceback (most recent call last):
    ...
    schedcc.verifier.problem.VerificationError: 'b = a + 1' at cycle 1 reads a before 'a = load A[i]' (cycle 0) has produced it: needs cycle >= 3 (RAW)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Mapping

from schedcc.ir import Block, Instr, Mem, has_no_effect
from schedcc.target import Target, load_target
from schedcc.verifier.problem import VerificationError


@dataclass(frozen=True)
class _Ref:
    index: int
    array: str | None          # None: pointer reference; "*": everything
    address: tuple             # ((reg, defining index, coef), ...), offset, width
    reads: bool
    writes: bool
    private: bool = False      # an array no pointer reference reaches ({private = true})


def _side_effects(instr: Instr) -> bool:
    if instr.opcode == "call":
        return True
    if instr.dest is not None or has_no_effect(instr.opcode) or instr.is_terminator:
        return False
    return not any(isinstance(op, Mem) for op in instr.operands)


def _conflict(a: _Ref, b: _Ref) -> bool:
    if not (a.writes or b.writes):
        return False
    if "*" in (a.array, b.array):
        return True
    if (a.array is None) != (b.array is None):
        return not (a.private or b.private)  # a pointer may point into any array but a private one
    if a.array != b.array:
        return False
    # the same array, or two pointer references: compare base values and ranges
    (regs_a, lo_a, width_a), (regs_b, lo_b, width_b) = a.address, b.address
    disjoint = lo_a + width_a <= lo_b or lo_b + width_b <= lo_a
    return not (regs_a == regs_b and disjoint)


class _Latest:
    """For a set of earlier accesses, the latest cycle each kind of later access
    must wait for, and which access sets it. A later access only ever needs the
    maximum over everything it conflicts with, so keeping maxima is exact."""

    __slots__ = ("raw", "waw", "war")

    def __init__(self) -> None:
        self.raw = self.waw = self.war = (-1 << 60, -1)

    def add(self, ref: _Ref, c: int, latency: int, tgt: Target) -> None:
        if ref.writes:
            self.raw = max(self.raw, (c + latency, ref.index))
            self.waw = max(self.waw, (c + tgt.waw_latency, ref.index))
        if ref.reads:
            self.war = max(self.war, (c + tgt.war_latency, ref.index))

    def demands(self, ref: _Ref):
        if ref.reads:
            yield self.raw + ("RAW",)
        if ref.writes:
            yield self.waw + ("WAW",)
            yield self.war + ("WAR",)


_WIDE = 64  # wider accesses are compared one by one instead of unit by unit


def _check_memory(refs: list[_Ref], cycle: Mapping[int, int], latency: list[int], tgt: Target, need) -> None:
    """Every pair that :func:`_conflict` says conflicts keeps its order and latency.

    Instead of comparing all pairs, keep the latest demands per set of accesses
    a later one conflicts with as a whole (barriers, all pointer references,
    all array accesses not marked private, each *family* of same-array same-base accesses) and,
    inside a family, per address unit, where only overlapping ranges conflict.
    O(m * families + m * width) for m accesses.
    """
    everything, barriers, pointers, arrays = _Latest(), _Latest(), _Latest(), _Latest()
    families: dict[tuple, _Latest] = {}
    units: dict[tuple, dict[int, _Latest]] = defaultdict(dict)
    members: dict[tuple, list[_Ref]] = defaultdict(list)
    wide: dict[tuple, list[_Ref]] = defaultdict(list)
    by_array: dict[str | None, list[tuple]] = defaultdict(list)

    def check(latest: _Latest, b: _Ref) -> None:
        for bound, a, hazard in latest.demands(b):
            if a >= 0 and cycle[b.index] < bound:
                need(a, b.index, bound - cycle[a], f"accesses memory ({hazard}) out of order with")

    def check_ref(b: _Ref) -> None:
        if b.array == "*":
            check(everything, b)
            return
        regs, lo, width = b.address
        fam = (b.array, regs)
        check(barriers, b)
        if b.array is None:
            check(arrays, b)          # the shared arrays: private ones are out of reach
        elif not b.private:
            check(pointers, b)
        for other in by_array[b.array]:
            if other != fam:
                check(families[other], b)
        if fam in families:
            if width > _WIDE:
                for a in members[fam]:
                    if _conflict(a, b):
                        check(_single(a, cycle, latency, tgt), b)
            else:
                for pos in range(lo, lo + width):
                    if pos in units[fam]:
                        check(units[fam][pos], b)
                for a in wide[fam]:
                    if _conflict(a, b):
                        check(_single(a, cycle, latency, tgt), b)

    def add_ref(b: _Ref) -> None:
        c = cycle[b.index]
        if b.array != "*":
            regs, lo, width = b.address
            fam = (b.array, regs)
            if fam not in families:
                families[fam] = _Latest()
                by_array[b.array].append(fam)
            families[fam].add(b, c, latency[b.index], tgt)
            members[fam].append(b)
            if width > _WIDE:
                wide[fam].append(b)
            else:
                for pos in range(lo, lo + width):
                    units[fam].setdefault(pos, _Latest()).add(b, c, latency[b.index], tgt)
            if b.array is None:
                pointers.add(b, c, latency[b.index], tgt)
            elif not b.private:
                arrays.add(b, c, latency[b.index], tgt)
        everything.add(b, c, latency[b.index], tgt)
        if b.array == "*":
            barriers.add(b, c, latency[b.index], tgt)

    # The accesses of one instruction (a copy reads and writes) are checked against the
    # earlier instructions' before any of them is recorded: never against each other.
    k = 0
    while k < len(refs):
        group = [refs[k]]
        while k + len(group) < len(refs) and refs[k + len(group)].index == refs[k].index:
            group.append(refs[k + len(group)])
        for b in group:
            check_ref(b)
        for b in group:
            add_ref(b)
        k += len(group)


def _single(a: _Ref, cycle: Mapping[int, int], latency: list[int], tgt: Target) -> _Latest:
    one = _Latest()
    one.add(a, cycle[a.index], latency[a.index], tgt)
    return one


def _width(instr: Instr) -> int:
    w = instr.attr("width", 1)
    return w if type(w) is int and w > 0 else 1


def verify(block: Block, target: Target | str, cycle: Mapping[int, int], unit: Mapping[int, str]) -> None:
    """Check the schedule (``cycle[i]``, ``unit[i]`` for instruction *i* of
    *block*); raise :class:`VerificationError` listing every violation."""
    tgt = load_target(target)
    instrs = block.instrs
    n = len(instrs)
    bad: list[str] = []
    missing = [i for i in range(n) if i not in cycle]
    if missing or len(cycle) != n:
        bad.append(f"the schedule covers {len(cycle)} of {n} instructions")
        raise VerificationError(bad)
    classes = [tgt.class_of(ins) for ins in instrs]
    costs = [cls.cost_of(ins) for cls, ins in zip(classes, instrs)]  # (latency, occupancy)
    latency = [c[0] for c in costs]

    def need(i: int, j: int, lat: int, what: str) -> None:
        if cycle[j] < cycle[i] + lat:
            bad.append(f"'{instrs[j]}' at cycle {cycle[j]} {what} '{instrs[i]}' (cycle {cycle[i]}) "
                       f"needs cycle >= {cycle[i] + lat}")

    # Registers: walk program order keeping the defining instruction of each value.
    defined_by: dict[str, int] = {}
    readers: dict[str, list[int]] = defaultdict(list)
    refs: list[_Ref] = []
    war, waw = tgt.war_latency, tgt.waw_latency
    for j, ins in enumerate(instrs):
        cj = cycle[j]
        mem = None
        for op in ins.operands:
            if isinstance(op, Mem):
                mem = op
                break
        if _side_effects(ins):
            refs.append(_Ref(j, "*", ((), 0, 1), True, True))
        elif mem is not None:
            source = ins.mem_copy_read  # llvm.memcpy: reads its second operand
            if source is not None:
                refs.append(_Ref(j, source.array, (tuple((r, defined_by.get(r, -1), c) for r, c in source.index.terms),
                                                   source.index.const, _width(ins)), True, False,
                                 source.array is not None and ins.attr("src_private") is True))
            address = (tuple((r, defined_by.get(r, -1), c) for r, c in mem.index.terms), mem.index.const,
                       _width(ins))
            reads = ins.dest is not None  # a destination: the memory operand is read, else written
            refs.append(_Ref(j, mem.array, address, reads, not reads,
                             mem.array is not None and ins.attr("private") is True))
        for r in ins.uses():
            i = defined_by.get(r)
            if i is not None:
                if cj < cycle[i] + latency[i]:
                    bad.append(f"'{ins}' at cycle {cj} reads {r} before '{instrs[i]}' "
                               f"(cycle {cycle[i]}) has produced it: needs cycle >= {cycle[i] + latency[i]} (RAW)")
            readers[r].append(j)
        if ins.dest is not None:
            r = ins.dest.name
            for k in readers[r]:
                if k != j and cj < cycle[k] + war:
                    need(k, j, war, f"overwrites {r} still to be read by (WAR)")
            i = defined_by.get(r)
            if i is not None and cj < cycle[i] + waw:
                need(i, j, waw, f"writes {r} out of order with (WAW)")
            defined_by[r] = j
            readers[r] = []

    _check_memory(refs, cycle, latency, tgt, need)

    # The terminator stays last.
    if n and instrs[-1].is_terminator:
        last = max(cycle.values())
        if cycle[n - 1] < last:
            bad.append(f"terminator '{instrs[-1]}' issues at cycle {cycle[n - 1]} before other instructions (cycle {last})")

    # Resources.
    per_cycle: dict[int, int] = defaultdict(int)
    busy: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for i, ins in enumerate(instrs):
        c = cycle[i]
        if c < 0:
            bad.append(f"'{ins}' has negative cycle {c}")
        per_cycle[c] += 1
        cls = classes[i]
        u = unit.get(i)
        if u not in cls.units:
            bad.append(f"'{ins}' runs on {u}, but its class '{cls.name}' may use only {', '.join(cls.units)}")
        busy[u if type(u) is str else str(u)].append((c, c + costs[i][1], i))
        for extra, cycles in cls.also:
            busy[extra].append((c, c + cycles, i))
    for c, count in sorted(per_cycle.items()):
        if count > tgt.issue_width:
            bad.append(f"cycle {c} issues {count} instructions; issue width is {tgt.issue_width}")
    for u, intervals in busy.items():
        intervals.sort()
        for (s1, e1, i1), (s2, e2, i2) in zip(intervals, intervals[1:]):
            if s2 < e1:
                bad.append(f"{u} is busy with '{instrs[i1]}' (cycles {s1}-{e1 - 1}) when '{instrs[i2]}' issues at {s2}")
    # Results written in issue order: nothing issued in a later cycle writes before what came earlier.
    if tgt.in_order_writeback:
        latest, who = -1, -1
        by_cycle: dict[int, list[int]] = defaultdict(list)
        for i in range(n):
            by_cycle[cycle[i]].append(i)
        for c, now in sorted(by_cycle.items()):
            for i in now:
                if c + latency[i] < latest:
                    bad.append(f"'{instrs[i]}' at cycle {c} writes its result at {c + latency[i]}, before "
                               f"'{instrs[who]}' issued earlier writes at {latest} (results are written in order)")
            for i in now:
                if c + latency[i] > latest:
                    latest, who = c + latency[i], i
    if bad:
        raise VerificationError(bad)

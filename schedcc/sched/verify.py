"""An independent verifier for block schedules.

It shares no code with the DAG builder or the schedulers: it re-derives what
must hold from the program's meaning and the machine model.

* Registers: every read still sees the value it saw in program order, at
  least the producer's latency later (RAW); a write waits for the readers of
  the previous value (WAR) and for the previous write (WAW).
* Memory: accesses that may touch the same location (its own alias test,
  after the rules of ``docs/dag.md``) keep their order and latency; calls and
  instructions with unknown side effects order all memory.
* The terminator issues last.
* Resources: at most ``issue_width`` issues per cycle; each instruction on a
  unit its class may use; no unit (or extra resource) busy twice at once.

Complexity O(n + e + sum over arrays of m^2) where m counts the accesses of
one array (or of all pointer references) in the block; the memory check
compares pairs, which is what makes it obviously right.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> block = parse("a = load A[i]\\nb = a + 1\\n").functions[0].blocks[0]
    >>> verify(block, load_target("mips4"), {0: 0, 1: 1}, {0: "ALU", 1: "ALU"})
    Traceback (most recent call last):
    ...
    schedcc.sched.verify.VerificationError: 'b = a + 1' at cycle 1 reads a before 'a = load A[i]' (cycle 0) has produced it: needs cycle >= 3 (RAW)
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Mapping

from ..ir import Block, Instr, Mem
from ..target import Target, load_target


class VerificationError(Exception):
    """The schedule breaks at least one constraint; ``violations`` lists them all."""

    def __init__(self, violations: list[str]):
        super().__init__(violations[0] if len(violations) == 1 else
                         f"{violations[0]} (and {len(violations) - 1} more)")
        self.violations = violations


@dataclass(frozen=True)
class _Ref:
    index: int
    array: str | None          # None: pointer reference; "*": everything
    address: tuple             # ((reg, defining index, coef), ...), offset
    reads: bool
    writes: bool


def _side_effects(instr: Instr) -> bool:
    if instr.opcode == "call":
        return True
    if instr.dest is not None or instr.opcode in ("nop", "br", "jmp", "ret"):
        return False
    return not any(isinstance(op, Mem) for op in instr.operands)


def _conflict(a: _Ref, b: _Ref) -> bool:
    if not (a.writes or b.writes):
        return False
    if "*" in (a.array, b.array):
        return True
    if (a.array is None) != (b.array is None):
        return True  # a pointer may point into any array
    if a.array != b.array:
        return False  # two different arrays (two pointer references share array None)
    return not (a.address[0] == b.address[0] and a.address[1] != b.address[1])


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
    latency = [tgt.class_of(ins).cost_of(ins)[0] for ins in instrs]

    def need(i: int, j: int, lat: int, what: str) -> None:
        if cycle[j] < cycle[i] + lat:
            bad.append(f"'{instrs[j]}' at cycle {cycle[j]} {what} '{instrs[i]}' (cycle {cycle[i]}) "
                       f"needs cycle >= {cycle[i] + lat}")

    # Registers: walk program order keeping the defining instruction of each value.
    defined_by: dict[str, int] = {}
    readers: dict[str, list[int]] = defaultdict(list)
    refs: list[_Ref] = []
    for j, ins in enumerate(instrs):
        mem = ins.mem_read or ins.mem_write
        if _side_effects(ins):
            refs.append(_Ref(j, "*", ((), 0), True, True))
        elif mem is not None:
            address = (tuple((r, defined_by.get(r, -1), c) for r, c in mem.index.terms), mem.index.const)
            refs.append(_Ref(j, mem.array, address, ins.mem_read is not None, ins.mem_write is not None))
        for r in ins.uses():
            if r in defined_by:
                i = defined_by[r]
                if cycle[j] < cycle[i] + latency[i]:
                    bad.append(f"'{ins}' at cycle {cycle[j]} reads {r} before '{instrs[i]}' "
                               f"(cycle {cycle[i]}) has produced it: needs cycle >= {cycle[i] + latency[i]} (RAW)")
            readers[r].append(j)
        if ins.dest is not None:
            r = ins.dest.name
            for k in readers[r]:
                if k != j:
                    need(k, j, tgt.war_latency, f"overwrites {r} still to be read by (WAR)")
            if r in defined_by:
                need(defined_by[r], j, tgt.waw_latency, f"writes {r} out of order with (WAW)")
            defined_by[r] = j
            readers[r] = []

    # Memory: compare every pair that can conflict.
    groups: dict[str | None, list[_Ref]] = defaultdict(list)
    for ref in refs:
        groups[ref.array].append(ref)
    ordered = sorted(refs, key=lambda r: r.index)
    for pos, b in enumerate(ordered):
        candidates = ordered[:pos] if b.array in ("*", None) else (
            [a for a in groups[b.array] if a.index < b.index]
            + [a for a in groups[None] if a.index < b.index]
            + [a for a in groups["*"] if a.index < b.index])
        for a in candidates:
            if _conflict(a, b) or "*" in (a.array, b.array):
                if a.writes and b.reads:
                    lat, hazard = latency[a.index], "RAW"
                elif a.reads and b.writes:
                    lat, hazard = tgt.war_latency, "WAR"
                else:
                    lat, hazard = tgt.waw_latency if a.writes and b.writes else 0, "WAW"
                need(a.index, b.index, lat, f"accesses memory ({hazard}) out of order with")

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
        cls = tgt.class_of(ins)
        u = unit.get(i)
        if u not in cls.units:
            bad.append(f"'{ins}' runs on {u}, but its class '{cls.name}' may use only {', '.join(cls.units)}")
        occupancy = cls.cost_of(ins)[1]
        busy[str(u)].append((c, c + occupancy, i))
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
    if bad:
        raise VerificationError(bad)

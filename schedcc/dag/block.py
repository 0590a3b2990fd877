"""Dependence analysis: one basic block -> its scheduling problem, a :class:`~schedcc.problem.SchedGraph`.

Node ``i`` is instruction ``i`` of the block; its :class:`~schedcc.problem.Op`
carries the instruction (``payload``), its class (``kind``), its result
latency on the target and the resources it needs (``units``, ``occupancy``,
``also``, from :class:`~schedcc.target.OpClass`), so that schedulers need
nothing but the graph.

A :class:`~schedcc.problem.Dep` has ``kind`` (``RAW``, ``WAR``, ``WAW``,
``MEM``, ``CTRL``), ``latency`` (the minimum distance in cycles between the
two issue times) and ``reason`` (the register or memory location that causes
it); a memory dependence says which hazard it is in ``detail`` (``RAW``,
``WAR`` or ``WAW`` through memory, or ``ORDER``). When two instructions
depend in more than one way the dependence keeps the largest latency.

Alias rules (documented in ``docs/dag.md``): different arrays never alias;
two accesses of the same array whose indices differ by a non-zero constant in
the same variables (the same *values* of them: a redefinition in between
counts) do not alias; pointer references with the same base register (value)
and different offsets do not alias; anything else may alias. An access covers
``width`` consecutive index units from its constant (the instruction's
``width`` attribute, default 1): with the same variable part, two accesses
alias exactly when these ranges overlap (``st.d [$sp + 0] {width = 8}`` and
``ld.w [$sp + 4] {width = 4}`` do; ``st.w [$sp + 0] {width = 4}`` and
``ld.d [$sp + 4] {width = 8}`` do not). An array access marked
``{private = true}`` (an object whose address never escapes) does not alias
pointer references. Calls and
instructions with unknown side effects are barriers; the terminator stays last.

Complexity: O(n + e) with e = O(n * HUGE_REGION): register dependences use
last-writer / readers-since tables, and memory dependences compare an access
only with the pending accesses of the regions it may alias. When a region
holds more than ``HUGE_REGION`` pending accesses it is flushed behind a
conservative barrier (as LLVM's ScheduleDAGInstrs does), so a 100,000-
instruction block never builds a quadratic edge set.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> block = parse("t0 = t1 + t2\\nt1 = t0 + t1\\n").functions[0].blocks[0]
    >>> dag = build_dag(block, load_target("mips4"))
    >>> [(d.src, d.dst, d.kind, d.latency) for d in dag.deps]
    [(0, 1, 'RAW', 3)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from schedcc._perf import paused_gc
from schedcc.errors import SchedccError
from schedcc.ir import Block, Instr, Mem, has_no_effect
from schedcc.problem import Dep, Op, SchedGraph
from schedcc.target import Target, load_target

HUGE_REGION = 64

# When two dependences join the same pair, the larger latency wins; on a tie
# the more informative kind is kept.
_KIND_RANK = {"RAW": 4, "MEM": 3, "WAW": 2, "WAR": 1, "CTRL": 0}

ALL_MEMORY = "*"  # region of calls and side-effecting instructions

# Ops and Deps are built here by the hundred thousand: from a tuple, without the
# NamedTuple's Python-level __new__. Fields added after these keep their defaults.
_OP_FIELDS = ("name", "units", "latency", "occupancy", "also", "kind", "kernel_end", "payload")
_DEP_FIELDS = ("src", "dst", "kind", "latency", "distance", "reason", "detail", "tag")
assert Op._fields[:8] == _OP_FIELDS and Dep._fields[:8] == _DEP_FIELDS, "update block_dependences"
_OP_TAIL = tuple(Op._field_defaults[f] for f in Op._fields[8:])
_DEP_TAIL = tuple(Dep._field_defaults[f] for f in Dep._fields[8:])


def has_unknown_side_effects(instr: Instr) -> bool:
    """Calls, and instructions that write no register yet are neither stores,
    terminators nor without effect (``nop``, ``llvm.dbg.value``): their effect is
    unknown, so they order memory."""
    if instr.is_call:
        return True
    return (instr.dest is None and not instr.is_terminator
            and not has_no_effect(instr.opcode) and instr.mem_write is None)


@dataclass(frozen=True)
class Access:
    """A memory access with its address in versioned form.

    ``region`` is the array name, ``None`` for pointer references, or
    :data:`ALL_MEMORY` for a barrier. ``key`` is (variable part, constant,
    width): the variable part names each register together with the
    instruction that defined its value (``-1`` for a value live into the
    block); the access covers ``width`` units from the constant. ``private``
    marks an array no pointer reference can reach (the instruction's
    ``private`` attribute: an LLVM ``alloca`` whose address never escapes).
    """

    node: int
    region: str | None
    key: tuple
    reads: bool
    writes: bool
    private: bool = False


def may_alias(a: Access, b: Access) -> bool:
    if a.region == ALL_MEMORY or b.region == ALL_MEMORY:
        return True
    if (a.region is None) != (b.region is None):
        return not (a.private or b.private)  # a pointer may point into any array but a private one
    if a.region != b.region:
        return False  # different arrays
    (sig_a, off_a, w_a), (sig_b, off_b, w_b) = a.key, b.key
    return sig_a != sig_b or (off_a < off_b + w_b and off_b < off_a + w_a)


def access_width(instr: Instr) -> int:
    """How many index units (bytes, for pointer references) the memory operand
    covers: the ``width`` attribute, 1 when absent or not a positive integer."""
    width = instr.attr("width", 1)
    return width if isinstance(width, int) and not isinstance(width, bool) and width > 0 else 1


def alias_class(acc: Access) -> tuple:
    """What :func:`may_alias` reads of an access besides its region: two pending
    accesses of one region with the same class alias exactly the same accesses,
    so one of them stands for all (its key, and whether it is private)."""
    return acc.key, acc.private


def covers(new: Access, old: Access) -> bool:
    """Whether *new* may alias every access that *old* may alias (same region assumed).

    A store ordered after *old* then stands in for it: anything later that must
    follow *old* follows *new*, hence *old*. True for exactly the same location,
    unless *new* is private and *old* is not: a pointer reference may reach the
    shared access and not the private one (``r0 = load B[i]``, ``store B[i], r3
    {private = true}``, ``store [p], r2``: the last store must still follow the load).
    """
    return new.key == old.key and (old.private or not new.private)


@dataclass
class _Region:
    """The pending accesses of one region, by :func:`alias_class`."""

    stores: dict[tuple, Access] = field(default_factory=dict)
    loads: dict[tuple, list[Access]] = field(default_factory=dict)
    count: int = 0


class DagBuilder:
    """Accumulates the dependences of one block; see :func:`build_dag`."""

    def __init__(self, target: Target):
        self.target = target
        self.edges: dict[tuple[int, int], tuple[int, str, str, str | None]] = {}
        self.latency: list[int] = []
        # registers
        self.last_def: dict[str, int] = {}
        self.readers: dict[str, list[int]] = {}
        # memory
        self.regions: dict[str | None, _Region] = {}
        self.barrier: Access | None = None

    # -- edges ------------------------------------------------------------------
    def add(self, src: int, dst: int, kind: str, latency: int, reason: str, mem: str | None = None) -> None:
        if src == dst:
            return
        key = (src, dst)
        old = self.edges.get(key)
        if old is None:
            self.edges[key] = (latency, kind, reason, mem)
        elif (latency, _KIND_RANK[kind]) > (old[0], _KIND_RANK[old[1]]):
            self.edges[key] = (latency, kind, reason, mem)

    # -- registers --------------------------------------------------------------
    def registers(self, node: int, instr: Instr) -> None:
        last_def, readers_of, add, edges = self.last_def, self.readers, self.add, self.edges
        for reg in instr.uses():
            producer = last_def.get(reg)
            if producer is not None:
                if (producer, node) in edges or producer == node:
                    add(producer, node, "RAW", self.latency[producer], reg)
                else:  # the common case of add(), inline
                    edges[(producer, node)] = (self.latency[producer], "RAW", reg, None)
            readers = readers_of.get(reg)
            if readers is None:
                readers_of[reg] = [node]
            else:
                readers.append(node)
        dest = instr.dest
        if dest is None:
            return
        reg = dest.name
        for reader in readers_of.get(reg, ()):
            add(reader, node, "WAR", self.target.war_latency, reg)
        previous = last_def.get(reg)
        # Kept even when a RAW + WAR path implies it: students look for
        # every WAW in the picture, and it costs well under one edge per write.
        if previous is not None:
            add(previous, node, "WAW", self.target.waw_latency, reg)
        last_def[reg] = node
        readers_of[reg] = []

    # -- memory -----------------------------------------------------------------
    def access_of(self, node: int, instr: Instr) -> Access | None:
        mem: Mem | None = None
        for op in instr.operands:
            if isinstance(op, Mem):
                mem = op
                break
        # has_unknown_side_effects, with the memory operand found once
        if instr.opcode == "call" or (mem is None and instr.dest is None and not instr.is_terminator
                                      and instr.opcode != "nop"):
            return Access(node, ALL_MEMORY, ((), 0, 1), True, True)
        if mem is None:
            return None
        # The address is computed from register values before this instruction writes.
        sig = tuple((reg, self.last_def.get(reg, -1), coef) for reg, coef in mem.index.terms)
        return Access(node, mem.array, (sig, mem.index.const, access_width(instr)),
                      reads=instr.mem_read is not None, writes=instr.mem_write is not None,
                      private=mem.array is not None and instr.attr("private") is True)

    def copy_source_of(self, node: int, instr: Instr) -> Access | None:
        """The read of an instruction that copies memory (``llvm.memcpy``): its second
        memory operand, as wide as the copy."""
        mem = instr.mem_copy_read
        if mem is None or has_unknown_side_effects(instr):
            return None
        sig = tuple((reg, self.last_def.get(reg, -1), coef) for reg, coef in mem.index.terms)
        return Access(node, mem.array, (sig, mem.index.const, access_width(instr)), reads=True, writes=False,
                      private=mem.array is not None and instr.attr("src_private") is True)

    def _order(self, first: Access, then: Access, text: str) -> None:
        latency = 0
        hazard = None
        if first.writes and then.reads:
            latency, hazard = self.latency[first.node], "RAW"
        if first.reads and then.writes and self.target.war_latency >= latency:
            latency, hazard = self.target.war_latency, hazard or "WAR"
        if first.writes and then.writes and self.target.waw_latency >= latency:
            latency, hazard = self.target.waw_latency, hazard or "WAW"
        self.add(first.node, then.node, "MEM", latency, text, hazard or "ORDER")

    def memory(self, acc: Access, text: str) -> None:
        if self.barrier is not None:
            self._order(self.barrier, acc, "barrier")
        if acc.region == ALL_MEMORY:
            self._flush(acc, text)
            return
        if acc.region is None:
            scan: Iterable[_Region] = list(self.regions.values())
        else:
            scan = [r for r in (self.regions.get(acc.region), self.regions.get(None)) if r is not None]
        scanned = 0
        for region in scan:
            scanned += region.count
            for other in region.stores.values():
                if may_alias(other, acc):
                    self._order(other, acc, text)
            if acc.writes:
                for loads in region.loads.values():  # one alias class each: the first stands for all
                    if loads and may_alias(loads[0], acc):
                        for other in loads:
                            self._order(other, acc, text)
        if scanned > HUGE_REGION:
            # Too many pending accesses: order everything before this one and
            # start afresh behind it. Conservative, and keeps the work linear.
            self._flush(acc, text)
            return
        region = self.regions.setdefault(acc.region, _Region())
        cls = alias_class(acc)
        if acc.writes:
            # A store supersedes the pending accesses it covers (just ordered
            # before it): whatever may alias them aliases it too. A private
            # store covers only the private accesses of its location.
            for old_cls in ((acc.key, True), (acc.key, False)):
                old = region.stores.get(old_cls)
                if old is not None and covers(acc, old):
                    del region.stores[old_cls]
                    region.count -= 1
                loads = region.loads.get(old_cls)
                if loads and covers(acc, loads[0]):
                    del region.loads[old_cls]
                    region.count -= len(loads)
            region.stores[cls] = acc
        else:
            region.loads.setdefault(cls, []).append(acc)
        region.count += 1

    def _flush(self, acc: Access, text: str) -> None:
        for region in self.regions.values():
            for other in region.stores.values():
                self._order(other, acc, text)
            for loads in region.loads.values():
                for other in loads:
                    self._order(other, acc, text)
        self.regions.clear()
        self.barrier = acc


def build_dag(block: Block, target: Target | str | None = None) -> SchedGraph:
    """Build the dependence DAG of *block* for *target* (default ``generic``).

    Returns its :class:`~schedcc.problem.SchedGraph` (see the module
    docstring; ``.to_networkx()`` gives a ``networkx.DiGraph``). Raises
    :class:`~schedcc.errors.SchedccError` if the target does not know an
    opcode. O(n + e), near-linear in n.
    """
    tgt = load_target(target if target is not None else "generic")
    if tgt.domain == "cluster":
        raise SchedccError(f"'{tgt.name}' is a cluster model: a training step's graph comes from "
                           "schedcc.training (schedcc train STEP.ir --target " + tgt.name + ")")
    with paused_gc():
        return _build(block, tgt)


def block_dependences(block: Block, target: Target) -> tuple[list[Op], list[Dep]]:
    """The operations and dependences of *block* on *target*, for builders of other
    graphs over the same instructions (the Ascend kernel graph, training ranks)."""
    builder = DagBuilder(target)
    ops: list[Op] = []
    new = tuple.__new__  # a NamedTuple built from a tuple, without its Python-level __new__
    latencies = builder.latency
    by_opcode: dict[str, tuple] = {}  # opcode -> (class, its cost when no instruction changes it)
    for node, instr in enumerate(block.instrs):
        known = by_opcode.get(instr.opcode)
        if known is None:
            cls = target.class_of(instr)
            known = by_opcode[instr.opcode] = (cls, cls.constant_cost)
        cls, cost = known
        latency, occupancy = cost if cost is not None else cls.cost_of(instr)
        latencies.append(latency)
        ops.append(new(Op, ("", cls.units, latency, occupancy, cls.also, cls.name, False, instr) + _OP_TAIL))
        acc = builder.access_of(node, instr)  # before registers: address uses old values
        src = builder.copy_source_of(node, instr)
        builder.registers(node, instr)
        if src is not None:
            builder.memory(src, str(instr.mem_copy_read))
        if acc is not None:
            mem = instr.mem_read or instr.mem_write
            builder.memory(acc, str(mem) if mem is not None else instr.opcode)
    term = len(block.instrs) - 1
    if block.instrs and block.instrs[-1].is_terminator:
        has_succ = {u for u, _ in builder.edges}
        for node in range(term):
            if node not in has_succ:
                builder.add(node, term, "CTRL", 0, "terminator")
    deps = [new(Dep, (u, v, kind, lat, 0, reason, mem or "", "") + _DEP_TAIL)
            for (u, v), (lat, kind, reason, mem) in builder.edges.items()]
    return ops, deps


def _build(block: Block, tgt: Target) -> SchedGraph:
    ops, deps = block_dependences(block, tgt)
    # Dependences only ever go from an earlier to a later instruction, so the
    # node order is a topological order; schedulers use that instead of sorting.
    return SchedGraph(tuple(ops), tuple(deps), tgt.machine, topological=True, source=block)


def edge_text(dag: SchedGraph, u: int, v: int) -> str:
    """A student-readable description of why *v* depends on *u*."""
    return dep_text(dag.dep(u, v))


def dep_text(d: Dep) -> str:
    """A student-readable description of one dependence."""
    kind = d.kind if d.kind != "MEM" else f"{d.detail or 'MEM'} through memory"
    return f"{kind} on {d.reason}, latency {d.latency}"

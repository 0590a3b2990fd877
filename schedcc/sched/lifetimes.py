"""Register pressure of a modulo schedule: lifetimes, MaxLive and modulo variable expansion.

A value is defined by a node and read along its ``RAW`` edges (a use of
distance d reads the value of d iterations earlier). Its *lifetime* runs from
the definition's issue to the last use's issue, ``max(cycle[v] + d * II) -
cycle[u]`` (at least 1 cycle). Folded onto the kernel's II rows, the values
alive in a row must all sit in different registers: **MaxLive** is the largest
count over the rows, a lower bound on registers.

Without rotating registers a value living longer than II would be overwritten
by the next iteration's definition before its last use. **Modulo variable
expansion** unrolls the kernel ``u = max ceil(lifetime / II)`` times and gives
every value ``q`` copies (the smallest divisor of u not below its own
``ceil(lifetime / II)``), used round-robin by successive iterations;
**registers** is the total number of copies.

O(n + e). Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> g = SchedGraph((Op("a", ("ALU",), 4), Op("b", ("ALU",), 1)), (Dep(0, 1, "RAW", 4),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> p = register_pressure(g, 2, {0: 0, 1: 4})
    >>> p.lifetime, p.live_per_row, p.unroll, p.copies, p.registers
    ({0: 4}, [2, 2], 2, {0: 2}, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping


from schedcc.problem import SchedGraph, as_graph
from schedcc.sched.mrt import writeback_conflicts

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads only where a networkx graph is passed in
    import networkx as nx


@dataclass(frozen=True)
class RegisterPressure:
    lifetime: dict[int, int]         # value (defining node) -> cycles
    live_per_row: list[int]          # values alive in each kernel row
    unroll: int                      # kernel unroll factor of modulo variable expansion
    copies: dict[int, int]           # registers per value after expansion

    @property
    def max_live(self) -> int:
        return max(self.live_per_row, default=0)

    @property
    def registers(self) -> int:
        return sum(self.copies.values())


def defines_value(graph: SchedGraph, n: int) -> bool:
    instr = graph.ops[n].payload
    if instr is not None and hasattr(instr, "dest"):
        return instr.dest is not None
    return any(d.kind == "RAW" for d in graph.succ[n])


def value_lifetime(graph: SchedGraph, ii: int, cycle: Mapping[int, int], n: int,
                   fresh_uses: frozenset = frozenset()) -> int:
    """Cycles the value defined by *n* stays alive (see the module docstring).

    A use along an edge in *fresh_uses* may read any later copy of the value
    (an induction variable in an address, corrected by the steps in between):
    it only needs the newest copy that is ready, which lives ``latency + II``."""
    ops = graph.ops
    lat = ops[n].latency
    ends = [cycle[n] + lat]
    has_use = False
    for d in graph.succ[n]:
        if d.kind != "RAW":
            continue
        has_use = True
        if (n, d.dst) in fresh_uses:
            ends.append(cycle[n] + max(lat, 1) + ii)
        else:
            # An operation that ends the kernel (the loop branch) comes after everything
            # else in its row, so it reads at the end of its cycle.
            ends.append(cycle[d.dst] + d.distance * ii + (1 if ops[d.dst].kernel_end else 0))
    end = max(ends[1:]) if has_use else ends[0]
    return max(end - cycle[n], 1)


def register_pressure(graph: SchedGraph | nx.DiGraph, ii: int, cycle: Mapping[int, int],
                      fresh_uses: frozenset = frozenset()) -> RegisterPressure:
    """Lifetimes, MaxLive and the modulo-variable-expansion register count; see the module
    docstring and :func:`value_lifetime` for *fresh_uses*."""
    graph = as_graph(graph)
    cycle = graph.by_node(cycle)
    lifetime = {n: value_lifetime(graph, ii, cycle, n, fresh_uses)
                for n in range(len(graph)) if defines_value(graph, n)}
    rows = [0] * ii
    for n, length in lifetime.items():
        full, extra = divmod(length, ii)
        if full:
            rows = [r + full for r in rows]
        for k in range(extra):
            rows[(cycle[n] + k) % ii] += 1
    need = {n: max(1, math.ceil(length / ii)) for n, length in lifetime.items()}
    unroll = max(need.values(), default=1)
    divisors = [q for q in range(1, unroll + 1) if unroll % q == 0]
    copies = {n: next(q for q in divisors if q >= k) for n, k in need.items()}
    return RegisterPressure(graph.by_key(lifetime), rows, unroll, graph.by_key(copies))


def stage_schedule(graph: SchedGraph, ii: int, cycle: Mapping[int, int], rounds: int = 8
                   ) -> tuple[dict[int, int], int]:
    """Shorten lifetimes by moving operations whole stages (Eichenberger and Davidson's
    *stage scheduling*): moving an operation by a multiple of II keeps its row, hence
    every resource, so only dependences limit the move. Each operation goes to the
    stage, within what its dependences allow, that minimises the lifetimes of the value
    it defines and of the values it reads; repeated until nothing moves.

    Returns (new cycles, number of moves). O(rounds * (n + e) * S) for S stages.
    """
    cyc = dict(cycle)
    values = {n for n in range(len(graph)) if defines_value(graph, n)}
    wb = graph.machine.in_order_writeback   # a move changes the order inside a row: keep write-back order
    moves = 0
    pred, succ = graph.pred, graph.succ

    def cost(n) -> int:
        total = value_lifetime(graph, ii, cyc, n) if n in values else 0
        for d in pred[n]:
            if d.kind == "RAW" and d.src in values and d.src != n:
                total += value_lifetime(graph, ii, cyc, d.src)
        return total

    for _ in range(rounds):
        changed = False
        for n in range(len(graph)):
            lo, hi = -10**9, 10**9
            t = cyc[n]
            for d in pred[n]:
                if d.src != n:
                    need = cyc[d.src] + d.latency - d.distance * ii - t
                    lo = max(lo, -((-need) // ii))
            for d in succ[n]:
                if d.dst != n:
                    room = cyc[d.dst] + d.distance * ii - d.latency - t
                    hi = min(hi, room // ii)
            lo, hi = max(lo, -4), min(hi, 4)
            if lo > hi:
                continue
            best_k, best = 0, cost(n)
            for k in range(lo, hi + 1):
                if k == 0:
                    continue
                if wb and writeback_conflicts(graph.ops, ii, {m: c for m, c in cyc.items() if m != n}, n, t + k * ii, first=True):
                    continue
                cyc[n] = t + k * ii
                c = cost(n)
                if c < best:
                    best_k, best = k, c
            cyc[n] = t + best_k * ii
            if best_k:
                moves += 1
                changed = True
        if not changed:
            break
    shift = -(min(cyc.values(), default=0) // ii) * ii
    return {n: c + shift for n, c in cyc.items()}, moves

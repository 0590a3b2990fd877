"""Rau's Iterative Modulo Scheduling (1994), one II at a time.

Operations go by decreasing height (the longest latency path to the end,
with ``latency - II * distance`` on loop-carried edges). Each is placed in the
first cycle of ``[Estart, Estart + II - 1]`` whose row of the modulo
reservation table has a free unit; when none has, it is forced in and the
operations in its way (resource conflicts, and successors whose dependence
it breaks) are evicted to be scheduled again. A budget of ``budget_ratio * n``
placements; when it runs out, the caller tries the next II.

On a machine that writes results in issue order (``Machine.in_order_writeback``,
llvm-mca's in-order pipeline) a later instruction waits until its result comes
no earlier than every result before it: the kernel would stall at every short
operation after a long one. So a slot is free only when the kernel's issue
stream stays in write-back order (:func:`~schedcc.sched.mrt.writeback_conflicts`): for operations i
before j in a pass (by row, then older iteration, then program order, as the
code generators write them), ``0 <= (row_j + lat_j) - (row_i + lat_i) <= II``;
the upper bound is j against i of the next pass. Operations in the way are
evicted like resource conflicts.

With ``late`` (the second try of :func:`~schedcc.sched.modulo.modulo_schedule`
at the MII where the first ran out of budget) a free slot counts only up to the
node's latest start, ``min(t(s) - latency + II * distance)`` over its placed
successors s; without one there, the node is forced in at its earliest start
as above. Rau's window alone takes a free slot past that bound and evicts the
successor, which on a recurrence with no slack (II = RecMII) pushes the whole
cycle round and round until the budget runs out (TSVC s161, s3113 and s331 at
-O2: IMS fails at the MII, this finds it).

O(B * (II * u + e/n)) for a budget of B placements and u units per operation.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> from schedcc.sched.modulo import Attempt
    >>> from schedcc.sched.mrt import LoopStructure
    >>> g = SchedGraph((Op("a", ("ALU",), 2), Op("b", ("ALU",), 1)), (Dep(0, 1, "RAW", 2),),
    ...                Machine("toy", 1, ("ALU",)))
    >>> ims(LoopStructure(g), 2, 1, {}, 6, Attempt(2, ""))
    ({0: 0, 1: 3}, {0: 'ALU', 1: 'ALU'})
"""

from __future__ import annotations

import heapq

from schedcc.sched.mrt import MRT, LoopStructure, longest_paths, slots, writeback_conflicts


def ims(st: LoopStructure, ii: int, width: int, caps: dict, budget_ratio: float, attempt,
        order: list | None = None, jitter: list[float] | None = None, late: bool = False):
    """(cycle, unit) per node at *ii*, or None (``attempt.outcome`` says why). *order*
    replaces the height order; *jitter* (below 1 per node) reorders nodes of equal height
    (the restarts of :func:`schedcc.sched.modulo.modulo_schedule`). With *late* a free
    slot is looked for only up to the node's latest start before its placed successors
    (the module docstring)."""
    ops = st.graph.ops
    n_ops = len(ops)
    if order is None:
        height = longest_paths(st, ii, reverse=False)
        if jitter is None:
            key = [(-height[n], n) for n in range(n_ops)]
        else:
            key = [(-(height[n] + jitter[n]), n) for n in range(n_ops)]
    else:
        key = [None] * n_ops
        for k, n in enumerate(order):
            key[n] = (k,)
    heap = [(key[n], n) for n in range(n_ops)]
    heapq.heapify(heap)
    mrt = MRT(ii, width, caps, ops)
    time: dict = {}
    unit: dict = {}
    last: dict = {}
    budget = max(int(budget_ratio * n_ops), n_ops)
    preds, succs = st.tight_preds, st.tight_succs  # the implied dependences hold through the others
    free_unit = mrt.free_unit
    fits: set = set()
    wb = st.graph.machine.in_order_writeback
    while heap:
        if attempt.placements >= budget:
            attempt.outcome = f"budget of {budget} placements exhausted"
            return None
        _, n = heapq.heappop(heap)
        if n in time:
            continue
        estart = 0
        for p, lat, dist in preds[n]:
            if p in time and time[p] + lat - ii * dist > estart:
                estart = time[p] + lat - ii * dist
        if n not in fits:
            if mrt.best_unit(n, 0) is None:  # too long for II on every unit, whatever is evicted
                attempt.outcome = f"operation {n} cannot fit in II {ii}"
                return None
            fits.add(n)
        chosen = None
        hi = estart + ii - 1
        if late:
            for s, lat, dist in succs[n]:
                if s in time and time[s] - lat + ii * dist < hi:
                    hi = time[s] - lat + ii * dist
        for t in slots(n, estart, hi, ii, ops):
            u = free_unit(n, t)
            if u is not None and not (wb and writeback_conflicts(ops, ii, time, n, t, first=True)):
                chosen = (t, u, ())
                break
        if chosen is None:
            t = estart if n not in last or estart > last[n] else last[n] + 1
            t = next(iter(slots(n, t, t + ii - 1, ii, ops)))
            u, victims = mrt.best_unit(n, t)
            if wb:
                victims = tuple(dict.fromkeys([*victims, *writeback_conflicts(ops, ii, time, n, t)]))
            chosen = (t, u, victims)
        t, u, victims = chosen
        for v in victims:
            mrt.remove(v, time[v], unit[v])
            del time[v], unit[v]
            heapq.heappush(heap, (key[v], v))
            attempt.evictions += 1
        mrt.place(n, t, u)
        time[n], unit[n], last[n] = t, u, t
        attempt.placements += 1
        for s, lat, dist in succs[n]:
            if s in time and time[s] < t + lat - ii * dist:
                mrt.remove(s, time[s], unit[s])
                del time[s], unit[s]
                heapq.heappush(heap, (key[s], s))
                attempt.evictions += 1
    return time, unit

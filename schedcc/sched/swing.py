"""Llosa's Swing Modulo Scheduling (1996), one II at a time.

Recurrences first (the most constraining first), then the rest; within each
set the order alternates bottom-up and top-down sweeps so that every
operation is placed next to its already-placed neighbours (as early as
possible after its predecessors, as late as possible before its successors),
which keeps lifetimes, hence registers, short. No eviction: when an operation
finds no slot between its neighbours, iterative modulo scheduling
(:mod:`schedcc.sched.ims`) repairs the attempt at the same II.

O(n * II * u + e) per II for u units per operation.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> from schedcc.sched.mrt import LoopStructure
    >>> g = SchedGraph((Op("a", ("ALU",), 2), Op("b", ("ALU",), 1), Op("c", ("ALU",), 1)),
    ...                (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 1)), Machine("toy", 1, ("ALU",)))
    >>> swing_order(LoopStructure(g), 3)
    [2, 1, 0]
"""

from __future__ import annotations

from schedcc.sched.ims import ims
from schedcc.sched.mrt import MRT, LoopStructure, longest_paths, slots


def swing_order(st: LoopStructure, ii: int) -> list[int]:
    """Llosa's ordering: recurrences (most constraining first), then the rest; within each
    set alternate bottom-up and top-down sweeps so that a node follows its neighbours."""
    n_ops = len(st.graph.ops)
    asap = longest_paths(st, ii, reverse=True)
    height = longest_paths(st, ii, reverse=False)
    horizon = max((asap[n] + height[n] for n in range(n_ops)), default=0)
    mobility = [horizon - height[n] - asap[n] for n in range(n_ops)]
    sets = []
    for lat, dist, comp in st.recurrences:
        if len(comp) == 1 and lat / dist * 2 <= ii:
            continue  # a slack one-node recurrence (an induction variable) constrains nothing
        sets.append((-(lat / dist), min(comp), set(comp)))
    sets.sort(key=lambda s: (s[0], s[1]))
    ordered = [s[2] for s in sets]
    in_sets = set().union(*ordered) if ordered else set()
    rest = {n for n in range(n_ops) if n not in in_sets}
    if rest:
        ordered.append(rest)
    order: list[int] = []
    placed: set = set()
    preds0, succs0 = st.preds0.__getitem__, st.succs0.__getitem__

    for group in ordered:
        todo = set(group)
        r = {p for n in placed for p in preds0(n) if p in todo}
        direction = "up"
        if not r:
            r = {s for n in placed for s in succs0(n) if s in todo}
            direction = "down"
        if not r:
            r = {max(todo, key=lambda n: (asap[n], -n))}
            direction = "up"
        while todo:
            while r:
                if direction == "down":
                    v = max(r, key=lambda n: (height[n], -mobility[n], -n))
                    nxt = succs0(v)
                else:
                    v = max(r, key=lambda n: (asap[n], -mobility[n], -n))
                    nxt = preds0(v)
                r.discard(v)
                todo.discard(v)
                placed.add(v)
                order.append(v)
                r |= {m for m in nxt if m in todo}
            if direction == "down":
                direction, r = "up", {p for n in placed for p in preds0(n) if p in todo}
            else:
                direction, r = "down", {s for n in placed for s in succs0(n) if s in todo}
            if not r and todo:
                r = {max(todo, key=lambda n: (asap[n], -n))}
                direction = "up"
    return order


def swing(st: LoopStructure, ii: int, width: int, caps: dict, budget_ratio: float, attempt):
    """Swing placement; when an operation finds no slot between its placed neighbours,
    try IMS (with eviction) at the same II before giving the II up."""
    placed = _swing_place(st, ii, width, caps, attempt)
    if placed is not None:
        return placed
    failure = attempt.outcome
    repair = type(attempt)(ii, "")
    # Height order, not swing order: with eviction, placing predecessors first keeps the
    # cascades of evicted successors short (swing order can evict without end on dense graphs).
    found = ims(st, ii, width, caps, budget_ratio, repair)
    attempt.placements += repair.placements
    attempt.evictions += repair.evictions
    attempt.outcome = f"swing placement failed ({failure}); repaired by iterative modulo scheduling: " + \
        (repair.outcome or "scheduled")
    return found


def _swing_place(st: LoopStructure, ii: int, width: int, caps: dict, attempt):
    ops = st.graph.ops
    asap = longest_paths(st, ii, reverse=True)
    mrt = MRT(ii, width, caps, ops)
    time: dict = {}
    unit: dict = {}
    # Without eviction, the last row must keep room for the operations pinned to it.
    ends = [n for n, op in enumerate(ops) if op.kernel_end] or None
    for n in swing_order(st, ii):
        early = [time[p] + lat - ii * dist for p, lat, dist in st.preds[n] if p in time]
        late = [time[s] - lat + ii * dist for s, lat, dist in st.succs[n] if s in time]
        if early and late:
            cands = slots(n, max(early), min(min(late), max(early) + ii - 1), ii, ops)
        elif early:
            # Not before its ASAP time either: a node reached only through a loop-carried
            # edge would otherwise leave no room for the predecessors still to come.
            start = max(max(early), asap[n])
            cands = slots(n, start, start + ii - 1, ii, ops)
        elif late:
            cands = slots(n, min(late) - ii + 1, min(late), ii, ops, step=-1)
        else:
            cands = slots(n, asap[n], asap[n] + ii - 1, ii, ops)
        attempt.placements += 1
        for t in cands:
            bu = mrt.best_unit(n, t)
            if bu is not None and not bu[1] and (ends is None or n in ends or t % ii != ii - 1
                                                   or _leaves_room(mrt, n, t, bu[0], ends, time)):
                mrt.place(n, t, bu[0])
                time[n], unit[n] = t, bu[0]
                break
        else:
            attempt.outcome = f"no free slot for operation {n} between its scheduled neighbours"
            return None
    return time, unit


def _leaves_room(mrt: MRT, n: int, t: int, unit: str, ends: list, time: dict) -> bool:
    """Would the kernel_end operations not yet placed still fit in the last row after *n*?"""
    mrt.place(n, t, unit)
    try:
        for e in ends:
            if e in time:
                continue
            fits = any(not mrt.conflicts(e, t, u) for u in mrt.ops[e].units or ("ISSUE",)
                       if mrt.conflicts(e, t, u) is not None)
            if not fits:
                return False
        return True
    finally:
        mrt.remove(n, t, unit)

"""Level 2's shared NICs: pipeline transfers and data-parallel collectives on one link.

The planner places ranks as Megatron-LM does (``initialize_model_parallel``:
tensor parallelism innermost, then context, then data, pipeline outermost;
:meth:`~schedcc.training.costs.Cluster.placement`): a pipeline transfer goes
``tp x cp x dp`` ranks away, so it crosses nodes whenever that is at least
``devices_per_node``, and a data-parallel group of ``dp x cp`` ranks
``tp`` apart crosses nodes once it holds more than ``devices_per_node / tp``.
A DGX has one InfiniBand NIC per GPU, and NCCL sends a rank's point-to-point
transfers and its share of a ring collective through the NIC next to the GPU
(its topology search pairs each GPU with its nearest HCA), so a rank's
pipeline sends and receives and its gradient reduction or weight gather share
one NIC. Level 2 (:mod:`.pipe`) schedules them on separate channels (``pp``
and ``dp``); this pass charges what the sharing costs.

Every operator that crosses a NIC carries a :class:`NicUse`: the share of the
NIC it keeps busy on its own (``load``: a transfer between nodes 1, a
collective ``net_time / collective_time`` of
:meth:`~schedcc.training.costs.Cluster.net_time`, its inter-node phase) and the
ranks whose NICs it uses (a transfer: the sender's way out and the receiver's
way in; a collective: its rank's, both ways). Where a transfer and a
collective overlap on one NIC in the direction both use, the link is shared
max-min fairly (:func:`fair_shares`), and each is lengthened by the time it
loses over that overlap; a transfer meeting collectives on both ends pays the
worse end. The step is then list-scheduled once more with those durations (one
refinement, as the layer schedules' contention: :mod:`.layer`). Transfers
inside a node (NVLink) and collectives inside a node never slow each other here:
their ``load`` is 0.

Example: a transfer of 2 ms sent while its rank's gradient reduction (NIC
busy 90% of its time) runs gets half the NIC and takes 2 ms more::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> ops = (Op("xfer", ("r0:pp",), 2000, 2000, (), "comm", False, NicUse(1.0, (0, 1))),
    ...        Op("grad", ("r0:dp",), 10000, 10000, (), "comm", False, NicUse(0.9, (0,))))
    >>> g = shared_nics(SchedGraph(ops, (), Machine("m", 2, ("r0:pp", "r0:dp"))), {0: 0, 1: 0})
    >>> [op.latency for op in g.ops]
    [4000, 11600]
"""

from __future__ import annotations

import bisect
from typing import NamedTuple

from schedcc.problem import SchedGraph


class NicUse(NamedTuple):
    """An operator's use of NICs: *load*, the share of a NIC's bandwidth it keeps busy
    alone (0..1); *ranks*: a transfer's (sender, receiver), a collective's (rank,)."""

    load: float
    ranks: tuple[int, ...]


def fair_shares(a: float, b: float) -> tuple[float, float]:
    """Max-min fair shares of one link between two flows that ask for *a* and *b* of it:
    each keeps its demand when both fit, else the smaller gets at most half and the
    other the rest. O(1).

    >>> fair_shares(0.3, 0.5), fair_shares(1.0, 0.9), fair_shares(1.0, 0.2)
    ((0.3, 0.5), (0.5, 0.5), (0.8, 0.2))
    """
    if a + b <= 1.0:
        return a, b
    if a <= b:
        sa = min(a, 0.5)
        return sa, 1.0 - sa
    sb = min(b, 0.5)
    return 1.0 - sb, sb


def shared_nics(graph: SchedGraph, start: dict) -> SchedGraph | None:
    """*graph* with every transfer and collective that shared a NIC in the schedule *start*
    lengthened by what the sharing cost them (module docstring); ``None`` when none did.
    The dependences that waited for a lengthened operator's end wait for its new end.
    O(n log n + overlapping pairs)."""
    colls: dict[int, list[tuple[int, int, int, float]]] = {}
    xfers = []
    for i, op in enumerate(graph.ops):
        use = op.payload
        if not isinstance(use, NicUse) or use.load <= 0 or not op.latency:
            continue
        s = start[i]
        if len(use.ranks) == 1:
            colls.setdefault(use.ranks[0], []).append((s, s + op.latency, i, use.load))
        else:
            xfers.append((i, s, s + op.latency, use))
    if not colls or not xfers:
        return None
    starts = {}
    for r, lst in colls.items():   # one channel per rank: its collectives are disjoint
        lst.sort()
        starts[r] = [c[0] for c in lst]
    extra: dict[int, float] = {}
    by_way: dict[tuple[int, int], float] = {}   # (collective, 0 out / 1 in) -> seconds lost
    for i, s, e, use in xfers:
        worst = 0.0
        for way, r in enumerate(use.ranks[:2]):
            lst = colls.get(r)
            if not lst:
                continue
            lost = 0.0
            j = max(bisect.bisect_right(starts[r], s) - 1, 0)
            while j < len(lst) and lst[j][0] < e:
                cs, ce, ci, load = lst[j]
                o = min(e, ce) - max(s, cs)
                if o > 0:
                    sx, sc = fair_shares(use.load, load)
                    lost += o * (use.load / sx - 1.0)
                    by_way[(ci, way)] = by_way.get((ci, way), 0.0) + o * (load / sc - 1.0)
                j += 1
            worst = max(worst, lost)
        if worst > 0:
            extra[i] = worst
    for (ci, _), lost in by_way.items():
        extra[ci] = max(extra.get(ci, 0.0), lost)
    extra = {i: round(x) for i, x in extra.items() if round(x) > 0}
    if not extra:
        return None
    ops = list(graph.ops)
    old = {}
    for i, x in extra.items():
        op = ops[i]
        old[i] = op.latency
        ops[i] = op._replace(latency=op.latency + x, occupancy=op.occupancy + x)
    deps = tuple(d._replace(latency=ops[d.src].latency) if d.src in old and d.latency == old[d.src] else d
                 for d in graph.deps)
    return SchedGraph(tuple(ops), deps, graph.machine)

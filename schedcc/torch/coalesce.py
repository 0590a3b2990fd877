"""Merging independent collectives of an FX graph into one call (issue 18).

Re-bucketing (:mod:`schedcc.torch.rebucket`) changes *buckets*, collectives
of a concatenation. A graph also makes many small collectives one by one:
tensor parallelism all-reduces each layer norm's weight gradient on its own,
and each call pays the collective's per-call latency. Collectives of one
*pool* (:meth:`Single.pool`: the same op, group, reduction and dtype) with no
dependence path between them can share one call:

* ``all_reduce``: the inputs flattened and concatenated, one all-reduce, its
  result split and viewed back. An all-reduce is elementwise, so each piece
  is exactly the original's result;
* ``all_gather_into_tensor`` (gathers along dim 0, rank-major): the flattened
  inputs concatenated to ``[N]``, gathered to ``[W * N]`` = row *r* of
  ``[W, N]`` is rank *r*'s concatenation; input *k*'s columns ``[W, n_k]``
  hold rank *r*'s input *k* in row *r*, which is what the original's
  ``[W * m_k, ...]`` holds, so a contiguous copy of them viewed to that shape
  is exactly the original's result (one copy kernel per input);
* ``reduce_scatter_tensor``: input *k* viewed ``[W, n_k]`` (row *r* the chunk
  rank *r* receives), the views concatenated along dim 1 to ``[W, N]``: rank
  *r* receives row *r*, the sum of every rank's row *r*, whose columns of
  input *k* are the original's chunk of input *k*; split and viewed back.

Readers of each original wait read their piece; nothing else changes.

**Which calls.** The cost model of the estimates in use (:func:`plan`), as
:func:`schedcc.torch.rebucket.plan` does for buckets: the collectives of a
pool taken by the time schedcc's schedule of the graph has their inputs
ready, cut into consecutive calls by dynamic programming (O(n^2) for n
collectives) that minimises when the last call ends plus each call's
lateness past the first start of a reader of what it carries in that
schedule: a call starts once its last input is there and the previous call
has ended (merging delays the early ones), lasts the collective's time for the sum of the bytes (one
per-call latency instead of one per collective), fills the stream's time
around its other collectives, and pays the fixed time of the kernels that
pack and unpack it (delaying the compute); a call may only hold collectives
no one of which depends on another. :func:`schedcc.torch.fx_reorder.reorder`
(``rebucket=True``) keeps the changed graph only when its best order predicts
a shorter step.

Example (two independent all-reduces share one call)::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> C = torch.ops._c10d_functional
    >>> def f(a, b):
    ...     x = C.wait_tensor(C.all_reduce(a.sin(), "sum", "0"))
    ...     y = C.wait_tensor(C.all_reduce(b.cos(), "sum", "0"))
    ...     return x + 1, y * 2
    >>> gm = make_fx(f, tracing_mode="fake")(torch.ones(8, 4), torch.ones(16))
    >>> [s.name for s in find_singles(gm)]
    ['all_reduce', 'all_reduce_1']
    >>> apply(gm, [["all_reduce", "all_reduce_1"]])
    ['all_reduce: 2 collectives merged into 1 call (2)']
    >>> sum(n.target == C.all_reduce.default for n in gm.graph.nodes)
    1
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import torch
import torch.fx as fx

_C = torch.ops._c10d_functional
_A = torch.ops.aten
KINDS = {_C.all_reduce.default: "all_reduce", _C.all_gather_into_tensor.default: "all_gather",
         _C.reduce_scatter_tensor.default: "reduce_scatter"}


@dataclass
class Single:
    """One collective that is not a bucket: its node, its wait, its input's shape."""

    kind: str
    coll: fx.Node
    wait: fx.Node
    shape: tuple[int, ...]
    ranks: int  # the group's size as the call states it (all-gather, reduce-scatter), else 0

    @property
    def name(self) -> str:
        return self.coll.name

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    def pool(self) -> tuple:
        """Collectives of one pool can share a call: the same op, arguments but the tensor, dtype."""
        return (self.kind, tuple(self.coll.args[1:]), tuple(sorted(self.coll.kwargs.items())),
                self.coll.args[0].meta["val"].dtype)


def find_singles(gm: fx.GraphModule) -> list[Single]:
    """The collectives of *gm* that :func:`apply` can merge, in graph order: an op of
    :data:`KINDS` on one contiguous tensor of static shape, read only by its ``wait_tensor``,
    and not a bucket :mod:`schedcc.torch.rebucket` re-plans."""
    from schedcc.torch.rebucket import find_buckets, wait_of
    buckets = {b.coll for b in find_buckets(gm)}
    out = []
    for n in gm.graph.nodes:
        kind = KINDS.get(n.target) if n.op == "call_function" else None
        if kind is None or n in buckets:
            continue
        wait = wait_of(n)
        x = n.args[0]
        val = x.meta.get("val") if isinstance(x, fx.Node) else None
        if wait is None or not isinstance(val, torch.Tensor) or n.kwargs:
            continue
        try:
            shape = tuple(int(d) for d in val.shape)
        except Exception:  # symbolic sizes
            continue
        if not val.is_contiguous() or not shape:
            continue
        ranks = n.args[1] if kind == "all_gather" else n.args[2] if kind == "reduce_scatter" else 0
        if kind != "all_reduce" and not (isinstance(ranks, int) and ranks > 0):
            continue
        if kind == "reduce_scatter" and shape[0] % ranks:
            continue
        out.append(Single(kind, n, wait, shape, ranks))
    return out


# -- choosing the calls ---------------------------------------------------------------------

def merge_groups(ready: list[int], cost, independent, busy=(), glue=lambda k: 0, need=None,
                 stream_weight: int = 0) -> list[list[int]]:
    """Consecutive groups of the collectives taken by *ready* time whose chain of calls ends
    first, counting each call's lateness past the earliest *need* (when a reader of its result
    starts) of what it carries (ties: the least time on the stream); *cost(group)* is a call's
    ticks, *glue(k)* the ticks of the kernels a call of k collectives adds on the compute stream
    (they delay every collective made after them), *independent(group)* whether a group may
    share a call; *busy* as in :func:`schedcc.torch.rebucket.split_groups`. With
    *stream_weight* 1, the calls' time on the stream counts too (as in a step its
    communication bounds, where every call's latency lengthens the step, however well it
    fits the stream's gaps in the schedule planned from). Dynamic programming, O(n^2)."""
    from schedcc.torch.rebucket import fill_free, cuts_of
    idx = sorted(range(len(ready)), key=lambda k: (ready[k], k))
    n = len(idx)
    need = need or [math.inf] * len(ready)
    best: list = [(0, 0, -1, 0, 0, 0)] + [None] * n  # (key, stream time, cut, end, glue, lateness so far)
    for i in range(1, n + 1):
        r = ready[idx[i - 1]]
        for j in range(i - 1, -1, -1):
            group = idx[j:i]
            if len(group) > 1 and not independent(group):
                break  # a larger group holds this one's dependent pair too
            g = best[j][4] + glue(len(group))
            c = cost(group)
            end = fill_free(busy, max(best[j][3], r + g), c)
            late = best[j][5] + max(0, end - min(need[k] for k in group))
            key = (end + g + late + stream_weight * (best[j][1] + c), best[j][1] + c)
            if best[i] is None or key < best[i][:2]:
                best[i] = (*key, j, end, g, late)
    return cuts_of(best, idx)


def need_ticks(step, end: list[int], dur: list[int]) -> list[float]:
    """When each scheduled node's value is first needed in a schedule with node end times *end*:
    the earliest start of a reader that takes time, looking through those that take none
    (infinity when only the output reads it)."""
    succ: list[list[int]] = [[] for _ in range(len(step))]
    for s, t, _ in step.deps:
        succ[s].append(t)
    need = [math.inf] * len(step)
    for s in range(len(step) - 1, -1, -1):  # the graph's order is topological
        for t in succ[s]:
            need[s] = min(need[s], end[t] - dur[t] if dur[t] else need[t])
    return need


def _ancestors(step) -> list[int]:
    """Each scheduled node's ancestors through every dependence of *step*, as a bitset (bit i:
    node i), by :func:`schedcc.torch.fx_bound._closure` over the graph's order, a topological one."""
    from schedcc.torch.fx_bound import _closure
    from schedcc.torch.fx_streams import _preds
    everyone = range(len(step))
    return _closure(everyone, _preds(step), dict(zip(everyone, everyone)))


def plan(step, dur: list[int], end: list[int], estimates: str, stream_weight: int = 0) -> list[list[str]]:
    """The calls to make of *step*'s mergeable collectives under the cost model of *estimates*
    (module docstring), from the schedule with node end times *end*: each a list of two or more
    collectives' names ([] when no merge is worth it); *stream_weight* as in :func:`merge_groups`."""
    from schedcc.training.costs import ticks
    from schedcc.torch.fx_volume import collective_cost_fn
    from schedcc.torch.rebucket import busy_intervals, kernel_ticks, ready_ticks
    ready = ready_ticks(step, end, dur)
    kernel = kernel_ticks(step, dur)
    pools: dict = {}
    for s in find_singles(step.gm):
        if s.coll in step.index:
            pools.setdefault(s.pool(), []).append(s)
    anc = None
    calls = []
    for singles in pools.values():
        if len(singles) < 2:
            continue
        if anc is None:
            anc, need = _ancestors(step), need_ticks(step, end, dur)
        at = [step.index[s.coll] for s in singles]
        fns = [collective_cost_fn(step, i, estimates) for i in at]
        fn = fns[0][1]
        memo: dict = {}

        def cost(group, fns=fns, fn=fn, memo=memo):
            size = round(sum(fns[k][0] for k in group))
            if size not in memo:
                memo[size] = ticks(fn(max(1.0, size)))
            return memo[size]

        def independent(group, at=at):
            mask = 0
            for k in group:
                mask |= 1 << at[k]
            return all(not anc[at[k]] & mask for k in group)

        per_piece = 1 if singles[0].kind == "all_gather" else 0  # the unpacking copy of each
        glue = lambda k, per_piece=per_piece: 0 if k == 1 else kernel * (1 + per_piece * k)  # noqa: E731
        piece_ready = [max((ready.get(p, 0) for p in s.coll.all_input_nodes), default=0) for s in singles]
        others = busy_intervals(step, dur, end, step.streams[at[0]], {s.coll for s in singles})
        needed = [need[step.index[s.wait]] if s.wait in step.index else math.inf for s in singles]
        for g in merge_groups(piece_ready, cost, independent, others, glue, needed, stream_weight):
            if len(g) > 1:
                calls.append([singles[k].name for k in g])
    return calls


# -- changing the graph ---------------------------------------------------------------------

def apply(gm: fx.GraphModule, calls: list[list[str]]) -> list[str]:
    """Merge each call's collectives of *gm* (names of :func:`find_singles`, one pool, two or
    more a call, each in one call) into one call in place, rewire their waits' readers, put the
    graph in a topological order again, lint and recompile. One line per pool changed. Raises
    ValueError (the graph unchanged) for calls that do not fit, would make a cycle, or span a
    node that writes memory (the readers of the earlier results would move past it)."""
    from torch._guards import detect_fake_mode
    from schedcc.torch.fx_ops import written_args
    from schedcc.torch.rebucket import NodeMaker, graph_positions, resort
    graph = gm.graph
    singles = {s.name: s for s in find_singles(gm)}
    seen: set = set()
    for call in calls:
        if len(call) < 2 or any(name not in singles or name in seen for name in call):
            raise ValueError(f"not a call of two or more mergeable collectives, each in one call: {call}")
        seen.update(call)
        if len({singles[name].pool() for name in call}) != 1:
            raise ValueError(f"a call mixes collectives that cannot share one: {call}")
    edges = [(p, r) for call in calls for a in call for p in singles[a].coll.all_input_nodes
             for b in call for r in singles[b].wait.users]
    resort(graph, check_only=True, extra=edges)
    nodes, pos = list(graph.nodes), graph_positions(graph)
    for call in calls:  # the readers of the earlier results move past this span: nothing in it may write
        span = sorted(pos[singles[name].coll] for name in call)
        writer = next((n for n in nodes[span[0]:span[-1]] if written_args(n)), None)
        if writer is not None:
            raise ValueError(f"'{writer.name}' writes memory between the collectives of {call}")
    lines: dict = {}
    for call in calls:
        lines.setdefault(singles[call[0]].pool(), []).append(len(call))
    make = NodeMaker(graph, detect_fake_mode([n.meta.get("val") for n in graph.nodes]))
    for call in calls:
        members = sorted((singles[name] for name in call), key=lambda s: pos[s.coll])
        with graph.inserting_before(members[-1].coll):
            outs = _merged(members, make)
        for s, out in zip(members, outs):
            s.wait.replace_all_uses_with(out)
            graph.erase_node(s.wait)
            graph.erase_node(s.coll)
    resort(graph)
    graph.lint()
    gm.recompile()
    return [f"{pool[0]}: {sum(ks)} collectives merged into {len(ks)} call{'s' if len(ks) != 1 else ''} "
            f"({', '.join(map(str, ks))})" for pool, ks in lines.items()]


def _merged(members: list[Single], make) -> list[fx.Node]:
    """The nodes of one call on *members*: pack, collective, wait, unpack; each member's result."""
    first = members[0]
    tag = f"{first.name}_merged"
    xs = [s.coll.args[0] for s in members]
    sizes = [s.numel for s in members]
    args = first.coll.args[1:]
    if first.kind == "reduce_scatter":
        w = first.ranks
        rows = [make(_A.view.default, [x, [w, n // w]], name=f"{tag}_in{k}") for k, (x, n) in enumerate(zip(xs, sizes))]
        packed = make(_A.cat.default, [rows, 1], name=tag + "_cat")
        flat = make(_A.view.default, [packed, [sum(sizes)]], name=tag + "_flat")
    else:
        flats = [make(_A.view.default, [x, [n]], name=f"{tag}_in{k}") for k, (x, n) in enumerate(zip(xs, sizes))]
        flat = make(_A.cat.default, [flats], name=tag + "_cat")
    coll = make(first.coll.target, [flat, *args], name=tag)
    wait = make(_C.wait_tensor.default, [coll], name=tag + "_wait")
    outs = []
    if first.kind == "all_gather":
        w = first.ranks
        rows = make(_A.view.default, [wait, [w, sum(sizes)]], name=tag + "_rows")
        split = make(_A.split_with_sizes.default, [rows, sizes, 1], name=tag + "_split")
        for k, s in enumerate(members):
            cols = make(operator.getitem, [split, k], name=f"{tag}_cols{k}")
            dense = make(_A.clone.default, [cols], {"memory_format": torch.contiguous_format}, name=f"{tag}_copy{k}")
            outs.append(make(_A.view.default, [dense, [w * s.shape[0], *s.shape[1:]]], name=f"{tag}_out{k}"))
        return outs
    per_rank = [n // first.ranks for n in sizes] if first.kind == "reduce_scatter" else sizes
    split = make(_A.split_with_sizes.default, [wait, per_rank], name=tag + "_split")
    for k, s in enumerate(members):
        piece = make(operator.getitem, [split, k], name=f"{tag}_piece{k}")
        shape = [s.shape[0] // first.ranks, *s.shape[1:]] if first.kind == "reduce_scatter" else list(s.shape)
        outs.append(make(_A.view.default, [piece, shape], name=f"{tag}_out{k}"))
    return outs

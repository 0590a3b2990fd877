"""Re-bucketing: split a bucketed collective of an FX graph into calls on groups of its pieces (issue 18).

Reordering keeps a graph's collectives as they are. A *bucket* sends many
independently produced tensors in one call, so its first byte waits for the
last of them; split into several calls on groups of the pieces, the early
pieces leave while the backward still makes the others, at the price of one
per-call latency per group. Two kinds of bucket are recognised:

* an ``all_reduce`` of a concatenation (``cat`` of the pieces, then any chain
  of elementwise ops with scalar operands, such as DDP's ``div`` by the world
  size), as Inductor's ``fuse_ddp_with_concat_op`` builds DDP's buckets and
  as a hand-written flat all-reduce does. An all-reduce is elementwise, so
  group *g*'s call on ``cat(its pieces)`` gives exactly the bytes of those
  pieces in the original's output;
* a ``reduce_scatter_tensor`` of FSDP2's flat buffer, written by
  ``fsdp.chunk_cat`` (functionalized: ``auto_functionalized_v2``) from the
  per-parameter gradients: row *r* of the buffer is the *r*-th chunk of every
  gradient (each padded on its own), so the shard this rank receives of a
  group's ``aten._chunk_cat`` is those parameters' pieces of the original's
  shard, and concatenating the groups' shards in parameter order gives it
  back exactly.

The consumers read the matching outputs: a ``split_with_sizes`` of the
result along the concatenation's pieces reads each piece from its group's
call (no copy), a functional ``copy`` into a buffer of the same shape is
looked through, anything else reads the pieces concatenated again in the
original order (one small copy kernel). FSDP2's all-gather of its flat
parameter buffer is left as it is (see docs/torch-fx.md "Re-bucketing").

**Which calls.** Chosen by the cost model of the estimates in use
(:func:`plan`), the buckets of one pool (:meth:`Bucket.pool`: the same
collective, group, reduction, dtype and chain) together, so that pieces may
move between buckets: the pieces sorted by the time the schedule of the
unchanged graph makes them, every cut into consecutive calls of that order
is priced as a chain of calls on the group's stream (a call starts when its
last piece is made and the previous call has ended, lasts the collective's
time for its bytes, per-call latency plus bandwidth, and fills the stream's
free time around the schedule's other collectives there; the fixed time of
the kernels that build each call's buffer delays the pieces made after it),
and the cut whose last call ends first wins (ties: the least time on the
stream, so the fewest calls). Dynamic programming over the n pieces,
O(n^2). :func:`schedcc.torch.fx_reorder.reorder` (``rebucket=True``) then
keeps the changed graph only when its best order predicts a shorter step.

Example (two gradients all-reduced in one bucket, the second made three
matrix products after the first; split, the first one's all-reduce runs
under those products)::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> def f(a, b):
    ...     x, y = (a @ a).view(-1), (b @ b @ b @ b).view(-1)
    ...     flat = torch.ops._c10d_functional.all_reduce(torch.cat([x, y]) / 4, "sum", "0")
    ...     return torch.ops._c10d_functional.wait_tensor(flat).split([x.numel(), y.numel()])
    >>> gm = make_fx(f, tracing_mode="fake")(torch.ones(512, 512), torch.ones(512, 512))
    >>> [len(b.pieces) for b in find_buckets(gm)]
    [2]
    >>> apply(gm, [[("all_reduce", 0)], [("all_reduce", 1)]])
    ['all_reduce: 1 bucket of 2 pieces in 2 calls (1, 1)']
    >>> sum(n.target == torch.ops._c10d_functional.all_reduce.default for n in gm.graph.nodes)
    2
"""

from __future__ import annotations

import contextlib
import math
import operator
from dataclasses import dataclass

import torch
import torch.fx as fx

_C = torch.ops._c10d_functional
_A = torch.ops.aten
# elementwise ops with scalar operands that may sit between the concatenation and the all-reduce
_ELEMENTWISE = {_A.div.Tensor, _A.div.Scalar, _A.mul.Tensor, _A.mul.Scalar}
_getitem = operator.getitem


@dataclass
class Bucket:
    """One bucketed collective: its node, its wait, the pieces it sends (in the buffer's order),
    each piece's extent in the output, and the nodes that build the buffer."""

    kind: str                  # "all_reduce" or "reduce_scatter"
    coll: fx.Node
    wait: fx.Node
    pieces: list               # FX nodes (or constants) in the buffer's order
    sizes: list[int]           # each piece's extent in the collective's output along dim
    dim: int
    chain: list[fx.Node]       # all_reduce: the elementwise ops from the concatenation to the call
    build: list[fx.Node]       # the nodes made only for the buffer, readers first (erased when split)
    num_chunks: int = 0        # reduce_scatter: the chunk_cat's chunks (= the group's size)
    dtype: object = None       # reduce_scatter: the buffer's dtype

    @property
    def name(self) -> str:
        return self.coll.name

    def pool(self) -> tuple:
        """Buckets with the same pool can share calls: the same collective, group, reduction,
        dtype, the same elementwise chain, whole 1-D pieces (all-reduce) or the same chunks."""
        chain = tuple((op.target, tuple(op.args[1:]), tuple(sorted(op.kwargs.items()))) for op in self.chain)
        piece_dims = {len(_val(p).shape) for p in self.pieces}
        dtype = self.dtype if self.kind == "reduce_scatter" else _val(self.build[-1]).dtype
        solo = self.name if self.kind == "all_reduce" and (self.dim != 0 or piece_dims != {1}) else None
        return (self.kind, tuple(self.coll.args[1:]), tuple(sorted(self.coll.kwargs.items())), dtype, chain,
                self.num_chunks, solo)

    def share(self) -> list[float]:
        """Each piece's share of the collective's bytes."""
        total = sum(self.sizes)
        return [s / total for s in self.sizes]


def _val(n):
    return n.meta.get("val") if isinstance(n, fx.Node) else None


def _only_user(n: fx.Node) -> fx.Node | None:
    users = list(n.users)
    return users[0] if len(users) == 1 else None


def wait_of(coll: fx.Node) -> fx.Node | None:
    """The collective's ``wait_tensor`` when that is its only reader, else None."""
    user = _only_user(coll)
    return user if user is not None and user.target == _C.wait_tensor.default else None


def find_buckets(gm: fx.GraphModule) -> list[Bucket]:
    """The bucketed collectives of *gm* that can be split (module docstring), in graph order."""
    out = []
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        b = None
        if node.target == _C.all_reduce.default:
            b = _all_reduce_bucket(node)
        elif node.target == _C.reduce_scatter_tensor.default:
            b = _reduce_scatter_bucket(node)
        if b is not None:
            out.append(b)
    return out


def _all_reduce_bucket(coll: fx.Node) -> Bucket | None:
    wait = wait_of(coll)
    if wait is None:
        return None
    chain, x = [], coll.args[0]
    while isinstance(x, fx.Node) and x.target in _ELEMENTWISE:
        if any(isinstance(a, fx.Node) for a in (*x.args[1:], *x.kwargs.values())):
            return None
        chain.append(x)
        x = x.args[0]
    if not (isinstance(x, fx.Node) and x.target == _A.cat.default):
        return None
    # the buffer's nodes may also be read as a copy's destination (its shape only): moe's in-place all_reduce
    for n in (x, *chain):
        others = [u for u in n.users if u not in chain and u is not coll]
        if any(not (u.target == _A.copy.default and u.args[0] is n and u.args[1] is wait) for u in others):
            return None
    pieces = list(x.args[0])
    dim = x.args[1] if len(x.args) > 1 else x.kwargs.get("dim", 0)
    vals = [_val(p) for p in pieces]
    if any(v is None or not hasattr(v, "shape") for v in vals):
        return None
    dim = dim % len(vals[0].shape) if vals[0].shape else 0
    try:
        sizes = [int(v.shape[dim]) for v in vals]
    except Exception:  # symbolic sizes
        return None
    return Bucket("all_reduce", coll, wait, pieces, sizes, dim, list(reversed(chain)), [*chain, x])


def _reduce_scatter_bucket(coll: fx.Node) -> Bucket | None:
    wait = wait_of(coll)
    buf = coll.args[0]
    if wait is None or not isinstance(buf, fx.Node) or buf.target is not _getitem or _only_user(buf) is not coll:
        return None
    af = buf.args[0]
    fsdp = getattr(torch.ops, "fsdp", None)
    if not (isinstance(af, fx.Node) and af.target is torch.ops.higher_order.auto_functionalized_v2
            and fsdp is not None and af.args and af.args[0] == getattr(getattr(fsdp, "chunk_cat", None), "default", None)):
        return None
    kw = af.kwargs
    bases = kw.get("_all_bases", [])
    n = coll.args[2]
    dead = [u for u in af.users if u is not buf]  # an export keeps the op's own (unused) result
    if (any(u.target is not _getitem or u.users for u in dead) or buf.args[1] != 1 or kw.get("dim") != 0
            or kw.get("num_chunks") != n
            or len(bases) != 1 or kw.get("_out_base_index") != 0 or kw.get("_out_storage_offset") != 0):
        return None
    base, pieces = bases[0], list(kw["tensors"])
    out_size = tuple(kw.get("_out_size", ()))
    vals = [_val(p) for p in pieces]
    if any(v is None for v in vals) or _val(base) is None or len(out_size) != 2:
        return None
    try:
        sizes = [math.ceil(int(v.shape[0]) / n) * math.prod(int(d) for d in v.shape[1:]) for v in vals]
        whole = int(_val(base).numel())
    except Exception:  # symbolic sizes
        return None
    if sum(sizes) != out_size[1] or whole != n * out_size[1] or len(_val(base).shape) != 1:
        return None
    build = [buf, *dead, af] + ([base] if len(base.users) == 1 else [])
    return Bucket("reduce_scatter", coll, wait, pieces, sizes, 0, [], build, n, _val(base).dtype)


# -- choosing the calls ---------------------------------------------------------------------

def ready_ticks(step, end: list[int], dur: list[int]) -> dict:
    """When each node's value is there in a schedule with node end times *end*: a node that
    takes time, at its end; one that takes none, when its inputs are."""
    from schedcc.torch.fx_streams import _preds
    preds = _preds(step)
    ready = [0] * len(step)
    for i in sorted(range(len(step)), key=lambda k: (end[k], k)):
        ready[i] = end[i] if dur[i] else max((ready[p] for p in preds[i]), default=0)
    return {step.nodes[i]: ready[i] for i in range(len(step))}


def split_groups(ready: list[int], share: list[float], cost, busy: list[tuple[int, int]] = (),
                 glue: int = 0) -> list[list[int]]:
    """Consecutive groups of the pieces taken by *ready* time (each piece's index) whose chain of
    calls ends first, each call counted *glue* ticks later (the fixed time of the kernels that
    build its buffer, which the compute stream pays once per call: they delay every piece made
    after them), then spends the least time
    on the stream; *cost(share)* is a call's ticks for that share of the bytes; *busy*, sorted
    disjoint (start, end) intervals when the stream carries other collectives: a call fills the
    stream's free time. Dynamic programming, O(n^2) calls of *cost*."""
    idx = sorted(range(len(ready)), key=lambda k: (ready[k], k))
    n = len(idx)
    prefix = [0.0]
    for k in idx:
        prefix.append(prefix[-1] + share[k])
    best: list = [(0, 0, -1, 0, 0)] + [None] * n  # (end + glue x calls, busy, previous cut, end, calls)
    for i in range(1, n + 1):
        r = ready[idx[i - 1]]
        for j in range(i):
            c = cost(prefix[i] - prefix[j])
            calls = best[j][4] + 1  # the glue of every call so far has delayed this one's pieces
            end = fill_free(busy, max(best[j][3], r + glue * calls), c)
            key = (end + glue * calls, best[j][1] + c)
            if best[i] is None or key < best[i][:2]:
                best[i] = (*key, j, end, calls)
    return cuts_of(best, idx)


def cuts_of(best: list, idx: list[int]) -> list[list[int]]:
    """The groups of a dynamic programme's cut (*best[i][2]*: where the last of *i* begins). O(n)."""
    cuts, i = [], len(idx)
    while i > 0:
        j = best[i][2]
        cuts.append(sorted(idx[j:i]))
        i = j
    return cuts[::-1]


def fill_free(busy: list[tuple[int, int]], t: int, c: int) -> int:
    """When *c* ticks of the stream's free time from *t* on have passed, *busy* taken."""
    for s, e in busy:
        if e <= t:
            continue
        if s - t >= c:
            break
        c -= max(0, s - t)
        t = e
    return t + c


def kernel_ticks(step, dur: list[int]) -> int:
    """A buffer-building kernel's fixed time: the cluster's kernel launch, or less if some kernel
    of the graph takes less under these estimates (Inductor's roofline has no launch time). O(n)."""
    from schedcc.training.costs import ticks
    return min([ticks(step.cluster.compute_time(0.0, 1.0))]
               + [d for d, st in zip(dur, step.streams) if d and st == "compute"])


def busy_intervals(step, dur: list[int], end: list[int], stream: str, skip: set) -> list[tuple[int, int]]:
    """The merged intervals when the collectives of *stream* not in *skip* run."""
    spans = sorted((end[i] - dur[i], end[i]) for i in step.collectives()
                   if step.streams[i] == stream and step.nodes[i] not in skip and dur[i])
    merged: list = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def plan(step, dur: list[int], end: list[int], estimates: str) -> list[list[tuple[str, int]]]:
    """The calls to make of the buckets of *step*'s graph under the cost model of *estimates*
    (module docstring): each call a list of (bucket's collective name, piece index). The buckets
    of one pool (:meth:`Bucket.pool`) are planned together, their pieces taken by the time the
    schedule with node end times *end* makes them; a pool whose calls would be its buckets as
    they are is left out ([] when nothing changes)."""
    from schedcc.training.costs import ticks
    from schedcc.torch.fx_volume import collective_cost_fn
    ready = ready_ticks(step, end, dur)
    kernel = kernel_ticks(step, dur)
    pools: dict = {}
    for b in find_buckets(step.gm):
        if b.coll in step.index:
            pools.setdefault(b.pool(), []).append(b)
    calls = []
    for buckets in pools.values():
        pieces = [(b, k) for b in buckets for k in range(len(b.pieces))]
        i = step.index[buckets[0].coll]
        size, fn = collective_cost_fn(step, i, estimates)
        unit = size / sum(buckets[0].sizes)  # bytes per element of a piece's extent
        total = sum(sum(b.sizes) for b in buckets)
        memo: dict = {}

        def cost(share, total=total, unit=unit, fn=fn, memo=memo):
            key = round(share * total)
            if key not in memo:
                memo[key] = ticks(fn(max(1.0, key * unit)))
            return memo[key]
        piece_ready = [ready.get(b.pieces[k], 0) if isinstance(b.pieces[k], fx.Node) else 0 for b, k in pieces]
        others = busy_intervals(step, dur, end, step.streams[i], {b.coll for b in buckets})
        glue = kernel * sum(1 for n in buckets[0].build if n in step.index and dur[step.index[n]])
        groups = split_groups(piece_ready, [b.sizes[k] / total for b, k in pieces], cost, others, glue)
        mine = [[(pieces[j][0].name, pieces[j][1]) for j in g] for g in groups]
        if sorted(map(sorted, mine)) != sorted(sorted((b.name, k) for k in range(len(b.pieces))) for b in buckets):
            calls.extend(mine)
    return calls


# -- changing the graph ---------------------------------------------------------------------

def apply(gm: fx.GraphModule, calls: list[list[tuple[str, int]]]) -> list[str]:
    """Replace the buckets of *gm* that *calls* names by those calls (each a list of (bucket's
    collective name, piece index); every piece of a named bucket in exactly one call, the
    buckets of a call of one pool) in place, rewire their readers, put the graph in a
    topological order again, lint and recompile. One line per pool changed, saying how. Raises
    ValueError (the graph unchanged) for calls that do not fit or would make a cycle."""
    from torch._guards import detect_fake_mode
    graph = gm.graph
    buckets = {b.name: b for b in find_buckets(gm)}
    named = sorted({name for call in calls for name, _ in call})
    for name in named:
        if name not in buckets:
            raise ValueError(f"no bucket '{name}' to split")
        got = sorted(k for call in calls for n, k in call if n == name)
        if got != list(range(len(buckets[name].pieces))):
            raise ValueError(f"{name}: the calls do not hold each of its {len(buckets[name].pieces)} pieces once")
    for call in calls:
        if len({buckets[n].pool() for n, _ in call}) != 1:
            raise ValueError(f"a call mixes buckets that cannot share one: {sorted({n for n, _ in call})}")
    resort(graph, check_only=True, extra=_call_edges(calls, buckets))
    make = NodeMaker(graph, detect_fake_mode([n.meta.get("val") for n in graph.nodes]))
    outs = {name: [None] * len(buckets[name].pieces) for name in named}
    last = max((buckets[n].coll for n in named), key=graph_positions(graph).get)
    with graph.inserting_before(last):
        for k, call in enumerate(calls):
            _call(buckets, call, f"{call[0][0]}_c{k}", make, outs)
    for name in named:
        b = buckets[name]
        _rewire(graph, b, outs[name], make)
        for n in [b.wait, b.coll, *b.build]:
            if not n.users:
                graph.erase_node(n)
    resort(graph)
    graph.lint()
    gm.recompile()
    lines = []
    for pool in {buckets[n].pool(): None for n in named}:
        mine = [c for c in calls if buckets[c[0][0]].pool() == pool]
        was = [n for n in named if buckets[n].pool() == pool]
        lines.append(f"{pool[0]}: {len(was)} bucket{'s' if len(was) != 1 else ''} of "
                     f"{sum(len(buckets[n].pieces) for n in was)} pieces in {len(mine)} calls "
                     f"({', '.join(str(len(c)) for c in mine)})")
    return lines


def _call(buckets: dict, call: list, tag: str, make, outs: dict) -> None:
    """One call's nodes: the buffer of its pieces, the chain, the collective, its wait, the split."""
    b = buckets[call[0][0]]
    parts = [buckets[n].pieces[k] for n, k in call]
    sizes = [buckets[n].sizes[k] for n, k in call]
    if b.kind == "all_reduce":
        x = make(_A.cat.default, [parts, b.dim], name=tag + "_cat")
        for op in b.chain:
            x = make(op.target, [x, *op.args[1:]], op.kwargs, name=f"{tag}_{op.name}")
    else:  # FSDP2's own chunk_cat into a flat buffer of the bucket's dtype, as the original
        total = sum(sizes)
        af = next(n for n in b.build if n.target is torch.ops.higher_order.auto_functionalized_v2)
        base = af.kwargs["_all_bases"][0]
        empty = make(_A.empty.memory_format, [[b.num_chunks * total]],
                     {"dtype": b.dtype, "device": _val(base).device, "pin_memory": False}, name=tag + "_buffer")
        af = make(torch.ops.higher_order.auto_functionalized_v2, [af.args[0]],
                  {**af.kwargs, "tensors": parts, "_out_size": (b.num_chunks, total),
                   "_out_stride": (total, 1), "_all_bases": [empty]}, name=tag + "_chunk_cat")
        x = make(_getitem, [af, 1], name=tag + "_flat")
    coll = make(b.coll.target, [x, *b.coll.args[1:]], b.coll.kwargs, name=tag)
    wait = make(_C.wait_tensor.default, [coll], name=tag + "_wait")
    split = make(_A.split_with_sizes.default, [wait, sizes, b.dim], name=tag + "_split")
    for j, (n, k) in enumerate(call):
        outs[n][k] = make(_getitem, [split, j], name=f"{tag}_piece{j}")


def _call_edges(calls, buckets) -> list[tuple[fx.Node, fx.Node]]:
    """(piece, reader) edges the calls add: every reader of a bucket in a call reads every piece of it."""
    edges = []
    for call in calls:
        readers = [u for n in {n for n, _ in call} for u in buckets[n].wait.users]
        edges += [(buckets[n].pieces[k], r) for n, k in call for r in readers
                  if isinstance(buckets[n].pieces[k], fx.Node)]
    return edges


def graph_positions(graph: fx.Graph) -> dict:
    """Each node's position in *graph*'s present order. O(n)."""
    return {n: k for k, n in enumerate(graph.nodes)}


def resort(graph: fx.Graph, check_only: bool = False, extra=()) -> None:
    """Put the graph's nodes in a topological order, each as early in the present order as it
    can be (placeholders first, the output last); with *check_only*, only check that one exists
    with the *extra* (source, reader) edges. Raises ValueError on a cycle. The order is
    :func:`~schedcc.torch.fx_order.keyed_topological_order`'s, keyed by the present position."""
    from schedcc.torch.fx_order import keyed_topological_order
    nodes, pos = list(graph.nodes), graph_positions(graph)
    succ: list[list] = [[] for _ in nodes]
    for n in nodes:
        for m in n.all_input_nodes:
            succ[pos[m]].append((pos[m], pos[n]))
    for a, b in extra:
        succ[pos[a]].append((pos[a], pos[b]))
    try:
        order = keyed_topological_order(succ, list(range(len(nodes))))
    except RuntimeError:
        raise ValueError("the calls would make the graph's dependences a cycle") from None
    if check_only:
        return
    output = next(n for n in reversed(nodes) if n.op == "output")
    for k in order:
        n = nodes[k]
        if n is not output and n.op != "placeholder":
            output.prepend(n)


class NodeMaker:
    """Creates nodes with their fake values (``meta['val']``, what pricing reads)."""

    def __init__(self, graph: fx.Graph, mode):
        self.graph, self.mode = graph, mode

    def __call__(self, target, args, kwargs=None, name=None) -> fx.Node:
        node = self.graph.create_node("call_function", target, tuple(args), dict(kwargs or {}), name=name)
        vals = fx.node.map_arg((tuple(args), dict(kwargs or {})), lambda n: n.meta.get("val"))
        with self.mode if self.mode is not None else contextlib.nullcontext():
            node.meta["val"] = target(*vals[0], **vals[1])
        return node


def _rewire(graph: fx.Graph, b: Bucket, piece_out: list, make: NodeMaker) -> None:
    """Every reader of the bucket's result reads the pieces' new outputs (module docstring)."""
    whole = []

    def reassembled(before: fx.Node) -> fx.Node:
        if not whole:
            with graph.inserting_before(before):
                whole.append(piece_out[0] if len(piece_out) == 1 else
                             make(_A.cat.default, [piece_out, b.dim], name=b.name + "_whole"))
        return whole[0]

    todo = [b.wait]
    while todo:
        value = todo.pop()
        for user in list(value.users):
            if (user.target == _A.copy.default and user.args[1] is value and _same_layout(user.args[0], value)):
                todo.append(user)  # a functional copy into a buffer like it: the same values
                continue
            if (user.target == _A.split_with_sizes.default and user.args[0] is value
                    and list(user.args[1]) == b.sizes and _dim(user) == b.dim
                    and all(u.target is _getitem and isinstance(u.args[1], int) for u in user.users)):
                for g in list(user.users):
                    g.replace_all_uses_with(piece_out[g.args[1]])
                    graph.erase_node(g)
                graph.erase_node(user)
                continue
            user.replace_input_with(value, reassembled(b.coll))
        if value is not b.wait and not value.users:
            graph.erase_node(value)


def _dim(split: fx.Node) -> int:
    d = split.args[2] if len(split.args) > 2 else split.kwargs.get("dim", 0)
    return d % len(_val(split.args[0]).shape)


def _same_layout(dest, value) -> bool:
    a, b = _val(dest), _val(value)
    return (a is not None and b is not None and tuple(a.shape) == tuple(b.shape) and a.dtype == b.dtype
            and a.is_contiguous() and b.is_contiguous())

"""A lower bound on exposed communication that no order *and no splitting or re-bucketing* beats (issue 18).

:mod:`schedcc.torch.fx_bound` bounds every order of a graph's nodes. A graph
change can go below it: split a collective into pieces, merge several into a
bucket, or move tensors from one bucket to another (DDP's buckets, FSDP's
flat all-gather and reduce-scatter buffers). This bound holds for every
order of every such change of the graph, under the same run semantics (one
compute stream, one stream per process group) and these assumptions:

* **the kernels are the graph's, none added, unsplit**: a kernel starts when
  every byte of its inputs is there, and its whole output appears when it
  ends. The data-movement glue of bucketing (``cat``, ``copy``, views,
  FSDP's ``all_gather_copy_in`` / ``split_with_sizes_copy``, ``chunk_cat``)
  may be dropped or redone: it is not taken to order anything, and its
  duration counts as overlappable work;
* **each collective's bytes stay on its process group's stream**, and a
  piece of *b* bytes costs at least ``b`` times the collective's time per
  byte at zero per-call latency (the bandwidth term of the estimate: both
  estimate models are latency + bytes x per-byte time), so a group's stream
  is busy at least *C* = the sum of its collectives' latency-free times,
  whatever the pieces;
* a byte of a collective's output depends on the bytes of its input it is
  computed from (SPMD: every rank runs the same program at the same time).

**Which kernels must precede, which must follow.** For every node the
forward pass keeps the kernels every byte of its value needs (``nec``) and
the kernels some byte needs (``any``), and the same for collectives
(all of whose bytes are needed): a kernel needs ``any`` of all its inputs
(it waits for all of them) and itself; a view of a whole tensor keeps its
input's sets; a slice, ``getitem`` or other partial view keeps only
``nec`` (its bytes may come from any part); a concatenation keeps the
intersection of its inputs' ``nec`` and the union of their ``any``; a
collective's first byte needs the intersection of its inputs' ``nec``
(NA(c)), and its output as a whole needs every byte of the collective.
ND(c) is the kernels that need every byte of c. Dropping a dependence only
makes these sets smaller and the bound lower, so any node of unknown kind
is treated as a partial view. One reassembly is recognised: a concatenation
of every piece of a split (DTensor gathers along a dimension other than the
first by splitting the all-gather's result and concatenating the pieces)
holds every byte of the split.

**The bound.** Take a set S of one group's collectives. However they are
split and bucketed, the stream sends S's bytes for at least C_S in total.
A kernel that overlaps a piece of c is in neither NA(c) (those end before
c's first byte) nor ND(c): with X the union over S of the kernels in
neither, G the glue's time, F the member whose piece goes first and L the
one whose piece ends last,
``exposed >= C_S - w(X) - G + min_F w(X & NA F) + min_L w(X & ND L)``
(the argument of :mod:`schedcc.torch.fx_bound` for sets, with pieces),
tried for each collective, each group's whole set and its windows of 2 to
16 collectives consecutive by w(NA). And, over all subsets at once:
the first byte of S, of some collective F, goes after every kernel of
NA(F) ended (they run one after another on the compute stream from time 0:
at w(NA(F))), and after the last byte of S, of some L, the kernels of ND(L)
still run (w(ND(L))). So the step is at least
``min_F w(NA F) + C_S + min_L w(ND L)``, and exposed communication = step -
(kernel time), at least that minus W, W the graph's total kernel time
(glue included: dropping glue only lowers the work). Equivalently
exposed >= C_S - W_overlappable(S), W_overlappable = W - min w(NA F) -
min w(ND L): the kernels that neither precede every byte of S nor follow
it. The largest value over all subsets of a group's collectives is the
preemptive Jackson schedule of (release w(NA c), duration C_c, tail
w(ND c)) on that stream (:func:`schedcc.torch.fx_bound._jackson`; pieces
are preemption). The bound is the largest of these, at least 0.

Each argument is at most :func:`schedcc.torch.fx_bound.lower_bound`'s for
the same set of collectives (latency-free times, fewer kernels forced before
or after, heads and tails at most its): tests/test_torch_fx_volume.py checks
that it is never above that bound, and never above any order of random steps
whose collectives are split and re-bucketed, every order of the result run.

Example (a 40 us all-reduce, 20 us of it per-call latency, of a bucket of
two gradients made by a 30 us kernel and then a 10 us one: in one bucket
no order hides any of it, 40 us exposed; re-bucketed, the first gradient's
bytes can go at 30 us, and 20 us of bandwidth against the 10 us kernel left
leaves at least 10 us exposed)::

    >>> roles = ["kernel", "kernel", "cat", "comm-full"]
    >>> inputs = [[], [0], [0, 1], [2]]
    >>> streams = ["compute", "compute", "compute", "comm:pg0"]
    >>> b = volume_bound(streams, inputs, roles, [30000, 10000, 0, 40000], [0, 0, 0, 20000])
    >>> b.exposed_us, b.argument
    (10.0, "group pg0's 20.0 us of bandwidth, whatever its buckets, plus the least work before and after it")
"""

from __future__ import annotations

import operator

import torch.fx as fx

from schedcc.torch.fx_bound import WINDOWS, ExposedBound, _jackson, _topological, _Weigher
from schedcc.training.costs import TICKS_PER_US

ROLES = ("kernel", "view", "part", "cat", "comm", "comm-full")
# compute ops that only move bytes (bucketing glue): treated as views (one input) or concatenations
CATS = frozenset({"cat", "stack", "chunk_cat", "all_gather_copy_in", "_foreach_copy"})
MOVES = frozenset({"clone", "contiguous", "_to_copy", "split_with_sizes_copy", "split_copy", "view_copy",
                   "_unsafe_view", "alias_copy", "t_copy", "transpose_copy", "permute_copy", "expand_copy",
                   "unsqueeze_copy", "squeeze_copy", "copy", "slice_scatter", "select_scatter", "as_strided_copy",
                   "slice_copy", "select_copy", "unbind_copy", "narrow_copy", "_reshape_copy", "reshape",
                   "flatten", "view"})


def volume_bound(streams, inputs, roles, dur: list[int], volume: list[int], names=None,
                 latency: list[int] | None = None) -> ExposedBound:
    """The bound of the module docstring. Per node: its stream (``"compute"`` or
    ``"comm:<group>"``), its data *inputs* (node numbers; -1 for a value from outside the
    step: a placeholder or constant), its role (:data:`ROLES`: a kernel; a view of its whole
    input; a partial view; a concatenation of its inputs; a collective, ``comm-full`` when
    every byte of its output depends on all of its input: all-gather, all-reduce), its
    duration (ticks) and, for a collective, its latency-free time *volume* and the least time
    of any call that carries its bytes, *latency* (ticks; default 0); *names* name the nodes
    in the argument (default their numbers)."""
    n = len(streams)
    succ: list[list[int]] = [[] for _ in range(n)]
    preds: list[list[int]] = [[p for p in inputs[i] if p >= 0] for i in range(n)]
    for i in range(n):
        for p in preds[i]:
            succ[p].append(i)
    topo = _topological(preds, succ)
    kernel_bit = {}
    for i in range(n):
        if streams[i] == "compute" and roles[i] == "kernel" and dur[i] > 0:
            kernel_bit[i] = len(kernel_bit)
    comm_bit = {i: k for k, i in enumerate(i for i in range(n) if streams[i] != "compute" and volume[i] > 0)}
    weigh = _Weigher([dur[i] for i in kernel_bit])
    work = sum(dur[i] for i in range(n) if streams[i] == "compute")
    nec_k, any_k, nec_c, any_c = [0] * n, [0] * n, [0] * n, [0] * n
    first = {}  # collective -> the kernels its first byte needs (NA)
    first_c = {}  # collective -> the collectives its first byte needs whole

    def meet(ps, sets):
        out = None
        for p in ps:
            v = sets[p] if p >= 0 else 0
            out = v if out is None else out & v
        return out or 0

    def join(ps, sets):
        out = 0
        for p in ps:
            if p >= 0:
                out |= sets[p]
        return out

    for i in topo:
        ins, role = inputs[i], roles[i]
        if streams[i] != "compute":
            first[i] = meet(ins, nec_k)
            first_c[i] = meet(ins, nec_c)
            nec_k[i], nec_c[i] = first[i], meet(ins, nec_c)
            own = 1 << comm_bit[i] if i in comm_bit else 0
            if role == "comm-full":
                any_k[i], any_c[i] = join(ins, any_k), join(ins, any_c) | own
            else:
                any_k[i], any_c[i] = nec_k[i], nec_c[i] | own
        elif role == "kernel":
            own = 1 << kernel_bit[i] if i in kernel_bit else 0
            any_k[i] = nec_k[i] = join(ins, any_k) | own
            any_c[i] = nec_c[i] = join(ins, any_c)
        elif role in ("view", "cat") and (role == "cat" or len(ins) == 1):
            nec_k[i], nec_c[i] = meet(ins, nec_k), meet(ins, nec_c)
            any_k[i], any_c[i] = join(ins, any_k), join(ins, any_c)
        else:  # a partial view, or anything not known to keep whole tensors
            nec_k[i] = any_k[i] = meet(ins, nec_k)
            nec_c[i] = any_c[i] = meet(ins, nec_c)
    after = {c: 0 for c in comm_bit}  # ND(c): the kernels that need every byte of c
    for k, kb in kernel_bit.items():
        bits = any_c[k]
        for c, cb in comm_bit.items():
            if bits >> cb & 1:
                after[c] |= 1 << kb
    latency = latency or [0] * n
    before = {c: first_c[c] for c in comm_bit}  # the collectives every byte of c's input needs whole
    kmask = (1 << len(kernel_bit)) - 1
    glue = work - weigh(kmask)  # bucketing glue: may overlap anything
    names = list(names) if names is not None else [str(i) for i in range(n)]
    args: dict[str, int] = {}
    for g in sorted({streams[c] for c in comm_bit}):
        members = sorted((c for c in comm_bit if streams[c] == g), key=lambda c: (weigh(first[c]), c))
        jobs = [(weigh(first[c]), volume[c], weigh(after[c])) for c in members]
        total = sum(v for _, v, _ in jobs)
        args[f"group {g[5:]}'s {total / TICKS_PER_US:.1f} us of bandwidth, whatever its buckets, plus the "
             "least work before and after it"] = _jackson(jobs) - work
        sets = [(f"the bandwidth of group {g[5:]}'s {len(members)} collectives against the kernels that can "
                 "overlap a piece of them", members)]
        sets += [(f"the bandwidth of collective {names[c]} against the kernels that can overlap a piece of it",
                  [c]) for c in members]
        for k in WINDOWS:
            sets += [(f"the bandwidth of {k} collectives of group {g[5:]} from {names[members[a]]}",
                      members[a:a + k]) for a in range(len(members) - k + 1)]
        for label, chosen in sets:
            x = 0
            for c in chosen:
                x |= kmask & ~first[c] & ~after[c]
            value = (sum(volume[c] for c in chosen) + _chain_latency(chosen, latency, before, comm_bit)
                     - weigh(x) - glue + min(weigh(x & first[c]) for c in chosen)
                     + min(weigh(x & after[c]) for c in chosen))
            if value > args.get(label, 0):
                args[label] = value
    label, best = max(args.items(), key=lambda a: a[1], default=("no argument forces any", 0))
    if best <= 0:
        label, best = "no argument forces any", 0
    return ExposedBound(best, work, label, tuple(sorted(((k, max(0, v)) for k, v in args.items()),
                                                         key=lambda a: -a[1])))


def _chain_latency(chosen: list[int], latency: list[int], before: dict, bit: dict) -> int:
    """The most per-call latency along a chain of *chosen* collectives each of whose first byte
    needs the whole of the one before: they cannot share a call, so each pays its own."""
    best: dict[int, int] = {}
    for c in chosen:  # in order of w(NA): a collective's whole predecessors come first
        best[c] = latency[c] + max((best[p] for p in best if before[c] >> bit[p] & 1), default=0)
    return max(best.values(), default=0)


def step_roles(step) -> tuple[list[list[int]], list[str]]:
    """The data inputs and :data:`ROLES` of an :class:`~schedcc.torch.fx_graph.FxStep`'s nodes."""
    from schedcc.torch.fx_ops import _base_name
    inputs, roles = [], []
    for node, cost in zip(step.nodes, step.costs):
        ins = [step.index.get(p, -1) for p in node.all_input_nodes]
        inputs.append(ins)
        if cost.category == "comm":
            roles.append("comm-full" if cost.collective in ("allgather", "allreduce") else "comm")
            continue
        if cost.category == "wait":
            roles.append("view")
            continue
        base = _base_name(node.target)[1] if node.op == "call_function" else ""
        if cost.category == "compute" and base not in CATS and base not in MOVES:
            roles.append("kernel")
        elif base in CATS:
            roles.append("cat")
            inputs[-1] = _reassembled(node, step.index)
        elif len(ins) == 1 and _numel(node) >= _numel(node.all_input_nodes[0]) > 0 and base != "as_strided":
            roles.append("view")
        else:
            roles.append("part")
    return inputs, roles


def _reassembled(node, index: dict) -> list[int]:
    """A concatenation's inputs, each complete set of pieces of one split (``getitem`` 0 to
    m-1 of a node whose value is a list of m tensors, as DTensor's all-gather along another
    dimension makes) replaced by the split itself: the concatenation holds every byte of it."""
    pieces: dict = {}
    for p in node.all_input_nodes:
        if p.target is operator.getitem and isinstance(p.args[0], fx.Node) and isinstance(p.args[1], int):
            pieces.setdefault(p.args[0], set()).add(p.args[1])
    whole = {s for s, got in pieces.items()
             if isinstance(s.meta.get("val"), (list, tuple)) and got == set(range(len(s.meta["val"])))}
    out = [index.get(s, -1) for s in whole]
    out += [index.get(p, -1) for p in node.all_input_nodes
            if not (p.target is operator.getitem and p.args[0] in whole)]
    return out


def _numel(node) -> int:
    """Elements of a node's value (a list's summed), 0 when unknown."""
    v = node.meta.get("val")
    vs = v if isinstance(v, (list, tuple)) else [v]
    try:
        return sum(int(x.numel()) for x in vs if hasattr(x, "numel"))
    except Exception:  # symbolic sizes
        return 0


def volume_ticks(step, estimates: str, dur: list[int]) -> tuple[list[int], list[int]]:
    """Each collective's latency-free time and per-call latency (ticks) under *estimates*
    (0 for other nodes): its bytes times the estimate's least time per byte (the slope of its
    time at large sizes, or the least time per byte over sizes from 1 KiB up, whichever is
    less), and the least of time - bytes x that over sizes from 1 byte up; their sum is at
    most the collective's duration."""
    vol, lat = [0] * len(step), [0] * len(step)
    fit = {}
    for i, cost in enumerate(step.costs):
        if cost.category != "comm":
            continue
        size, fn = collective_cost_fn(step, i, estimates)
        key = (estimates, cost.collective, step.groups[cost.group], getattr(fn, "kind", None))
        if key not in fit:
            sizes = [2.0 ** e for e in range(0, 46)]
            times = [fn(x) for x in sizes]
            slope = max(0.0, min([(times[-1] - times[-2]) / sizes[-2]] + [t / x for t, x in zip(times, sizes)
                                                                          if x >= 1024]))
            fit[key] = slope, max(0.0, min(t - slope * x for t, x in zip(times, sizes)))
        slope, alpha = fit[key]
        vol[i] = min(dur[i], int(size * slope * 1e9 * TICKS_PER_US / 1000))
        lat[i] = min(dur[i] - vol[i], int(alpha * 1e9 * TICKS_PER_US / 1000))
    return vol, lat


def collective_cost_fn(step, i: int, estimates: str):
    """(bytes, seconds-of-bytes function) of collective *i* under *estimates*."""
    cost = step.costs[i]
    ranks = step.groups[cost.group]
    if estimates == "schedcc":
        cluster = step.cluster

        def fn(x):
            return cluster.collective_time(cost.collective, x, ranks)
        fn.kind = cost.collective
        return cost.bytes, fn
    from schedcc.torch.inductor import nccl_cost_fn
    return nccl_cost_fn(step, i)


def step_volume_bound(step, dur: list[int], estimates: str) -> ExposedBound:
    """:func:`volume_bound` of an :class:`~schedcc.torch.fx_graph.FxStep` under *dur*
    (the durations of *estimates*, ``"schedcc"`` or ``"inductor"``)."""
    inputs, roles = step_roles(step)
    vol, lat = volume_ticks(step, estimates, dur)
    return volume_bound(step.streams, inputs, roles, dur, vol, [n.name for n in step.nodes], lat)

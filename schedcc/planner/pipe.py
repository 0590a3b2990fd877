"""Level 2 of the evaluation: the pipeline of (stage, microbatch) actions and the
data-parallel collectives, list-scheduled as one graph.

Each pipeline rank runs its action list in order (the lists of
:mod:`schedcc.training.pipeline`: 1F1B, Megatron-LM's interleaved 1F1B,
ZB-H1/ZB-H2; one rank with ``F0 B0 F1 B1 ...`` when ``pp = 1``), each action
as long as level 1 (:mod:`schedcc.planner.layer`) found its chunk's forward or
backward to be. Between ranks an activation (forward) or its gradient
(backward) travels as a transfer on the sender's ``pp`` channel. The
data-parallel side runs as the framework runs it
(:func:`schedcc.planner.frameworks.sharding`): gradients are reduced over
the ``dp x cp`` ranks that share a chunk's weights once per step, in the last
microbatch's backward (DDP, ZeRO-1, FSDP under a pipeline schedule), or in
every microbatch's backward (ZeRO-2), in the framework's buckets
(:func:`~schedcc.planner.frameworks.bucket_plan`: at most ``buckets`` nodes,
the last one a single real bucket), each ready a share of the way into the
backward that produces it, when gradient reduction overlaps backward; else in
one piece after the rank's last action. With ZeRO-2 every backward runs under
its own reductions and is lengthened by the cluster's ``contention`` times
that overlap (NCCL takes SMs and memory bandwidth, as ZeRO-3's per-layer
reductions pay in the layer schedules); the once-per-step reductions are
left as the calibration found them (docs/cost-model.md). Tied embeddings with
``pp > 1``: the first and last rank then all-reduce the embedding's gradient
(:func:`tied_embedding_s`). Then the optimizer step
(memory-bound: 34 bytes per parameter held, Adam's read and write of fp32
weights, gradients, moments and the bf16 copy, and the gradient norm); with
ZeRO 1 and 2 (and FSDP under a pipeline schedule) the updated weights are
all-gathered, at the start of the step, each chunk's first forward waiting
for its first bucket and its second forward for its last, when that gather
overlaps the forwards (else after the optimizer). ZeRO-3's per-layer
gathers and reduce-scatters are level 1's (:mod:`schedcc.planner.layer`).

Every node has its duration in nanoseconds; the list scheduler times the
graph and the step is its makespan. Complexity O(A log A) for A actions
(``pp x m x 2 x virtual``).

Example::

    >>> from schedcc.planner.space import Candidate, Settings
    >>> lists = action_lists(Candidate(2, 1, 4, schedule="1f1b"), m=8)
    >>> [str(a) for a in lists[3][:4]]
    ['3F0', '3B0', '3F1', '3B1']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from schedcc.planner.frameworks import bucket_plan, framework, param_broadcasts, sharding
from schedcc.planner.nic import NicUse, shared_nics
from schedcc.problem import Dep, Machine, Op, SchedGraph
from schedcc.sched.solve import ListStrategy, solve
from schedcc.training.costs import ticks
from schedcc.training.kernels import stream_time
from schedcc.training.intervals import overlap_length, union_length
from schedcc.training.pipeline import interleaved, one_f_one_b
from schedcc.training.pipeline_graph import Action, StageCosts

OPTIMIZER_BYTES_PER_PARAM = 34


def action_lists(cand, m: int, costs: StageCosts | None = None) -> list[list[Action]]:
    """Per pipeline rank, its actions in order (stage numbers: chunk c of rank r is stage c pp + r)."""
    p = cand.pp
    if p == 1:
        return [[a for i in range(m) for a in (Action("F", 0, i), Action("B", 0, i))]]
    if cand.schedule == "1f1b":
        return one_f_one_b(p, m)
    if cand.schedule == "interleaved":
        return interleaved(p, m, cand.virtual)
    limits = [min(m, p - r) if cand.schedule == "zb-h1" else min(m, 2 * (p - r) - 1) for r in range(p)]
    return zero_bubble_lists(p, m, costs or StageCosts(f=1, b=2, i=1, w=1), limits)


def zero_bubble_lists(p: int, m: int, costs: StageCosts, limits: list[int]) -> list[list[Action]]:
    """The lists of :func:`schedcc.training.pipeline.zero_bubble` (the list scheduler runs
    F, I, W with priority I > F > W under per-rank in-flight *limits*; each rank's order is
    read off the schedule), built straight as a :class:`~schedcc.problem.SchedGraph`: the
    same graph, nodes and tie-breaks, without going through networkx (a pipeline of 64
    stages and 192 microbatches in a second instead of twenty). O(p m log(p m)).

    >>> from schedcc.training.pipeline import zero_bubble
    >>> c = StageCosts(f=3, b=5, i=3, w=2)
    >>> zero_bubble_lists(4, 8, c, [4, 3, 2, 1]) == zero_bubble(4, 8, c, [4, 3, 2, 1])
    True
    """
    kinds = ("F", "I", "W")
    dur = {"F": costs.of("F"), "I": costs.of("I"), "W": costs.of("W")}
    idx = {}
    ops = []
    for r in range(p):
        for i in range(m):
            for k in kinds:
                idx[(k, r, i)] = len(ops)
                ops.append(Op(f"{r}{k}{i}", (f"r{r}",), dur[k], dur[k], (), "compute", payload=Action(k, r, i)))
    deps = []
    for r in range(p):
        for i in range(m):
            f, ii, w = idx[("F", r, i)], idx[("I", r, i)], idx[("W", r, i)]
            if r > 0:
                deps.append(Dep(idx[("F", r - 1, i)], f, "DATA", dur["F"]))
            deps.append(Dep(f, ii, "DATA", dur["F"]))
            if r < p - 1:
                deps.append(Dep(idx[("I", r + 1, i)], ii, "DATA", dur["I"]))
            deps.append(Dep(ii, w, "DATA", dur["I"]))
        for i in range(m - limits[r]):
            deps.append(Dep(idx[("I", r, i)], idx[("F", r, i + limits[r])], "MEMORY", dur["I"]))
    rank_of = {"I": 3, "F": 2, "W": 1}
    prio = [rank_of[op.payload.kind] * 10 * (m + 1) - op.payload.mb for op in ops]
    graph = SchedGraph(tuple(ops), _dedup(deps), Machine("pipeline", max(len(ops), 1), tuple(f"r{r}" for r in range(p))))
    start = solve(graph, ListStrategy(lambda g: prio, repair=False), bound=False, verify=False).schedule.cycle
    out = []
    for r in range(p):
        nodes = sorted(range(r * 3 * m, (r + 1) * 3 * m), key=lambda n: (start[n], -prio[n]))
        out.append([ops[n].payload for n in nodes])
    return out


def _dedup(deps: list[Dep]) -> tuple[Dep, ...]:
    """One dependence per pair (a networkx graph keeps one edge per pair, the last added)."""
    seen: dict[tuple[int, int], Dep] = {}
    for d in deps:
        seen[(d.src, d.dst)] = d
    return tuple(seen.values())


def inflight_layers(lists: list[list[Action]], stage_layers: tuple[int, ...]) -> list[float]:
    """Per rank, the most layer-microbatches of activations held at once: a forward
    allocates its chunk's layers, its backward (B, or I) frees them. O(actions)."""
    out = []
    for acts in lists:
        live = best = 0
        for a in acts:
            for x in (a.sub or (a,)):
                if x.kind == "F":
                    live += stage_layers[x.stage]
                    best = max(best, live)
                elif x.kind in ("B", "I"):
                    live -= stage_layers[x.stage]
        out.append(best)
    return out


def inflight_closed_form(cand, m: int, stage_layers: tuple[int, ...]) -> list[float]:
    """:func:`inflight_layers` without building the lists: on rank r, 1F1B holds
    ``min(p - r, m)`` microbatches, interleaved 1F1B ``min(2 (p - r - 1) + (v - 1) p + 1, m v)``
    chunks (its warm-up forwards and one more), ZB-H1 and ZB-H2 their limits ``p - r`` and
    ``2 (p - r) - 1``. O(pp)."""
    p, v = cand.pp, max(cand.virtual, 1)
    out = []
    for r in range(p):
        if cand.schedule == "interleaved":
            k = min(2 * (p - r - 1) + (v - 1) * p + 1, m * v)
            # Megatron-LM's warm-up runs p microbatches through chunk 0, then p through chunk 1...
            out.append(sum(stage_layers[((i // p) % v) * p + r] for i in range(k)))
        elif cand.schedule == "zb-h2":
            out.append(min(m, 2 * (p - r) - 1) * stage_layers[r])
        else:
            out.append(min(m, p - r) * stage_layers[r])
    return out


@dataclass
class StepEval:
    """The scheduled step: its time and where each rank's time went (seconds)."""

    step: float
    busy: dict[int, float]
    exposed: dict[int, float]            # level-2 communication (pp, dp) with no compute running
    exposed_by: dict[str, float] = field(default_factory=dict)  # worst rank, by channel
    optimizer: float = 0.0
    nodes: int = 0


def transfer_s(cand, cluster, model) -> float:
    """Seconds of one activation (or its gradient) sent to the next pipeline rank."""
    return _transfer(cand, cluster, model)[0]


def _transfer(cand, cluster, model) -> tuple[float, float]:
    """(seconds of one pipeline transfer, seconds of it on the NICs: 0 inside a node). The
    next pipeline rank is ``tp x cp x dp`` ranks away (Megatron-LM's order, :mod:`.nic`)."""
    stride = cand.tp * cand.cp * cand.dp
    act = cand.microbatch * model.seq / cand.cp * model.hidden * 2 / cand.tp
    xfer = cluster.collective_time("send", act, 2, stride)
    net = cluster.net_time("send", act, 2, stride)
    if not cand.sp and cand.tp > 1 and stride >= cluster.devices_per_node:
        xfer += cluster.collective_time("allgather", act * cand.tp, cand.tp, 1)  # scatter/gather: NVLink all-gather
    return xfer, net


def tied_embedding_s(cand, cluster, model, sh) -> float:
    """Seconds of the all-reduce that keeps tied input and output embeddings equal: with
    ``pp > 1`` the first pipeline rank holds the input embedding and the last the output layer,
    the same ``vocab x hidden / tp`` weights, and after the data-parallel reductions every step
    the two all-reduce its gradient, at the dtype the framework holds gradients in (Megatron-Core
    ``finalize_model_grads``: ``_allreduce_word_embedding_grads`` on ``weight.main_grad`` over the
    embedding group, after ``finish_grad_sync``, before the optimizer; DeepSpeed's pipeline
    engine reduces its tied modules the same way). The two ranks are ``(pp - 1) x tp x cp x dp``
    devices apart (Megatron-LM's order). 0 without tied embeddings or a pipeline
    (tests/test_planner_tied_embeddings.py). O(1).
    """
    if cand.pp <= 1 or not model.tied_embeddings:
        return 0.0
    size = model.embedding_params() / cand.tp * sh.grad_bytes
    return cluster.collective_time("allreduce", size, 2, (cand.pp - 1) * cand.tp * cand.cp * cand.dp)


def _nic_load(cluster, kind: str, size: float, ranks: int, stride: int) -> float:
    """Share of each member's NIC a collective keeps busy (:meth:`Cluster.net_time` over its time)."""
    t = cluster.collective_time(kind, size, ranks, stride)
    return min(1.0, cluster.net_time(kind, size, ranks, stride) / t) if t > 0 else 0.0


def optimizer_s(cand, cluster, stage_params, rank: int, sharded: bool | None = None) -> float:
    """Seconds of pipeline rank *rank*'s optimizer step (memory-bound, module docstring); *sharded*:
    the optimizer state is sharded over the ``dp x cp`` ranks (default: ZeRO >= 1)."""
    p, shard = cand.pp, cand.dp * cand.cp
    sharded = cand.zero >= 1 if sharded is None else sharded
    held = sum(stage_params[s] for s in range(len(stage_params)) if s % p == rank) / (shard if sharded else 1)
    return stream_time(cluster, held * OPTIMIZER_BYTES_PER_PARAM)


def step_lower_bound(cand, cluster, model, durations, stage_params, m: int, sh=None) -> float:
    """A lower bound on :func:`evaluate_step`'s step, without scheduling: on each rank ``r``, its
    first forward waits for microbatch 0's forwards through the stages before it (and their
    transfers), then its ``m`` forwards and backwards run one after another; after its last
    backward come its optimizer step, or microbatch ``m - 1``'s backwards down to stage 0 and
    rank 0's optimizer step (not for zero-bubble schedules, whose weight gradients may come
    last). Stages may hold different layers (``trim``): each rank's own durations count. ZeRO-2's
    backwards, lengthened in the graph under their own reductions, count at their level-1
    length here (still a bound). *sh*: the data-parallel behaviour (its optimizer sharding;
    default: ZeRO >= 1 shards). O(pp x virtual)."""
    p = cand.pp
    n = len(durations)
    xt = transfer_s(cand, cluster, model) if p > 1 else 0.0
    opt = [optimizer_s(cand, cluster, stage_params, r, sh.optimizer_sharded if sh else None) for r in range(p)]
    zb = cand.schedule.startswith("zb")
    best = 0.0
    for r in range(p):
        busy = m * sum(durations[s][0] + durations[s][1] for s in range(r, n, p))
        head = sum(durations[s][0] for s in range(r)) + r * xt
        tail = math.inf if zb else sum(durations[s][1] for s in range(r)) + r * xt + opt[0]
        best = max(best, head + busy + (opt[r] if zb else max(opt[r], tail)))
    return best


def step_graph(cand, settings, cluster, model, lists, durations, stage_params, sh=None):
    """The level-2 graph. *durations*: stage -> (f, b, i, w) seconds; *stage_params*:
    stage -> parameters per tensor-parallel shard; *sh*: the data-parallel behaviour
    (default: *settings*' framework's)."""
    sh = sh or sharding(framework(settings.framework), cand, settings)
    p, v = cand.pp, max(cand.virtual, 1)
    n_stages = p * v
    ops: list[Op] = []
    deps: list[Dep] = []
    where: dict[tuple, int] = {}
    rank_of_stage = {s: s % p for s in range(n_stages)}

    def node(name, unit, dur, payload=None) -> int:   # payload: a NicUse for what crosses a NIC
        t = ticks(dur)
        ops.append(Op(name, (unit,), t, t, (), "comm" if ":c" not in unit else "compute", False, payload))
        return len(ops) - 1

    def dep(a, b, lat=None, kind="DATA"):
        deps.append(Dep(a, b, kind, ops[a].latency if lat is None else lat))

    tick = {s: dict(zip("FBIW", (ticks(x) for x in durations[s]))) for s in durations}
    last_of_rank: dict[int, int] = {}
    last_b: dict[int, int] = {}      # stage -> its last backward-type action (B or W)
    grad_acts: dict[int, list[int]] = {}   # stage -> every action that produces weight gradients
    first_f: dict[int, list[int]] = {}
    for r, acts in enumerate(lists):   # the hot loop: tuples built directly
        prev = None
        unit = (f"r{r}:c",)
        for a in acts:
            t = tick[a.stage][a.kind]
            n = len(ops)
            ops.append(Op(a.kind, unit, t, t, (), "compute", False, (r, a.kind)))
            where[(a.kind, a.stage, a.mb)] = n
            if prev is not None:
                deps.append(Dep(prev, n, "ORDER", 0))
            prev = n
            if a.kind == "F":
                first_f.setdefault(a.stage, []).append(n)
            elif a.kind != "I":
                last_b[a.stage] = n
                grad_acts.setdefault(a.stage, []).append(n)
        last_of_rank[r] = prev
    reductions = _reductions(cand, settings, cluster, sh, stage_params, n_stages, grad_acts, last_b)
    if sh.grad_sync == "micro" and settings.grad_overlap and cluster.contention > 0:
        for n, (shares, times) in reductions.items():   # every backward slowed under its own buckets
            op = ops[n]
            d = op.latency + ticks(cluster.contention * _under(op.latency / 1e9, shares, times))
            ops[n] = op._replace(latency=d, occupancy=d)
    # activations and gradients between stages
    x_s, x_net = _transfer(cand, cluster, model)
    xt = ticks(x_s)
    x_load = min(1.0, x_net / x_s) if x_s > 0 else 0.0
    pp_units = [(f"r{r}:pp",) for r in range(p)]

    def link(src: int, dst: int, r_src: int, r_dst: int) -> None:
        if r_src == r_dst or xt <= 0:
            deps.append(Dep(src, dst, "DATA", ops[src].latency))
            return
        x = len(ops)
        ops.append(Op("xfer", pp_units[r_src], xt, xt, (), "comm", False, NicUse(x_load, (r_src, r_dst))))
        deps.append(Dep(src, x, "DATA", ops[src].latency))
        deps.append(Dep(x, dst, "DATA", xt))

    for (kind, s, mb), n in list(where.items()):
        if kind == "F":
            if s > 0:
                link(where[("F", s - 1, mb)], n, rank_of_stage[s - 1], rank_of_stage[s])
        elif kind == "W":
            src = where[("I", s, mb)]
            deps.append(Dep(src, n, "DATA", ops[src].latency))
        else:  # B or I
            src = where[("F", s, mb)]
            deps.append(Dep(src, n, "DATA", ops[src].latency))
            if s < n_stages - 1:
                nxt = where.get(("B", s + 1, mb))
                link(nxt if nxt is not None else where[("I", s + 1, mb)], n, rank_of_stage[s + 1], rank_of_stage[s])
    # data-parallel gradient reduction, optimizer, weight gather
    shard = cand.dp * cand.cp
    group = (shard, cand.tp)
    opt_time: dict[int, list[int]] = {}
    if reductions:
        for r in range(p):
            stages = [s for s in range(n_stages) if rank_of_stage[s] == r]
            held = sum(stage_params[s] for s in stages) * sh.grad_reduce_bytes
            use = NicUse(_nic_load(cluster, sh.grad_collective, held / max(settings.buckets, 1), *group), (r,))
            reduce_ops = []
            if settings.grad_overlap:
                for src in sorted(n for n in reductions if ops[n].payload[0] == r):
                    shares, times = reductions[src]
                    done = 0.0
                    for share, t in zip(shares, times):
                        done += share
                        g = node(f"grad{src}", f"r{r}:dp", t, use)
                        dep(src, g, int(ops[src].latency * min(done, 1.0)))
                        reduce_ops.append(g)
            else:   # one reduction of the rank's gradients after its last action (per microbatch: ZeRO-2)
                count = max(len(grad_acts[s]) for s in stages) if sh.grad_sync == "micro" else 1
                g = node(f"grad{r}", f"r{r}:dp", count * cluster.collective_time(sh.grad_collective, held, *group), use)
                dep(last_of_rank[r], g)
                reduce_ops.append(g)
            opt_time[r] = reduce_ops
    # tied embeddings: the first and last ranks' copies all-reduce their gradients once the
    # data-parallel reductions are done, before the optimizer (Megatron-Core finalize_model_grads)
    tied: dict[int, int] = {}
    t_tied = tied_embedding_s(cand, cluster, model, sh)
    if t_tied > 0:
        waits = [last_of_rank[r] for r in (0, p - 1)] + [g for r in (0, p - 1) for g in opt_time.get(r, ())]
        for r in (0, p - 1):
            tied[r] = node(f"tied{r}", f"r{r}:emb", t_tied)
            for w in waits:
                dep(w, tied[r])
    slowest_optimizer = 0.0
    for r in range(p):
        stages = [s for s in range(n_stages) if rank_of_stage[s] == r]
        dur = optimizer_s(cand, cluster, stage_params, r, sh.optimizer_sharded)
        slowest_optimizer = max(slowest_optimizer, dur)
        o = node(f"optimizer{r}", f"r{r}:c", dur)
        dep(last_of_rank[r], o, 0, "ORDER")
        for g in opt_time.get(r, ()):
            dep(g, o)
        if r in tied:
            dep(tied[r], o)
        if sh.gather == "step":
            for s in stages:
                if sh.gather_broadcast:
                    t, load = param_broadcasts(cand, cluster, model, stage_params, s, n_stages)
                    t, use = t / settings.buckets, NicUse(load, (r,))
                else:
                    size = stage_params[s] * 2 / settings.buckets
                    t, use = cluster.collective_time("allgather", size, *group), NicUse(_nic_load(
                        cluster, "allgather", size, *group), (r,))
                gathers = [node(f"gather{s}.{j}", f"r{r}:dp", t, use) for j in range(settings.buckets)]
                if settings.param_gather_overlap:
                    fs = first_f[s]
                    dep(gathers[0], fs[0])
                    dep(gathers[-1], fs[min(1, len(fs) - 1)])
                else:
                    for g in gathers:
                        dep(o, g)
    units = tuple(sorted({op.units[0] for op in ops}))
    return SchedGraph(tuple(ops), tuple(deps), Machine("pipeline", max(len(ops), 1), units)), slowest_optimizer


def _under(dur: float, shares: list[float], times: list[float]) -> float:
    """Seconds of a backward of *dur* seconds that its own bucket reductions overlap: bucket j
    starts when *shares[:j+1]* of the backward is done and the channel is free. O(buckets).

    >>> round(_under(1.0, [0.5, 0.5], [0.25, 0.25]), 3)
    0.25
    """
    end = done = under = 0.0
    for share, t in zip(shares, times):
        done += share
        start = max(done * dur, end)
        end = start + t
        under += max(0.0, min(end, dur) - start)
    return under


def _reductions(cand, settings, cluster, sh, stage_params, n_stages, grad_acts, last_b) -> dict:
    """Action -> (bucket shares, seconds of each bucket node) for every backward that
    reduces gradients: each stage's last (``grad_sync == "step"``) or all of them
    (``"micro"``). O(stages x microbatches x buckets)."""
    if sh.grad_sync not in ("step", "micro"):
        return {}
    group = (cand.dp * cand.cp, cand.tp)
    out = {}
    for s in range(n_stages):
        elems = stage_params[s]
        n_real, shares = bucket_plan(elems, settings.bucket_elements, settings.buckets)
        one = cluster.collective_time(sh.grad_collective, elems * sh.grad_reduce_bytes / n_real, *group)
        times = [one * share * n_real for share in shares]
        for src in (grad_acts[s] if sh.grad_sync == "micro" else [last_b[s]]):
            out[src] = (shares, times)
    return out


STEADY_FROM = 3   # pipelines of more than 3 x pp microbatches are extrapolated (see evaluate_step)
ZB_FROM = 4       # zero-bubble schedules are scheduled up to 4 x pp microbatches


def evaluate_step(cand, settings, cluster, model, durations, stage_params, m: int,
                  costs: StageCosts | None = None, sh=None) -> StepEval:
    """Schedule the level-2 graph of *m* microbatches and measure it (module docstring).

    Past the pipeline's fill, every further ``pp`` microbatches repeat the same pattern:
    the busiest rank runs their forwards and backwards back to back (the gradient
    reduction and the weight gathers sit at the ends). With more than ``STEADY_FROM x pp``
    microbatches, 1F1B, interleaved and single-stage steps are scheduled with ``2 pp`` and
    ``3 pp`` microbatches and extended by ``(m - 3 pp) / pp`` times the difference (exact:
    the same step as scheduling all ``m``, tested). Zero-bubble schedules fill the drain's
    bubble with weight gradients, so their increments approach the steady one only slowly:
    they are scheduled with ``ZB_FROM x pp`` microbatches and extended by 1F1B's steady
    increment for the same costs (within about 1% of the full schedule, on the safe side).
    No graph holds more than ``4 pp`` microbatches."""
    p = cand.pp
    zb = cand.schedule.startswith("zb")
    if m <= (ZB_FROM if zb else STEADY_FROM) * p:
        return _scheduled(cand, settings, cluster, model, action_lists(cand, m, costs), durations, stage_params, sh)
    plain = replace(cand, schedule="1f1b") if zb else cand
    a = _scheduled(plain, settings, cluster, model, action_lists(plain, 2 * p, costs), durations, stage_params, sh)
    b = _scheduled(plain, settings, cluster, model, action_lists(plain, 3 * p, costs), durations, stage_params, sh)
    if zb:
        base, m0 = _scheduled(cand, settings, cluster, model, action_lists(cand, ZB_FROM * p, costs), durations,
                              stage_params, sh), ZB_FROM * p
    else:
        base, m0 = b, 3 * p
    k = (m - m0) / p

    def ext(y, x0, x1):
        return y + k * (x1 - x0)
    return StepEval(ext(base.step, a.step, b.step), {r: ext(base.busy[r], a.busy[r], b.busy[r]) for r in base.busy},
                    {r: ext(base.exposed.get(r, 0.0), a.exposed.get(r, 0.0), b.exposed.get(r, 0.0))
                     for r in base.exposed},
                    {ch: ext(v, a.exposed_by.get(ch, 0.0), b.exposed_by.get(ch, 0.0)) for ch, v in base.exposed_by.items()},
                    base.optimizer, a.nodes + b.nodes + (base.nodes if zb else 0))


def _scheduled(cand, settings, cluster, model, lists, durations, stage_params, sh=None) -> StepEval:
    graph, opt_s = step_graph(cand, settings, cluster, model, lists, durations, stage_params, sh)
    prio = [-i for i in range(len(graph.ops))]
    start = solve(graph, ListStrategy(lambda g: prio, repair=False), bound=False, verify=False).schedule.cycle
    shared = shared_nics(graph, start)   # transfers and collectives that met on a NIC, lengthened
    if shared is not None:
        graph = shared
        start = solve(graph, ListStrategy(lambda g: prio, repair=False), bound=False, verify=False).schedule.cycle
    comp: dict[int, list] = {}
    comm: dict[int, dict[str, list]] = {}
    end = 0
    for i, op in enumerate(graph.ops):
        s, e = start[i], start[i] + op.latency
        end = max(end, e)
        rank_s, unit = op.units[0].split(":")
        r = int(rank_s[1:])
        if unit == "c":
            comp.setdefault(r, []).append((s, e))
        elif op.latency:
            comm.setdefault(r, {}).setdefault(unit, []).append((s, e))
    busy = {r: union_length(iv) / 1e9 for r, iv in comp.items()}
    exposed, by_channel = {}, {}
    for r in comp:
        total = 0.0
        for ch, iv in comm.get(r, {}).items():
            x = (union_length(iv) - overlap_length(iv, comp[r])) / 1e9
            by_channel.setdefault(r, {})[ch] = x
            total += x
        exposed[r] = total
    worst = max(exposed, key=exposed.get) if exposed else 0
    return StepEval(end / 1e9, busy, exposed, by_channel.get(worst, {}), opt_s, len(graph.ops))

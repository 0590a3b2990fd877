"""Level 1 of the evaluation: one model chunk's forward and backward, operator by operator.

A transformer layer becomes a small graph of operators (:class:`LOp`): GEMMs
priced by their shape (:func:`~schedcc.training.kernels.gemm_time`), the
attention kernel, memory-bound kernels (norms, activations, dropout and
residual adds) and the collectives the candidate needs, each on its own
channel:

* ``tp``: tensor parallelism's all-reduce after the attention projection and
  the second MLP matrix (forward) and after the QKV and first-MLP input
  gradients (backward); with sequence parallelism an all-gather before each
  column-parallel GEMM and a reduce-scatter after each row-parallel one, and
  in backward the all-gathers again for the weight gradients;
* ``cp``: ring attention for context parallelism: ``cp`` blocks of keys and
  values travel around the ring, each block's attention waiting for its
  transfer (forward K and V, backward also their gradients);
* ``dp``: ZeRO stage 3 (FSDP): each layer's weights all-gathered before its
  forward and again before its backward (only before the forward without
  resharding), its gradient reduce-scattered after; the next layer's gather
  runs ahead (FSDP's prefetch, at most two layers held). Under a pipeline
  schedule FSDP gathers once per step: level 2's (:mod:`schedcc.planner.pipe`).

Dependences carry data only, so a backward all-reduce runs under the weight gradients that
do not need it (Megatron-LM's async all-reduce; ``tp_async_allreduce = False``: after them),
a prefetched gather under the previous layer's compute: the list scheduler
(:func:`schedcc.sched.solve.solve`) finds that overlap, nothing multiplies it in. Full recomputation puts the layer's
forward again in front of its backward; selective recomputation the
attention scores (unfused kernels; a fused kernel recomputes them anyway).

A chunk of ``n`` identical layers is scheduled as a chain of ``min(n, 4)``
layers; beyond 4, each further layer adds the difference between the 4- and
3-layer schedules (the steady state). The first stage adds the embedding, the
last the final norm, the output layer and the loss (``loss_bytes``: frameworks.toml).

*Communication-overlap transformations* plug in through
:data:`OVERLAP_TRANSFORMS`: a function from a layer's operators to new ones
(splitting a GEMM and its collective into chunks, say) registered under a
name becomes a value of the planner's ``overlap`` dimension.

Example::

    >>> from schedcc.planner.model import preset
    >>> from schedcc.planner.space import Candidate, Settings
    >>> from schedcc.target import load_target
    >>> from schedcc.training.costs import cluster_of
    >>> a100 = cluster_of(load_target("dgx-a100"))
    >>> t = chunk_times(preset("gpt3-175b"), Candidate(1, 8, 8, microbatch=1, schedule="1f1b"), Settings(), a100, 12)
    >>> round(t.f * 1e3), round(t.b * 1e3)   # ms for 12 layers of GPT-3 on 8 A100s (forward, backward)
    (74, 126)
    >>> round(t.parts["exposed_tp"] * 1e3, 1)   # forward all-reduces wait; backward's run under weight gradients
    10.6
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from schedcc.planner.frameworks import framework, sharding
from schedcc.problem import Dep, Machine, Op, SchedGraph
from schedcc.sched.solve import ListStrategy, solve
from schedcc.training.costs import ticks
from schedcc.training.intervals import Coverage, overlap_length, union_length
from schedcc.training.kernels import SOFTMAX_BYTES, attention_time, gemm_time, stream_time

CHANNELS = ("compute", "tp", "cp", "dp")


@dataclass(frozen=True)
class LOp:
    """One operator of a layer: *dur* seconds on *stream*, after the operators in *deps*."""

    name: str
    stream: str
    dur: float
    deps: tuple[str, ...] = ()
    kind: str = "compute"      # "compute", "recompute" or "comm"


# name -> transformation of one layer's operators (forward or backward); "none" keeps them
# (the layer's :class:`_Layer` is passed for pricing: schedcc.planner.overlap registers tp2/tp4/tp8/auto)
OVERLAP_TRANSFORMS: dict[str, Callable[[list[LOp], str, object], list[LOp]]] = {"none": lambda ops, phase, layer: ops}


class _Layer:
    """The operators of one layer for a candidate (shapes, bytes, collectives)."""

    def __init__(self, model, cand, settings, cluster):
        self.m, self.c, self.st, self.cl = model, cand, settings, cluster
        tp, cp = cand.tp, cand.cp
        self.tokens = cand.microbatch * model.seq / cp          # tokens of a microbatch on this rank
        self.T = tp if cand.sp else 1
        h = model.hidden
        self.act = self.tokens * h * 2                          # bytes of one full activation
        self.heads = model.heads / tp
        self.kv = max(model.kv / tp, 1)
        self.gsize = dict(ranks=tp, stride=1)
        self.dp_group = dict(ranks=cand.dp * cand.cp, stride=tp)
        self.cp_stride = tp if cluster.placement(cand.cp, tp)[1] == 1 else cluster.devices_per_node  # CP ring over nodes: NIC
        self.wait = () if settings.tp_async_allreduce else ("w_fc1", "w_qkv", "w_head")  # input grads' AR after

    # -- pricing -----------------------------------------------------------------------
    def gemm(self, m, n, k, batch=1):
        return gemm_time(self.cl, m, n, k, batch)

    def attn(self, backward=False):   # the fused kernel over this rank's queries, the whole sequence's keys
        m, c = self.m, self.c
        return attention_time(self.cl, c.microbatch * self.heads, m.seq / c.cp, m.seq, m.head_dim, m.causal, backward,
                              self.st.attention)

    def stream(self, elems, bytes_per_elem):
        return stream_time(self.cl, elems * bytes_per_elem)

    def coll(self, kind, nbytes, group=None):
        g = group or self.gsize
        return self.cl.collective_time(kind, nbytes, g["ranks"], g["stride"])

    # -- forward -----------------------------------------------------------------------
    def forward(self, recompute: bool = False) -> list[LOp]:
        m, c, h = self.m, self.c, self.m.hidden
        tok, tp, T = self.tokens, c.tp, self.T
        d, f = m.head_dim, m.ffn_size
        kind = "recompute" if recompute else "compute"
        drop = 1 if m.dropout else 0
        ops: list[LOp] = []

        def op(name, stream, dur, *deps):
            ops.append(LOp(name, stream, dur, tuple(deps), "comm" if stream != "compute" else kind))
            return name

        x = op("ln1", "compute", self.stream(tok * h / T, 4), "x")
        if c.sp and tp > 1:
            x = op("ag1", "tp", self.coll("allgather", self.act), x)
        qkv = op("qkv", "compute", self.gemm(tok, (h + 2 * m.kv * d) / tp, h), x)
        a = self._attention_forward(op, qkv, kind)
        pr = op("proj", "compute", self.gemm(tok, h, h / tp), a)
        if tp > 1:
            pr = op("rs1" if c.sp else "ar1", "tp", self.coll("reduce_scatter" if c.sp else "allreduce", self.act), pr)
        r1 = op("add1", "compute", self.stream(tok * h / T, 6 + drop), pr)
        y = op("ln2", "compute", self.stream(tok * h / T, 4), r1)
        if c.sp and tp > 1:
            y = op("ag2", "tp", self.coll("allgather", self.act), y)
        f1 = op("fc1", "compute", self.gemm(tok, f / tp * (2 if m.gated else 1), h), y)
        g = op("act", "compute", self.stream(tok * f / tp, 6 if m.gated else 4), f1)
        f2 = op("fc2", "compute", self.gemm(tok, h, f / tp), g)
        if tp > 1:
            f2 = op("rs2" if c.sp else "ar2", "tp", self.coll("reduce_scatter" if c.sp else "allreduce", self.act), f2)
        op("out", "compute", self.stream(tok * h / T, 6 + drop), f2, r1)
        return ops

    def _attention_forward(self, op, qkv, kind) -> str:
        m, c = self.m, self.c
        d, b = m.head_dim, c.microbatch
        sq = m.seq / c.cp
        if self.st.attention in SOFTMAX_BYTES:   # unfused: QK^T, softmax, dropout, PV apart
            nscore = b * self.heads * sq * m.seq
            s = op("scores", "compute", self.gemm(sq, m.seq, d, b * self.heads), qkv)
            s = op("softmax", "compute", self.stream(nscore, SOFTMAX_BYTES[self.st.attention][0]), s)
            if m.dropout:
                s = op("attn_drop", "compute", self.stream(nscore, 5), s)
            return op("pv", "compute", self.gemm(sq, d, m.seq, b * self.heads), s)
        if c.cp == 1:
            return op("attn", "compute", self.attn(), qkv)
        # ring attention: cp blocks of sq x sq; block j waits for the j-th K/V transfer
        kv_bytes = 2 * b * sq * self.kv * d * 2
        block = self.attn() / c.cp
        prev, xfer = qkv, None
        for j in range(c.cp):
            deps = [prev] + ([xfer] if xfer else [])
            if j < c.cp - 1:
                xfer = op(f"kv{j}", "cp", self.cl.collective_time("send", kv_bytes, 2, self.cp_stride), *([xfer] if xfer else [qkv]))
            prev = op(f"attn{j}", "compute", block, *deps)
        return prev

    # -- backward ----------------------------------------------------------------------
    def backward(self) -> list[LOp]:
        m, c, h = self.m, self.c, self.m.hidden
        tok, tp, T = self.tokens, c.tp, self.T
        d, f = m.head_dim, m.ffn_size
        drop = 1 if m.dropout else 0
        ops: list[LOp] = []
        if c.recompute == "full":
            ops += [LOp("r." + o.name, o.stream, o.dur, tuple("r." + x if x != "x" else "x" for x in o.deps),
                        "comm" if o.stream != "compute" else "recompute") for o in self.forward(recompute=True)]
            start = "r.out"
        else:
            start = "x"

        def op(name, stream, dur, *deps):
            kind = "comm" if stream != "compute" else "recompute" if name.startswith("r.") else "compute"
            ops.append(LOp(name, stream, dur, tuple(deps), kind))
            return name

        sp, wait = c.sp and tp > 1, self.wait
        g = op("d_out", "compute", self.stream(tok * h / T, 5 + drop), start)
        if sp:
            g = op("b_ag2", "tp", self.coll("allgather", self.act), g)
        wg = op("w_fc2", "compute", self.gemm(f / tp, h, tok), g)          # weight gradient: (f x tok)(tok x h)
        g = op("d_fc2", "compute", self.gemm(tok, f / tp, h), g)
        g = op("d_act", "compute", self.stream(tok * f / tp, 10 if m.gated else 6), g)
        nf = f / tp * (2 if m.gated else 1)
        gin = op("d_fc1", "compute", self.gemm(tok, h, nf), g)
        win = "y"
        if sp:
            win = op("b_ag_in2", "tp", self.coll("allgather", self.act), start)
        op("w_fc1", "compute", self.gemm(h, nf, tok), g, win, wg)
        if tp > 1:
            gin = op("b_rs2" if sp else "b_ar2", "tp", self.coll("reduce_scatter" if sp else "allreduce", self.act), gin, *wait[:1])
        g = op("d_ln2", "compute", self.stream(tok * h / T, 6), gin)
        g2 = op("d_add1", "compute", self.stream(tok * h / T, 5 + drop), g)
        if sp:
            g2 = op("b_ag1", "tp", self.coll("allgather", self.act), g2)
        op("w_proj", "compute", self.gemm(h / tp, h, tok), g2, "w_fc1")
        g = op("d_proj", "compute", self.gemm(tok, h / tp, h), g2)
        g = self._attention_backward(op, g)
        nq = (h + 2 * m.kv * d) / tp
        gin = op("d_qkv", "compute", self.gemm(tok, h, nq), g)
        win = "x"
        if sp:
            win = op("b_ag_in1", "tp", self.coll("allgather", self.act), start)
        op("w_qkv", "compute", self.gemm(h, nq, tok), g, win, "w_proj")
        if tp > 1:
            gin = op("b_rs1" if sp else "b_ar1", "tp", self.coll("reduce_scatter" if sp else "allreduce", self.act), gin, *wait[1:2])
        op("d_ln1", "compute", self.stream(tok * h / T, 6), gin, "d_add1")
        op("dx", "compute", 0.0, "d_ln1", "w_qkv")
        return ops

    def _attention_backward(self, op, g) -> str:
        m, c = self.m, self.c
        d, b = m.head_dim, c.microbatch
        sq = m.seq / c.cp
        if self.st.attention in SOFTMAX_BYTES:   # unfused: QK^T, softmax, dropout, PV apart
            nscore = b * self.heads * sq * m.seq
            if c.recompute == "selective":
                r = op("r.scores", "compute", self.gemm(sq, m.seq, d, b * self.heads), g)
                g = op("r.softmax", "compute", self.stream(nscore, SOFTMAX_BYTES[self.st.attention][0]), r)
            n = b * self.heads
            dv = op("d_pv_v", "compute", self.gemm(m.seq, d, sq, n), g)
            dp_ = op("d_pv_p", "compute", self.gemm(sq, m.seq, d, n), g)
            if m.dropout:
                dp_ = op("d_attn_drop", "compute", self.stream(nscore, 5), dp_)
            ds = op("d_softmax", "compute", self.stream(nscore, SOFTMAX_BYTES[self.st.attention][1]), dp_)
            dq = op("d_scores_q", "compute", self.gemm(sq, d, m.seq, n), ds)
            return op("d_scores_k", "compute", self.gemm(m.seq, d, sq, n), ds, dq, dv)
        if c.recompute == "selective":   # Megatron-Core checkpoints the fused kernel: its forward again
            g = op("r.attn", "compute", self.attn(), g)
        if c.cp == 1:
            return op("d_attn", "compute", self.attn(True), g)
        kv_bytes = 2 * 2 * b * sq * self.kv * d * 2  # K, V and their gradients travel
        block = self.attn(True) / c.cp
        prev, xfer = g, None
        for j in range(c.cp):
            deps = [prev] + ([xfer] if xfer else [])
            if j < c.cp - 1:
                xfer = op(f"d_kv{j}", "cp", self.cl.collective_time("send", kv_bytes, 2, self.cp_stride), *([xfer] if xfer else [g]))
            prev = op(f"d_attn{j}", "compute", block, *deps)
        return prev

    # -- stage ends ----------------------------------------------------------------------
    def embedding(self, backward: bool) -> list[LOp]:
        h, tok, tp = self.m.hidden, self.tokens, self.c.tp
        ops = [LOp("embed", "compute", self.stream(tok * h / self.T, 6 if backward else 4))]
        if tp > 1 and not backward:
            kind = "reduce_scatter" if self.c.sp else "allreduce"
            ops.append(LOp("embed_ar", "tp", self.coll(kind, self.act), ("embed",), "comm"))
        return ops

    def head(self, backward: bool) -> list[LOp]:
        m, tok, tp, T = self.m, self.tokens, self.c.tp, self.T
        h, v = m.hidden, m.vocab / tp
        sp, loss_bytes = self.c.sp and tp > 1, framework(self.st.framework).loss_bytes   # per logit: fwd, bwd
        ops: list[LOp] = []

        def op(name, stream, dur, *deps):
            ops.append(LOp(name, stream, dur, tuple(deps), "comm" if stream != "compute" else "compute"))
            return name
        if not backward:
            x = op("final_ln", "compute", self.stream(tok * h / T, 4))
            if sp:
                x = op("head_ag", "tp", self.coll("allgather", self.act), x)
            x = op("logits", "compute", self.gemm(tok, v, h), x)
            x = op("loss", "compute", self.stream(tok * v, loss_bytes[0]), x)
            if tp > 1:
                op("loss_ar", "tp", self.coll("allreduce", tok * 12), x)
            return ops
        g = op("d_loss", "compute", self.stream(tok * v, loss_bytes[1]))
        op("w_head", "compute", self.gemm(h, v, tok), g)
        g = op("d_logits", "compute", self.gemm(tok, h, v), g)
        if tp > 1:
            g = op("head_rs" if sp else "head_ar", "tp", self.coll("reduce_scatter" if sp else "allreduce", self.act), g, *self.wait[2:])
        op("d_final_ln", "compute", self.stream(tok * h / T, 6), g, "w_head")
        return ops

    def zero3(self, ops: list[LOp], phase: str, sh) -> list[LOp]:
        """ZeRO-3 / FSDP: gather the layer's weights before it (prefetched: no data
        dependence; in backward only when they were resharded after the forward), and in
        backward reduce-scatter its gradient after it."""
        if phase == "forward" or sh.gather == "layer":
            nbytes = self.m.layer_params() / self.c.tp * 2
            gather = LOp("z_ag", "dp", self.coll("allgather", nbytes, self.dp_group), (), "comm")
            first = ops[0]
            ops = [gather, LOp(first.name, first.stream, first.dur, first.deps + ("z_ag",), first.kind)] + ops[1:]
        if phase == "backward":
            grad = sh.grad_reduce_bytes
            ops = ops + [LOp("z_rs", "dp", self.coll("reduce_scatter", self.m.layer_params() / self.c.tp * grad,
                                                        self.dp_group), ("dx",), "comm")]
        return ops


@dataclass
class ChunkTimes:
    """Seconds of one model chunk's forward (f) and backward (b) for one microbatch, and
    where the time went (compute, recompute, exposed communication by channel)."""

    f: float
    b: float
    parts: dict[str, float] = field(default_factory=dict)   # per microbatch, forward + backward


def _contended(graph: SchedGraph, start: dict, contention: float) -> SchedGraph:
    """*graph* with every compute operator longer by *contention* x the time a collective
    overlaps it (NCCL's kernels take SMs and memory bandwidth from the GEMMs they run
    under: docs/cost-model.md). O(n log n)."""
    comm = Coverage([(start[i], start[i] + op.latency) for i, op in enumerate(graph.ops)
                     if op.kind == "comm" and op.latency])
    ops = list(graph.ops)
    for i, op in enumerate(ops):
        if op.kind == "comm" or not op.latency or not comm.spans:
            continue
        both = comm.covered(start[i], start[i] + op.latency)
        if both:
            d = op.latency + round(contention * both)
            ops[i] = op._replace(latency=d, occupancy=d)
    deps = tuple(d._replace(latency=ops[d.src].latency) if d.kind == "DATA" else d for d in graph.deps)
    return SchedGraph(tuple(ops), deps, graph.machine)


def _schedule(layer_ops: list[list[LOp]], contention: float = 0.0) -> tuple[float, dict[str, float]]:
    """Chain the per-layer operator lists (layer i's input 'x' is layer i-1's last operator),
    list-schedule them on one compute stream and the channels, and measure. With
    *contention*, compute under communication is slowed (:func:`_contended`) and the
    layers scheduled once more."""
    ops: list[Op] = []
    index: dict[str, int] = {}
    deps: list[Dep] = []
    prev_out = None
    prev_gather = None
    for i, lops in enumerate(layer_ops):
        for o in lops:
            index[f"{i}.{o.name}"] = len(ops)
            d = ticks(o.dur)
            ops.append(Op(f"{i}.{o.name}", (o.stream,), d, d, (), o.kind))
        for o in lops:
            dst = index[f"{i}.{o.name}"]
            for x in o.deps:
                if x == "x":
                    if prev_out is not None:
                        deps.append(Dep(prev_out, dst, "DATA", ops[prev_out].latency))
                    continue
                src = index.get(f"{i}.{x}")
                if src is not None:
                    deps.append(Dep(src, dst, "DATA", ops[src].latency))
        gather = index.get(f"{i}.z_ag")
        if gather is not None and i >= 2:  # at most two layers' weights gathered at once
            deps.append(Dep(index[f"{i - 2}.{layer_ops[i - 2][1].name}"], gather, "MEMORY", 0))
        if gather is not None and prev_gather is not None:
            deps.append(Dep(prev_gather, gather, "ORDER", 0))
        prev_gather = gather
        prev_out = _last_compute(index, i, lops)
    graph = SchedGraph(tuple(ops), tuple(deps), Machine("layer", len(ops), CHANNELS))
    sched = solve(graph, ListStrategy(repair=False), bound=False, verify=False).schedule
    if contention > 0:
        graph = _contended(graph, sched.cycle, contention)
        ops = list(graph.ops)
        sched = solve(graph, ListStrategy(repair=False), bound=False, verify=False).schedule
    start = sched.cycle
    end = max((start[i] + op.latency for i, op in enumerate(ops)), default=0)
    busy = {"compute": [], "comm": []}
    parts = {"compute": 0.0, "recompute": 0.0, "wgrad": 0.0}
    for i, op in enumerate(ops):
        if op.units[0] == "compute":
            busy["compute"].append((start[i], start[i] + op.latency))
            parts[op.kind] = parts.get(op.kind, 0.0) + op.latency / 1e9
            if op.name.split(".", 1)[1].startswith("w_"):
                parts["wgrad"] += op.latency / 1e9
        elif op.latency:
            busy["comm"].append((start[i], start[i] + op.latency, op.units[0]))
    comp = busy["compute"]
    for ch in CHANNELS[1:]:
        iv = [(a, b) for a, b, u in busy["comm"] if u == ch]
        if iv:
            parts[f"exposed_{ch}"] = (union_length(iv) - overlap_length(iv, comp)) / 1e9
    return end / 1e9, parts


def schedule_ops(ops: list[LOp], contention: float = 0.0) -> float:
    """Seconds of one layer's operators list-scheduled alone (an overlap transformation's probe),
    compute under communication slowed by *contention* as in the step's own schedule."""
    return _schedule([ops], contention)[0]


def _last_compute(index, i, lops) -> int:
    """The layer's output: its last compute operator ('out' forward, 'dx' backward)."""
    for o in reversed(lops):
        if o.stream == "compute":
            return index[f"{i}.{o.name}"]
    return index[f"{i}.{lops[-1].name}"]


def _extrapolate(run: Callable[[int], tuple[float, dict[str, float]]], n: int) -> tuple[float, dict[str, float]]:
    """A chain of *n* identical layers from the schedules of 3 and 4 (*run(k)*: k layers scheduled)."""
    if n <= 4:
        return run(n)
    t3, p3 = run(3)
    t4, p4 = run(4)
    k = n - 4
    return t4 + k * (t4 - t3), {key: p4.get(key, 0.0) + k * (p4.get(key, 0.0) - p3.get(key, 0.0))
                                for key in {**p3, **p4}}


class LayerSchedules:
    """The layer schedules of one candidate shape (tp, cp, sp, microbatch, recompute, ZeRO-3 and its
    dp, overlap), shared by every chunk built from them: candidates that differ only in their
    pipeline or data-parallel dimensions change how many layers a chunk holds, not its layers,
    so the schedules of 1-4 chained layers, the embedding and the head are made once and
    :meth:`chunk` is O(1) after the first call per phase.

        >>> from schedcc.planner.model import preset
        >>> from schedcc.planner.space import Candidate, Settings
        >>> from schedcc.target import load_target
        >>> from schedcc.training.costs import cluster_of
        >>> a100 = cluster_of(load_target("dgx-a100"))
        >>> s = LayerSchedules(preset("gpt3-175b"), Candidate(1, 8, 8, microbatch=1, schedule="1f1b"), Settings(), a100)
        >>> s.chunk(12) == chunk_times(preset("gpt3-175b"), Candidate(1, 8, 8, microbatch=1, schedule="1f1b"),
        ...                            Settings(), a100, 12)
        True
    """

    def __init__(self, model, cand, settings, cluster):
        self.L = _Layer(model, cand, settings, cluster)
        self.sh = sharding(framework(settings.framework), cand, settings)
        self.zero3 = self.sh.gather in ("layer", "layer-fwd")   # FSDP's per-layer gathers in the layer graph
        self.transform = OVERLAP_TRANSFORMS[cand.overlap]
        self.contention = cluster.contention
        self._ops: dict[str, list[LOp]] = {}
        self._runs: dict[tuple[str, int], tuple[float, dict[str, float]]] = {}

    def layer(self, phase: str) -> list[LOp]:
        """One layer's operators in *phase* ("forward", "backward", "embedding-f", ...)."""
        ops = self._ops.get(phase)
        if ops is None:
            L = self.L
            if phase in ("forward", "backward"):
                ops = L.forward() if phase == "forward" else L.backward()
                ops = self.transform(ops, phase, L)
                ops = L.zero3(ops, phase, self.sh) if self.zero3 else ops
            else:
                kind, grad = phase.split("-")
                ops = (L.embedding if kind == "embedding" else L.head)(grad == "b")
            self._ops[phase] = ops
        return ops

    def run(self, phase: str, n: int) -> tuple[float, dict[str, float]]:
        """*n* layers of *phase* chained and scheduled (memoised)."""
        key = (phase, n)
        got = self._runs.get(key)
        if got is None:
            ops = self.layer(phase)
            got = self._runs[key] = _schedule([ops] * n, self.contention)
        return got

    def chunk(self, layers: int, first: bool = False, last: bool = False) -> ChunkTimes:
        """:func:`chunk_times` of a chunk of *layers* layers."""
        fwd, pf = _extrapolate(lambda n: self.run("forward", n), layers)
        bwd, pb = _extrapolate(lambda n: self.run("backward", n), layers)
        extras = []
        if first:
            extras += ["embedding-f", "embedding-b"]
        if last:
            extras += ["head-f", "head-b"]
        parts = {k: pf.get(k, 0.0) + pb.get(k, 0.0) for k in {**pf, **pb}}
        for phase in extras:
            t, p = self.run(phase, 1)
            if phase.endswith("f"):
                fwd += t
            else:
                bwd += t
            for k, v in p.items():
                parts[k] = parts.get(k, 0.0) + v
        return ChunkTimes(fwd, bwd, parts)


def chunk_times(model, cand, settings, cluster, layers: int, first: bool = False, last: bool = False) -> ChunkTimes:
    """Forward and backward seconds of a chunk of *layers* layers for one microbatch (module docstring),
    with the embedding when *first* and the output layer when *last* (a search shares LayerSchedules)."""
    return LayerSchedules(model, cand, settings, cluster).chunk(layers, first, last)


def overlap_names() -> tuple[str, ...]:
    return tuple(OVERLAP_TRANSFORMS)

"""Scoring one candidate: memory first, then the two scheduled levels, then the metrics.

:func:`score` checks the candidate's memory per GPU (:mod:`.memory`, with the
microbatches its schedule keeps in flight counted on its action lists); a
candidate that does not fit is reported with the term that overflows and is
not scheduled. Otherwise level 1 (:class:`.layer.LayerSchedules`, one per
layer shape: candidates that differ only in dp, pp or the schedule share its layer schedules) gives
each model chunk's forward and backward, level 2 (:func:`.pipe.evaluate_step`)
schedules the step, and :class:`Scored` carries the numbers the table shows:

* step time, tokens/s (global batch x sequence / step time);
* TFLOP/s per GPU and MFU from the model FLOPs of :mod:`.model` (no
  recomputation counted), and HFU with what recomputation adds;
* memory per GPU (the worst pipeline rank) by term;
* exposed communication: time a rank's compute stream waits on a collective
  or a transfer (inside the chunks, x microbatches, plus the pipeline level),
  on the rank where it is largest;
* bubble: the fraction of the step a rank computes nothing (its own exposed
  communication excluded), averaged over the pipeline ranks.

Example::

    >>> from schedcc.planner.model import preset
    >>> from schedcc.planner.space import Candidate, Settings
    >>> ctx = Context(preset("gpt3-175b"), "dgx-a100", gpus=64, global_batch=64)
    >>> s = score(Candidate(1, 8, 8, microbatch=1, schedule="1f1b", recompute="selective", sp=True), ctx)
    >>> s.feasible, 0.3 < s.mfu < 0.7, s.memory_per_gpu_bytes < 80e9
    (True, True, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from schedcc.target import Target, load_target
from schedcc.training.costs import Cluster, cluster_of
from schedcc.training.pipeline_graph import StageCosts
from schedcc.planner import overlap as _overlap  # noqa: F401  registers tp2/tp4/tp8/auto in layer's table
from schedcc.planner.layer import ChunkTimes, LayerSchedules
from schedcc.planner.memory import fewest_recomputed_layers, memory_of
from schedcc.planner.pipe import evaluate_step, inflight_closed_form, step_lower_bound
from schedcc.planner.space import Candidate, Settings, stage_layers


class Context:
    """What every candidate of one search shares: the model, the cluster sized for *gpus*,
    the batch, the framework settings, and the level-1 cache."""

    def __init__(self, model, target: Target | str | Cluster, gpus: int, global_batch: int,
                 settings: Settings | None = None):
        if isinstance(target, Cluster):
            cluster = target
        else:
            cluster = cluster_of(load_target(target))
        nodes = max(1, math.ceil(gpus / cluster.devices_per_node))
        self.cluster = replace(cluster, nodes=nodes)
        self.model, self.gpus, self.global_batch = model, gpus, global_batch
        self.settings = settings or Settings()
        self.cache: dict[tuple, ChunkTimes] = {}
        self.layers: dict[tuple, LayerSchedules] = {}   # per layer shape: shared by every chunk length

    def chunk(self, cand: Candidate, layers: int, first: bool, last: bool) -> ChunkTimes:
        if cand.recompute == "partial":   # the first n of the chunk's layers pay a forward again
            a = self.chunk(replace(cand, recompute="none", recompute_layers=0), layers, first, last)
            b = self.chunk(replace(cand, recompute="full", recompute_layers=0), layers, first, last)
            w = min(cand.recompute_layers, layers) / layers if layers else 0.0
            mix = lambda x, y: (1 - w) * x + w * y  # noqa: E731
            return ChunkTimes(mix(a.f, b.f), mix(a.b, b.b),
                              {k: mix(a.parts.get(k, 0.0), b.parts.get(k, 0.0)) for k in {**a.parts, **b.parts}})
        shape = (cand.tp, cand.cp, cand.sp, cand.microbatch, cand.recompute, cand.zero >= 3,
                 cand.dp if cand.zero >= 3 else 0, cand.overlap)
        key = shape + (layers, first, last)
        t = self.cache.get(key)
        if t is None:
            sched = self.layers.get(shape)
            if sched is None:
                sched = self.layers[shape] = LayerSchedules(self.model, cand, self.settings, self.cluster)
            t = self.cache[key] = sched.chunk(layers, first, last)
        return t


@dataclass
class Scored:
    """A candidate with its scores (seconds, bytes); ``reason`` says why it is infeasible."""

    candidate: Candidate
    feasible: bool
    reason: str
    microbatches: int
    memory_per_gpu_bytes: float
    memory_terms: dict[str, float]
    step_time_s: float = math.inf
    tokens_per_s: float = 0.0
    tflops_per_gpu: float = 0.0
    mfu: float = 0.0
    hfu: float = 0.0
    exposed_comm_s: float = 0.0
    bubble: float = 0.0
    breakdown: dict[str, float] = field(default_factory=dict)   # seconds of the worst rank's step

    def to_json(self) -> dict:
        data = self.candidate.to_json()
        data.update({k: v for k, v in asdict(self).items() if k != "candidate"})
        if not self.feasible:
            data["step_time_s"] = None
        return data


def _stage_params(model, cand: Candidate, layers: tuple[int, ...]) -> list[float]:
    n = len(layers)
    out = []
    for s, k in enumerate(layers):
        p = k * model.layer_params()
        if s == 0:
            p += model.embedding_params()
        if s == n - 1 and (not model.tied_embeddings or n > 1):
            p += model.embedding_params()
        out.append(p / cand.tp)
    return out


PARTIAL_NOT_NEEDED = "search default: partial recomputation only where no recomputation does not fit"


@dataclass
class Prepared:
    """A candidate that fits, with its level-1 chunk times and a lower bound on its step
    (:func:`~.pipe.step_lower_bound`: each rank's compute back to back after the pipeline's fill,
    then its drain and optimizer step; no scheduling); :func:`finish` schedules the step."""

    candidate: Candidate
    microbatches: int
    layers: tuple[int, ...]
    memory_per_gpu_bytes: float
    memory_terms: dict[str, float]
    times: dict[int, ChunkTimes]
    bound_s: float


BOUND_SLACK = 1e-3   # the bound is lowered by this share: level 2 rounds durations to whole nanoseconds


def score(cand: Candidate, ctx: Context) -> Scored:
    """Score *cand* in *ctx* (module docstring): :func:`prepare`, then :func:`finish`."""
    p = prepare(cand, ctx)
    return p if isinstance(p, Scored) else finish(p, ctx)


def prepare(cand: Candidate, ctx: Context) -> Scored | Prepared:
    """Memory and level 1 of *cand*: a :class:`Scored` when it does not fit (or is a partial
    recomputation that is not needed), else a :class:`Prepared` with the compute lower bound of
    its step (``bound_s <= finish(...).step_time_s``, tested). O(level 1, cached per shape)."""
    model, cl, st = ctx.model, ctx.cluster, ctx.settings
    m = cand.microbatches(ctx.global_batch)
    chunks = cand.pp * max(cand.virtual, 1)
    layers = stage_layers(model.layers, chunks)
    per_rank_layers = [sum(layers[s] for s in range(chunks) if s % cand.pp == r) for r in range(cand.pp)]
    inflight = inflight_closed_form(cand, m, layers)
    if cand.recompute == "partial" and not cand.recompute_layers:
        if memory_of(model, replace(cand, recompute="none"), st.attention, cl.memory_capacity, cl.memory_reserved,
                     per_rank_layers, inflight, st.fp32_params).fits:
            # the search tried partial beside none: where none fits, partial only adds a forward
            return Scored(cand, False, PARTIAL_NOT_NEEDED, m, 0.0, {})
        n, mem = fewest_recomputed_layers(model, cand, st.attention, cl.memory_capacity, cl.memory_reserved,
                                          per_rank_layers, inflight, max(layers), st.fp32_params)
        cand = replace(cand, recompute_layers=n)
    else:
        mem = memory_of(model, cand, st.attention, cl.memory_capacity, cl.memory_reserved, per_rank_layers,
                        inflight, st.fp32_params)
    if not mem.fits:
        return Scored(cand, False, mem.overflow(), m, mem.total, mem.terms)
    times = {s: ctx.chunk(cand, layers[s], s == 0, s == chunks - 1) for s in range(chunks)}
    bound = step_lower_bound(cand, cl, model, _durations(times), _stage_params(model, cand, layers), m)
    return Prepared(cand, m, layers, mem.total, mem.terms, times, bound * (1 - BOUND_SLACK))


def _durations(times: dict[int, ChunkTimes]) -> dict[int, tuple[float, float, float, float]]:
    """Stage -> (forward, backward, input gradient, weight gradient) seconds."""
    out = {}
    for s, t in times.items():
        w = t.parts.get("wgrad", 0.0)
        out[s] = (t.f, t.b, t.b - w, w)
    return out


def finish(p: Prepared, ctx: Context) -> Scored:
    """Level 2 of a prepared candidate: the step scheduled, and the metrics. O(level 2)."""
    model, cl, st = ctx.model, ctx.cluster, ctx.settings
    cand, m, layers, times = p.candidate, p.microbatches, p.layers, p.times
    chunks = len(layers)
    base = dict(candidate=cand, microbatches=m, memory_per_gpu_bytes=p.memory_per_gpu_bytes,
                memory_terms=p.memory_terms)
    mid = times[chunks // 2]
    us = lambda x: max(1, round(x * 1e6))  # noqa: E731
    costs = StageCosts(f=us(mid.f), b=us(mid.b), i=us(mid.b - mid.parts.get("wgrad", 0)),
                       w=us(mid.parts.get("wgrad", 0)))
    durations = _durations(times)
    ev = evaluate_step(cand, st, cl, model, durations, _stage_params(model, cand, layers), m, costs)
    step = ev.step
    flops = model.model_flops(ctx.global_batch)
    tflops = flops / step / ctx.gpus / 1e12
    # where the time went on the busiest rank: level-1 parts x microbatches, level-2 exposed, idle
    rank = max(ev.busy, key=lambda r: ev.busy[r] + ev.exposed.get(r, 0.0))
    parts: dict[str, float] = {}
    for s in range(chunks):
        if s % cand.pp != rank:
            continue
        for k, v in times[s].parts.items():
            if k != "wgrad":
                parts[k] = parts.get(k, 0.0) + v * m
    for ch, x in ev.exposed_by.items():
        parts[f"exposed_{ch}"] = parts.get(f"exposed_{ch}", 0.0) + x
    parts["optimizer"] = ev.optimizer
    inner_exposed = sum(v for k, v in parts.items() if k.startswith("exposed_"))
    accounted = parts.get("compute", 0.0) + parts.get("recompute", 0.0) + inner_exposed + ev.optimizer
    parts["bubble"] = max(0.0, step - accounted)
    # the chunks' durations include the communication they leave exposed: count it per rank
    inner = {r: sum(v * m for s in range(chunks) if s % cand.pp == r
                    for k, v in times[s].parts.items() if k.startswith("exposed_")) for r in ev.busy}
    bubble = sum(max(0.0, step - ev.busy[r] - ev.exposed.get(r, 0.0)) for r in ev.busy) / (len(ev.busy) * step)
    exposed = max(inner[r] + ev.exposed.get(r, 0.0) for r in ev.busy)
    return Scored(feasible=True, reason="", step_time_s=step,
                  tokens_per_s=ctx.global_batch * model.seq / step, tflops_per_gpu=tflops,
                  mfu=tflops * 1e12 / cl.peak_flops,
                  hfu=_hardware_flops(model, cand, layers, ctx.global_batch) / step / ctx.gpus / cl.peak_flops,
                  exposed_comm_s=exposed, bubble=bubble, breakdown=parts, **base)


def _hardware_flops(model, cand: Candidate, layers: tuple[int, ...], sequences: int) -> float:
    """Model FLOPs plus the recomputed forwards (partial: the recomputed share of the layers)."""
    if cand.recompute != "partial":
        return model.hardware_flops(sequences, cand.recompute)
    share = sum(min(cand.recompute_layers, k) for k in layers) / sum(layers)
    base = model.model_flops(sequences)
    return base + share * (model.hardware_flops(sequences, "full") - base)

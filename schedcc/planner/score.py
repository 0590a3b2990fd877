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
from schedcc.planner.frameworks import framework, sharding
from schedcc.planner.memory import Memory, fewest_recomputed_layers, fragmentation_share, memory_of
from schedcc.planner.pipe import evaluate_step, inflight_closed_form, step_lower_bound
from schedcc.planner.space import TRIMS, Candidate, Settings, stage_layers


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
        self.framework = framework(self.settings.framework)
        self.cache: dict[tuple, ChunkTimes] = {}
        self.layers: dict[tuple, LayerSchedules] = {}   # per layer shape: shared by every chunk length

    def sharding(self, cand: Candidate):
        return sharding(self.framework, cand, self.settings)

    def memory(self, cand: Candidate, per_rank_layers: list[int], inflight: list[float]) -> Memory:
        cl, st = self.cluster, self.settings
        return memory_of(self.model, cand, st.attention, cl.memory_capacity, cl.memory_reserved, per_rank_layers,
                         inflight, self.sharding(cand), st.bucket_elements, fragmentation_share(st.expandable_segments))

    def chunk(self, cand: Candidate, layers: int, first: bool, last: bool) -> ChunkTimes:
        if cand.recompute == "partial":   # the first n of the chunk's layers pay a forward again
            a = self.chunk(replace(cand, recompute="none", recompute_layers=0), layers, first, last)
            b = self.chunk(replace(cand, recompute="full", recompute_layers=0), layers, first, last)
            w = min(cand.recompute_layers, layers) / layers if layers else 0.0
            mix = lambda x, y: (1 - w) * x + w * y  # noqa: E731
            return ChunkTimes(mix(a.f, b.f), mix(a.b, b.b),
                              {k: mix(a.parts.get(k, 0.0), b.parts.get(k, 0.0)) for k in {**a.parts, **b.parts}})
        per_layer = cand.zero >= 3 and cand.pp == 1 and cand.dp * cand.cp > 1   # FSDP's gathers in the layer graph
        shape = (cand.tp, cand.cp, cand.sp, cand.microbatch, cand.recompute, per_layer, per_layer and cand.reshard,
                 cand.dp if per_layer else 0, cand.overlap)
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


def layout(model, cand: Candidate, trim: int | None = None) -> tuple[tuple[int, ...], list[int]]:
    """Layers of each model chunk and of each pipeline rank, for *cand*'s trim (or *trim*)."""
    chunks = cand.pp * max(cand.virtual, 1)
    layers = stage_layers(model.layers, chunks, cand.trim if trim is None else trim)
    return layers, [sum(layers[s] for s in range(chunks) if s % cand.pp == r) for r in range(cand.pp)]


def choose_trim(cand: Candidate, ctx: Context, m: int) -> int:
    """For ``trim=-1``: of the layouts of trims 0 and :data:`~schedcc.planner.space.TRIMS`,
    the one whose busiest pipeline rank computes least (level 1's chunk times, cached; the
    first chunk carries the embedding, the last the output layer and the loss) among those
    whose memory fits, else the one that needs least memory. Ties go to the smaller trim.
    O(trims x chunks).

    Llama 3 8B in 4 stages: its output layer costs about two layers, so the last stage
    is the busiest with 8 layers a stage; 7, 9, 9, 7 balances it::

        >>> from schedcc.planner.model import preset
        >>> ctx = Context(preset("llama3-8b"), "dgx-h100", gpus=32, global_batch=32)
        >>> choose_trim(Candidate(1, 8, 4, microbatch=1, schedule="1f1b", sp=True, trim=-1), ctx, 32)
        2
    """
    model, chunks = ctx.model, cand.pp * max(cand.virtual, 1)
    best, seen = None, set()
    plain = replace(cand, recompute="none", recompute_layers=0) if cand.recompute == "partial" else cand
    for t in (0,) + TRIMS:
        layers = stage_layers(model.layers, chunks, t)
        if layers is None or layers in seen:
            continue
        seen.add(layers)
        trimmed = replace(plain, trim=t)
        _, per_rank = layout(model, trimmed)
        times = [ctx.chunk(trimmed, layers[s], s == 0, s == chunks - 1) for s in range(chunks)]
        load = max(sum(times[s].f + times[s].b for s in range(r, chunks, cand.pp)) for r in range(cand.pp))
        mem = ctx.memory(trimmed, per_rank, inflight_closed_form(trimmed, m, layers))
        fits = mem.fits or cand.recompute == "partial"   # partial recomputes until it fits
        key = (not fits, round(load, 6) if fits else mem.total, t)
        if best is None or key < best[0]:
            best = (key, t)
    return best[1] if best else 0


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
    if cand.trim < 0:
        cand = replace(cand, trim=choose_trim(cand, ctx, m))
    chunks = cand.pp * max(cand.virtual, 1)
    layers, per_rank_layers = layout(model, cand)
    inflight = inflight_closed_form(cand, m, layers)
    if cand.recompute == "partial" and not cand.recompute_layers:
        if ctx.memory(replace(cand, recompute="none"), per_rank_layers, inflight).fits:
            # the search tried partial beside none: where none fits, partial only adds a forward
            return Scored(cand, False, PARTIAL_NOT_NEEDED, m, 0.0, {})
        n, mem = fewest_recomputed_layers(model, cand, st.attention, cl.memory_capacity, cl.memory_reserved,
                                          per_rank_layers, inflight, max(layers), ctx.sharding(cand),
                                          st.bucket_elements, fragmentation_share(st.expandable_segments))
        cand = replace(cand, recompute_layers=n)
    else:
        mem = ctx.memory(cand, per_rank_layers, inflight)
    if not mem.fits:
        return Scored(cand, False, mem.overflow(), m, mem.total, mem.terms)
    times = {s: ctx.chunk(cand, layers[s], s == 0, s == chunks - 1) for s in range(chunks)}
    bound = step_lower_bound(cand, cl, model, _durations(times), _stage_params(model, cand, layers), m,
                             ctx.sharding(cand))
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
    ev = evaluate_step(cand, st, cl, model, durations, _stage_params(model, cand, layers), m, costs,
                       ctx.sharding(cand))
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

"""The search: enumerate, score every candidate (in parallel), rank, summarise.

:func:`plan` enumerates the space (:mod:`.space`), scores every candidate
(:mod:`.score`) in worker processes (``workers``, default the number of
cores; :mod:`concurrent.futures`) or as tasks on a Ray cluster (``ray="auto"``
starts or joins a local Ray, ``ray="ADDRESS"`` joins a cluster; the optional
extra ``pip install schedcc[ray]``), and ranks them: feasible candidates by
step time, then the infeasible ones by how far they overflow. Candidates are
sent in chunks that share their level-1 shapes, so each worker's cache serves
a whole chunk; scoring is a pure function of the candidate, so every backend
returns the same numbers, and the ranking breaks ties by the candidate itself.

The summary follows UniAP's: the best and second-best throughput, the median
and the slowest feasible candidate, how many were infeasible, the search
time. When every candidate overflows, :func:`plan` says which memory term
and the smallest GPU count (in whole nodes) for which some configuration
fits.

Example::

    >>> from schedcc.planner.model import preset
    >>> res = plan(preset("gpt3-175b"), "dgx-a100", gpus=128, global_batch=128, workers=1,
    ...            fix="tp=8,pp=8,microbatch=1,schedule=1f1b,zero=1,sp=1")
    >>> res.searched, res.best.candidate.label()
    (2, 'dp2 tp8 pp8 mb1 1f1b z1 rc=none sp ov=auto')
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import dataclass, field, replace

from schedcc.errors import SchedccError
from schedcc.planner.memory import gib
from schedcc.planner.score import PARTIAL_NOT_NEEDED, Context, Scored, score
from schedcc.planner.space import Candidate, Settings, check_framework, enumerate_space, parse_fix
from schedcc.planner.layer import overlap_names

PROGRESS_AFTER_S = 2.0   # a progress bar appears when a search runs longer than this (on a terminal)


@dataclass
class PlanResult:
    """Ranked candidates (feasible first, best first) and the search's summary."""

    candidates: list[Scored]
    searched: int
    infeasible: int
    search_time_s: float
    gpus: int
    global_batch: int
    target: str
    model: str
    backend: str = "processes"
    capacity_bytes: float = 0.0
    peak_flops: float = 0.0
    removed: dict[str, list] = field(default_factory=dict)   # rule -> [count, example]
    without_overlap: Scored | None = None   # the winner scored again with overlap=none (what overlap gained)

    @property
    def feasible(self) -> list[Scored]:
        return [c for c in self.candidates if c.feasible]

    @property
    def best(self) -> Scored:
        return self.candidates[0]

    def summary(self) -> dict:
        ok = self.feasible
        tps = [c.tokens_per_s for c in ok]
        out = {"searched": self.searched, "feasible": len(ok), "infeasible": self.infeasible,
               "search_time_s": self.search_time_s}
        if tps:
            out.update(top1_tokens_per_s=tps[0], top2_tokens_per_s=tps[1] if len(tps) > 1 else None,
                       median_tokens_per_s=tps[len(tps) // 2] if len(tps) % 2 else (tps[len(tps) // 2 - 1]
                                                                                    + tps[len(tps) // 2]) / 2,
                       slowest_tokens_per_s=tps[-1])
        return out

    def to_json(self, top: int | None = None) -> dict:
        shown = self.candidates if top is None else self.candidates[:top]
        return {"model": self.model, "target": self.target, "gpus": self.gpus, "global_batch": self.global_batch,
                "searched": self.searched, "infeasible": self.infeasible, "search_time_s": self.search_time_s,
                "backend": self.backend, "summary": self.summary(),
                "removed_by_rules": {k: {"count": v[0], "example": v[1]} for k, v in self.removed.items()},
                "candidates": [c.to_json() for c in shown]}


def _rank_key(s: Scored):
    if s.feasible:
        return (0, s.step_time_s, s.memory_per_gpu_bytes, s.candidate)
    return (1, s.memory_per_gpu_bytes, s.candidate)


def _group_key(c: Candidate):
    return (c.tp, c.cp, c.sp, c.microbatch, c.recompute, c.zero >= 3, c.reshard, c.overlap)


def _chunks(cands: list[Candidate], n: int) -> list[list[Candidate]]:
    groups: dict = {}
    for c in cands:
        groups.setdefault(_group_key(c), []).append(c)
    out = []
    for g in groups.values():
        for i in range(0, len(g), n):
            out.append(g[i:i + n])
    return out


# -- workers: module-level so that processes and Ray can import them -----------------------
_CTX: Context | None = None


def _init(model, target, gpus, global_batch, settings) -> None:
    global _CTX
    _CTX = Context(model, target, gpus, global_batch, settings)


def _score_chunk(chunk: list[Candidate]) -> list[Scored]:
    return [score(c, _CTX) for c in chunk]


def _score_chunk_with(args) -> list[Scored]:
    model, target, gpus, global_batch, settings, chunk = args
    ctx = Context(model, target, gpus, global_batch, settings)
    return [score(c, ctx) for c in chunk]


class _Progress:
    """A progress bar on stderr, shown only on a terminal and only after PROGRESS_AFTER_S."""

    def __init__(self, total: int, enabled: bool | None):
        self.total, self.done, self.t0 = total, 0, time.perf_counter()
        self.on = sys.stderr.isatty() if enabled is None else enabled
        self.shown = False

    def advance(self, n: int) -> None:
        self.done += n
        if not self.on:
            return
        elapsed = time.perf_counter() - self.t0
        if elapsed < PROGRESS_AFTER_S and self.done < self.total:
            return
        if not self.shown and self.done >= self.total:
            return
        width = 30
        frac = self.done / self.total if self.total else 1
        eta = elapsed / frac - elapsed if frac else 0
        bar = "#" * int(width * frac) + "." * (width - int(width * frac))
        sys.stderr.write(f"\rscoring [{bar}] {self.done}/{self.total} candidates, {elapsed:.0f} s"
                         + (f", ~{eta:.0f} s left" if self.done < self.total else "") + "   ")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _run_processes(cands, model, target, gpus, batch, settings, workers, progress) -> list[Scored]:
    chunks = _chunks(cands, max(1, min(16, math.ceil(len(cands) / (4 * max(workers, 1))))))
    if workers <= 1:
        _init(model, target, gpus, batch, settings)
        out = []
        for ch in chunks:
            out += _score_chunk(ch)
            progress.advance(len(ch))
        return out
    import concurrent.futures as cf
    import multiprocessing as mp
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    out = []
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init,
                                initargs=(model, target, gpus, batch, settings)) as pool:
        futures = [pool.submit(_score_chunk, ch) for ch in chunks]
        for fut in cf.as_completed(futures):
            res = fut.result()
            out += res
            progress.advance(len(res))
    return out


def _run_ray(cands, model, target, gpus, batch, settings, address, progress) -> list[Scored]:
    try:
        import ray
    except ImportError:
        raise SchedccError("--ray needs Ray, which is not installed",
                           notes=["install the extra: pip install 'schedcc[ray]'"]) from None
    started = False
    if not ray.is_initialized():
        try:
            if address == "auto":
                try:
                    ray.init(address="auto", include_dashboard=False, log_to_driver=False, logging_level="ERROR")
                except (ConnectionError, RuntimeError, ValueError):
                    ray.init(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
            else:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        except Exception as err:  # a wrong address, an unreachable cluster
            raise SchedccError(f"--ray {address}: cannot start or join a Ray cluster: {err}") from None
        started = True
    try:
        remote = ray.remote(_score_chunk_with)
        chunks = _chunks(cands, max(1, min(32, math.ceil(len(cands) / 16))))
        pending = [remote.remote((model, target, gpus, batch, settings, ch)) for ch in chunks]
        out = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            res = ray.get(done[0])
            out += res
            progress.advance(len(res))
        return out
    finally:
        if started:
            ray.shutdown()


def plan(model, target, gpus: int, global_batch: int, fix=None, settings: Settings | None = None,
         workers: int | None = None, ray: str | None = None, progress: bool | None = None,
         explain: bool = False) -> PlanResult:
    """Search every configuration of *model* on *gpus* devices of *target* (a cluster model
    name like ``dgx-h100``, a :class:`~schedcc.target.Target` or a
    :class:`~schedcc.training.costs.Cluster`) for *global_batch* sequences per step.

    *fix* pins dimensions (``"tp=8,pp=8"`` or a dict); *settings* says what the framework
    does (``Settings(framework="megatron")`` limits the search to what Megatron-LM can run
    and prices it as Megatron-LM runs it: :mod:`schedcc.planner.frameworks`); *workers*
    processes score in
    parallel (default: the number of cores; 1: in this process); *ray* scores on Ray
    instead; *progress* forces the progress bar on or off (default: on a terminal). With
    *explain*, the winner is scored once more with ``overlap=none`` (``without_overlap``:
    what its overlap gained, for ``--explain``)."""
    t0 = time.perf_counter()
    model.check()
    settings = settings or Settings()
    fix = parse_fix(fix)
    ctx = Context(model, target, gpus, global_batch, settings)
    check_framework(ctx.framework, fix, settings.attention)
    space = enumerate_space(model, gpus, global_batch, ctx.cluster.devices_per_node, fix, overlap_names(),
                            settings.attention, ctx.framework)
    cands = space.candidates
    bar = _Progress(len(cands), progress)
    workers = os.cpu_count() or 1 if workers is None else workers
    target_arg = ctx.cluster   # a Cluster pickles: workers need no target files
    try:
        if ray:
            scored = _run_ray(cands, model, target_arg, gpus, global_batch, settings, ray, bar)
            backend = "ray"
        else:
            scored = _run_processes(cands, model, target_arg, gpus, global_batch, settings,
                                    min(workers, max(1, len(cands))), bar)
            backend = "processes" if workers > 1 else "in-process"
    finally:
        bar.close()
    redundant = [s for s in scored if s.reason == PARTIAL_NOT_NEEDED]
    if redundant:
        scored = [s for s in scored if s.reason != PARTIAL_NOT_NEEDED]
        if "recompute" in fix:   # asked for: recompute one layer per chunk, the least there is
            scored += [score(replace(s.candidate, recompute_layers=1), ctx) for s in redundant]
        else:
            space.removed[PARTIAL_NOT_NEEDED] = [len(redundant), redundant[0].candidate.label()]
    scored.sort(key=_rank_key)
    infeasible = sum(1 for s in scored if not s.feasible)
    name = getattr(target, "name", target) if not isinstance(target, str) else target
    res = PlanResult(scored, len(scored), infeasible, time.perf_counter() - t0, gpus, global_batch,
                     str(name), model.name, backend, ctx.cluster.memory_capacity, ctx.cluster.peak_flops, space.removed)
    if scored and infeasible == len(scored):
        _too_large(res, model, ctx, fix)
    if explain and res.best.feasible and res.best.candidate.overlap != "none":
        # the search tries auto, not none, where tp > 1: score the winner once without it
        res.without_overlap = score(replace(res.best.candidate, overlap="none"), ctx)
    return res


def _too_large(res: PlanResult, model, ctx: Context, fix: dict) -> None:
    """Every candidate overflows: name the term and the smallest cluster where something fits."""
    least = min(res.candidates, key=lambda s: s.memory_per_gpu_bytes)
    big = max(least.memory_terms, key=least.memory_terms.get)
    notes = [f"the least memory any configuration needs: {gib(least.memory_per_gpu_bytes)} per GPU "
             f"({least.candidate.label()}), of {gib(ctx.cluster.memory_capacity)}; largest term: "
             f"{big} {gib(least.memory_terms[big])}"]
    fits = smallest_fitting_gpus(model, ctx, fix)
    if fits:
        notes.append(f"the smallest cluster that fits: {fits} GPUs ({fits // ctx.cluster.devices_per_node} nodes) "
                     f"with a global batch of {res.global_batch}")
    else:
        notes.append("no cluster up to 65,536 GPUs fits it with this batch: shorten the sequence or the model")
    raise SchedccError(f"{model.name} does not fit on {res.gpus} GPUs of {ctx.cluster.name or 'this cluster'} "
                       f"in any configuration", notes=notes)


def smallest_fitting_gpus(model, ctx: Context, fix: dict, limit: int = 65536) -> int | None:
    """Whole nodes, doubling, until some candidate's memory fits (no scheduling). O(log limit)."""
    from schedcc.planner.pipe import inflight_closed_form
    from schedcc.planner.score import layout
    n = ctx.cluster.devices_per_node
    free = {k: v for k, v in fix.items() if k not in ("dp", "pp", "tp", "cp")}
    while n <= limit:
        if n > ctx.gpus:
            try:
                space = enumerate_space(model, n, ctx.global_batch, ctx.cluster.devices_per_node, free,
                                        attention=ctx.settings.attention, fw=ctx.framework)
            except SchedccError:
                space = None
            for c in (space.candidates if space else ()):
                c = replace(c, trim=max(c.trim, 0))
                m = c.microbatches(ctx.global_batch)
                layers, per_rank = layout(model, c)
                mem = ctx.memory(c, per_rank, inflight_closed_form(c, m, layers))
                if mem.fits:
                    return n
        n *= 2
    return None

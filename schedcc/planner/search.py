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
Level 2, the costly part, runs in order of each candidate's lower bound and
stops when no bound left can enter the best ``keep`` (:func:`_search`), unless
``exhaustive``.

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
from bisect import bisect_right
import os
import sys
import time
from dataclasses import dataclass, field, replace

from schedcc.errors import SchedccError, check_range
from schedcc.planner.memory import gib
from schedcc.planner.score import PARTIAL_NOT_NEEDED, Context, Prepared, Scored, finish, prepare, score
from schedcc.planner.space import Candidate, Settings, check_framework, enumerate_space, parse_fix
from schedcc.planner.layer import overlap_names
from schedcc.planner.progress import Progress as _Progress



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
    context: Context | None = field(default=None, repr=False, compare=False)  # model, cluster, settings (emitters)
    pruned: int = 0            # candidates that fit but whose lower bound kept them out of the best (not scheduled)
    pruned_bound_s: float = 0.0   # the least lower bound among them: none of them is faster
    band: bool = False         # the search also kept every candidate within PRUNE_BAND x the best

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
                "searched": self.searched, "infeasible": self.infeasible, "pruned": self.pruned,
                "search_time_s": self.search_time_s,
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


def _prepare_chunk(chunk: list[Candidate]) -> list:
    return [prepare(c, _CTX) for c in chunk]


def _finish_chunk(chunk: list[Prepared]) -> list[Scored]:
    return [finish(p, _CTX) for p in chunk]


def _score_chunk(chunk: list[Candidate]) -> list[Scored]:
    return [score(c, _CTX) for c in chunk]


WORK = {"prepare": _prepare_chunk, "finish": _finish_chunk, "score": _score_chunk}


def _ray_task(args) -> list:
    work, model, target, gpus, global_batch, settings, chunk = args
    _init(model, target, gpus, global_batch, settings)
    return WORK[work](chunk)


def _threads() -> int:
    """Threads of this process, native ones too (Linux's /proc; elsewhere Python's own)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading
        return threading.active_count()


class _Pool:
    """Runs a WORK function over chunks: in this process (*workers* <= 1) or in worker processes
    (each with its own :class:`Context` and level-1 cache), as lists in completion order."""

    def __init__(self, model, target, gpus, batch, settings, workers):
        self.workers, self.pool = workers, None
        # Worker processes are forked (nothing pickled, no main module run again). fork copies the
        # calling thread alone: in a process already running other threads (Ray's client, torch's
        # pools) a lock one of them holds stays held in the child, which waits for ever (seen in
        # the test suite). spawn and forkserver would run an unguarded main script again. So a
        # process with threads scores in this process.
        import multiprocessing as mp
        fork = "fork" in mp.get_all_start_methods()
        if workers > 1 and fork and _threads() > 1:
            workers = self.workers = 1
        if workers <= 1:
            _init(model, target, gpus, batch, settings)
            return
        import concurrent.futures as cf
        ctx = mp.get_context("fork") if fork else mp.get_context()
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init,
                                           initargs=(model, target, gpus, batch, settings))

    def map(self, work: str, chunks: list[list]):
        if self.pool is None:
            for ch in chunks:
                yield WORK[work](ch)
            return
        import concurrent.futures as cf
        for fut in cf.as_completed([self.pool.submit(WORK[work], ch) for ch in chunks]):
            yield fut.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown()


# Seconds allowed to reach and join a Ray cluster at an address: Ray itself retries an
# unreachable one for about a minute, and one that answers but is not Ray for ever.
REACH_TIMEOUT = 5.0
JOIN_TIMEOUT = 30.0


def check_ray_address(address: str, reach: float = REACH_TIMEOUT, join: float = JOIN_TIMEOUT) -> None:
    """Refuse, within seconds, a Ray *address* (``HOST:PORT`` or ``ray://HOST:PORT``) nothing
    answers at (a TCP connection within *reach* seconds), or where joining does not succeed
    within *join* seconds (tried in a child process, which is stopped at the deadline)."""
    import socket
    import subprocess
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SchedccError(f"--ray {address}: expected auto or HOST:PORT, e.g. 10.0.0.1:6379 or ray://10.0.0.1:10001")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=reach):
            pass
    except OSError as err:
        raise SchedccError(f"--ray {address}: nothing answers at {host}:{port} within {reach:g} s "
                           f"({err.strerror or type(err).__name__})",
                           notes=["start the cluster's head with 'ray start --head', or use --ray auto"]) from None
    code = ("import sys, ray\nray.init(address=sys.argv[1], include_dashboard=False, log_to_driver=False, "
            "logging_level='ERROR')\nray.shutdown()\n")
    try:
        done = subprocess.run([sys.executable, "-c", code, address], capture_output=True, text=True, timeout=join)
    except subprocess.TimeoutExpired:
        raise SchedccError(f"--ray {address}: could not join the Ray cluster within {join:g} s",
                           notes=[f"something answers at {host}:{port}, but not as a Ray cluster's head "
                                  "(its GCS port, 6379 by default)"]) from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["Ray failed"])[-1]
        raise SchedccError(f"--ray {address}: cannot join the Ray cluster: {last[:200]}")


class _RayPool:
    """Runs a WORK function over chunks as tasks on Ray (``"auto"`` starts or joins a local Ray;
    an address joins that cluster, checked before by :func:`check_ray_address`); each task
    builds its own :class:`Context`."""

    def __init__(self, model, target, gpus, batch, settings, address):
        try:
            import ray
        except ImportError:
            raise SchedccError("--ray needs Ray, which is not installed",
                               notes=["install the extra: pip install 'schedcc[ray]'"]) from None
        self.ray, self.started, self.args = ray, False, (model, target, gpus, batch, settings)
        if not ray.is_initialized():
            try:
                if address == "auto":
                    try:
                        ray.init(address="auto", include_dashboard=False, log_to_driver=False, logging_level="ERROR")
                    except (ConnectionError, RuntimeError, ValueError):
                        ray.init(include_dashboard=False, log_to_driver=False, logging_level="ERROR")
                else:
                    ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
            except Exception as err:  # a wrong address, an unreachable cluster, a local start too slow
                notes = []
                if "timed out during startup" in str(err):  # ray-project/ray#65983
                    notes = ["a local Ray's raylet waits a fixed 15 s for its dashboard agent to start, too "
                             "short on a loaded machine: try again, or start Ray first ('ray start --head') "
                             "and use --ray auto"]
                raise SchedccError(f"--ray {address}: cannot start or join a Ray cluster: {err}",
                                   notes=notes) from None
            self.started = True
        self.remote = ray.remote(_ray_task)

    def map(self, work: str, chunks: list[list]):
        pending = [self.remote.remote((work, *self.args, ch)) for ch in chunks]
        while pending:
            done, pending = self.ray.wait(pending, num_returns=1)
            yield self.ray.get(done[0])

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()


PRUNE_BAND = 1.5   # band=True: every candidate that could come within this factor of the best (the picture's band)


def _limit(steps: list[float], keep: int, band: bool, runnable_best: float = -math.inf) -> float:
    """The step a candidate's lower bound must not exceed to be scheduled (with a *runnable*
    test, also the best runnable step found so far: every candidate that can beat it is ranked)."""
    kth = steps[-1] if len(steps) >= keep else math.inf
    return max(kth, PRUNE_BAND * steps[0] if band and steps else kth, runnable_best)


def _search(cands, pool, progress, keep: int, band: bool, exhaustive: bool, chunk: int, batch: int,
            runnable=None):
    """Score *cands* on *pool*: memory and level 1 for all (:func:`~.score.prepare`), then level 2
    (:func:`~.score.finish`) in order of the prepared candidates' lower bounds, until the next
    bound exceeds the *keep*-th best step scheduled so far (with *band*, also
    :data:`PRUNE_BAND` x the best): no candidate left can enter the top *keep* (or the band of
    real choices). Level 2 runs
    in batches of *batch* candidates, the limit updated between them; at the end, the candidates
    scheduled on the way whose bound exceeds the final limit are counted with the pruned ones,
    so every pool size returns the same candidates. With *runnable* (a test of a candidate: can
    the framework of ``--emit`` run it?), also every candidate whose bound does not exceed the best
    runnable step found (until one is found, all): the best runnable candidate and every one
    ranked above it are then exactly those of an exhaustive search. Returns (scored, pruned)."""
    out: list[Scored] = []
    ready: list[Prepared] = []
    for res in pool.map("prepare", _chunks(cands, chunk)):
        for r in res:
            (out if isinstance(r, Scored) else ready).append(r)
        progress.advance(len(res))
    ready.sort(key=lambda p: (p.bound_s, p.candidate))
    bounds = [p.bound_s for p in ready]
    steps: list[float] = []   # the best *keep* steps so far, ascending
    run_best = -math.inf if runnable is None else math.inf
    i = 0
    progress.scheduling(0, len(ready))
    while i < len(ready):
        if not exhaustive and steps:
            if ready[i].bound_s > _limit(steps, keep, band, run_best):
                break
        part = ready[i:i + batch]
        i += len(part)
        size = max(1, math.ceil(len(part) / max(1, batch // 2)))
        done = i - len(part)
        for res in pool.map("finish", [part[j:j + size] for j in range(0, len(part), size)]):
            out += res
            done += len(res)
            steps = sorted(steps + [s.step_time_s for s in res if s.feasible])[:keep]
            if runnable is not None:
                run_best = min([run_best] + [s.step_time_s for s in res if s.feasible and runnable(s.candidate)])
            # at most: the batch's rest, and those after it whose bound is under the limit
            under = len(ready) if exhaustive or not steps else bisect_right(bounds, _limit(steps, keep, band,
                                                                                            run_best))
            progress.scheduling(done, i - done + max(0, under - i))
    pruned = ready[i:]
    if not exhaustive and steps:
        # the final limit is below every limit used on the way: what it keeps, every pool size scheduled
        limit = _limit(steps, keep, band, run_best)
        bound = {p.candidate: p.bound_s for p in ready[:i]}
        late = {c for c, b in bound.items() if b > limit}
        pruned += [p for p in ready[:i] if p.candidate in late]
        out = [s for s in out if s.candidate not in late]
    return out, pruned


def plan(model, target, gpus: int, global_batch: int, fix=None, settings: Settings | None = None,
         workers: int | None = None, ray: str | None = None, progress: bool | None = None,
         explain: bool = False, keep: int = 10, band: bool = False, exhaustive: bool = False,
         runnable=None) -> PlanResult:
    """Search every configuration of *model* on *gpus* devices of *target* (a cluster model
    name like ``dgx-h100``, a :class:`~schedcc.target.Target` or a
    :class:`~schedcc.training.costs.Cluster`) for *global_batch* sequences per step.

    *fix* pins dimensions (``"tp=8,pp=8"`` or a dict); *settings* says what the framework
    does (``Settings(framework="megatron")`` limits the search to what Megatron-LM can run
    and prices it as Megatron-LM runs it: :mod:`schedcc.planner.frameworks`); *workers*
    processes score in
    parallel (default: the number of cores; 1: in this process); *ray* scores on Ray
    instead; *progress* forces progress on stderr on or off (default: a bar on a terminal, a line every
    few seconds elsewhere: a log, a pipe). With
    *explain*, the winner is scored once more with ``overlap=none`` (``without_overlap``:
    what its overlap gained, for ``--explain``).

    Every candidate's memory and level 1 are computed; the pipeline step is scheduled only for
    those whose lower bound lets them enter the best *keep* (with *band*, also those that
    could come within :data:`PRUNE_BAND` x the best step: the Pareto picture's band)
    (:func:`_search`): the best *keep* (and every candidate in the band) are exactly what
    scheduling all of them gives; the others are counted in ``pruned``, not ranked.
    *exhaustive* schedules every candidate that fits. *runnable* (a test of a candidate)
    also schedules every candidate that can beat the best one passing it (``--emit``: the best
    candidate the framework can run, and the rank of each one above it, exactly)."""
    t0 = time.perf_counter()
    model.check()
    settings = settings or Settings()
    fix = parse_fix(fix)
    check_range(keep, 1, 1_000_000, "keep", integer=True)
    joined = "ray" in sys.modules and sys.modules["ray"].is_initialized()
    if ray and ray != "auto" and not joined:
        check_ray_address(ray)  # within seconds, before any work
    ctx = Context(model, target, gpus, global_batch, settings)
    check_framework(ctx.framework, fix, settings.attention)
    space = enumerate_space(model, gpus, global_batch, ctx.cluster.devices_per_node, fix, overlap_names(),
                            settings.attention, ctx.framework)
    cands = space.candidates
    bar = _Progress(len(cands), progress)
    workers = os.cpu_count() or 1 if workers is None else workers
    workers = min(workers, max(1, len(cands)))
    target_arg = ctx.cluster   # a Cluster pickles: workers need no target files
    args = (model, target_arg, gpus, global_batch, settings)
    pool = None
    try:
        if ray:
            pool = _RayPool(*args, ray)
            chunk, batch, backend = max(1, min(32, math.ceil(len(cands) / 16))), 32, "ray"
        else:
            pool = _Pool(*args, workers)
            chunk = max(1, min(16, math.ceil(len(cands) / (4 * workers))))
            batch = 1 if workers <= 1 else 4 * workers
            backend = "processes" if workers > 1 else "in-process"
        scored, pruned = _search(cands, pool, bar, keep, band, exhaustive, chunk, batch, runnable)
    finally:
        bar.close()
        if pool is not None:
            pool.close()
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
                     str(name), model.name, backend, ctx.cluster.memory_capacity, ctx.cluster.peak_flops, space.removed,
                     context=ctx, pruned=len(pruned), pruned_bound_s=min((p.bound_s for p in pruned), default=0.0),
                     band=band)
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

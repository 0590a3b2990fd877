"""Choose and apply the communication-hiding transformations of a training step.

:func:`decompose` takes a step (a program or a graph), a cluster model and a
choice, and returns an :class:`Overlap`: the transformed program and graph,
what was chosen and why. The choice:

* ``chunks``: one K for every site (:mod:`schedcc.training.overlap`), or
  ``"auto"``: for each class of identical sites (the same operators and
  sizes: every layer and microbatch of a generated model), each K in
  ``candidates`` is priced by list-scheduling the chunked site alone with the
  cost model; the fastest wins (the smaller K on a tie). A site whose K would
  leave fewer rows than a chunk needs keeps the largest K it can take;
* ``pairing``: microbatch-level overlap (:mod:`schedcc.training.fbpair`):
  ``"off"``, ``"bf"`` (each backward run with the forward run after it),
  ``"bf+bb"`` (also consecutive backward runs: the cool-down), ``"bf+fill"``
  (``bf`` with weight gradients filling the gaps), or ``"auto"``.

With ``"auto"`` in either, the whole step is scheduled under the policy for
every candidate (the step as given, the chunks alone, the chunks with each
pairing) and the fastest is kept among those whose peak activation memory
stays within ``memory_limit`` (default: the step as given's, so pairing that
costs memory is kept only when allowed); every candidate is reported.
Everything is priced by the cost model, so ``--set contention=...`` changes
the choice.

Example::

    >>> from schedcc import training
    >>> prog = training.generate(layers=2, hidden=2048, seq=2048, microbatches=2, tp=4)
    >>> ov = decompose(prog, "h100-8x", chunks="auto", pairing="off", iterations=1)
    >>> [(c.kinds, c.chunks) for c in ov.classes][:1]
    [('matmul + allreduce(tp) + layernorm + matmul + gelu + matmul + allreduce(tp) + layernorm + matmul', 2)]
    >>> ov.best.step_time_us < ov.candidates[0].step_time_us
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc._perf import paused_gc
from schedcc.errors import SchedccError
from schedcc.ir import Program
from schedcc.target import Target, load_target
from schedcc.training.costs import TICKS_PER_US, apply_overrides
from schedcc.training.fbpair import find_pairs, pair_microbatches
from schedcc.training.graph import TrainingGraph, build_training_graph
from schedcc.training.overlap import (OVERLAP_GROUPS, Site, _signature, chunk_sites, find_sites, schedule_alone,
                                      site_pieces)

CANDIDATES = (1, 2, 4, 8)
PAIRINGS = {"off": None, "bf": (("BF",), False), "bf+bb": (("BF", "BB"), False), "bf+fill": (("BF",), True)}


@dataclass
class SiteClass:
    """Identical sites (other layers and microbatches) and the K chosen for them."""

    kinds: str                       # the operators, by opcode
    sites: int                       # how many
    layers: tuple[float, float] | None
    ranks: tuple[int, ...]
    chunks: int
    makespan_us: dict[int, float] = field(default_factory=dict)  # K -> the site alone, scheduled

    def to_json(self) -> dict:
        return {"operators": self.kinds, "sites": self.sites, "layers": list(self.layers) if self.layers else None,
                "ranks": list(self.ranks), "chunks": self.chunks,
                "makespan_us": {str(k): v for k, v in self.makespan_us.items()}}


@dataclass
class Candidate:
    """One whole-step candidate and its schedule's numbers (microseconds)."""

    label: str
    chunks: str
    pairing: str
    step_time_us: float
    exposed_comm_us: float
    exposed_by_group: dict[str, float]
    peak_activation_bytes: float
    result: object = field(default=None, repr=False)

    def to_json(self) -> dict:
        return {"label": self.label, "chunks": self.chunks, "pairing": self.pairing,
                "step_time_us": self.step_time_us, "exposed_comm_us": self.exposed_comm_us,
                "exposed_by_group": self.exposed_by_group, "peak_activation_bytes": self.peak_activation_bytes}


@dataclass
class Overlap:
    """What :func:`decompose` chose and built."""

    program: Program                 # the transformed step
    graph: TrainingGraph             # ... built on the cluster model
    chunks_mode: str                 # "auto" or the K asked for
    pairing: str                     # the pairing applied
    sites: list[Site]
    chunks: dict[int, int]           # site index -> K
    classes: list[SiteClass]
    candidates: list[Candidate]      # scheduled candidates (empty when nothing was left to choose)
    chosen: str = ""                 # the label of the kept candidate
    target: str = ""
    policy: str = ""
    failed: list[tuple[str, str]] = field(default_factory=list)  # (candidate, why it cannot run)
    memory_limit: float | None = None  # bytes of peak activations a kept candidate stays within (None: no choice)

    @property
    def baseline(self) -> Candidate | None:
        return next((c for c in self.candidates if c.chunks == "1" and c.pairing == "off"), None)

    @property
    def best(self) -> Candidate | None:
        return next((c for c in self.candidates if c.label == self.chosen), None)

    def to_json(self) -> dict:
        return {"target": self.target, "policy": self.policy,
                "chunks_mode": self.chunks_mode, "pairing": self.pairing, "chosen": self.chosen,
                "sites": len(self.sites), "chunked_sites": sum(1 for k in self.chunks.values() if k > 1),
                "classes": [c.to_json() for c in self.classes],
                "candidates": [c.to_json() for c in self.candidates],
                "failed": [{"label": a, "error": b} for a, b in self.failed]}


def _graph(step, target: Target, groups, overrides) -> TrainingGraph:
    if isinstance(step, TrainingGraph):
        if not overrides and not groups and target is step.target:
            return step
        step = step.program
    return build_training_graph(step, apply_overrides(target, overrides), groups)


def decompose(step, target: Target | str, chunks: int | str = "auto", pairing: str = "off",
              policy: str = "priority", iterations: int = 3, candidates=CANDIDATES, groups=None,
              overrides=None, overlap_groups=OVERLAP_GROUPS, memory_limit: float | None = None,
              **policy_options) -> Overlap:
    """Apply (and with ``"auto"`` choose) the transformations; see the module docstring.
    *step* is a :class:`~schedcc.ir.Program` or a training graph; nothing is changed in place.
    With a choice to make, a candidate whose peak activation memory (bytes, worst rank)
    exceeds *memory_limit* is not kept (default: the step as given's peak, so ``auto``
    never buys speed with memory unless allowed)."""
    if pairing not in PAIRINGS and pairing != "auto":
        raise SchedccError(f"unknown pairing '{pairing}'", notes=["choose " + ", ".join([*PAIRINGS, "auto"])])
    if chunks != "auto" and (not isinstance(chunks, int) or isinstance(chunks, bool) or chunks < 1):
        raise SchedccError(f"the number of chunks must be a whole number of at least 1 or 'auto', got {chunks!r}")
    candidates = sorted({int(k) for k in candidates} | {1})
    with paused_gc():
        tgt = target if isinstance(target, Target) else load_target(target)
        tg = _graph(step, tgt, groups, overrides)
        sites = find_sites(tg, overlap_groups)
        classes, per_site = _choose_chunks(tg, sites, chunks, candidates)
        chunked = chunk_sites(tg, per_site, sites) if any(k > 1 for k in per_site.values()) else tg.program
        ctg = build_training_graph(chunked, tg.target, tg.groups) if chunked is not tg.program else tg
        label = "auto" if chunks == "auto" else f"K={chunks}"
        options = [("as given", "1", "off", tg)]
        if ctg is not tg:
            options.append((f"chunks ({label})", label, "off", ctg))
        for name in ([pairing] if pairing != "auto" else [p for p in PAIRINGS if p != "off"]):
            if name == "off" or not find_pairs(ctg):
                continue
            kinds, fill = PAIRINGS[name]
            paired = pair_microbatches(ctg, find_pairs(ctg, kinds), fill=fill)
            options.append((f"chunks ({label}) + pairing {name}" if ctg is not tg else f"pairing {name}",
                            label if ctg is not tg else "1", name, build_training_graph(paired, tg.target, tg.groups)))
        if chunks != "auto" and pairing != "auto":
            options = options[-1:]  # nothing to choose: the transformation asked for
        scored, failed = [], []
        from schedcc.training.api import schedule
        for text, ch, pair, graph in options:
            res = None
            if len(options) > 1:
                try:
                    res = schedule(graph, graph.target, policy, iterations, **policy_options)
                except SchedccError as err:  # an order that deadlocks across ranks: not a candidate
                    if err.internal:  # a schedule that fails its verifier: a bug, not a candidate's fault
                        raise
                    failed.append((text, err.message))
                    continue
            scored.append((text, ch, pair, graph, res))
        cands = [Candidate(t, ch, p, r.step_time_us, r.exposed_comm_us, dict(r.exposed_by_group),
                           max(r.peak_activation_bytes.values(), default=0.0), r)
                 for t, ch, p, _, r in scored if r is not None]
        if not scored:
            raise SchedccError("no candidate of the overlap transformation can run", notes=[e for _, e in failed])
        best, limit = scored[-1], None
        if cands:
            limit = memory_limit if memory_limit is not None else _peak(scored[0][4])
            fits = [x for x in scored if _peak(x[4]) <= limit * (1 + 1e-9)] or scored[:1]
            best = min(fits, key=lambda x: x[4].step_time_us)
        text, ch, pair, graph, _ = best
        if ch == "1":
            per_site = {s.index: 1 for s in sites}
            for c in classes:
                c.chunks = 1
        return Overlap(graph.program, graph, str(chunks), pair, sites, per_site, classes, cands, text,
                       tg.target.name, policy, failed, limit)


def _peak(result) -> float:
    return max(result.peak_activation_bytes.values(), default=0.0)


def _choose_chunks(tg: TrainingGraph, sites: list[Site], chunks, candidates) -> tuple[list[SiteClass], dict]:
    """K per site: the one asked for (at most the site's rows), or per class of identical
    sites the fastest candidate, each priced by scheduling the chunked site alone."""
    nodes = tg.graph.nodes
    by_class: dict[tuple, list[Site]] = {}
    for s in sites:
        by_class.setdefault(_signature([nodes[n]["instr"] for n in s.nodes]), []).append(s)
    classes, per_site = [], {}
    for members in by_class.values():
        first = members[0]
        limit = first.rows or max(candidates)
        spans: dict[int, float] = {}
        if chunks == "auto":
            for k in candidates:
                if k <= limit:
                    spans[k] = site_makespan(tg, first, k) / TICKS_PER_US
            k = min(spans, key=lambda k: (round(spans[k], 3), k))
        else:
            k = min(chunks, limit)
        layers = [s.layer for s in members if s.layer is not None]
        classes.append(SiteClass(first.describe(), len(members), (min(layers), max(layers)) if layers else None,
                                 tuple(sorted({s.rank for s in members})), k, spans))
        for s in members:
            per_site[s.index] = k
    return classes, per_site


def site_makespan(tg: TrainingGraph, site: Site, k: int) -> int:
    """Ticks from the first to the last operator of *site* cut in *k* chunks and list-scheduled
    alone on *tg*'s cluster (its inputs there at time 0)."""
    run = schedule_alone(tg, site_pieces(tg, site, k))
    return max(run.end.values(), default=0)

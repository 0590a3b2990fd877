"""Is the planner's answer plausible? Six common questions, their winners against published runs.

For each question of :data:`QUESTIONS` (a model on N GPUs of A100 or H100
with a global batch), :func:`ask` runs the whole default search
(``--framework any``) and compares the winner's MFU with the range of MFU
that published runs of a similar size reached on the same GPU (the rows of
``validation.toml`` whose model has between half and twice the parameters:
their published throughput converted to MFU by the planner's own FLOP count,
:func:`schedcc.planner.validation.published_step`). A winner above that range
is an answer no framework has shown; one below it a planner that misses what
others run.

The winner is then scored again as the first framework that can run all of
it would (``megatron``, ``nemo``, ``torchtitan``, ``deepspeed``, ``composer``,
:func:`runnable_by`): ``any`` mixes what different frameworks do, and the
re-score says what the winner costs in real software. When no framework runs
all of it (say, a zero-bubble schedule with context parallelism), the
question is searched again as Megatron-LM (:data:`FALLBACK`) and that
search's winner is the answer one could launch. So is the framework's own
search when the winner does not fit in memory as that framework holds its
states (DeepSpeed's gradient buckets, say).

``bench/bench_plausibility.py`` prints the table of docs/validation.md
(about a CPU minute for all six: ``bench/``; the tests ask cheap pinned samples).

Example::

    >>> from schedcc.planner.space import Candidate
    >>> runnable_by(Candidate(64, 1, 1, zero=2))
    'deepspeed'
    >>> runnable_by(Candidate(8, 8, 4, virtual=2, schedule="interleaved", zero=1, sp=True, overlap="auto"))
    'megatron'
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

from schedcc.planner.frameworks import framework
from schedcc.planner.model import preset

PREFERENCE = ("megatron", "nemo", "torchtitan", "deepspeed", "composer")
FALLBACK = "megatron"   # searched again as this framework when none of PREFERENCE runs the winner


@dataclass(frozen=True)
class Question:
    name: str
    model: str
    gpus: int
    global_batch: int
    target: str
    overrides: tuple = ()
    fix: str | None = None   # pins for a cheaper search (the tests); None: the whole default space


QUESTIONS = (
    Question("Llama 3 8B on 8 H100", "llama3-8b", 8, 64, "dgx-h100"),
    Question("MPT 13B-shape on 64 A100", "mpt-13b", 64, 512, "dgx-a100"),
    Question("MPT 30B on 32 H100", "mpt-30b", 32, 512, "dgx-h100"),
    Question("Llama 3 70B on 256 H100", "llama3-70b", 256, 512, "dgx-h100"),
    Question("GPT-3 175B on 1024 A100", "gpt3-175b", 1024, 1536, "dgx-a100"),
    Question("Llama 3.1 405B on 1024 H100", "llama3.1-405b", 1024, 512, "dgx-h100"),
)


def runnable_by(cand) -> str | None:
    """The first framework of :data:`PREFERENCE` that offers every dimension of *cand*
    (``None``: only the mixture ``any`` runs it). O(frameworks)."""
    for name in PREFERENCE:
        fw = framework(name)
        keys = {"tp": cand.tp, "pp": cand.pp, "cp": cand.cp, "sp": cand.sp, "schedule": cand.schedule,
                "virtual": cand.virtual, "trim": max(cand.trim, 0), "zero": cand.zero,
                "recompute": cand.recompute, "overlap": cand.overlap}
        if cand.zero == 3:
            keys["reshard"] = cand.reshard if cand.pp == 1 else False
        if not all(fw.offers(k, v) for k, v in keys.items()):
            continue
        if cand.pp > 1 and cand.zero >= 2 and cand.zero not in fw.zero_with_pp:
            continue
        return name
    return None


def published_range(model, target: str) -> tuple[float, float, list[str]]:
    """(lowest, highest) published MFU of the validation rows on *target* whose model has
    half to twice *model*'s parameters, and their ids. O(rows)."""
    from schedcc.planner.validation import load, model_of, published_step
    from schedcc.target import load_target
    from schedcc.training.costs import cluster_of
    data = load()
    peak = cluster_of(load_target(target)).peak_flops
    size = model.params()
    found = []
    for row in data["rows"]:
        if row["target"] != target:
            continue
        m = model_of(row)
        if not 0.5 <= m.params() / size <= 2.0:
            continue
        step = published_step(row, data["sources"][row["source"]]["metric"], m)
        found.append((m.model_flops(row["global_batch"]) / step / row["gpus"] / peak, row["id"]))
    if not found:
        return float("nan"), float("nan"), []
    return min(f for f, _ in found), max(f for f, _ in found), [i for _, i in found]


def reported_range(model, target: str) -> tuple[float, float, list[str]]:
    """(lowest, highest) MFU, as their sources report it, of the ``[[reported]]`` runs of
    ``validation.toml`` on *target* whose model has half to twice *model*'s parameters, and their
    ids: published runs the planner cannot price as rows (a changed block, say), so they widen
    the plausibility range, shown apart, and are never predicted. O(runs)."""
    from schedcc.planner.validation import load, model_of
    size = model.params()
    found = [(r["mfu"], r["id"]) for r in load().get("reported", ())
             if r["target"] == target and 0.5 <= model_of(r).params() / size <= 2.0]
    if not found:
        return float("nan"), float("nan"), []
    return min(f for f, _ in found), max(f for f, _ in found), [i for _, i in found]


def ask(q: Question, workers: int | None = 2) -> dict:
    """Search *q*, compare its winner with the published range, re-score it as its framework."""
    from schedcc.planner.score import Context, score
    from schedcc.planner.search import plan
    from schedcc.planner.space import Settings, parse_fix
    model = _model(q)
    res = plan(model, q.target, gpus=q.gpus, global_batch=q.global_batch, fix=q.fix, workers=workers,
               progress=False)
    best = res.best
    lo, hi, ids = published_range(model, q.target)
    rlo, rhi, rids = reported_range(model, q.target)
    fw = runnable_by(best.candidate)
    rescored, again = None, None
    if fw:
        ctx = Context(model, q.target, q.gpus, q.global_batch, Settings(framework=fw))
        rescored = score(replace(best.candidate, trim=best.candidate.trim if framework(fw).uneven_stages else 0), ctx)
    if not fw or not rescored.feasible:
        # no single framework runs the winner (or it does not fit as that framework holds its
        # states): what would that framework's (or Megatron-LM's) own search answer?
        name = fw or FALLBACK
        fw_pins = {k: v for k, v in parse_fix(q.fix).items() if framework(name).offers(k, v)}
        again = plan(model, q.target, gpus=q.gpus, global_batch=q.global_batch, fix=fw_pins or None,
                     workers=workers, progress=False, settings=Settings(framework=name))
        rescored = again.best
    return {"question": q.name, "winner": best.candidate.label(), "mfu": best.mfu, "low": lo, "high": hi,
            "rows": ids, "reported_low": rlo, "reported_high": rhi, "reported": rids,
            "framework": fw or (FALLBACK if again else None), "runs_winner": fw is not None,
            "searched_again": again.best.candidate.label() if again else None,
            "rescored_mfu": rescored.mfu if rescored and rescored.feasible else None,
            "rescored_note": (rescored.reason if rescored and not rescored.feasible else ""),
            "searched": res.searched + (again.searched if again else 0),
            "seconds": res.search_time_s + (again.search_time_s if again else 0.0)}


def _model(q: Question):
    if q.model == "mpt-13b":   # MosaicML's 13B (validation row mpt-13b-h100-64)
        from schedcc.planner.model import ModelSpec
        return ModelSpec(layers=40, hidden=5120, heads=40, seq=2048, vocab=50368, tied_embeddings=True,
                         name="mpt-13b")
    return preset(q.model, **dict(q.overrides))


def markdown(results: list[dict]) -> str:
    """The plausibility table of docs/validation.md."""
    lines = ["| question | winner (`--framework any`) | MFU | published MFU, similar size: rows | "
             "and reported runs | within | run as | its MFU |", "|---|---|---:|---:|---:|---|---|---:|"]
    widened = 0
    for r in results:
        rng = f"{r['low']:.1%}-{r['high']:.1%} ({len(r['rows'])} runs)" if r["rows"] else "none"
        lo, hi, n = _widened(r)
        rep = f"{lo:.1%}-{hi:.1%} (+{len(r.get('reported', ()))} runs)" if r.get("reported") else "-"
        inside = "-" if not n else ("yes" if lo <= r["mfu"] <= hi else "above" if r["mfu"] > hi else "below")
        if inside == "yes" and r["rows"] and not r["low"] <= r["mfu"] <= r["high"]:
            inside = "yes, by the reported runs"
        widened += inside.startswith("yes")
        again = (f"{r['rescored_mfu']:.1%}" if r["rescored_mfu"] is not None
                 else (r["rescored_note"][:60] or "-"))
        run_as = r["framework"] or "no single framework"
        if r.get("searched_again"):
            why = "does not fit as it holds memory" if r.get("runs_winner") else "no single framework"
            run_as = f"{why}; searched again as {r['framework']}: {r['searched_again']}"
        lines.append(f"| {r['question']} | {r['winner']} | {r['mfu']:.1%} | {rng} | {rep} | {inside} | "
                     f"{run_as} | {again} |")
    within = sum(1 for r in results if r["rows"] and r["low"] <= r["mfu"] <= r["high"])
    lines.append("")
    lines.append(f"{within} of {len(results)} winners within the range of the priced rows, {widened} of "
                 f"{len(results)} with the reported runs; median winner MFU "
                 f"{statistics.median(r['mfu'] for r in results):.1%}.")
    return "\n".join(lines) + "\n"


def _widened(r: dict) -> tuple[float, float, int]:
    """The range of the rows and the reported runs together, and how many runs it holds."""
    vals = ([r["low"], r["high"]] if r["rows"] else []) + (
        [r["reported_low"], r["reported_high"]] if r.get("reported") else [])
    if not vals:
        return float("nan"), float("nan"), 0
    return min(vals), max(vals), len(r["rows"]) + len(r.get("reported", ()))

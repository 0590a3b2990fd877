"""The planner's reports: the ranked table, the UniAP-style summary, ``--explain``, JSON.

Example::

    >>> from schedcc.planner import plan, preset
    >>> res = plan(preset("gpt3-175b"), "dgx-a100", gpus=64, global_batch=64, workers=1,
    ...            fix="tp=8,pp=8,microbatch=1,schedule=1f1b,sp=1,recompute=selective")
    >>> text = plan_text(res, top=5)
    >>> "MFU" in text and "summary:" in text and "dp1 tp8 pp8 mb1 1f1b z0" in text
    True
"""

from __future__ import annotations

FLOP_NOTE = ("MFU = model FLOPs / (step time x GPUs x peak); model FLOPs = 3 x forward, forward per sequence = "
             "2 s (matrix parameters) + 4 L s^2 h (docs/planner.md)")

PART_NAMES = {
    "compute": "compute", "recompute": "recomputation", "exposed_tp": "exposed tensor-parallel comm",
    "exposed_cp": "exposed context-parallel comm", "exposed_dp": "exposed data-parallel comm",
    "exposed_pp": "exposed pipeline transfers", "exposed_emb": "exposed tied-embedding gradient all-reduce", "optimizer": "optimizer step", "bubble": "pipeline bubble",
}


def _fmt_rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def _gb(x: float) -> str:
    return f"{x / 1e9:.1f}"


def plan_text(res, top: int = 10, explain: bool = False) -> str:
    """The report of a :class:`~schedcc.planner.search.PlanResult`."""
    lines = [f"{res.model} on {res.gpus} x {res.target}, global batch {res.global_batch}: "
             f"{res.searched:,} candidates scored, {res.infeasible:,} out of memory, "
             + (f"{res.pruned:,} not scheduled (their lower bound {res.pruned_bound_s:.2f} s or more cannot enter "
                f"the top {top}" + (" or come within 1.5 x the best" if getattr(res, "band", False) else "")
                + "; --exhaustive schedules them), " if getattr(res, "pruned", 0) else "")
             + f"{res.search_time_s:.1f} s ({res.backend})",
             FLOP_NOTE + f"; peak {res.peak_flops / 1e12:.0f} TFLOP/s", ""]
    cap = _gb(res.capacity_bytes) if res.capacity_bytes else "?"
    shown = res.candidates[:top]
    bad = [s for s in res.candidates if not s.feasible]
    closest = sorted(bad, key=lambda s: s.memory_per_gpu_bytes)[:3]
    # the configuration column is as wide as its longest label, so the numbers line up
    wide = max([len("configuration")] + [len(s.candidate.label()) for s in shown + closest])
    head = (f"{'#':>3}  {'configuration':<{wide}} {'step s':>8} {'tokens/s':>9} {'TFLOP/s':>8} {'MFU':>6} "
            f"{'GB/' + cap:>9} {'exposed s':>9} {'bubble':>7}")
    lines.append(head)
    for i, s in enumerate(shown, 1):
        if s.feasible:
            lines.append(f"{i:>3}  {s.candidate.label():<{wide}} {s.step_time_s:>8.3f} {_fmt_rate(s.tokens_per_s):>9} "
                         f"{s.tflops_per_gpu:>8.1f} {s.mfu:>6.1%} {_gb(s.memory_per_gpu_bytes):>9} "
                         f"{s.exposed_comm_s:>9.3f} {s.bubble:>7.1%}")
        else:
            lines.append(f"{i:>3}  {s.candidate.label():<{wide}} {'-':>8} {'-':>9} {'-':>8} {'-':>6} "
                         f"{_gb(s.memory_per_gpu_bytes):>9}  {s.reason}")
    if bad and all(s.feasible for s in shown):
        lines.append("")
        lines.append("out of memory (the closest to fitting; not scheduled):")
        for s in closest:
            lines.append(f"     {s.candidate.label():<{wide}} {s.reason}")
    lines.append("")
    lines.append(summary_line(res))
    if res.removed:
        ranked = sorted(res.removed.items(), key=lambda item: -item[1][0])   # the rules that removed most first
        lines.append("rules removed: " + "; ".join(f"{n:,} x {rule}" for rule, (n, _) in ranked))
    if explain:
        lines.append("")
        lines += explain_lines(res, top)
    return "\n".join(lines) + "\n"


def summary_line(res) -> str:
    s = res.summary()
    if not s.get("top1_tokens_per_s"):
        return f"summary: no candidate fits ({s['infeasible']:,} of {s['searched']:,} out of memory)"
    top2 = s.get("top2_tokens_per_s")
    return (f"summary: top-1 {_fmt_rate(s['top1_tokens_per_s'])} tokens/s, "
            f"top-2 {_fmt_rate(top2) if top2 else '-'}, median {_fmt_rate(s['median_tokens_per_s'])}, "
            f"slowest {_fmt_rate(s['slowest_tokens_per_s'])}; {s['infeasible']:,} of {s['searched']:,} "
            f"infeasible; search {s['search_time_s']:.1f} s")


def _share(s, key) -> float:
    return s.breakdown.get(key, 0.0) / s.step_time_s if s.step_time_s else 0.0


def explain_lines(res, top: int = 10) -> list[str]:
    """What makes the winner win: its step by part, then for each runner-up the part that
    costs it the most against the winner and what dominates its own step."""
    ok = res.feasible
    if not ok:
        return ["explain: nothing to explain, no candidate fits"]
    w = ok[0]
    parts = sorted(w.breakdown.items(), key=lambda kv: -kv[1])
    out = [f"why #1 ({w.candidate.label()}) wins: its {w.step_time_s:.3f} s step on the busiest pipeline rank is "
           + ", ".join(f"{PART_NAMES.get(k, k)} {v / w.step_time_s:.0%}" for k, v in parts if v > 0.0005)]
    out.append(f"  memory {_gb(w.memory_per_gpu_bytes)} GB per GPU: "
               + ", ".join(f"{k} {_gb(v)}" for k, v in sorted(w.memory_terms.items(), key=lambda kv: -kv[1])))
    for i, s in enumerate(ok[1:top], 2):
        delta = s.step_time_s - w.step_time_s
        diffs = {k: s.breakdown.get(k, 0.0) - w.breakdown.get(k, 0.0) for k in {**w.breakdown, **s.breakdown}}
        worst = max(diffs, key=diffs.get)
        own = max(s.breakdown, key=s.breakdown.get)
        out.append(f"#{i} {s.candidate.label()}: {delta / w.step_time_s:+.1%} ({delta:+.3f} s); most of it "
                   f"{PART_NAMES.get(worst, worst)} ({diffs[worst]:+.3f} s); its step is "
                   f"{_share(s, own):.0%} {PART_NAMES.get(own, own)}")
    best_by = {}
    for s in ok:
        for dim in ("tp", "pp", "cp", "overlap"):
            key = (dim, getattr(s.candidate, dim))
            if key not in best_by:
                best_by[key] = s
    for dim in ("tp", "pp", "cp"):
        vals = sorted(v for d, v in best_by if d == dim)
        if len(vals) > 1:
            out.append(f"best with each {dim}: " + ", ".join(
                f"{dim}={v} {best_by[(dim, v)].step_time_s / w.step_time_s:.2f}x" for v in vals))
    off = res.without_overlap
    if off is not None and off.feasible:
        exposed = lambda s: s.breakdown.get("exposed_tp", 0.0)  # noqa: E731
        out.append(f"the winner with overlap=none: {off.step_time_s:.3f} s "
                   f"({(off.step_time_s - w.step_time_s) / w.step_time_s:+.1%}); exposed tensor-parallel comm "
                   f"{exposed(off):.3f} s without overlap, {exposed(w):.3f} s with {w.candidate.overlap}")
    return out

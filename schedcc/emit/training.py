"""Text for training steps and pipeline schedules: the step report, the policy table, the pipeline report.

Times come in microseconds (:class:`~schedcc.training.result.StepResult`) and
are printed in milliseconds; ``docs/training.md`` defines every number.

Example::

    >>> from schedcc import training
    >>> step = training.load_step("a = mm x {time = 10us}\\nr = allreduce a {bytes = 64MiB, group = dp}\\n")
    >>> print(format_step(training.schedule(step, "h100-8x", policy="fifo"), "step.ir").splitlines()[1])
      step time              0.370 ms
"""

from __future__ import annotations

from schedcc.errors import plural


def _ms(us: float) -> str:
    return f"{us / 1000:,.3f} ms"


def format_step(result, name: str) -> str:
    lines = [f"{name} on {result.target}, policy {result.policy}: {result.operators} operators, "
             f"{plural(len(result.ranks), 'rank')}; {plural(result.iterations, 'step')} simulated, "
             + ("the one before the last measured" if result.iterations > 1 else "one step measured"),
             f"  step time              {_ms(result.step_time_us)}",
             f"  compute                {_ms(result.compute_us)}",
             f"  communication          {_ms(result.comm_us)}",
             f"  exposed communication  {_ms(result.exposed_comm_us)} ({result.exposed_fraction:.1%} of communication)",
             f"  overlap ratio          {result.overlap_ratio:.3f}  (computing while communicating / communicating)",
             f"  bubble                 {result.bubble:.1%}  (compute stream idle, mean over ranks)",
             *_group_lines(result),
             *_exact_lines(result),
             *([f"  note: {result.note}"] if result.note else []),
             "",
             "  rank  compute (ms)  comm (ms)  exposed (ms)  overlap  bubble  peak act (GiB)  utilisation"]
    for s in result.ranks:
        util = ", ".join(f"{k} {v:.0%}" for k, v in s.utilisation.items())
        lines.append(f"  {s.rank:>4}  {s.compute_us / 1000:>12,.3f}  {s.comm_us / 1000:>9,.3f}  "
                     f"{s.exposed_comm_us / 1000:>12,.3f}  {s.overlap_ratio:>7.3f}  {s.bubble:>6.1%}  "
                     f"{s.peak_activation_bytes / 2**30:>14.2f}  {util}")
    return "\n".join(lines) + "\n"


def _group_lines(result) -> list[str]:
    """Communication and its exposed part per group (worst rank of each)."""
    if not result.comm_by_group:
        return []
    parts = [f"{g} {result.comm_by_group[g] / 1000:,.3f} ({result.exposed_by_group.get(g, 0.0) / 1000:,.3f})"
             for g in result.comm_by_group]
    return [f"  per group, ms (exposed) {', '.join(parts)}  (worst rank of each)"]


def _exact_lines(result) -> list[str]:
    """With ``--exact``: the solver's verdict on the whole simulated run (all iterations)."""
    if result.exact is None:
        return []
    from schedcc.emit.exact_out import exact_line
    from schedcc.training.costs import TICKS_PER_US
    line = exact_line(result.exact, show=lambda ticks: _ms(ticks / TICKS_PER_US),
                      heuristic=f"{result.policy} list schedule")
    return [f"  {line}", f"    (the makespan of all {result.iterations} simulated steps)"]


def format_compare(results, name: str, labels: list[str] | None = None) -> str:
    """The policy table; *labels* name the rows (default: the policies)."""
    labels = labels or [r.policy for r in results]
    label = dict(zip(map(id, results), labels))
    base = next((r for r, lab in zip(results, labels) if lab == "fifo"), results[0])
    w = max(14, *map(len, labels))
    head = (f"{name} on {results[0].target}: {results[0].operators} operators, {plural(len(results[0].ranks), 'rank')}\n"
            f"  {'policy':<{w}} {'step (ms)':>10} {'speedup':>8} {'compute':>9} {'comm':>9} {'exposed':>9} "
            f"{'exposed%':>8} {'overlap':>7} {'bubble':>7} {'peak act GiB':>12}\n")
    rows = []
    for r in results:
        peak = max(r.peak_activation_bytes.values(), default=0) / 2**30
        rows.append(f"  {label[id(r)]:<{w}} {r.step_time_us / 1000:>10,.3f} {base.step_time_us / r.step_time_us:>7.3f}x "
                    f"{r.compute_us / 1000:>9,.3f} {r.comm_us / 1000:>9,.3f} {r.exposed_comm_us / 1000:>9,.3f} "
                    f"{r.exposed_fraction:>8.1%} {r.overlap_ratio:>7.3f} {r.bubble:>7.1%} {peak:>12.2f}")
    note = f"  speedup is over {label[id(base)]}; times in ms; one steady-state step (docs/training.md)"
    return head + "\n".join(rows) + "\n" + note + "\n" + format_groups(results, lambda r: label[id(r)])


def format_groups(results, label=lambda r: r.policy) -> str:
    """Exposed communication per group, one row per result (worst rank of each group)."""
    from schedcc.training.result import group_order
    groups = sorted({g for r in results for g in r.exposed_by_group}, key=group_order)
    if not groups:
        return ""
    width = max(14, *(len(label(r)) for r in results))
    lines = [f"  exposed communication per group (ms, worst rank; each group's channel alone)",
             f"  {'':<{width}} " + " ".join(f"{g:>9}" for g in groups)]
    for r in results:
        lines.append(f"  {label(r):<{width}} " + " ".join(
            f"{r.exposed_by_group[g] / 1000:>9,.3f}" if g in r.exposed_by_group else f"{'-':>9}" for g in groups))
    return "\n".join(lines) + "\n"


def format_pipeline(data: dict, act_bytes: float | None) -> str:
    u = "ms" if data["time_unit"] == "us" else "units"
    scale = 1000 if u == "ms" else 1
    lines = [f"{data['schedule']}: {data['stages']} ranks, {data['microbatches']} microbatches"
             + (f", {data['virtual']} stages per rank" if data["virtual"] > 1 else ""),
             f"  step time        {data['step_time'] / scale:,.4g} {u}",
             f"  bubble fraction  {data['bubble_fraction']:.4f}  (idle compute / (ranks x step time))",
             f"  stage-span idle  {data['stage_span_bubble']:.4f}  (idle between each rank's first and last action)",
             "",
             f"  rank  busy ({u})  exposed comm ({u})  peak activations" + ("  (GiB)" if act_bytes else "")]
    for r, busy in data["busy"].items():
        peak = data["peak_activation"][r]
        extra = f"  {peak * act_bytes / 2**30:.2f}" if act_bytes else ""
        lines.append(f"  {r:>4}  {busy / scale:>10,.4g}  {data['exposed_comm'][r] / scale:>18,.4g}  {peak:>16g}{extra}")
    if data.get("candidates"):
        lines.append("")
        lines.append("  auto tried:  schedule       virtual  bubble   peak act  fits")
        for c in data["candidates"]:
            lines.append(f"               {c['schedule']:<14} {c['virtual']:>7}  {c['bubble_fraction']:.4f}  "
                         f"{c['peak_activation']:>8g}  {'yes' if c['fits'] else 'no'}")
    lines.append("")
    for r, acts in enumerate(data["actions"]):
        shown = " ".join(acts[:24]) + (" ..." if len(acts) > 24 else "")
        lines.append(f"  rank {r}: {shown}")
    return "\n".join(lines) + "\n"


def format_before_after(before, after) -> str:
    """The step as given against the transformed one: totals and exposed communication per group."""
    peak = [max(r.peak_activation_bytes.values(), default=0.0) / 2**30 for r in (before, after)]
    head = (f"  overlap: step {before.step_time_us / 1000:,.3f} -> {after.step_time_us / 1000:,.3f} ms "
            f"({after.step_time_us / before.step_time_us - 1:+.1%}), exposed communication "
            f"{before.exposed_comm_us / 1000:,.3f} -> {after.exposed_comm_us / 1000:,.3f} ms, "
            f"peak activations {peak[0]:.2f} -> {peak[1]:.2f} GiB\n")
    labels = {id(before): "as given", id(after): "transformed"}
    return head + format_groups([before, after], label=lambda r: labels[id(r)])


def format_overlap(ov) -> str:
    """What :func:`~schedcc.training.overlap_plan.decompose` chose: two summary lines, the site
    classes with the K chosen (and each K's time for the site alone), the whole-step candidates."""
    ks = sorted({k for c in ov.classes for k in c.makespan_us})
    chunked = sum(1 for k in ov.chunks.values() if k > 1)
    mode = "auto" if ov.chunks_mode == "auto" else f"K={ov.chunks_mode}"
    lines = [f"tp-comm-overlap {mode} on {ov.target} ({ov.policy}): {len(ov.sites)} sites, {chunked} chunked "
             f"({_k_summary(ov)}); microbatch pairing {ov.pairing}; kept: {ov.chosen}"]
    base, best = ov.baseline, ov.best
    if base is not None and best is not None:
        lines.append(f"step {base.step_time_us / 1000:,.3f} ms -> {best.step_time_us / 1000:,.3f} ms "
                     f"({best.step_time_us / base.step_time_us - 1:+.1%}), exposed communication "
                     f"{base.exposed_comm_us / 1000:,.3f} -> {best.exposed_comm_us / 1000:,.3f} ms "
                     f"({best.exposed_comm_us / base.exposed_comm_us if base.exposed_comm_us else 0:.1%} of before)")
    else:
        lines.append("the transformation asked for, applied as is (no candidates to choose between)")
    if ov.classes:
        width = max(len(c.kinds) for c in ov.classes)
        head = f"  {'site (operators on the primary path)':<{width}}  sites  layers    K"
        if ks:
            head += "  alone (us): " + " ".join(f"{'K=' + str(k):>8}" for k in ks)
        lines.append(head)
        for c in ov.classes:
            layers = "-" if c.layers is None else (f"{c.layers[0]:g}" if c.layers[0] == c.layers[1]
                                                   else f"{c.layers[0]:g}-{c.layers[1]:g}")
            row = f"  {c.kinds:<{width}}  {c.sites:>5}  {layers:<7} {c.chunks:>3}"
            if ks:
                row += "              " + " ".join(f"{c.makespan_us[k]:>8,.1f}" if k in c.makespan_us
                                                   else f"{'-':>8}" for k in ks)
            lines.append(row)
    if ov.candidates:
        from schedcc.training.result import group_order
        groups = sorted({g for c in ov.candidates for g in c.exposed_by_group}, key=group_order)
        width = max(len(c.label) for c in ov.candidates) + 2
        lines.append(f"  {'candidate':<{width}} {'step (ms)':>10} {'exposed':>9} " +
                     " ".join(f"{g:>8}" for g in groups) + f" {'peak act GiB':>12}")
        for c in ov.candidates:
            mark = "* " if c.label == ov.chosen else "  "
            lines.append(f"  {mark + c.label:<{width}} {c.step_time_us / 1000:>10,.3f} {c.exposed_comm_us / 1000:>9,.3f} "
                         + " ".join(f"{c.exposed_by_group.get(g, 0.0) / 1000:>8,.3f}" for g in groups)
                         + f" {c.peak_activation_bytes / 2**30:>12.2f}")
        lines.append("  (* kept: " + _kept_rule(ov) + "; exposed communication per group in ms, worst rank)")
    for label, why in ov.failed:
        lines.append(f"  {label}: cannot run: {why.splitlines()[0][:160]}")
    return "\n".join(lines) + "\n"


def _k_summary(ov) -> str:
    counts: dict[int, int] = {}
    for k in ov.chunks.values():
        counts[k] = counts.get(k, 0) + 1
    return ", ".join(f"K={k}: {n}" for k, n in sorted(counts.items()))


def _kept_rule(ov) -> str:
    """Why the starred candidate: the shortest step, or the shortest within the activation memory
    limit when a shorter one holds more (it read "the shortest step" beside a shorter row)."""
    best = ov.best
    over = [c for c in ov.candidates if best is not None and c.step_time_us < best.step_time_us]
    if not over or ov.memory_limit is None:
        return "the shortest step"
    return (f"the shortest step within {ov.memory_limit / 2**30:.2f} GiB of peak activations (the step as given's "
            f"unless --max-activation-gib says otherwise); {over[0].label} is shorter but holds "
            f"{over[0].peak_activation_bytes / 2**30:.2f} GiB")

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


def _ms(us: float) -> str:
    return f"{us / 1000:,.3f} ms"


def format_step(result, name: str) -> str:
    lines = [f"{name} on {result.target}, policy {result.policy}: {result.operators} operators, "
             f"{len(result.ranks)} rank(s); {result.iterations} step(s) simulated, "
             + ("the one before the last measured" if result.iterations > 1 else "one step measured"),
             f"  step time              {_ms(result.step_time_us)}",
             f"  compute                {_ms(result.compute_us)}",
             f"  communication          {_ms(result.comm_us)}",
             f"  exposed communication  {_ms(result.exposed_comm_us)} ({result.exposed_fraction:.1%} of communication)",
             f"  overlap ratio          {result.overlap_ratio:.3f}  (computing while communicating / communicating)",
             f"  bubble                 {result.bubble:.1%}  (compute stream idle, mean over ranks)",
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


def _exact_lines(result) -> list[str]:
    """With ``--exact``: the solver's verdict on the whole simulated run (all iterations)."""
    if result.exact is None:
        return []
    from schedcc.emit.exact_out import exact_line
    from schedcc.training.costs import TICKS_PER_US
    line = exact_line(result.exact, show=lambda ticks: _ms(ticks / TICKS_PER_US),
                      heuristic=f"{result.policy} list schedule")
    return [f"  {line}", f"    (the makespan of all {result.iterations} simulated steps)"]


def format_compare(results, name: str) -> str:
    base = next((r for r in results if r.policy == "fifo"), results[0])
    head = (f"{name} on {results[0].target}: {results[0].operators} operators, {len(results[0].ranks)} rank(s)\n"
            f"  {'policy':<14} {'step (ms)':>10} {'speedup':>8} {'compute':>9} {'comm':>9} {'exposed':>9} "
            f"{'exposed%':>8} {'overlap':>7} {'bubble':>7} {'peak act GiB':>12}\n")
    rows = []
    for r in results:
        peak = max(r.peak_activation_bytes.values(), default=0) / 2**30
        rows.append(f"  {r.policy:<14} {r.step_time_us / 1000:>10,.3f} {base.step_time_us / r.step_time_us:>7.3f}x "
                    f"{r.compute_us / 1000:>9,.3f} {r.comm_us / 1000:>9,.3f} {r.exposed_comm_us / 1000:>9,.3f} "
                    f"{r.exposed_fraction:>8.1%} {r.overlap_ratio:>7.3f} {r.bubble:>7.1%} {peak:>12.2f}")
    note = f"  speedup is over {base.policy}; times in ms; one steady-state step (docs/training.md)"
    return head + "\n".join(rows) + "\n" + note + "\n"


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

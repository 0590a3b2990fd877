"""A calibration's report (text, JSON) and the cluster file it writes.

:func:`report_text` prints the fitted constants (base value, fitted value),
each run's measured and predicted step with its residual (fitted runs
marked), the held-out summary (median and worst error, Kendall tau) beside
what the base cluster file predicted, and the notes (memory, stability).
:func:`cluster_file` is the base cluster's TOML text with the fitted and the
given numbers replaced (each marked ``[fitted]`` or ``[given]``), the target
renamed, and a comment block stating what it was fitted from: an ordinary
cluster file for ``schedcc plan --target FILE.toml``.
"""

from __future__ import annotations

import re
from pathlib import Path

from schedcc.errors import plural
from schedcc.resources import VERSION


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:+.1%}"


def _abs(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def _tau(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _num(x: float) -> str:
    return f"{x:.4g}"


def constant_lines(fit) -> list[str]:
    out = []
    for c in fit.constants:
        if c.name == "compute":
            inner = ", ".join(f"{k} {_num(a)} -> {_num(b)}" for k, (a, b) in c.keys.items())
            out.append(f"compute x{c.value:.3f} ({inner})" + (" [at its bound]" if c.at_bound else ""))
        else:
            out.append(f"{c.name} {_num(c.base)} -> {_num(c.value)}" + (" [at its bound]" if c.at_bound else ""))
    return out


def report_text(fit) -> str:
    """The calibration report (module docstring)."""
    s = fit.summary()
    lines = [f"{fit.name}: calibrated from {fit.base} on {plural(len(s['fitted']), 'measured run')}, "
             f"{len(s['held_out'])} held out; {fit.evaluations} step evaluations, {fit.cpu_s:.1f} s CPU", ""]
    lines.append("fitted constants:")
    lines += [f"  {x}" for x in constant_lines(fit)]
    if fit.overrides:
        lines.append("given (not fitted): " + ", ".join(f"{k} = {v}" for k, v in fit.overrides.items()))
    lines.append("")
    width = max([len(r.id) for r in fit.rows] + [3])
    cw = max([len(r.label) for r in fit.rows] + [13])
    lines.append(f"  {'run':<{width}}  {'':3}  {'configuration':<{cw}}  {'measured s':>10}  {'predicted s':>11}  "
                 f"{'error':>7}  {fit.base + ' s':>14}  {'error':>7}")
    for r in fit.rows:
        lines.append(f"  {r.id:<{width}}  {'fit' if r.fitted else '':3}  {r.label:<{cw}}  {r.measured:>10.4g}  "
                     f"{r.predicted:>11.4g}  {_pct(r.error):>7}  {r.base_predicted:>14.4g}  {_pct(r.base_error):>7}")
    lines.append("  (error: predicted throughput over measured, minus 1; positive: the model is optimistic)")
    lines.append("")
    if s["held_out"]:
        lines.append(f"held out ({plural(len(s['held_out']), 'run')}): median |error| {_abs(s['held_out_median_error'])}, "
                     f"worst {_abs(s['held_out_worst_error'])}, Kendall tau {_tau(s['held_out_tau'])}; "
                     f"{fit.base} as it was: median {_abs(s['held_out_base_median_error'])}, "
                     f"tau {_tau(s['held_out_base_tau'])}")
    lines.append(f"all runs: median |error| {_abs(s['all_median_error'])}, worst {_abs(s['all_worst_error'])}, "
                 f"Kendall tau {_tau(s['all_tau'])}")
    if fit.unstable:
        lines.append("")
        lines.append("warning: the fit is unstable:")
        lines += [f"  {u}" for u in fit.unstable]
        fitted = ", ".join(f"{r.id} {_pct(r.error)}" for r in fit.rows if r.fitted)
        lines.append(f"  residuals of the fitted runs: {fitted}")
    notes = list(fit.notes) + [f"{r.id}: {r.memory_note}" for r in fit.rows if r.memory_note]
    if notes:
        lines.append("")
        lines += [f"note: {n}" for n in notes]
    return "\n".join(lines) + "\n"


def report_json(fit) -> dict:
    return {"cluster": fit.name, "base": fit.base, "given": fit.overrides,
            "constants": [{"name": c.name, "base": c.base, "value": c.value, "at_bound": c.at_bound,
                           "keys": {k: {"base": a, "fitted": b} for k, (a, b) in c.keys.items()}}
                          for c in fit.constants],
            "runs": [{"id": r.id, "fitted": r.fitted, "configuration": r.label, "measured_s": r.measured,
                      "predicted_s": r.predicted, "error": r.error, "base_predicted_s": r.base_predicted,
                      "base_error": r.base_error, "memory_note": r.memory_note or None} for r in fit.rows],
            "summary": fit.summary(), "unstable": fit.unstable, "notes": fit.notes,
            "evaluations": fit.evaluations}


def cluster_file(fit, command: str = "") -> str:
    """The fitted cluster as TOML (module docstring)."""
    base_path = fit.base_path.split("?", 1)[0]
    text = Path(base_path).read_text(encoding="utf-8")
    s = fit.summary()
    fitted_ids = [r for r in fit.rows if r.fitted]
    head = [f"# {fit.name}: a cluster file fitted by `{command or 'schedcc calibrate'}` (schedcc {VERSION})",
            f"# from the cluster file {fit.base} ({Path(base_path).name}) and measured runs of this cluster"
            + (f" ({fit.source})." if fit.source else "."),
            "# Fitted on " + ", ".join(f"{r.id} ({r.measured:.4g} s)" for r in fitted_ids) + "."]
    if s["held_out"]:
        head.append(f"# Held out {len(s['held_out'])} runs: median |error| {_abs(s['held_out_median_error'])}, "
                    f"worst {_abs(s['held_out_worst_error'])}, Kendall tau {_tau(s['held_out_tau'])} "
                    f"({fit.base} unfitted: median {_abs(s['held_out_base_median_error'])}, "
                    f"tau {_tau(s['held_out_base_tau'])}).")
    else:
        head.append("# No run was held out: the fit's errors on runs it has not seen are unknown.")
    head.append("# Constants fitted: " + "; ".join(constant_lines(fit)) + ".")
    if fit.overrides:
        head.append("# Given in the calibration file (not fitted): "
                    + ", ".join(f"{k} = {v}" for k, v in fit.overrides.items()) + ".")
    if fit.unstable:
        head.append("# WARNING: the fit is unstable: " + "; ".join(fit.unstable) + ".")
    head.append("# Lines marked [fitted] or [given] were set so; every other number is the base file's,")
    head.append("# with its source below. Use it with: schedcc plan ... --target THIS_FILE.toml")
    head.append("#")
    values: dict[str, tuple[float, str]] = {}
    from schedcc.training.costs import parse_quantity
    for k, v in fit.overrides.items():
        values[k] = (parse_quantity(v, k) if isinstance(v, str) else float(v), f"[given] {v} in the calibration file")
    for c in fit.constants:
        for key, (_, b) in c.keys.items():
            values[key] = (b, f"[fitted] {c.name} on " + ", ".join(r.id for r in fitted_ids))
    body = _set_target(text, fit.name)
    return "\n".join(head) + "\n" + _set_cluster(body, values)


def _set_target(text: str, name: str) -> str:
    text = re.sub(r'(?m)^(\s*name\s*=\s*)"[^"]*"', lambda m: f'{m.group(1)}"{name}"', text, count=1)
    text = re.sub(r'(?m)^(\s*aliases\s*=\s*)\[[^\]]*\]', lambda m: f"{m.group(1)}[]", text, count=1)
    return re.sub(r'(?m)^(\s*description\s*=\s*)"([^"]*)"',
                  lambda m: f'{m.group(1)}"{m.group(2)}, calibrated: {name}"', text, count=1)


def _set_cluster(text: str, values: dict[str, tuple[float, str]]) -> str:
    """*text* (a cluster file) with the ``[cluster]`` numbers of *values* replaced or added,
    each with its reason as a comment. O(lines).

    >>> print(_set_cluster("[cluster]\\nnet_bw = 25e9\\n[compute]\\n", {"net_bw": (6.25e9, "[given]"),
    ...                                                              "net_efficiency": (0.162, "[fitted]")}), end="")
    [cluster]
    net_bw = 6.25e09  # [given]
    net_efficiency = 0.162  # [fitted]
    [compute]
    """
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*\[cluster\]", line))
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"\s*\[", lines[i])), len(lines))
    done = set()
    for i in range(start + 1, end):
        m = re.match(r"(\s*)([A-Za-z_]+)(\s*=\s*)", lines[i])
        if m and m.group(2) in values:
            v, why = values[m.group(2)]
            lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{_toml_num(v)}  # {why}"
            done.add(m.group(2))
    extra = [f"{k} = {_toml_num(v)}  # {why}" for k, (v, why) in values.items() if k not in done]
    last = max(i for i in range(start, end) if lines[i].strip()) + 1
    lines[last:last] = extra
    return "\n".join(lines) + "\n"


def _toml_num(v: float) -> str:
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v)) if abs(v) < 1e6 else f"{v:.6g}".replace("+", "")
    return f"{v:.6g}".replace("e+", "e")

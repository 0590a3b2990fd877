"""Text for replayed traces: measured against replayed step times, exposed communication, what-ifs.

Times come in microseconds (:class:`~schedcc.torch.replay.Replay`) and are
printed in milliseconds; docs/traces.md explains every number.

Example::

    >>> from schedcc.torch.exposed import exposure
    >>> print(format_exposure([exposure([(0, 900)], [(500, 2500)], 0)], [exposure([], [(0, 2000)], 0)]))
      rank   comm (ms)   overlapped (ms)   exposed (ms)   exposed   replayed exposed
         0       2.000             0.400          1.600     80.0%             100.0%
"""

from __future__ import annotations

from schedcc.errors import plural
from schedcc.torch.kineto import _ranges


def _ms(us: float) -> str:
    return f"{us / 1000:,.3f}"


def format_replay(r, name: str) -> str:
    traces = r.traces
    views = r.step.views
    comms = sum(len(v.comms) for v in views)
    pieces = sum(len(v.pieces) for v in views)
    backend = traces[0].backend or "no process group"
    world = traces[0].world
    ranks = plural(len(traces), "rank") if world == len(traces) else \
        f"{len(traces)} of {world} ranks ({', '.join(str(t.rank) for t in traces)}; --subset)"
    lines = [f"{name}: {ranks} ({backend}), profiled steps "
             f"{_ranges([s.number for s in traces[0].steps])}; {len(r.step.graph):,} nodes: {pieces:,} host pieces, "
             f"{comms:,} collectives" + (f", {sum(len(v.kernels) for v in views):,} GPU kernels"
                                       if any(v.kernels for v in views) else ""),
             "",
             "  step    measured (ms)   replayed (ms)    error   (mean over ranks)"]
    for s in r.steps:
        lines.append(f"  #{s.number:<5} {_ms(s.measured_mean):>14} {_ms(s.replayed_mean):>15} {s.error:>+8.1%}")
    lines.append(f"  {'all':<6} {_ms(r.measured_us):>14} {_ms(r.replayed_us):>15} {r.error:>+8.1%}")
    steps = traces[0].steps
    window = (f"{'steps' if len(steps) > 2 else 'step'} {_ranges([s.number for s in steps[:-1]])}, HTA leaves "
              f"the last out" if len(steps) >= 2 else "whole trace")
    lines += ["", f"  exposed communication (Holistic Trace Analysis's definition, {window}; "
                  "computation: " + ("GPU kernels" if any(v.gpu_lanes for v in views) else "CPU operators outside collective calls") + ")",
              format_exposure(r.measured_exposure, r.replayed_exposure)]
    waits = sum(1 for v in views for p in v.pieces if p.waits_for)
    lines += ["", f"  dependences found: {waits} waits for collectives, "
                  f"{sum(1 for v in views for c in v.comms if c.after is not None)} launches; collectives matched "
                  f"across ranks step by step"]
    return "\n".join(lines) + "\n"


def format_exposure(measured, replayed) -> str:
    """The table of exposed communication per rank: measured, and in the replay."""
    lines = ["  rank   comm (ms)   overlapped (ms)   exposed (ms)   exposed   replayed exposed"]
    for m, p in zip(measured, replayed):
        lines.append(f"  {m.rank:>4} {_ms(m.comm_us):>11} {_ms(m.overlap_us):>17} {_ms(m.exposed_us):>14} "
                     f"{m.exposed_pct:>8.1f}% {p.exposed_pct:>17.1f}%")
    return "\n".join(lines)


def format_what_if(w) -> str:
    """The what-if against its baseline (and, when the baseline is not the replay, the replay too)."""
    mark = " *" if w.priced else ""
    rows = []
    if w.baseline_label != "replay" and w.replayed_us:
        rows.append(("replay (as measured)", w.replayed_us, ""))
    rows.append((f"baseline: {w.baseline_label}{mark}", w.baseline_us, ""))
    if abs(w.gain) < 0.0005:  # what prints as 0.0% is no change, whichever side of zero
        verdict = "   predicted gain 0.0% vs the baseline (no change)"
    else:
        verdict = f"   predicted gain {w.gain:+.1%} vs the baseline" + ("" if w.gain > 0 else " (slower)")
    rows.append((f"what-if: {w.label}{mark}", w.step_us, verdict))
    width = max(len(r[0]) for r in rows) + 2
    lines = [f"what-if: {w.label}"]
    lines += [f"  {label:<{width}} {_ms(us):>12} ms{tail}" for label, us, tail in rows]
    lines.append("  exposed communication, baseline -> what-if: " + ", ".join(
        f"rank {a.rank} {b.exposed_pct:.1f}% -> {a.exposed_pct:.1f}%"
        for a, b in zip(w.exposure, w.baseline_exposure)))
    other, fit = w.note, ""
    if w.priced and "collectives priced by" in w.note:
        at = w.note.index("collectives priced by")
        other, fit = w.note[:at].rstrip("; "), w.note[at:]
    if other:
        lines.append(f"  note: {other}")
    if fit:
        lines.append(f"  * {fit}")
    return "\n".join(lines) + "\n"

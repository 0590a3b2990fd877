"""The planner's candidates as a picture: step time against memory per GPU, Pareto front marked.

Every scheduled candidate is a dot (its memory per GPU across, its step
time down the side, the log scale when times spread over more than a
factor of ten); the candidates on the Pareto front (no other is both faster
and smaller) are joined by a line and ringed; the winner is labelled; the
device memory is a dashed line, and the candidates beyond it, which were not
scheduled, are crosses in a strip along the top at their memory. Every mark
has a tooltip with the configuration. Hand-written SVG, no plotting library;
``.png`` through :func:`schedcc.viz.timeline.svg_to_png`.

Example::

    >>> from schedcc.planner import plan, preset
    >>> res = plan(preset("gpt3-175b"), "dgx-a100", gpus=128, global_batch=128, workers=1,
    ...            fix="tp=8,pp=8,microbatch=1,zero=1,sp=1")
    >>> svg = pareto_svg(res)
    >>> svg.startswith("<svg") and "Pareto front" in svg and svg.count("<circle") >= len(res.feasible)
    True
"""

from __future__ import annotations

import html
import math

W, H = 860, 560
LEFT, RIGHT, TOP, BOTTOM = 80, 30, 70, 60
STRIP = 26     # the strip of infeasible candidates above the plot
FONT = "font-family:DejaVu Sans,Helvetica,Arial,sans-serif"


def pareto_front(points: list[tuple[float, float, object]]) -> list[tuple[float, float, object]]:
    """The (memory, time, item) points no other point beats on both, by memory.

    >>> [p[2] for p in pareto_front([(1, 5, "a"), (2, 3, "b"), (3, 4, "c"), (4, 1, "d")])]
    ['a', 'b', 'd']
    """
    out = []
    best = math.inf
    for mem, t, item in sorted(points, key=lambda p: (p[0], p[1])):
        if t < best:
            out.append((mem, t, item))
            best = t
    return out


def _ticks(lo: float, hi: float, log: bool) -> list[float]:
    if log:
        out = []
        e = math.floor(math.log10(lo))
        while 10 ** e <= hi * 1.0001:
            for k in (1, 2, 5):
                v = k * 10 ** e
                if lo <= v <= hi:
                    out.append(v)
            e += 1
        return out
    span = hi - lo or 1
    step = 10 ** math.floor(math.log10(span / 5))
    for k in (1, 2, 5, 10):
        if span / (step * k) <= 6:
            step *= k
            break
    v = math.ceil(lo / step) * step
    out = []
    while v <= hi + 1e-9:
        out.append(v)
        v += step
    return out


def _esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def pareto_svg(result) -> str:
    """The picture of a :class:`~schedcc.planner.search.PlanResult`."""
    ok = result.feasible
    bad = [c for c in result.candidates if not c.feasible]
    gib = 1e9
    mems = [c.memory_per_gpu_bytes / gib for c in result.candidates]
    cap_gib = result.capacity_bytes / gib if getattr(result, "capacity_bytes", 0) else 0.0
    # the axis covers what fits and a margin past the capacity: a candidate needing 40 times the
    # memory would otherwise squeeze every scheduled one into the left edge; crosses past it sit
    # at the right edge and are counted there
    fits = [c.memory_per_gpu_bytes / gib for c in ok]
    x_hi = (max(fits + [cap_gib]) * 1.3 if fits or cap_gib else max(mems) * 1.05) if mems else 1.0
    x_lo = 0.0
    times = [c.step_time_s for c in ok]
    t_lo, t_hi = (min(times), max(times)) if times else (1.0, 2.0)
    log = t_hi > 10 * t_lo
    if t_hi <= t_lo:
        t_hi = t_lo * 1.1 + 1e-9
    pad = (math.log10(t_hi / t_lo) if log else (t_hi - t_lo)) * 0.06
    if log:
        y_lo, y_hi = t_lo / 10 ** pad, t_hi * 10 ** pad
    else:
        y_lo, y_hi = max(0.0, t_lo - pad), t_hi + pad
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM - STRIP

    def X(mem: float) -> float:
        return LEFT + (mem - x_lo) / (x_hi - x_lo) * pw

    def Y(t: float) -> float:
        if log:
            f = (math.log10(t) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo))
        else:
            f = (t - y_lo) / (y_hi - y_lo)
        return TOP + STRIP + (1 - f) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'style="{FONT};font-size:12px">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="24" style="font-size:15px;font-weight:bold">{_esc(result.model)} on '
           f'{result.gpus} x {_esc(result.target)}, global batch {result.global_batch}: '
           f'{result.searched} candidates, {result.infeasible} out of memory</text>',
           f'<text x="{LEFT}" y="44" style="fill:#555">step time against memory per GPU; the Pareto front '
           f'(nothing both faster and smaller) joined; crosses: did not fit, not scheduled</text>']
    # axes and grid
    base = TOP + STRIP + ph
    out.append(f'<rect x="{LEFT}" y="{TOP + STRIP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    for v in _ticks(max(x_lo, 1e-9), x_hi, False):
        out.append(f'<line x1="{X(v):.1f}" y1="{TOP + STRIP}" x2="{X(v):.1f}" y2="{base}" stroke="#eee"/>')
        out.append(f'<text x="{X(v):.1f}" y="{base + 16}" text-anchor="middle">{v:g}</text>')
    for v in _ticks(y_lo, y_hi, log):
        out.append(f'<line x1="{LEFT}" y1="{Y(v):.1f}" x2="{LEFT + pw}" y2="{Y(v):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v:.3g}</text>')
    out.append(f'<text x="{LEFT + pw}" y="{H - 16}" text-anchor="end">memory per GPU (GB)</text>')
    out.append(f'<text x="18" y="{TOP + STRIP + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {TOP + STRIP + ph / 2})">step time (s){" , log scale" if log else ""}</text>')
    if cap_gib:
        out.append(f'<line x1="{X(cap_gib):.1f}" y1="{TOP}" x2="{X(cap_gib):.1f}" y2="{base}" stroke="#c0392b" '
                   f'stroke-dasharray="6 4"/>')
        out.append(f'<text x="{X(cap_gib) - 4:.1f}" y="{TOP + STRIP + 14}" text-anchor="end" style="fill:#c0392b">'
                   f'{cap_gib:.0f} GB per GPU</text>')
    # infeasible: crosses in the strip
    for c in bad:
        x = min(X(c.memory_per_gpu_bytes / gib), LEFT + pw)
        y = TOP + STRIP / 2
        out.append(f'<g stroke="#c0392b" stroke-width="1.2"><title>{_esc(c.candidate.label())}: {_esc(c.reason)}'
                   f'</title><line x1="{x - 4:.1f}" y1="{y - 4:.1f}" x2="{x + 4:.1f}" y2="{y + 4:.1f}"/>'
                   f'<line x1="{x - 4:.1f}" y1="{y + 4:.1f}" x2="{x + 4:.1f}" y2="{y - 4:.1f}"/></g>')
    beyond = sum(1 for c in bad if c.memory_per_gpu_bytes / gib > x_hi)
    if beyond:
        out.append(f'<text x="{LEFT + pw - 8}" y="{TOP + STRIP / 2 + 18:.1f}" text-anchor="end" '
                   f'style="fill:#c0392b;font-size:11px">{beyond} more past {x_hi:.0f} GB →</text>')
    # feasible: dots
    for c in ok:
        out.append(f'<circle cx="{X(c.memory_per_gpu_bytes / gib):.1f}" cy="{Y(c.step_time_s):.1f}" r="3.2" '
                   f'fill="#5b8def" fill-opacity="0.55"><title>{_esc(c.candidate.label())}: '
                   f'{c.step_time_s:.3f} s, {c.memory_per_gpu_bytes / gib:.1f} GB, MFU {c.mfu:.1%}</title></circle>')
    front = pareto_front([(c.memory_per_gpu_bytes / gib, c.step_time_s, c) for c in ok])
    if front:
        path = " ".join(f"{'M' if i == 0 else 'L'}{X(m):.1f},{Y(t):.1f}" for i, (m, t, _) in enumerate(front))
        out.append(f'<path d="{path}" fill="none" stroke="#1a7f37" stroke-width="1.6"/>')
        for m, t, c in front:
            out.append(f'<circle cx="{X(m):.1f}" cy="{Y(t):.1f}" r="5.5" fill="none" stroke="#1a7f37" '
                       f'stroke-width="1.6"><title>Pareto front: {_esc(c.candidate.label())}</title></circle>')
    if ok:
        w = ok[0]
        x, y = X(w.memory_per_gpu_bytes / gib), Y(w.step_time_s)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="#f39c12" stroke="#111"/>')
        # the label goes where it fits inside the plot (about 7 px a character at 12 px)
        width = 7.0 * len(f"best: {w.candidate.label()} ({w.step_time_s:.3g} s)")
        anchor = "start" if x + 10 + width <= LEFT + pw or x < LEFT + pw / 2 else "end"
        dx = -10 if anchor == "end" else 10
        out.append(f'<text x="{x + dx:.1f}" y="{y - 10:.1f}" text-anchor="{anchor}" style="font-weight:bold">'
                   f'best: {_esc(w.candidate.label())} ({w.step_time_s:.3g} s)</text>')
    # legend: one line under the plot, left of the axis title, so that it hides no candidate
    ly = H - 16
    out.append(f'<circle cx="{LEFT + 4}" cy="{ly - 4}" r="3.2" fill="#5b8def"/>'
               f'<text x="{LEFT + 12}" y="{ly}">scheduled candidate</text>')
    out.append(f'<line x1="{LEFT + 140}" y1="{ly - 4}" x2="{LEFT + 156}" y2="{ly - 4}" stroke="#1a7f37" '
               f'stroke-width="1.6"/><text x="{LEFT + 162}" y="{ly}">Pareto front</text>')
    out.append(f'<text x="{LEFT + 250}" y="{ly}" style="fill:#c0392b">x: out of memory</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_pareto(path: str, result, inputs: tuple[str, ...] = ()) -> str:
    """Write the picture to *path* (.svg or .png); a note when a PNG could not be made."""
    from schedcc.viz.timeline import write_svg_picture
    return write_svg_picture(path, pareto_svg(result), inputs, "the candidates")

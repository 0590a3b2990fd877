"""The planner's candidates as a picture: step time against memory per GPU, Pareto front marked.

Every scheduled candidate is a dot (its memory per GPU across, its step
time down the side, MFU on the right axis); the plot covers the band of
real choices, from the best step to :data:`BAND` times it (a linear axis:
the few slow candidates of a search, ten times the best and more, would
otherwise squash that band into a line), and the slower candidates are dots
in a strip along the bottom at their memory, counted; the candidates on the
Pareto front (no other is both faster and smaller) are joined by a line and
ringed; the best five are numbered and the winner labelled where the label
covers the fewest dots and no part of the front (on a white halo, with a
leader line); the device memory is a dashed line, and the candidates beyond
it, which were not scheduled, are crosses in a strip along the top at their
memory. Every mark has a tooltip with the configuration. Hand-written SVG, no plotting library;
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

W, H = 860, 600
LEFT, RIGHT, TOP, BOTTOM = 80, 64, 84, 60
STRIP = 26     # the strip of infeasible candidates above the plot
SLOW = 26      # the strip of candidates slower than the band below it
BAND = 1.5     # the plot shows steps up to this many times the best
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


def _label_box(x: float, y: float, width: float, place: str) -> tuple[float, float, float, float, str]:
    """(x0, y0, x1, y1, anchor) of a label of *width* px placed *place* of the point (x, y)."""
    dx, dy = {"ne": (14, -14), "se": (14, 22), "nw": (-14, -14), "sw": (-14, 22),
              "n": (0, -26), "s": (0, 34), "e": (18, 4), "w": (-18, 4)}[place]
    anchor = "end" if dx < 0 else ("middle" if dx == 0 else "start")
    lx = x + dx
    x0 = lx - width if anchor == "end" else (lx - width / 2 if anchor == "middle" else lx)
    return x0, y + dy - 12, x0 + width, y + dy + 3, anchor


def _inside(box: tuple[float, float, float, float], lo: float, hi: float) -> tuple[float, float, float, float]:
    """*box* moved sideways into the plot's columns *lo*..*hi* where it fits (the leader line still
    reaches its point): a label past the left edge covered the step-time axis's numbers."""
    x0, y0, x1, y1 = box
    shift = max(lo + 4 - x0, 0.0) if x1 - x0 <= hi - lo - 8 else 0.0
    shift = shift or (min(hi - 4 - x1, 0.0) if x1 - x0 <= hi - lo - 8 else 0.0)
    return x0 + shift, y0, x1 + shift, y1


def _segments_hit(box, segs) -> int:
    x0, y0, x1, y1 = box
    hits = 0
    for (ax, ay), (bx, by) in segs:
        for k in range(11):   # sample the segment: the boxes are small and the front short
            px, py = ax + (bx - ax) * k / 10, ay + (by - ay) * k / 10
            if x0 <= px <= x1 and y0 <= py <= y1:
                hits += 1
                break
    return hits


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
    t_hi = min(t_hi, t_lo * BAND)          # the band of real choices; slower ones go to the strip
    if t_hi <= t_lo:
        t_hi = t_lo * 1.1 + 1e-9
    pad = (t_hi - t_lo) * 0.06       # below the best step, room for its label (nothing is faster)
    y_lo, y_hi = max(0.0, t_lo - 2.5 * pad), t_hi + pad
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM - STRIP - SLOW
    top_plot = TOP + STRIP
    base = top_plot + ph

    def X(mem: float) -> float:
        return LEFT + (mem - x_lo) / (x_hi - x_lo) * pw

    def Y(t: float) -> float:
        return top_plot + (1 - (t - y_lo) / (y_hi - y_lo)) * ph

    inband = [c for c in ok if c.step_time_s <= t_hi]
    slow = [c for c in ok if c.step_time_s > t_hi]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           f'style="{FONT};font-size:12px">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="24" style="font-size:15px;font-weight:bold">{_esc(result.model)} on '
           f'{result.gpus:,} x {_esc(result.target)}, global batch {result.global_batch:,}</text>',
           # the counts on a line of their own: after the title they ran past the picture's edge
           f'<text x="{LEFT}" y="44">{result.searched:,} candidates, {result.infeasible:,} out of memory'
           + (f', {result.pruned:,} slower ones not scheduled' if getattr(result, "pruned", 0) else "") + '</text>',
           f'<text x="{LEFT}" y="62" style="fill:#555">step time (the best to {BAND:g} x it) against memory per '
           f'GPU; Pareto front: nothing both faster and smaller</text>']
    # axes and grid
    out.append(f'<rect x="{LEFT}" y="{top_plot}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>')
    for v in _ticks(max(x_lo, 1e-9), x_hi, False):
        out.append(f'<line x1="{X(v):.1f}" y1="{top_plot}" x2="{X(v):.1f}" y2="{base}" stroke="#eee"/>')
        out.append(f'<text x="{X(v):.1f}" y="{base + SLOW + 16}" text-anchor="middle">{v:g}</text>')
    best_mfu = ok[0].mfu * ok[0].step_time_s if ok else 0.0
    for v in _ticks(y_lo, y_hi, False):
        out.append(f'<line x1="{LEFT}" y1="{Y(v):.1f}" x2="{LEFT + pw}" y2="{Y(v):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{Y(v) + 4:.1f}" text-anchor="end">{v:.3g}</text>')
        if best_mfu and v > 0:
            out.append(f'<text x="{LEFT + pw + 6}" y="{Y(v) + 4:.1f}" style="fill:#777">{best_mfu / v:.0%}</text>')
    out.append(f'<text x="{LEFT + pw}" y="{H - 16}" text-anchor="end">memory per GPU (GB)</text>')
    out.append(f'<text x="18" y="{top_plot + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 18 {top_plot + ph / 2})">step time (s)</text>')
    if best_mfu:
        out.append(f'<text x="{W - 12}" y="{top_plot + ph / 2}" text-anchor="middle" style="fill:#777" '
                   f'transform="rotate(90 {W - 12} {top_plot + ph / 2})">MFU</text>')
    if cap_gib:
        out.append(f'<line x1="{X(cap_gib):.1f}" y1="{TOP}" x2="{X(cap_gib):.1f}" y2="{base + SLOW}" '
                   f'stroke="#c0392b" stroke-dasharray="6 4"/>')
        out.append(f'<text x="{X(cap_gib) - 4:.1f}" y="{top_plot + 14}" text-anchor="end" style="fill:#c0392b">'
                   f'{cap_gib:.0f} GB per GPU</text>')
    # infeasible: crosses in the strip above
    for c in bad:
        x = min(X(c.memory_per_gpu_bytes / gib), LEFT + pw)
        y = TOP + STRIP / 2
        out.append(f'<g stroke="#c0392b" stroke-width="1.2"><title>{_esc(c.candidate.label())}: {_esc(c.reason)}'
                   f'</title><line x1="{x - 4:.1f}" y1="{y - 4:.1f}" x2="{x + 4:.1f}" y2="{y + 4:.1f}"/>'
                   f'<line x1="{x - 4:.1f}" y1="{y + 4:.1f}" x2="{x + 4:.1f}" y2="{y - 4:.1f}"/></g>')
    beyond = sum(1 for c in bad if c.memory_per_gpu_bytes / gib > x_hi)
    if beyond:
        out.append(f'<text x="{LEFT + pw - 8}" y="{TOP + STRIP / 2 + 18:.1f}" text-anchor="end" '
                   f'style="fill:#c0392b;font-size:11px">{beyond:,} more past {x_hi:.0f} GB →</text>')
    # slower than the band: dots in the strip below, counted
    if slow:
        sy = base + SLOW / 2
        out.append(f'<line x1="{LEFT}" y1="{base + SLOW - 2}" x2="{LEFT + pw}" y2="{base + SLOW - 2}" stroke="#ccc"/>')
        for c in slow:
            out.append(f'<circle cx="{min(X(c.memory_per_gpu_bytes / gib), LEFT + pw):.1f}" cy="{sy:.1f}" r="2" '
                       f'fill="#999" fill-opacity="0.5"><title>{_esc(c.candidate.label())}: {c.step_time_s:.3f} s'
                       f'</title></circle>')
        out.append(f'<text x="{LEFT + pw - 6}" y="{sy - 4:.1f}" text-anchor="end" style="fill:#777;font-size:11px">'
                   f'{len(slow):,} slower than {t_hi:.3g} s (up to {max(c.step_time_s for c in slow):.3g} s) ↓</text>')
    # feasible in the band: dots
    for c in inband:
        out.append(f'<circle cx="{X(c.memory_per_gpu_bytes / gib):.1f}" cy="{Y(c.step_time_s):.1f}" r="3.2" '
                   f'fill="#5b8def" fill-opacity="0.55"><title>{_esc(c.candidate.label())}: '
                   f'{c.step_time_s:.3f} s, {c.memory_per_gpu_bytes / gib:.1f} GB, MFU {c.mfu:.1%}</title></circle>')
    front = [p for p in pareto_front([(c.memory_per_gpu_bytes / gib, c.step_time_s, c) for c in ok])
             if p[1] <= t_hi]
    pts = [(X(m), Y(t)) for m, t, _ in front]
    segs = list(zip(pts, pts[1:]))
    if front:
        path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(pts))
        out.append(f'<path d="{path}" fill="none" stroke="#1a7f37" stroke-width="1.6"/>')
        for m, t, c in front:
            out.append(f'<circle cx="{X(m):.1f}" cy="{Y(t):.1f}" r="5.5" fill="none" stroke="#1a7f37" '
                       f'stroke-width="1.6"><title>Pareto front: {_esc(c.candidate.label())}</title></circle>')
    for x, y, group in runner_up_labels([(X(c.memory_per_gpu_bytes / gib), Y(c.step_time_s), rank, c)
                                         for rank, c in list(enumerate(ok[:5], start=1))[1:]]):
        tips = "; ".join(f"#{rank} {c.candidate.label()}: {c.step_time_s:.3f} s" for rank, c in group)
        out.append(f'<text x="{x + 5:.1f}" y="{y - 5:.1f}" style="font-size:10px;fill:#333">'
                   f'{",".join(str(rank) for rank, _ in group)}<title>{_esc(tips)}</title></text>')
    if ok:
        w = ok[0]
        x, y = X(w.memory_per_gpu_bytes / gib), Y(w.step_time_s)
        text = f"best: {w.candidate.label()} ({w.step_time_s:.4g} s, MFU {w.mfu:.0%})"
        width = 7.4 * len(text)   # bold DejaVu Sans at 12 px: 7.2 px a character measured
        dots = [(X(c.memory_per_gpu_bytes / gib), Y(c.step_time_s)) for c in inband]
        best_place, best_cost = "ne", None
        for place in ("ne", "se", "e", "n", "s", "nw", "sw", "w"):
            x0, y0, x1, y1 = _inside(_label_box(x, y, width, place)[:4], LEFT, LEFT + pw)
            outside = max(0, LEFT - x0) + max(0, x1 - (LEFT + pw)) + max(0, top_plot - y0) + max(0, y1 - base)
            covered = sum(1 for px, py in dots if x0 - 3 <= px <= x1 + 3 and y0 - 3 <= py <= y1 + 3)
            on_point = x0 - 8 <= x <= x1 + 8 and y0 - 8 <= y <= y1 + 8   # the label hides its own dot
            cost = 1000 * _segments_hit((x0, y0, x1, y1), segs) + 1000 * on_point + 10 * outside + covered
            if best_cost is None or cost < best_cost:
                best_place, best_cost = place, cost
        x0, y0, x1, y1 = _inside(_label_box(x, y, width, best_place)[:4], LEFT, LEFT + pw)
        anchor, tx = "start", x0
        ly = (y0 + y1) / 2
        out.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{min(max(x, x0), x1):.1f}" y2="{ly:.1f}" stroke="#111" '
                   f'stroke-width="0.8"/>')
        out.append(f'<rect x="{x0 - 3:.1f}" y="{y0 - 1:.1f}" width="{width + 6:.1f}" height="{y1 - y0 + 3:.1f}" '
                   f'fill="white" fill-opacity="0.85" stroke="#f39c12"/>')
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="7" fill="#f39c12" stroke="#111"/>')
        out.append(f'<text x="{tx:.1f}" y="{y1 - 3:.1f}" text-anchor="{anchor}" style="font-weight:bold">'
                   f'{_esc(text)}</text>')
    # legend: one line under the plot, left of the axis title, so that it hides no candidate
    ly = H - 16
    out.append(f'<circle cx="{LEFT + 4}" cy="{ly - 4}" r="3.2" fill="#5b8def"/>'
               f'<text x="{LEFT + 12}" y="{ly}">scheduled candidate (2-5: the runners-up)</text>')
    out.append(f'<line x1="{LEFT + 270}" y1="{ly - 4}" x2="{LEFT + 286}" y2="{ly - 4}" stroke="#1a7f37" '
               f'stroke-width="1.6"/><text x="{LEFT + 292}" y="{ly}">Pareto front</text>')
    if bad:
        out.append(f'<text x="{LEFT + 380}" y="{ly}" style="fill:#c0392b">x: out of memory</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def runner_up_labels(points: list[tuple[float, float, int, object]], dx: float = 14.0, dy: float = 11.0):
    """The runners-up's rank labels: points (x, y, rank, candidate) whose labels would overlap
    (within *dx*, *dy* px of a label already placed) share it, ``2,3``. On the 70B on 512 H100s
    the runners-up 2 and 3 sat 0.7 GB and 0.04 s apart and their digits read as ``23``.

    >>> [(x, y, [r for r, _ in g]) for x, y, g in runner_up_labels([(10, 10, 2, "a"), (15, 12, 3, "b"),
    ...                                                             (90, 40, 4, "c"), (10, 60, 5, "d")])]
    [(10, 10, [2, 3]), (90, 40, [4]), (10, 60, [5])]
    """
    groups: list[tuple[float, float, list]] = []
    for x, y, rank, c in points:
        near = next((g for g in groups if abs(g[0] - x) < dx and abs(g[1] - y) < dy), None)
        if near is None:
            groups.append((x, y, [(rank, c)]))
        else:
            near[2].append((rank, c))
    return groups


def write_pareto(path: str, result, inputs: tuple[str, ...] = ()) -> str:
    """Write the picture to *path* (.svg or .png); a note when a PNG could not be made."""
    from schedcc.viz.timeline import write_svg_picture
    return write_svg_picture(path, pareto_svg(result), inputs, "the candidates")

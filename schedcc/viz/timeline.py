"""Lanes x time as an SVG picture (a Gantt chart): pipes of an AI core, streams
of training ranks, iterations of a software-pipelined loop.

The SVG is written by hand (it is a few rectangles and labels) so that it
needs no plotting library and embeds as is in an HTML report. ``.png`` output
uses Graphviz-independent converters when one is installed (``rsvg-convert``
or ``cairosvg``).

Example::

    >>> svg = timeline_svg([Bar("MTE2", 0, 4, "copy_in x", "MTE2"), Bar("V", 4, 6, "vadd", "V")])
    >>> svg.startswith("<svg") and "copy_in x" in svg
    True
"""

from __future__ import annotations

import html
import math
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from schedcc.errors import SchedccError
from schedcc.fileio import write_output

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac", "#2f4b7c", "#a05195"]


@dataclass
class Bar:
    lane: str
    start: float
    end: float
    label: str = ""
    category: str = ""
    tooltip: str = ""


def _nice_step(span: float, target_ticks: int = 10) -> float:
    if span <= 0:
        return 1.0
    raw = span / target_ticks
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 10 ** -len(str(int(1 / raw)))
    for mult in (1, 2, 2.5, 5, 10):
        if magnitude * mult >= raw:
            return magnitude * mult
    return magnitude * 10


def _fmt(x: float) -> str:
    return f"{x:g}" if abs(x) < 1e6 else f"{x:.3g}"


def timeline_svg(bars: Iterable[Bar], lanes: list[str] | None = None, title: str = "",
                 time_unit: str = "cycles", width: int = 1200, colors: dict[str, str] | None = None,
                 span: tuple[float, float] | None = None) -> str:
    """Render *bars* on one row per lane (in the order of *lanes*, or of first
    appearance). Categories get colours and a legend. The time axis runs from 0
    (or the earliest bar) to the last bar's end, or over *span*. O(number of bars)."""
    bars = list(bars)
    lane_names = list(lanes) if lanes is not None else list(dict.fromkeys(b.lane for b in bars))
    for b in bars:
        if b.lane not in lane_names:
            lane_names.append(b.lane)
    categories = list(dict.fromkeys(b.category for b in bars if b.category))
    colour = dict(colors or {})
    for i, c in enumerate(c for c in categories if c not in colour):
        colour[c] = PALETTE[i % len(PALETTE)]
    t_end = max((b.end for b in bars), default=1.0) or 1.0
    t_start = min((b.start for b in bars), default=0.0)
    t_start = min(t_start, 0.0)
    if span is not None:
        t_start, t_end = span
    label_w = max([len(n) for n in lane_names] + [4]) * 7 + 16
    plot_w = max(width - label_w - 20, 200)
    row_h, top = 26, 44 if title else 20
    legend_h = 34 if categories else 0
    height = top + row_h * len(lane_names) + 34 + legend_h
    scale = plot_w / (t_end - t_start)

    def x(t: float) -> float:
        return label_w + (t - t_start) * scale

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    if title:
        out.append(f'<text x="{width / 2}" y="24" text-anchor="middle" font-size="15" '
                   f'font-weight="bold">{html.escape(title)}</text>')
    for i, name in enumerate(lane_names):
        y = top + i * row_h
        if i % 2 == 0:
            out.append(f'<rect x="{label_w}" y="{y}" width="{plot_w}" height="{row_h}" fill="#f5f5f5"/>')
        out.append(f'<text x="{label_w - 8}" y="{y + row_h / 2 + 4}" text-anchor="end">{html.escape(name)}</text>')
    axis_y = top + row_h * len(lane_names)
    step = _nice_step(t_end - t_start)
    t = 0.0 if t_start >= 0 and span is None else t_start
    if span is not None:
        t = math.ceil(t_start / step) * step
    while t <= t_end + 1e-9:
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{axis_y + 4}" stroke="#ddd"/>')
        out.append(f'<text x="{x(t):.1f}" y="{axis_y + 17}" text-anchor="middle" fill="#444">{_fmt(t)}</text>')
        t += step
    out.append(f'<text x="{label_w + plot_w / 2}" y="{axis_y + 31}" text-anchor="middle" fill="#444">'
               f'{html.escape(time_unit)}</text>')
    index = {n: i for i, n in enumerate(lane_names)}
    for b in bars:
        y = top + index[b.lane] * row_h + 3
        x0, x1 = x(b.start), x(max(b.end, b.start))
        w = max(x1 - x0, 0.8)
        fill = colour.get(b.category, "#888888")
        tip = html.escape(b.tooltip or f"{b.label} [{_fmt(b.start)}, {_fmt(b.end)})")
        out.append(f'<g><title>{tip}</title><rect x="{x0:.2f}" y="{y}" width="{w:.2f}" height="{row_h - 6}" '
                   f'fill="{fill}" stroke="white" stroke-width="0.5" rx="2"/>')
        if b.label and w > 7 * len(b.label) * 0.75:
            out.append(f'<text x="{x0 + w / 2:.2f}" y="{y + row_h / 2 + 1}" text-anchor="middle" '
                       f'fill="white" font-size="10">{html.escape(b.label)}</text>')
        out.append("</g>")
    if categories:
        lx, ly = label_w, axis_y + 52
        for c in categories:
            out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colour[c]}"/>')
            out.append(f'<text x="{lx + 16}" y="{ly}">{html.escape(c)}</text>')
            lx += 16 + 7 * len(c) + 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def svg_to_png(svg: str) -> bytes | None:
    """Convert SVG text to PNG with whatever converter is installed, or None."""
    if shutil.which("rsvg-convert"):
        proc = subprocess.run(["rsvg-convert", "-f", "png"], input=svg.encode(), capture_output=True)
        if proc.returncode == 0:
            return proc.stdout
    try:
        import cairosvg  # type: ignore
    except ImportError:
        return None
    return cairosvg.svg2png(bytestring=svg.encode())


def write_timeline(path: str, bars: Iterable[Bar], lanes: list[str] | None = None, title: str = "",
                   time_unit: str = "cycles", colors: dict[str, str] | None = None,
                   inputs: tuple[str, ...] = (), span: tuple[float, float] | None = None) -> str:
    """Write the timeline to *path* (.svg or .png). Returns a one-line note for
    the user, empty when the file was written as asked."""
    svg = timeline_svg(bars, lanes, title, time_unit, colors=colors, span=span)
    return write_svg_picture(path, svg, inputs, "a timeline")


def write_svg_picture(path: str, svg: str, inputs: tuple[str, ...] = (), what: str = "a picture") -> str:
    """Write *svg* to *path* as SVG, or as PNG when *path* ends in ``.png`` (the SVG beside it
    when no converter is installed). Returns a one-line note for the user, empty when the
    file was written as asked; *what* names the picture in the error for other suffixes."""
    dest = Path(path)
    suffix = dest.suffix.lower()
    if suffix == ".svg":
        write_output(dest, svg, inputs)
        return ""
    if suffix == ".png":
        png = svg_to_png(svg)
        if png is None:
            fallback = dest.with_suffix(".svg")
            write_output(fallback, svg, inputs)
            return (f"note: no SVG-to-PNG converter found, wrote {fallback} instead "
                    f"(install librsvg2-bin for rsvg-convert)")
        write_output(dest, png, inputs)
        return ""
    raise SchedccError(f"cannot draw {what} to '{path}': use a .svg or .png file name")

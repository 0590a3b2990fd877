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


@dataclass(frozen=True)
class Mark:
    """A labelled instant on the time axis (a step boundary): a dashed line across the lanes."""

    time: float
    label: str = ""


@dataclass(frozen=True)
class Focus:
    """The stretch of time a picture is about (the measured step): the rest is greyed out and
    the stretch is bracketed above the lanes with its label."""

    start: float
    end: float
    label: str = ""


def _nice_step(span: float, target_ticks: int = 10) -> float:
    if span <= 0:
        return 1.0
    raw = span / target_ticks
    magnitude = 10 ** math.floor(math.log10(raw))
    for mult in (1, 2, 2.5, 5, 10):
        if magnitude * mult >= raw * (1 - 1e-9):
            return magnitude * mult
    return magnitude * 10


def _fmt(x: float) -> str:
    return f"{x:,.6g}" if abs(x) < 1e6 else f"{x:.3g}"


# Time axes in microseconds read better in a larger unit once they get long.
_LARGER = {"us": ((5e6, 1e6, "s"), (5e3, 1e3, "ms")), "ns": ((5e6, 1e6, "ms"), (5e3, 1e3, "us"))}


def axis_unit(time_unit: str, span: float) -> tuple[float, str]:
    """(divisor, unit) to label a *span* of *time_unit* with: ``us`` over 5 ms reads in ms.

    >>> axis_unit("us", 600000), axis_unit("us", 800), axis_unit("cycles", 1e6)
    ((1000.0, 'ms'), (1.0, 'us'), (1.0, 'cycles'))
    """
    for limit, div, unit in _LARGER.get(time_unit, ()):
        if span >= limit:
            return div, unit
    return 1.0, time_unit


def timeline_svg(bars: Iterable[Bar], lanes: list[str] | None = None, title: str = "",
                 time_unit: str = "cycles", width: int = 1200, colors: dict[str, str] | None = None,
                 span: tuple[float, float] | None = None, legend: list[str] | None = None,
                 marks: Iterable[Mark] = (), focus: Focus | None = None) -> str:
    """Render *bars* on one row per lane (in the order of *lanes*, or of first
    appearance). Categories get colours and a legend (in the order of *legend*, then of
    first appearance). The time axis runs from 0 (or the earliest bar) to the last bar's
    end, or over *span*, and reads in ms or s when microseconds get long. *marks* draw
    labelled instants; *focus* greys out everything outside one stretch and brackets it.
    O(number of bars)."""
    bars = list(bars)
    marks = list(marks)
    lane_names = list(lanes) if lanes is not None else list(dict.fromkeys(b.lane for b in bars))
    for b in bars:
        if b.lane not in lane_names:
            lane_names.append(b.lane)
    seen = list(dict.fromkeys(b.category for b in bars if b.category))
    categories = [c for c in legend or () if c in seen] + [c for c in seen if c not in (legend or ())]
    colour = dict(colors or {})
    for i, c in enumerate(c for c in categories if c not in colour):
        colour[c] = PALETTE[i % len(PALETTE)]
    t_end = max((b.end for b in bars), default=1.0) or 1.0
    t_start = min(min((b.start for b in bars), default=0.0), 0.0)
    if span is not None:
        t_start, t_end = span
    label_w = max([len(n) for n in lane_names] + [4]) * 7 + 16
    plot_w = max(width - label_w - 20, 200)
    row_h = 26
    top = (44 if title else 20) + (22 if focus is not None or any(m.label for m in marks) else 0)
    legend_h = 34 if categories else 0
    height = top + row_h * len(lane_names) + 34 + legend_h
    scale = plot_w / ((t_end - t_start) or 1.0)
    div, unit = axis_unit(time_unit, t_end - t_start)

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
    step = _nice_step((t_end - t_start) / div) * div
    t = math.ceil(t_start / step - 1e-9) * step
    while t <= t_end + 1e-9 * step:
        out.append(f'<line x1="{x(t):.1f}" y1="{top}" x2="{x(t):.1f}" y2="{axis_y + 4}" stroke="#ddd"/>')
        out.append(f'<text x="{x(t):.1f}" y="{axis_y + 17}" text-anchor="middle" fill="#444">'
                   f'{_fmt(round(t / div, 9))}</text>')
        t += step
    out.append(f'<text x="{label_w + plot_w / 2}" y="{axis_y + 31}" text-anchor="middle" fill="#444">'
               f'{html.escape(f"time ({unit})" if unit in ("s", "ms", "us", "ns") else unit)}</text>')
    index = {n: i for i, n in enumerate(lane_names)}
    for b in bars:
        y = top + index[b.lane] * row_h + 3
        x0, x1 = x(b.start), x(max(b.end, b.start))
        w = max(x1 - x0, 0.8)
        fill = colour.get(b.category, "#888888")
        tip = html.escape(b.tooltip or f"{b.label} [{_fmt(b.start)}, {_fmt(b.end)})")
        # wide bars get a hairline edge so that neighbours stay apart; narrow ones stay solid
        edge = ' stroke="white" stroke-width="0.5" rx="2"' if w > 6 else ""
        out.append(f'<g><title>{tip}</title><rect x="{x0:.2f}" y="{y}" width="{w:.2f}" height="{row_h - 6}" '
                   f'fill="{fill}"{edge}/>')
        if b.label and w > 7 * len(b.label) * 0.75:
            out.append(f'<text x="{x0 + w / 2:.2f}" y="{y + row_h / 2 + 1}" text-anchor="middle" '
                       f'fill="white" font-size="10">{html.escape(b.label)}</text>')
        out.append("</g>")
    if focus is not None:
        for lo, hi in ((t_start, focus.start), (focus.end, t_end)):
            if hi > lo:
                out.append(f'<rect x="{x(lo):.2f}" y="{top}" width="{x(hi) - x(lo):.2f}" '
                           f'height="{axis_y - top}" fill="white" fill-opacity="0.6"/>')
        bx0, bx1, by = x(max(focus.start, t_start)), x(min(focus.end, t_end)), top - 6
        out.append(f'<path d="M{bx0:.2f},{by + 5} V{by} H{bx1:.2f} V{by + 5}" fill="none" stroke="#222"/>')
        if focus.label:
            out.append(f'<text x="{(bx0 + bx1) / 2:.2f}" y="{by - 4}" text-anchor="middle" '
                       f'font-weight="bold">{html.escape(focus.label)}</text>')
    for m in marks:
        if t_start <= m.time <= t_end:
            out.append(f'<line x1="{x(m.time):.2f}" y1="{top - 4}" x2="{x(m.time):.2f}" y2="{axis_y}" '
                       f'stroke="#222" stroke-dasharray="4,3"/>')
            if m.label:
                out.append(f'<text x="{x(m.time) + 3:.2f}" y="{top - 8}" fill="#222">{html.escape(m.label)}</text>')
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
                   inputs: tuple[str, ...] = (), span: tuple[float, float] | None = None,
                   legend: list[str] | None = None, marks: Iterable[Mark] = (), focus: Focus | None = None) -> str:
    """Write the timeline to *path* (.svg or .png). Returns a one-line note for
    the user, empty when the file was written as asked."""
    svg = timeline_svg(bars, lanes, title, time_unit, colors=colors, span=span, legend=legend, marks=marks,
                       focus=focus)
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

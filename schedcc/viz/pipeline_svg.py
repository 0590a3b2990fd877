"""The pipeline diagram as SVG: original and scheduled order side by side.

Hand-written SVG (rectangles and text) so that it needs no plotting library
and embeds as is in the HTML report. Each stage has its own colour, stalls
are hatched, and every cell carries a tooltip. O(total cells).

Example::

    >>> from schedcc import parse
    >>> from schedcc.driver import schedule_program
    >>> r = schedule_program(parse(open("examples/lecture.ir").read()), "mips4")
    >>> svg = pipeline_svg([r.blocks[0]], r.target)
    >>> svg.startswith("<svg") and "RW" in svg and "stall" in svg
    True
"""

from __future__ import annotations

import html
from typing import Sequence

from schedcc.viz.pipeline_diagram import PipelineDiagram, block_diagrams, issue_stage_index

STAGE_COLOURS = ["#cfe2f3", "#d9ead3", "#fce5cd", "#ead1dc", "#fff2cc", "#d0e0e3", "#e6e0f8", "#f4cccc"]
CELL_W, CELL_H = 34, 22
FONT = "font-family:DejaVu Sans,Helvetica,Arial,sans-serif"


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _panel(d: PipelineDiagram, x0: float, y0: float, columns: int, label_w: float,
           colour: dict[str, str], first: int = 0) -> tuple[list[str], float]:
    """SVG elements of one diagram at (x0, y0), cycles *first* .. *columns* - 1;
    returns (elements, height)."""
    out = [f'<text x="{x0}" y="{y0 + 14}" style="{FONT};font-size:14px;font-weight:bold">{_esc(d.title)}</text>']
    top = y0 + 24
    grid_x = x0 + label_w - first * CELL_W  # cycle t is drawn at grid_x + t * CELL_W
    for t in range(first, columns):
        out.append(f'<text x="{grid_x + t * CELL_W + CELL_W / 2}" y="{top + 14}" text-anchor="middle" '
                   f'style="{FONT};font-size:11px;fill:#555">{t}</text>')
    top += 20
    for i, r in enumerate(d.rows):
        y = top + i * CELL_H
        if i % 2 == 0:
            out.append(f'<rect x="{x0}" y="{y}" width="{label_w + (columns - first) * CELL_W}" height="{CELL_H}" '
                       f'fill="#f7f7f7"/>')
        out.append(f'<text x="{x0 + 4}" y="{y + 15}" style="{FONT};font-size:12px">'
                   f'<tspan style="font-weight:bold">#{_esc(r.node)}</tspan> {_esc(r.text)}</text>')
        for t in r.stalls:
            out.append(f'<rect x="{grid_x + t * CELL_W + 1}" y="{y + 1}" width="{CELL_W - 2}" '
                       f'height="{CELL_H - 2}" fill="url(#stall)" stroke="#c0392b" stroke-width="1">'
                       f'<title>cycle {t}: #{_esc(r.node)} stalls: {_esc(r.why)}</title></rect>')
        for t, stage in r.cells:
            out.append(f'<rect x="{grid_x + t * CELL_W + 1}" y="{y + 1}" width="{CELL_W - 2}" '
                       f'height="{CELL_H - 2}" rx="3" fill="{colour.get(stage, "#eeeeee")}" stroke="#888" '
                       f'stroke-width="0.6"><title>cycle {t}: #{_esc(r.node)} {_esc(r.text)} in {_esc(stage)}'
                       f'</title></rect>')
            out.append(f'<text x="{grid_x + t * CELL_W + CELL_W / 2}" y="{y + 15}" text-anchor="middle" '
                       f'style="{FONT};font-size:10px">{_esc(stage)}</text>')
    bottom = top + len(d.rows) * CELL_H
    if d.omitted:
        out.append(f'<text x="{x0 + 4}" y="{bottom + 14}" style="{FONT};font-size:12px;fill:#555">'
                   f'... and {d.omitted} more instructions, not drawn</text>')
        bottom += 18
    # The makespan: the cycle of the last write (drawn when the last row is).
    if d.omitted:
        out.append(f'<text x="{x0 + label_w}" y="{bottom + 14}" '
                   f'style="{FONT};font-size:11px;fill:#c0392b">makespan {d.makespan}</text>')
        return out, bottom + 20 - y0
    mx = grid_x + d.makespan * CELL_W + CELL_W
    note = (f": last result written in cycle {d.makespan}" if d.cycles - 1 == d.makespan
            else " (results are forwarded before write-back)")
    out.append(f'<line x1="{mx}" y1="{top - 4}" x2="{mx}" y2="{bottom + 4}" stroke="#c0392b" '
               f'stroke-dasharray="4,3"/>')
    out.append(f'<text x="{x0 + label_w}" y="{bottom + 14}" '
               f'style="{FONT};font-size:11px;fill:#c0392b">makespan {d.makespan}{note} '
               f'(dashed line)</text>')
    if first < 0:
        bottom += 16
        out.append(f'<text x="{x0 + label_w}" y="{bottom + 14}" style="{FONT};font-size:11px;fill:#555">'
                   f'cycle 0: the first issue; cycles below 0: the stages before it</text>')
    return out, bottom + 20 - y0


def _caption_width(d: PipelineDiagram) -> float:
    """Pixels the makespan caption under a panel needs (11px text, about 6 px a character)."""
    return len(f"makespan {d.makespan} (results are forwarded before write-back) (dashed line)") * 6.2


def pipeline_svg(results: Sequence, target, title: str = "", max_width: float | None = None) -> str:
    """One picture for the blocks of a program: per block, the original order
    (left) and the scheduled order (right) on the same cycle scale. When the two
    side by side would be wider than *max_width* pixels, the scheduled order
    goes below the original instead (the HTML report asks for that)."""
    stages = list(target.stages)
    colour = {s: STAGE_COLOURS[i % len(STAGE_COLOURS)] for i, s in enumerate(stages)}
    pairs = [(res, *block_diagrams(res, target)) for res in results]
    all_rows = [r for _, a, b in pairs for r in a.rows + b.rows]
    label_w = max([len(f"#{r.node} {r.text}") for r in all_rows] + [12]) * 7.2 + 12
    # Enough columns for every drawn cell: a write-back may come after the makespan.
    columns = max([max(a.cycles, b.cycles) for _, a, b in pairs]
                  + [t + 1 for r in all_rows for t, _ in r.cells] + [1])
    first = min([min(a.first, b.first) for _, a, b in pairs] + [0])
    panel_w = max([label_w + (columns - first) * CELL_W]
                  + [label_w + _caption_width(d) for _, a, b in pairs for d in (a, b)])
    gap = 36
    stacked = max_width is not None and 2 * panel_w + gap + 20 > max_width
    width = (panel_w if stacked else 2 * panel_w + gap) + 20
    body: list[str] = []
    y = 10.0
    if title:
        body.append(f'<text x="10" y="{y + 16}" style="{FONT};font-size:16px;font-weight:bold">{_esc(title)}</text>')
        y += 30
    for res, original, scheduled in pairs:
        if len(results) > 1:
            body.append(f'<text x="10" y="{y + 14}" style="{FONT};font-size:13px;fill:#333">'
                        f'{_esc(res.function.name)} / {_esc(res.block.label)}</text>')
            y += 22
        left, h1 = _panel(original, 10, y, columns, label_w, colour, first)
        if stacked:
            right, h2 = _panel(scheduled, 10, y + h1 + 12, columns, label_w, colour, first)
            y += h1 + 12 + h2 + 16
        else:
            right, h2 = _panel(scheduled, 10 + panel_w + gap, y, columns, label_w, colour, first)
            y += max(h1, h2) + 16
        body += left + right
    # Legend.
    x = 10.0
    for s in stages:
        body.append(f'<rect x="{x}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" rx="3" '
                    f'fill="{colour[s]}" stroke="#888" stroke-width="0.6"/>')
        body.append(f'<text x="{x + CELL_W / 2 - 1}" y="{y + 14}" text-anchor="middle" '
                    f'style="{FONT};font-size:10px">{_esc(s)}</text>')
        x += CELL_W + 4
    body.append(f'<rect x="{x + 8}" y="{y}" width="{CELL_W - 2}" height="{CELL_H - 2}" fill="url(#stall)" '
                f'stroke="#c0392b"/>')
    body.append(f'<text x="{x + CELL_W + 14}" y="{y + 14}" style="{FONT};font-size:11px">stall: the '
                f'instruction waits before {_esc(stages[issue_stage_index(target)] if stages else "issue")} '
                f'for an operand or a unit'
                f'</text>')
    height = y + CELL_H + 12
    defs = ('<defs><pattern id="stall" width="6" height="6" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><rect width="6" height="6" fill="#fdecea"/>'
            '<line x1="0" y1="0" x2="0" y2="6" stroke="#e06666" stroke-width="2"/></pattern></defs>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img">'
            f'<title>{_esc(title or "pipeline diagram")}</title>{defs}'
            f'<rect width="100%" height="100%" fill="white"/>' + "".join(body) + "</svg>\n")


def write_pipeline_picture(result, path: str, inputs: tuple[str, ...] = ()) -> None:
    """Write the pipeline diagram of a :class:`schedcc.driver.ProgramResult` to *path* (.svg)."""
    from schedcc.errors import SchedccError
    from schedcc.fileio import write_output

    if not str(path).lower().endswith(".svg"):
        raise SchedccError(f"cannot draw the pipeline to '{path}': use a .svg file name")
    title = f"{result.program.source} on {result.target.name}: original order (left), scheduled (right)"
    write_output(path, pipeline_svg(result.blocks, result.target, title), inputs)

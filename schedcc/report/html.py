"""``schedcc report``: one self-contained HTML page per program.

Everything is inline (SVG pictures, CSS, the glyphs of its CJK text; no
script, font or image from the network), so the page opens offline, can be handed in as one file or put on
a slide. Per block: the numbers, the program, the dependence DAG (Graphviz
SVG), the schedule table, the pipeline diagram of both orders, and the
lecture-style walkthrough; for loops the modulo scheduler's kernel picture
when that scheduler is in the tree (:mod:`schedcc.report.kernel`).

O(n + e) per block plus Graphviz's layout time. Example::

    >>> from schedcc import parse
    >>> from schedcc.driver import schedule_program
    >>> r = schedule_program(parse(open("examples/lecture.ir").read(), "lecture.ir"), "mips4", explain=True)
    >>> page = report_html(r, source_text=open("examples/lecture.ir").read())
    >>> page.startswith("<!DOCTYPE html>") and "<script" not in page
    True
"""

from __future__ import annotations

import datetime
import html
import re

from schedcc.resources import VERSION as __version__
from schedcc.emit.explain import format_walkthrough
from schedcc.emit.text import stall_reason, summary_line
from schedcc.viz.dag_dot import dag_to_dot, dot_available
from schedcc.viz.pipeline_svg import pipeline_svg
from schedcc.report.fonts import cjk_font_face
from schedcc.report.kernel import kernel_pictures

# Graphviz lays out a few hundred nodes in about a second; beyond that the picture
# is slow to make and unreadable, so the page says how to get it instead.
DAG_PICTURE_LIMIT = 250
# The walkthrough prints the ready list at every cycle: quadratic in the block size.
WALKTHROUGH_LIMIT = 300

CSS = """
:root { --ink: #1f2933; --muted: #616e7c; --line: #d9e2ec; --accent: #2f6fad; --good: #2e7d32;
        --bad: #c0392b; --paper: #ffffff; --wash: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--wash); color: var(--ink);
       font: 15px/1.5 "schedcc CJK", "DejaVu Sans", "Noto Sans", "Helvetica Neue", Arial, "Noto Sans CJK SC",
             "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif; }
header { background: #243b53; color: white; padding: 22px 32px 18px; }
header h1 { margin: 0 0 4px; font-size: 24px; font-weight: 600; }
header p { margin: 0; color: #bcccdc; }
main { max-width: 1280px; margin: 0 auto; padding: 20px 32px 40px; }
section.block { background: var(--paper); border: 1px solid var(--line); border-radius: 8px;
                padding: 18px 24px 22px; margin: 0 0 24px; box-shadow: 0 1px 2px rgba(0,0,0,.05); }
h2 { margin: 0 0 12px; font-size: 20px; }
h3 { margin: 24px 0 8px; font-size: 16px; color: var(--accent); border-bottom: 1px solid var(--line);
     padding-bottom: 4px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 8px 0 4px; }
.card { flex: 1 1 150px; background: var(--wash); border: 1px solid var(--line); border-radius: 6px;
        padding: 10px 14px; }
.card .num { font-size: 28px; font-weight: 600; line-height: 1.2; }
.card .what { color: var(--muted); font-size: 13px; }
.card.good .num { color: var(--good); }
.card.bad .num { color: var(--bad); }
p.summary { color: var(--muted); margin: 8px 0 0; }
.two { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.two > div { flex: 1 1 620px; min-width: 0; }
pre { background: var(--wash); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px;
      overflow-x: auto; font: 13px/1.45 "schedcc CJK", "DejaVu Sans Mono", "Noto Sans Mono", Menlo, Consolas,
      "Noto Sans Mono CJK SC", "WenQuanYi Micro Hei Mono", monospace; }
table.sched { border-collapse: collapse; font-size: 14px; }
table.sched th, table.sched td { border-bottom: 1px solid var(--line); padding: 4px 12px; text-align: left; }
table.sched th { background: var(--wash); font-weight: 600; }
table.sched td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sched td.code { font-family: "schedcc CJK", "DejaVu Sans Mono", Menlo, Consolas, monospace;
                      white-space: nowrap; }
table.sched td.stall { color: var(--bad); font-size: 13px; min-width: 240px; }
.picture { overflow-x: auto; background: white; border: 1px solid var(--line); border-radius: 6px;
           padding: 8px; }
.picture svg { max-width: 100%; height: auto; }
.picture.wide svg { max-width: none; }
.note { color: var(--muted); font-style: italic; }
details summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
footer { color: var(--muted); font-size: 13px; text-align: center; padding: 0 0 24px; }
"""


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _inline_svg(svg: str) -> str:
    """Graphviz's SVG without the XML prologue, DOCTYPE and comments, so it can sit inside HTML."""
    start = svg.find("<svg")
    svg = svg[start:] if start >= 0 else svg
    return re.sub(r"<!--.*?-->", "", svg, flags=re.S).strip()


def dag_picture(res, prefix: str) -> str:
    """The block's DAG as inline SVG, or the DOT text with a note when Graphviz is missing."""
    title = f"{res.function.name} / {res.block.label}: dependence DAG (red: critical path)"
    n = len(res.dag)
    if n > DAG_PICTURE_LIMIT:
        return (f'<p class="note">The block has {n} instructions, too many for a readable picture '
                f'(the limit is {DAG_PICTURE_LIMIT}); <code>schedcc FILE --target T --emit-dag dag.svg</code> '
                f'draws it anyway.</p>')
    dot = dag_to_dot(res.dag, title, res.schedule.priority, res.schedule)
    if not dot_available():
        return (f'<p class="note">Graphviz\'s <code>dot</code> is not installed, so the DAG is given as '
                f'DOT text (install it with <code>apt-get install graphviz</code>).</p>'
                f'<pre>{_esc(dot.source)}</pre>')
    try:
        svg = dot.pipe(format="svg").decode("utf-8")
    except Exception as err:  # Graphviz failed: the rest of the page is still useful
        return f'<p class="note">Graphviz could not draw the DAG: {_esc(err)}</p><pre>{_esc(dot.source)}</pre>'
    # Graphviz names its elements node1, edge1, ...: prefix them so that several blocks can share a page.
    svg = re.sub(r'id="(node|edge|graph|clust)(\d+)"', lambda m: f'id="{prefix}{m.group(1)}{m.group(2)}"', svg)
    return f'<div class="picture">{_inline_svg(svg)}</div>'


def schedule_table(res) -> str:
    s = res.schedule
    rows, prev = [], None
    for n in s.order:
        why = stall_reason(res, n, prev)
        rows.append(f'<tr><td class="num">{s.cycle[n]}</td><td>{_esc(s.unit[n])}</td><td>#{_esc(n)}</td>'
                    f'<td class="code">{_esc(res.dag.ops[n].payload)}</td><td class="stall">{_esc(why)}</td></tr>')
        prev = s.cycle[n]
    return ('<table class="sched"><thead><tr><th>cycle</th><th>unit</th><th>#</th><th>instruction</th>'
            '<th>stall</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def original_table(res) -> str:
    o = res.original
    rows = []
    for n in o.order:
        rows.append(f'<tr><td class="num">{o.cycle[n]}</td><td>#{_esc(n)}</td>'
                    f'<td class="code">{_esc(res.dag.ops[n].payload)}</td>'
                    f'<td class="stall">{_esc(o.stall.get(n, ""))}</td></tr>')
    return ('<table class="sched"><thead><tr><th>cycle</th><th>#</th><th>instruction</th><th>stall</th>'
            '</tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def _card(num: object, what: str, cls: str = "") -> str:
    return f'<div class="card {cls}"><div class="num">{_esc(num)}</div><div class="what">{_esc(what)}</div></div>'


def block_section(res, target, index: int) -> str:
    saved = res.saved
    cards = "".join([
        _card(res.original_makespan, "cycles in the original order"),
        _card(res.makespan, "cycles: the original order, kept (the list schedule was longer)"
              if res.schedule.input_order else "cycles after list scheduling", "good" if saved > 0 else ""),
        _card(saved, "cycles saved" + (f" ({100 * saved / res.original_makespan:.0f}%)"
                                if saved > 0 and res.original_makespan else ""), "good" if saved > 0 else ""),
        _card(res.bound.value, f"lower bound ({res.bound.limited_by})"),
    ])
    n = len(res.block.instrs)
    parts = [f'<section class="block" id="block{index}">',
             f"<h2>{_esc(res.function.name)} / {_esc(res.block.label)} "
             f'<span class="note">· {n} instruction{"s" if n != 1 else ""} on {_esc(target.name)}</span></h2>',
             f'<div class="cards">{cards}</div>',
             f'<p class="summary">{_esc(summary_line(res))}</p>',
             "<h3>The dependence DAG</h3>",
             '<p class="note">Each node shows its priority (longest latency-weighted path to the end) and '
             'the cycle the list scheduler issued it; edges show the dependence and its latency.</p>',
             dag_picture(res, f"b{index}_"),
             "<h3>The schedule</h3>",
             '<div class="two"><div><p><b>original order</b></p>' + original_table(res) + "</div>",
             '<div><p><b>after list scheduling</b></p>' + schedule_table(res) + "</div></div>",
             "<h3>On the pipeline</h3>",
             f'<div class="picture wide">{pipeline_svg([res], target, max_width=1180)}</div>']
    if res.schedule.steps is not None and len(res.block.instrs) > WALKTHROUGH_LIMIT:
        parts += ["<h3>How the list scheduler chose</h3>",
                  f'<p class="note">The walkthrough of a block this large ({len(res.block.instrs)} '
                  f"instructions) is left out; <code>schedcc FILE --target T --explain</code> prints it.</p>"]
    elif res.schedule.steps is not None:
        parts += ["<h3>How the list scheduler chose (the lecture's walkthrough)</h3>",
                  f"<pre>{_esc(format_walkthrough(res, target, pipeline=False))}</pre>"]
    parts.append("</section>")
    return "\n".join(parts)


def kernel_section(program, target, source_path: str | None) -> str:
    pictures, note = kernel_pictures(program, target, source_path)
    if not pictures and not note:
        return ""
    parts = ['<section class="block" id="loops"><h2>Software pipelining</h2>']
    if note:
        parts.append(f'<p class="note">{_esc(note)}</p>')
    for pic in pictures:
        parts.append(f"<h3>{_esc(pic.title)}</h3>")
        if pic.summary:
            parts.append(f"<p>{_esc(pic.summary)}</p>")
        parts.append(f'<div class="picture wide">{_inline_svg(pic.svg)}</div>')
    parts.append("</section>")
    return "\n".join(parts)


def report_html(result, source_text: str = "", source_path: str | None = None, title: str | None = None,
                source=None, notes: list[str] | None = None) -> str:
    """The page for a :class:`schedcc.driver.ProgramResult` (schedule it with ``explain=True``
    to get the walkthrough). With the parsed *source* (a
    :class:`~schedcc.frontends.source.Source`) loops of LLVM IR and assembly are pipelined too.
    Its CJK characters come with their glyphs (:mod:`schedcc.report.fonts`); what could not be
    embedded is appended to *notes*."""
    target = result.target
    name = result.program.source
    title = title or f"{name} on {target.name}"
    total = sum(r.makespan for r in result.blocks)
    orig = sum(r.original_makespan for r in result.blocks)
    units = ", ".join(f"{g} ×{len(m)}" for g, m in target.groups.items())
    sections = [block_section(r, target, i) for i, r in enumerate(result.blocks)]
    if len(result.blocks) > 1:
        links = "".join(f'<li><a href="#block{i}">{_esc(r.function.name)} / {_esc(r.block.label)}</a>: '
                        f"{len(r.block.instrs)} instruction{'s' if len(r.block.instrs) != 1 else ''}, "
                        f"{r.original_makespan} → {r.makespan} cycles</li>"
                        for i, r in enumerate(result.blocks))
        sections.insert(0, f'<section class="block"><h2>Blocks</h2><ul>{links}</ul></section>')
    loops = kernel_section(source if source is not None else result.program, target, source_path)
    program = (f'<section class="block"><h2>The program</h2><pre>{_esc(source_text)}</pre></section>'
               if source_text else "")
    when = datetime.date.today().isoformat()
    face, font_note = cjk_font_face(title + source_text + "".join(sections) + loops)
    if font_note:
        if notes is not None:
            notes.append(font_note)
        font_note = f"<br>{_esc(font_note)}"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="schedcc {_esc(__version__)}">
<title>{_esc(title)}: schedcc report</title>
<style>{face}{CSS}</style>
</head>
<body>
<header>
<h1>{_esc(title)}</h1>
<p>target {_esc(target.name)}: {_esc(target.description)} · issue width {target.issue_width} · units {_esc(units)}
 · stages {_esc(" ".join(target.stages))} · {len(result.blocks)} block{"s" if len(result.blocks) != 1 else ""}:
 {total} cycles scheduled, {orig} in the original order</p>
</header>
<main>
{program}
{"".join(sections)}
{loops}
</main>
<footer>made by schedcc {_esc(__version__)} on {when} · self-contained: no network needed{font_note or ""}</footer>
</body>
</html>
"""

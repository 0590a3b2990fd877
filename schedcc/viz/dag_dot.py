"""Draw a dependence DAG with Graphviz.

Nodes show the instruction and its priority; edges their kind and latency;
the critical path is drawn bold red. Without Graphviz's ``dot`` program the
DOT text is still written, with a note on how to get the picture.

Example::

    >>> from schedcc import build_dag, parse
    >>> dag = build_dag(parse(open("examples/lecture.ir").read()).functions[0].blocks[0], "mips4")
    >>> sorted(critical_edges(dag))
    [(0, 1), (1, 3)]
    >>> "RAW t0: 3" in dag_to_dot(dag).source
    True
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import graphviz

from schedcc.errors import SchedccError
from schedcc.fileio import write_output
from schedcc.problem import SchedGraph

EDGE_STYLE = {
    "RAW": {"color": "black", "style": "solid"},
    "WAR": {"color": "#1f77b4", "style": "dashed"},
    "WAW": {"color": "#ff7f0e", "style": "dashed"},
    "MEM": {"color": "#9467bd", "style": "solid"},
    "CTRL": {"color": "#999999", "style": "dotted"},
}


def critical_edges(dag: SchedGraph) -> set[tuple]:
    """Edges on one longest latency-weighted path through *dag*."""
    if not len(dag):
        return set()
    height = dag.heights()
    node = max(range(len(dag)), key=lambda n: height[n])
    path: set[tuple] = set()
    while True:
        nxt = [d.dst for d in dag.succ[node] if d.latency + height[d.dst] == height[node]]
        if not nxt:
            return path
        path.add((node, nxt[0]))
        node = nxt[0]


def new_digraph(title: str = "") -> graphviz.Digraph:
    return graphviz.Digraph("dag", graph_attr={"rankdir": "TB", "labelloc": "t", "label": title,
                                               "fontname": "Helvetica", "fontsize": "14", "nodesep": "0.3",
                                               "ranksep": "0.45"},
                            node_attr={"shape": "box", "style": "rounded,filled", "fillcolor": "white",
                                       "fontname": "Helvetica", "fontsize": "11"},
                            edge_attr={"fontname": "Helvetica", "fontsize": "9"})


def dag_to_dot(dag: SchedGraph, title: str = "", priority=None,
               schedule=None, graph: graphviz.Digraph | None = None, prefix: str = "") -> graphviz.Digraph:
    """Draw *dag* into *graph* (a new one by default); node names get *prefix*
    so that several blocks can share one picture."""
    prio = priority if priority is not None else dag.heights()
    hot = critical_edges(dag)
    hot_nodes = {u for e in hot for u in e}
    g = graph if graph is not None else new_digraph(title)
    for n in range(len(dag)):
        text = html.escape(dag.label(n))
        extra = f"prio {prio[n]:g}"
        if schedule is not None and n in schedule.cycle:
            extra += f" · cycle {schedule.cycle[n]}"
        # Number and instruction in two cells: a space between two font runs is
        # dropped by some SVG renderers (librsvg drew "#0t0").
        label = (f'<<table border="0" cellborder="0" cellspacing="0" cellpadding="1"><tr><td><b>#{n}</b></td>'
                 f'<td>{text}</td></tr><tr><td colspan="2"><font point-size="9" color="#555555">{extra}</font>'
                 f'</td></tr></table>>')
        attrs = {"label": label}
        if n in hot_nodes:
            attrs.update(color="#d62728", penwidth="2", fillcolor="#fff0f0")
        g.node(f"{prefix}{n}", **attrs)
    for d in (d for out in dag.succ for d in out):
        u, v = d.src, d.dst
        style = dict(EDGE_STYLE.get(d.kind, {}))
        kind = d.kind if d.kind != "MEM" else f"MEM {d.detail}".strip()
        label = f"{kind} {d.reason}: {d.latency}"
        if (u, v) in hot:
            style.update(color="#d62728", penwidth="2.2")
        g.edge(f"{prefix}{u}", f"{prefix}{v}", label=html.escape(label), **style)
    return g


def results_to_dot(results, title: str) -> graphviz.Digraph:
    """One picture for the blocks of a program: a cluster per block."""
    if len(results) == 1:
        r = results[0]
        return dag_to_dot(r.dag, title, r.schedule.priority, r.schedule)
    g = new_digraph(title)
    for i, r in enumerate(results):
        with g.subgraph(name=f"cluster_{i}") as sub:
            sub.attr(label=f"{r.function.name} / {r.block.label}", style="rounded", color="#888888")
            dag_to_dot(r.dag, priority=r.schedule.priority, schedule=r.schedule, graph=sub, prefix=f"b{i}_")
    return g


def write_block_pictures(results, path: str, title: str, inputs: tuple[str, ...] = ()) -> str:
    """The DAG of each block of *results* (with instructions) in its own picture: to *path*
    when there is one, else beside it, ``STEM.FUNCTION.BLOCK.svg``
    (:func:`schedcc.viz.files.picture_paths`), titled *title* with the block's name.
    Returns the notes for the user (which files; how to get the picture without Graphviz)."""
    from schedcc.viz.files import picture_paths
    drawn = [r for r in results if r.block.instrs] or list(results[:1])
    if len(drawn) <= 1:
        if not drawn:
            return write_dag_picture(new_digraph(title), path, inputs)
        r = drawn[0]
        name = f"{r.function.name} / {r.block.label}"
        return write_dag_picture(dag_to_dot(r.dag, f"{title}: {name}", r.schedule.priority, r.schedule), path, inputs)
    paths = picture_paths(path, [(r.function.name, r.block.label) for r in drawn], "--emit-dag",
                          ("svg", "png", "pdf", "dot", "gv"))
    notes = []
    for r, dest in zip(drawn, paths):
        name = f"{r.function.name} / {r.block.label}"
        note = write_dag_picture(dag_to_dot(r.dag, f"{title}: {name}", r.schedule.priority, r.schedule), dest, inputs)
        if note and note not in notes:
            notes.append(note)
    notes.insert(0, f"wrote {len(drawn)} pictures, one per block (--block NAME draws one): {', '.join(paths)}")
    return "\n".join(notes)


def dot_available() -> bool:
    return shutil.which("dot") is not None


def write_dag_picture(dot: graphviz.Digraph, path: str, inputs: tuple[str, ...] = ()) -> str:
    """Write *dot* to *path* (.svg, .png, .pdf or .dot). Returns a one-line note
    for the user (empty when the picture was written as asked)."""
    dest = Path(path)
    fmt = dest.suffix.lstrip(".").lower()
    if fmt not in ("svg", "png", "pdf", "dot", "gv"):
        raise SchedccError(f"cannot draw to '{path}': use a .svg, .png, .pdf or .dot file name")
    if fmt in ("dot", "gv"):
        write_output(dest, dot.source, inputs)
        return ""
    if not dot_available():
        fallback = dest.with_suffix(".dot")
        write_output(fallback, dot.source, inputs)
        return (f"note: Graphviz 'dot' not found, wrote {fallback} instead; install Graphviz "
                f"(apt-get install graphviz) or run: dot -T{fmt} {fallback} -o {dest}")
    try:
        data = dot.pipe(format=fmt)
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError) as err:
        raise SchedccError(f"Graphviz failed to draw '{path}': {err}") from None
    write_output(dest, data, inputs)
    return ""

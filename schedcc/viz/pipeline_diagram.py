"""The pipeline diagram the lecture draws: rows = instructions, columns = cycles,
cells = pipeline stages, stalls marked.

It is built from schedules the core already computes (the in-order simulation
of the original order, the list schedule of the new one), never re-simulated.

How a stage sequence maps onto cycles (``docs/pipeline-diagram.md``): an
instruction issued at cycle ``c`` with result latency ``L`` on a target with
stages ``s0 .. s(S-1)`` is in

* ``s0`` (the issue stage: ID on ``mips4``) at cycle ``c``,
* ``sk`` at cycle ``c + k`` for the stages before the last two,
* the execute stage ``s(S-2)`` from cycle ``c + S - 2`` until the write stage,
* the write stage ``s(S-1)`` at cycle ``c + max(L, S - 1)``.

On ``mips4`` (ID RR ALU RW, latency 3, no forwarding) that is ID ``c``,
RR ``c+1``, ALU ``c+2``, RW ``c+3``: a dependent instruction issued at
``c+3`` reads its operands in RR at ``c+4``, the cycle after the producer
wrote them in RW, which is why the latency is 3. The last write falls in
cycle ``makespan`` (issue + latency of the last instruction to finish), so a
diagram has ``makespan + 1`` columns, numbered from 0 like issue cycles.
A longer latency stretches the execute stage (a divide); a latency shorter
than the pipeline means the target forwards results, and the stages then
simply follow one per cycle.

A *stall* is a cycle in which an instruction was next in program order (or
in the new order) and had an issue slot, but waited: for its operands, or
for a busy unit. In-order hardware holds it in the issue stage, so the
diagram marks those cycles in its row just before its issue stage.

Complexity: O(n + total cells). Example::

    >>> stage_cycles(0, 3, ("ID", "RR", "ALU", "RW"))
    [(0, 'ID'), (1, 'RR'), (2, 'ALU'), (3, 'RW')]
    >>> stage_cycles(2, 5, ("IF", "EX", "WB"))
    [(2, 'IF'), (3, 'EX'), (4, 'EX'), (5, 'EX'), (6, 'EX'), (7, 'WB')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Mapping, Sequence

import networkx as nx

from ..dag import edge_text

STALL = "--"  # the text cell of a stall cycle


def stage_cycles(issue: int, latency: int, stages: Sequence[str]) -> list[tuple[int, str]]:
    """(cycle, stage) pairs of one instruction issued at *issue* (see the module docstring)."""
    stages = tuple(stages) or ("EX",)
    if len(stages) == 1:
        return [(issue + k, stages[0]) for k in range(max(latency, 1))]
    last = len(stages) - 1
    write = issue + max(latency, last)
    cells = [(issue + k, stages[k]) for k in range(last - 1)]
    cells += [(t, stages[last - 1]) for t in range(issue + last - 1, write)]
    cells.append((write, stages[last]))
    return cells


@dataclass
class DiagramRow:
    node: Hashable
    text: str
    issue: int
    cells: list[tuple[int, str]]
    stalls: list[int] = field(default_factory=list)  # cycles spent waiting before issue
    why: str = ""  # why it stalled, in words

    @property
    def end(self) -> int:
        return max(t for t, _ in self.cells)


@dataclass
class PipelineDiagram:
    title: str
    stages: tuple[str, ...]
    rows: list[DiagramRow]
    makespan: int

    @property
    def cycles(self) -> int:
        """Number of columns: cycles 0 .. last stage of any row."""
        return max((r.end for r in self.rows), default=-1) + 1

    @property
    def stall_cycles(self) -> int:
        return sum(len(r.stalls) for r in self.rows)


def build_diagram(dag: nx.DiGraph, cycle: Mapping[Hashable, int], order: Sequence[Hashable],
                  stages: Sequence[str], issue_width: int, title: str = "",
                  reasons: Mapping[Hashable, str] | None = None) -> PipelineDiagram:
    """The diagram of *order* issued at *cycle* (a schedule of *dag*).

    *reasons* gives the words for a stall; when missing they are derived from
    the DAG (the predecessor whose result came last) or say "unit busy".
    """
    nodes = dag.nodes
    rows: list[DiagramRow] = []
    prev, used = 0, 0  # issue cycle of the previous instruction and slots used in it
    for pos, n in enumerate(order):
        c = cycle[n]
        earliest = 0 if pos == 0 else (prev if used < issue_width else prev + 1)
        stalls = list(range(earliest, c))
        why = ""
        if stalls:
            why = (reasons or {}).get(n, "") or _stall_words(dag, cycle, n)
        attrs = nodes[n]
        instr = attrs.get("instr")
        text = str(instr) if instr is not None else str(attrs.get("label", n))
        rows.append(DiagramRow(n, text, c, stage_cycles(c, attrs.get("latency", 1), stages), stalls, why))
        used = used + 1 if (pos and c == prev) else 1
        prev = c
    makespan = max((cycle[n] + nodes[n].get("latency", 1) for n in order), default=0)
    return PipelineDiagram(title, tuple(stages), rows, makespan)


def _stall_words(dag: nx.DiGraph, cycle: Mapping[Hashable, int], n: Hashable) -> str:
    c = cycle[n]
    for p, d in dag.pred[n].items():
        if p in cycle and cycle[p] + d["latency"] == c:
            instr = dag.nodes[p].get("instr", p)
            return f"waits for '{instr}': {edge_text(dag, p, n)}"
    return "waits for a busy unit"


def block_diagrams(res, target) -> tuple[PipelineDiagram, PipelineDiagram]:
    """(original order, scheduled order) diagrams of a :class:`schedcc.driver.BlockResult`."""
    orig = res.original
    original = build_diagram(res.dag, orig.cycle, orig.order, target.stages, target.issue_width,
                             f"original order: {orig.makespan} cycles", orig.stall)
    s = res.schedule
    scheduled = build_diagram(res.dag, s.cycle, s.order, target.stages, target.issue_width,
                              f"scheduled order: {s.makespan} cycles")
    return original, scheduled


def format_diagram(diagram: PipelineDiagram, columns: int | None = None, reasons: bool = True) -> str:
    """The diagram as terminal text. *columns* pads it to that many cycles, so
    that two diagrams one above the other share a scale."""
    ncols = max(columns or 0, diagram.cycles)
    width = max([len(s) for s in diagram.stages] + [len(STALL), len(str(max(ncols - 1, 0)))])
    label_w = max([len(f"#{r.node} {r.text}") for r in diagram.rows] + [len("instruction")])

    def line(label: str, cells: list[str]) -> str:
        return ("  " + label.ljust(label_w) + "  " + " ".join(c.ljust(width) for c in cells)).rstrip()

    out = [diagram.title, line("instruction", [str(t) for t in range(ncols)])]
    for r in diagram.rows:
        cells = [""] * ncols
        for t in r.stalls:
            cells[t] = STALL
        for t, stage in r.cells:
            cells[t] = stage
        text = line(f"#{r.node} {r.text}", cells)
        out.append(text)
    if reasons:
        for r in diagram.rows:
            if r.stalls:
                n = len(r.stalls)
                out.append(f"  {STALL} #{r.node} stalls {n} cycle{'s' if n != 1 else ''}"
                           f" ({_span(r.stalls)}): {r.why}")
    return "\n".join(out) + "\n"


def _span(cycles: list[int]) -> str:
    return f"cycle {cycles[0]}" if len(cycles) == 1 else f"cycles {cycles[0]}-{cycles[-1]}"


def format_block_diagrams(res, target) -> str:
    """Original and scheduled order, one above the other on the same cycle scale."""
    original, scheduled = block_diagrams(res, target)
    columns = max(original.cycles, scheduled.cycles)
    legend = (f"  stages {' '.join(target.stages)}; {STALL} = stalled (held before "
              f"{target.stages[0] if target.stages else 'issue'})")
    head = f"pipeline of {res.function.name} / {res.block.label} on {target.name}"
    return "\n".join([head, legend, "", format_diagram(original, columns),
                      format_diagram(scheduled, columns)]).rstrip() + "\n"

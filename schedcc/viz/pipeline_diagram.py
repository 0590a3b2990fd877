"""The pipeline diagram the lecture draws: rows = instructions, columns = cycles,
cells = pipeline stages, stalls marked.

It is built from schedules the core already computes (the in-order simulation
of the original order, the list schedule of the new one), never re-simulated.

How a stage sequence maps onto cycles (``docs/teaching.md``, "The pipeline
diagram"). A target's ``stages`` are ``s0 .. s(S-1)``; its *issue stage*
``si`` is ``s0`` unless the target file says otherwise (``[diagram]
issue_stage = "IS"``, as the LoongArch models do: IF ID RN come before
issue). An instruction issued at cycle ``c`` with result latency ``L`` is in

* the issue stage ``si`` at cycle ``c``;
* the stages after it, one per cycle, up to the execute stage ``s(S-2)``,
  which lasts until the write stage;
* the write stage ``s(S-1)`` at cycle ``c + max(L, S - 1 - i)``;
* the stages before the issue stage (the front end) in the cycles just
  before the instruction *could* have issued; if it then waited, the stall
  cells fill the gap up to ``c``.

On ``mips4`` (ID RR ALU RW, issue stage ID, latency 3, no forwarding) that
is ID ``c``, RR ``c+1``, ALU ``c+2``, RW ``c+3``: a dependent instruction
issued at ``c+3`` reads its operands in RR at ``c+4``, the cycle after the
producer wrote them in RW, which is why the latency is 3. The last write
falls in cycle ``makespan``, so the diagram's columns run from 0 to
``makespan`` (earlier, negative cycles hold the first front-end stages when
the issue stage is not the first). A longer latency stretches the execute
stage (a divide); a latency shorter than the pipeline means the target
forwards results, and the stages simply follow one per cycle.

A *stall* is a cycle in which an instruction was next in program order (or
in the new order) and had an issue slot, but waited: for its operands, or
for a busy unit. The hardware holds it before its issue stage, so the
diagram marks those cycles in its row just before the issue stage.

Complexity: O(n + total cells). Example::

    >>> stage_cycles(0, 3, ("ID", "RR", "ALU", "RW"))
    [(0, 'ID'), (1, 'RR'), (2, 'ALU'), (3, 'RW')]
    >>> stage_cycles(2, 5, ("IF", "EX", "WB"))
    [(2, 'IF'), (3, 'EX'), (4, 'EX'), (5, 'EX'), (6, 'EX'), (7, 'WB')]
    >>> stage_cycles(4, 4, ("IF", "ID", "IS", "EX", "WB"), issue_index=2, front=1)
    [(-1, 'IF'), (0, 'ID'), (4, 'IS'), (5, 'EX'), (6, 'EX'), (7, 'EX'), (8, 'WB')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable, Mapping, Sequence


from schedcc.errors import plural
from schedcc.dag import dep_text
from schedcc.problem import SchedGraph

STALL = "--"  # the text cell of a stall cycle
# A diagram has a row per instruction and a column per cycle: beyond this many
# rows it is unreadable (and quadratic in size), so only the first rows are drawn.
ROW_LIMIT = 300


def stage_cycles(issue: int, latency: int, stages: Sequence[str], issue_index: int = 0,
                 front: int | None = None) -> list[tuple[int, str]]:
    """(cycle, stage) pairs of one instruction issued at *issue* whose issue stage
    is ``stages[issue_index]``; its front end runs just before cycle *front*
    (default: *issue*). See the module docstring."""
    stages = tuple(stages) or ("EX",)
    front = issue if front is None else front
    cells = [(front - issue_index + k, stages[k]) for k in range(issue_index)]
    back = stages[issue_index:]
    if len(back) == 1:
        return cells + [(issue + k, back[0]) for k in range(max(latency, 1))]
    last = len(back) - 1
    write = issue + max(latency, last)
    cells += [(issue + k, back[k]) for k in range(last - 1)]
    cells += [(t, back[last - 1]) for t in range(issue + last - 1, write)]
    cells.append((write, back[last]))
    return cells


def issue_stage_index(target) -> int:
    """The index of the target's issue stage: ``[diagram] issue_stage`` in its file, else 0."""
    name = (getattr(target, "raw", None) or {}).get("diagram", {}).get("issue_stage")
    stages = tuple(target.stages)
    if name is None:
        return 0
    if name not in stages:
        from schedcc.errors import SchedccError
        raise SchedccError(f"{target.path or target.name}: [diagram] issue_stage = '{name}' is not one of "
                           f"the stages {' '.join(stages)}")
    return stages.index(name)


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
    omitted: int = 0  # rows left out beyond the row limit

    @property
    def cycles(self) -> int:
        """Cycles 0 .. the last stage of any row: the last column + 1."""
        return max((r.end for r in self.rows), default=-1) + 1

    @property
    def first(self) -> int:
        """The first column: 0, or the negative cycle of an early front-end stage."""
        return min([0] + [t for r in self.rows for t, _ in r.cells[:1]])

    @property
    def stall_cycles(self) -> int:
        return sum(len(r.stalls) for r in self.rows)


def build_diagram(dag: SchedGraph, cycle: Mapping[Hashable, int], order: Sequence[Hashable],
                  stages: Sequence[str], issue_width: int, title: str = "",
                  reasons: Mapping[Hashable, str] | None = None,
                  limit: int | None = ROW_LIMIT, issue_index: int = 0) -> PipelineDiagram:
    """The diagram of *order* issued at *cycle* (a schedule of *dag*); at most
    *limit* rows (the first ones in *order*; ``None``: all).

    *reasons* gives the words for a stall; when missing they are derived from
    the DAG (the predecessor whose result came last) or say "unit busy".
    ``stages[issue_index]`` is the issue stage.
    """
    ops = dag.ops
    rows: list[DiagramRow] = []
    prev, used = 0, 0  # issue cycle of the previous instruction and slots used in it
    for pos, n in enumerate(order if limit is None else order[:limit]):
        c = cycle[n]
        earliest = 0 if pos == 0 else (prev if used < issue_width else prev + 1)
        stalls = list(range(earliest, c))
        why = ""
        if stalls:
            why = (reasons or {}).get(n, "") or _stall_words(dag, cycle, n)
        text = dag.label(n)
        cells = stage_cycles(c, ops[n].latency, stages, issue_index, min(earliest, c))
        rows.append(DiagramRow(n, text, c, cells, stalls, why))
        used = used + 1 if (pos and c == prev) else 1
        prev = c
    makespan = max((cycle[n] + ops[n].latency for n in order), default=0)
    return PipelineDiagram(title, tuple(stages), rows, makespan, len(order) - len(rows))


def _stall_words(dag: SchedGraph, cycle: Mapping[Hashable, int], n: int) -> str:
    c = cycle[n]
    for d in dag.pred[n]:
        if d.src in cycle and cycle[d.src] + d.latency == c:
            return f"waits for '{dag.label(d.src)}': {dep_text(d)}"
    return "waits for a busy unit"


def diagram_for(dag: SchedGraph, cycle: Mapping[Hashable, int], order: Sequence[Hashable], target,
                title: str = "", reasons: Mapping[Hashable, str] | None = None) -> PipelineDiagram:
    """:func:`build_diagram` with the stages, issue width and issue stage of *target*."""
    return build_diagram(dag, cycle, order, target.stages, target.issue_width, title, reasons,
                         issue_index=issue_stage_index(target))


def block_diagrams(res, target) -> tuple[PipelineDiagram, PipelineDiagram]:
    """(original order, scheduled order) diagrams of a :class:`schedcc.driver.BlockResult`."""
    orig = res.original
    original = diagram_for(res.dag, orig.cycle, orig.order, target,
                           f"original order: {plural(orig.makespan, 'cycle')}", orig.stall)
    s = res.schedule
    scheduled = diagram_for(res.dag, s.cycle, s.order, target, f"scheduled order: {plural(s.makespan, 'cycle')}")
    return original, scheduled


def format_diagram(diagram: PipelineDiagram, columns: int | None = None, reasons: bool = True,
                   first: int | None = None) -> str:
    """The diagram as terminal text: cycles *first* .. *columns* - 1 (at least its
    own), so that two diagrams one above the other share a scale."""
    ncols = max(columns or 0, diagram.cycles)
    start = min(first if first is not None else 0, diagram.first)
    width = max([len(s) for s in diagram.stages] + [len(STALL)] +
                [len(str(t)) for t in (start, max(ncols - 1, 0))])
    label_w = max([len(f"#{r.node} {r.text}") for r in diagram.rows] + [len("instruction")])

    def line(label: str, cells: list[str]) -> str:
        return ("  " + label.ljust(label_w) + "  " + " ".join(c.ljust(width) for c in cells)).rstrip()

    out = [diagram.title, line("instruction", [str(t) for t in range(start, ncols)])]
    for r in diagram.rows:
        cells = [""] * (ncols - start)
        for t in r.stalls:
            cells[t - start] = STALL
        for t, stage in r.cells:
            cells[t - start] = stage
        text = line(f"#{r.node} {r.text}", cells)
        out.append(text)
    if diagram.omitted:
        out.append(f"  ... and {diagram.omitted} more instructions, not drawn (the first {len(diagram.rows)} "
                   f"are shown; makespan {diagram.makespan})")
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
    first = min(original.first, scheduled.first)
    stages = tuple(target.stages)
    legend = (f"  stages {' '.join(stages)}; {STALL} = stalled (held before "
              f"{stages[issue_stage_index(target)] if stages else 'issue'})")
    head = f"pipeline of {res.function.name} / {res.block.label} on {target.name}"
    return "\n".join([head, legend, "", format_diagram(original, columns, first=first),
                      format_diagram(scheduled, columns, first=first)]).rstrip() + "\n"

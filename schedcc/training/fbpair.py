"""Microbatch-level overlap: the backward of one microbatch interleaved with the forward of another.

DeepSeek's DualPipe (DeepSeek-V3 report, 2024) runs a forward chunk and a
backward chunk of two different microbatches together on one stage, so that
one's communication runs under the other's compute. Here a stage's program
is cut into *runs*: maximal stretches of operators of one microbatch (their
``mb`` attribute; the generator sets it). A run holding a backward operator
(``*_bwd``, ``*_w``) is a backward run. Each backward run directly followed
by a forward run of another microbatch becomes a *pair* (a run ends where its
microbatch's backward begins) (in a 1F1B steady
state: B(j) then F(i), different microbatches on every stage, the last one
included).

The two runs of a pair are list-scheduled together, alone, with the cost
model (both runs' inputs taken as there: DualPipe's rule that a pair starts
when both halves can; receives first), the first run's operators before the
second's whenever both are ready (in ``BF`` the backward, whose gradient the
stages downstream wait for, is not delayed but by a forward operator started
in its gap), and the pair's operators are reissued in that order; sends
leave as soon as their value is computed. An in-order compute stream then
fills one microbatch's communication gaps with the other's compute. With
``fill`` the weight gradients (``*_w``, the zero-bubble schedules' W) go
last, filling the gaps instead. What it costs: the forward allocates its
activations while the backward still holds its own, so a rank's peak
activation memory can grow (the reports show it); and receives posted
before sends can deadlock against a neighbour stage's order (the simulator
reports the cycle).

Example::

    >>> from schedcc import training
    >>> from schedcc.target import load_target
    >>> from schedcc.training.graph import build_training_graph
    >>> prog = training.generate(layers=2, hidden=1024, seq=512, microbatches=4, tp=2, pp=2)
    >>> tg = build_training_graph(prog, load_target("h100-8x"))
    >>> [(p.rank, p.kinds, p.first_mb, p.second_mb) for p in find_pairs(tg)]
    [(0, 'BF', 0, 2), (0, 'BF', 1, 3), (1, 'BF', 0, 1), (1, 'BF', 1, 2), (1, 'BF', 2, 3)]
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from schedcc._perf import paused_gc
from schedcc.ir import Block, Function, Instr, Program, Reg
from schedcc.training.graph import TrainingGraph

BACKWARD_SUFFIXES = ("_bwd", "_w")
IGNORED = ("layer", "mb", "chunk")


@dataclass(frozen=True)
class Pair:
    """Two consecutive runs of different microbatches on one rank (nodes in program order):
    ``kinds`` is ``"BF"`` for a backward run then a forward run, and so on."""

    index: int
    rank: int
    kinds: str
    first_mb: int
    second_mb: int
    first: tuple[int, ...] = field(repr=False)
    second: tuple[int, ...] = field(repr=False)


def _program_nodes(tg: TrainingGraph) -> list[list[list[int]]]:
    """Node ids per function and block, numbered as the graph builder numbers them."""
    out, n = [], 0
    for func in tg.program.functions:
        blocks = []
        for block in func.blocks:
            ids = []
            for instr in block.instrs:
                if not instr.is_terminator and instr.opcode != "nop":
                    ids.append(n)
                    n += 1
            blocks.append(ids)
        out.append(blocks)
    return out


def _mb(instr: Instr):
    v = instr.attr("mb")
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def find_pairs(tg: TrainingGraph, kinds: Iterable[str] = ("BF",)) -> list[Pair]:
    """The pairs of *tg*'s program, left to right, whose kinds (``"BF"``: a backward run
    then a forward run; ``"FB"``, ``"FF"``, ``"BB"``) are in *kinds*; a run is in at most
    one pair. O(n)."""
    kinds = set(kinds)
    nodes = tg.graph.nodes
    back = backward_nodes(tg)
    pairs: list[Pair] = []
    for runs in program_runs(tg, back):
        i = 0
        while i + 1 < len(runs):
            (am, a), (bm, b) = runs[i], runs[i + 1]
            kind = ("B" if a[0] in back else "F") + ("B" if b[0] in back else "F")
            if (am is not None and bm is not None and am != bm and kind in kinds
                    and len({nodes[x]["rank"] for x in a + b}) == 1):
                pairs.append(Pair(len(pairs), nodes[a[0]]["rank"], kind, am, bm, tuple(a), tuple(b)))
                i += 2
            else:
                i += 1
    return pairs


def weight_gradient_nodes(tg: TrainingGraph) -> set[int]:
    """Weight gradients (``*_w``) and what reads only them on their rank: nothing else waits
    for them within the step, so they fill gaps (the zero-bubble schedules' W)."""
    g = tg.graph
    nodes = g.nodes
    out: set[int] = set()
    for n in sorted(g, key=lambda n: nodes[n]["order"]):
        preds = [u for u, e in g.pred[n].items() if e["kind"] == "RAW"]
        if nodes[n]["opcode"].endswith("_w") or (preds and all(u in out for u in preds)
                                                  and nodes[n].get("update") is None):
            out.add(n)
    return out


def program_runs(tg: TrainingGraph, back: set[int] | None = None) -> list[list[tuple[int | None, list[int]]]]:
    """Per block, its runs in program order: (microbatch or None, nodes). A run ends where
    the microbatch changes or where its backward begins."""
    nodes = tg.graph.nodes
    back = backward_nodes(tg) if back is None else back
    out = []
    for blocks in _program_nodes(tg):
        for ids in blocks:
            runs: list[tuple[int | None, list[int]]] = []
            for n in ids:
                mb = _mb(nodes[n]["instr"])
                if runs and runs[-1][0] == mb and (n not in back or runs[-1][1][-1] in back):
                    runs[-1][1].append(n)
                else:
                    runs.append((mb, [n]))
            out.append(runs)
    return out


def run_of(tg: TrainingGraph) -> dict[int, int]:
    """Each operator's run (numbered in program order; :func:`program_runs`); empty for a
    graph without its program."""
    out: dict[int, int] = {}
    if tg.program is None:
        return out
    k = 0
    for runs in program_runs(tg):
        for _, ids in runs:
            out.update((n, k) for n in ids)
            k += 1
    return out


def backward_nodes(tg: TrainingGraph) -> set[int]:
    """The operators of the backward pass: a ``*_bwd``/``*_w`` opcode, an operator reading one
    on its rank (the collectives and sends of gradients), a ``recv`` read by one."""
    g = tg.graph
    nodes = g.nodes
    back: set[int] = set()
    for n in sorted(g, key=lambda n: nodes[n]["order"]):
        d = nodes[n]
        if d["opcode"].endswith(BACKWARD_SUFFIXES):
            back.add(n)
        elif d["opcode"] == "recv":
            if any(nodes[v]["opcode"].endswith(BACKWARD_SUFFIXES) for v, e in g.succ[n].items() if e["kind"] == "RAW"):
                back.add(n)
        elif any(u in back for u, e in g.pred[n].items() if e["kind"] == "RAW"):
            back.add(n)
    return back


def pair_microbatches(tg: TrainingGraph, pairs: Iterable[Pair] | None = None, fill: bool = False,
                      order: Callable[..., list[int]] | None = None) -> Program:
    """*tg*'s program with the runs of every pair in *pairs* (default: all of
    :func:`find_pairs`) reissued interleaved, in the order *order* gives (default
    :func:`pair_order`, with *fill*). A new program; *tg* is unchanged."""
    with paused_gc():
        pairs = find_pairs(tg) if pairs is None else list(pairs)
        order = order or pair_order
        nodes = tg.graph.nodes
        start_of: dict[int, list[Instr]] = {}
        dropped: set[int] = set()
        memo: dict[tuple, list[int]] = {}
        for p in pairs:
            members = list(p.first + p.second)
            instrs = [nodes[n]["instr"] for n in members]
            sig = (len(p.first), _signature(instrs))
            ranked = memo.get(sig)
            if ranked is None:
                ranked = memo[sig] = order(tg, instrs, len(p.first), fill)
            start_of[members[0]] = [instrs[j] for j in ranked]
            dropped.update(members[1:])
        funcs = []
        for func, blocks in zip(tg.program.functions, _program_nodes(tg)):
            new_blocks = []
            for block, ids in zip(func.blocks, blocks):
                body: list[Instr] = []
                it = iter(ids)
                for instr in block.instrs:
                    if instr.is_terminator or instr.opcode == "nop":
                        body.append(instr)
                        continue
                    n = next(it)
                    if n in start_of:
                        body += start_of[n]
                    elif n not in dropped:
                        body.append(instr)
                new_blocks.append(replace(block, instrs=tuple(body)))
            funcs.append(replace(func, blocks=tuple(new_blocks)))
        return Program(tuple(funcs), source=tg.program.source)


def _signature(instrs: list[Instr]) -> tuple:
    where = {i.dest.name: j for j, i in enumerate(instrs) if i.dest is not None}
    return tuple((i.opcode, tuple(a for a in i.attrs if a[0] not in IGNORED),
                  tuple(where.get(op.name, -1) if isinstance(op, Reg) else -1 for op in i.operands))
                 for i in instrs)


def pair_order(tg: TrainingGraph, instrs: list[Instr], first: int, fill: bool = False) -> list[int]:
    """The issue order of a pair's operators (the first *first* of *instrs* are the first
    run): list-schedule them alone on *tg*'s cluster, every input there at time 0, the
    first run's operators before the second's whenever both are ready (the first run is
    not delayed but by a second-run operator started in its gap), and sort by start. A
    ``recv`` is an input (kept first); a ``send`` leaves when its value is ready. With
    *fill*, weight gradients (:func:`weight_gradient_nodes`) come last, filling gaps."""
    from schedcc.training.graph import build_training_graph
    from schedcc.training.policies import Plan
    from schedcc.training.simulate import run_plan
    keep = [j for j, i in enumerate(instrs) if i.opcode not in ("send", "recv")]
    prog = Program((Function("pair", (), (Block("entry", tuple(instrs[j] for j in keep)),)),), source="<pair>")
    local = build_training_graph(prog, tg.target, tg.groups)
    nodes = local.graph.nodes
    wgrad = weight_gradient_nodes(local) if fill else set()
    prio = {n: (0.0 if n in wgrad else 2e9 if keep[n] < first else 1e9) - nodes[n]["order"] for n in local.graph}
    run = run_plan(local, Plan("pair", local.graph, lambda r, s: False, prio, {}), iterations=1)
    start: dict[int, float] = {}
    ready: dict[str, float] = {}
    for pos, j in enumerate(keep):
        start[j] = run.start[(0, pos)]
        if instrs[j].dest is not None:
            ready[instrs[j].dest.name] = run.end[(0, pos)]
    for j, i in enumerate(instrs):
        if i.opcode == "recv":
            start[j] = -1.0
        elif i.opcode == "send":
            start[j] = max((ready.get(r, 0.0) for r in i.uses()), default=0.0)
    return sorted(range(len(instrs)), key=lambda j: (start[j], j))

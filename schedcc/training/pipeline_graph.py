"""Pipeline-parallel schedules as graphs: actions, dependences, evaluation.

An *action* is what one rank does for one stage and microbatch, in the
notation of ``torch.distributed.pipelining``: ``0F3`` (stage 0, forward,
microbatch 3), ``B`` (full backward), ``I`` (backward for the input), ``W``
(backward for the weights), ``SEND_F``/``RECV_F``/``SEND_B``/``RECV_B`` and
``(0F7;7B3)OVERLAP_F_B``. A schedule is one list of actions per rank.

:func:`build_graph` turns the lists into a graph: one node per action on its
rank's ``compute`` (or ``comm:pp``) stream, data edges between stages (with a
point-to-point transfer when consecutive stages sit on different ranks) and,
when *ordered*, chain edges that keep each rank's list order (a ``RECV``
is posted, not waited for: only the action that reads it waits). The list
scheduler then gives the times. Anything impossible (a duplicated action, an
action whose input nobody produces, a cycle of waits) is a
:class:`~schedcc.errors.SchedccError` naming the rank, the action and what it
waits for.

Example::

    >>> lists = [[Action("F", 0, 0), Action("B", 0, 0)], [Action("F", 1, 0), Action("B", 1, 0)]]
    >>> ev = evaluate(lists, StageCosts(f=1, b=2))
    >>> ev.makespan, round(ev.bubble_fraction, 3)
    (6, 0.5)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Hashable

import networkx as nx

from schedcc.errors import SchedccError
from schedcc.ir import Loc
from schedcc.problem import Machine, SchedGraph
from schedcc.sched.solve import ListStrategy, solve
from schedcc.training.intervals import overlap_length, union_length

COMPUTE_KINDS = ("F", "B", "I", "W")
COMM_KINDS = ("SEND_F", "RECV_F", "SEND_B", "RECV_B")
OTHER_KINDS = ("UNSHARD", "RESHARD", "REDUCE_GRAD")
_ACTION = re.compile(r"(\d+)(SEND_F|RECV_F|SEND_B|RECV_B|UNSHARD|RESHARD|REDUCE_GRAD|F|B|I|W)(\d*)")
_OVERLAP = re.compile(r"\((.+)\)OVERLAP_F_B")


@dataclass(frozen=True)
class Action:
    """One entry of a rank's list; ``sub`` holds the two parts of an OVERLAP_F_B."""

    kind: str
    stage: int
    mb: int | None = None
    sub: tuple["Action", ...] = ()
    loc: Loc | None = field(default=None, compare=False)  # where an imported list wrote it

    def __str__(self) -> str:
        if self.kind == "OVERLAP_F_B":
            return "(" + ";".join(str(a) for a in self.sub) + ")OVERLAP_F_B"
        return f"{self.stage}{self.kind}{'' if self.mb is None else self.mb}"


# Stage and microbatch numbers an action may carry: at most 1,024 ranks of 128 model chunks
# and 4,096 microbatches (schedcc.training.limits), so that a list cannot ask for millions.
MAX_STAGE = 1024 * 128 - 1
MAX_MICROBATCH = 4096 - 1


def parse_action(text: str, composite: bool = True) -> Action:
    """``1B2`` -> ``Action("B", 1, 2)``; a ValueError says what is wrong (an OVERLAP_F_B holds two
    plain actions; stage numbers are at most :data:`MAX_STAGE`, microbatches :data:`MAX_MICROBATCH`)."""
    text = text.strip()
    m = _OVERLAP.fullmatch(text) if composite else None
    if m:
        parts = tuple(parse_action(p, composite=False) for p in m.group(1).split(";"))
        if len(parts) != 2 or parts[0].kind != "F" or parts[1].kind not in ("B", "I"):
            raise ValueError("OVERLAP_F_B takes a forward and a backward: (0F7;7B3)OVERLAP_F_B")
        return Action("OVERLAP_F_B", parts[0].stage, parts[0].mb, parts)
    m = _ACTION.fullmatch(text)
    if not m:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise ValueError(f"'{shown}' is not an action like 0F3, 1B2, 0I0, 0W0, 1SEND_F0, (0F7;7B3)OVERLAP_F_B")
    if len(m.group(1)) > 9 or int(m.group(1)) > MAX_STAGE:
        raise ValueError(f"stage {m.group(1)[:12]}{'...' if len(m.group(1)) > 12 else ''} is out of range: "
                         f"stages are numbered from 0 to {MAX_STAGE:,} (1,024 ranks of 128 model chunks)")
    if len(m.group(3)) > 9 or (m.group(3) and int(m.group(3)) > MAX_MICROBATCH):
        raise ValueError(f"microbatch {m.group(3)[:12]}{'...' if len(m.group(3)) > 12 else ''} is out of range: "
                         f"microbatches are numbered from 0 to {MAX_MICROBATCH:,}")
    mb = int(m.group(3)) if m.group(3) else None
    if mb is None and m.group(2) not in ("UNSHARD", "RESHARD", "REDUCE_GRAD"):
        raise ValueError(f"'{text}' needs a microbatch number")
    return Action(m.group(2), int(m.group(1)), mb)


@dataclass(frozen=True)
class StageCosts:
    """Durations (ticks or abstract units) of one stage's actions and of one transfer.

    ``b`` is a full backward; ``i`` and ``w`` its two halves (default b/2 each).
    ``fb`` is an ``OVERLAP_F_B`` composite, a forward and a full backward run
    together (DeepSeek's F&B; default ``f + b``, the two back to back).
    ``act`` is one microbatch's activation memory for one stage.
    """

    f: int = 1
    b: int = 2
    i: int | None = None
    w: int | None = None
    comm: int = 0
    act: float = 1.0
    fb: int | None = None

    def of(self, kind: str, chunks: int = 1) -> int:
        d = {"F": self.f, "B": self.b, "I": self.i if self.i is not None else self.b - self.b // 2,
             "W": self.w if self.w is not None else self.b // 2}.get(kind, 0)
        return d // chunks if d % chunks == 0 else -(-d // chunks)


@dataclass
class Evaluation:
    """The timed schedule: per node start/end, and the summary numbers."""

    lists: list[list[Action]]
    graph: nx.DiGraph
    start: dict[Hashable, int]
    end: dict[Hashable, int]
    makespan: int
    bubble_fraction: float
    busy: dict[int, int]
    peak_activation: dict[int, float]     # in microbatch activations of a whole stage
    exposed_comm: dict[int, int] = field(default_factory=dict)
    span_bubble: float = 0.0  # mean idle fraction of each rank between its first and last action


def _loc_of(lists: list[list[Action]], stage: int) -> Loc | None:
    """Where an imported list first names *stage* (None for a built schedule)."""
    return next((a.loc for acts in lists for a in acts for x in (a.sub or (a,)) if x.stage == stage), None)


def _rank_of_stage(lists: list[list[Action]]) -> dict[int, int]:
    owner: dict[int, int] = {}
    for rank, acts in enumerate(lists):
        for a in acts:
            for x in (a.sub or (a,)):
                prev = owner.setdefault(x.stage, rank)
                if prev != rank:
                    raise SchedccError(f"stage {x.stage} appears on rank {prev} and on rank {rank}", a.loc,
                                       notes=[f"rank {rank}: '{a}'", "a stage lives on exactly one rank"],
                                       width=len(str(a)))
    return owner


def build_graph(lists: list[list[Action]], costs: StageCosts, ordered: bool = True,
                chunks: int = 1) -> nx.DiGraph:
    """The action graph of per-rank *lists* (see the module docstring). O(total actions)."""
    owner = _rank_of_stage(lists)
    n_stages = max(owner) + 1 if owner else 0
    missing_stages = [s for s in range(n_stages) if s not in owner]
    if missing_stages:
        raise SchedccError(f"stage {missing_stages[0]} runs on no rank", _loc_of(lists, n_stages - 1), notes=[
            f"the lists name stages 0..{n_stages - 1}; every stage needs its actions on one rank"])
    g = nx.DiGraph()
    where: dict[tuple[str, int, int | None], Hashable] = {}
    for rank, acts in enumerate(lists):
        for pos, a in enumerate(acts):
            node = (rank, pos)
            for x in (a.sub or (a,)):
                key = (x.kind, x.stage, x.mb)
                if key in where:
                    other = where[key]
                    first = g.nodes[other]["action"].loc if other in g else None
                    raise SchedccError(f"rank {rank}: action '{x}' appears twice", a.loc,
                                       notes=[f"first at {first}" if first else
                                              f"first at position {other[1]} of rank {other[0]}, again at position {pos}"],
                                       width=len(str(a)))
                where[key] = node
            comm = a.kind in COMM_KINDS
            dur = sum(costs.of(x.kind, chunks) for x in (a.sub or (a,)))
            if a.sub and costs.fb is not None:
                dur = -(-costs.fb // chunks)
            if a.kind in ("SEND_F", "SEND_B"):
                dur = costs.comm
            g.add_node(node, action=a, name=str(a), rank=rank, stream="comm:pp" if comm else "compute",
                       kind="comm" if comm or a.kind in OTHER_KINDS else "compute", dur=dur,
                       latency=dur, occupancy=dur, also=(), iteration=0,
                       units=(f"rank{rank}:{'comm:pp' if comm else 'compute'}",), act=0.0)
    explicit = any(k[0] in COMM_KINDS for k in where)
    split = any(k[0] in ("I", "W") for k in where)

    def need(node, key, why: str = "") -> None:
        src = where.get(key)
        a = g.nodes[node]["action"]
        if src is None:
            kind, stage, mb = key
            raise SchedccError(f"rank {g.nodes[node]['rank']}: action '{a}' waits for "
                               f"'{stage}{kind}{mb}', which no rank runs", a.loc,
                               notes=[why or f"stage {stage} must run microbatch {mb}'s {kind} first"],
                               width=len(str(a)))
        if src != node:
            lat = g.nodes[src]["dur"]
            g.add_edge(src, node, latency=lat, kind="DATA")

    for (kind, s, mb), node in list(where.items()):
        rank = owner[s]
        if kind == "F":
            if s > 0:
                if explicit and owner[s - 1] != rank:
                    need(node, ("RECV_F", s, mb), "a forward on another rank than its previous stage needs RECV_F")
                else:
                    _cross(g, where, node, ("F", s - 1, mb), owner, rank, costs, need)
        elif kind in ("B", "I"):
            need(node, ("F", s, mb))
            if s < n_stages - 1:
                nxt = ("B", s + 1, mb) if ("B", s + 1, mb) in where else ("I", s + 1, mb)
                if explicit and owner[s + 1] != rank:
                    need(node, ("RECV_B", s, mb), "a backward on another rank than its next stage needs RECV_B")
                else:
                    _cross(g, where, node, nxt, owner, rank, costs, need)
        elif kind == "W":
            need(node, ("I", s, mb), "a weight gradient needs its input gradient (I) first")
        elif kind == "SEND_F":
            need(node, ("F", s, mb))
        elif kind == "SEND_B":
            need(node, ("B", s, mb) if ("B", s, mb) in where else ("I", s, mb))
        elif kind == "RECV_F":
            need(node, ("SEND_F", s - 1, mb), "a RECV_F needs the previous stage's SEND_F")
        elif kind == "RECV_B":
            need(node, ("SEND_B", s + 1, mb), "a RECV_B needs the next stage's SEND_B")
    # completeness: every stage runs every microbatch forward and backward
    mbs = sorted({k[2] for k in where if k[0] == "F"})
    for s in range(n_stages):
        for mb in range(max(mbs, default=-1) + 1):
            if ("F", s, mb) not in where:
                raise SchedccError(f"rank {owner[s]}: stage {s} never runs microbatch {mb}'s forward ({s}F{mb})",
                                   _loc_of(lists, s), notes=[f"other stages run microbatches 0..{max(mbs)}"])
            if ("B", s, mb) not in where and ("I", s, mb) not in where:
                raise SchedccError(f"rank {owner[s]}: stage {s} never runs microbatch {mb}'s backward "
                                   f"({s}B{mb}, or {s}I{mb} and {s}W{mb})", _loc_of(lists, s))
            if ("I", s, mb) in where and ("W", s, mb) not in where:
                raise SchedccError(f"rank {owner[s]}: stage {s} runs {s}I{mb} but never {s}W{mb}",
                                   g.nodes[where[("I", s, mb)]]["action"].loc)
    # activation memory: a forward's activations live until its (input) backward ends
    for (kind, s, mb), node in where.items():
        if kind == "F":
            g.nodes[node]["act"] = g.nodes[node].get("act", 0.0) + costs.act / chunks
            g.nodes[node].setdefault("frees", [])
    if ordered:
        for rank, acts in enumerate(lists):
            prev: dict[str, Hashable] = {}
            for pos in range(len(acts)):
                node = (rank, pos)
                if acts[pos].kind in ("RECV_F", "RECV_B"):
                    # posting a receive does not wait (torch posts irecv and waits only in the
                    # action that reads it): it ends with its SEND and holds up nothing after it
                    continue
                stream = g.nodes[node]["stream"]
                if stream in prev and not g.has_edge(prev[stream], node):
                    g.add_edge(prev[stream], node, latency=0, kind="ORDER")
                prev[stream] = node
    _check_deadlock(g)
    g.graph["where"] = where
    g.graph["split"] = split
    return g


def _cross(g, where, node, key, owner, rank, costs: StageCosts, need) -> None:
    """Data edge from the action *key* to *node*, through a transfer when ranks differ."""
    src = where.get(key)
    if src is None or owner[key[1]] == rank or costs.comm <= 0:
        need(node, key)
        return
    send = ("xfer",) + key
    if send not in g:
        srank = owner[key[1]]
        g.add_node(send, action=None, name=f"send {key[1]}{key[0]}{key[2]}", rank=srank, stream="comm:pp",
                   kind="comm", dur=costs.comm, latency=costs.comm, occupancy=costs.comm, also=(),
                   units=(f"rank{srank}:comm:pp",), act=0.0, iteration=0, to=rank)
        g.add_edge(src, send, latency=g.nodes[src]["dur"], kind="DATA")
    g.add_edge(send, node, latency=costs.comm, kind="DATA")


def _check_deadlock(g: nx.DiGraph) -> None:
    if nx.is_directed_acyclic_graph(g):
        return
    cycle = [u for u, _ in nx.find_cycle(g)]
    notes = []
    for u, v in zip(cycle, cycle[1:] + cycle[:1]):
        du, dv = g.nodes[u], g.nodes[v]
        if g.edges[u, v]["kind"] == "ORDER":
            notes.append(f"rank {dv['rank']}: '{dv['name']}' comes after '{du['name']}' in its list")
        else:
            notes.append(f"rank {dv['rank']}: '{dv['name']}' waits for '{du['name']}' (rank {du['rank']})")
    first = g.nodes[cycle[1 % len(cycle)]]
    raise SchedccError(f"the schedule deadlocks: rank {first['rank']}: '{first['name']}' can never start",
                       first["action"].loc, notes=notes, width=len(first["name"]))


def schedule_graph(g: nx.DiGraph, priority: dict | None = None) -> tuple[dict, dict]:
    """List-schedule an action graph: (start, end) in ticks per node."""
    units = tuple(sorted({u for _, d in g.nodes(data=True) for u in d["units"]}))
    # no issue limit: ranks issue on their own, and posting a transfer takes no time
    problem = SchedGraph.from_networkx(g, Machine("pipeline", max(len(g), 1), units))
    keys = problem.keys
    prio = [priority[k] for k in keys] if priority is not None else [-i for i in range(len(keys))]

    def in_list_order(_graph: SchedGraph) -> list:
        return prio
    solved = solve(problem, ListStrategy(in_list_order), bound=False)
    start = {keys[i]: c for i, c in solved.schedule.cycle.items()}
    end = {k: c + g.nodes[k]["dur"] for k, c in start.items()}
    return start, end


def measure(lists, g: nx.DiGraph, start: dict, end: dict) -> Evaluation:
    """Makespan, bubble fraction, peak activation memory and exposed transfers per rank."""
    ranks = range(len(lists))
    makespan = max(end.values(), default=0)
    busy = {r: 0 for r in ranks}
    comm: dict[int, list] = {r: [] for r in ranks}
    compute: dict[int, list] = {r: [] for r in ranks}
    for n, d in g.nodes(data=True):
        if d["stream"] == "compute":
            busy[d["rank"]] += d["dur"]
            compute[d["rank"]].append((start[n], end[n]))
        elif d["dur"]:
            comm[d["rank"]].append((start[n], end[n]))
            if "to" in d:  # the receiver waits on the same transfer
                comm[d["to"]].append((start[n], end[n]))
    exposed = {r: union_length(comm[r]) - overlap_length(comm[r], compute[r]) for r in ranks}
    bubble = 1 - sum(busy.values()) / (len(lists) * makespan) if makespan else 0.0
    where = g.graph["where"]
    events: dict[int, list] = {r: [] for r in ranks}
    for (kind, s, mb), node in where.items():
        if kind != "F":
            continue
        d = g.nodes[node]
        free_at = where.get(("I", s, mb)) or where.get(("B", s, mb))
        events[d["rank"]].append((start[node], d["act"]))
        events[d["rank"]].append((end[free_at] if free_at is not None else end[node], -d["act"]))
    spans = []
    for r in ranks:
        if compute[r]:
            lo, hi = min(s for s, _ in compute[r]), max(e for _, e in compute[r])
            spans.append(1 - busy[r] / (hi - lo) if hi > lo else 0.0)
    span_bubble = sum(spans) / len(spans) if spans else 0.0
    peak = {}
    for r, ev in events.items():
        ev.sort(key=lambda x: (x[0], x[1]))
        live = best = 0.0
        for _, delta in ev:
            live += delta
            best = max(best, live)
        peak[r] = round(best, 9)
    return Evaluation(lists, g, start, end, makespan, bubble, busy, peak, exposed, span_bubble)


def evaluate(lists: list[list[Action]], costs: StageCosts, chunks: int = 1) -> Evaluation:
    """Time per-rank action *lists* with *costs*, keeping each rank's order."""
    g = build_graph(lists, costs, ordered=True, chunks=chunks)
    start, end = schedule_graph(g)
    return measure(lists, g, start, end)

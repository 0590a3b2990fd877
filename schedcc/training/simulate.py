"""Unroll a :class:`~schedcc.training.policies.Plan` over iterations and list-schedule it.

The unrolled step is a :class:`~schedcc.problem.SchedGraph`: node ``i`` is
operator ``keys[i] = (iteration, plan node)``; its payload is the operator's
attributes (see :class:`~schedcc.training.graph.TrainingGraph`) with its
``iteration``. Resources are units, one per (rank, stream): ``rank2:compute``,
``rank2:comm:dp`` (several when a policy lets chunks share a link). A data
dependence ``u -> v`` has latency ``dur(u)`` (v starts when u ends); a stream
that keeps program order gets zero-latency chain edges (the unit being busy
does the rest). Iteration ``k+1``'s readers of a parameter depend on
iteration ``k``'s optimizer update of it, so the next forward waits exactly
for what it needs.

With a contention factor, :func:`schedcc.sched.solve.solve` refines the
schedule: every compute operator is stretched by the communication that
overlaps it, and the step is scheduled again (a fixed point, at most
:data:`CONTENTION_ROUNDS` schedules).

Complexity: O(I (n + e) log(I n)) for I iterations, the list scheduler's bound.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.training.graph import build_training_graph
    >>> from schedcc.training.policies import make_plan
    >>> tg = build_training_graph(parse("a = mm x {time = 10us}\\nb = mm a {time = 5us}\\n"),
    ...                           load_target("h100-8x"))
    >>> run = run_plan(tg, make_plan(tg, "fifo"), iterations=1)
    >>> [(d["name"], run.start[n], run.end[n]) for n, d in run.nodes()]
    [('a', 0, 10000), ('b', 10000, 15000)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Iterator

import networkx as nx

from schedcc.problem import Dep, Machine, Op, SchedGraph, is_acyclic
from schedcc.sched.priority import critical_path
from schedcc.sched.solve import ListStrategy, solve
from schedcc.training.graph import TrainingGraph, check_acyclic
from schedcc.training.intervals import Coverage
from schedcc.training.policies import DATA_EDGES, MEMORY, Plan

CONTENTION_ROUNDS = 4


@dataclass
class Run:
    """A scheduled, unrolled step: ``(iteration, node)`` -> start and end in ticks."""

    graph: SchedGraph          # keys (iteration, plan node); payload: the operator's attributes
    start: dict[Hashable, int]
    end: dict[Hashable, int]
    unit: dict[Hashable, str]
    iterations: int
    issue: dict[Hashable, int] | None = None  # the scheduler's issue ticks (a recv is shown over its transfer)
    exact: Any = None          # with exact: the solver's ExactInfo (makespan in ticks, bound, heuristic)

    def nodes(self) -> Iterator[tuple[Hashable, dict]]:
        """(key, attributes) of every operator of every iteration, in graph order."""
        keys = self.graph.keys
        return ((keys[i], op.payload) for i, op in enumerate(self.graph.ops))

    def data_edges(self) -> Iterator[tuple[Hashable, Hashable]]:
        """(producer, consumer) keys of the dependences that carry data."""
        keys = self.graph.keys
        return ((keys[d.src], keys[d.dst]) for d in self.graph.deps if d.kind in DATA_EDGES)


def unit_name(rank: int, stream: str, lane: int = 0, lanes: int = 1) -> str:
    return f"rank{rank}:{stream}" + (f"#{lane}" if lanes > 1 else "")


def unroll(tg: TrainingGraph, plan: Plan, iterations: int) -> SchedGraph:
    """*iterations* copies of the plan's graph with chain and cross-iteration edges.

    Raises a located error when the graph of one iteration, chains included,
    has a cycle (a deadlock); edges between iterations only go forward, so
    no other cycle can exist."""
    base = plan.graph
    bnodes = dict(base.nodes(data=True))
    ordered_nodes = sorted(base.nodes, key=lambda n: bnodes[n]["order"])
    # the parameter each update writes -> the nodes of the next iteration that read it
    readers: dict[tuple[int, str], list] = {}
    for n in ordered_nodes:
        d = bnodes[n]
        for reg in tg.live_in.get(n, ()) if not isinstance(n, tuple) else ():
            readers.setdefault((d["rank"], reg), []).append(n)
    units_of = {}
    for n in ordered_nodes:
        d = bnodes[n]
        key = (d["rank"], d["stream"])
        if key not in units_of:
            lanes = plan.channels.get(key, 1)
            units_of[key] = tuple(unit_name(d["rank"], d["stream"], i, lanes) for i in range(lanes))
    # edges of one iteration: (u, v, kind, latency), chains included; an edge's "lag" (ticks)
    # waits that much longer after its source ends (an imported trace's wake-up times)
    local = [(u, v, e["kind"], (bnodes[u]["dur"] if e["kind"] in DATA_EDGES or e["kind"] == MEMORY else 0)
              + e.get("lag", 0)) for u, v, e in base.edges(data=True)]
    chained = []
    for n in ordered_nodes:
        d = bnodes[n]
        if plan.float_updates and d.get("update") is not None:
            continue
        if plan.ordered(d["rank"], d["stream"]):
            chained.append(n)
    last: dict[tuple[int, str], Hashable] = {}
    firsts: dict[tuple[int, str], Hashable] = {}
    for n in chained:
        key = (bnodes[n]["rank"], bnodes[n]["stream"])
        prev = last.get(key)
        if prev is None:
            firsts[key] = n
        elif not base.has_edge(prev, n):
            local.append((prev, n, "ORDER", 0))
        last[key] = n
    _check_one_iteration(base, local)
    index = {n: i for i, n in enumerate(ordered_nodes)}
    size = len(ordered_nodes)
    updates = [(n, d) for n, d in bnodes.items() if d.get("update") is not None]
    ops: list[Op] = []
    keys: list[tuple[int, Hashable]] = []
    # One dependence per pair: when two reasons join the same pair, the longer wait holds.
    deps: dict[tuple[int, int], Dep] = {}

    def add(u: int, v: int, kind: str, latency: int, reason: str) -> None:
        old = deps.get((u, v))
        if old is None or latency > old.latency:
            deps[(u, v)] = Dep(u, v, kind, latency, 0, reason)

    for k in range(iterations):
        off = k * size
        for n in ordered_nodes:
            d = bnodes[n]
            ops.append(Op(d["name"], units_of[(d["rank"], d["stream"])], d["dur"], d["dur"], (), d["kind"],
                          payload={**d, "iteration": k}))
            keys.append((k, n))
        for u, v, kind, lat in local:
            add(off + index[u], off + index[v], kind, lat, kind)
        if k:
            prev = off - size
            # program order continues into the next iteration
            for key, first in firsts.items():
                add(prev + index[last[key]], off + index[first], "ORDER", 0, "ORDER")
            for n, d in updates:
                for r in readers.get((d["rank"], d["update"]), ()):
                    add(prev + index[n], off + index[r], "RAW", d["dur"], f"updated {d['update']}")
            for u, v, lat in plan.carried:
                add(prev + index[u], off + index[v], MEMORY, lat, "activation memory")
    units = tuple(sorted({u for us in units_of.values() for u in us}))
    machine = Machine(tg.target.name, len(units), units)
    return SchedGraph(tuple(ops), tuple(deps.values()), machine, tuple(keys))


def _check_one_iteration(base: nx.DiGraph, edges: list) -> None:
    """Kahn's algorithm over *edges* (fast on large steps); on a cycle, report it with
    the operators on it."""
    if is_acyclic(base, ((u, v) for u, v, _, _ in edges)):
        return
    g = nx.DiGraph()
    g.add_nodes_from(base.nodes(data=True))
    g.add_edges_from((u, v, {"kind": kind}) for u, v, kind, _ in edges)
    check_acyclic(g, "the schedule would deadlock (a cycle of dependences and stream order)")


def run_plan(tg: TrainingGraph, plan: Plan, iterations: int = 3, exact=None) -> Run:
    """List-schedule *iterations* unrolled copies of *plan*; raise a located error on deadlock.
    With *exact* (:class:`~schedcc.sched.cpsat.Limits`) CP-SAT improves the list schedule of
    every round within the limit (:class:`~schedcc.sched.exact.ExactStrategy`)."""
    g = unroll(tg, plan, iterations)
    keys = g.keys
    if plan.priority is None:
        # latency-weighted height, earlier iterations first (an operator nothing waits
        # for must still finish in its own step, not drift to the end of the run)
        height = critical_path(g)
        scale = max(height, default=0) + 1
        prio = [h - keys[i][0] * scale for i, h in enumerate(height)]
    else:
        base = plan.priority
        k_scale = max((abs(v) for v in base.values()), default=0.0) * 2 + 1
        prio = [base[n] - k * k_scale for k, n in keys]

    def by_plan(_graph: SchedGraph, p=prio) -> list:
        return p
    by_plan.__name__ = plan.policy

    contention = tg.cluster.contention
    refine = None
    if contention > 0:
        base_dur = [op.latency for op in g.ops]

        def refine(graph: SchedGraph, schedule) -> SchedGraph | None:
            if refine.rounds >= CONTENTION_ROUNDS:
                return None
            refine.rounds += 1
            return stretched(graph, schedule.cycle, base_dur, contention)
        refine.rounds = 1
    strategy = ListStrategy(by_plan)
    if exact is not None:
        from schedcc.sched.exact import ExactStrategy
        strategy = ExactStrategy(exact, strategy)
    solved = solve(g, strategy, refine=refine, bound=False)
    sched, g = solved.schedule, solved.graph
    start = {keys[i]: c for i, c in sched.cycle.items()}
    end = {keys[i]: c + g.ops[i].latency for i, c in sched.cycle.items()}
    for i, op in enumerate(g.ops):
        send = op.payload.get("send")
        if send is not None:
            k = keys[i][0]
            start[keys[i]], end[keys[i]] = start[(k, send)], end[(k, send)]
    return Run(g, start, end, {keys[i]: u for i, u in sched.unit.items()}, iterations,
               {keys[i]: c for i, c in sched.cycle.items()}, sched.exact)


def stretched(g: SchedGraph, issue: dict, base_dur: list[int], contention: float) -> SchedGraph | None:
    """*g* with every compute operator slowed by *contention* x the time communication of
    its rank overlaps it (compute and collectives share memory bandwidth and cores), or
    None when no duration changes (the fixed point). O(n log n)."""
    ops = g.ops
    comm: dict[int, list] = {}
    for i, op in enumerate(ops):
        if op.kind == "comm" and op.latency:
            comm.setdefault(op.payload["rank"], []).append((issue[i], issue[i] + op.latency))
    busy = {rank: Coverage(spans) for rank, spans in comm.items()}
    new_ops = list(ops)
    changed = False
    for i, op in enumerate(ops):
        rank = op.payload["rank"]
        if op.kind != "compute" or not base_dur[i] or rank not in busy:
            continue
        both = busy[rank].covered(issue[i], issue[i] + op.latency)
        new = base_dur[i] + round(contention * both)
        if new != op.latency:
            changed = True
            new_ops[i] = op._replace(latency=new, occupancy=new, payload={**op.payload, "dur": new})
    if not changed:
        return None
    # a data dependence waits for its source's end (and keeps any lag beyond it)
    deps = tuple(d._replace(latency=d.latency - ops[d.src].latency + new_ops[d.src].latency)
                 if d.kind in DATA_EDGES else d for d in g.deps)
    return g.replace(ops=tuple(new_ops), deps=deps)

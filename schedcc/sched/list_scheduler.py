"""Cycle-driven list scheduling (Gibbons & Muchnick; the lecture's algorithm).

At every cycle the instructions whose predecessors have all issued and whose
operands are ready (issue cycle of the predecessor + edge latency) form the
*ready list*. The scheduler issues the best of them by priority, as long as
an issue slot and a free unit remain; ties go to more successors, then to
the original order, so the output is the same on every run.

Everything comes from the :class:`~schedcc.problem.SchedGraph`: per
operation ``units`` (the unit instances that can execute it, one is
chosen), ``occupancy`` (cycles that unit stays busy) and ``also`` (extra
resources held from issue, like a divider behind an ALU port); the issue
width from its machine. Instruction blocks, Ascend kernels and training
steps are all scheduled by this one function.

Complexity: O((n + e) log n): each node enters and leaves two heaps once,
and empty cycles are skipped rather than stepped through.

**Repair** (iterative list scheduling). Critical-path priorities tie often,
and the tie-break decides the schedule: on random ``mips4`` blocks the plain
run misses the proven optimum on about one block in six (docs/performance.md).
So with the default priority, a block of at most :data:`REPAIR_LIMIT` nodes
whose schedule does not meet the lower bound is scheduled again up to
:data:`REPAIR_ROUNDS` times with the priorities perturbed: odd rounds break
ties in a seeded random order, even rounds also let priorities one apart
trade places (a perturbation below 1.5 on integer heights). The shortest
schedule wins (the first on a tie, so the plain run's when nothing beats it);
``repair_round`` says which. Seeds are fixed: the same block gets the same
schedule on every run. At most 32 more runs, O(32 (n + e) log n).

**Never worse than the order given.** Greedy list scheduling can lose to the
input order (a long divide started early can hold its unit when a short
chain needed it: 1 random ``la664`` block in 200 took 4 cycles more). When
the graph's node order is its input's order (builders that number the nodes
in program order say so with ``topological=True``: blocks, Ascend kernels),
that order issued in order on the same machine
(:func:`schedcc.sim.simulate_order`, the "original order" every report
prints) is compared with the list schedule, and the shorter kept; on a tie
the list schedule. ``Schedule.input_order`` says the input order was kept,
``list_makespan`` what the list schedule took. Every priority, with or
without repair. O(n + e) more.

Example::

    >>> from schedcc import parse
    >>> from schedcc.dag import build_dag
    >>> from schedcc.target import load_target
    >>> mips4 = load_target("mips4")
    >>> block = parse(open("examples/lecture.ir").read()).functions[0].blocks[0]
    >>> s = list_schedule(build_dag(block, mips4), mips4)
    >>> s.order, s.makespan
    ([0, 2, 5, 1, 4, 3], 9)
"""

from __future__ import annotations

import heapq
import random
from dataclasses import replace
from typing import Sequence


from schedcc._perf import paused_gc
from schedcc.errors import SchedccError
from schedcc.problem import SchedGraph, as_graph
from schedcc.sched.bounds import lower_bound
from schedcc.sched.priority import PRIORITIES, PriorityFunction
from schedcc.sched.schedule import Schedule, Step
from schedcc.target import Target, load_target

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # networkx loads only where a networkx graph is passed in
    import networkx as nx


REPAIR_ROUNDS = 32     # perturbed runs at most
REPAIR_LIMIT = 1024    # blocks of more nodes are not repaired (32 more runs would dominate the time)


def list_schedule(graph: SchedGraph | nx.DiGraph, target: Target | str | None = None,
                  priority: str | PriorityFunction = "critical-path", explain: bool = False,
                  repair: bool = True) -> Schedule:
    """Schedule *graph* with a latency-aware list scheduler.

    The machine is the graph's own; *target* is needed only to read a plain
    ``networkx.DiGraph`` (nodes with ``latency units occupancy also``, edges
    with ``latency``), and then the schedule names the nodes as that graph
    does. *priority* is a name from :data:`PRIORITIES` or a function from the
    graph to one number per node (higher first). With ``explain=True`` the
    result records each cycle's ready list and decisions in ``steps``. With
    *repair* (and the default priority) a block that misses its lower bound is
    repaired (module docstring).
    """
    if isinstance(graph, SchedGraph):
        with paused_gc():
            return no_worse_than_input(graph, _repaired(graph, priority, explain, repair))
    problem = as_graph(graph, load_target(target).machine if target is not None else None)
    with paused_gc():
        s = no_worse_than_input(problem, _repaired(problem, priority, explain, repair))
    keys = problem.keys
    return Schedule(problem, problem.by_key(s.cycle), problem.by_key(s.unit), [keys[n] for n in s.order],
                    s.issue_width, s.priority_name, s.priority, s.steps, repair_round=s.repair_round,
                    by_key=problem.keys is not None, input_order=s.input_order, list_makespan=s.list_makespan)


def no_worse_than_input(graph: SchedGraph, s: Schedule) -> Schedule:
    """*s*, or the graph's input order issued in order when that is shorter (module
    docstring); a graph without an input order (``topological`` unset) keeps *s*.
    O(n + e)."""
    if not graph.topological or not len(graph):
        return s
    from schedcc.sim.pipeline import simulate_order
    given = simulate_order(graph, range(len(graph)))
    listed = s.makespan
    if given.makespan >= listed:
        s.original = given
        return s
    return replace(s, cycle=dict(given.cycle), unit=dict(given.unit), order=list(range(len(graph))),
                   input_order=True, list_makespan=listed, original=given)


def _repaired(graph: SchedGraph, priority, explain: bool, repair: bool) -> Schedule:
    best = _schedule(graph, priority, explain)
    if not repair or priority != "critical-path" or len(graph) > REPAIR_LIMIT:
        return best
    bound = lower_bound(graph).value
    ops = graph.ops

    def span(sched: Schedule) -> int:  # node-keyed cycles (Schedule.makespan reads keys)
        return max((c + ops[n].latency for n, c in sched.cycle.items()), default=0)
    best_span = span(best)
    for k in range(1, REPAIR_ROUNDS + 1):
        if best_span <= bound:
            break
        rng = random.Random(k - 1)
        spread = 0.5 if k % 2 else 1.5
        jitter = [rng.random() * spread for _ in range(len(graph))]
        s = _schedule(graph, priority, explain, jitter)
        if span(s) < best_span:
            s.repair_round = k
            best, best_span = s, span(s)
    return best


def _schedule(graph: SchedGraph, priority, explain: bool, jitter: list[float] | None = None) -> Schedule:
    if callable(priority):
        prio_fn, prio_name = priority, getattr(priority, "__name__", "custom")
    else:
        if priority not in PRIORITIES:
            raise SchedccError(f"unknown priority '{priority}'",
                               notes=[f"choose one of: {', '.join(PRIORITIES)}"])
        prio_fn, prio_name = PRIORITIES[priority], priority
    prio: Sequence[float] = prio_fn(graph)
    ops, succ, pred = graph.ops, graph.succ, graph.pred
    machine = graph.machine

    # Sort key: higher priority, then more successors, then earlier in the source;
    # a repair round perturbs the priorities by *jitter* (the module docstring).
    if jitter is None:
        def key(n: int) -> tuple:
            return (-prio[n], -len(succ[n]), n)
    else:
        def key(n: int) -> tuple:
            return (-(prio[n] + jitter[n]), -len(succ[n]), n)

    total = len(ops)
    remaining = [len(p) for p in pred]
    earliest = [0] * total
    because: dict[int, object] = {}
    pending: list[tuple[int, tuple, int]] = []  # operands not ready yet, by cycle
    # One ready heap per resource signature, so that a long run of ready
    # instructions waiting for a busy unit is never scanned cycle after cycle.
    ready: dict[tuple, list[tuple[tuple, int]]] = {}
    nonempty: dict[tuple, list[tuple[tuple, int]]] = {}  # the heaps with something in them
    for n in range(total):
        if remaining[n] == 0:
            heapq.heappush(pending, (0, key(n), n))
    unit_free: dict[str, int] = {u: 0 for u in machine.units}
    all_units = tuple(machine.units) or ("ISSUE",)
    cycle_of: dict[int, int] = {}
    unit_of: dict[int, str] = {}
    order: list[int] = []
    steps: list[Step] | None = [] if explain else None
    width = machine.issue_width
    cycle = 0
    # In-order write-back (Machine.in_order_writeback): an operation issues only where its
    # result is written no earlier than every result before it; the latest so far.
    in_order_wb = machine.in_order_writeback
    writeback = 0

    def make_ready(n: int, k: tuple) -> None:
        op = ops[n]
        sig = (op.units or all_units, op.also, op.latency if in_order_wb else 0)
        heap = ready.setdefault(sig, [])
        if not heap:
            nonempty[sig] = heap
        heapq.heappush(heap, (k, n))

    while len(order) < total:
        while pending and pending[0][0] <= cycle:
            _, k, n = heapq.heappop(pending)
            make_ready(n, k)
        if steps is not None:
            step = Step(cycle, [(n, prio[n]) for _, n in sorted(x for h in ready.values() for x in h)],
                        [], [], [])
        issued = 0
        while issued < width:
            best = None
            # only the heaps that hold something (a pipeline of 64 ranks has 128 signatures, a few ready);
            # keys are unique, so the choice does not depend on the order they are looked at
            for sig, heap in nonempty.items():
                if best is None or heap[0][0] < best[1][0][0]:
                    units, also, latency = sig
                    if in_order_wb and cycle + latency < writeback:
                        continue
                    if not also and len(units) == 1:  # the common case, without the call
                        if unit_free.get(units[0], 0) <= cycle:
                            best = (sig, heap)
                    elif _free_unit(units, also, unit_free, cycle) is not None:
                        best = (sig, heap)
            if best is None:
                break
            sig, heap = best
            k, n = heapq.heappop(heap)
            if not heap:
                del nonempty[sig]
            unit = _free_unit(sig[0], sig[1], unit_free, cycle)
            unit_free[unit] = cycle + ops[n].occupancy
            for extra, cycles in sig[1]:
                unit_free[extra] = cycle + cycles
            cycle_of[n], unit_of[n] = cycle, unit
            writeback = max(writeback, cycle + ops[n].latency)
            order.append(n)
            issued += 1
            if steps is not None:
                step.picked.append((n, unit))
            for d in succ[n]:
                s = d.dst
                t = cycle + d.latency
                if t >= earliest[s]:
                    earliest[s] = t
                    because[s] = d
                remaining[s] -= 1
                if remaining[s] == 0:
                    if earliest[s] <= cycle:  # zero-latency edge: ready this very cycle
                        make_ready(s, key(s))
                        if steps is not None:
                            step.ready.append((s, prio[s]))
                            step.joined.append((s, n))
                    else:
                        heapq.heappush(pending, (earliest[s], key(s), s))
        any_ready = bool(nonempty)
        if steps is not None:
            for sig, heap in ready.items():
                for _, n in sorted(heap):
                    why = (f"no issue slot left (width {width})" if issued >= width
                           else f"its result would be written before an earlier one's (cycle {writeback}): "
                                "results are written in order" if in_order_wb and cycle + sig[2] < writeback
                           else _busy_text(ops[n], unit_free, all_units, cycle))
                    step.blocked.append((n, why))
            step.waiting = [(n, t, _wait_text(graph, because.get(n))) for t, _, n in sorted(pending)]
            if step.ready or step.picked or step.blocked:
                steps.append(step)
        # Skip cycles in which nothing can happen.
        nxt = cycle + 1
        if not any_ready and pending:
            nxt = max(nxt, pending[0][0])
        elif any_ready and issued == 0:
            busy = [t for t in unit_free.values() if t > cycle]
            if in_order_wb:  # when a waiting result may be written
                busy += [writeback - sig[2] for sig in nonempty if writeback - sig[2] > cycle]
            soonest = min(busy, default=nxt)
            if pending:
                soonest = min(soonest, pending[0][0])
            nxt = max(nxt, soonest)
        cycle = nxt

    return Schedule(graph=graph, cycle=cycle_of, unit=unit_of, order=order, issue_width=width,
                    priority_name=prio_name, priority=prio, steps=steps)


def _free_unit(units, also, unit_free: dict[str, int], cycle: int) -> str | None:
    for extra, _ in also:
        if unit_free.get(extra, 0) > cycle:
            return None
    for u in units:
        if unit_free.get(u, 0) <= cycle:
            return u
    return None


def _busy_text(op, unit_free: dict[str, int], all_units, cycle: int) -> str:
    for extra, _ in op.also:
        if unit_free.get(extra, 0) > cycle:
            return f"{extra} busy until cycle {unit_free[extra]}"
    units = op.units or all_units
    return ", ".join(f"{u} busy until cycle {unit_free.get(u, 0)}" for u in units)


def _wait_text(graph: SchedGraph, d) -> str:
    if d is None:
        return ""
    what = graph.label(d.src)
    kind = d.kind if d.kind != "MEM" else f"{d.detail or 'MEM'} through memory"
    return f"{kind} on {d.reason} from '{what}'"

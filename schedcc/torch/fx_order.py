"""Orders of an FX graph: how long a given order takes, a schedule made into an order, the order written back.

**An order runs as CUDA streams run it.** The compute stream executes its
nodes in the order given (a ``wait_tensor`` blocks it until its collective
ends); a collective is launched at its place in the order on its group's
stream and starts when the compute work before it has ended (the
communication stream waits for the compute stream at launch, as
``ProcessGroupNCCL`` does) and the previous collective of its group is done.
:func:`simulate` builds exactly those constraints as dependences and
list-schedules them (with every stream's order fixed, the list schedule is
the as-soon-as-possible run), so a given order and schedcc's schedules are
measured by the same :class:`~schedcc.training.result.StepResult` code as
every other training step.

**A schedule becomes an order** (:func:`linearize`): compute kernels by start
time; a collective just before the kernel that was running when it started
(its launch must not wait for that kernel); a zero-length node (a view, a
wait) after the kernel running when it became ready. Kahn's algorithm with
these positions as priorities keeps every dependence. Every node then starts
no later than in the schedule, except the few placed after a kernel they
overlapped.

Complexity: O((n + e) log n) each.

Example::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> from schedcc.target import load_target
    >>> from schedcc.torch.fx_graph import build_step, schedcc_durations
    >>> step = build_step(make_fx(lambda a: (a.sin(), a.add_(1)))(torch.ones(4)), load_target("h100-8x"))
    >>> simulate(step, current_order(step), schedcc_durations(step)).step_time_us
    4.0
    >>> check_order(step, [1, 0])
    Traceback (most recent call last):
    ...
    schedcc.torch.fx_order.BrokenOrder: node 'add_' is placed before 'sin', which it depends on (MEM)
"""

from __future__ import annotations

import bisect
import heapq

import torch.fx as fx

from schedcc.sched.list_scheduler import list_schedule
from schedcc.sched.solve import ListStrategy, solve
from schedcc.training.result import StepResult, summarize
from schedcc.training.simulate import Run


def simulate(step, order: list[int], dur: list[int], label: str = "order") -> StepResult:
    """The step run in *order* (node indices of *step*) with durations *dur* (ticks).
    Raises :class:`BrokenOrder` when the order puts a node before one it depends on."""
    check_order(step, order)
    extra = []
    prev = None
    last_on: dict[str, int] = {}
    for i in order:
        stream = step.streams[i]
        if prev is not None:
            extra.append((prev, i, "ORDER", dur[prev]))  # after the compute stream's earlier work
        if stream == "compute":
            prev = i
        else:
            p = last_on.get(stream)
            if p is not None:
                extra.append((p, i, "ORDER", 0))
            last_on[stream] = i
    g = step.problem(dur, extra)
    rank = [0.0] * len(order)
    for k, i in enumerate(order):
        rank[i] = -float(k)

    def in_order(_graph):
        return rank
    in_order.__name__ = label
    return _result(step, g, list_schedule(g, priority=in_order, repair=False), label)


class BrokenOrder(ValueError):
    """An order that is not a topological order of the step's dependences."""


def check_order(step, order: list[int]) -> None:
    """Raise :class:`BrokenOrder` unless *order* holds every node once and keeps every dependence."""
    pos = [-1] * len(step)
    for k, i in enumerate(order):
        pos[i] = k
    if len(order) != len(step) or min(pos, default=0) < 0:
        raise BrokenOrder(f"the order has {len(set(order))} of the {len(step)} nodes")
    for s, t, kind in step.deps:
        if pos[s] > pos[t]:
            raise BrokenOrder(f"node '{step.nodes[t].name}' is placed before '{step.nodes[s].name}', "
                              f"which it depends on ({kind})")


def _result(step, g, sched, label: str) -> StepResult:
    keys = g.keys
    start = {keys[i]: c for i, c in sched.cycle.items()}
    end = {keys[i]: c + g.ops[i].latency for i, c in sched.cycle.items()}
    run = Run(g, start, end, {keys[i]: u for i, u in sched.unit.items()}, 1,
              {keys[i]: c for i, c in sched.cycle.items()}, getattr(sched, "exact", None))
    return summarize(run, label, step.target.name, len(g))


COMM_WEIGHTS = (1, 8)  # critical paths with communication counted k times (2 and 4 never won in the bench)


def comm_weighted(k: int):
    """A list-scheduling priority: the latency-weighted height of every node with each
    collective's duration counted *k* times (k=1: the critical path). A larger *k* launches
    the work that feeds a collective earlier (the collective starts sooner and hides behind
    more compute), at the price of some compute on the critical path. O(n + e)."""
    def priority(g) -> list[float]:
        ops, succ = g.ops, g.succ
        height = [0.0] * len(ops)
        for i in reversed(g.topological_order):
            scale = k if ops[i].kind == "comm" else 1
            best = ops[i].latency * scale
            for d in succ[i]:
                h = d.latency * scale + height[d.dst]
                if h > best:
                    best = h
            height[i] = best
        return height
    priority.__name__ = "critical path" if k == 1 else f"critical path, communication x{k}"
    return priority


def program_order(g) -> list[float]:
    """A list-scheduling priority: the graph's own order (earlier first). As a list schedule,
    every collective starts as soon as its inputs are there and every wait sinks to the first
    kernel that needs it; compute keeps its order otherwise. O(n)."""
    n = len(g.ops)
    return [float(n - i) for i in range(n)]


program_order.__name__ = "program order"


def collective_chains(step, order: list[int] | None = None) -> list[tuple[int, int, str, int]]:
    """Dependences that keep the collectives of each group in *order* (default the graph's)."""
    extra, last = [], {}
    for i in order if order is not None else current_order(step):
        stream = step.streams[i]
        if stream != "compute":
            if stream in last:
                extra.append((last[stream], i, "ORDER", 0))
            last[stream] = i
    return extra


def schedule_free(step, dur: list[int], exact=None, priority=None, keep_collective_order: bool = False,
                  problem=None):
    """List-schedule the step with no order imposed on compute (*priority*: a function of the
    problem, default the critical path), the collectives of each group in the graph's order
    with *keep_collective_order*, optionally improved by CP-SAT within *exact*'s limits.
    *problem* is that problem when the caller built it already (:func:`free_problem`; shared
    by several priorities, its successor lists and topological order computed once).
    Returns the problem and its schedule."""
    g = problem if problem is not None else free_problem(step, dur, keep_collective_order)
    strategy = ListStrategy(priority or comm_weighted(1), repair=False)
    if exact is None:  # a list schedule is valid by construction; the order made of it is checked
        return g, strategy.schedule(g)
    from schedcc.sched.exact import ExactStrategy
    return g, solve(g, ExactStrategy(exact, strategy), bound=False).schedule


def free_problem(step, dur: list[int], keep_collective_order: bool = False):
    """The step's problem under *dur*, the collectives of each group chained in the graph's
    order with *keep_collective_order*."""
    return step.problem(dur, collective_chains(step) if keep_collective_order else ())


def waits_last(priority):
    """*priority* with every ``wait_tensor`` below every other node: a wait (and so the work
    that reads the collective's result) is taken only when the compute stream has nothing
    else ready, as late as it can go (Inductor's ``sink_waits`` as a list schedule)."""
    def sunk(g) -> list[float]:
        prio = priority(g)
        low = min(prio, default=0.0) - 1.0
        return [low - 1.0 / (1.0 + i) if op.payload.get("category") == "wait"
                else prio[i] for i, op in enumerate(g.ops)]
    sunk.__name__ = priority.__name__ + ", waits last"
    return sunk


def portfolio() -> list[tuple]:
    """schedcc's candidate (priority, keep the collectives' order) pairs, in the order tried.
    Each priority is computed once per problem (its "waits last" variant reuses it)."""
    priorities = [_once_per_problem(program_order)] + [_once_per_problem(comm_weighted(k)) for k in COMM_WEIGHTS]
    priorities += [waits_last(p) for p in priorities]
    return [(p, keep) for keep in (True, False) for p in priorities]


def _once_per_problem(priority):
    """*priority* remembering its last problem and result (read only by its callers)."""
    last: list = [None, None]

    def memo(g) -> list[float]:
        if last[0] is not g:
            last[0], last[1] = g, priority(g)
        return last[1]
    memo.__name__ = priority.__name__
    return memo


def linearize(step, g, sched) -> list[int]:
    """A valid node order from a schedule of the free problem (module docstring)."""
    n = len(step)
    start = [sched.cycle[i] for i in range(n)]
    issue = {node: k for k, node in enumerate(sched.order)} if getattr(sched, "order", None) else {}
    dur = [op.latency for op in g.ops]
    streams = step.streams
    kernels = sorted((i for i in range(n) if streams[i] == "compute" and dur[i] > 0),
                     key=lambda i: (start[i], issue.get(i, i)))
    k_start = [start[i] for i in kernels]
    k_end = [start[i] + dur[i] for i in kernels]
    key = [None] * n
    for i in range(n):
        t, idx = start[i], issue.get(i, i)
        if streams[i] == "compute" and dur[i] > 0:
            key[i] = (t, 1, t, idx)
        elif streams[i] != "compute":  # before the kernel still running (or next) at its start
            j = bisect.bisect_right(k_end, t)
            key[i] = (k_start[j] if j < len(kernels) else float("inf"), 0, t, idx)
        else:  # after the kernel running when it starts
            j = bisect.bisect_right(k_start, t) - 1
            key[i] = (k_start[j] if j >= 0 else -1, 2, t, idx)
    # the problem's own (cached) lists, dependences in the order given
    return keyed_topological_order(g.succ, key, [len(p) for p in g.pred])


def keyed_topological_order(succ, keys: list, indegree: list[int] | None = None) -> list[int]:
    """Nodes ``0 .. n-1`` of a DAG in topological order, the ready node of smallest
    ``(keys[i], i)`` first (Kahn's algorithm with a heap; the order networkx's
    ``lexicographical_topological_sort`` gives with ``key=keys.__getitem__``, about
    5x faster, docs/performance.md). ``succ[i]`` lists the edges out of node ``i``
    as tuples ``(i, j, ...)`` (a :class:`~schedcc.problem.Dep`, an FX step's
    dependence); a repeated edge is fine. *indegree*: the edges into each node,
    when the caller has them. Raises ``RuntimeError`` on a cycle.
    O((n + e) log n) for n nodes and e edges.

    Example (node 1 has the smaller key; node 2 needs both)::

        >>> keyed_topological_order([[(0, 2)], [(1, 2)], []], [(1,), (0,), (0,)])
        [1, 0, 2]
    """
    n = len(succ)
    if indegree is None:
        indegree = [0] * n
        for edges in succ:
            for e in edges:
                indegree[e[1]] += 1
    count = list(indegree)
    heap = [(keys[i], i) for i in range(n) if count[i] == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, i = heapq.heappop(heap)
        order.append(i)
        for e in succ[i]:
            t = e[1]
            count[t] -= 1
            if count[t] == 0:
                heapq.heappush(heap, (keys[t], t))
    if len(order) != n:
        raise RuntimeError("the dependences of the graph form a cycle")
    return order


def write_back(step, order: list[int]) -> None:
    """Put the graph's nodes in *order* (placeholders and get_attr first, the output last) and lint."""
    graph = step.gm.graph
    output = next(n for n in reversed(graph.nodes) if n.op == "output")
    for i in order:
        output.prepend(step.nodes[i])
    graph.lint()
    step.gm.recompile()


def current_order(step) -> list[int]:
    """The graph's own order of the scheduled nodes."""
    index = step.index
    return [index[n] for n in step.gm.graph.nodes if n in index]


def order_of_nodes(step, nodes) -> list[int]:
    """Indices of *nodes* (FX nodes or their names, of this step's graph or a copy of it)."""
    by_name = {n.name: i for i, n in enumerate(step.nodes)}
    out = []
    for n in nodes:
        name = n.name if isinstance(n, fx.Node) else n
        if name in by_name:
            out.append(by_name[name])
    return out

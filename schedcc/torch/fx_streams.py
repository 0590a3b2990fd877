"""schedcc's stream scheduler: an FX order built kernel by kernel on the streams it runs on.

The list schedules of :mod:`schedcc.torch.fx_order` schedule a free problem
and then make an order of it, which loses time where the two disagree (a
collective can only be launched between kernels; a wait blocks the whole
compute stream). :func:`stream_order` builds the order directly under the
semantics :func:`schedcc.torch.fx_order.simulate` measures, keeping the
compute stream's clock ``T`` and each group's communication stream:

* **collectives are raised**: a collective is launched as soon as its inputs
  are there at ``T`` (its group's stream queues it behind the collectives
  launched before it), several in the order of the priority;
* **waits sink to first use**: a ``wait_tensor`` (and every other
  zero-length node: views, ``getitem``) is placed only just before the first
  kernel or collective that needs it, so the compute stream blocks on a
  collective only when nothing else is left to run;
* **the next kernel** is the ready one of best priority among those that can
  start at ``T``; when none can (every ready kernel waits for a collective),
  the one that can start first.

The priority is a key per node (smaller first): the graph's order, the
index of the earliest collective a node feeds (the work a collective waits
for first, as Inductor's ``raise_comms`` ranks it) or the critical path
with communication weighted (:func:`schedcc.torch.fx_order.comm_weighted`).
The step time and exposed communication it predicts are exactly those of
``simulate`` on the order (the tests check it), so a portfolio can rank its
candidates without simulating each one.

Complexity: O((n + e) log n) for n nodes and e dependences.

Example::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> from schedcc.target import load_target
    >>> from schedcc.torch.fx_graph import build_step, schedcc_durations
    >>> step = build_step(make_fx(lambda a, b: ((a @ b).relu(), (b @ a).sin()))(torch.ones(64, 32),
    ...                   torch.ones(32, 64)), load_target("h100-8x"))
    >>> order, step_ticks, exposed = stream_order(step, schedcc_durations(step), program_keys(step))
    >>> [step.nodes[i].name for i in order]
    ['mm', 'relu', 'mm_1', 'sin']
"""

from __future__ import annotations

import heapq

from schedcc.torch.fx_order import collective_chains, comm_weighted, current_order, keyed_topological_order


def program_keys(step) -> list[tuple]:
    """Priority keys: the graph's own order."""
    return [(k,) for k in _positions(step)]


def feeds_first_keys(step) -> list[tuple]:
    """Priority keys: the index (in the graph's order) of the earliest collective a node
    feeds, then the graph's order: the work the next collective waits for first. O(n + e)."""
    pos = _positions(step)
    order = current_order(step)
    comm_idx, k = {}, 0
    for i in order:
        if step.streams[i] != "compute":
            comm_idx[i] = k
            k += 1
    succ: list[list[int]] = [[] for _ in range(len(step))]
    for s, t, _ in step.deps:
        succ[s].append(t)
    first = [len(order)] * len(step)
    for i in reversed(order):  # successors come later in the graph's order
        best = comm_idx.get(i, len(order))
        for t in succ[i]:
            if first[t] < best:
                best = first[t]
        first[i] = best
    return [(first[i], pos[i]) for i in range(len(step))]


def height_keys(step, dur: list[int], k: int) -> list[tuple]:
    """Priority keys: the critical path with communication counted *k* times (longest first)."""
    height = comm_weighted(k)(step.problem(dur))
    pos = _positions(step)
    return [(-height[i], pos[i]) for i in range(len(step))]


def _positions(step) -> list[int]:
    pos = [0] * len(step)
    for k, i in enumerate(current_order(step)):
        pos[i] = k
    return pos


def stream_order(step, dur: list[int], keys: list[tuple], keep_collective_order: bool = False,
                 eager: bool = True):
    """An order of *step*'s nodes under durations *dur* and priority *keys* (module
    docstring), the collectives of each group in the graph's order with
    *keep_collective_order*. Returns ``(order, step_ticks, exposed_ticks)``."""
    n = len(step)
    streams = step.streams
    preds, succ = _adjacency(step, keep_collective_order)
    comm = [s != "compute" for s in streams]
    lazy = [not comm[i] and dur[i] == 0 for i in range(n)]
    missing = [len(p) for p in preds]
    avail = [-1] * n          # when an available node's value is there (-1: not yet available)
    placed = [False] * n
    free_kernels: list = []   # (key, i): ready at T
    free_comms: dict[str, list] = {s: [] for s in set(streams) if s != "compute"}  # per group
    stalled: list = []        # (ready, key, i): waits on a collective still running
    order: list[int] = []
    group_end: dict[str, int] = {}
    kernels: list[tuple[int, int]] = []
    comms: list[tuple[int, int]] = []
    clock = 0

    def offer(i: int) -> None:
        """*i*'s inputs are all available: a lazy node becomes available, else a candidate."""
        ready = max((avail[p] for p in preds[i]), default=0)
        if comm[i]:  # a collective blocks the compute stream only through the waits it needs
            ready = max((avail[p] for p in preds[i] if lazy[p]), default=0)
        if lazy[i]:
            avail[i] = ready
            release(i)
        elif ready <= clock:
            heapq.heappush(free_comms[streams[i]] if comm[i] else free_kernels, (keys[i], i))
        else:
            heapq.heappush(stalled, (ready, keys[i], i))

    def release(i: int) -> None:
        for t in succ[i]:
            missing[t] -= 1
            if missing[t] == 0:
                offer(t)

    def place_lazy_ancestors(i: int) -> None:
        nonlocal clock
        todo, stack, seen = [], [(i, False)], set()
        while stack:  # depth-first, post-order: a topological order of the unplaced lazy ancestors
            v, done = stack.pop()
            if done:
                placed[v] = True
                todo.append(v)
            elif v not in seen:
                seen.add(v)
                stack.append((v, True))
                stack.extend((p, False) for p in preds[v] if lazy[p] and not placed[p] and p not in seen)
        for v in todo:
            if v != i:
                order.append(v)
                if avail[v] > clock:  # a wait blocks the compute stream until its collective ends
                    clock = avail[v]

    def place(i: int) -> None:
        nonlocal clock
        place_lazy_ancestors(i)
        placed[i] = True
        order.append(i)
        ready = max((avail[p] for p in preds[i]), default=0)
        if comm[i]:
            start = max(clock, ready, group_end.get(streams[i], 0))
            end = start + dur[i]
            group_end[streams[i]] = end
            comms.append((start, end))
        else:
            start = max(clock, ready)
            end = start + dur[i]
            clock = end
            kernels.append((start, end))
        avail[i] = end
        release(i)

    for i in [i for i in range(n) if missing[i] == 0]:  # (offering one may release others)
        offer(i)
    while True:
        while stalled and stalled[0][0] <= clock:
            _, key, i = heapq.heappop(stalled)
            heapq.heappush(free_comms[streams[i]] if comm[i] else free_kernels, (key, i))
        if free_kernels:  # the next kernel, and when it would end
            nxt, until = free_kernels, clock + dur[free_kernels[0][1]]
        elif stalled:
            nxt, until = stalled, stalled[0][0] + (0 if comm[stalled[0][2]] else dur[stalled[0][2]])
        else:
            nxt, until = None, float("inf")
        group = next((g for g, heap in free_comms.items()
                      if heap and (eager or group_end.get(g, 0) < until)), None)
        if group is not None:  # a collective whose stream would idle before that kernel ends
            place(heapq.heappop(free_comms[group])[1])
        elif nxt is not None:
            place(heapq.heappop(nxt)[-1])
        else:
            break
    rest = [i for i in current_order(step) if not placed[i]]
    if not all(lazy[i] for i in rest):
        raise RuntimeError("the dependences of the graph form a cycle")
    for i in rest:  # zero-length nodes no kernel or collective needed (the outputs' waits)
        place_lazy_ancestors(i)
        order.append(i)
        if avail[i] > clock:
            clock = avail[i]
    if len(order) != n:
        raise RuntimeError("the dependences of the graph form a cycle")
    span = max([clock] + [e for _, e in comms])
    return order, span, _exposed(kernels, comms)


def _exposed(kernels: list[tuple[int, int]], comms: list[tuple[int, int]]) -> int:
    """Ticks when some collective runs and no kernel does (kernels never overlap each other)."""
    merged: list[list[int]] = []
    for s, e in sorted(c for c in comms if c[1] > c[0]):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    busy = [k for k in kernels if k[1] > k[0]]
    out, j = 0, 0
    for s, e in merged:
        covered = 0
        while j < len(busy) and busy[j][1] <= s:
            j += 1
        m = j
        while m < len(busy) and busy[m][0] < e:
            covered += min(e, busy[m][1]) - max(s, busy[m][0])
            m += 1
        out += (e - s) - covered
    return out


def timeline(step, order: list[int], dur: list[int]) -> tuple[int, int, list[int], list[int]]:
    """*order* run as :func:`schedcc.torch.fx_order.simulate` runs it, without building a
    problem: ``(step_ticks, exposed_ticks, start, end)``. The order must keep every
    dependence (:func:`schedcc.torch.fx_order.check_order`). O(n + e)."""
    n = len(step)
    preds = _preds(step)
    streams = step.streams
    start, end = [0] * n, [0] * n
    clock, group_end = 0, {}
    kernels, comms = [], []
    for i in order:
        ready = max((end[p] for p in preds[i]), default=0)
        if streams[i] != "compute":
            s = max(clock, ready, group_end.get(streams[i], 0))
            group_end[streams[i]] = s + dur[i]
            comms.append((s, s + dur[i]))
        else:
            s = max(clock, ready)
            clock = s + dur[i]
            if dur[i]:
                kernels.append((s, s + dur[i]))
        start[i], end[i] = s, s + dur[i]
    span = max([clock] + [e for _, e in comms])
    return span, _exposed(kernels, comms), start, end


def _preds(step) -> list[list[int]]:
    cached = getattr(step, "_input_lists", None)
    if cached is None:
        cached = [[] for _ in range(len(step))]
        for s, t, _ in step.deps:
            cached[t].append(s)
        step._input_lists = cached
    return cached


def _adjacency(step, keep_collective_order: bool) -> tuple[list[list[int]], list[list[int]]]:
    """(preds, succ) of *step*'s dependences, plus the chains keeping each group's collectives
    in the graph's (current) order when asked: built once per step and chains, and shared
    (read only) by every stream schedule and improvement round."""
    chains = tuple((s, t) for s, t, _, _ in collective_chains(step)) if keep_collective_order else ()
    cache = step.__dict__.setdefault("_adjacency_lists", {})
    if chains not in cache:
        n = len(step)
        preds: list[list[int]] = [[] for _ in range(n)]
        succ: list[list[int]] = [[] for _ in range(n)]
        for s, t, _ in step.deps:
            preds[t].append(s)
            succ[s].append(t)
        for s, t in chains:
            preds[t].append(s)
            succ[s].append(t)
        cache[chains] = (preds, succ)
    return cache[chains]


def kahn_order(step, keys: list[tuple]) -> list[int]:
    """The graph's nodes in topological order, the ready node of smallest key first
    (:func:`~schedcc.torch.fx_order.keyed_topological_order`). O((n + e) log n)."""
    succ: list[list[tuple]] = [[] for _ in range(len(step))]
    indegree = [0] * len(step)
    for dep in step.deps:
        succ[dep[0]].append(dep)
        indegree[dep[1]] += 1
    return keyed_topological_order(succ, keys, indegree)


def waits_sunk_keys(step) -> list[tuple]:
    """Kahn keys sinking every wait below the other ready nodes, else the graph's order."""
    pos = _positions(step)
    return [(step.costs[i].category == "wait", pos[i]) for i in range(len(step))]


def improve(step, dur: list[int], order: list[int], eager: bool, rounds: int = 12):
    """Better orders from *order* by its worst stalls: the collective that kept the compute
    stream waiting longest has its ancestors (the work it needs, and itself) put first in
    the priority, the rest keeping their place in *order*; the stream scheduler runs again
    and the result is kept when it is faster (ties: less exposed). At most *rounds* rounds.
    Returns ``(order, step_ticks, exposed_ticks)``. O(rounds (n + e) log n)."""
    span, exposed, start, end = timeline(step, order, dur)
    best = (span, exposed, order)
    preds = _preds(step)
    tried: set[int] = set()
    for _ in range(rounds):
        culprit = _worst_stall(step, best[2], start, end, preds, tried)
        if culprit is None:
            break
        tried.add(culprit)
        pos = [0] * len(step)
        for k, i in enumerate(best[2]):
            pos[i] = k
        first = _ancestors(preds, culprit)
        keys = [(0 if i in first else 1, pos[i]) for i in range(len(step))]
        cand, s, e = stream_order(step, dur, keys, False, eager)
        if (s, e) < best[:2]:
            best = (s, e, cand)
            _, _, start, end = timeline(step, cand, dur)
    return best[2], best[0], best[1]


def _worst_stall(step, order, start, end, preds, tried) -> int | None:
    """The collective (not in *tried*) whose end the compute stream waited for longest."""
    worst, culprit, clock = 0, None, 0
    streams = step.streams
    for i in order:
        if streams[i] != "compute":
            continue
        gap = start[i] - clock
        if gap > worst:
            j = i  # follow the latest input back to the collective
            while streams[j] == "compute" and preds[j]:
                j = max(preds[j], key=end.__getitem__)
            if streams[j] != "compute" and j not in tried:
                worst, culprit = gap, j
        clock = max(clock, end[i])
    return culprit


def _ancestors(preds, i: int) -> set[int]:
    seen, todo = {i}, [i]
    while todo:
        for p in preds[todo.pop()]:
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen

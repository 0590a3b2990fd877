"""A lower bound on the exposed communication of every order of an FX step (issue 18).

The orders are run as :func:`schedcc.torch.fx_order.simulate` (and
:func:`schedcc.torch.fx_streams.timeline`) runs them: one compute stream
executing the kernels in the order, a stream per process group executing its
collectives in the order (each starts when the kernel before it in the order
has ended, its inputs are there and its group's previous collective is done),
a ``wait_tensor`` blocking the compute stream until its collective ends.
*Exposed communication* is the time some collective runs and no kernel does;
*kernels* are the compute-stream nodes of nonzero duration (they never
overlap one another), *W* their total duration.

**Exposed = step - W, for every order.** The compute stream is never idle
while no collective runs: when it waits at time t, the node it waits for
depends on a collective that ends after t; following the latest input or the
previous collective of its group back (finitely: always to a node earlier in
the order) reaches a collective that started by t, so one runs at t. So the
step is W plus the exposed time, and a lower bound on the step of every order
is one on exposed communication, and conversely.

The bound is the largest of these, each a lower bound for every order that
keeps the dependences (``dst`` starts after ``src`` ends):

* **one collective** c of duration p: a kernel that is an ancestor of c ends
  before c starts, a descendant starts after c ends, so only the kernels
  *incomparable* with c (neither) can overlap it: exposed >= p - w(inc(c));
* **a set S of collectives no two of which can overlap** (those of one
  process group share a stream; a chain of dependences orders the others):
  their union lasts P = sum of their durations; a kernel overlapping it is
  incomparable with some member, and is neither an ancestor of the member F
  that starts first (those end before F starts) nor a descendant of the
  member L that ends last. With X the union of the members' incomparable
  kernels, exposed >= P - w(X) + min_F w(X & anc F) + min_L w(X & desc L)
  (anc F and desc L are disjoint: a kernel in both would start after L ends
  and end before F starts). S is each group's collectives, its windows of
  consecutive heads (below) and the collectives on the critical path;
* **heads and tails, one machine at a time** (as in the job-shop bounds):
  a node's head is a lower bound on its start (its longest input path, and
  for each stream, the total duration of the node's ancestors on that stream
  after the earliest head among them), its tail one on the time from its end
  to the step's; for each stream, the preemptive Jackson schedule of its
  nodes with these release times and tails bounds the step (the largest
  min head + total duration + min tail over subsets), and the step is at
  least every node's head + duration + tail (the critical path). Each gives
  exposed >= step bound - W.

The bound is exact on hand graphs (tests/test_torch_fx_bound.py) and never
above the exposed communication of any order on random small steps, whose
every topological order the test runs.

Complexity: O(n e / 64 + s^2 n / 64) big-integer operations for n nodes, e
dependences and s collectives in a group (reachability kept as bit sets).

Example (a collective nothing can hide, then a kernel that needs it; and a
kernel independent of it: 3 of the 5 us hide behind it at best)::

    >>> streams = ["comm:pg0", "compute", "compute"]
    >>> deps = [(0, 1, "RAW")]
    >>> b = lower_bound(streams, deps, [5000, 2000, 3000])
    >>> b.exposed_us, b.step_us, b.argument
    (2.0, 7.0, 'collective 0: 5.0 us, 3.0 us of kernels independent of it')
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from schedcc.training.costs import TICKS_PER_US

WINDOWS = (2, 4, 8, 16)  # windows of consecutive collectives (by head) of a group tried as sets


@dataclass(frozen=True)
class ExposedBound:
    """A lower bound on the exposed communication of every order (ticks), the kernels'
    total duration W, the argument that gave it and every argument's bound."""

    exposed_ticks: int
    compute_ticks: int
    argument: str
    arguments: tuple[tuple[str, int], ...] = ()

    @property
    def step_ticks(self) -> int:
        """The matching lower bound on the step (exposed + W)."""
        return self.exposed_ticks + self.compute_ticks

    @property
    def exposed_us(self) -> float:
        return self.exposed_ticks / TICKS_PER_US

    @property
    def step_us(self) -> float:
        return self.step_ticks / TICKS_PER_US

    def to_json(self) -> dict:
        return {"exposed_us": self.exposed_us, "step_us": self.step_us,
                "compute_us": self.compute_ticks / TICKS_PER_US, "argument": self.argument,
                "arguments": {k: v / TICKS_PER_US for k, v in self.arguments}}


def step_bound(step, dur: list[int]) -> ExposedBound:
    """:func:`lower_bound` of an :class:`~schedcc.torch.fx_graph.FxStep` under *dur*, its
    nodes named as in the graph."""
    return lower_bound(step.streams, step.deps, dur, [n.name for n in step.nodes])


class _Weigher:
    """Total weight of a bit set in O(bits / 64 x log max weight): one mask per bit of the
    weights (weight planes), each AND-ed and counted."""

    def __init__(self, weights: list[int]) -> None:
        self.planes = []
        for b in range(max(weights, default=0).bit_length()):
            mask = 0
            for pos, w in enumerate(weights):
                if w >> b & 1:
                    mask |= 1 << pos
            if mask:
                self.planes.append((b, mask))

    def __call__(self, x: int) -> int:
        return sum((x & m).bit_count() << b for b, m in self.planes)


def lower_bound(streams, deps, dur: list[int], names=None) -> ExposedBound:
    """The bound of the module docstring for nodes on *streams* (``"compute"`` or a
    collective's ``"comm:<group>"``) with dependences *deps* ``(src, dst, kind)`` and
    durations *dur* (ticks); *names* name the nodes in the argument (default their numbers)."""
    n = len(streams)
    names = list(names) if names is not None else [str(i) for i in range(n)]
    preds: list[list[int]] = [[] for _ in range(n)]
    succ: list[list[int]] = [[] for _ in range(n)]
    for s, t, *_ in deps:
        preds[t].append(s)
        succ[s].append(t)
    topo = _topological(preds, succ)
    busy = [i for i in range(n) if dur[i] > 0]
    bit = {i: k for k, i in enumerate(busy)}
    weigh = _Weigher([dur[i] for i in busy])
    machines = sorted({streams[i] for i in busy}, key=lambda m: (m != "compute", m))
    mask = {m: 0 for m in machines}
    for i in busy:
        mask[streams[i]] |= 1 << bit[i]
    kmask = mask.get("compute", 0)
    work = weigh(kmask)
    anc = _closure(topo, preds, bit)
    desc = _closure(topo[::-1], succ, bit)
    head = _heads(topo, preds, dur, streams, mask, bit, anc, weigh)
    tail = _heads(topo[::-1], succ, dur, streams, mask, bit, desc, weigh)
    args: dict[str, int] = {}

    def offer(label: str, value: int) -> None:
        if value > args.get(label, value - 1):
            args[label] = value

    comms = [i for i in busy if streams[i] != "compute"]
    inc = {c: kmask & ~anc[c] & ~desc[c] for c in comms}
    for c in comms:
        free = weigh(inc[c])
        offer(f"collective {names[c]}: {dur[c] / TICKS_PER_US:.1f} us, {free / TICKS_PER_US:.1f} us of "
              "kernels independent of it", dur[c] - free)
    crit = max(range(n), key=lambda i: head[i] + dur[i] + tail[i], default=None)
    if crit is not None:
        offer("the critical path", head[crit] + dur[crit] + tail[crit] - work)
    for m in machines:
        jobs = [(head[i], dur[i], tail[i]) for i in busy if streams[i] == m]
        label = ("the kernels plus the least communication before and after them" if m == "compute"
                 else f"group {m[5:]}'s collectives plus the least work before and after them")
        offer(label, _jackson(jobs) - work)
    sets = []
    for m in (m for m in machines if m != "compute"):
        members = sorted((c for c in comms if streams[c] == m), key=lambda c: (head[c], c))
        sets.append((f"the {len(members)} collectives of group {m[5:]} against the kernels that can overlap "
                     "them", members))
        for k in WINDOWS:
            for a in range(0, max(0, len(members) - k) + 1):
                window = members[a:a + k]
                if len(window) == k:
                    sets.append((f"{k} collectives of group {m[5:]} from {names[window[0]]}", window))
    if crit is not None:
        chain = [i for i in _critical_path(crit, preds, succ, head, tail, dur) if streams[i] != "compute"
                 and dur[i] > 0]
        if len(chain) > 1:
            sets.append((f"the {len(chain)} collectives on the critical path", chain))
    for label, members in sets:
        offer(label, _set_bound(members, dur, inc, anc, desc, weigh))
    label, value = max(args.items(), key=lambda a: a[1], default=("no communication", 0))
    if value <= 0:
        label, value = "no argument forces any", 0
    return ExposedBound(value, work, label, tuple(sorted(((k, max(0, v)) for k, v in args.items()),
                                                          key=lambda a: -a[1])))


def _topological(preds, succ) -> list[int]:
    count = [len(p) for p in preds]
    todo = [i for i in range(len(preds)) if count[i] == 0]
    order = []
    while todo:
        i = todo.pop()
        order.append(i)
        for t in succ[i]:
            count[t] -= 1
            if count[t] == 0:
                todo.append(t)
    if len(order) != len(preds):
        raise ValueError("the dependences form a cycle")
    return order


def _closure(topo, inputs, bit) -> list[int]:
    """For every node, the bit set of its busy ancestors (or, reversed, descendants)."""
    out = [0] * len(inputs)
    for i in topo:
        acc = 0
        for p in inputs[i]:
            acc |= out[p]
            if p in bit:
                acc |= 1 << bit[p]
        out[i] = acc
    return out


def _heads(topo, inputs, dur, streams, mask, bit, reach, weigh) -> list[int]:
    """Lower bounds on each node's start (or, walked backwards, on the time from its end to the
    step's end): the longest input path, and per stream the earliest head among the node's
    ancestors on it plus their total duration."""
    inf = float("inf")
    head = [0] * len(inputs)
    least = [dict() for _ in inputs]  # stream -> the smallest head among the ancestors on it
    for i in topo:
        h, low = 0, {}
        for p in inputs[i]:
            h = max(h, head[p] + dur[p])
            for m, v in least[p].items():
                if v < low.get(m, inf):
                    low[m] = v
            if p in bit and head[p] < low.get(streams[p], inf):
                low[streams[p]] = head[p]
        for m, v in low.items():
            h = max(h, v + weigh(reach[i] & mask[m]))
        head[i], least[i] = h, low
    return head


def _jackson(jobs: list[tuple[int, int, int]]) -> int:
    """The preemptive Jackson schedule's max(end + tail) of *jobs* (release, duration, tail) on
    one machine: the optimum of the preemptive relaxation, max over subsets of min release +
    total duration + min tail. O(j log j)."""
    jobs = sorted(jobs)
    heap: list = []
    t, best, k = 0, 0, 0
    while k < len(jobs) or heap:
        if not heap and jobs[k][0] > t:
            t = jobs[k][0]
        while k < len(jobs) and jobs[k][0] <= t:
            heapq.heappush(heap, (-jobs[k][2], jobs[k][1]))
            k += 1
        q, rem = heapq.heappop(heap)
        until = jobs[k][0] if k < len(jobs) else float("inf")
        run = min(rem, until - t)
        t += run
        if rem > run:
            heapq.heappush(heap, (q, rem - run))
        else:
            best = max(best, t - q)
    return best


def _critical_path(i, preds, succ, head, tail, dur) -> list[int]:
    """A longest path through *i* (heads and tails as computed), back to a source and on to a sink."""
    path = [i]
    while True:
        nxt = [p for p in preds[path[0]] if head[p] + dur[p] == head[path[0]]]
        if not nxt:
            break
        path.insert(0, nxt[0])
    while True:
        nxt = [t for t in succ[path[-1]] if dur[t] + tail[t] == tail[path[-1]]]
        if not nxt:
            break
        path.append(nxt[0])
    return path


def _set_bound(members, dur, inc, anc, desc, weigh) -> int:
    """The set argument (module docstring) for collectives *members*, no two of which can overlap."""
    x = 0
    for c in members:
        x |= inc[c]
    first = min(weigh(x & anc[c]) for c in members)
    last = min(weigh(x & desc[c]) for c in members)
    return sum(dur[c] for c in members) - weigh(x) + first + last

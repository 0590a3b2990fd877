"""schedcc's order of an FX graph: the fastest of a portfolio, improved at its worst stalls.

Candidates, each run as :func:`schedcc.torch.fx_order.simulate` runs an
order (by :func:`schedcc.torch.fx_streams.timeline`, which measures the same
without building a problem):

* the graph's own order (schedcc never makes a graph slower under the model
  it is given);
* the stream scheduler (:func:`schedcc.torch.fx_streams.stream_order`:
  collectives raised, waits sunk to first use) under four priorities (the
  graph's order, the earliest collective a node feeds, the critical path with
  communication counted once or 8 times), collectives launched as soon as
  their inputs are there or when their stream would idle, in the graph's
  order per group or free;
* two topological sorts of the graph's own order: waits sunk below every
  other ready node, and the work of the earliest collective first;
* the list schedules of :func:`schedcc.torch.fx_order.portfolio` made orders
  (:func:`schedcc.torch.fx_order.linearize`); with *exact*, CP-SAT started
  from the best of them.

The fastest (ties: less exposed communication, then the earlier candidate)
is then improved by :func:`schedcc.torch.fx_streams.improve` and simulated
once for its :class:`~schedcc.training.result.StepResult`, whose ``note``
names the winner.

Complexity: O(k (n + e) log n) for k candidates and improvement rounds.

Example::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> from schedcc.target import load_target
    >>> from schedcc.torch.fx_graph import build_step, schedcc_durations
    >>> step = build_step(make_fx(lambda a: (a.sin(), a.add_(1)))(torch.ones(4)), load_target("h100-8x"))
    >>> order, result = best_order(step, schedcc_durations(step))
    >>> order, result.step_time_us, result.note
    ([0, 1], 4.0, "the graph's own order")
"""

from __future__ import annotations

from schedcc._perf import paused_gc
from schedcc.torch import fx_streams as fs
from schedcc.torch.fx_order import current_order, free_problem, linearize, portfolio, schedule_free, simulate

IMPROVE_ROUNDS = 12


def stream_candidates(step, dur: list[int]):
    """(label, order, step_ticks, exposed_ticks, eager) of the stream scheduler's variants."""
    keysets = (("the graph's order", fs.program_keys(step)),
               ("the earliest collective fed first", fs.feeds_first_keys(step)),
               ("critical path", fs.height_keys(step, dur, 1)),
               ("critical path, communication x8", fs.height_keys(step, dur, 8)))
    for name, keys in keysets:
        for eager in (False, True):
            for keep in (False, True):
                order, span, exposed = fs.stream_order(step, dur, keys, keep, eager)
                label = (f"stream schedule, {name}, collectives "
                         f"{'launched as soon as ready' if eager else 'launched when their stream would idle'}"
                         f"{', in the graph' + chr(39) + 's order' if keep else ''}")
                yield label, order, span, exposed, eager


def best_order(step, dur: list[int], exact=None):
    """schedcc's order of *step* under durations *dur* (module docstring) and its
    :class:`~schedcc.training.result.StepResult`. The cyclic garbage collector is paused
    meanwhile: the candidates allocate millions of small acyclic tuples and lists, and each
    collection rescans the FX graph's own objects (on a 10,000-node graph the collector took
    more than half the CPU time)."""
    with paused_gc():
        return _best_order(step, dur, exact)


def _best_order(step, dur: list[int], exact=None):
    cands = []

    def add(label, order, eager=False, measured=None):
        span, exposed = measured if measured is not None else fs.timeline(step, order, dur)[:2]
        cands.append(((span, exposed, len(cands)), label, order, eager))

    add("the graph's own order", current_order(step))
    for label, order, span, exposed, eager in stream_candidates(step, dur):
        add(label, order, eager, (span, exposed))
    add("the graph's order, waits sunk", fs.kahn_order(step, fs.waits_sunk_keys(step)))
    add("the graph's order, the earliest collective fed first", fs.kahn_order(step, fs.feeds_first_keys(step)))
    best_list, problems = None, {}
    for priority, keep in portfolio():
        if keep not in problems:  # one problem per chaining, shared by its priorities
            problems[keep] = free_problem(step, dur, keep)
        g, sched = schedule_free(step, dur, None, priority, keep, problems[keep])
        order = linearize(step, g, sched)
        add(_list_label(priority, keep), order)
        if best_list is None or cands[-1][0] < best_list[0]:
            best_list = (cands[-1][0], priority, keep)
    if exact is not None and best_list is not None:
        _, priority, keep = best_list
        g, sched = schedule_free(step, dur, exact, priority, keep)
        add(_list_label(priority, keep) + ", improved by CP-SAT", linearize(step, g, sched))
    (span, exposed, _), label, order, eager = min(cands, key=lambda c: c[0])
    if label != "the graph's own order":
        better, s, e = fs.improve(step, dur, order, eager, IMPROVE_ROUNDS)
        if (s, e) < (span, exposed):
            order, label = better, label + ", improved at its worst stalls"
    result = simulate(step, order, dur, "schedcc")
    result.note = label
    return order, result


def _list_label(priority, keep: bool) -> str:
    return (f"list schedule, {priority.__name__}, collectives "
            f"{'in the graph' + chr(39) + 's order' if keep else 'reordered'}")

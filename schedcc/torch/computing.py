"""What a host thread's events say about computing: collective calls, and the time spent computing.

Shared by the reader of lanes (:mod:`schedcc.torch.lanes`, each host piece's
computing time) and the exposed-communication figure
(:mod:`schedcc.torch.exposed`); docs/traces.md, "Exposed communication",
states the definition.
"""

from __future__ import annotations

import math

from schedcc.torch.kineto import Event


def is_comm_call(name: str) -> bool:
    """A collective call on a host thread (launching, waiting, wrapping): not computation.

    >>> is_comm_call("c10d::allreduce_"), is_comm_call("_c10d_functional::wait_tensor"), is_comm_call("aten::mm")
    (True, True, False)
    """
    return name.startswith(("c10d::", "_c10d_functional::", "record_param_comms", "nccl:", "gloo:"))


def compute_spans(evs: list[Event], lo: float = -math.inf, hi: float = math.inf) -> list[tuple[float, float]]:
    """The time a host thread computes, clipped to [lo, hi): sorted, disjoint intervals.

    An instant is computation when the innermost event the thread records
    around it is a CPU operator (``cpu_op``: ``aten::mm``, the autograd
    engine's ``evaluate_function: AddmmBackward0``, ``Optimizer.step``'s
    ``aten::add_`` ...) and no collective call (:func:`is_comm_call`) is
    around it. So a GEMM counts whole (not only the ``aten::resolve_conj``
    recorded inside it); a thread blocked in ``c10d::allreduce_``, or waiting
    inside an annotation with no operator in it (FSDP's
    ``FSDP::all_gather_copy_out`` waits for its all-gather there), does not
    compute. *evs*: one thread's events, nested (:mod:`schedcc.torch.kineto`).
    O(n log n).

    >>> mk = lambda name, ts, dur, parent=None, cat="cpu_op": Event(0, name, cat, ts, dur, 1, 1, parent=parent)
    >>> mm = mk("aten::mm", 0, 10); acc = mk("evaluate_function: AccumulateGrad", 12, 20)
    >>> hook = mk("evaluate_function: PostBackward", 40, 10); ann = mk("FSDP::rs_wait", 42, 8, hook, "user_annotation")
    >>> compute_spans([mm, mk("aten::resolve_conj", 1, 0, mm), acc, mk("c10d::allreduce_", 14, 18, acc), hook, ann])
    [(0.0, 10.0), (12.0, 14.0), (40.0, 42.0)]
    """
    inner: dict[int, list[tuple[float, float]]] = {}
    for e in evs:
        if e.parent is not None:
            inner.setdefault(id(e.parent), []).append((e.ts, e.end))
    spans: list[tuple[float, float]] = []
    for e in evs:
        if e.cat != "cpu_op" or e.end <= lo or e.ts >= hi or is_comm_call(e.name) \
                or any(is_comm_call(a.name) for a in e.ancestors()):
            continue
        spans.extend(_subtract([(e.ts, e.end)], _union(inner.get(id(e), ()))))
    return [(max(s, lo), min(e, hi)) for s, e in _union(spans) if e > lo and s < hi]


def _union(spans) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        elif e > s:
            out.append([s, e])
    return [(float(s), float(e)) for s, e in out]


def _subtract(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Sorted disjoint *a* minus sorted disjoint *b*. O(len(a) + len(b))."""
    out, j = [], 0
    for s, e in a:
        while j < len(b) and b[j][1] <= s:
            j += 1
        k, cur = j, s
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                out.append((cur, b[k][0]))
            cur = max(cur, b[k][1])
            k += 1
        if cur < e:
            out.append((cur, e))
    return out

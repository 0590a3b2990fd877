"""Chrome trace JSON: the format Perfetto and chrome://tracing open.

One *process* per rank (or per AI core), one *thread* per stream or pipe;
``X`` (complete) events with real durations in microseconds; flow arrows
(``s``/``f`` events) for dependences that cross threads.

Example::

    >>> doc = chrome_trace([TraceEvent("matmul", "rank 0", "compute", 0.0, 5.0, id="a"),
    ...                     TraceEvent("allreduce", "rank 0", "comm:dp", 5.0, 2.0, id="b")],
    ...                    flows=[("a", "b")])
    >>> sorted({e["ph"] for e in doc["traceEvents"]})
    ['M', 'X', 'f', 's']
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from schedcc.fileio import write_output


@dataclass
class TraceEvent:
    name: str
    process: str
    thread: str
    start_us: float
    dur_us: float
    args: dict = field(default_factory=dict)
    cat: str = ""
    id: str | None = None


def chrome_trace(events: Iterable[TraceEvent], flows: Iterable[tuple[str, str]] = (),
                 metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the trace document. Processes and threads are numbered in order of
    first appearance and named with metadata events, so viewers show the names."""
    events = list(events)
    pids: dict[str, int] = {}
    tids: dict[tuple[str, str], int] = {}
    out: list[dict[str, Any]] = []
    for ev in events:
        if ev.process not in pids:
            pids[ev.process] = len(pids)
            out.append({"ph": "M", "name": "process_name", "pid": pids[ev.process], "tid": 0,
                        "args": {"name": ev.process}})
            out.append({"ph": "M", "name": "process_sort_index", "pid": pids[ev.process], "tid": 0,
                        "args": {"sort_index": pids[ev.process]}})
        key = (ev.process, ev.thread)
        if key not in tids:
            tids[key] = sum(1 for p, _ in tids if p == ev.process)
            out.append({"ph": "M", "name": "thread_name", "pid": pids[ev.process], "tid": tids[key],
                        "args": {"name": ev.thread}})
            out.append({"ph": "M", "name": "thread_sort_index", "pid": pids[ev.process], "tid": tids[key],
                        "args": {"sort_index": tids[key]}})
    by_id: dict[str, TraceEvent] = {}
    for ev in events:
        record = {"ph": "X", "name": ev.name, "cat": ev.cat or "op", "pid": pids[ev.process],
                  "tid": tids[(ev.process, ev.thread)], "ts": round(ev.start_us, 3),
                  "dur": round(max(ev.dur_us, 0.0), 3), "args": ev.args}
        out.append(record)
        if ev.id is not None:
            by_id[ev.id] = ev
    for n, (src, dst) in enumerate(flows):
        a, b = by_id.get(src), by_id.get(dst)
        if a is None or b is None:
            continue
        # The arrow leaves at the end of the producer and binds to the enclosing slice of the consumer.
        out.append({"ph": "s", "id": n, "name": "dep", "cat": "dep", "pid": pids[a.process],
                    "tid": tids[(a.process, a.thread)], "ts": round(a.start_us + a.dur_us * 0.999, 3)})
        out.append({"ph": "f", "bp": "e", "id": n, "name": "dep", "cat": "dep", "pid": pids[b.process],
                    "tid": tids[(b.process, b.thread)], "ts": round(b.start_us, 3)})
    doc: dict[str, Any] = {"traceEvents": out, "displayTimeUnit": "ms"}
    if metadata:
        doc["metadata"] = metadata
    return doc


def write_chrome_trace(path: str, events: Iterable[TraceEvent], flows: Iterable[tuple[str, str]] = (),
                       metadata: dict[str, Any] | None = None, inputs: tuple[str, ...] = ()) -> None:
    write_output(path, json.dumps(chrome_trace(events, flows, metadata)) + "\n", inputs)

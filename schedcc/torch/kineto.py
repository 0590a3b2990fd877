"""Read PyTorch profiler (Kineto) traces: Chrome-trace JSON, one file per rank.

``torch.profiler.profile(...).export_chrome_trace("rank0.json")`` writes one
JSON object per process: ``traceEvents`` (complete ``X`` events with ``ts``
and ``dur`` in microseconds, flow events ``s``/``f``, metadata ``M``) and,
once a process group exists, ``distributedInfo`` (backend, rank,
world_size). This module reads that text with the standard library only
(plain JSON or ``.json.gz``) and checks it; it needs neither torch nor HTA.

What it keeps, per rank (:class:`RankTrace`):

* every complete event (:class:`Event`) with its nesting on its thread or
  stream (``depth``, ``parent``, ``leaf``): CPU operators (``cpu_op``), user
  annotations (``ProfilerStep#N``, ``gloo:all_reduce``, ``FSDP::...``),
  runtime calls (``cuda_runtime``), GPU kernels, copies and sets
  (``kernel``, ``gpu_memcpy``, ``gpu_memset``, on ``pid`` = device, ``tid`` =
  stream);
* the flows from a CPU launch to its GPU kernel (``ac2g``, by correlation
  id);
* the steps: ``ProfilerStep#N`` annotations, on the thread that has them.

Errors name the file, and the event where one is wrong (``file:line:col``
of the event in the JSON text): a truncated or non-JSON file, a JSON file
that is not a Kineto trace, an event without a numeric ``ts``/``dur``, a
trace without steps; :func:`read_traces` adds the checks across ranks (a
rank file missing, two files of one rank, ranks that disagree on the world
size, steps that do not line up).

Complexity: O(E log E) for E events (a sort per thread).

Example::

    >>> import json
    >>> doc = {"distributedInfo": {"rank": 0, "world_size": 1, "backend": "gloo"}, "traceEvents": [
    ...     {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
    ...     {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 2, "dur": 5}]}
    >>> t = parse_trace(json.dumps(doc), "rank0.json")
    >>> t.rank, [(s.number, s.start, s.end) for s in t.steps], [e.depth for e in t.events]
    (0, [(3, 0.0, 10.0)], [0, 1])
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schedcc.errors import SchedccError
from schedcc.ir import Loc

GPU_CATS = frozenset({"kernel", "gpu_memcpy", "gpu_memset"})
STEP_RE = re.compile(r"ProfilerStep#(\d+)$")


@dataclass(eq=False)
class Event:
    """One complete (``X``) event; times in microseconds."""

    index: int            # position in the file's traceEvents (for errors)
    name: str
    cat: str
    ts: float
    dur: float
    pid: Any
    tid: Any
    args: dict = field(default_factory=dict, repr=False)
    depth: int = 0        # nesting on its thread (0: outermost)
    parent: "Event | None" = field(default=None, repr=False)
    leaf: bool = True     # nothing nested inside it

    @property
    def end(self) -> float:
        return self.ts + self.dur

    @property
    def lane(self) -> tuple:
        return (self.pid, self.tid)

    @property
    def on_gpu(self) -> bool:
        return self.cat in GPU_CATS

    def ancestors(self):
        e = self.parent
        while e is not None:
            yield e
            e = e.parent


@dataclass(frozen=True)
class Step:
    """``ProfilerStep#number`` on the step thread, [start, end) in microseconds."""

    number: int
    start: float
    end: float
    event: Event

    @property
    def dur(self) -> float:
        return self.end - self.start


@dataclass(eq=False)
class RankTrace:
    """One rank's trace file, read and checked."""

    path: str
    rank: int
    world: int
    backend: str
    events: list[Event]                    # complete events, by (lane, ts)
    steps: list[Step]                      # in time order
    step_lane: tuple                       # the (pid, tid) of the ProfilerStep# thread
    thread_names: dict[tuple, str]
    flows: dict[int, Event]                # correlation id -> the GPU event a launch starts (ac2g)
    launches: dict[int, Event]             # correlation id -> the CPU launch of that flow
    process_groups: list[dict] = field(default_factory=list)
    has_rank: bool = True                  # distributedInfo named the rank
    text: str = field(default="", repr=False)
    has_world: bool = True                 # distributedInfo named the world size
    def event_loc(self, event: Event) -> Loc | None:
        """Where *event* is written in the file (line and column of its ``{``)."""
        return locate_event(self.text, self.path, event.index)

    def error(self, message: str, event: Event | None = None, notes: list[str] | None = None) -> SchedccError:
        """An error about this file, located at *event* when given."""
        loc = self.event_loc(event) if event is not None else None
        if loc is None:
            return SchedccError(f"{self.path}: {message}", notes=notes or [])
        return SchedccError(message, loc, notes=notes or [], source_line=_line(self.text, loc.line)[:200])


def read_trace(path: str | Path) -> RankTrace:
    """Read one rank's trace file (``.json`` or ``.json.gz``)."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise SchedccError(f"cannot read '{name}': no such file") from None
    except IsADirectoryError:
        raise SchedccError(f"cannot read '{name}': it is a directory") from None
    except OSError as err:
        raise SchedccError(f"cannot read '{name}': {err.strerror}") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as err:
            raise SchedccError(f"{name}: not a readable gzip file ({err})",
                               notes=["the file may be truncated (the profiler was stopped while writing it)"]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SchedccError(f"{name}: not a JSON text file (the byte 0x{data[err.start]:02X} at offset "
                           f"{err.start} is not UTF-8)",
                           notes=["schedcc replay reads the JSON that torch.profiler's export_chrome_trace writes"]) from None
    return parse_trace(text, name)


def parse_trace(text: str, name: str) -> RankTrace:
    """Parse the text of one rank's trace; see the module docstring for the checks."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        # a string left open runs to the end of the text (json reports where it began)
        at_end = not text[err.pos:].strip() or err.msg.startswith("Unterminated string")
        notes = ["the file ends in the middle of the JSON: it is truncated (the profiler was stopped while "
                 "writing it, or the copy is incomplete)"] if at_end else []
        msg = "a string is not closed (it starts here)" if err.msg.startswith("Unterminated string") else err.msg
        raise SchedccError(f"not valid JSON: {msg}", Loc(name, err.lineno, err.colno), notes=notes,
                           source_line=_line(text, err.lineno)[:200]) from None
    kineto = ["a PyTorch profiler trace is the JSON object torch.profiler writes with export_chrome_trace "
              "(its 'traceEvents' list holds the events)"]
    if not isinstance(doc, dict):
        raise SchedccError(f"{name}: not a PyTorch profiler (Kineto) trace: the JSON is "
                           f"{'a list' if isinstance(doc, list) else 'a ' + type(doc).__name__}, not an object",
                           notes=kineto)
    raw = doc.get("traceEvents")
    if not isinstance(raw, list):
        raise SchedccError(f"{name}: not a PyTorch profiler (Kineto) trace: no 'traceEvents' list", notes=kineto)
    events: list[Event] = []
    thread_names: dict[tuple, str] = {}
    flow_start: dict[int, tuple] = {}
    flow_end: dict[int, tuple] = {}
    for i, ev in enumerate(raw):
        if not isinstance(ev, dict):
            raise _event_error(text, name, i, f"event #{i} is not a JSON object")
        ph = ev.get("ph")
        if ph == "X":
            ts, dur = ev.get("ts"), ev.get("dur")
            for key, value in (("ts", ts), ("dur", dur)):
                if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value \
                        or (key == "dur" and value < 0):
                    raise _event_error(text, name, i, f"event #{i} ({ev.get('name', '?')!r}): '{key}' must be a "
                                       f"{'non-negative ' if key == 'dur' else ''}number of microseconds, got {value!r}")
            if ev.get("cat") == "Trace":  # the profiler's own span
                continue
            args = ev.get("args")
            events.append(Event(i, str(ev.get("name", "")), str(ev.get("cat", "")), float(ts), float(dur),
                                ev.get("pid"), ev.get("tid"), args if isinstance(args, dict) else {}))
        elif ph == "M" and ev.get("name") == "thread_name":
            thread_names[(ev.get("pid"), ev.get("tid"))] = str((ev.get("args") or {}).get("name", ""))
        elif ph in ("s", "f") and ev.get("cat") == "ac2g" and isinstance(ev.get("id"), int):
            (flow_start if ph == "s" else flow_end)[ev["id"]] = (ev.get("pid"), ev.get("tid"), ev.get("ts"))
    _nest(events)
    flows, launches = _link_flows(events, flow_start, flow_end)
    info = doc.get("distributedInfo")
    has_rank = isinstance(info, dict) and isinstance(info.get("rank"), int) and not isinstance(info.get("rank"), bool)
    rank, world, backend, groups, has_world = 0, 1, "", [], False
    if has_rank:
        rank = info["rank"]
        world = info.get("world_size")
        has_world = world is not None
        if not has_world:  # older profilers, hand-made files: the job's size comes from the files given
            world = rank + 1
        if isinstance(world, bool) or not isinstance(world, int) or world < 1 or not 0 <= rank < world:
            raise SchedccError(f"{name}: distributedInfo says rank {rank} of world_size {world!r}",
                               notes=["a rank is a number from 0 to world_size - 1"])
        backend = str(info.get("backend", ""))
        groups = [g for g in info.get("pg_config") or () if isinstance(g, dict)]
    steps, step_lane = _steps(events, name)
    return RankTrace(name, rank, world, backend, events, steps, step_lane, thread_names, flows, launches,
                     groups, has_rank, text, has_world)


def _nest(events: list[Event]) -> None:
    """Sort by lane and time and fill in depth, parent and leaf (a stack per lane). O(E log E)."""
    events.sort(key=lambda e: (str(e.pid), str(e.tid), e.ts, -e.dur, e.index))
    stack: list[Event] = []
    lane = None
    for e in events:
        if e.lane != lane:
            stack, lane = [], e.lane
        while stack and stack[-1].end <= e.ts:
            stack.pop()
        if stack and not e.on_gpu and e.end <= stack[-1].end + 1e-3:
            e.parent = stack[-1]
            e.depth = len(stack)
            stack[-1].leaf = False
            stack.append(e)
        else:
            stack = [e]


def _link_flows(events: list[Event], starts: dict, ends: dict) -> tuple[dict, dict]:
    """ac2g flows: correlation id -> (GPU event, CPU launch), matched by lane and time."""
    by_point: dict[tuple, Event] = {}
    for e in events:
        by_point.setdefault((e.pid, e.tid, e.ts), e)
    flows, launches = {}, {}
    for fid, (pid, tid, ts) in ends.items():
        gpu = by_point.get((pid, tid, ts))
        start = starts.get(fid)
        cpu = by_point.get(start) if start is not None else None
        if gpu is None:  # newer Kineto binds the flow to the event by its correlation arg instead
            continue
        flows[fid] = gpu
        if cpu is not None:
            launches[fid] = cpu
    for e in events:  # correlation args (both sides carry them) fill in what points did not
        corr = e.args.get("correlation")
        if isinstance(corr, int):
            if e.on_gpu:
                flows.setdefault(corr, e)
            elif e.cat in ("cuda_runtime", "cuda_driver", "privateuse1_runtime"):
                launches.setdefault(corr, e)
    return flows, launches


def _steps(events: list[Event], name: str) -> tuple[list[Step], tuple]:
    found: dict[tuple, list[Step]] = {}
    for e in events:
        m = STEP_RE.match(e.name)
        if m and not e.on_gpu:
            found.setdefault(e.lane, []).append(Step(int(m.group(1)), e.ts, e.end, e))
    if not found:
        raise SchedccError(f"{name}: no ProfilerStep#N markers: the steps of training cannot be told apart",
                           notes=["profile with torch.profiler.profile(schedule=torch.profiler.schedule(...)) "
                                  "and call prof.step() after every training step"])
    lane, steps = max(found.items(), key=lambda kv: len(kv[1]))
    steps.sort(key=lambda s: s.start)
    numbers = [s.number for s in steps]
    if len(set(numbers)) != len(numbers):
        dup = next(n for n in numbers if numbers.count(n) > 1)
        raise SchedccError(f"{name}: ProfilerStep#{dup} appears twice on one thread")
    return steps, lane


def _line(text: str, line: int) -> str:
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def locate_event(text: str, name: str, index: int) -> Loc | None:
    """``file:line:col`` of event *index* of the traceEvents list in *text*, or None. O(len(text))."""
    if not text:
        return None
    decoder = json.JSONDecoder()
    m = re.search(r'"traceEvents"\s*:\s*\[', text)
    if m is None:
        return None
    pos = m.end()
    for i in range(index + 1):
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if i == index:
            line = text.count("\n", 0, pos) + 1
            return Loc(name, line, pos - (text.rfind("\n", 0, pos) + 1) + 1)
        try:
            _, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            return None
    return None


def _event_error(text: str, name: str, index: int, message: str) -> SchedccError:
    loc = locate_event(text, name, index)
    if loc is None:
        return SchedccError(f"{name}: {message}")
    return SchedccError(message, loc, source_line=_line(text, loc.line)[:200])


# -- several ranks -----------------------------------------------------------------------------------


def trace_files(paths: list[str | Path]) -> list[Path]:
    """The trace files named: files as given, folders by their ``*.json`` / ``*.json.gz``."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(q for q in p.iterdir() if q.is_file() and q.name.endswith((".json", ".json.gz")))
            if not found:
                raise SchedccError(f"{p}: no trace files (*.json, *.json.gz) in this folder")
            out.extend(found)
        else:
            out.append(p)
    if not out:
        raise SchedccError("no trace files given")
    return out


_RANK_IN_NAME = re.compile(r"rank[-_]?(\d+)", re.IGNORECASE)


def read_traces(paths: list[str | Path], subset: bool = False) -> list[RankTrace]:
    """Every rank's trace, by rank; files may be given one by one or as folders.

    Checks that the files are one job's ranks ``0..world-1``, each once, and
    that every rank profiled the same steps. A file without ``world_size``
    (older profilers) counts the job as the ranks given; a file without
    ``distributedInfo`` at all takes its rank from its name (``rank3.json``,
    ``rank-3.json.gz``) when several are given. *subset*: the files may be
    some ranks of a larger job (the public sample traces of big jobs are):
    the ranks missing are not an error, and each collective is replayed
    among the ranks given (:mod:`schedcc.torch.stepgraph`)."""
    traces = [read_trace(p) for p in trace_files(paths)]
    if len(traces) > 1:
        for t in traces:
            if t.has_rank:
                continue
            m = _RANK_IN_NAME.search(Path(t.path).name)
            if m is None:
                raise SchedccError(f"{t.path}: no distributedInfo: the rank of this file is unknown",
                                   notes=["start the profiler after torch.distributed.init_process_group, so that "
                                          "every rank's trace says its rank, or name the files rank0.json, "
                                          "rank1.json, ..."])
            t.rank, t.has_world = int(m.group(1)), False
    if not all(t.has_world for t in traces):  # the job is what was given: its size is the largest rank + 1
        given = max(max(t.world for t in traces if t.has_world) if any(t.has_world for t in traces) else 0,
                    max(t.rank for t in traces) + 1)
        for t in traces:
            if not t.has_world:
                t.world = given
    first = max(traces, key=lambda t: (t.has_world, -t.rank)) if not subset else traces[0]
    by_rank: dict[int, RankTrace] = {}
    for t in traces:
        if t.world != first.world:
            raise SchedccError(f"{t.path}: rank {t.rank} of {t.world} ranks, but {first.path} is rank "
                               f"{first.rank} of {first.world}: these files are not one job's ranks")
        if t.rank in by_rank:
            raise SchedccError(f"{t.path}: rank {t.rank} again (also {by_rank[t.rank].path})",
                               notes=["give each rank's trace once"])
        by_rank[t.rank] = t
    missing = [r for r in range(first.world) if r not in by_rank]
    if missing and not subset:
        have = ", ".join(f"{t.path} (rank {t.rank})" for t in sorted(traces, key=lambda t: t.rank))
        raise SchedccError(f"rank file missing: the job had {first.world} ranks, no trace of rank "
                           f"{_spans(missing)}",
                           notes=[f"read: {have}", "give the traces of every rank (or their folder); to replay "
                                  "only the ranks you have, add --subset"])
    ordered = [by_rank[r] for r in sorted(by_rank)]
    numbers = [s.number for s in ordered[0].steps]
    for t in ordered[1:]:
        other = [s.number for s in t.steps]
        if other != numbers:
            extra = sorted(set(other) ^ set(numbers))
            where = next((s for s in t.steps if s.number in extra), None)
            raise t.error(f"the steps do not line up: rank {t.rank} profiled steps {_ranges(other)}, rank "
                          f"{ordered[0].rank} ({ordered[0].path}) steps {_ranges(numbers)}",
                          where.event if where is not None else None,
                          ["profile every rank with the same torch.profiler schedule"])
    return ordered


def _spans(numbers: list[int]) -> str:
    """``[2, 3, 4, 7]`` -> ``2-4, 7``."""
    out, i = [], 0
    while i < len(numbers):
        j = i
        while j + 1 < len(numbers) and numbers[j + 1] == numbers[j] + 1:
            j += 1
        out.append(f"{numbers[i]}-{numbers[j]}" if j > i + 1 else ", ".join(map(str, numbers[i:j + 1])))
        i = j + 1
    return ", ".join(out)


def _ranges(numbers: list[int]) -> str:
    if not numbers:
        return "none"
    if numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"#{numbers[0]}-#{numbers[-1]}" if len(numbers) > 1 else f"#{numbers[0]}"
    return ", ".join(f"#{n}" for n in numbers)

"""A traced job as a training step: the program, the graph and the measured times of every node.

The nodes of every rank (:mod:`schedcc.torch.lanes`: host pieces, collectives,
GPU kernels) become one schedcc IR program, one function ``rankN`` per rank,
every instruction with its measured ``time``; the training domain builds its
graph from it (:func:`schedcc.training.graph.build_training_graph`), so the
policies, the TP decomposition and the simulator of ``schedcc train`` work on
a traced step unchanged. An instruction reads what it waited for:

* a host piece: the piece before it on its thread, and the collectives (or
  GPU operations) it waited for;
* a collective: the piece that launched it and the collective before it on
  its worker thread or stream;
* a GPU kernel: its launch and the kernel before it on its stream.

Three things the IR does not say are attributes, applied to the graph by
:func:`finish_graph` (again after any rewrite of the program):

* ``lag = X`` (microseconds): the node starts at least X after the end of
  what it reads from another stream (a worker thread's wake-up after an
  enqueue, a thread's wake-up after the collective it waited for);
* ``coll = "s3.c5"``: the same collective on every rank. Every rank's copy
  starts when the last rank has launched it: it depends on what each copy
  depends on (the *sync* edges), and lasts its measured *transfer* (its end
  minus the last rank's start);
* ``stream``, ``ranks``: a lane other than the rank's compute stream (GPU runs),
  and a collective's group size.

A rank's first node on each lane waits for an ``idle`` node as long as the
lane started after the job's first event.

Complexity: O(N + E) plus the graph builder's near-linear cost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from schedcc.errors import SchedccError
from schedcc.ir import Attr, Block, Function, Instr, Program, Reg
from schedcc.target import Target, load_target
from schedcc.torch.kineto import RankTrace
from schedcc.torch.lanes import Comm, Kernel, Piece, RankView, view_rank
from schedcc.training.costs import apply_overrides, ticks
from schedcc.training.graph import TrainingGraph, build_training_graph, check_acyclic
from schedcc.training.overlap import GEMMS as GEMM_OPCODES
from schedcc.training.policies import DATA_EDGES

# Operator names the training domain knows (GEMMs and row-wise operators are what the
# tensor-parallel decomposition walks through, schedcc.training.overlap).
_OPCODES = {"aten::linear": "linear", "aten::addmm": "linear", "aten::mm": "mm", "aten::matmul": "matmul",
            "AddmmBackward0": "linear_bwd", "MmBackward0": "linear_bwd", "aten::gelu": "gelu",
            "GeluBackward0": "gelu_bwd", "aten::relu": "relu", "ReluBackward0": "relu_bwd",
            "aten::layer_norm": "layernorm", "NativeLayerNormBackward0": "layernorm_bwd", "aten::add": "add",
            "aten::silu": "silu", "SiluBackward0": "silu_bwd", "aten::dropout": "dropout"}


@dataclass
class TraceStep:
    """A traced job ready to replay: the training graph and, per node name, what was measured."""

    graph: TrainingGraph
    views: list[RankView]
    nodes: dict[str, object]                 # instruction name -> Piece, Comm or Kernel (None: idle)
    measured: dict[str, tuple[float, float]]  # name -> measured [start, end) in us from the job's origin
    origin: float                            # the job's first event, absolute us
    channels: dict[tuple[int, str], int] = field(default_factory=dict)  # comm worker threads per stream
    fit: "object | None" = None              # the collective cost fit (schedcc.torch.fit)

    @property
    def ranks(self) -> int:
        return len(self.views)

    def view_of(self, rank: int) -> RankView:
        """The view of *rank* (with --subset the ranks given need not be 0..n-1)."""
        for v in self.views:
            if v.rank == rank:
                return v
        raise KeyError(rank)


def opcode_of(name: str) -> str:
    """An operator's name as an IR opcode (``aten::linear`` -> ``linear``, others prefixed ``op_``).

    >>> opcode_of("aten::linear"), opcode_of("Optimizer.step#SGD.step")
    ('linear', 'op_optimizer_step_sgd_step')
    """
    if name in _OPCODES:
        return _OPCODES[name]
    return "op_" + (re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "host")


def match_collectives(views: list[RankView]) -> None:
    """Pair each rank's collectives with the other ranks' (the k-th of a step with the k-th) and
    check that they agree; an error names the file and the event where they do not."""
    keyed = [{c.key: c for c in v.comms} for v in views]
    base = views[0]
    for v, table in zip(views[1:], keyed[1:]):
        for step in v.trace.steps:
            mine = [c for c in v.comms if c.step == step.number]
            theirs = [c for c in base.comms if c.step == step.number]
            if len(mine) != len(theirs):
                where = mine[len(theirs)] if len(mine) > len(theirs) else None
                raise v.trace.error(
                    f"the steps do not line up: rank {v.rank} ran {len(mine)} collectives in step "
                    f"#{step.number}, rank {base.rank} ({base.trace.path}) ran {len(theirs)}",
                    (where.event if where is not None else step.event),
                    ["every rank of a data- or tensor-parallel job runs the same collectives in the same "
                     "order; are these traces of one job and one step range?"])
            for a, b in zip(mine, theirs):
                if a.kind != b.kind or (a.bytes and b.bytes and a.bytes != b.bytes):
                    raise v.trace.error(
                        f"the steps do not line up: collective {a.seq + 1} of step #{step.number} is "
                        f"{a.kind} of {a.bytes:,.0f} bytes on rank {v.rank}, {b.kind} of {b.bytes:,.0f} bytes on "
                        f"rank {base.rank} ({base.trace.path})", a.event,
                        ["every rank runs the same collectives in the same order"])
    for c in base.comms:
        group = [c] + [t[c.key] for t in keyed[1:] if c.key in t]
        for x in group:
            x.peers = group


def build_step(traces: list[RankTrace], target: Target | str | None = None) -> TraceStep:
    """The replayable step of *traces* (one per rank, :func:`schedcc.torch.kineto.read_traces`).

    *target* prices what the trace did not measure (re-bucketed or chunked
    collectives); default: a cluster fitted to this trace's collectives
    (:func:`schedcc.torch.fit.fit_target`)."""
    views = [view_rank(t) for t in traces]
    match_collectives(views)
    origin = min(v.window[0] for v in views)
    from schedcc.torch.fit import fit_target
    fit = None
    if target is None:
        fit = fit_target(views)
        target = fit.target
    program, nodes, measured = _program(views, origin)
    graph = finish_graph(build_training_graph(program, load_target(target)))
    channels = {}
    for v in views:
        for c in v.comms:
            key = (v.rank, f"comm:{c.group}")
            channels[key] = max(channels.get(key, 1), len(v.comm_lanes))
    return TraceStep(graph, views, nodes, measured, origin, channels, fit)


def _program(views: list[RankView], origin: float):
    nodes: dict[str, object] = {}
    measured: dict[str, tuple[float, float]] = {}
    name_of: dict[int, str] = {}
    functions = []
    counter = 0
    for v in views:
        items: list[tuple[float, int, object]] = []
        items += [(p.start, 0, p) for p in v.pieces]
        items += [(c.start, 1, c) for c in v.comms]
        items += [(k.event.ts, 2, k) for k in v.kernels]
        items.sort(key=lambda x: (x[0], x[1]))
        for _, _, obj in items:
            name_of[id(obj)] = f"n{counter}"
            counter += 1
        instrs: list[Instr] = []
        last_on: dict[tuple, str] = {}
        for lane in v.host_lanes + v.gpu_lanes:
            first = min((t for t, _, o in items if getattr(o, "lane", None) == lane), default=None)
            if first is not None and first > origin:
                name = f"idle{v.rank}.{len(instrs)}"
                instrs.append(_instr("idle", name, (), first - origin, v, lane, {"phase": "idle"}))
                nodes[name] = None
                measured[name] = (0.0, first - origin)
                last_on[lane] = name
        for _, _, obj in items:
            name = name_of[id(obj)]
            nodes[name] = obj
            if isinstance(obj, Piece):
                reads = [last_on.get(obj.lane)] + [name_of.get(id(c)) for c in obj.waits_for]
                extra = {"lag": obj.wake_us} if obj.waits_for else {}
                if obj.step is not None:
                    extra["step"] = obj.step
                extra["phase"] = obj.category
                instrs.append(_instr(opcode_of(obj.name), name, reads, obj.dur, v, obj.lane, extra))
                measured[name] = (obj.start - origin, obj.end - origin)
                last_on[obj.lane] = name
            elif isinstance(obj, Comm):
                source, lag = _source(obj, v)
                reads = [name_of.get(id(source)) if source else None,
                         name_of.get(id(obj.prev)) if obj.prev else None]
                extra = {"lag": lag, "coll": obj.key, "group": obj.group, "bytes": obj.bytes,
                         "ranks": obj.group_size, "step": obj.step}
                instrs.append(_instr(obj.kind, name, reads, obj.transfer_us, v, None, extra))
                measured[name] = (obj.start - origin, obj.end - origin)
            else:
                prev = last_on.get(obj.lane)
                reads = [name_of.get(id(obj.after)) if obj.after else None, prev]
                extra = {"lag": obj.lag_us, "step": obj.step,
                         "phase": obj.after.category if obj.after is not None else "forward"}
                instrs.append(_instr(opcode_of(obj.event.name), name, reads, obj.event.dur, v, obj.lane, extra))
                measured[name] = (obj.event.ts - origin, obj.event.end - origin)
                last_on[obj.lane] = name
        functions.append(Function(f"rank{v.rank}", (), (Block("entry", tuple(instrs)),)))
    return Program(tuple(functions), "<traces>"), nodes, measured


def _source(c: Comm, v: RankView) -> tuple[Piece | None, float]:
    """What a collective reads, and its lag after that: the piece that launched it; for a
    tensor-parallel collective the GEMM that produced its tensor, when only tensor bookkeeping
    (DTensor's redistribution) lies between them, so that the decomposition of
    :mod:`schedcc.training.overlap` sees GEMM -> collective."""
    if c.group != "tp" or c.after is None:
        return c.after, c.lag_us
    pieces = [p for p in v.pieces if p.lane == c.after.lane]
    k = pieces.index(c.after)
    while k >= 0 and opcode_of(pieces[k].name) not in GEMM_OPCODES:
        if pieces[k].waits_for or not opcode_of(pieces[k].name).startswith("op_") or pieces[k].step != c.step:
            return c.after, c.lag_us
        k -= 1
    if k < 0:
        return c.after, c.lag_us
    return pieces[k], c.lag_us + (c.after.end - pieces[k].end)


def _gpu_stream(v: RankView, lane: tuple) -> str:
    """GPU compute streams: ``compute`` for the busiest, ``gpu:<stream>`` for the others."""
    return "compute" if v.gpu_lanes and lane == v.gpu_lanes[0] else f"gpu:{lane[1]}"


def _stream_of(v: RankView, lane: tuple) -> str | None:
    """The training stream of a lane: a CPU run's step thread is the rank's ``compute`` stream (None:
    the default); on GPU runs it is ``host`` and the kernels' streams compute."""
    if lane in v.gpu_lanes:
        return _gpu_stream(v, lane)
    if lane == v.host_lanes[0]:
        return "host" if v.gpu_lanes else None
    return f"host:{lane[1]}"


def _instr(opcode: str, name: str, reads, time_us: float, v: RankView, lane: tuple | None, extra: dict) -> Instr:
    attrs = [("time", Attr(round(max(time_us, 0.0), 3)))]
    stream = _stream_of(v, lane) if lane is not None else None
    if stream is not None:
        attrs.append(("stream", Attr(stream)))
    for key, value in extra.items():
        if value is None or (key == "lag" and not value):
            continue
        attrs.append((key, Attr(round(value, 3) if isinstance(value, float) else value)))
    operands = tuple(Reg(r) for r in dict.fromkeys(r for r in reads if r))
    return Instr(opcode, Reg(name), operands, tuple(attrs))


def finish_graph(tg: TrainingGraph) -> TrainingGraph:
    """Apply the ``stream``, ``ranks``, ``lag`` and ``coll`` attributes to *tg*'s graph (see the
    module docstring); returns *tg*. Raises a located error on a cycle (ranks that wait for
    each other's later collectives). O(N + E + sum over collectives of ranks^2 x predecessors)."""
    g = tg.graph
    for n, d in g.nodes(data=True):
        instr = d["instr"]
        stream = instr.attr("stream")
        if stream is not None:
            d["stream"] = str(stream)
        if instr.attr("ranks") is not None and d["kind"] == "comm":
            d["ranks"] = int(instr.attr("ranks"))
        d["coll"] = instr.attr("coll")
        d["step"] = instr.attr("step")
        d["phase"] = instr.attr("phase")
    for u, v, e in g.edges(data=True):
        du, dv = g.nodes[u], g.nodes[v]
        lag = dv["instr"].attr("lag")
        if lag and e["kind"] in DATA_EDGES and (du["stream"] != dv["stream"] or du["rank"] != dv["rank"]):
            e["lag"] = ticks(float(lag) * 1e-6)
    groups: dict[tuple, list] = {}
    for n, d in g.nodes(data=True):
        if d["coll"] is not None and d["kind"] == "comm":
            groups.setdefault((d["coll"], d["instr"].attr("chunk")), []).append(n)
    for members in groups.values():
        if len(members) < 2:
            continue
        inside = set(members)
        preds = {m: [(p, dict(e)) for p, e in g.pred[m].items() if p not in inside and e["kind"] in DATA_EDGES]
                 for m in members}
        for m in members:
            for other in members:
                if other == m:
                    continue
                for p, e in preds[other]:
                    if not g.has_edge(p, m):
                        g.add_edge(p, m, **{**e, "sync": True})
    check_acyclic(g, "the ranks wait for each other in a cycle (are the collectives matched across ranks?)")
    return tg


def with_program(step: TraceStep, program: Program, target: Target | None = None) -> TrainingGraph:
    """The graph of a rewritten program of *step* (a decomposition), finished the same way."""
    return finish_graph(build_training_graph(program, target or step.graph.target))


def retarget(step: TraceStep, overrides: dict) -> TraceStep:
    """*step* with its cluster's numbers changed (``{"link_bw": 1e9}``)."""
    target = apply_overrides(step.graph.target, {k: str(v) for k, v in overrides.items()})
    graph = with_program(step, step.graph.program, target)
    return replace(step, graph=graph)


def describe_node(step: TraceStep, name: str) -> str:
    obj = step.nodes.get(name)
    if isinstance(obj, Piece):
        return f"rank {obj.rank} {obj.name}"
    if isinstance(obj, Comm):
        return f"rank {obj.rank} {obj.event.name}"
    if isinstance(obj, Kernel):
        return f"rank {obj.rank} {obj.event.name}"
    return name


def require_collectives(step: TraceStep, what: str) -> None:
    if not any(v.comms for v in step.views):
        raise SchedccError(f"{what}: the trace has no collectives")

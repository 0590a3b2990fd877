"""What-ifs of a replayed step: other DDP buckets, another overlap policy, tensor-parallel chunks.

Each what-if changes the replayed step the way the training domain would
change a generated one, schedules it with the same simulator, and compares it
with a *baseline* scheduled the same way:

* ``policy``: one of :data:`schedcc.training.policies.POLICIES` on the traced
  step. The host threads keep their order (a trace says nothing about which
  operators could move, so a thread's order is a dependence), and what a
  policy may reorder is the collectives (``priority`` cuts data-parallel ones
  into chunks of ``partition_mb`` and sends the layers nearest the input
  first; ``critical-path`` orders them by the critical path). Baseline: the
  replay;
* ``bucket_mb`` (DDP traces): the gradients the reducer copied into each
  bucket (``torch::distributed::reducer::mul_out``, with their sizes) become
  one all-reduce each, launched when its gradient is ready, and the ``ddp``
  policy regroups them into buckets of ``bucket_mb`` (every bucket that size,
  as DDP's buckets are after its first step). Baseline: the buckets as they
  ran. Both price the collectives with the cluster model fitted to the trace
  (:mod:`schedcc.torch.fit`), as nothing measured the new buckets;
* ``tp_chunks`` (tensor-parallel traces): every GEMM + all-reduce + row-wise
  site (:func:`schedcc.training.overlap.find_sites`) cut into K chunks
  (:func:`schedcc.training.overlap.chunk_sites`). Baseline: the step as it
  ran; both price the collectives with the fitted model.

Step times are the profiled steps' (mean over ranks, summed), as the replay
reports them.

Example::

    >>> from schedcc.torch.replay import replay
    >>> w = what_if(replay(["tests/data/traces/ddp"]), bucket_mb=4)
    >>> w.label, w.baseline_label
    ('ddp buckets of 4 MiB', 'buckets as run')
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.errors import SchedccError, check_range
from schedcc.ir import Attr, Block, Function, Instr, Program, Reg
from schedcc.torch.exposed import Exposure
from schedcc.torch.lanes import Comm, Piece
from schedcc.torch.replay import Replay, Timed, replayed_exposure, schedule_step, step_times
from schedcc.torch.stepgraph import TraceStep, with_program
from schedcc.training.policies import MIB_RANGE, MIB_WHY, POLICIES

MAX_TP_CHUNKS = 64


@dataclass
class WhatIf:
    """A changed step, scheduled, against its baseline; times in microseconds."""

    label: str
    baseline_label: str
    step_us: float
    baseline_us: float
    timed: Timed
    exposure: list[Exposure]
    baseline_exposure: list[Exposure]
    note: str = ""
    replayed_us: float = 0.0      # the replay itself (measured collective times), for orientation
    priced: bool = False          # both sides' collectives priced by the fit, not measured

    @property
    def gain(self) -> float:
        """The fraction of the baseline's time saved (negative: slower)."""
        return 1 - self.step_us / self.baseline_us if self.baseline_us else 0.0

    def to_json(self) -> dict:
        return {"what_if": self.label, "step_us": self.step_us, "baseline": self.baseline_label,
                "baseline_us": self.baseline_us, "gain": self.gain, "replayed_us": self.replayed_us,
                "collectives_priced_by_fit": self.priced,
                "exposed_communication": [e.to_json() for e in self.exposure],
                "baseline_exposed_communication": [e.to_json() for e in self.baseline_exposure],
                **({"note": self.note} if self.note else {})}


def _total(step: TraceStep, timed: Timed) -> float:
    return sum(s.replayed_mean for s in step_times(step, timed))


def what_if(replayed: Replay, policy: str | None = None, bucket_mb: float | None = None,
            tp_chunks: int | None = None, partition_mb: float = 16.0, credit_mb: float | None = None) -> WhatIf:
    """One what-if of *replayed* (see the module docstring); give exactly one of *policy*,
    *bucket_mb*, *tp_chunks*."""
    asked = [x for x in (policy, bucket_mb, tp_chunks) if x is not None]
    if len(asked) != 1:
        raise SchedccError("what_if needs exactly one of policy, bucket_mb, tp_chunks")
    step = replayed.step
    if bucket_mb is not None:
        check_range(bucket_mb, *MIB_RANGE, "--bucket-mb", why=MIB_WHY)
        return _buckets(replayed, bucket_mb)
    if tp_chunks is not None:
        check_range(tp_chunks, 2, MAX_TP_CHUNKS, "--tp-chunks", integer=True,
                    why="chunks per tensor-parallel site; each chunk is a collective of its own")
        return _chunks(replayed, int(tp_chunks))
    if policy not in POLICIES:
        raise SchedccError(f"--policy: unknown policy '{policy}'", notes=["policies: " + ", ".join(POLICIES)])
    if policy == "priority":  # it cuts collectives into chunks the trace never ran: price all of them
        program = _priced(step, step.graph.program)
        base = _run(step, program, "fifo")
        timed = _run(step, program, policy, partition_mb=partition_mb, credit_mb=credit_mb)
        return WhatIf(f"policy priority, {partition_mb:g} MiB chunks", "collectives as run", _total(step, timed),
                      _total(step, base), timed, replayed_exposure(step, timed), replayed_exposure(step, base),
                      _fit_note(step), replayed.replayed_us, True)
    timed = schedule_step(step, policy)
    return WhatIf(f"policy {policy}", "replay", _total(step, timed), replayed.replayed_us, timed,
                  replayed_exposure(step, timed), replayed.replayed_exposure, "", replayed.replayed_us)


def _fit_note(step: TraceStep) -> str:
    return f"collectives priced by the fit to the trace: {step.fit.describe()}" if step.fit else \
        f"collectives priced by {step.graph.target.name}"


def _priced(step: TraceStep, program: Program) -> Program:
    """*program* with the collectives' measured times dropped: the fitted model prices them."""
    functions = []
    for f in program.functions:
        blocks = []
        for b in f.blocks:
            instrs = tuple(i if i.attr("coll") is None else
                           Instr(i.opcode, i.dest, i.operands, tuple((k, a) for k, a in i.attrs if k != "time"))
                           for i in b.instrs)
            blocks.append(Block(b.label, instrs))
        functions.append(Function(f.name, f.params, tuple(blocks)))
    return Program(tuple(functions), program.source)


def _run(step: TraceStep, program: Program, policy: str, **options) -> Timed:
    return schedule_step(step, policy, graph=with_program(step, program), **options)


def _buckets(replayed: Replay, bucket_mb: float) -> WhatIf:
    step = replayed.step
    program = _asynchronous(step, _priced(step, step.graph.program))
    gradients = _gradient_program(step, program)
    base = _run(step, program, "fifo")
    timed = _run(step, gradients, "ddp", bucket_mb=bucket_mb, first_bucket_mb=bucket_mb)
    return WhatIf(f"ddp buckets of {bucket_mb:g} MiB", "buckets as run", _total(step, timed), _total(step, base),
                  timed, replayed_exposure(step, timed), replayed_exposure(step, base), _fit_note(step),
                  replayed.replayed_us, True)


def _asynchronous(step: TraceStep, program: Program) -> Program:
    """*program* without the waits for collectives found in the backward before its last gradient:
    DDP waits for its buckets after the backward; a thread that blocked earlier (inside a collective
    call, while an earlier bucket finished) would otherwise wait for other buckets in the what-if."""
    drop: set[str] = set()
    names = {id(obj): n for n, obj in step.nodes.items() if obj is not None}
    for v in step.views:
        pieces = sorted(v.pieces, key=lambda p: p.start)
        last_grad: dict[tuple, float] = {}
        for p in pieces:
            if p.grads:
                last_grad[(p.lane, p.step)] = p.start
        drop.update(names[id(p)] for p in pieces
                    if p.waits_for and p.start < last_grad.get((p.lane, p.step), -1.0))
    if not drop:
        return program
    comms = {n for n, obj in step.nodes.items() if isinstance(obj, Comm)}
    functions = []
    for f in program.functions:
        instrs = tuple(i if i.dest.name not in drop else
                       Instr(i.opcode, i.dest, tuple(op for op in i.operands if op.name not in comms),
                             tuple((k, a) for k, a in i.attrs if k != "lag"))
                       for i in f.blocks[0].instrs)
        functions.append(Function(f.name, f.params, (Block(f.blocks[0].label, instrs),)))
    return Program(tuple(functions), program.source)


def _gradient_program(step: TraceStep, program: Program) -> Program:
    """*program* with each DDP bucket all-reduce replaced by one all-reduce per gradient, read by
    what read the bucket (see the module docstring)."""
    by_name = {i.dest.name: i for _, b in program.blocks() for i in b.instrs}
    bucket_members: dict[str, list[str]] = {}
    new_instrs: dict[str, list[Instr]] = {}
    found = False
    for v in step.views:
        # every host thread: on GPU runs the backward (and the reducer's copies) runs on autograd's own thread
        pieces = sorted(v.pieces, key=lambda p: p.start)
        names = {id(obj): n for n, obj in step.nodes.items() if obj is not None}
        launches = {id(c.after): c for c in v.comms if c.after is not None and c.kind == "allreduce"}
        waiting: dict[tuple, list[tuple[Piece, float]]] = {}
        for p in pieces:
            pending = waiting.setdefault(p.lane, [])
            pending.extend((p, size) for size in p.grads)
            c = launches.get(id(p))
            if c is None or not pending:
                continue
            found = True
            bucket = names[id(c)]
            instr = by_name[bucket]
            members = []
            for j, (piece, size) in enumerate(pending):
                name = f"{bucket}.g{j}"
                attrs = tuple((k, a) for k, a in instr.attrs if k not in ("bytes", "coll", "time"))
                attrs += (("bytes", Attr(size)), ("coll", Attr(f"{c.key}.g{j}")))
                new_instrs.setdefault(bucket, []).append(
                    Instr("allreduce", Reg(name), (Reg(names[id(piece)]),), attrs))
                members.append(name)
            bucket_members[bucket] = members
            waiting[p.lane] = []
    if not found:
        raise SchedccError("--bucket-mb: this trace has no DDP gradient buckets",
                           notes=["re-bucketing needs a DistributedDataParallel run profiled with "
                                  "record_shapes=True (the reducer's copies give each gradient's size)"])
    sizes = [float(i.attr("bytes") or 0) for members in new_instrs.values() for i in members]
    if not any(sizes):
        raise SchedccError("--bucket-mb: the trace does not say how large the gradients are",
                           notes=["DDP's reducer copies were recorded without their shapes: profile with "
                                  "record_shapes=True to re-bucket the gradients"])
    functions = []
    for f in program.functions:
        out: list[Instr] = []
        for i in f.blocks[0].instrs:
            name = i.dest.name
            if name in bucket_members:
                out.extend(new_instrs[name])
                continue
            ops = []
            for op in i.operands:
                ops.extend(Reg(m) for m in bucket_members.get(op.name, [op.name])
                           if not (i.attr("coll") is not None and op.name in bucket_members))
            out.append(Instr(i.opcode, i.dest, tuple(dict.fromkeys(ops)), i.attrs))
        functions.append(Function(f.name, f.params, (Block(f.blocks[0].label, tuple(out)),)))
    return Program(tuple(functions), program.source)


def _chunks(replayed: Replay, k: int) -> WhatIf:
    from schedcc.training.overlap import chunk_sites, find_sites
    step = replayed.step
    program = _priced(step, step.graph.program)
    tg = with_program(step, program)
    sites = find_sites(tg)
    if not sites:
        raise SchedccError("--tp-chunks: this trace has no tensor-parallel collective next to a GEMM",
                           notes=["a tensor-parallel run (DTensor's ColwiseParallel / RowwiseParallel) "
                                  "all-reduces the output of a GEMM: that is what can be cut into chunks"])
    chunked = chunk_sites(tg, k, sites)
    base = schedule_step(step, "fifo", graph=tg)
    timed = _run(step, chunked, "fifo")
    return WhatIf(f"tensor-parallel sites in {k} chunks", "sites whole", _total(step, timed),
                  _total(step, base), timed, replayed_exposure(step, timed), replayed_exposure(step, base),
                  f"{len(sites)} GEMM + all-reduce sites ({len(sites) // max(step.ranks, 1)} per rank over "
                  f"{len(step.views[0].trace.steps)} profiled steps), each cut "
                  f"into {k}; a chunk of a host operator takes 1/{k} of its time; " + _fit_note(step),
                  replayed.replayed_us, True)


def comm_nodes(step: TraceStep) -> list[Comm]:
    return [obj for obj in step.nodes.values() if isinstance(obj, Comm)]

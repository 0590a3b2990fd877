"""Synchronisation insertion: SetFlag/WaitFlag between pipes, PipeBarrier within one.

Input: a kernel DAG (:func:`schedcc.ascend.deps.kernel_dag`) and its
schedule. The instructions are issued in *stream* order (scheduled cycle,
scalar instructions last within a cycle); each pipe executes its share in
that order. Every ``complete`` edge u -> v must make v start after u has
finished:

* u and v on different pipes: ``SetFlag<HardEvent::U_V>(id)`` right after u
  (it fires when everything issued to u's pipe so far has finished) and
  ``WaitFlag<HardEvent::U_V>(id)`` right before v; when the pair has no
  HardEvent (MTE3 and FIX, say), ``WaitFlag<HardEvent::U_S>`` on the scalar
  pipe before v is issued;
* on the same pipe: ``PipeBarrier<PIPE_X>()`` before v (never on S, which
  finishes each instruction before it issues the next);
* before a branch to another block (a loop's next iteration):
  ``PipeBarrier<PIPE_ALL>()``, so that nothing crosses the block boundary.

Minimality. A flag is left out when the ordering is already implied by the
others: pipes are in order, a flag covers everything finished before its
SetFlag, and flags compose across pipes (transitive reduction). The pass
keeps, per event, a *vector clock*: for every pipe, the last instruction of
that pipe known to have finished. Walking the stream, an edge u -> v is
implied when v's clock already covers u; otherwise a flag is added from the
latest-finishing unimplied producer first, and the flags into one
instruction are pruned once more against each other.

Event IDs: flags of one SRC_DST pair share ``event_ids`` IDs (0-7 on 910B).
A flag reuses an ID when the previous flag with that ID has provably been
waited for (its WaitFlag is covered by the vector clock at the new
SetFlag), so the reuse holds whatever the actual timings are. When every ID
is in flight, :class:`OutOfEventIds` asks the caller for one more ordering
(the setter waits for the oldest flag's consumer) and a new schedule.

O((n + e) * p) for p pipes. Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.sched import list_schedule
    >>> from schedcc.ascend.deps import kernel_dag
    >>> t = load_target("ascend")
    >>> b = parse("x_ub = copy_in xGm[0] {bytes = 1KiB}\\ny_ub = vexp x_ub {bytes = 1KiB}\\n"
    ...           "copy_out yGm[0], y_ub {bytes = 1KiB}\\n").functions[0].blocks[0]
    >>> g = kernel_dag(b, t)
    >>> k = insert_sync(g, list_schedule(g), t)
    >>> [(f.event, f.event_id) for f in k.flags], k.flags_before
    ([('MTE2_V', 0), ('V_MTE3', 0)], 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.errors import SchedccError, plural
from schedcc.problem import SchedGraph
from schedcc.sched.schedule import Schedule
from schedcc.target import Target
from schedcc.ascend.deps import COMPLETE
from schedcc.ascend.model import SCALAR_PIPE, ascend_model


@dataclass
class Flag:
    """One SetFlag/WaitFlag pair: set after ``src`` on its pipe, waited before ``dst``."""

    src: int
    dst: int
    src_pipe: str
    dst_pipe: str
    event_id: int = -1
    covers: list[tuple[int, int]] = field(default_factory=list)  # the edges it was added for
    wait_pipe: str = ""  # the pipe that waits: dst_pipe, or S when the pair has no HardEvent

    def __post_init__(self) -> None:
        self.wait_pipe = self.wait_pipe or self.dst_pipe

    @property
    def event(self) -> str:
        return f"{self.src_pipe}_{self.wait_pipe}"


class OutOfEventIds(Exception):
    """More flags of one pair would be in flight than there are IDs.

    ``edges`` lists (consumer, setter) pairs: making the setter start after the
    consumer has finished frees an ID. :func:`schedcc.ascend.kernel.compile_block`
    adds them to the DAG and schedules again.
    """

    def __init__(self, edges: list[tuple[int, int, str]]):
        self.edges = edges
        super().__init__(f"{plural(len(edges), 'flag')} found no free event ID")


@dataclass(frozen=True)
class Op:
    """One item of the emitted program, in issue (stream) order.

    ``kind`` is ``instr`` (``node`` set), ``set`` / ``wait`` (``flag`` indexes
    :attr:`SyncedKernel.flags`), ``barrier`` (``PipeBarrier<PIPE_X>``) or
    ``drain`` (``PipeBarrier<PIPE_ALL>``, on S); ``pipe`` is the queue it goes to.
    """

    kind: str
    pipe: str
    node: int | None = None
    flag: int | None = None
    event: str = ""
    event_id: int = -1


@dataclass
class SyncedKernel:
    stream: list[Op]
    flags: list[Flag]
    barriers: list[tuple[str, int]]  # (pipe, the node it precedes)
    flags_before: int                # one flag per cross-pipe edge that needs completion
    barriers_before: int             # one barrier per same-pipe edge that needs completion
    order: list[int]                 # nodes in stream order
    pipe_of: dict[int, str]


def stream_order(dag: SchedGraph, schedule: Schedule) -> list[int]:
    """Issue order: by cycle; scalar instructions last within a cycle (S is synchronous)."""
    rank = {n: i for i, n in enumerate(schedule.order)}
    return sorted(range(len(dag)), key=lambda n: (schedule.cycle[n], schedule.unit[n] == SCALAR_PIPE, rank[n]))


def insert_sync(dag: SchedGraph, schedule: Schedule, target: Target, *, drain: bool = True,
                reserved: dict[str, set[int]] | None = None, spread_ids: bool = False) -> SyncedKernel:
    """Insert the flags and barriers that make *schedule* safe on the pipes; see the module doc.

    ``drain=False`` leaves out the ``PipeBarrier<PIPE_ALL>`` before a branch (the
    caller synchronises across it); ``reserved`` holds event IDs per pair that
    the block's own flags must not use; ``spread_ids`` prefers an ID not used yet
    (in a loop body every reuse of an ID also has to wait across the back edge)."""
    model = ascend_model(target)
    pipes = list(target.units)
    index = {p: i for i, p in enumerate(pipes)}
    P = len(pipes)
    order = stream_order(dag, schedule)
    pipe_of = {n: schedule.unit[n] for n in range(len(dag))}
    pos: dict[int, int] = {}
    count = [0] * P
    for n in order:
        k = index[pipe_of[n]]
        pos[n] = count[k]
        count[k] += 1
    ops = dag.ops
    end_time = {n: schedule.cycle[n] + ops[n].latency for n in range(len(dag))}

    none = [-1] * P
    start_vc: dict[int, list[int]] = {}
    done_vc: dict[int, list[int]] = {}      # frontier once n and all before it on its pipe finished
    pipe_start = [none] * P                 # clock at the start of the pipe's last instruction
    pipe_done = [none] * P                  # clock once the pipe's last instruction finished
    dispatch = none                         # what the scalar pipe knows when it issues
    flags: list[Flag] = []
    barriers: list[tuple[str, int]] = []
    flags_before = barriers_before = 0
    wait_before: dict[int, list[int]] = {}
    set_after: dict[int, list[int]] = {}
    barrier_before: set[int] = set()

    for n in order:
        p = pipe_of[n]
        k = index[p]
        vc = _join(pipe_start[k], dispatch)
        preds = [d for d in dag.pred[n] if d.tag == COMPLETE]
        same = [d.src for d in preds if pipe_of[d.src] == p]
        cross = [d.src for d in preds if pipe_of[d.src] != p]
        flags_before += sum(1 for d in preds if pipe_of[d.src] != p and d.kind != "EVENT")
        barriers_before += len(same) if p != SCALAR_PIPE else 0
        if p == SCALAR_PIPE:
            vc = _join(vc, pipe_done[k])
        base = vc
        chosen: list[int] = []
        for u in sorted(cross, key=lambda u: (-end_time[u], -pos[u])):
            if vc[index[pipe_of[u]]] >= pos[u]:
                continue
            vc = _join(vc, done_vc[u])
            chosen.append(u)
        # A barrier only when the flags do not already order the same-pipe producers;
        # then flags that the barrier makes redundant are dropped.
        if p != SCALAR_PIPE and any(vc[k] < pos[u] for u in same):
            base = _join(base, pipe_done[k])
            vc = _join(vc, pipe_done[k])
            barriers.append((p, n))
            barrier_before.add(n)
        chosen = _prune(chosen, base, done_vc, index, pipe_of, pos)
        for u in chosen:
            event = f"{pipe_of[u]}_{p}"
            wait_pipe = p
            if event not in model.events:
                # No HardEvent for this pair (V and FIX, say): the scalar pipe waits
                # for u before it issues n, which orders n and everything after it.
                wait_pipe = SCALAR_PIPE
                if f"{pipe_of[u]}_{SCALAR_PIPE}" not in model.events:
                    instr_u, instr_n = ops[u].payload, ops[n].payload
                    raise SchedccError(
                        f"no HardEvent {event} or {pipe_of[u]}_S can order '{instr_u}' ({pipe_of[u]}) "
                        f"before '{instr_n}' ({p})", instr_n.loc,
                        notes=[f"the model lists the pairs that have events in [ascend] events "
                               f"({model.target.path or model.target.name})"])
                dispatch = _join(dispatch, done_vc[u])
                pipe_done[index[SCALAR_PIPE]] = _join(pipe_done[index[SCALAR_PIPE]], done_vc[u])
            flags.append(Flag(u, n, pipe_of[u], p, wait_pipe=wait_pipe,
                              covers=[(v, n) for v in cross if _covers(done_vc[u], v, index, pipe_of, pos)]))
            wait_before.setdefault(n, []).append(len(flags) - 1)
            set_after.setdefault(u, []).append(len(flags) - 1)
        start_vc[n] = vc
        done = _join(vc, pipe_done[k])
        done = done[:k] + [pos[n]] + done[k + 1:]
        done_vc[n] = done
        pipe_start[k] = vc
        pipe_done[k] = done
        if p == SCALAR_PIPE:
            dispatch = done

    _assign_event_ids(flags, model.event_ids, done_vc, index, pos, ops, dag, reserved or {}, spread_ids)
    # Leaving the block for another one (a loop's next iteration) drains every
    # pipe first, so that no flag or buffer use crosses the block boundary.
    block = dag.source
    term = len(block.instrs) - 1 if block is not None and block.instrs else None
    drain = (drain and term is not None and block.instrs[term].opcode in ("br", "jmp")
             and any(pipe_of[n] != SCALAR_PIPE for n in range(len(dag))))
    stream: list[Op] = []
    for n in order:
        p = pipe_of[n]
        if drain and n == term:
            stream.append(Op("drain", SCALAR_PIPE))
        for f in sorted(wait_before.get(n, ()), key=lambda f: (flags[f].src_pipe, f)):
            stream.append(Op("wait", flags[f].wait_pipe, flag=f, event=flags[f].event,
                             event_id=flags[f].event_id))
        if n in barrier_before:
            stream.append(Op("barrier", p))
        stream.append(Op("instr", p, node=n))
        for f in sorted(set_after.get(n, ()), key=lambda f: (flags[f].dst_pipe, f)):
            stream.append(Op("set", p, flag=f, event=flags[f].event, event_id=flags[f].event_id))
    return SyncedKernel(stream, flags, barriers, flags_before, barriers_before, order, pipe_of)


def _join(a: list[int], b: list[int]) -> list[int]:
    return [x if x >= y else y for x, y in zip(a, b)]


def _covers(vc: list[int], u: int, index, pipe_of, pos) -> bool:
    return vc[index[pipe_of[u]]] >= pos[u]


def _prune(chosen: list[int], base: list[int], done_vc, index, pipe_of, pos) -> list[int]:
    """Drop a chosen flag whose producer the other chosen flags already cover."""
    keep = list(chosen)
    for u in list(chosen):
        others = base
        for w in keep:
            if w != u:
                others = _join(others, done_vc[w])
        if _covers(others, u, index, pipe_of, pos):
            keep.remove(u)
    return keep


def _assign_event_ids(flags: list[Flag], limit: int, done_vc, index, pos, ops, dag=None,
                      reserved: dict[str, set[int]] | None = None, spread: bool = False) -> None:
    """Give each flag the lowest ID of its pair whose previous use has provably been waited for.

    When all IDs of a pair are in flight, raise :class:`OutOfEventIds` with,
    for each such flag, an ordering that frees one: the instruction the flag
    follows waits for the consumer of the oldest flag in flight (one the
    instruction does not itself precede, so no cycle arises).
    """
    last: dict[tuple[str, int], Flag] = {}
    extra: list[tuple[int, int, str]] = []
    for f in sorted(flags, key=lambda f: (pos[f.src], f.dst)):
        here = done_vc[f.src]
        taken = (reserved or {}).get(f.event, ())
        candidates = [i for i in range(limit) if i not in taken]
        if spread:  # unused IDs first, then the one whose last use is oldest
            candidates.sort(key=lambda i: (last.get((f.event, i)) is not None,
                                           pos[last[(f.event, i)].src] if (f.event, i) in last else -1))
        for event_id in candidates:
            prev = last.get((f.event, event_id))
            if prev is None or here[index[prev.dst_pipe]] >= pos[prev.dst]:
                f.event_id = event_id
                last[(f.event, event_id)] = f
                break
        else:
            busy = sorted((i for i in range(limit) if i not in taken), key=lambda i: pos[last[(f.event, i)].dst])
            for event_id in busy:
                consumer = last[(f.event, event_id)].dst
                if dag is None or not dag.has_path(f.src, consumer):
                    extra.append((consumer, f.src, f"{f.event} ID {event_id}"))
                    f.event_id = event_id  # as if freed, to find every shortage in one pass
                    last[(f.event, event_id)] = f
                    break
            else:
                instr = ops[f.dst].payload
                raise SchedccError(
                    f"more than {limit} {f.event} events would be in flight at once when "
                    f"'{ops[f.src].payload}' sets one, and none can be freed", instr.loc,
                    notes=["fewer tiles in flight (fewer buffers) keep the events within the hardware's IDs"])
    if extra:
        raise OutOfEventIds(extra)

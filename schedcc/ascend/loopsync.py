"""A tile loop as a loop: flags that cross the back edge (Ascend C's ping-pong).

:mod:`.kernel` synchronises each block on its own and drains every pipe
before a branch, so iterations of a loop never overlap. This module keeps the
loop a loop and lets the pipes run ahead into the next iteration, the way an
Ascend C kernel with ``BUFFER_NUM = 2`` does:

1. The body is unrolled ``u`` times, ``u`` the least common multiple of the
   tiles' buffer counts, so that every buffer copy has a fixed name
   (:func:`schedcc.ascend.tiles.unroll_tile_loop`); tiles use copies in turn.
2. The body is scheduled and synchronised as a block (:mod:`.sync`), without
   the drain before its branch.
3. Dependences from one iteration of the body to the next (*carried*: the
   copy-in of buffer 0 in iteration j+1 must wait until the vector unit of
   iteration j has read buffer 0) become flags that are set in one iteration
   and waited for in the next. Each is set once before the loop ("buffer
   free") and waited for once after it, and keeps its own event ID for the
   whole loop. Of the carried dependences between one pair of pipes only those
   no other implies are kept (a later SetFlag and an earlier WaitFlag in the
   body cover more). A carried dependence within one pipe gets a
   ``PipeBarrier`` unless one is already in the way.
4. The result is checked by running ``iterations`` iterations back to back
   through the independent checker (:func:`schedcc.ascend.check.check_sync`),
   pre-set flags and final waits included. When the checker finds a flag
   reused before its previous wait of the iteration before, the loop adds a
   carried dependence from that wait's instruction to the flag's, and tries
   again.

O(u * n) per attempt. Example::

    >>> from schedcc import parse
    >>> prog = parse(open("examples/ascend/vector_add.ir").read())
    >>> lk = loop_kernels(prog, "ascend", buffers=2)[0]
    >>> lk.unroll, sorted({f.event for f in lk.carried})
    (2, ['MTE3_V', 'V_MTE2'])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import networkx as nx

from schedcc.errors import SchedccError
from schedcc.ir import Block, Function, Program
from schedcc.problem import SchedGraph
from schedcc.target import Target, check_opcodes, load_target
from schedcc.ascend.alloc import Allocation, share_buffers
from schedcc.ascend.buffers import plan_tiles
from schedcc.ascend.check import CheckResult, SyncCheckError, check_sync
from schedcc.ascend.deps import COMPLETE, kernel_dag
from schedcc.ascend.kernel import is_tile_loop, schedule_and_sync
from schedcc.ascend.model import SCALAR_PIPE, AscendModel, ascend_model
from schedcc.ascend.sync import Flag, Op, SyncedKernel
from schedcc.ascend.tiles import unroll_with_origin


@dataclass
class LoopKernel:
    function: Function
    label: str
    unroll: int                          # tiles per iteration of the body
    copies: dict[str, int]               # buffers per tile
    body: Block                          # the unrolled body, the code's loop block
    dag: SchedGraph
    sync: SyncedKernel                   # the body's own flags (set and waited in one iteration)
    carried: list[Flag]                  # flags across the back edge (indices after sync.flags)
    carried_before: int                  # carried dependences between pipes before reduction
    stream: list[Op]                     # the body's code: its flags, the carried ones, no drain
    before: list[Op]                     # once before the loop: SetFlag of every carried flag
    after: list[Op]                      # once after it: WaitFlag of every carried flag
    check: CheckResult                   # `iterations` iterations run back to back
    iterations: int
    extra: list[tuple[int, int]] = field(default_factory=list)  # carried orderings added for ID reuse
    model: AscendModel | None = None     # the Ascend tables of the target
    allocation: Allocation | None = None  # how its function's tiles sit in the buffers

    @property
    def flags(self) -> list[Flag]:
        return self.sync.flags + self.carried

    @property
    def cycles_per_tile(self) -> float:
        """Steady state: the last iteration's share of the run, per tile."""
        return self.check_steady / self.unroll

    check_steady: float = 0.0


def _lcm(values) -> int:
    out = 1
    for v in values:
        out = out * v // math.gcd(out, v)
    return out


def loop_kernels(program: Program, target: Target | str, buffers: int | dict[str, int] = 2,
                 iterations: int = 4, priority: str = "critical-path") -> list[LoopKernel]:
    """Every tile loop of *program* as a synchronised loop; see the module docstring.

    *buffers* is one count for every tile or a count per tile name (as
    :mod:`.pipeline` derives them).
    """
    tgt = load_target(target)
    model = ascend_model(tgt)
    check_opcodes(program, tgt)
    # by lifetime when one region per tile does not fit
    program, allocations = share_buffers(program, model, buffers)
    out = []
    for function, allocation in zip(program.functions, allocations):
        plan = plan_tiles(function, model)
        for block in function.blocks:
            if is_tile_loop(block):
                out.append(loop_kernel(function, block, tgt, plan, buffers, iterations, priority))
                out[-1].allocation = allocation
    return out


def loop_kernel(function: Function, block: Block, target: Target, plan, buffers, iterations: int = 4,
                priority="critical-path", modulo=None) -> LoopKernel:
    """One tile loop as a loop. With *modulo* (a modulo schedule of the loop) the
    body's instructions are ordered as that schedule starts them."""
    is_tile = lambda r: plan.buffer_of(r) is not None  # noqa: E731
    names = [r for r in plan.tiles]
    copies = dict(buffers) if isinstance(buffers, dict) else {r: buffers for r in names}
    u = min(_lcm(c for c in copies.values() if c > 0), 16)
    body, origin = unroll_with_origin(block, u, copies, is_tile)
    # The function with the body in the loop's place: its tiles, with their copies, must fit.
    plan_tiles(replace(function, blocks=tuple(body if b.label == block.label else b
                                              for b in function.blocks)), ascend_model(target))
    if modulo is not None:
        ii, cycle = modulo.ii, modulo.cycle
        start = {n: (o[0] * ii + cycle[o[1]]) if o is not None else -1 for n, o in enumerate(origin)}

        def modulo_order(dag):
            return [-start[n] for n in range(len(dag))]
        modulo_order.__name__ = "modulo"
        priority = modulo_order
    two, origin2 = unroll_with_origin(block, 2 * u, copies, is_tile)
    carried = _carried_dependences(body, origin, two, origin2, u, target)
    extra: list[tuple[int, int]] = []
    for _ in range(64):
        try:
            return _build(function, block, body, target, carried + extra, copies, u, iterations, priority,
                          extra)
        except _ReuseTooEarly as err:
            new = [e for e in err.pairs if e not in extra]
            if not new:
                raise SchedccError(f"cannot synchronise loop '{block.label}' across its back edge",
                                   block.loc, notes=err.problems[:3]) from None
            extra.extend(new)
    raise SchedccError(f"cannot synchronise loop '{block.label}' across its back edge", block.loc)


def _carried_flags(dag, schedule, carried_deps, model, block) -> dict:
    """Choose the flags across the back edge for this schedule and reserve their IDs."""
    from schedcc.ascend.sync import stream_order
    order_pipe = {n: schedule.unit[n] for n in range(len(dag))}
    pos: dict[int, int] = {}
    count: dict[str, int] = {}
    for n in stream_order(dag, schedule):
        pos[n] = count.get(order_pipe[n], 0)
        count[order_pipe[n]] = pos[n] + 1
    cross, same = [], []
    for a, b in carried_deps:
        pa, pb = order_pipe[a], order_pipe[b]
        if pa == SCALAR_PIPE:
            continue  # S finishes its instructions before it issues the next iteration's
        (same if pa == pb else cross).append((a, b))
    implied = _Implied(dag, order_pipe, pos)
    kept: list[tuple[int, int]] = []
    # Strongest first (earliest waiter, latest setter): they imply the most.
    for a, b in sorted(cross, key=lambda ab: (pos[ab[1]], -pos[ab[0]])):
        if not implied(a, b, kept):
            kept.append((a, b))
    for a, b in list(kept):  # once more against the others, now that all are known
        if implied(a, b, [k for k in kept if k != (a, b)]):
            kept.remove((a, b))
    reserved: dict[str, set[int]] = {}
    carried: list[Flag] = []
    for a, b in kept:
        pa, pb = order_pipe[a], order_pipe[b]
        event, wait_pipe = f"{pa}_{pb}", pb
        if event not in model.events:
            event, wait_pipe = f"{pa}_{SCALAR_PIPE}", SCALAR_PIPE
            if event not in model.events:
                raise SchedccError(f"no HardEvent orders {pa} before {pb} across iterations", block.loc)
        ids = reserved.setdefault(event, set())
        if len(ids) >= model.event_ids:
            raise SchedccError(f"loop '{block.label}' needs more than {model.event_ids} {event} flags across "
                               "its back edge", block.loc, notes=["use fewer buffers"])
        carried.append(Flag(a, b, pa, pb, event_id=len(ids), wait_pipe=wait_pipe))
        ids.add(len(ids))
    return {"pipe": order_pipe, "pos": pos, "implied": implied, "carried": carried, "kept": kept,
            "same": same, "before": len(cross), "reserved": reserved}


class _Implied:
    """Is "a (this iteration) finished before b (next iteration) starts" implied by carried flags?

    It is when b depends, in its own iteration, on an instruction of a's pipe.
    A carried flag c -> d (SetFlag after c, WaitFlag before d in the next
    iteration) implies it when a is finished once c is (c is a itself, comes
    after a on a's pipe, or depends on a through synchronised dependences) and
    b starts after d does (d is b, comes before b on b's pipe, or b depends on d).
    """

    def __init__(self, dag: SchedGraph, pipe: dict, pos: dict):
        self.pipe, self.pos = pipe, pos
        done = nx.DiGraph()
        done.add_nodes_from(range(len(dag)))
        done.add_edges_from((d.src, d.dst) for d in dag.deps if d.tag == COMPLETE)
        self.after = {n: nx.descendants(done, n) for n in done}
        self.before = {n: nx.ancestors(done, n) for n in done}

    def __call__(self, a: int, b: int, flags) -> bool:
        pipe, pos = self.pipe, self.pos
        # b waits, in its own iteration, for an instruction c of a's pipe to finish; a
        # flag or barrier after c means everything before c on that pipe, a of the
        # iteration before included, has finished.
        if any(pipe[c] == pipe[a] for c in self.before[b]):
            return True
        for c, d in flags:
            a_done = c == a or (pipe[c] == pipe[a] and pos[c] >= pos[a]) or c in self.after[a]
            b_after = d == b or (pipe[d] == pipe[b] and pos[d] <= pos[b]) or d in self.before[b]
            if a_done and b_after:
                return True
        return False


class _ReuseTooEarly(Exception):
    def __init__(self, pairs, problems):
        self.pairs, self.problems = pairs, problems


def _carried_dependences(body: Block, origin, two: Block, origin2, u: int, target: Target):
    """(a, b) pairs of body instructions: b in the next iteration must start after a finished."""
    where = {o: n for n, o in enumerate(origin) if o is not None}
    dag2 = kernel_dag(two, target)
    out = set()
    for d in dag2.deps:
        x, y = d.src, d.dst
        ox, oy = origin2[x], origin2[y]
        if d.tag != COMPLETE or ox is None or oy is None:
            continue
        if ox[0] < u <= oy[0]:
            a, b = where.get((ox[0], ox[1])), where.get((oy[0] - u, oy[1]))
            if a is not None and b is not None:
                out.add((a, b))
    return sorted(out)


def _build(function, block, body, target, carried_deps, copies, u, iterations, priority, extra):
    model = ascend_model(target)
    dag = kernel_dag(body, target)
    plan: dict = {}

    def prepare(dag, schedule):
        # Carried flags first, from this schedule: they keep their IDs for the whole loop.
        plan.clear()
        plan.update(_carried_flags(dag, schedule, carried_deps, model, block))
        return {"reserved": plan["reserved"]}

    dag, schedule, sync = schedule_and_sync(dag, target, priority, body, prepare, drain=False, spread_ids=True)
    order_pipe, pos, implied = plan["pipe"], plan["pos"], plan["implied"]
    carried, kept, same_pipe, carried_before = plan["carried"], plan["kept"], plan["same"], plan["before"]
    base = len(sync.flags)
    barriers_at = {n for _, n in sync.barriers}
    # Event IDs of the body's own flags come round again in the next iteration: the
    # last flag with an ID must have been waited for before the first sets it again.
    wrap = []
    groups: dict[tuple[str, int], list[Flag]] = {}
    for f in sync.flags:
        groups.setdefault((f.event, f.event_id), []).append(f)
    for users in groups.values():
        users.sort(key=lambda f: pos[f.src])
        first, last = users[0], users[-1]
        if not implied(last.dst, first.src, kept):
            wrap.append((last.dst, first.src))
    if wrap:
        raise _ReuseTooEarly(wrap, [f"an event ID of the body's flags wraps around at #{b}" for _, b in wrap])
    need_barrier = set()
    for a, b in same_pipe:
        p = order_pipe[a]
        covered = any(order_pipe[n] == p and (pos[n] > pos[a] or pos[n] <= pos[b]) for n in barriers_at)
        covered = covered or implied(a, b, kept)
        if not covered:
            need_barrier.add(b)
            barriers_at.add(b)
    stream: list[Op] = []
    for op in sync.stream:
        if op.kind == "instr":
            n = op.node
            for i, f in enumerate(carried):
                if f.dst == n:
                    stream.append(Op("wait", f.wait_pipe, flag=base + i, event=f.event, event_id=f.event_id))
            if n in need_barrier:
                stream.append(Op("barrier", op.pipe))
            stream.append(op)
            for i, f in enumerate(carried):
                if f.src == n:
                    stream.append(Op("set", f.src_pipe, flag=base + i, event=f.event, event_id=f.event_id))
        else:
            stream.append(op)
    # The terminator goes last: no flag op after the branch.
    term = [i for i, op in enumerate(stream) if op.kind == "instr" and body.instrs[op.node].is_terminator]
    if term:
        t = term[0]
        stream = stream[:t] + stream[t + 1:] + [stream[t]]
    before = [Op("set", f.src_pipe, flag=base + i, event=f.event, event_id=f.event_id) for i, f in enumerate(carried)]
    after = [Op("wait", f.wait_pipe, flag=base + i, event=f.event, event_id=f.event_id) for i, f in enumerate(carried)]
    check, steady = _run(body, target, stream, before, after, iterations, sync, carried, base)
    lk = LoopKernel(function, block.label, u, copies, body, dag, sync, carried, carried_before, stream,
                    before, after, check, iterations, list(extra), model)
    lk.check_steady = steady
    return lk


def _run(body: Block, target, stream, before, after, iterations, sync, carried, base):
    """Run *iterations* iterations back to back through the checker; also the last one's length."""
    n = len(body.instrs) - 1  # without the branch
    instrs = tuple(body.instrs[:-1]) * iterations
    flat = replace(body, instrs=instrs)
    ops = list(before)
    for k in range(iterations):
        for op in stream:
            if op.kind == "instr":
                if op.node == n:
                    continue  # the branch
                ops.append(replace(op, node=op.node + k * n))
            else:
                ops.append(op)
    ops.extend(after)
    try:
        result = check_sync(flat, target, ops)
    except SyncCheckError as err:
        pairs = []
        flags = sync.flags + carried
        for f_index in _reused_flags(err.problems, ops, n, flags):
            if f_index < base:  # a flag of the body, set again in the next iteration too early
                f = flags[f_index]
                pairs.append((f.dst, f.src))
        if not pairs:
            raise SchedccError(f"cannot keep the tile loop '{body.label}' a loop: its flags across the back "
                               "edge would race", body.loc,
                               notes=err.problems[:3] + ["--tiles N unrolls it into straight-line code instead"]) \
                from None
        raise _ReuseTooEarly(pairs, err.problems) from None
    ends = [max(result.end[x] for x in range(k * n, (k + 1) * n)) for k in range(iterations)]
    steady = ends[-1] - ends[-2] if iterations > 1 else ends[-1]
    return result, steady


def _reused_flags(problems: list[str], ops, n: int, flags) -> list[int]:
    """The flags whose event ID the checker saw reused too early (by their event and ID)."""
    import re
    out = []
    for text in problems:
        m = re.search(r"event (\w+) ID (\d+) is (?:reused|set again)", text)
        if m is None:
            continue
        event, event_id = m.group(1), int(m.group(2))
        for op in ops:
            if op.kind == "set" and op.event == event and op.event_id == event_id and op.flag is not None:
                if op.flag not in out:
                    out.append(op.flag)
    return out

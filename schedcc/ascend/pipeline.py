"""Double buffering from modulo scheduling: how many buffers each tile needs, and the II.

A tile loop ``copy_in -> compute -> copy_out`` is modulo-scheduled on the
Ascend pipes (:mod:`schedcc.sched.modulo`): a new tile starts every II
cycles, so MTE2 loads tile i+1 while V computes tile i and MTE3 stores tile
i-1. A tile buffer is busy from the start of the instruction that writes it
to the end of its last reader (a reader of a later iteration counts at its
distance times II): its *lifetime*. Tile i+k reuses the buffer of tile i only
if k * II covers that lifetime, so each tile needs ``ceil(lifetime / II)``
copies (modulo variable expansion, applied to buffers): Ascend C's
``BUFFER_NUM``, derived instead of guessed. The copies must fit the buffers'
capacities; when they do not, the ``accept`` callback rejects the schedule
and the modulo scheduler tries the next II, so the kernel never needs more
on-chip memory than there is.

The result is then made concrete for ``tiles`` iterations: the loop body is
unrolled with the derived number of copies per tile
(:func:`schedcc.ascend.tiles.unroll_with_origin`), list-scheduled with the
modulo schedule's times as priorities, synchronised (:mod:`.sync`) and
checked (:mod:`.check`). Its cycles per tile approach II as ``tiles`` grows.

O(modulo scheduling) + O(tiles * n) for the concrete program.

Example::

    >>> from schedcc import parse
    >>> prog = parse(open("examples/ascend/vector_add.ir").read())
    >>> (p,) = pipeline_tile_loops(prog, "ascend", tiles=4)
    >>> p.ii, p.copies
    (512, {'x_ub': 2, 'y_ub': 2, 'z_ub': 2})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace


from schedcc.errors import SchedccError
from schedcc.ir import Function, Program
from schedcc.problem import SchedGraph
from schedcc.swp.dependences import loop_dag
from schedcc.swp.loops import analyse_loop
from schedcc.swp.view import NotPipelined
from schedcc.sched.modulo import modulo_schedule
from schedcc.target import Target, check_opcodes, load_target
from schedcc.ascend.alloc import share_buffers, share_function
from schedcc.ascend.buffers import TilePlan, check_capacity, plan_tiles
from schedcc.ascend.kernel import KernelResult, compile_block, is_tile_loop
from schedcc.ascend.model import ascend_model
from schedcc.ascend.tiles import unroll_with_origin


@dataclass
class PipelinedLoop:
    function: Function
    label: str
    schedule: object                 # schedcc.sched.modulo.ModuloSchedule
    dag: SchedGraph                  # the loop's DAG with distances
    lifetimes: dict[str, int]        # tile -> cycles its buffer is busy per iteration
    copies: dict[str, int]           # tile -> buffers (BUFFER_NUM)
    usage: dict[str, int]            # buffer -> bytes with the copies
    kernel: KernelResult             # the concrete, synchronised program for `tiles` iterations
    tried: list[tuple[int, str]] = field(default_factory=list)  # II values that failed, and why

    @property
    def ii(self) -> int:
        return self.schedule.ii

    @property
    def stages(self) -> int:
        return self.schedule.stages

    @property
    def busy(self) -> dict[str, int]:
        work: dict[str, int] = {}
        for n, op in enumerate(self.dag.ops):
            work[self.schedule.unit[n]] = work.get(self.schedule.unit[n], 0) + op.occupancy
        return work

    @property
    def bound(self) -> int:
        """The busiest pipe's work per tile."""
        return max(self.busy.values(), default=0)

    @property
    def rejected(self) -> list[str]:
        """What was tried before the II kept, in the order tried."""
        return [f"II {ii}: {why}" for ii, why in self.tried]


def ascend_loop_dag(loop, target: Target) -> SchedGraph:
    """The loop's DAG with distances (:func:`schedcc.swp.dependences.loop_dag`) with Ascend's
    completion semantics: a dependence out of any pipe but S waits for the producer
    to finish, also through memory."""
    dag = loop_dag(loop, target)
    ops = dag.ops
    return dag.replace(deps=tuple(d._replace(latency=max(d.latency, ops[d.src].latency)) for d in dag.deps))


def tile_lifetimes(dag: SchedGraph, cycle: dict, ii: int, plan: TilePlan) -> dict[str, int]:
    """Per tile name defined in the loop: from its first writer's start to its last reader's end."""
    start: dict[str, int] = {}
    end: dict[str, int] = {}
    ops = dag.ops
    for n, op in enumerate(ops):
        for r in op.payload.defs():
            if plan.buffer_of(r) is None:
                continue
            start[r] = min(start.get(r, cycle[n]), cycle[n])
            end[r] = max(end.get(r, 0), cycle[n] + op.latency)
    for d in dag.deps:
        r = d.reason
        if d.kind == "RAW" and r in start:
            end[r] = max(end[r], cycle[d.dst] + d.distance * ii + ops[d.dst].latency)
    return {r: max(end[r] - start[r], 1) for r in start}


def buffer_copies(lifetimes: dict[str, int], ii: int) -> dict[str, int]:
    return {r: max(1, math.ceil(t / ii)) for r, t in lifetimes.items()}


def pipeline_tile_loops(program: Program, target: Target | str, tiles: int = 8,
                        algorithm: str = "ims", check: bool = True) -> list[PipelinedLoop]:
    """Modulo-schedule every tile loop of *program* with buffers from lifetimes; see the module doc.

    Raises :class:`SchedccError` for a loop the pipeliner cannot take (with
    its reason) and when no II up to the limit fits the buffers.
    """
    tgt = load_target(target)
    model = ascend_model(tgt)
    check_opcodes(program, tgt)
    program, _ = share_buffers(program, model)  # by lifetime when one region per tile does not fit
    results = []
    for function in program.functions:
        for block in function.blocks:
            if not is_tile_loop(block):
                continue
            best = _pipeline_loop(function, block, tgt, algorithm, tiles, check)
            if any("overflows" in why for _, why in best.tried):
                # The buffer copies limited the II: let tiles never alive at once share a
                # region (the regions' copies then come from their longer lifetimes).
                try:
                    shared, _ = share_function(function, model, force=True)
                    other = _pipeline_loop(shared, shared.block(block.label), tgt, algorithm, tiles, check)
                except SchedccError as err:
                    if err.internal:  # a schedule that fails its verifier: a bug
                        raise
                    other = None
                if other is not None and other.ii < best.ii:
                    best = other
            results.append(best)
    return results


def _pipeline_loop(function: Function, block, tgt: Target, algorithm: str, tiles: int,
                   check: bool) -> PipelinedLoop:
    model = ascend_model(tgt)
    plan = plan_tiles(function, model)
    loop = analyse_loop(function, block)
    if isinstance(loop, NotPipelined):
        raise SchedccError(f"tile loop '{block.label}' cannot be modulo-scheduled: {loop.reason}", block.loc)
    dag = ascend_loop_dag(loop, tgt)
    reasons: dict[int, str] = {}

    def accept(ms):
        copies = buffer_copies(tile_lifetimes(dag, ms.cycle, ms.ii, plan), ms.ii)
        try:
            check_capacity(plan, model, copies)
        except SchedccError as err:
            reasons[ms.ii] = ("rejected: " + err.message + " ("
                              + ", ".join(f"{r} x{c}" for r, c in copies.items() if c > 1) + ")")
            return reasons[ms.ii]
        return True

    ms, tried = _search_ii(lambda ii: modulo_schedule(dag, algorithm=algorithm, accept=accept,
                                                      min_ii=ii, max_ii=ii), dag, tgt, reasons)
    lifetimes = tile_lifetimes(dag, ms.cycle, ms.ii, plan)
    copies = buffer_copies(lifetimes, ms.ii)
    kernel = _concrete(function, block, tgt, plan, ms, copies, tiles, check)
    return PipelinedLoop(function, block.label, ms, dag, lifetimes, copies, plan.usage(model, copies),
                         kernel, tried)


def _search_ii(schedule_at, dag: SchedGraph, target: Target, reasons: dict[int, str]):
    """The smallest II found by galloping up from the MII, then bisecting back.

    Ascend latencies are hundreds of cycles, so trying every II in turn (each
    a full modulo-scheduling attempt) is slow: steps double from about 1% of
    the MII, and the gap between the last failure and the first success is
    then bisected. O(log(II / MII)) attempts.
    """
    from schedcc.sched.mii import mii as compute_mii
    start = compute_mii(dag, target.issue_width).value
    tried: list[tuple[int, str]] = []

    def attempt(ii: int):
        try:
            return schedule_at(ii)
        except SchedccError:
            tried.append((ii, reasons.get(ii, "no schedule within the scheduler's budget")))
            return None

    step = max(1, -(-start // 100))
    lo, ii = start - 1, start
    limit = 64 * start + 64
    found = attempt(ii)
    while found is None:
        lo = ii
        ii += step
        step *= 2
        if ii > limit:
            raise SchedccError(f"no modulo schedule found with II up to {limit}",
                               notes=[f"II {i}: {why}" for i, why in tried[-3:]])
        found = attempt(ii)
    best = found
    hi = ii
    while hi - lo > 1:  # failures are not always monotonic in II; this is a search, not a proof
        mid = (lo + hi) // 2
        got = attempt(mid)
        if got is None:
            lo = mid
        else:
            best, hi = got, mid
    return best, sorted(tried)


def _concrete(function, block, target, plan, ms, copies, tiles, check) -> KernelResult:
    """The loop unrolled *tiles* times with *copies*, scheduled in the modulo schedule's order."""
    flat, origin = unroll_with_origin(block, tiles, copies, is_tile=lambda r: plan.buffer_of(r) is not None)
    new_fn = replace(function, blocks=tuple(flat if b.label == block.label else b for b in function.blocks))
    flat_plan = plan_tiles(new_fn, ascend_model(target))
    ii = ms.ii
    order = {i: (o[0] * ii + ms.cycle[o[1]]) if o is not None else None for i, o in enumerate(origin)}

    def modulo_order(dag: SchedGraph) -> list:
        # Earlier in the modulo schedule = more urgent; the added scalar steps go first.
        top = max((t for t in order.values() if t is not None), default=0) + 1
        return [-(order[n] if order[n] is not None else -top) for n in range(len(dag))]

    modulo_order.__name__ = "modulo"
    result = compile_block(new_fn, flat, target, flat_plan, priority=modulo_order, check=check)
    result.tile_count = tiles
    return result

"""The whole Ascend job for one program: tiles, DAG, schedule, flags, check.

:func:`compile_kernels` is the library entry point; the CLI prints its
:class:`KernelResult` objects with :mod:`schedcc.ascend.report`.

Example::

    >>> from schedcc import parse
    >>> src = open("examples/ascend/vector_add.ir").read()
    >>> k = compile_kernels(parse(src), "ascend")[1]     # the loop body
    >>> k.bottleneck, k.bound, k.sync.flags_before > len(k.sync.flags)
    ('MTE2', 512, True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx

from ..errors import SchedccError
from ..ir import Block, Function, Program
from ..sched import Schedule, list_schedule
from ..target import Target, check_opcodes, load_target
from .buffers import TilePlan, plan_tiles
from .check import CheckResult, check_sync
from .deps import kernel_dag
from .model import AscendModel, ascend_model, is_ascend
from .sync import OutOfEventIds, SyncedKernel, insert_sync
from .tiles import unroll_tile_loop


@dataclass
class KernelResult:
    function: Function
    block: Block
    target: Target
    model: AscendModel
    tiles: TilePlan
    dag: nx.DiGraph
    schedule: Schedule
    sync: SyncedKernel
    check: CheckResult | None  # None when checking was turned off
    tile_count: int = 1        # iterations of a tile loop in this block (after --tiles)

    @property
    def simulated_makespan(self) -> int:
        """Cycles of the synchronised program as the checker ran it (the schedule's without a check)."""
        return self.check.makespan if self.check is not None else self.makespan

    @property
    def cycles_per_tile(self) -> float:
        return self.simulated_makespan / max(self.tile_count, 1)

    @property
    def makespan(self) -> int:
        return self.schedule.makespan

    @property
    def busy(self) -> dict[str, int]:
        """Cycles each pipe is busy (its instructions' occupancy)."""
        work = {p: 0 for p in self.target.units}
        for n, d in self.dag.nodes(data=True):
            work[self.schedule.unit[n]] += d["occupancy"]
        return work

    @property
    def bound(self) -> int:
        """The busiest pipe's work: no schedule of the block is shorter."""
        return max(self.busy.values(), default=0)

    @property
    def bound_per_tile(self) -> float:
        return self.bound / max(self.tile_count, 1)

    @property
    def bottleneck(self) -> str:
        busy = self.busy
        return max(busy, key=lambda p: (busy[p], p == "S")) if busy else ""

    @property
    def serial_cycles(self) -> int:
        """Cycles with no overlap at all: each instruction starts when the previous one ended."""
        return sum(d["latency"] for _, d in self.dag.nodes(data=True))

    def utilisation(self) -> dict[str, float]:
        span = max(self.makespan, 1)
        return {p: b / span for p, b in self.busy.items()}


def schedule_and_sync(dag: nx.DiGraph, tgt: Target, priority, block: Block, prepare=None, **sync_options):
    """List-schedule *dag* and insert its synchronisation; when a pair of pipes runs
    out of event IDs, order the setter after the oldest consumer and start again.

    *prepare(dag, schedule)* may return extra keyword arguments for
    :func:`insert_sync` computed from each new schedule (the loop code reserves IDs).
    """
    while True:
        schedule = list_schedule(dag, tgt, priority=priority)
        options = dict(sync_options, **(prepare(dag, schedule) if prepare is not None else {}))
        try:
            return schedule, insert_sync(dag, schedule, tgt, **options)
        except OutOfEventIds as short:
            # Too many flags of one pair in flight: order the setter after the oldest
            # consumer (freeing its ID) and schedule again with that in the timing.
            added = 0
            for consumer, setter, what in short.edges:
                if nx.has_path(dag, setter, consumer):
                    continue  # an ordering added just before already covers it, or would close a cycle
                if consumer > setter:
                    dag.graph["ordered"] = False  # node order is no longer a topological order
                dag.add_edge(consumer, setter, kind="EVENT", latency=dag.nodes[consumer]["latency"],
                             reason=f"frees {what}", sync="complete")
                added += 1
            if not added:
                raise SchedccError(f"the kernel needs more event IDs than {tgt.name} has, and no "
                                   "ordering frees one", block.loc,
                                   notes=["fewer tiles in flight (fewer buffers) keep the events within "
                                          "the hardware's IDs"])


def compile_block(function: Function, block: Block, target: Target | str, tiles: TilePlan | None = None,
                  priority: str = "critical-path", check: bool = True) -> KernelResult:
    """Schedule one block on the Ascend pipes, insert its flags and (by default) check them."""
    tgt = load_target(target)
    model = ascend_model(tgt)
    plan = tiles if tiles is not None else plan_tiles(function, model)
    dag = kernel_dag(block, tgt)
    schedule, synced = schedule_and_sync(dag, tgt, priority, block)
    result = check_sync(block, tgt, synced.stream) if check else None
    return KernelResult(function, block, tgt, model, plan, dag, schedule, synced, result)


def is_tile_loop(block: Block) -> bool:
    return block.terminator is not None and block.label in block.successors()


def unroll_tile_loops(program: Program, tiles: int, buffers: int = 2) -> Program:
    """*program* with every tile loop unrolled *tiles* times over *buffers* rotating buffer copies."""
    funcs = []
    for f in program.functions:
        blocks = tuple(unroll_tile_loop(b, tiles, buffers) if is_tile_loop(b) else b for b in f.blocks)
        funcs.append(replace(f, blocks=blocks))
    return replace(program, functions=tuple(funcs))


def compile_kernels(program: Program, target: Target | str, priority: str = "critical-path",
                    check: bool = True, tiles: int = 1, buffers: int = 2) -> list[KernelResult]:
    """Schedule and synchronise every block of *program* for an Ascend *target*.

    Raises :class:`~schedcc.errors.SchedccError` for input errors (unknown
    opcodes, tiles in the wrong buffer, buffers that overflow) and
    :class:`~schedcc.ascend.check.SyncCheckError` if the checker finds a
    problem in the inserted synchronisation (a bug in schedcc).

    With ``tiles > 1`` every tile loop is unrolled that many times, its tiles
    in ``buffers`` rotating copies (:mod:`schedcc.ascend.tiles`); the copies
    count against the buffers' capacities.
    """
    tgt = load_target(target)
    if not is_ascend(tgt):
        raise SchedccError(f"target '{tgt.name}' is not an Ascend model",
                           notes=["use --target ascend910b (alias ascend) or ascend910a"])
    check_opcodes(program, tgt)
    model = ascend_model(tgt)
    loops = {(f.name, b.label) for f, b in program.blocks() if is_tile_loop(b)}
    if tiles > 1 or buffers != 2:
        program = unroll_tile_loops(program, tiles, buffers)
    results = []
    for function in program.functions:
        plan = plan_tiles(function, model)
        for block in function.blocks:
            res = compile_block(function, block, tgt, plan, priority, check)
            if (function.name, block.label) in loops:
                res.tile_count = tiles
            results.append(res)
    return results

"""The whole Ascend job for one program: tiles, DAG, schedule, flags, check.

:func:`compile_kernels` is the library entry point; the CLI prints its
:class:`KernelResult` objects with :mod:`schedcc.emit.ascend` and :mod:`schedcc.viz.ascend`.

Example::

    >>> from schedcc import parse
    >>> src = open("examples/ascend/vector_add.ir").read()
    >>> k = compile_kernels(parse(src), "ascend")[1]     # the loop body
    >>> k.bottleneck, k.bound, k.sync.flags_before > len(k.sync.flags)
    ('MTE2', 512, True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schedcc.errors import SchedccError
from schedcc.ir import Block, Function, Program
from schedcc.problem import SchedGraph
from schedcc.sched import Schedule
from schedcc.sched.solve import ListStrategy, solve
from schedcc.target import Target, check_opcodes, load_target
from schedcc.ascend.alloc import Allocation, share_buffers
from schedcc.ascend.buffers import TilePlan, plan_tiles
from schedcc.ascend.check import CheckResult, check_sync
from schedcc.ascend.deps import event_dep, kernel_dag
from schedcc.ascend.model import AscendModel, ascend_model, is_ascend
from schedcc.ascend.sync import OutOfEventIds, SyncedKernel, insert_sync
from schedcc.ascend.tiles import unroll_tile_loop


@dataclass
class KernelResult:
    function: Function
    block: Block
    target: Target
    model: AscendModel
    tiles: TilePlan
    dag: SchedGraph
    schedule: Schedule
    sync: SyncedKernel
    check: CheckResult | None  # None when checking was turned off
    tile_count: int = 1        # iterations of a tile loop in this block (after --tiles)
    allocation: Allocation | None = None  # how its function's tiles sit in the buffers

    def times(self) -> tuple[dict[int, int], dict[int, int]]:
        """(start, end) per instruction: the checker's simulation of the synchronised
        code, or the schedule's when checking was off."""
        if self.check is not None:
            return self.check.start, self.check.end
        start = dict(self.schedule.cycle)
        return start, {n: start[n] + self.dag.ops[n].latency for n in start}

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
    def exact(self):
        """The exact solver's :class:`~schedcc.sched.exact.ExactInfo` (None without ``exact``)."""
        return self.schedule.exact

    @property
    def busy(self) -> dict[str, int]:
        """Cycles each pipe is busy (its instructions' occupancy)."""
        work = {p: 0 for p in self.target.units}
        for n, op in enumerate(self.dag.ops):
            work[self.schedule.unit[n]] += op.occupancy
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
        return sum(op.latency for op in self.dag.ops)

    def utilisation(self) -> dict[str, float]:
        span = max(self.makespan, 1)
        return {p: b / span for p, b in self.busy.items()}


def schedule_and_sync(dag: SchedGraph, tgt: Target, priority, block: Block, prepare=None, exact=None,
                      **sync_options):
    """List-schedule *dag* and insert its synchronisation; when a pair of pipes runs
    out of event IDs, order the setter after the oldest consumer and start again
    (the refinement step of :func:`schedcc.sched.solve.solve`).

    *prepare(dag, schedule)* may return extra keyword arguments for
    :func:`insert_sync` computed from each new schedule (the loop code reserves IDs).
    With *exact* (:class:`~schedcc.sched.cpsat.Limits`) every round is solved exactly from
    the list schedule (:class:`~schedcc.sched.exact.ExactStrategy`).
    Returns (the final graph, its schedule, the synchronised kernel).
    """
    synced: list[SyncedKernel] = []

    def refine(graph: SchedGraph, schedule: Schedule) -> SchedGraph | None:
        options = dict(sync_options, **(prepare(graph, schedule) if prepare is not None else {}))
        try:
            synced.append(insert_sync(graph, schedule, tgt, **options))
            return None
        except OutOfEventIds as short:
            # Too many flags of one pair in flight: order the setter after the oldest
            # consumer (freeing its ID) and schedule again with that in the timing.
            added = []
            for consumer, setter, what in short.edges:
                probe = graph.with_deps(added)
                if probe.has_path(setter, consumer):
                    continue  # an ordering added just before already covers it, or would close a cycle
                added.append(event_dep(consumer, setter, graph.ops[consumer].latency, what))
            if not added:
                raise SchedccError(f"the kernel needs more event IDs than {tgt.name} has, and no "
                                   "ordering frees one", block.loc,
                                   notes=["fewer tiles in flight (fewer buffers) keep the events within "
                                          "the hardware's IDs"])
            return graph.with_deps(added)

    strategy = ListStrategy(priority)
    if exact is not None:
        from schedcc.sched.exact import ExactStrategy
        strategy = ExactStrategy(exact, strategy)
    solved = solve(dag, strategy, refine=refine, bound=False)
    return solved.graph, solved.schedule, synced[-1]


def compile_block(function: Function, block: Block, target: Target | str, tiles: TilePlan | None = None,
                  priority: str = "critical-path", check: bool = True, exact=None) -> KernelResult:
    """Schedule one block on the Ascend pipes (exactly, with *exact* limits), insert its
    flags and (by default) check them."""
    tgt = load_target(target)
    model = ascend_model(tgt)
    plan = tiles if tiles is not None else plan_tiles(function, model)
    dag, schedule, synced = schedule_and_sync(kernel_dag(block, tgt), tgt, priority, block, exact=exact)
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
                    check: bool = True, tiles: int = 1, buffers: int = 2, exact=None) -> list[KernelResult]:
    """Schedule and synchronise every block of *program* for an Ascend *target*.

    Raises :class:`~schedcc.errors.SchedccError` for input errors (unknown
    opcodes, tiles in the wrong buffer, buffers that overflow) and
    :class:`~schedcc.ascend.check.SyncCheckError` if the checker finds a
    problem in the inserted synchronisation (a bug in schedcc).

    With ``tiles > 1`` every tile loop is unrolled that many times, its tiles
    in ``buffers`` rotating copies (:mod:`schedcc.ascend.tiles`); the copies
    count against the buffers' capacities. Tiles that do not fit one region
    each share regions by lifetime (:mod:`schedcc.ascend.alloc`). With *exact*
    (the solver's :class:`~schedcc.sched.cpsat.Limits`) every block is solved
    exactly (``KernelResult.schedule.exact``).
    """
    tgt = load_target(target)
    if not is_ascend(tgt):
        raise SchedccError(f"target '{tgt.name}' is not an Ascend model",
                           notes=["use --target ascend910b (alias ascend) or ascend910a"])
    check_opcodes(program, tgt)
    model = ascend_model(tgt)
    loops = {(f.name, b.label) for f, b in program.blocks() if is_tile_loop(b)}
    unroll = tiles > 1 or buffers != 2
    # Tiles never alive at once share a region when one region each does not fit.
    program, allocations = share_buffers(program, model, buffers if unroll else 1)
    if unroll:
        program = unroll_tile_loops(program, tiles, buffers)
    results = []
    for function, allocation in zip(program.functions, allocations):
        plan = plan_tiles(function, model)
        for block in function.blocks:
            res = compile_block(function, block, tgt, plan, priority, check, exact)
            res.allocation = allocation
            if (function.name, block.label) in loops:
                res.tile_count = tiles
            results.append(res)
    return results

"""The job for an instruction program: per block, build the DAG, schedule it,
verify the result against the program, bound it and simulate the original order.

Build (:func:`schedcc.dag.build_dag`) -> schedule (:func:`schedcc.sched.solve`)
-> verify (:func:`schedcc.verifier.verify`, which re-derives the constraints
from the program instead of trusting the graph) -> simulate
(:func:`schedcc.sim.simulate_in_order`) -> :class:`BlockResult`. The CLI and
the report writers consume these objects; library users call
:func:`schedule_program` and read the same ones.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> res = schedule_program(parse(open("examples/lecture.ir").read()), load_target("mips4"))
    >>> [(r.makespan, r.original_makespan, r.verified) for r in res.blocks]
    [(9, 11, True)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schedcc.dag import build_dag
from schedcc.ir import Block, Function, Program
from schedcc.frontends.select import Selection
from schedcc.problem import SchedGraph
from schedcc.sched import Bound, Schedule
from schedcc.sched.cpsat import Limits
from schedcc.sched.solve import ListStrategy, Strategy, solve
from schedcc.sim import InOrderResult, simulate_in_order, simulate_order
from schedcc.target import Target, check_opcodes, load_target
from schedcc.verifier import verify
from schedcc.verifier.problem import own_schedule


@dataclass(repr=False)
class BlockResult:
    function: Function
    block: Block
    dag: SchedGraph
    schedule: Schedule
    original: InOrderResult
    bound: Bound
    verified: bool

    @property
    def makespan(self) -> int:
        return self.schedule.makespan

    @property
    def exact(self):
        """The exact solver's :class:`~schedcc.sched.exact.ExactInfo` (None without ``exact``)."""
        return self.schedule.exact

    @property
    def original_makespan(self) -> int:
        return self.original.makespan

    @property
    def saved(self) -> int:
        return self.original_makespan - self.makespan

    def __repr__(self) -> str:
        return (f"<BlockResult {self.function.name}/{self.block.label}: {len(self.block.instrs)} instrs, "
                f"{self.makespan} cycles (original {self.original_makespan}, bound {self.bound.value})"
                f"{'' if self.verified else ', not verified'}>")

    def scheduled_block(self) -> Block:
        return replace(self.block, instrs=tuple(self.block.instrs[i] for i in self.schedule.order))


@dataclass(repr=False)
class ProgramResult:
    program: Program
    target: Target
    blocks: list[BlockResult]

    def __repr__(self) -> str:
        n = len(self.blocks)
        return (f"<ProgramResult on {self.target.name}: {n} block{'' if n == 1 else 's'}, "
                f"{sum(r.makespan for r in self.blocks)} cycles (original "
                f"{sum(r.original_makespan for r in self.blocks)})>")

    def scheduled_program(self) -> Program:
        """The program with every block in its scheduled order."""
        new_blocks = {(r.function.name, r.block.label): r.scheduled_block() for r in self.blocks}
        funcs = tuple(replace(f, blocks=tuple(new_blocks.get((f.name, b.label), b) for b in f.blocks))
                      for f in self.program.functions)
        return replace(self.program, functions=funcs)


def schedule_block(function: Function, block: Block, target: Target, priority: str = "critical-path",
                   explain: bool = False, check: bool | None = None,
                   strategy: Strategy | None = None, exact: Limits | None = None,
                   repair: bool = True) -> BlockResult:
    """Schedule one block (see the module docstring); *strategy* defaults to list scheduling,
    or with *exact* (the solver's limits) to :class:`~schedcc.sched.exact.ExactStrategy`
    started from the list schedule (with ``explain``, also the decisions that cost cycles).
    *repair*: the list scheduler's repair rounds (:mod:`schedcc.sched.list_scheduler`)."""
    dag = build_dag(block, target)
    do_check = check if check is not None else True
    if strategy is None and exact is not None:
        from schedcc.sched.exact import ExactStrategy
        strategy = ExactStrategy(exact, ListStrategy(priority, explain, repair=repair))
    # The program-level verifier below is strictly stronger than the graph check.
    solved = solve(dag, strategy or ListStrategy(priority, explain, repair=repair), verify=False)
    schedule = solved.schedule
    if schedule.exact is not None:
        schedule = _exact_extras(dag, target, schedule, explain)
    if do_check:
        with own_schedule():  # schedcc's schedule: a violation is a bug in schedcc
            verify(block, target, schedule.cycle, schedule.unit)
    listed = schedule.exact.heuristic if schedule.exact is not None else schedule
    original = getattr(listed, "original", None)  # the list scheduler compared with it already
    if original is None or original.graph is not dag:
        original = simulate_in_order(block, target, dag)
    return BlockResult(function, block, dag, schedule, original, solved.bound, do_check)


def _exact_extras(dag: SchedGraph, target: Target, schedule: Schedule, explain: bool) -> Schedule:
    """On an in-order target, the exact order as the in-order pipeline issues it
    (:func:`schedcc.sim.simulate_order`: every gap is a real stall, and the makespan is
    what the pipeline takes, never more than the solver's); with *explain*, the list
    scheduler's decisions that cost cycles."""
    info = schedule.exact
    if target.in_order:
        timed = simulate_order(dag, schedule.order)
        if timed.makespan <= schedule.makespan:
            info.makespan = timed.makespan
            if not info.optimal and info.makespan <= info.lower_bound:  # the bound proves it now
                info.status, info.lower_bound, info.proof, info.stopped = "optimal", info.makespan, "cp-sat", ""
            schedule = replace(schedule, cycle=dict(timed.cycle), unit=dict(timed.unit), order=timed.order)
    if explain and info.heuristic_makespan > info.makespan and info.optimal:
        from schedcc.sched.exact_explain import costly_decisions
        info.decisions = costly_decisions(dag, info.heuristic, info.makespan, info.limits)
    return schedule


def schedule_program(program: Program, target: Target | str, priority: str = "critical-path",
                     explain: bool = False, check: bool | None = None,
                     strategy: Strategy | None = None, exact: Limits | None = None,
                     repair: bool = True, select: Selection | None = None) -> ProgramResult:
    """Schedule every block of *program* on *target* and verify each schedule.

    With *exact* (:class:`~schedcc.sched.cpsat.Limits`) every block is also solved
    exactly (``BlockResult.exact``). With *select* (:func:`schedcc.frontends.select.select`: ``--function``,
    ``--block``) only the blocks chosen are scheduled; ``scheduled_program`` keeps the others
    as they are. Raises :class:`~schedcc.errors.SchedccError` for
    an opcode the target does not know, :class:`~schedcc.verifier.VerificationError` if a schedule is wrong
    (a bug in schedcc, never in the input).
    """
    target = load_target(target)  # a library entry point: a model's name works too
    check_opcodes(program, target)
    results = [schedule_block(f, b, target, priority, explain, check, strategy, exact, repair)
               for f, b in program.blocks() if select is None or select.wants(f.name, b.label)]
    return ProgramResult(program, target, results)

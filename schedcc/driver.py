"""The whole job for one program: per block, build the DAG, list-schedule it,
simulate the original order, bound it and verify the result.

The CLI and the report writers consume :class:`BlockResult`; library users
can call :func:`schedule_program` and read the same objects.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx

from .dag import build_dag
from .ir import Block, Function, Program
from .sched import Bound, Schedule, list_schedule, lower_bound, verify
from .sim import InOrderResult, simulate_in_order
from .target import Target, check_opcodes, load_target

@dataclass
class BlockResult:
    function: Function
    block: Block
    dag: nx.DiGraph
    schedule: Schedule
    original: InOrderResult
    bound: Bound
    verified: bool

    @property
    def makespan(self) -> int:
        return self.schedule.makespan

    @property
    def original_makespan(self) -> int:
        return self.original.makespan

    @property
    def saved(self) -> int:
        return self.original_makespan - self.makespan

    def scheduled_block(self) -> Block:
        return replace(self.block, instrs=tuple(self.block.instrs[i] for i in self.schedule.order))


@dataclass
class ProgramResult:
    program: Program
    target: Target
    blocks: list[BlockResult]

    def scheduled_program(self) -> Program:
        """The program with every block in its scheduled order."""
        new_blocks = {(r.function.name, r.block.label): r.scheduled_block() for r in self.blocks}
        funcs = tuple(replace(f, blocks=tuple(new_blocks.get((f.name, b.label), b) for b in f.blocks))
                      for f in self.program.functions)
        return replace(self.program, functions=funcs)


def schedule_block(function: Function, block: Block, target: Target, priority: str = "critical-path",
                   explain: bool = False, check: bool | None = None) -> BlockResult:
    dag = build_dag(block, target)
    schedule = list_schedule(dag, target, priority=priority, explain=explain)
    original = simulate_in_order(block, target, dag)
    bound = lower_bound(dag, target)
    do_check = check if check is not None else True
    if do_check:
        verify(block, target, schedule.cycle, schedule.unit)
    return BlockResult(function, block, dag, schedule, original, bound, do_check)


def schedule_program(program: Program, target: Target | str, priority: str = "critical-path",
                     explain: bool = False, check: bool | None = None) -> ProgramResult:
    """List-schedule every block of *program* on *target* and verify each schedule.

    Raises :class:`~schedcc.errors.SchedccError` for an opcode the target does
    not know, :class:`~schedcc.sched.VerificationError` if a schedule is wrong
    (a bug in schedcc, never in the input).
    """
    tgt = load_target(target)
    check_opcodes(program, tgt)
    results = [schedule_block(f, b, tgt, priority, explain, check) for f, b in program.blocks()]
    return ProgramResult(program, tgt, results)

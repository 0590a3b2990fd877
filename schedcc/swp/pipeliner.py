"""Software pipelining of a whole program: find the loops, modulo-schedule them,
check the schedules, generate the pipelined code.

:func:`pipeline_program` is what ``schedcc FILE --pipeline`` runs; it returns
one :class:`LoopResult` per loop (pipelined or not, with the reason) and the
transformed program, which parses again as IR.

Example::

    >>> from schedcc import parse
    >>> prog = parse(open("examples/loops/lecture_cj.ir").read())
    >>> res = pipeline_program(prog, "la464")
    >>> [(r.name, r.schedule.ii, r.schedule.stages) for r in res.loops]
    [('lecture/loop', 2, 6)]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schedcc.dag import build_dag
from schedcc.errors import SchedccError
from schedcc.ir import Block, Program
from schedcc.swp.loops import Loop, NotPipelined, find_loops, loop_dag
from schedcc.problem import SchedGraph
from schedcc.sched import list_schedule
from schedcc.sched.cpsat import Limits
from schedcc.sched.solve import ModuloStrategy, solve
from schedcc.sched.lifetimes import RegisterPressure, register_pressure
from schedcc.sched.modulo import AcceptFunction, ModuloSchedule, modulo_schedule
from schedcc.swp.codegen import generate
from schedcc.target import Target, check_opcodes, load_target


@dataclass
class LoopResult:
    """One loop: its dependence graph, modulo schedule, register pressure and new code,
    or (``schedule is None``) the reason it was left alone."""

    loop: Loop | NotPipelined
    dag: SchedGraph | None = None
    schedule: ModuloSchedule | None = None
    pressure: RegisterPressure | None = None
    cycles_before: int = 0          # one iteration list-scheduled, without overlap
    blocks: list[Block] | None = None
    reason: str | None = None

    @property
    def name(self) -> str:
        return self.loop.name

    @property
    def pipelined(self) -> bool:
        return self.schedule is not None


@dataclass
class PipelineResult:
    program: Program
    target: Target
    loops: list[LoopResult]
    transformed: Program


def pipeline_loop(loop: Loop | NotPipelined, target: Target, algorithm: str = "ims",
                  accept: AcceptFunction | None = None, exact: Limits | None = None,
                  before: int | None = None) -> LoopResult:
    """Modulo-schedule one loop, verify the schedule and generate its code; with *exact*
    (the solver's limits) the II is the proven minimum and the registers the fewest
    (:class:`~schedcc.sched.exact_modulo.ExactModuloStrategy`, from *algorithm*'s schedule).
    *before*: the body's list-schedule makespan (default priority, with repair) when the
    caller has it already."""
    if before is None:
        before = list_schedule(build_dag(loop.block, target), target).makespan
    if isinstance(loop, NotPipelined):
        return LoopResult(loop, cycles_before=before, reason=loop.reason)
    dag = loop_dag(loop, target)
    options = (("accept", accept),) if accept is not None else ()
    strategy = ModuloStrategy(algorithm, options)
    if exact is not None:
        if accept is not None:
            raise SchedccError("the exact modulo scheduler takes no accept() callback")
        from schedcc.sched.exact_modulo import ExactModuloStrategy
        strategy = ExactModuloStrategy(exact, strategy, frozenset(loop.address_only_uses()))
    try:
        sched = solve(dag, strategy, bound=False).schedule
    except SchedccError as err:
        return LoopResult(loop, dag, cycles_before=before, reason=err.message)
    pressure = register_pressure(dag, sched.ii, sched.cycle, frozenset(loop.address_only_uses()))
    blocks = generate(loop, sched, pressure)
    return LoopResult(loop, dag, sched, pressure, before, blocks)


def pipeline_program(program: Program, target: Target | str, algorithm: str = "ims",
                     accept: AcceptFunction | None = None, exact: Limits | None = None,
                     before: dict[tuple[str, str], int] | None = None) -> PipelineResult:
    """Pipeline every loop of *program* that can be; see the module docstring (and
    :func:`pipeline_loop` for *exact* and *before*, here per (function, block label))."""
    tgt = load_target(target)  # a public entry point: a model's name works too
    check_opcodes(program, tgt)
    results: list[LoopResult] = []
    functions = []
    for func in program.functions:
        new_blocks: dict[str, list[Block]] = {}
        for loop in find_loops(func):
            res = pipeline_loop(loop, tgt, algorithm, accept, exact, (before or {}).get((func.name, loop.block.label)))
            results.append(res)
            if res.blocks is not None:
                new_blocks[loop.block.label] = res.blocks
        blocks = []
        for b in func.blocks:
            blocks.extend(new_blocks.get(b.label, [b]))
        functions.append(replace(func, blocks=tuple(blocks)))
    return PipelineResult(program, tgt, results, replace(program, functions=tuple(functions)))

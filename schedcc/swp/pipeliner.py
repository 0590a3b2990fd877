"""Software pipelining of a whole program: find the loops, modulo-schedule them,
check the schedules, generate the pipelined code.

:func:`pipeline_source` is what ``schedcc FILE --pipeline`` runs, for a program
in any of the three languages: schedcc IR (:func:`pipeline_program`), LLVM IR
(:mod:`schedcc.swp.llvm_loops`, :mod:`schedcc.swp.llvm_codegen`) and LoongArch
assembly (:mod:`schedcc.swp.asm_loops`, :mod:`schedcc.swp.asm_codegen`). It
returns one :class:`LoopResult` per loop (pipelined or not, with the reason)
and the transformed program as text in the input's language (``text``); for
schedcc IR also as a :class:`~schedcc.ir.Program` (``transformed``).

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
from schedcc.frontends.source import Source
from schedcc.ir import Block, Program, print_program
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
    code: list[tuple[str, list[str]]] | None = None   # the new code in the input's language: (label, lines)
    registers_text: str = ""        # how the code generator kept values apart (when not the IR's expansion)

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
    transformed: Program | None
    text: str = ""                  # the pipelined program in the input's language
    lang: str = "ir"


def schedule_loop(loop: Loop | NotPipelined, target: Target, algorithm: str = "ims",
                  accept: AcceptFunction | None = None, fresh: bool = True, max_ii: int | None = None,
                  exact: Limits | None = None, before: int | None = None) -> LoopResult:
    """Modulo-schedule one loop and verify the schedule (no code yet). *fresh*: an
    induction variable read only in addresses may use its freshest copy (the IR's and
    the assembly's code generators correct the address; LLVM IR's keeps every value).
    *accept* may reject a schedule (its code would need too many registers): the II
    then grows, up to *max_ii*. With *exact* (the solver's limits) the II is the proven
    minimum and the registers the fewest (:class:`~schedcc.sched.exact_modulo.ExactModuloStrategy`,
    from *algorithm*'s schedule). *before*: the body's list-schedule makespan (default
    priority, with repair) when the caller has it already."""
    if before is None:
        before = list_schedule(build_dag(loop.block, target), target).makespan
    if isinstance(loop, NotPipelined):
        return LoopResult(loop, cycles_before=before, reason=loop.reason)
    dag = loop_dag(loop, target)
    options = (("accept", accept),) if accept is not None else ()
    if max_ii is not None:
        options += (("max_ii", max_ii),)
    strategy = ModuloStrategy(algorithm, options)
    if exact is not None:
        if accept is not None:
            raise SchedccError("the exact modulo scheduler takes no accept() callback")
        from schedcc.sched.exact_modulo import ExactModuloStrategy
        strategy = ExactModuloStrategy(exact, strategy, frozenset(loop.address_only_uses()) if fresh
                                       else frozenset())
    try:
        sched = solve(dag, strategy, bound=False).schedule
    except SchedccError as err:
        last = err.notes[-1] if err.notes and "rejected: " in err.notes[-1] else ""
        reason = f"{err.message} ({last})" if last else err.message
        return LoopResult(loop, dag, cycles_before=before, reason=reason)
    pressure = register_pressure(dag, sched.ii, sched.cycle, frozenset(loop.address_only_uses()) if fresh
                                 else frozenset())
    return LoopResult(loop, dag, sched, pressure, before)


def pipeline_loop(loop: Loop | NotPipelined, target: Target, algorithm: str = "ims",
                  accept: AcceptFunction | None = None, exact: Limits | None = None,
                  before: int | None = None) -> LoopResult:
    """Modulo-schedule one loop of schedcc IR, verify the schedule and generate its code
    (see :func:`schedule_loop` for *exact* and *before*)."""
    res = schedule_loop(loop, target, algorithm, accept, exact=exact, before=before)
    if res.pipelined:
        res.blocks = generate(res.loop, res.schedule, res.pressure)
        res.code = [(b.label, [f"{b.label}:"] + ["  " + str(i) for i in b.instrs]) for b in res.blocks]
    return res


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
    transformed = replace(program, functions=tuple(functions))
    return PipelineResult(program, tgt, results, transformed, print_program(transformed))


def pipeline_source(source: Source, target: Target | str, algorithm: str = "ims",
                    accept: AcceptFunction | None = None, exact: Limits | None = None,
                    before: dict[tuple[str, str], int] | None = None) -> PipelineResult:
    """Pipeline every loop of a parsed program in its own language (``source.lang``):
    ``text`` of the result is the pipelined program as schedcc IR, LLVM IR or assembly.
    *exact* and *before* as for :func:`pipeline_program`."""
    tgt = load_target(target)
    if source.lang == "ll":
        from schedcc.swp.llvm_pipeline import pipeline_llvm
        return pipeline_llvm(source, tgt, algorithm, accept, exact=exact)
    if source.lang == "asm":
        if source.extra.get("isa") == "riscv64":
            raise SchedccError("--pipeline reads LoongArch assembly, not yet RISC-V assembly: its loops are "
                               "list-scheduled block by block without --pipeline",
                               notes=["pipeline the LLVM IR instead, for any target with a model: clang-16 "
                                      "--target=riscv64-linux-gnu -march=rv64gc -O2 -S -emit-llvm prog.c -o prog.ll; "
                                      "schedcc prog.ll --target u74 --pipeline -o prog.swp.ll"])
        if exact is not None:
            raise SchedccError("--pipeline --exact takes schedcc IR or LLVM IR: in assembly the pipeliner "
                               "raises II until the values fit the free registers, which the exact modulo "
                               "scheduler does not model",
                               notes=["drop --exact for the heuristic's pipelined assembly, or pipeline the "
                                      "compiler's LLVM IR (clang -S -emit-llvm) with --exact"])
        from schedcc.swp.asm_pipeline import pipeline_asm
        return pipeline_asm(source, tgt, algorithm, accept)
    return pipeline_program(source.program, tgt, algorithm, accept, exact, before)

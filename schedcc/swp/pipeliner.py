"""Software pipelining: modulo-schedule a loop and check the schedule
(:func:`schedule_loop`, for a loop of any language), and the whole job for a
program of schedcc IR (:func:`pipeline_program`): find the loops, schedule
them, generate the pipelined code.

The results are the same for every language: one :class:`LoopResult` per loop
(pipelined or not, with the reason) in a :class:`PipelineResult` with the
transformed program as text in the input's language (``text``); for schedcc
IR also as a :class:`~schedcc.ir.Program` (``transformed``). LLVM IR
(:mod:`schedcc.swp.llvm_pipeline`) and LoongArch assembly
(:mod:`schedcc.swp.asm_pipeline`) have their own job; the driver picks the one
for a source's language (:func:`schedcc.driver.loops.pipeline_source`).

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
from schedcc.errors import SchedccError, plural
from schedcc.ir import Block, Program, print_program
from schedcc.frontends.select import Selection
from schedcc.swp.dependences import loop_dag
from schedcc.swp.loops import find_loops
from schedcc.swp.rotate import rotate_loops
from schedcc.swp.view import LoopView, NotPipelined, instr_text, short
from schedcc.problem import SchedGraph
from schedcc.sched import list_schedule
from schedcc.sched.cpsat import Limits
from schedcc.sched.solve import ModuloStrategy, solve
from schedcc.sched.lifetimes import RegisterPressure, register_pressure
from schedcc.sched.mii import MII, mii
from schedcc.sched.modulo import AcceptFunction, ModuloSchedule, modulo_schedule
from schedcc.swp.codegen import generate
from schedcc.target import Target, check_opcodes, load_target


@dataclass(repr=False)
class LoopResult:
    """One loop: its dependence graph, modulo schedule, register pressure and new code,
    or (``schedule is None``) the reason it was left alone."""

    loop: LoopView | NotPipelined
    dag: SchedGraph | None = None
    schedule: ModuloSchedule | None = None
    pressure: RegisterPressure | None = None
    cycles_before: int = 0          # one iteration list-scheduled, without overlap
    blocks: list[Block] | None = None
    reason: str | None = None
    kind: str = ""                  # the reason's kind (NotPipelined.kind; "registers", "schedule", "code")
    code: list[tuple[str, list[str]]] | None = None   # the new code in the input's language: (label, lines)
    registers_text: str = ""        # how the code generator kept values apart (when not the IR's expansion)
    mii: MII | None = None          # the bounds, also for a loop the modulo scheduler left alone
    rotated: bool = False           # a loop tested at its top, rotated (swp/rotate.py) to be pipelined
    if_converted: bool = False      # a body of several blocks made one predicated block (swp/asm_ifconv.py)

    @property
    def name(self) -> str:
        return self.loop.name

    @property
    def pipelined(self) -> bool:
        return self.schedule is not None

    def __repr__(self) -> str:
        if self.schedule is None:
            return f"<LoopResult {self.name}: not pipelined ({self.kind or 'other'}): {short(self.reason or '')}>"
        s = self.schedule
        return (f"<LoopResult {self.name}: II {s.ii} (MII {s.mii.value}), {s.stages} stages, "
                f"{self.cycles_before} cycles per iteration before>")


@dataclass(repr=False)
class PipelineResult:
    program: Program
    target: Target
    loops: list[LoopResult]
    transformed: Program | None
    text: str = ""                  # the pipelined program in the input's language
    lang: str = "ir"

    def __repr__(self) -> str:
        done = sum(r.pipelined for r in self.loops)
        return (f"<PipelineResult {self.lang} on {self.target.name}: {done} of {len(self.loops)} "
                f"loop{'' if len(self.loops) == 1 else 's'} pipelined>")


def schedule_loop(loop: LoopView | NotPipelined, target: Target, algorithm: str = "ims",
                  accept: AcceptFunction | None = None, fresh: bool = True, max_ii: int | None = None,
                  exact: Limits | None = None, before: int | None = None) -> LoopResult:
    """Modulo-schedule one loop and verify the schedule (no code yet). *fresh*: an
    induction variable read only in addresses may use its freshest copy (the IR's and
    the assembly's code generators correct the address; LLVM IR's keeps every value).
    *accept* may reject a schedule (its code would need too many registers): the II
    then grows, up to *max_ii*. With *exact* (the solver's limits) the II is the proven
    minimum and the registers the fewest (:class:`~schedcc.sched.exact_modulo.ExactModuloStrategy`,
    from *algorithm*'s schedule); without it, when the heuristic's II is above the MII and no
    schedule was rejected, CP-SAT tries the IIs below on a small budget
    (:func:`~schedcc.sched.exact_below.exact_below`). *before*: the body's list-schedule makespan (default
    priority, with repair) when the caller has it already."""
    if before is None:
        before = list_schedule(build_dag(loop.block, target), target).makespan
    if isinstance(loop, NotPipelined):
        return LoopResult(loop, cycles_before=before, reason=loop.reason, kind=loop.kind)
    dag = loop_dag(loop, target)
    # No gain, no change: an II not below one list-scheduled iteration is not worth a
    # guard, a prologue and an epilogue.
    limit = before - 1 if max_ii is None else min(max_ii, before - 1)
    options = (("accept", accept),) if accept is not None else ()
    options += (("max_ii", max(limit, 1)),)
    strategy = ModuloStrategy(algorithm, options)
    if exact is not None:
        if accept is not None:
            raise SchedccError("the exact modulo scheduler takes no accept() callback")
        from schedcc.sched.exact_modulo import ExactModuloStrategy
        strategy = ExactModuloStrategy(exact, strategy, frozenset(loop.address_only_uses()) if fresh
                                       else frozenset())
    try:
        sched = solve(dag, strategy, bound=False).schedule if limit >= 1 else None
    except SchedccError as err:
        if err.internal:  # schedcc's schedule failed its verifier: a bug, never a refusal
            raise
        sched, notes = None, err.notes
    else:
        notes = []
    rejected = any("rejected" in n for n in notes) or sched is not None and any(
        "rejected" in a.outcome for a in sched.attempts)
    if exact is None and limit >= 1 and (sched is None or sched.ii > sched.mii.value) and not rejected:
        # The heuristic missed the MII for no register's sake: CP-SAT, on a small budget, below it.
        from schedcc.sched.exact_below import exact_below
        sched = exact_below(dag, sched, top=limit, accept=accept) or sched
    if sched is None or sched.ii > limit:
        bounds = sched.mii if sched is not None else mii(dag)
        return LoopResult(loop, dag, cycles_before=before, mii=bounds,
                          **_refusal(dag, bounds, before, limit, notes))
    pressure = register_pressure(dag, sched.ii, sched.cycle, frozenset(loop.address_only_uses()) if fresh
                                 else frozenset())
    return LoopResult(loop, dag, sched, pressure, before, mii=sched.mii)


def bounds_text(dag: SchedGraph, bounds: MII) -> str:
    """``MII 5 (ResMII 2, RecMII 5: #4 ... -> #4 ...: latency 5 over 1 iteration)``."""
    rec = bounds.rec
    text = f"MII {bounds.value} (ResMII {bounds.res.value}, RecMII {rec.value}"
    if rec.cycle:
        steps = " -> ".join(f"#{n} {instr_text(dag.ops[n].payload)}" for n in rec.cycle + rec.cycle[:1])
        text += f": {steps}: latency {rec.latency} over {plural(rec.distance, 'iteration')}"
    if bounds.joint is not None:
        text += f"; at II {rec.value} that recurrence has no slack and {bounds.joint.reason}"
    return text + ")"


def _refusal(dag: SchedGraph, bounds: MII, before: int, limit: int, notes: list[str]) -> dict:
    """The reason and kind of a loop the modulo scheduler leaves as it was."""
    rejected = next((n.split("rejected: ", 1)[1] for n in reversed(notes) if "rejected: " in n), "")
    if bounds.value > limit and bounds.value >= before:
        return {"reason": f"no gain: one iteration takes {plural(before, 'cycle')} list-scheduled and the II "
                          f"cannot go below the {bounds_text(dag, bounds)}: left as it was", "kind": "no-gain"}
    reason = (f"no modulo schedule found below II {before}, the cycles one iteration takes list-scheduled; "
              f"{bounds_text(dag, bounds)}")
    if rejected:
        return {"reason": f"{reason} (II {limit}: rejected: {rejected})",
                "kind": "registers" if rejected.startswith("needs") else "code"}
    return {"reason": f"{reason}: left as it was", "kind": "schedule"}


def pipeline_loop(loop: LoopView | NotPipelined, target: Target, algorithm: str = "ims",
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
                     before: dict[tuple[str, str], int] | None = None,
                     select: Selection | None = None) -> PipelineResult:
    """Pipeline every loop of *program* that can be; see the module docstring (and
    :func:`pipeline_loop` for *exact* and *before*, here per (function, block label))."""
    tgt = load_target(target)  # a public entry point: a model's name works too
    check_opcodes(program, tgt)
    results: list[LoopResult] = []
    functions = []
    for func in program.functions:
        new_blocks: dict[str, list[Block]] = {}
        rotated_func, rotated = rotate_loops(func)
        for loop in find_loops(rotated_func):
            if select is not None and not (select.wants_loop(func, loop.block.label)
                                           or select.wants_loop(rotated_func, loop.block.label)):
                continue
            res = pipeline_loop(loop, tgt, algorithm, accept, exact, (before or {}).get((func.name, loop.block.label)))
            label = loop.block.label
            if label in rotated:
                if res.blocks is None:      # a rotation is kept only when the rotated loop is pipelined
                    head, body = rotated[label]
                    why = (f"the loop tests at its top ('{head.label}'); rotated to test at its end in "
                           f"'{body.label}', it is still not pipelined: {res.reason}")
                    res = replace(res, loop=NotPipelined(func, head, why, res.kind), reason=why)
                else:
                    res.rotated = True
            results.append(res)
            if res.blocks is not None:
                new_blocks[label] = res.blocks
        blocks = []
        for b in func.blocks:
            blocks.extend(new_blocks.get(b.label, [b]))
        functions.append(replace(func, blocks=tuple(blocks)))
    transformed = replace(program, functions=tuple(functions))
    return PipelineResult(program, tgt, results, transformed, print_program(transformed))

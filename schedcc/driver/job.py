"""One entry for every domain: a parsed program and a loaded machine model in, checked results out.

:func:`run_job` picks the domain from the target (:attr:`Target.domain`) and
runs its job; each builds :class:`~schedcc.problem.SchedGraph` problems and
solves them with :func:`schedcc.sched.solve.solve`:

========  ==============================================  ===========================================
domain    job                                             result
========  ==============================================  ===========================================
cpu       :func:`schedcc.driver.blocks.schedule_program`  :class:`~schedcc.driver.blocks.ProgramResult`
          (and :func:`schedcc.driver.loops.pipeline_    (and :class:`~schedcc.swp.pipeliner.
          source` with ``pipeline``)                      PipelineResult`)
ascend    :func:`schedcc.ascend.job.run_kernels`          :class:`~schedcc.ascend.job.AscendResult`
cluster   :func:`schedcc.training.api.schedule`           :class:`~schedcc.training.result.StepResult`
========  ==============================================  ===========================================

The target is loaded once, by the caller, and passed down as a
:class:`~schedcc.target.Target`. Presentation (tables, JSON, pictures, code)
is left to :mod:`schedcc.emit`, :mod:`schedcc.viz` and :mod:`schedcc.report`.

Example::

    >>> from schedcc.frontends import parse_source
    >>> from schedcc.target import load_target
    >>> job = Job(parse_source(open("examples/lecture.ir").read(), "lecture.ir"), load_target("mips4"))
    >>> res = run_job(job)
    >>> res.domain, res.blocks.blocks[0].makespan
    ('cpu', 9)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from schedcc.frontends.source import Source
from schedcc.target import Target, check_opcodes


@dataclass(frozen=True)
class Options:
    """How to schedule; each domain reads the options that concern it."""

    priority: str = "critical-path"   # list-scheduling priority (cpu, ascend)
    explain: bool = False             # record the list scheduler's steps (cpu)
    verify: bool = True               # run the independent verifiers
    pipeline: bool = False            # software-pipeline loops (cpu) / tile loops (ascend)
    modulo: str = "ims"               # the modulo scheduler
    tiles: int = 1                    # ascend: unroll tile loops for this many tiles
    buffers: int | None = None        # ascend: buffer copies per tile (a tile loop kept a loop)
    policy: str = "priority"          # cluster: the overlap policy
    iterations: int = 3               # cluster: steps simulated
    groups: tuple[tuple[str, int], ...] = ()          # cluster: group sizes
    policy_options: tuple[tuple[str, Any], ...] = ()  # cluster: bucket_mb, partition_mb, credit_mb
    exact: bool = False               # every domain: CP-SAT's optimum (or best and bound) next to the heuristic
    time_limit: float = 10.0          # exact: the solver's limit per problem, seconds (docs/exact.md)
    workers: int = 1                  # exact: solver threads (any count stays deterministic)
    repair: bool = True               # the list scheduler's repair rounds (cpu)
    functions: tuple[str, ...] = ()   # cpu: only these functions (--function; empty: all)
    blocks: tuple[str, ...] = ()      # cpu: only these blocks, and the loops holding them (--block)

    def limits(self):
        """The exact solver's :class:`~schedcc.sched.cpsat.Limits` (raises on a bad time limit)."""
        from schedcc.sched.cpsat import Limits
        return Limits(self.time_limit, self.workers)


@dataclass(frozen=True)
class Job:
    """A program (parsed, with its text) on a machine model, and how to schedule it."""

    source: Source
    target: Target
    options: Options = field(default_factory=Options)

    @property
    def program(self):
        return self.source.program


@dataclass(repr=False)
class JobResult:
    """What :func:`run_job` returns: the domain and that domain's results."""

    job: Job
    domain: str
    blocks: Any = None      # cpu: ProgramResult
    loops: Any = None       # cpu with pipeline: PipelineResult
    ascend: Any = None      # ascend: AscendResult
    step: Any = None        # cluster: StepResult

    def __repr__(self) -> str:
        parts = [repr(x) for x in (self.blocks, self.loops, self.ascend, self.step) if x is not None]
        return f"<JobResult {self.domain}: {', '.join(parts)}>"

    def exact_results(self) -> list[tuple[str, Any]]:
        """With ``exact``: (name, :class:`~schedcc.sched.exact.ExactInfo`) of every block or
        kernel with instructions (a training step: the whole run)."""
        if self.blocks is not None:
            return [(f"{r.function.name}/{r.block.label}", r.exact) for r in self.blocks.blocks
                    if r.block.instrs and r.exact is not None]
        if self.ascend is not None:
            return [(f"{k.function.name}/{k.block.label}", k.exact) for k in self.ascend.kernels
                    if k.block.instrs and k.exact is not None]
        if self.step is not None and self.step.exact is not None:
            return [("step", self.step.exact)]
        return []


def run_job(job: Job) -> JobResult:
    """Run *job* in the domain of its target; see the module docstring."""
    return _RUNNERS[job.target.domain](job)


def _run_cpu(job: Job) -> JobResult:
    from schedcc.driver.blocks import schedule_program
    opts = job.options
    check_opcodes(job.program, job.target)
    limits = opts.limits() if opts.exact else None
    chosen = None
    if opts.functions or opts.blocks:
        from schedcc.frontends.select import select
        chosen = select(job.program, opts.functions, opts.blocks)
    blocks = schedule_program(job.program, job.target, priority=opts.priority, explain=opts.explain,
                              check=opts.verify, exact=limits, repair=opts.repair, select=chosen)
    loops = None
    if opts.pipeline:
        from schedcc.driver.loops import pipeline_source
        before = None  # the loop bodies' list schedules, when they are the ones the pipeliner compares with
        if opts.priority == "critical-path" and opts.repair and limits is None:
            before = {(r.function.name, r.block.label): r.schedule.makespan for r in blocks.blocks}
        loops = pipeline_source(job.source, job.target, algorithm=opts.modulo, exact=limits, before=before,
                                select=chosen)
    return JobResult(job, "cpu", blocks=blocks, loops=loops)


def _run_ascend(job: Job) -> JobResult:
    from schedcc.ascend.job import run_kernels
    opts = job.options
    result = run_kernels(job.program, job.target, priority=opts.priority, check=opts.verify, tiles=opts.tiles,
                         buffers=opts.buffers, pipeline=opts.pipeline, algorithm=opts.modulo,
                         exact=opts.limits() if opts.exact else None)
    return JobResult(job, "ascend", ascend=result)


def _run_step(job: Job) -> JobResult:
    from schedcc.training.api import schedule
    opts = job.options
    step = schedule(job.program, job.target, opts.policy, opts.iterations, groups=dict(opts.groups),
                    exact=opts.limits() if opts.exact else None, **dict(opts.policy_options))
    return JobResult(job, "cluster", step=step)


_RUNNERS = {"cpu": _run_cpu, "ascend": _run_ascend, "cluster": _run_step}

"""The functions a planner calls: nothing here writes a file.

Example::

    >>> from schedcc import training
    >>> prog = training.load_step("a = mm x {flops = 1e12}\\nr = allreduce a {bytes = 64MiB, group = dp}\\n")
    >>> training.schedule(prog, "h100-8x", policy="fifo", iterations=1).operators
    2
"""

from __future__ import annotations

from schedcc._perf import paused_gc
from schedcc.errors import SchedccError
from schedcc.frontends.ir_text import parse
from schedcc.ir import Program
from schedcc.target import Target, load_target
from schedcc.training.costs import apply_overrides
from schedcc.training.graph import TrainingGraph, build_training_graph
from schedcc.training.policies import POLICIES, make_plan
from schedcc.training.result import StepResult, summarize
from schedcc.training.simulate import run_plan


def load_step(text: str, filename: str = "<step>") -> Program:
    """Parse the IR of a training step."""
    return parse(text, filename)


def generate(model: str = "transformer", **options) -> Program:
    """The IR of one training step of a generated model (see :mod:`schedcc.training.generator`)."""
    from schedcc.training.generator import TransformerConfig, generate_program
    if model != "transformer":
        raise SchedccError(f"unknown model '{model}'", notes=["models: transformer"])
    with paused_gc():  # many small acyclic objects: the collector's scans would cost more than the work
        return generate_program(TransformerConfig(**options))


def _resolve(step: Program | TrainingGraph, target: Target | str) -> Target:
    """The cluster model: a graph's own when *target* names it, else loaded (once, here)."""
    if isinstance(step, TrainingGraph) and (target is step.target or target == step.target.name):
        return step.target
    return load_target(target)


def _graph(step: Program | TrainingGraph, target: Target, groups, overrides) -> TrainingGraph:
    if isinstance(step, TrainingGraph):
        if not overrides and not groups and target is step.target:
            return step
        if step.program is None:
            raise SchedccError("this graph has no program to rebuild it from; pass the Program instead")
        return build_training_graph(step.program, apply_overrides(target, overrides),
                                    {**step.groups, **(groups or {})})
    return build_training_graph(step, apply_overrides(target, overrides), groups)


def schedule(step: Program | TrainingGraph, target: Target | str, policy: str = "priority",
             iterations: int = 3, groups: dict[str, int] | None = None,
             overrides: dict[str, str] | None = None, exact=None, **options) -> StepResult:
    """Schedule a training step on a cluster model and measure it.

    *step* is a parsed program (:func:`load_step`, :func:`generate`) or a
    graph from :func:`schedcc.training.graph.build_training_graph` (build it
    once when scoring many policies). *policy* is one of ``fifo``, ``ddp``,
    ``priority``, ``critical-path``; *options* are ``bucket_mb``,
    ``partition_mb``, ``credit_mb``. ``iterations`` steps are simulated and
    the step before the last is measured (1: just one step). With *exact*
    (:class:`~schedcc.sched.cpsat.Limits`) CP-SAT improves the schedule within the
    limit and proves a bound (``StepResult.exact``).
    """
    if iterations < 1:
        raise SchedccError(f"iterations must be at least 1, got {iterations}")
    with paused_gc():
        tg = _graph(step, _resolve(step, target), groups, overrides)
        plan = make_plan(tg, policy, **options)
        result = summarize(run_plan(tg, plan, iterations, exact), policy, tg.target.name, len(tg))
        if plan.fallback is not None:
            try:
                other = summarize(run_plan(tg, plan.fallback, iterations, exact), policy, tg.target.name, len(tg))
            except SchedccError as err:  # the program order deadlocks: nothing to compare with
                if err.internal:  # a schedule that fails its verifier is a bug, not a deadlock
                    raise
                other = None
            if other is not None and other.step_time_us < result.step_time_us:
                other.note = (f"{policy}'s own schedule took {result.step_time_us / 1000:,.3f} ms; "
                              f"the program order ({plan.fallback.policy}) is faster and is kept")
                result = other
        return result


def compare(step: Program | TrainingGraph, target: Target | str, policies=tuple(POLICIES),
            iterations: int = 3, groups=None, overrides=None, **options) -> list[StepResult]:
    """:func:`schedule` under every policy in *policies* (the graph is built once)."""
    tg = _graph(step, _resolve(step, target), groups, overrides)
    return [schedule(tg, tg.target, p, iterations, **options) for p in policies]


def pipeline(schedule_name: str = "1f1b", stages: int = 4, microbatches: int = 8, **options):
    """Build and evaluate a pipeline-parallel schedule (see :mod:`schedcc.training.pipeline`)."""
    from schedcc.training.pipeline import evaluate_named
    return evaluate_named(schedule_name, stages, microbatches, **options)

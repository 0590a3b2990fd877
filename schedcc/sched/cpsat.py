"""What the exact strategies share: CP-SAT's solver settings, limits and answers.

OR-Tools is imported here, and only when an exact strategy runs (importing it
costs about 0.4 s, which a list-scheduling run should not pay).

Determinism. CP-SAT's default parallel portfolio (``num_workers > 1``) races
its workers: two runs on the same model can return two different optimal
schedules (measured: 2 distinct schedules in 4 runs of a 64-instruction
block). schedcc therefore runs

* one worker by default (a single search is deterministic for a fixed
  ``random_seed``), or, with ``workers > 1``, CP-SAT's *interleaved* search,
  which is deterministic whatever the worker count;
* the time limit in CP-SAT's **deterministic time** (work units), so that a
  search stopped by it stops at the same point on every run, however loaded
  the machine is: :data:`UNITS_PER_SECOND` units per second asked, the rate
  CP-SAT counts them at on blocks and loops (measured 0.42-0.63 units per CPU
  second), so that a solve takes about the seconds asked. Two safeties keep
  a run from taking much longer, neither of them the clock a loaded machine
  stretches: the process's **CPU time** (:data:`CPU_FACTOR` times the limit
  and the workers, plus half a second; a watcher thread stops the search),
  and a wall-clock backstop :data:`WALL_FACTOR` times the limit plus ten
  seconds. Blocks and loops reach the deterministic limit first, so the
  answer, bounds included, is the same on every run (measured: the MaxLive
  bound of a loop differed between runs under load while the clock was the
  stop). Large models (training steps: CP-SAT's presolve counts almost no
  units) reach the CPU-time safety first; then a run may differ from the
  next, and the answer says which limit stopped the search (``stopped``:
  ``time limit``, ``CPU-time limit`` or ``wall-clock limit``).

Example::

    >>> limits = Limits(time_limit=2.5)
    >>> p = solver_parameters(limits)
    >>> p["num_workers"], p["random_seed"], p["max_deterministic_time"], p["max_time_in_seconds"]
    (1, 0, 1.0, 35.0)
    >>> cpu_budget(limits)
    4.25
    >>> gap_percent(110, 100), gap_percent(100, 100), gap_percent(5, 0)
    (10.0, 0.0, 0.0)
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from schedcc.errors import SchedccError, check_range

DEFAULT_TIME_LIMIT = 10.0


MAX_TIME_LIMIT = 86_400
TIME_LIMIT_WHY = "seconds; a day at most"
MAX_WORKERS = 256
WORKERS_WHY = "CP-SAT's search threads; more is refused by the solver or starves the machine"


@dataclass(frozen=True)
class Limits:
    """How long and how the solver may search: *time_limit* in deterministic seconds
    (see the module docstring), *workers* search threads, *seed* CP-SAT's random seed."""

    time_limit: float = DEFAULT_TIME_LIMIT
    workers: int = 1
    seed: int = 0

    def __post_init__(self) -> None:
        check_range(self.time_limit, 0, MAX_TIME_LIMIT, "the time limit", above=True, why=TIME_LIMIT_WHY)
        check_range(self.workers, 1, MAX_WORKERS, "the solver's workers", integer=True, why=WORKERS_WHY)
        check_range(self.seed, 0, 2**31 - 1, "the solver's seed", integer=True, why="CP-SAT's seed is a 32-bit int")

    def share(self, fraction: float) -> "Limits":
        """The same settings with *fraction* of the time (at least 0.05 s)."""
        return Limits(max(self.time_limit * fraction, 0.05), self.workers, self.seed)


UNITS_PER_SECOND = 0.4  # deterministic units per second of the time limit (the slowest loop measured: 0.42)
CPU_FACTOR = 1.5    # the CPU-time safety: times the limit and the workers, plus CPU_SLACK seconds
CPU_SLACK = 0.5
WALL_FACTOR = 10.0  # the wall-clock backstop: times the limit, plus WALL_SLACK seconds
WALL_SLACK = 10.0


def deterministic_limit(limits: Limits) -> float:
    """CP-SAT's ``max_deterministic_time`` for *limits* (the module docstring)."""
    return UNITS_PER_SECOND * float(limits.time_limit)


def cpu_budget(limits: Limits) -> float:
    """The process CPU seconds after which a search is stopped (the module docstring)."""
    return CPU_FACTOR * float(limits.time_limit) * limits.workers + CPU_SLACK


def solver_parameters(limits: Limits) -> dict[str, Any]:
    """The CP-SAT parameters schedcc sets (everything else is CP-SAT's default)."""
    params: dict[str, Any] = {
        "num_workers": limits.workers,
        "random_seed": limits.seed,
        "max_deterministic_time": deterministic_limit(limits),
        "max_time_in_seconds": WALL_FACTOR * float(limits.time_limit) + WALL_SLACK,
    }
    if limits.workers > 1:
        params["interleave_search"] = True  # CP-SAT's deterministic multi-threaded search
    return params


def cp_model():
    """The ``ortools.sat.python.cp_model`` module (imported on first use)."""
    try:
        from ortools.sat.python import cp_model as module
    except ImportError as err:  # pragma: no cover - ortools is a dependency
        raise SchedccError("--exact needs OR-Tools (pip install ortools)", notes=[str(err)]) from None
    return module


@dataclass
class Outcome:
    """What one CP-SAT run found: ``status`` is ``optimal``, ``feasible``, ``infeasible`` or
    ``unknown`` (nothing found in time); ``bound`` the best proven bound on the objective."""

    status: str
    objective: float | None
    bound: float | None
    seconds: float
    stopped: str            # "" when the search finished, else what stopped it
    solver: Any = None      # the CpSolver, to read the values from

    def value(self, var) -> int:
        return int(self.solver.value(var))


def run(model, limits: Limits) -> Outcome:
    """Solve *model* with schedcc's settings. O(the solver's work, bounded by *limits*)."""
    cp = cp_model()
    solver = cp.CpSolver()
    for name, value in solver_parameters(limits).items():
        setattr(solver.parameters, name, value)
    start = time.perf_counter()
    with _CpuWatch(solver, cpu_budget(limits)) as watch:
        try:
            code = solver.solve(model)
        except IndexError:
            # OR-Tools 9.15's presolve can throw std::out_of_range (absl::btree_map::at) while
            # carrying a solution hint through it (google/or-tools#5288): solve without the hint.
            # Deterministic: the same model fails the same way. Only the search's start changes.
            model.clear_hints()
            code = solver.solve(model)
    seconds = time.perf_counter() - start
    name = solver.status_name(code)
    if name == "MODEL_INVALID":  # a bug in the model builder, never in the input
        raise RuntimeError(f"CP-SAT rejected the model: {model.validate()}")
    status = {"OPTIMAL": "optimal", "FEASIBLE": "feasible", "INFEASIBLE": "infeasible"}.get(name, "unknown")
    stopped = ""
    if status in ("feasible", "unknown"):
        if solver.deterministic_time >= deterministic_limit(limits) * 0.999:
            stopped = "time limit"
        else:
            stopped = "CPU-time limit" if watch.fired else "wall-clock limit"
    has_objective = status in ("optimal", "feasible") and model.has_objective()
    objective = solver.objective_value if has_objective else None
    bound = solver.best_objective_bound if model.has_objective() and status != "infeasible" else None
    return Outcome(status, objective, bound, seconds, stopped, solver)


class _CpuWatch:
    """Stops *solver*'s search once the process has used *budget* CPU seconds more than
    at the start (a thread that looks every 20 ms; CP-SAT releases the GIL while it
    solves). ``fired`` says whether it did."""

    def __init__(self, solver, budget: float) -> None:
        self.solver, self.budget, self.fired = solver, budget, False
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="schedcc-cpu-limit", daemon=True)

    def _watch(self) -> None:
        start = time.process_time()
        while not self._done.wait(0.02):
            if time.process_time() - start > self.budget:
                self.fired = True
                self.solver.stop_search()
                return

    def __enter__(self) -> "_CpuWatch":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()


def gap_percent(value: float, bound: float) -> float:
    """How far *value* may be above the optimum, in percent of the *bound* on it (0 when equal)."""
    if bound <= 0 or value <= bound:
        return 0.0
    return round(100.0 * (value - bound) / bound, 2)

"""schedcc: an instruction and operator scheduler.

The pipeline: text -> :mod:`schedcc.ir` -> dependence DAG (:mod:`schedcc.dag`)
-> schedulers (:mod:`schedcc.sched`) against a machine model
(:mod:`schedcc.target`) -> verifier, simulator and back ends.

The small, stable library API (``docs/api.md``)::

    >>> import schedcc
    >>> prog = schedcc.parse("t0 = t1 + t2\\nt1 = t0 + t1\\n")
    >>> mips4 = schedcc.load_target("mips4")
    >>> dag = schedcc.build_dag(prog.functions[0].blocks[0], mips4)
    >>> sched = schedcc.list_schedule(dag)
    >>> sched.cycle, sched.makespan
    ({0: 0, 1: 3}, 6)
    >>> schedcc.verify(prog.functions[0].blocks[0], mips4, sched.cycle, sched.unit)
"""

from schedcc.dag import build_dag
from schedcc.errors import SchedccError
from schedcc.frontends.ir_text import parse
from schedcc.ir import Block, Function, Instr, Program
from schedcc.problem import Dep, Machine, Op, SchedGraph
from schedcc.sched import Schedule, Solved, list_schedule, lower_bound, solve
from schedcc.verifier import VerificationError, verify, verify_schedule
from schedcc.resources import VERSION
from schedcc.target import Target, load_target

__version__ = VERSION

# Functions of the modules that moved into the pipeline's folders in the
# layout of ``docs/architecture.md`` (``schedcc.loops`` is now
# ``schedcc.swp.loops``, ...), importable from the package as before; they load
# on first use, so that ``import schedcc`` stays fast.
_LAZY = {
    "find_loops": "schedcc.swp.loops", "loop_dag": "schedcc.swp.dependences",
    "pipeline_program": "schedcc.swp.pipeliner", "modulo_schedule": "schedcc.sched.modulo",
    "verify_modulo": "schedcc.verifier.modulo", "register_pressure": "schedcc.sched.lifetimes",
    "run_program": "schedcc.sim.interp", "simulate_in_order": "schedcc.sim.pipeline",
    "check_reordering": "schedcc.teaching.grading", "check_answer": "schedcc.teaching.deps_answer",
    "schedule_program": "schedcc.driver.blocks", "apply_overrides": "schedcc.target.overrides",
    "plan": "schedcc.planner",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'schedcc' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)
__all__ = [
    "parse", "load_target", "build_dag", "list_schedule", "lower_bound", "verify", "verify_schedule", "solve",
    "Program", "Function", "Block", "Instr", "Target", "Schedule", "Solved",
    "SchedGraph", "Op", "Dep", "Machine",
    "SchedccError", "VerificationError", "__version__",
]

"""schedcc: an instruction and operator scheduler.

The pipeline: text -> :mod:`schedcc.ir` -> dependence DAG (:mod:`schedcc.dag`)
-> schedulers (:mod:`schedcc.sched`) against a machine model
(:mod:`schedcc.target`) -> verifier, simulator and back ends.

The small, stable library API (``docs/api.md``)::

    >>> import schedcc
    >>> prog = schedcc.parse("t0 = t1 + t2\\nt1 = t0 + t1\\n")
    >>> mips4 = schedcc.load_target("mips4")
    >>> dag = schedcc.build_dag(prog.functions[0].blocks[0], mips4)
    >>> sched = schedcc.list_schedule(dag, mips4)
    >>> sched.cycle, sched.makespan
    ({0: 0, 1: 3}, 6)
    >>> schedcc.verify(prog.functions[0].blocks[0], mips4, sched.cycle, sched.unit)
"""

from schedcc.dag import build_dag
from schedcc.errors import SchedccError
from schedcc.frontends.ir_text import parse
from schedcc.ir import Block, Function, Instr, Program
from schedcc.sched import Schedule, list_schedule, lower_bound
from schedcc.verifier import VerificationError, verify
from schedcc.target import Target, load_target

__version__ = "0.1.0"
__all__ = [
    "parse", "load_target", "build_dag", "list_schedule", "lower_bound", "verify",
    "Program", "Function", "Block", "Instr", "Target", "Schedule",
    "SchedccError", "VerificationError", "__version__",
]

"""The scheduling problem shared by every domain and every scheduler.

:class:`SchedGraph` (operations, dependences, a machine) is what the DAG
builder, the loop analysis, the Ascend kernel builder and the training-step
builder produce, and what the list and modulo schedulers, the bounds, the
verifiers and the simulators consume. See :mod:`schedcc.problem.graph`.
"""

from schedcc.problem.graph import DEP_KINDS, Dep, Machine, Op, SchedGraph, as_graph, is_acyclic

__all__ = ["DEP_KINDS", "Dep", "Machine", "Op", "SchedGraph", "as_graph", "is_acyclic"]

"""Dependence analysis: IR blocks -> scheduling problems (:class:`~schedcc.problem.SchedGraph`).

:mod:`schedcc.dag.block` finds the register, memory and control dependences
of one basic block with the alias rules of ``docs/dag.md``. Loops (with
iteration distances) are analysed in :mod:`schedcc.swp.loops`.
"""

from schedcc.dag.block import (ALL_MEMORY, HUGE_REGION, Access, DagBuilder, access_width, block_dependences,
                               build_dag, dep_text, edge_text, has_unknown_side_effects, may_alias)

__all__ = ["ALL_MEMORY", "HUGE_REGION", "Access", "DagBuilder", "access_width", "block_dependences",
           "build_dag", "dep_text", "edge_text", "has_unknown_side_effects", "may_alias"]

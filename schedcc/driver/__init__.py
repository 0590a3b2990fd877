"""Jobs: a program and a machine model in, checked results out, the same shape for every domain.

* :mod:`.blocks`: instruction programs (``.ir``, ``.ll``, ``.s``) block by block;
* :mod:`.job`: one entry for the command line: picks the domain from the
  target (CPU, Ascend, cluster) and runs its job.

Every job builds :class:`~schedcc.problem.SchedGraph` problems and runs
:func:`schedcc.sched.solve.solve` on them; see ``docs/architecture.md``.
"""

from schedcc.driver.blocks import BlockResult, ProgramResult, schedule_block, schedule_program

__all__ = ["BlockResult", "ProgramResult", "schedule_block", "schedule_program"]

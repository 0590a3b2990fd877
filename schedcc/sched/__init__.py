"""Scheduling strategies: they read a :class:`~schedcc.problem.SchedGraph` and return a schedule.

* :mod:`.list_scheduler` orders a block (priorities: :mod:`.priority`);
* :mod:`.modulo` software-pipelines a loop body (:mod:`.ims`, :mod:`.swing`;
  bounds on II: :mod:`.mii`; register pressure and stage scheduling: :mod:`.lifetimes`);
* :mod:`.bounds` gives lower bounds on a block's makespan;
* :mod:`.exact` and :mod:`.exact_modulo` solve the same problems exactly with
  CP-SAT (:mod:`.cpsat`), with a proof; :mod:`.exact_explain` finds the
  heuristic's decisions that cost cycles;
* :mod:`.solve` runs schedule -> verify -> refine for every domain.

The verifiers that check any schedule, however it was made, are apart in
:mod:`schedcc.verifier`.
"""

from schedcc.sched.bounds import Bound, lower_bound
from schedcc.sched.list_scheduler import PRIORITIES, list_schedule
from schedcc.sched.schedule import Schedule
from schedcc.sched.solve import ListStrategy, ModuloStrategy, Solved, solve

__all__ = ["Schedule", "list_schedule", "PRIORITIES", "lower_bound", "Bound", "solve", "Solved",
           "ListStrategy", "ModuloStrategy"]

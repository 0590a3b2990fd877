"""Training graphs: schedule the operators of a distributed training step.

The library for planners (docs/api.md, docs/training.md)::

    >>> from schedcc import training
    >>> prog = training.generate(layers=2, hidden=1024, seq=512, microbatches=2, dp=8)
    >>> res = training.schedule(prog, "h100-8x", policy="priority")
    >>> res.step_time_us > 0, 0.0 <= res.overlap_ratio <= 1.0
    (True, True)
"""

from schedcc.training.api import compare, generate, load_step, pipeline, schedule
from schedcc.training.costs import Cluster
from schedcc.training.overlap_plan import Overlap, decompose
from schedcc.training.result import RankStats, ScheduledOp, StepResult

__all__ = ["generate", "schedule", "compare", "pipeline", "load_step", "decompose", "Cluster", "StepResult",
           "RankStats", "ScheduledOp", "Overlap"]

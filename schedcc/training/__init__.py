"""Training graphs: schedule the operators of a distributed training step.

The library for planners (docs/api.md, docs/training.md)::

    >>> from schedcc import training
    >>> prog = training.generate(layers=2, hidden=1024, seq=512, microbatches=2, dp=8)
    >>> res = training.schedule(prog, "h100-8x", policy="priority")
    >>> res.step_time_us > 0, 0.0 <= res.overlap_ratio <= 1.0
    (True, True)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Imported on first use (PEP 562): every command that reads a size limit or a bucket range from this
# package (schedcc.training.limits) would otherwise import networkx and the whole training stack.
_EXPORTS = {"compare": "api", "generate": "api", "load_step": "api", "pipeline": "api", "schedule": "api",
            "Cluster": "costs", "Overlap": "overlap_plan", "decompose": "overlap_plan",
            "RankStats": "result", "ScheduledOp": "result", "StepResult": "result"}

__all__ = ["generate", "schedule", "compare", "pipeline", "load_step", "decompose", "Cluster", "StepResult",
           "RankStats", "ScheduledOp", "Overlap"]

if TYPE_CHECKING:
    from schedcc.training.api import compare, generate, load_step, pipeline, schedule
    from schedcc.training.costs import Cluster
    from schedcc.training.overlap_plan import Overlap, decompose
    from schedcc.training.result import RankStats, ScheduledOp, StepResult


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'schedcc.training' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"schedcc.training.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

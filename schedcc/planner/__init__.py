"""The auto-parallel planner: choose dp/tp/pp/cp, microbatching, ZeRO and recomputation.

``schedcc.plan(model, cluster, gpus=..., global_batch=...)`` (also
``schedcc.planner.plan``) scores every configuration by scheduling its
training step and returns them ranked (docs/planner.md)::

    >>> from schedcc.planner import plan, preset
    >>> res = plan(preset("gpt3-175b"), "dgx-a100", gpus=128, global_batch=128, workers=1,
    ...            fix="tp=8,pp=8,microbatch=1,schedule=1f1b,zero=1,recompute=selective,sp=1")
    >>> best = res.best
    >>> best.feasible, best.candidate.tp, best.candidate.pp
    (True, 8, 8)
"""

from schedcc.planner.model import ModelSpec, preset, preset_names
from schedcc.planner.score import Context, Scored, score
from schedcc.planner.search import PlanResult, plan
from schedcc.planner.space import Candidate, Settings, enumerate_space, parse_fix

__all__ = ["plan", "preset", "preset_names", "ModelSpec", "Candidate", "Settings", "Scored", "PlanResult",
           "Context", "score", "enumerate_space", "parse_fix"]

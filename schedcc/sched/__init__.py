"""Schedulers, bounds and the verifier.

``list_scheduler`` orders a basic block; ``bounds`` gives lower bounds;
``verify`` checks any schedule independently of how it was made.
"""

from .schedule import Schedule
from .list_scheduler import list_schedule, PRIORITIES
from .bounds import lower_bound, Bound
from .verify import verify, VerificationError

__all__ = ["Schedule", "list_schedule", "PRIORITIES", "lower_bound", "Bound", "verify",
           "VerificationError"]

"""schedcc: an instruction and operator scheduler.

The pipeline: text -> :mod:`schedcc.ir` -> dependence DAG (:mod:`schedcc.dag`)
-> schedulers (:mod:`schedcc.sched`) against a machine model
(:mod:`schedcc.target`) -> verifier, simulator and back ends.
"""

from .frontends.ir_text import parse

__version__ = "0.1.0"
__all__ = ["parse", "__version__"]

"""Small performance helpers shared by the passes.

Example::

    >>> import gc
    >>> with paused_gc():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a pass allocates many small,
    acyclic objects (instructions, edges): on a 100,000-instruction block the
    collector's repeated full scans otherwise cost more than the pass itself.
    Reference counting still frees everything; the collector resumes after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

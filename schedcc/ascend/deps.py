"""The dependence DAG of a kernel block, with Ascend's synchronisation semantics.

:func:`schedcc.dag.block_dependences` finds the dependences; this builder says
for each how the hardware must honour it, in the dependence's ``tag``:

* ``"dispatch"``: the scalar pipe S issues every instruction in program order
  and runs its own instructions to completion before issuing the next one.
  So an edge out of an S instruction (a loop counter feeding an address) and
  the write of a scalar register after another pipe has read it (the address
  of ``copy_in xGm[i]`` is read when the copy is issued) need no flag: issuing
  in the scheduled order is enough. An edge out of S still waits for the S
  instruction's latency.
* ``"complete"``: everything else (tiles in buffers, global memory) is read
  and written while the instruction runs, so the later instruction may start
  only when the earlier one has *finished*: the edge latency becomes the
  producer's full latency, also for WAR and WAW, and the sync pass puts a
  flag or a barrier on it.

O(n + e). Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> b = parse("x_ub = copy_in xGm[i] {bytes = 1KiB}\\ni = i + 1\\n").functions[0].blocks[0]
    >>> g = kernel_dag(b, load_target("ascend"))
    >>> g.dep(0, 1).tag, g.dep(0, 1).latency
    ('dispatch', 0)
"""

from __future__ import annotations

from schedcc.dag import block_dependences
from schedcc.ir import Block
from schedcc.problem import Dep, SchedGraph
from schedcc.target import Target
from schedcc.ascend.model import SCALAR_PIPE

DISPATCH, COMPLETE = "dispatch", "complete"


def kernel_dag(block: Block, target: Target) -> SchedGraph:
    """The scheduling problem of a kernel block: :func:`~schedcc.dag.block_dependences`
    with each dependence's synchronisation kind (``tag``) and completion latency."""
    ops, deps = block_dependences(block, target)
    out = []
    for d in deps:
        pu, pv = ops[d.src].units[0], ops[d.dst].units[0]
        scalar_reg = d.kind in ("RAW", "WAR", "WAW") and pu == SCALAR_PIPE
        scalar_war = d.kind == "WAR" and pv == SCALAR_PIPE
        if pu == SCALAR_PIPE or scalar_reg or scalar_war or d.kind == "CTRL":
            latency = max(d.latency, ops[d.src].latency) if pu == SCALAR_PIPE else d.latency
            out.append(d._replace(latency=latency, tag=DISPATCH))  # S issues v once u has finished
        else:
            out.append(d._replace(latency=max(d.latency, ops[d.src].latency), tag=COMPLETE))
    return SchedGraph(tuple(ops), tuple(out), target.machine, topological=True, source=block)


def event_dep(consumer: int, setter: int, latency: int, what: str) -> Dep:
    """An ordering that frees an event ID: *setter* starts after *consumer* has finished."""
    return Dep(consumer, setter, "EVENT", latency, 0, f"frees {what}", "", COMPLETE)

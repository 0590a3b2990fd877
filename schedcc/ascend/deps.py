"""The dependence DAG of a kernel block, with Ascend's synchronisation semantics.

:func:`schedcc.dag.build_dag` finds the dependences; this pass says for each
edge how the hardware must honour it, in the edge attribute ``sync``:

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
    >>> g.edges[0, 1]["sync"], g.edges[0, 1]["latency"]
    ('dispatch', 0)
"""

from __future__ import annotations

import networkx as nx

from ..dag import build_dag
from ..ir import Block
from ..target import Target
from .model import SCALAR_PIPE


def kernel_dag(block: Block, target: Target) -> nx.DiGraph:
    """:func:`~schedcc.dag.build_dag` plus the ``sync`` kind and completion latencies."""
    dag = build_dag(block, target)
    nodes = dag.nodes
    for u, v, d in dag.edges(data=True):
        pu, pv = nodes[u]["units"][0], nodes[v]["units"][0]
        scalar_reg = d["kind"] in ("RAW", "WAR", "WAW") and nodes[u]["units"][0] == SCALAR_PIPE
        scalar_war = d["kind"] == "WAR" and pv == SCALAR_PIPE
        if pu == SCALAR_PIPE or scalar_reg or scalar_war or d["kind"] == "CTRL":
            d["sync"] = "dispatch"
            if pu == SCALAR_PIPE:  # S issues v only once u has finished
                d["latency"] = max(d["latency"], nodes[u]["latency"])
        else:
            d["sync"] = "complete"
            d["latency"] = max(d["latency"], nodes[u]["latency"])
    return dag

"""The dependence graph of a loop, with iteration distances, from its loop view.

:func:`loop_dag` builds the dependence graph of one iteration plus the
loop-carried dependences, a :class:`~schedcc.problem.SchedGraph` with the
operations of :func:`schedcc.dag.build_dag`; every dependence also has a
``distance``: 0 within an iteration, d when iteration k+d depends on iteration
k. Register values are renamed by the code generators (modulo variable
expansion, or phis), so only true (RAW) register dependences are edges, one per
value read (:attr:`~schedcc.swp.view.LoopView.reaching`). Memory dependences
come from the accesses' addresses (``base + stride * k + offset``,
:func:`schedcc.swp.analysis.memory_distances`): ``store A[i]`` and ``load
A[i-2]`` meet at distance exactly 2 and ``A[2*i]`` never meets ``A[2*i+1]``;
what cannot be analysed gets distances 0 (in program order) and 1.

Complexity: O(n + m^2) for n instructions of which m access memory.

Example::

    >>> from schedcc import parse
    >>> from schedcc.swp.loops import find_loops
    >>> prog = parse('''func f(n) {
    ... entry:
    ...   i = 0
    ... loop:
    ...   a = load A[i]
    ...   store A[i+2], a
    ...   i = i + 1
    ...   c = i < n
    ...   br c, loop, exit
    ... exit:
    ...   ret i
    ... }''')
    >>> loop = find_loops(prog.functions[0])[0]
    >>> g = loop_dag(loop, "generic")
    >>> g.dep(1, 0).distance, g.dep(1, 0).detail
    (2, 'RAW')
"""

from __future__ import annotations

from schedcc.dag import build_dag
from schedcc.problem import Dep, SchedGraph
from schedcc.swp.analysis import memory_distances
from schedcc.swp.view import LoopView
from schedcc.target import Target, load_target


def loop_dag(loop: LoopView, target: Target | str) -> SchedGraph:
    """The dependence graph of *loop* with iteration distances; see the module docstring.

    Operations are those of :func:`schedcc.dag.build_dag`; the loop branch is
    ``kernel_end`` (it issues in the last row of the kernel). Dependences carry
    their ``distance``; a memory one its hazard in ``detail``.
    """
    tgt = load_target(target)
    base = build_dag(loop.block, tgt)
    instrs = loop.block.instrs
    ops = list(base.ops)
    branch = loop.exit.branch
    ops[branch] = ops[branch]._replace(kernel_end=True)
    lat = [op.latency for op in ops]
    edges: dict[tuple[int, int], dict] = {}  # one per pair, in the order first found

    def add(u: int, v: int, kind: str, latency: int, distance: int, reason: str, mem: str | None = None):
        if u == v and distance == 0:
            return
        old = edges.get((u, v))
        attrs = {"kind": kind, "latency": latency, "distance": distance, "reason": reason}
        if mem:
            attrs["mem"] = mem
        if old is not None:
            if old["distance"] <= distance and old["latency"] >= latency:
                return  # the old edge implies the new one
            if not (distance <= old["distance"] and latency >= old["latency"]):
                # Neither implies the other: keep one edge that implies both.
                attrs["latency"] = max(latency, old["latency"])
                attrs["distance"] = min(distance, old["distance"])
            old.update(attrs)
        else:
            edges[(u, v)] = attrs

    for (node, reg), (src, dist) in loop.reaching.items():
        add(src, node, "RAW", lat[src], dist, reg)
    accesses = sorted(loop.accesses)
    # Per access, once: its operand's text (pairs are O(m^2)).
    mem_text = {a: str(instrs[a].mem_read or instrs[a].mem_write) for a in accesses}
    for a in accesses:
        acc_a = loop.accesses[a]
        for b in accesses:
            acc_b = loop.accesses[b]
            if not (acc_a.write or acc_b.write) or (min(a, b), max(a, b)) in loop.disjoint:
                continue
            if acc_a.write and not acc_b.write:
                latency, hazard = lat[a], "RAW"
            elif acc_b.write and not acc_a.write:
                latency, hazard = tgt.war_latency, "WAR"
            else:
                latency, hazard = tgt.waw_latency, "WAW"
            dists = memory_distances(acc_a, acc_b)
            if dists is not None and not dists:
                continue
            text = f"{mem_text[a]} / {mem_text[b]}"
            if dists is None:
                dists, text = [0, 1], text + " (not analysable)"
            for d in dists:
                if d == 0 and a >= b:
                    continue  # within one iteration only program order counts
                add(a, b, "MEM", latency, d, text, hazard)
    deps = tuple(Dep(u, v, a["kind"], a["latency"], a["distance"], a["reason"], a.get("mem", ""))
                 for (u, v), a in edges.items())
    # Source-major order: the order in which the recurrence analysis reports cycles.
    deps = tuple(sorted(deps, key=lambda d: d.src))
    return SchedGraph(tuple(ops), deps, tgt.machine, source=loop)

"""Put instructions of one block in an order that keeps their meaning, close to wished positions.

The overlap transformations replace operators by their chunks and want each
chunk at a position (a number: where its site's first operator was, plus its
rank in the site's schedule). Each entry also says where it stands in
program order (the operator it comes from): that order defines what each
instruction reads. :func:`merge_in_order` emits the instructions by wished
position, but each only after the definitions it reads and after the earlier
readers of a name it redefines (Kahn's algorithm with the positions as
priorities), so a wished position never breaks a dependence. O(n log n).

Example::

    >>> from schedcc import parse
    >>> a, b, c = parse("x = f a\\ny = g x\\nz = h b\\n").functions[0].blocks[0].instrs[:3]
    >>> [i.dest.name for i in merge_in_order([(2.0, 0, a), (0.0, 1, b), (1.0, 2, c)])]
    ['z', 'x', 'y']
"""

from __future__ import annotations

import heapq

from schedcc.ir import Instr


def merge_in_order(entries: list[tuple[float, float, Instr]]) -> list[Instr]:
    """The instructions by position, each after the definitions it reads and the earlier
    readers of what it redefines (Kahn's algorithm with positions as priorities)."""
    last_def: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    preds: list[set[int]] = [set() for _ in entries]
    order = sorted(range(len(entries)), key=lambda j: entries[j][1])  # program order: what reads what
    for j in order:
        instr = entries[j][2]
        for r in instr.uses():
            if r in last_def:
                preds[j].add(last_def[r])
            readers.setdefault(r, []).append(j)
        for r in instr.defs():
            if r in last_def:
                preds[j].add(last_def[r])
            preds[j].update(x for x in readers.get(r, ()) if x != j)
            last_def[r] = j
            readers[r] = []
    succ: list[list[int]] = [[] for _ in entries]
    count = [0] * len(entries)
    for j, ps in enumerate(preds):
        for p in ps:
            succ[p].append(j)
            count[j] += 1
    heap = [(entries[j][0], j) for j in range(len(entries)) if count[j] == 0]
    heapq.heapify(heap)
    out = []
    while heap:
        _, j = heapq.heappop(heap)
        out.append(entries[j][2])
        for s in succ[j]:
            count[s] -= 1
            if count[s] == 0:
                heapq.heappush(heap, (entries[s][0], s))
    return out

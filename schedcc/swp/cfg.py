"""The loops of a function's control-flow graph, for every front end.

:func:`back_edges` finds each loop by its back edge (an edge to a block that
dominates its source), with the blocks it spans; :func:`multi_block_reason`
says in one line why a loop of several blocks is left alone.

Example::

    >>> from schedcc import parse
    >>> f = parse("func f(n) {\\nentry:\\n  i = 0\\nloop:\\n  i = i + 1\\n  c = i < n\\n"
    ...           "  br c, loop, exit\\nexit:\\n  ret i\\n}\\n").functions[0]
    >>> [(latch.label, header.label, len(body)) for latch, header, body in back_edges(f)]
    [('loop', 'loop', 1)]
"""

from __future__ import annotations

from schedcc.ir import Block, Function


def multi_block_reason(latch: Block, header: Block, body: list[Block], headers: set[str] = frozenset()
                       ) -> tuple[str, str]:
    """Why a loop of several blocks is left alone, in one line, and the reason's kind
    (:class:`~schedcc.swp.view.NotPipelined`): ``outer`` when the loop holds another
    loop's header (in *headers*: every loop header of the function), ``multi-block``
    otherwise; a loop that tests at its top (a while loop as a simple compiler writes
    it) is named as such."""
    inner = [b.label for b in body if b is not header and b.label in headers]
    if inner:
        return (f"the loop from '{latch.label}' back to '{header.label}' holds the inner loop at '{inner[0]}': "
                "only innermost loops are pipelined", "outer")
    if len(body) == 2 and latch.terminator is not None and latch.terminator.opcode in ("jmp", "b", "j") \
            and header.terminator is not None and header.terminator.opcode not in ("jmp", "b", "j"):
        return (f"the loop tests at its top ('{header.label}') and jumps back from '{latch.label}': only a loop "
                "whose body is one block, testing at its end, is pipelined (clang -O1 and up rotate loops so)",
                "multi-block")
    return (f"the loop from '{latch.label}' back to '{header.label}' spans {len(body)} blocks (an if or an exit "
            "in the middle); only a loop whose body is one block is pipelined", "multi-block")


def flow_successors(blocks, falls) -> list[list[int]]:
    """Per block (by its index in *blocks*), the blocks control may go to next: its branch
    targets, then the next block when *falls(block)* (it may fall through). O(blocks + edges).

    >>> from schedcc import parse
    >>> f = parse("func f(n) {\\nentry:\\n  i = 0\\nloop:\\n  i = i + 1\\n  c = i < n\\n"
    ...           "  br c, loop, exit\\nexit:\\n  ret i\\n}\\n").functions[0]
    >>> flow_successors(f.blocks, lambda b: b.terminator is None)
    [[1], [1, 2], []]
    """
    index = {b.label: k for k, b in enumerate(blocks)}
    succ = [[index[t] for t in b.successors() if t in index] for b in blocks]
    for k, b in enumerate(blocks):
        if falls(b) and k + 1 < len(blocks):
            succ[k].append(k + 1)
    return succ


def natural_loop(succ: list[list[int]], header: int) -> set[int]:
    """The blocks of the natural loop at block *header* over all its back edges, given the
    successor lists *succ* (:func:`flow_successors`): *header* and every block that reaches
    the source of a back edge without passing *header*, a back edge coming from a block that
    the entry (block 0) reaches only through *header* (one *header* dominates).
    O(blocks + edges).

    >>> sorted(natural_loop([[1], [2, 3], [1], []], 1))     # 0 -> 1 -> 2 -> 1, 1 -> 3
    [1, 2]
    """
    pred: dict[int, list[int]] = {}
    for n, ts in enumerate(succ):
        for t in ts:
            pred.setdefault(t, []).append(n)

    def closure(start: list[int], step) -> set[int]:
        seen, todo = set(), list(start)
        while todo:
            n = todo.pop()
            if n != header and n not in seen:
                seen.add(n)
                todo += step(n)
        return seen
    free = closure([0], lambda n: succ[n])          # reached from the entry without passing the header
    return closure([n for n in pred.get(header, []) if n not in free], lambda n: pred.get(n, [])) | {header}


def back_edges(func: Function, falls=lambda block: block.terminator is None
               ) -> list[tuple[Block, Block, list[Block]]]:
    """(latch, header, the blocks of the loop) for every loop of *func*, one per header,
    in text order: an edge to a block that dominates its source (clang places a loop's
    exit block before the loop, so text order alone cannot tell). *falls(block)*: whether
    control may fall through to the next block (in assembly a conditional branch does).
    O(blocks^2)."""
    blocks = func.blocks
    succ = flow_successors(blocks, falls)
    pred: list[list[int]] = [[] for _ in blocks]
    for k, ts in enumerate(succ):
        for t in ts:
            pred[t].append(k)
    every = set(range(len(blocks)))
    dom = [every for _ in blocks]
    if blocks:
        dom[0] = {0}
    changed = True
    while changed:
        changed = False
        for k in range(1, len(blocks)):
            ps = [dom[p] for p in pred[k]]
            new = (set.intersection(*ps) if ps else set()) | {k}
            if new != dom[k]:
                dom[k], changed = new, True
    found: dict[int, tuple[int, int]] = {}
    for k, ts in enumerate(succ):
        for h in ts:
            if h in dom[k] and h not in found:
                body, todo = {h, k}, ([k] if k != h else [])
                while todo:
                    n = todo.pop()
                    for p in pred[n]:
                        if p not in body:
                            body.add(p)
                            todo.append(p)
                found[h] = (k, sorted(body))
    return [(blocks[k], blocks[h], [blocks[b] for b in body]) for h, (k, body) in sorted(found.items())]

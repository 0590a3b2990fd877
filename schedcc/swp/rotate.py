"""Loop rotation: a loop tested at its top becomes a guarded loop tested at its end.

A compiler that does not rotate loops (a course compiler writing LightIR, a
``while`` loop at -O0) emits the test in the loop's header and an unconditional
jump back from the body::

    head:  c = i < n ; br c, body, exit        # the test, every iteration
    body:  ... ; i = i + 1 ; jmp head

Rotation copies the header's instructions to the end of the body, which then
branches to itself; the header stays where it was and is now only the guard
run once on entry::

    head:  c = i < n ; br c, body, exit        # the guard
    body:  ... ; i = i + 1 ; c = i < n ; br c, body, exit

The header runs as many times as before (once on entry, then once per
iteration at the end of the body), in the same order, so any instruction may be
in it. The rotation applies when the body is one block whose only predecessor
is the header and which jumps back to it; the header's other successor is the
exit. Registers of schedcc IR are mutable, so nothing else changes; the pipeliner
keeps a rotation only when the rotated loop is pipelined
(:func:`schedcc.swp.pipeliner.pipeline_program`), so every other loop stays
byte-identical.

Complexity: O(n) for n instructions of the function.

Example::

    >>> from schedcc import parse
    >>> prog = parse('''func f(n) {
    ... entry:
    ...   i = 0
    ... head:
    ...   c = i < n
    ...   br c, body, exit
    ... body:
    ...   i = i + 1
    ...   jmp head
    ... exit:
    ...   ret i
    ... }''')
    >>> func, rotated = rotate_loops(prog.functions[0])
    >>> sorted(rotated), [str(i) for i in func.block("body").instrs]
    (['body'], ['i = i + 1', 'c = i < n', 'br c, body, exit'])
"""

from __future__ import annotations

from dataclasses import replace

from schedcc.ir import Block, Function


def top_tested(func: Function) -> list[tuple[Block, Block, str]]:
    """The loops of *func* tested at their top, as (header, body, exit label): the header
    ends in ``br c, body, exit`` (either order), the body in ``jmp header`` and only
    the header branches to the body. O(n)."""
    preds: dict[str, list[str]] = {}
    for k, b in enumerate(func.blocks):
        succ = b.successors()
        if b.terminator is None and k + 1 < len(func.blocks):
            succ = (func.blocks[k + 1].label,)     # falls through
        for s in succ:
            preds.setdefault(s, []).append(b.label)
    out = []
    for head in func.blocks:
        term = head.terminator
        if term is None or term.opcode != "br" or len(head.successors()) != 2:
            continue
        for body_label, exit_label in (head.successors(), head.successors()[::-1]):
            if body_label == head.label or exit_label == body_label:
                continue
            try:
                body = func.block(body_label)
            except KeyError:
                continue
            back = body.terminator
            if back is not None and back.opcode == "jmp" and body.successors() == (head.label,) \
                    and preds.get(body_label) == [head.label]:
                out.append((head, body, exit_label))
                break
    return out


def rotate_loops(func: Function) -> tuple[Function, dict[str, tuple[Block, Block]]]:
    """*func* with every loop tested at its top rotated (see the module docstring), and
    the original (header, body) of each rotated loop by the body's label (to undo a
    rotation that gains nothing). O(n)."""
    rotated: dict[str, tuple[Block, Block]] = {}
    new: dict[str, Block] = {}
    for head, body, _exit in top_tested(func):
        # The header's own branch, ``br c, body, exit``, is the rotated loop's back edge.
        new[body.label] = replace(body, instrs=body.instrs[:-1] + head.instrs)
        rotated[body.label] = (head, body)
    if not new:
        return func, {}
    return replace(func, blocks=tuple(new.get(b.label, b) for b in func.blocks)), rotated

"""Tile loops unrolled with rotating buffers: Ascend C's ``BUFFER_NUM`` by hand.

A tile loop (a block that branches back to itself) computes one tile per
iteration. :func:`unroll_tile_loop` copies its body ``tiles`` times and
renames every tile the body defines before it reads it so that tile *t* uses
buffer copy ``t % buffers``: ``x_ub`` becomes ``x0_ub`` and ``x1_ub`` with two
buffers. Induction variables (``i = i + c`` once in the body) are stepped
once for all copies at the end, and copy *t* addresses ``xGm[i + t*c]``, so
that the dependence analysis sees that the tiles' global memory does not
overlap (a scalar use of ``i`` in copy *t* reads a fresh ``i.t = i + t*c``).
The list scheduler then
overlaps copy-in of tile t+1 with the compute of tile t and the copy-out of
tile t-1, as far as the buffer copies allow, and the sync pass protects
every reuse of a copy with a flag (the WAR from the last reader of tile t to
the writer of tile t + buffers).

Tiles the body reads before it writes them (an accumulator carried from one
iteration to the next) keep their name: they form a recurrence.

O(tiles * n). Example::

    >>> from schedcc import parse
    >>> loop = parse(open("examples/ascend/vector_add.ir").read()).functions[0].block("loop")
    >>> body = unroll_tile_loop(loop, tiles=2, buffers=2)
    >>> [str(i) for i in body.instrs[4:]]   # the second tile, then the step and the test
    ['x1_ub = copy_in xGm[i + 1] {bytes = 16KiB}', 'y1_ub = copy_in yGm[i + 1] {bytes = 16KiB}', 'z1_ub = vadd x1_ub, y1_ub {bytes = 16KiB}', 'copy_out zGm[i + 1], z1_ub {bytes = 16KiB}', 'i = i + 2', 'c = i < n', 'br c, loop, done']
"""

from __future__ import annotations

from dataclasses import replace

from schedcc.errors import SchedccError
from schedcc.ir import Affine, Block, Const, Instr, Mem, Reg
from schedcc.ascend.buffers import SUFFIXES


def copy_name(name: str, k: int) -> str:
    """``x_ub`` -> ``x0_ub``; a name without a buffer suffix gets ``_k`` appended."""
    low = name.lower()
    for suffix in SUFFIXES:
        if low.endswith(suffix):
            cut = len(name) - len(suffix)
            return f"{name[:cut]}{k}{name[cut:]}"
    return f"{name}_{k}"


def renamable_tiles(body: tuple[Instr, ...], is_tile) -> set[str]:
    """Tiles the body defines before any read of them (not carried between iterations)."""
    defined: set[str] = set()
    carried: set[str] = set()
    for instr in body:
        for r in instr.uses():
            if r not in defined:
                carried.add(r)
        for r in instr.defs():
            defined.add(r)
    return {r for r in defined - carried if is_tile(r)}


def unroll_tile_loop(block: Block, tiles: int, buffers: int | dict[str, int] = 2, is_tile=None) -> Block:
    """*block* (a tile loop) with its body repeated *tiles* times, tiles in *buffers* rotating copies
    (one number for every tile, or a number per tile name)."""
    return unroll_with_origin(block, tiles, buffers, is_tile)[0]


def unroll_with_origin(block: Block, tiles: int, buffers: int | dict[str, int] = 2,
                       is_tile=None) -> tuple[Block, list[tuple[int, int] | None]]:
    """:func:`unroll_tile_loop`, and for each instruction of the result the
    (tile, body index) it is a copy of, or None for the ones added (the step,
    the addresses of scalar uses, the branch)."""
    least = min(buffers.values(), default=1) if isinstance(buffers, dict) else buffers
    if tiles < 1 or least < 1:
        raise SchedccError(f"--tiles and --buffers must be at least 1 (got {tiles} and {least})")
    term = block.terminator
    if term is None or block.label not in block.successors():
        raise SchedccError(f"block '{block.label}' is not a tile loop: it does not branch back to itself",
                           block.loc, notes=["write the tile loop as a block ending in: br c, "
                                             f"{block.label}, done"])
    body = block.instrs[:-1]
    is_tile = is_tile or (lambda r: any(r.lower().endswith(s) for s in SUFFIXES))
    names = renamable_tiles(body, is_tile)
    steps = induction_steps(body)
    # The loop test feeds only the branch: the copies before the last one skip it.
    cond = term.operands[0].name if term.opcode == "br" and isinstance(term.operands[0], Reg) else None
    test_only = cond is not None and not any(cond in i.uses() for i in body)
    count = buffers if isinstance(buffers, dict) else {r: buffers for r in names}
    out: list[Instr] = []
    origin: list[tuple[int, int] | None] = []
    for t in range(tiles):
        rename = {r: copy_name(r, t % count[r]) for r in names if count.get(r, 1) > 1}
        offset = {r: t * c for r, c in steps.items()}
        for b, instr in enumerate(body):
            step = _step_of(instr, steps)
            if step is not None:
                r = instr.dest.name
                if t == tiles - 1:  # one step for all copies, where the last copy stepped
                    out.append(replace(instr, operands=(Reg(r), Const(tiles * step)), syntax="infix"))
                    origin.append(None)
                    offset[r] = 0
                else:
                    offset[r] += step
                continue
            if test_only and t < tiles - 1 and instr.dest is not None and instr.dest.name == cond:
                continue
            copied = _offset(_rename(instr, rename), offset)
            origin.extend([None] * (len(copied) - 1) + [(t, b)])
            out.extend(copied)
    out.append(term)
    origin.append(None)
    return replace(block, instrs=tuple(out)), origin


def induction_steps(body: tuple[Instr, ...]) -> dict[str, int]:
    """Registers stepped by ``r = r + c`` (or ``- c``) exactly once in *body*, and nowhere else."""
    defs: dict[str, int] = {}
    for instr in body:
        for r in instr.defs():
            defs[r] = defs.get(r, 0) + 1
    steps = {}
    for instr in body:
        if instr.opcode in ("add", "sub") and instr.dest is not None and len(instr.operands) == 2:
            a, b = instr.operands
            if (isinstance(a, Reg) and a.name == instr.dest.name and isinstance(b, Const)
                    and isinstance(b.value, int) and defs[a.name] == 1):
                steps[a.name] = b.value if instr.opcode == "add" else -b.value
    return steps


def _step_of(instr: Instr, steps: dict[str, int]) -> int | None:
    if instr.dest is not None and instr.dest.name in steps and instr.opcode in ("add", "sub"):
        return steps[instr.dest.name]
    return None


def _offset(instr: Instr, offset: dict[str, int]) -> list[Instr]:
    """*instr* with induction variables read at their offset in this copy."""
    moved = {r: off for r, off in offset.items() if off}
    if not moved:
        return [instr]
    before: list[Instr] = []
    ops = []
    for op in instr.operands:
        if isinstance(op, Mem) and any(r in moved for r, _ in op.index.terms):
            extra = sum(c * moved.get(r, 0) for r, c in op.index.terms)
            op = Mem(op.array, Affine(op.index.terms, op.index.const + extra))
        elif isinstance(op, Reg) and op.name in moved:
            fresh = f"{op.name}.{moved[op.name]}".replace("-", "m")
            before.append(Instr("add", Reg(fresh), (Reg(op.name), Const(moved[op.name])),
                                loc=instr.loc, syntax="infix"))
            op = Reg(fresh)
        ops.append(op)
    return before + [replace(instr, operands=tuple(ops))]


def _rename(instr: Instr, rename: dict[str, str]) -> Instr:
    if not rename:
        return instr
    ops = []
    for op in instr.operands:
        if isinstance(op, Reg) and op.name in rename:
            op = Reg(rename[op.name])
        elif isinstance(op, Mem) and any(r in rename for r, _ in op.index.terms):
            op = Mem(op.array, Affine.of({rename.get(r, r): c for r, c in op.index.terms}, op.index.const))
        ops.append(op)
    dest = Reg(rename[instr.dest.name]) if instr.dest is not None and instr.dest.name in rename else instr.dest
    return replace(instr, operands=tuple(ops), dest=dest)

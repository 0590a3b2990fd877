"""Tiles: which register lives in which on-chip buffer, and do they fit.

The kernel IR names no buffers explicitly. A register *defined* by an Ascend
opcode is a tile in the buffer the model's ``[ascend.dataflow]`` table gives
for that opcode's result (``x_ub = copy_in xGm[i]`` makes ``x_ub`` a UB tile,
``c = mmad a, b`` an L0C tile); a register defined on the scalar pipe is a
scalar. A register only read in the block (live in, like an accumulator)
takes its buffer from its name's suffix: ``_ub``, ``_l1``, ``_l0a``, ``_l0b``,
``_l0c`` (any case). When a name has such a suffix it must agree with the
buffer, so ``x_l1 = copy_in ...`` is an error.

A tile's size is the largest ``bytes`` attribute of an instruction that
defines or reads it; ``dst_bytes`` gives a smaller result (a reduction's
row of maxima, a cast to half precision); ``mmad`` without ``bytes`` makes
an m x n fp32 tile.
Tiles are allocated statically, one region per name (times its number of
copies when double buffered), rounded up to the buffer's alignment, as
Ascend C's ``TPipe::InitBuffer`` does; the sum must fit the capacity.

O(n) in the number of instructions. Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.ascend.model import ascend_model
    >>> p = parse("x_ub = copy_in xGm[i] {bytes = 100KiB}\\ny_ub = vexp x_ub {bytes = 100KiB}\\n")
    >>> plan_tiles(p.functions[0], ascend_model(load_target("ascend")))
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: <input>:2:1: error: UB overflows: tiles need 200 KiB, capacity 192 KiB
      note: UB holds x_ub (100 KiB), y_ub (100 KiB)
      note: make the tiles smaller (the `bytes` attributes), or raise the capacity with --set ascend.buffers.UB.capacity=N
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.errors import SchedccError
from schedcc.ir import Function, Instr, Mem, Reg
from schedcc.ascend.model import GM, SCALAR_PIPE, AscendModel

SUFFIXES = {"_ub": "UB", "_l1": "L1", "_l0a": "L0A", "_l0b": "L0B", "_l0c": "L0C"}


@dataclass
class Tile:
    name: str
    buffer: str
    bytes: int = 0
    first: Instr | None = None  # where it is first defined (or read), for messages


@dataclass
class TilePlan:
    """The tiles of one function: register name -> :class:`Tile`."""

    tiles: dict[str, Tile] = field(default_factory=dict)

    def buffer_of(self, reg: str) -> str | None:
        tile = self.tiles.get(reg)
        return tile.buffer if tile is not None else None

    def usage(self, model: AscendModel, copies: dict[str, int] | None = None) -> dict[str, int]:
        """Bytes allocated per buffer, each tile rounded up to the buffer's alignment."""
        used: dict[str, int] = {b: 0 for b in model.buffers}
        for tile in self.tiles.values():
            align = model.buffers[tile.buffer].align
            size = -(-tile.bytes // align) * align
            used[tile.buffer] += size * (copies or {}).get(tile.name, 1)
        return used


def suffix_buffer(name: str) -> str | None:
    low = name.lower()
    for suffix, buf in SUFFIXES.items():
        if low.endswith(suffix):
            return buf
    return None


def _kib(n: int) -> str:
    return f"{n / 1024:g} KiB" if n >= 1024 else f"{n} B"


def _error(instr: Instr, message: str, notes: list[str] | None = None) -> SchedccError:
    return SchedccError(message, instr.opcode_loc or instr.loc, notes=notes or [], width=max(len(instr.opcode), 1))


def _size(instr: Instr) -> int:
    value = instr.attr("bytes")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value)
    if instr.opcode == "mmad":
        m, n = instr.attr("m"), instr.attr("n")
        if isinstance(m, (int, float)) and isinstance(n, (int, float)):
            return int(m * n * 4)  # fp32 accumulators
    return 0


def plan_tiles(function: Function, model: AscendModel, check: bool = True) -> TilePlan:
    """Find the tiles of *function* and check every instruction's operands and sizes.

    Raises a located :class:`SchedccError` for an operand in the wrong buffer,
    a misaligned size, or (with *check*) tiles that do not fit their buffer,
    one region per tile name. :func:`schedcc.ascend.alloc.share_buffers` first
    lets tiles never alive at once share a region when that does not fit.
    """
    plan = TilePlan()
    instrs = [i for b in function.blocks for i in b.instrs]
    # Definitions first, so that uses before the definition (loop-carried) know the buffer.
    for instr in instrs:
        if instr.dest is None or model.pipe_of(instr.opcode) == SCALAR_PIPE:
            continue
        flow = model.dataflow_of(instr.opcode)
        if flow is None:
            raise _error(instr, f"the model has no [ascend.dataflow] entry for '{instr.opcode}'",
                         [f"add one to {model.target.path or model.target.name}"])
        buf = flow.result_buffer
        name = instr.dest.name
        if buf is None:
            raise _error(instr, f"'{instr.opcode}' writes global memory, not a register",
                         [f"write it with the memory operand first: {instr.opcode} yGm[i], {name}"])
        named = suffix_buffer(name)
        if named is not None and named != buf:
            raise _error(instr, f"'{name}' is named as a {named} tile but '{instr.opcode}' writes {buf}",
                         [f"rename it (for example {name[: -len(name) + name.lower().rfind('_')]}_"
                          f"{buf.lower()}) or use an opcode that writes {named}"])
        old = plan.tiles.get(name)
        if old is not None and old.buffer != buf:
            raise _error(instr, f"'{name}' is a {old.buffer} tile (line {old.first.loc.line if old.first and old.first.loc else '?'}) "
                         f"but '{instr.opcode}' writes {buf}", ["give the tiles in different buffers different names"])
        if old is None:
            plan.tiles[name] = Tile(name, buf, 0, instr)
    for instr in instrs:
        _check_operands(instr, model, plan)
    for instr in instrs:
        size = _size(instr)
        # `bytes` sizes every tile the instruction touches, `dst_bytes` (a reduction's
        # or a cast's smaller result) its destination; mmad's m x n only its result.
        dst = instr.attr("dst_bytes")
        dst_size = int(dst) if isinstance(dst, (int, float)) and not isinstance(dst, bool) else size
        touched = [(r, size) for r in instr.uses()] if instr.attr("bytes") is not None else []
        touched += [(r, dst_size) for r in instr.defs()]
        for reg, n in touched:
            tile = plan.tiles.get(reg)
            if tile is not None and n > tile.bytes:
                tile.bytes = n
        size = dst_size
        if instr.dest is not None and instr.dest.name in plan.tiles and instr.attr("bytes") is not None:
            buf = plan.tiles[instr.dest.name].buffer
            align = model.buffers[buf].align
            if size % align:
                raise _error(instr, f"'{instr.opcode}' writes {size} bytes into {buf}, "
                             f"which is not a multiple of {buf}'s {align}-byte alignment",
                             [f"pad the tile to {-(-size // align) * align} bytes"])
    if check:
        check_capacity(plan, model)
    return plan


def _check_operands(instr: Instr, model: AscendModel, plan: TilePlan) -> None:
    pipe = model.pipe_of(instr.opcode)
    flow = model.dataflow_of(instr.opcode)
    if pipe == SCALAR_PIPE and flow is None:
        for reg in instr.uses():
            buf = plan.buffer_of(reg)
            if buf is not None:
                raise _error(instr, f"the scalar pipe cannot read tile '{reg}' ({buf}) with '{instr.opcode}'",
                             ["read one element of a UB tile with: s = get_value t_ub"])
        return
    if flow is None:
        raise _error(instr, f"the model has no [ascend.dataflow] entry for '{instr.opcode}'")
    mem = next((op for op in instr.operands if isinstance(op, Mem)), None)
    if mem is not None:
        if instr.dest is not None and GM not in flow.reads:
            raise _error(instr, f"'{instr.opcode}' does not read global memory",
                         [f"it reads {', '.join(flow.reads) or 'nothing'}; a memory operand with a "
                          "destination register is a read of global memory"])
        if instr.dest is None and GM not in flow.writes:
            hint = (f"write the destination tile first: x_{(flow.result_buffer or 'ub').lower()} = "
                    f"{instr.opcode} xGm[i]" if GM in flow.reads else "")
            raise _error(instr, f"'{instr.opcode}' does not write global memory",
                         [h for h in (hint,) if h] or [f"it writes {', '.join(flow.writes)}"])
    elif instr.dest is None and pipe != SCALAR_PIPE:
        raise _error(instr, f"'{instr.opcode}' needs a destination: a tile register or a global-memory operand")
    for op in instr.operands:
        if not isinstance(op, Reg):
            continue
        buf = plan.buffer_of(op.name) or suffix_buffer(op.name)
        if buf is not None and op.name not in plan.tiles:
            plan.tiles[op.name] = Tile(op.name, buf, 0, instr)  # live-in tile, named by suffix
        if buf is not None and buf not in flow.reads:
            raise _error(instr, f"'{instr.opcode}' cannot read '{op.name}' from {buf}",
                         [f"'{instr.opcode}' reads {', '.join(flow.reads) or 'no tiles'}"])


def check_capacity(plan: TilePlan, model: AscendModel, copies: dict[str, int] | None = None) -> None:
    """Raise a located error naming the first buffer whose tiles do not fit."""
    used = plan.usage(model, copies)
    for buf, total in used.items():
        cap = model.buffers[buf].capacity
        if total <= cap:
            continue
        tiles = [t for t in plan.tiles.values() if t.buffer == buf]
        # Point at the definition that crosses the capacity.
        running, culprit = 0, tiles[-1]
        align = model.buffers[buf].align
        for t in tiles:
            running += -(-t.bytes // align) * align * (copies or {}).get(t.name, 1)
            if running > cap:
                culprit = t
                break
        listing = ", ".join(f"{t.name} ({_kib(t.bytes)}{' x%d' % copies[t.name] if copies and copies.get(t.name, 1) > 1 else ''})"
                            for t in tiles)
        raise SchedccError(f"{buf} overflows: tiles need {_kib(total)}, capacity {_kib(cap)}",
                           culprit.first.loc if culprit.first else None,
                           notes=[f"{buf} holds {listing}",
                                  "make the tiles smaller (the `bytes` attributes), or raise the capacity "
                                  f"with --set ascend.buffers.{buf}.capacity=N"],
                           width=1)

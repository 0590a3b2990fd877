"""On-chip buffers by lifetime: tiles never alive at once share one region.

:func:`schedcc.ascend.buffers.plan_tiles` gives every tile name its own
region (Ascend C's ``InitBuffer`` per queue). A chain ``x -> a -> b -> c`` of
64 KiB tiles then needs 256 KiB although at most two are alive at once, one
if the vector operations write over their dead input (Ascend C's element-wise
APIs allow ``dst == src``). When the regions do not fit, :func:`share_buffers`
allocates by lifetime instead:

* **Lifetimes** in program order, per block: a tile lives from its first
  definition to its last use. A tile read before it is written in the block
  (an accumulator, a value carried round a loop) or used in several blocks
  is live throughout and keeps a region of its own.
* **Interval colouring**, per buffer, tiles by start: a tile takes a region
  whose tile is dead by then; an operation listed in the model's
  ``[ascend] in_place`` may write over an input it reads for the last time
  (its result takes that input's region), others write to a region none of
  their inputs use. A region is as large as its largest tile.
* **Double buffering**: the regions of a tile loop are counted once per
  buffer copy (``--buffers K``: K), because copies of different tiles are
  alive at the same time; within one tile the chain shares.
* **Agreement with the scheduler**: every tile of a region is renamed to the
  region's name (its first tile's), so the program itself says which tiles
  share memory. The dependence analysis then orders a tile's writer after the
  last readers of the region's previous tile (WAR) and after its writer
  (WAW); the scheduler, the sync insertion (flags for those orderings) and
  the independent checker all see the reuse, and the code shows it, as an
  Ascend C kernel that reuses a ``LocalTensor`` does.

Regions are shared only when one per tile does not fit (a kernel that fits
keeps every tile apart, with the most freedom to overlap). Each
:class:`Allocation` reports per buffer the bytes one region per tile needs,
the peak alive at once by lifetimes, what is allocated and the capacity.

O(n log n) per block. Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.ascend.model import ascend_model
    >>> p = parse("x_ub = copy_in xGm[0] {bytes = 96KiB}\\ny_ub = vexp x_ub {bytes = 96KiB}\\n"
    ...           "z_ub = vmuls y_ub {bytes = 96KiB}\\ncopy_out zGm[0], z_ub {bytes = 96KiB}\\n")
    >>> q, (a,) = share_buffers(p, ascend_model(load_target("ascend")))
    >>> [str(i) for i in q.functions[0].blocks[0].instrs][1:3]
    ['x_ub = vexp x_ub {bytes = 96KiB}', 'x_ub = vmuls x_ub {bytes = 96KiB}']
    >>> u = a.buffers["UB"]
    >>> u.per_tile // 1024, u.peak // 1024, u.allocated // 1024, u.capacity // 1024
    (288, 96, 96, 192)
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field, replace

from schedcc.errors import SchedccError
from schedcc.ir import Block, Function, Instr, Program, Reg
from schedcc.ascend.buffers import TilePlan, _kib, plan_tiles
from schedcc.ascend.model import AscendModel
from schedcc.ascend.tiles import renamable_tiles


@dataclass
class BufferUse:
    """One buffer of one function; bytes include the copies of double-buffered tiles."""

    buffer: str
    capacity: int
    per_tile: int          # one region per tile name
    peak: int              # the most bytes alive at once, by lifetimes
    allocated: int         # the regions kept
    regions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # region -> its tiles, in turn
    in_place: list[tuple[str, str]] = field(default_factory=list)       # (tile, the input it overwrites)

    def to_json(self) -> dict:
        return {"capacity": self.capacity, "per_tile": self.per_tile, "peak": self.peak,
                "allocated": self.allocated, "regions": {r: list(t) for r, t in self.regions.items()},
                "in_place": [list(p) for p in self.in_place]}


@dataclass
class Allocation:
    """How the tiles of one function are placed: ``shared`` when regions are shared by lifetime."""

    function: str
    shared: bool
    buffers: dict[str, BufferUse]
    renamed: dict[str, str] = field(default_factory=dict)  # tile -> the region (name) it uses

    def to_json(self) -> dict:
        return {"function": self.function, "shared": self.shared,
                "buffers": {b: u.to_json() for b, u in self.buffers.items()}}


def in_place_opcodes(model: AscendModel) -> tuple[str, ...]:
    raw = model.target.raw.get("ascend", {}).get("in_place", [])
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise SchedccError(f"{model.target.path or model.target.name}: key 'ascend.in_place': "
                           "expected a list of opcodes (patterns allowed, like \"vadd\" or \"v*\")")
    return tuple(raw)


@dataclass
class _Life:
    name: str
    buffer: str
    size: int        # aligned bytes
    start: int       # 2j + 1 for a write at j that may overwrite its dead inputs, 2j otherwise
    end: int         # 2j of its last read
    pinned: bool
    writer: int | None


def _lifetimes(block: Block, plan: TilePlan, model: AscendModel, elsewhere: set[str],
               in_place: tuple[str, ...]) -> list[_Life]:
    first_def: dict[str, int] = {}
    last_use: dict[str, int] = {}
    read_first: set[str] = set()
    for j, ins in enumerate(block.instrs):
        for r in ins.uses():
            if r in plan.tiles:
                if r not in first_def:
                    read_first.add(r)
                last_use[r] = j
        for r in ins.defs():
            if r in plan.tiles:
                first_def.setdefault(r, j)
    span = 2 * len(block.instrs)
    lives = []
    for name in sorted(set(first_def) | set(last_use), key=lambda r: (first_def.get(r, -1), r)):
        tile = plan.tiles[name]
        align = model.buffers[tile.buffer].align
        size = -(-tile.bytes // align) * align
        if name in read_first or name in elsewhere:
            lives.append(_Life(name, tile.buffer, size, -1, span, True, None))
            continue
        j = first_def[name]
        overwrite = any(fnmatch.fnmatchcase(block.instrs[j].opcode, p) for p in in_place)
        start = 2 * j + 1 if overwrite else 2 * j
        lives.append(_Life(name, tile.buffer, size, start, max(2 * last_use.get(name, j), start), False, j))
    return lives


def _colour(lives: list[_Life], block: Block) -> tuple[dict[str, str], dict[str, int], list[tuple[str, str]]]:
    """name -> region, region -> size, in-place pairs; per buffer, greedy by start."""
    region_of: dict[str, str] = {}
    size: dict[str, int] = {}
    free_at: dict[str, int] = {}      # region -> end of its current tile
    buffer_of: dict[str, str] = {}
    holder: dict[str, str] = {}       # region -> its current tile
    in_place: list[tuple[str, str]] = []
    for life in sorted(lives, key=lambda x: (x.start, x.name)):
        if life.pinned:
            region_of[life.name] = life.name
            size[life.name], free_at[life.name], buffer_of[life.name] = life.size, life.end, life.buffer
            holder[life.name] = life.name
            continue
        free = [r for r in size if buffer_of[r] == life.buffer and free_at[r] < life.start]
        inputs = set(block.instrs[life.writer].uses()) if life.writer is not None else set()
        # in place: the region of an input this instruction reads for the last time
        over = [r for r in free if free_at[r] == life.start - 1 and holder[r] in inputs]
        if over:
            pick = min(over, key=lambda r: (abs(size[r] - life.size), r))
            in_place.append((life.name, holder[pick]))
        elif free:
            fits = [r for r in free if size[r] >= life.size]
            pick = min(fits, key=lambda r: (size[r], r)) if fits else max(free, key=lambda r: (size[r], r))
        else:
            pick = life.name
            buffer_of[pick] = life.buffer
            size[pick] = 0
        region_of[life.name] = pick
        size[pick] = max(size[pick], life.size)
        free_at[pick] = life.end
        holder[pick] = life.name
    return region_of, size, in_place


def _peak(lives: list[_Life], copies) -> dict[str, tuple[int, int]]:
    """buffer -> (most bytes alive at once, the position of that peak)."""
    events: dict[str, list[tuple[int, int]]] = {}
    for life in lives:
        ev = events.setdefault(life.buffer, [])
        n = life.size * copies(life.name)
        ev.append((life.start, n))
        ev.append((life.end + 1, -n))
    out = {}
    for buf, ev in events.items():
        ev.sort(key=lambda e: (e[0], e[1]))
        live = best = 0
        at = -1
        for pos, delta in ev:
            live += delta
            if live > best:
                best, at = live, pos
        out[buf] = (best, at)
    return out


def share_buffers(program: Program, model: AscendModel, copies: int | dict[str, int] = 1,
                  force: bool = False) -> tuple[Program, list[Allocation]]:
    """*program* with tiles renamed to share regions where one region per tile would not fit
    (always with *force*; see the module docstring), and one :class:`Allocation` per function.

    *copies* is the buffer count each tile of a tile loop will get (``--buffers``), one
    number or one per tile name. Raises a located :class:`SchedccError` when even the
    lifetimes do not fit."""
    functions, allocations = [], []
    for function in program.functions:
        new, alloc = share_function(function, model, copies, force)
        functions.append(new)
        allocations.append(alloc)
    return replace(program, functions=tuple(functions)), allocations


def _copies_of(function: Function, copies):
    looped: set[str] = set()
    for b in function.blocks:
        if b.terminator is not None and b.label in b.successors():
            looped |= renamable_tiles(b.instrs[:-1], lambda r: True)

    def of(name: str) -> int:
        if name not in looped:
            return 1
        return copies.get(name, 1) if isinstance(copies, dict) else copies
    return of


def share_function(function: Function, model: AscendModel, copies: int | dict[str, int] = 1,
                   force: bool = False) -> tuple[Function, Allocation]:
    """:func:`share_buffers` for one function."""
    in_place = in_place_opcodes(model)
    plan = plan_tiles(function, model, check=False)
    count = _copies_of(function, copies)
    where: dict[str, set[str]] = {}
    for b in function.blocks:
        for ins in b.instrs:
            for r in (*ins.uses(), *ins.defs()):
                if r in plan.tiles:
                    where.setdefault(r, set()).add(b.label)
    elsewhere = {r for r, labels in where.items() if len(labels) > 1}
    lives = {b.label: _lifetimes(b, plan, model, elsewhere, in_place) for b in function.blocks}
    per_tile = plan.usage(model, {r: count(r) for r in plan.tiles})
    peaks = {}
    for b in function.blocks:
        for buf, (n, at) in _peak(lives[b.label], count).items():
            if n > peaks.get(buf, (0, -1, None))[0]:
                peaks[buf] = (n, at, b)
    fits = all(per_tile[buf] <= model.buffers[buf].capacity for buf in per_tile)
    buffers = {buf: BufferUse(buf, model.buffers[buf].capacity, per_tile[buf], peaks.get(buf, (0,))[0],
                              per_tile[buf], {t.name: (t.name,) for t in plan.tiles.values() if t.buffer == buf})
               for buf in model.buffers if per_tile.get(buf)}
    if fits and not force:
        return function, Allocation(function.name, False, buffers)
    renamed: dict[str, str] = {}
    blocks = []
    allocated: dict[str, dict[str, int]] = {}   # buffer -> region -> bytes (x copies)
    members: dict[str, list[str]] = {}
    for b in function.blocks:
        region_of, size, pairs = _colour(lives[b.label], b)
        for name, region in region_of.items():
            renamed[name] = region
            if name not in members.setdefault(region, []):
                members[region].append(name)
            buf = plan.tiles[name].buffer
            n = size[region] * count(region)
            allocated.setdefault(buf, {})[region] = max(allocated.get(buf, {}).get(region, 0), n)
        for tile, over in pairs:
            buffers[plan.tiles[tile].buffer].in_place.append((tile, over))
        blocks.append(_rename_block(b, region_of))
    for buf, use in buffers.items():
        use.allocated = sum(allocated.get(buf, {}).values())
        use.regions = {r: tuple(members[r]) for r in allocated.get(buf, {})}
        if use.allocated > use.capacity:
            _overflow(use, peaks.get(buf), plan, model)
    return replace(function, blocks=tuple(blocks)), Allocation(function.name, True, buffers, renamed)


def _overflow(use: BufferUse, peak, plan: TilePlan, model: AscendModel):
    n, at, block = peak if peak is not None else (use.peak, -1, None)
    instr = block.instrs[min(max(at, 0) // 2, len(block.instrs) - 1)] if block is not None and block.instrs else None
    notes = [f"the most alive at once is here: {_kib(n)} (buffer copies included)"]
    if use.allocated > n:
        notes.append(f"regions of different sizes shared by turns leave {_kib(use.allocated - n)} more")
    notes += [f"{use.buffer} regions: " + ", ".join(f"{r} ({'/'.join(t)})" for r, t in use.regions.items()),
              "make the tiles smaller (the `bytes` attributes), use fewer buffer copies, or raise the "
              f"capacity with --set ascend.buffers.{use.buffer}.capacity=N"]
    raise SchedccError(
        f"{use.buffer} overflows: tiles need {_kib(use.allocated)} by their lifetimes (one region per tile: "
        f"{_kib(use.per_tile)}), capacity {_kib(use.capacity)}",
        (instr.opcode_loc or instr.loc) if instr is not None else None, notes=notes,
        width=max(len(instr.opcode), 1) if instr is not None else 1)


def _rename_block(block: Block, region_of: dict[str, str]) -> Block:
    moved = {r: reg for r, reg in region_of.items() if r != reg}
    if not moved:
        return block
    return replace(block, instrs=tuple(_rename(i, moved) for i in block.instrs))


def _rename(ins: Instr, moved: dict[str, str]) -> Instr:
    ops = tuple(Reg(moved[o.name]) if isinstance(o, Reg) and o.name in moved else o for o in ins.operands)
    dest = Reg(moved[ins.dest.name]) if ins.dest is not None and ins.dest.name in moved else ins.dest
    if ops == ins.operands and dest == ins.dest:
        return ins
    return replace(ins, operands=ops, dest=dest)


__all__ = ["Allocation", "BufferUse", "share_buffers", "share_function", "in_place_opcodes"]

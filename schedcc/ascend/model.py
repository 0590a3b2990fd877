"""The Ascend tables of a machine model: ``[ascend]``, ``[ascend.buffers]``, ``[ascend.dataflow]``.

They live in the target's TOML beside the ordinary ``[units]`` and
``[classes]`` and reach this module through ``target.raw``. Errors name the
file and the key, as the loader's do.

Example::

    >>> from schedcc.target import load_target
    >>> m = ascend_model(load_target("ascend"))
    >>> m.buffers["UB"].capacity, m.event_ids, m.dataflow_of("vadd").reads
    (196608, 8, ('UB',))
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from schedcc.errors import SchedccError
from schedcc.target import Target

GM = "GM"  # global memory: the memory operands of the IR (xGm[i])
SCALAR_PIPE = "S"


@dataclass(frozen=True)
class BufferSpec:
    name: str
    capacity: int  # bytes
    align: int     # bytes; tiles are allocated in multiples of it


@dataclass(frozen=True)
class Dataflow:
    """The buffers an opcode may read its register operands from and write its result to."""

    reads: tuple[str, ...]
    writes: tuple[str, ...]

    @property
    def result_buffer(self) -> str | None:
        """The on-chip buffer a destination register lives in (None: a scalar result)."""
        return next((b for b in self.writes if b != GM), None)


@dataclass(frozen=True)
class AscendModel:
    target: Target
    clock_ghz: float
    event_ids: int
    events: frozenset[str]
    buffers: dict[str, BufferSpec]
    dataflow: tuple[tuple[str, Dataflow], ...]

    @property
    def pipes(self) -> tuple[str, ...]:
        return self.target.units

    def dataflow_of(self, opcode: str) -> Dataflow | None:
        for pattern, flow in self.dataflow:
            if pattern == opcode:
                return flow
        for pattern, flow in self.dataflow:
            if fnmatch.fnmatchcase(opcode, pattern):
                return flow
        return None

    def pipe_of(self, opcode: str) -> str:
        cls = self.target.op_class(opcode)
        return cls.units[0] if cls is not None else SCALAR_PIPE

    def cycles_to_us(self, cycles: float) -> float:
        return cycles / (self.clock_ghz * 1e3)


def is_ascend(target: Target) -> bool:
    """True for machine models with an ``[ascend]`` table."""
    return isinstance(target.raw.get("ascend"), dict)


MAX_BUFFER_BYTES = 2**32  # an on-chip buffer's capacity or alignment: 4 GiB, thousands of times the largest
MAX_EVENT_IDS = 64  # the 910B has 8 per pipe pair; the sync pass keeps a table per ID (2**70 ran out of memory)


def _fail(target: Target, key: str, message: str) -> SchedccError:
    """An error naming *key*, at its line in the text the model was parsed from when it came
    from a file (``Target.derived["source"]``, as the cluster table's errors); else the caller
    locates it (``--set`` on the command line)."""
    from schedcc.target.load import _Validator
    return _Validator(target.path or target.name, target.derived.get("source")).fail(key, message)


def _copy_params(target: Target) -> None:
    """A copy's ``bandwidth`` (bytes per cycle) is greater than 0 and its ``startup`` (cycles)
    from 0 to a fixed latency's bound (1,000,000 cycles): a negative one makes every copy's
    latency shrink with its size, and real start-ups take hundreds of cycles."""
    from schedcc.target.load import MAX_CYCLES
    for cls in target.classes:
        params = dict(cls.params)
        for pname, bad, rule in (
                ("bandwidth", lambda v: v <= 0, "greater than 0 (bytes per cycle)"),
                ("startup", lambda v: not 0 <= v <= MAX_CYCLES,
                 f"from 0 to {MAX_CYCLES:,} cycles (a fixed latency's bound; real start-ups take hundreds)")):
            value = params.get(pname)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and bad(value):
                raise _fail(target, f"classes.{cls.name}.params.{pname}", f"must be {rule}, got {value!r}")


def ascend_model(target: Target) -> AscendModel:
    """Read and validate the Ascend tables of *target* (once per model object: an
    lru_cache would key by name and path, and serve an edited file the old tables)."""
    return target.memo("ascend", lambda: _read(target))


def _read(target: Target) -> AscendModel:
    table = target.raw.get("ascend")
    if not isinstance(table, dict):
        raise SchedccError(f"target '{target.name}' is not an Ascend model (it has no [ascend] table)")
    for unit in target.units:
        if len(target.groups.get(unit, (unit,))) != 1:
            raise _fail(target, f"units.{unit}", "an Ascend pipe has exactly one instance")
    clock = table.get("clock_ghz", 1.0)
    if not isinstance(clock, (int, float)) or isinstance(clock, bool) or clock <= 0:
        raise _fail(target, "ascend.clock_ghz", f"expected a positive number, got {clock!r}")
    ids = table.get("event_ids", 8)
    if not isinstance(ids, int) or isinstance(ids, bool) or not 1 <= ids <= MAX_EVENT_IDS:
        raise _fail(target, "ascend.event_ids", f"expected a whole number from 1 to {MAX_EVENT_IDS} (event IDs per "
                    f"pipe pair: the 910B has 8, and the sync pass keeps a table per ID), got {ids!r}")
    _copy_params(target)
    events = table.get("events", [])
    if not isinstance(events, list) or not all(isinstance(e, str) and "_" in e for e in events):
        raise _fail(target, "ascend.events", "expected a list of SRC_DST pipe pairs like \"MTE2_V\"")
    for e in events:
        src, _, dst = e.partition("_")
        if src not in target.units or dst not in target.units:
            raise _fail(target, "ascend.events", f"'{e}' names a pipe the model does not have")
    buffers: dict[str, BufferSpec] = {}
    for name, spec in (table.get("buffers") or {}).items():
        key = f"ascend.buffers.{name}"
        if not isinstance(spec, dict):
            raise _fail(target, key, "expected a table with capacity and align")
        cap, align = spec.get("capacity"), spec.get("align", 1)
        for what, value in (("capacity", cap), ("align", align)):
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_BUFFER_BYTES:
                raise _fail(target, f"{key}.{what}", f"expected a whole number of bytes from 1 to 4 GiB (on-chip "
                            f"buffers hold KiB to MiB: UB 192 KiB on the 910B), got {value!r}")
        buffers[name] = BufferSpec(name, cap, align)
    flows: list[tuple[str, Dataflow]] = []
    for pattern, spec in (table.get("dataflow") or {}).items():
        key = f"ascend.dataflow.{pattern}"
        if not isinstance(spec, dict):
            raise _fail(target, key, "expected a table { reads = [...], writes = [...] }")
        parts = []
        for what in ("reads", "writes"):
            names = spec.get(what, [])
            if not isinstance(names, list):
                raise _fail(target, f"{key}.{what}", "expected a list of buffer names")
            for b in names:
                if b != GM and b not in buffers:
                    raise _fail(target, f"{key}.{what}", f"unknown buffer '{b}' "
                                f"(known: {', '.join([GM, *buffers])})")
            parts.append(tuple(names))
        flows.append((pattern, Dataflow(*parts)))
    return AscendModel(target, float(clock), ids, frozenset(events), buffers, tuple(flows))

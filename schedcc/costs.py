"""Named cost functions for machine models whose costs are not linear in attributes.

A class names one with ``cost = "name"`` and gives its numbers in ``params``;
each function takes (op_class, instr) and returns (result latency, unit
occupancy) in cycles. The loader in :mod:`schedcc.target` imports this module
lazily, the first time a model names a cost function it does not know.

The Ascend ones (``targets/ascend910b.toml``) model a pipe that is busy while it
streams data and delivers the result a fixed start-up later:

* ``ascend_move``: ``bytes`` over ``bandwidth`` bytes per cycle; latency adds ``startup``.
* ``ascend_vector``: ``ceil(bytes / bytes_per_repeat)`` repeats at
  ``cycles_per_repeat`` each; latency adds ``startup`` (the pipeline depth).
* ``ascend_cube``: ``ceil(m/16) * ceil(k/16) * ceil(n/16)`` fractals at
  ``fractals_per_cycle``; latency adds ``startup``.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> t = load_target("ascend910b")
    >>> i = parse("x_ub = copy_in xGm[0] {bytes = 16KiB}\\n").functions[0].blocks[0].instrs[0]
    >>> t.class_of(i).cost_of(i)   # 16384 / 64 bytes per cycle, + 200 start-up
    (456, 256)
"""

from __future__ import annotations

import math

from .errors import SchedccError
from .ir import Instr
from .target import OpClass, register_cost_function


def _number(cls: OpClass, name: str) -> float:
    value = cls.param(name)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0:
        raise SchedccError(f"class '{cls.name}' needs a non-negative number params.{name} "
                           f"for its cost function '{cls.cost}', got {value!r}")
    return value


def _attr(instr: Instr, name: str, why: str) -> float:
    value = instr.attr(name)
    if value is None:
        raise SchedccError(f"'{instr.opcode}' needs a '{name}' attribute ({why})", instr.opcode_loc or instr.loc,
                           notes=[f"for example: {instr} {{{name} = 16KiB}}" if name == "bytes"
                                  else "for example: {m = 128, k = 64, n = 128}"],
                           width=max(len(instr.opcode), 1))
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise SchedccError(f"'{instr.opcode}' attribute '{name}' must be a positive number, got {value!r}",
                           instr.opcode_loc or instr.loc, width=max(len(instr.opcode), 1))
    return value


@register_cost_function("ascend_move")
def ascend_move(cls: OpClass, instr: Instr) -> tuple[int, int]:
    """A data move: busy ``ceil(bytes / bandwidth)`` cycles, result ``startup`` later."""
    size = _attr(instr, "bytes", "the size of the data it moves")
    busy = max(1, math.ceil(size / max(_number(cls, "bandwidth"), 1e-9)))
    return int(_number(cls, "startup")) + busy, busy


@register_cost_function("ascend_vector")
def ascend_vector(cls: OpClass, instr: Instr) -> tuple[int, int]:
    """A vector instruction: ``repeats * cycles_per_repeat`` busy cycles, ``startup`` pipeline depth."""
    size = _attr(instr, "bytes", "the bytes it processes")
    repeats = math.ceil(size / max(_number(cls, "bytes_per_repeat"), 1e-9))
    busy = max(1, math.ceil(repeats * _number(cls, "cycles_per_repeat")))
    return int(_number(cls, "startup")) + busy, busy


@register_cost_function("ascend_cube")
def ascend_cube(cls: OpClass, instr: Instr) -> tuple[int, int]:
    """A cube matrix multiply of an (m x k) by a (k x n) tile in 16x16x16 fractals."""
    f = max(int(_number(cls, "fractal")), 1)
    fractals = 1
    for name in ("m", "k", "n"):
        fractals *= math.ceil(_attr(instr, name, "the tile shape m x k by k x n") / f)
    busy = max(1, math.ceil(fractals / max(_number(cls, "fractals_per_cycle"), 1e-9)))
    return int(_number(cls, "startup")) + busy, busy

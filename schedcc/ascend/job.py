"""The Ascend job for one program: every block scheduled and synchronised, tile loops as asked.

:func:`run_kernels` is what ``schedcc FILE --target ascend`` runs:

* every block, list-scheduled and synchronised (:func:`schedcc.ascend.kernel.compile_kernels`);
* with ``tiles > 1``: tile loops unrolled into straight-line code for that many tiles;
* with ``buffers``: tile loops kept as loops, flags across the back edge (:mod:`.loopsync`);
* with ``pipeline``: tile loops modulo-scheduled, buffers per tile from lifetimes
  (:mod:`.pipeline`), then as code for ``tiles`` tiles or as a loop.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> res = run_kernels(parse(open("examples/ascend/vector_add.ir").read()), load_target("ascend"))
    >>> [k.block.label for k in res.kernels], res.loops, res.pipelined
    (['entry', 'loop', 'done'], [], [])
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.errors import SchedccError
from schedcc.ir import Program
from schedcc.target import Target
from schedcc.ascend.buffers import plan_tiles
from schedcc.ascend.kernel import KernelResult, compile_kernels
from schedcc.ascend.loopsync import LoopKernel, loop_kernel, loop_kernels
from schedcc.ascend.model import ascend_model
from schedcc.ascend.pipeline import PipelinedLoop, pipeline_tile_loops


@dataclass
class AscendResult:
    """``kernels``: one per block (a tile loop kept as a loop is in ``loops`` instead of being
    reported here); ``pipelined``: the modulo schedules of tile loops (with ``pipeline``)."""

    target: Target
    kernels: list[KernelResult]
    loops: list[LoopKernel] = field(default_factory=list)
    pipelined: list[PipelinedLoop] = field(default_factory=list)

    @property
    def reported(self) -> list[KernelResult]:
        """The kernels that are not shown as a loop."""
        looped = {(lk.function.name, lk.label) for lk in self.loops}
        return [k for k in self.kernels if (k.function.name, k.block.label) not in looped]


def run_kernels(program: Program, target: Target, *, priority: str = "critical-path", check: bool = True,
                tiles: int = 1, buffers: int | None = None, pipeline: bool = False,
                algorithm: str = "ims", exact=None) -> AscendResult:
    """See the module docstring; raises :class:`SchedccError` for bad sizes and what cannot fit.
    With *exact* (the solver's :class:`~schedcc.sched.cpsat.Limits`) every block is
    scheduled exactly; tile loops kept as loops or pipelined keep their heuristics."""
    for opt, value in (("--tiles", tiles), ("--buffers", buffers)):
        if value is not None and value < 1:
            raise SchedccError(f"{opt} must be at least 1, got {value}")
    if pipeline:
        # Double buffering from the modulo scheduler.
        pipelined = pipeline_tile_loops(program, target, tiles=tiles if tiles > 1 else 8,
                                        algorithm=algorithm, check=check)
        kernels = compile_kernels(program, target, priority=priority, check=check, exact=exact)
        if tiles > 1:  # straight-line code for that many tiles
            by_block = {(p.function.name, p.label): p.kernel for p in pipelined}
            kernels = [by_block.get((k.function.name, k.block.label), k) for k in kernels]
            return AscendResult(target, kernels, [], pipelined)
        # the loop, with the derived buffers and flags across its back edge
        model = ascend_model(target)
        loops = [loop_kernel(p.function, p.function.block(p.label), target, plan_tiles(p.function, model),
                             p.copies, modulo=p.schedule) for p in pipelined]
        return AscendResult(target, kernels, loops, pipelined)
    if tiles > 1:
        return AscendResult(target, compile_kernels(program, target, priority=priority, check=check,
                                                    tiles=tiles, buffers=buffers or 2, exact=exact))
    kernels = compile_kernels(program, target, priority=priority, check=check, exact=exact)
    loops = loop_kernels(program, target, buffers=buffers, priority=priority) if buffers is not None else []
    return AscendResult(target, kernels, loops)

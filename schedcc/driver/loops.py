"""Software pipelining of a parsed program, in its own language: the driver picks the
front end's job for the source's language.

:func:`pipeline_source` is what ``schedcc FILE --pipeline`` runs: schedcc IR
(:func:`schedcc.swp.pipeliner.pipeline_program`), LLVM IR
(:func:`schedcc.swp.llvm_pipeline.pipeline_llvm`) or LoongArch and RISC-V assembly
(:func:`schedcc.swp.asm_pipeline.pipeline_asm`). Each front end maps its loops
into the one loop view (:mod:`schedcc.swp.view`); the pipeliner and the code
generators read that. The pipeliner itself never imports a front end's job.

Example::

    >>> from schedcc.frontends import parse_source
    >>> src = parse_source(open("examples/swp/kernels-O2.s").read(), "kernels-O2.s")
    >>> res = pipeline_source(src, "la464")
    >>> res.lang, [(r.name, r.schedule.ii) for r in res.loops][:2]
    ('asm', [('saxpy/.LBB0_2', 2), ('dot/.LBB1_2', 5)])
"""

from __future__ import annotations

from schedcc.errors import SchedccError
from schedcc.frontends.source import Source
from schedcc.frontends.select import Selection
from schedcc.sched.cpsat import Limits
from schedcc.sched.modulo import AcceptFunction
from schedcc.swp.pipeliner import PipelineResult, pipeline_program
from schedcc.target import Target, load_target


def pipeline_source(source: Source, target: Target | str, algorithm: str = "ims",
                    accept: AcceptFunction | None = None, exact: Limits | None = None,
                    before: dict[tuple[str, str], int] | None = None,
                    select: Selection | None = None) -> PipelineResult:
    """Pipeline every loop of a parsed program in its own language (``source.lang``):
    ``text`` of the result is the pipelined program as schedcc IR, LLVM IR or assembly.
    *exact* and *before* as for :func:`~schedcc.swp.pipeliner.pipeline_program`; *select*
    (``--function``, ``--block``): only the loops chosen (:meth:`Selection.wants_loop`)."""
    tgt = load_target(target)
    if source.lang == "ll":
        from schedcc.swp.llvm_pipeline import pipeline_llvm
        return pipeline_llvm(source, tgt, algorithm, accept, exact=exact, select=select)
    if source.lang == "asm":
        if exact is not None:
            raise SchedccError("--pipeline --exact takes schedcc IR or LLVM IR: in assembly the pipeliner "
                               "raises II until the values fit the free registers, which the exact modulo "
                               "scheduler does not model",
                               notes=["drop --exact for the heuristic's pipelined assembly, or pipeline the "
                                      "compiler's LLVM IR (clang -S -emit-llvm) with --exact"])
        from schedcc.swp.asm_pipeline import pipeline_asm
        return pipeline_asm(source, tgt, algorithm, accept, select=select)
    return pipeline_program(source.program, tgt, algorithm, accept, exact, before, select=select)

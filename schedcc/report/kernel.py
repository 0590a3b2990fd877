"""The loop-kernel section of the report: each loop software-pipelined by the
modulo scheduler (:mod:`schedcc.swp.pipeliner`), drawn as the lecture draws it
(iterations over time, not pipelined against pipelined; :mod:`schedcc.viz.kernel`).

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> prog = parse(open("examples/loops/lecture_cj.ir").read())
    >>> pictures, note = kernel_pictures(prog, load_target("la464"))
    >>> [(p.title, "<svg" in p.svg) for p in pictures]
    [('lecture/loop: II 2, 6 stages', True)]
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.frontends.source import Source
from schedcc.driver.loops import pipeline_source
from schedcc.swp.pipeliner import pipeline_program
from schedcc.viz.kernel import kernel_bars, kernel_title
from schedcc.viz.timeline import timeline_svg


@dataclass
class KernelPicture:
    title: str
    svg: str
    summary: str = ""


def loop_blocks(program) -> list[tuple[str, str]]:
    """(function, label) of every block that branches back to itself."""
    return [(f.name, b.label) for f, b in program.blocks() if b.label in b.successors()]


def kernel_pictures(program, target, source_path: str | None = None) -> tuple[list[KernelPicture], str]:
    """(pictures, note): one picture per pipelined loop; the note lists the
    loops left alone and why (empty when there are none). *program* is a
    :class:`~schedcc.ir.Program` of schedcc IR or a parsed
    :class:`~schedcc.frontends.source.Source` in any language (LLVM IR, assembly)."""
    source = program if isinstance(program, Source) else None
    if source is not None:
        program = source.program
    if not loop_blocks(program):
        return [], ""
    result = pipeline_source(source, target) if source is not None else pipeline_program(program, target)
    pictures: list[KernelPicture] = []
    skipped: list[str] = []
    for res in result.loops:
        if not res.pipelined:
            skipped.append(f"{res.name}: not pipelined: {res.reason}")
            continue
        s = res.schedule
        bars, lanes = kernel_bars(res, result.target)
        title = f"{res.name}: II {s.ii}, {s.stages} stages"
        registers = res.registers_text or f"{res.pressure.registers} registers after expansion"
        summary = (f"one iteration every {s.ii} cycles instead of every {res.cycles_before} "
                   f"(ResMII {s.mii.res.value}, RecMII {s.mii.rec.value}); at most "
                   f"{res.pressure.max_live} values live; {registers}")
        svg = timeline_svg(bars, lanes, title=kernel_title(res, result.target), time_unit="cycles")
        pictures.append(KernelPicture(title, svg, summary))
    return pictures, "; ".join(skipped)

"""Software pipelining of an LLVM IR file: every single-block loop is found
(:mod:`schedcc.swp.llvm_loops`), modulo-scheduled and verified like a loop of
schedcc IR, and written back as LLVM IR (:mod:`schedcc.swp.llvm_codegen`); the
rest of the file stays as it was. Loops are transformed one after the other,
and the text is read again after each, so that the output is known to parse.

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> src = parse_llvm(open("examples/swp/kernels-O2.ll").read(), "kernels-O2.ll")
    >>> res = pipeline_llvm(src, load_target("la464"))
    >>> [(r.name, r.schedule.ii, r.cycles_before) for r in res.loops][:2]
    [('@saxpy/9', 3, 11), ('@dot/9', 5, 10)]
"""

from __future__ import annotations

from schedcc.frontends.llvm_ir import parse_llvm
from schedcc.frontends.source import Source
from schedcc.sched.modulo import AcceptFunction
from schedcc.swp.llvm_codegen import NotGenerated, generate_llvm
from schedcc.swp.llvm_loops import LlvmLoop, analyse_llvm_loop, find_llvm_loops
from schedcc.swp.view import NotPipelined
from schedcc.swp.pipeliner import LoopResult, PipelineResult, schedule_loop
from schedcc.target import Target, check_opcodes, load_target


def pipeline_llvm(source: Source, target: Target | str, algorithm: str = "ims",
                  accept: AcceptFunction | None = None, exact=None) -> PipelineResult:
    """Pipeline the loops of an LLVM IR source; ``text`` of the result is the new file.
    With *exact* (the solver's limits) each loop's II is the proven minimum."""
    tgt = load_target(target)
    check_opcodes(source.program, tgt)
    current = source
    results: list[LoopResult] = []
    for found in find_llvm_loops(source):
        if isinstance(found, NotPipelined):
            results.append(schedule_loop(found, tgt, algorithm, accept))
            continue
        x = found if current is source else _again(current, found)
        res = schedule_loop(x.loop, tgt, algorithm, accept, fresh=False, exact=exact)
        results.append(res)
        if not res.pipelined:
            continue
        try:
            text, code = generate_llvm(current.text, x, res.schedule)
        except NotGenerated as err:
            res.schedule, res.reason, res.kind = None, str(err), "code"
            continue
        current = parse_llvm(text, source.program.source)
        res.code = code
        phis = sum(1 for line in code[3][1] if " = phi " in line)
        res.registers_text = (f"kernel not unrolled: {phis} phi{'s' if phis != 1 else ''} pass values on to later "
                              "stages (LLVM's register allocator gives them registers)")
    return PipelineResult(source.program, tgt, results, None, current.text, "ll")


def _again(source: Source, old: LlvmLoop) -> LlvmLoop:
    """The same loop in the text after earlier loops were transformed."""
    func = source.program.function(old.loop.function.name)
    block = func.block(old.loop.block.label)
    found = analyse_llvm_loop(func, block, source.extra["llvm"][func.name], source.text.splitlines())
    if not isinstance(found, LlvmLoop):  # only values outside it were renamed: it cannot change
        raise AssertionError(f"internal: {old.name} is no longer a loop: {found.reason}")
    return found

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

import re

from schedcc.frontends.llvm_ir import parse_llvm
from schedcc.frontends.source import Source
from schedcc.frontends.select import Selection
from schedcc.sched.modulo import AcceptFunction
from schedcc.swp.llvm_codegen import NotGenerated, generate_llvm
from schedcc.swp.llvm_ifconv import Refused, if_convert
from schedcc.swp.llvm_rotate import rotate
from schedcc.swp.llvm_loops import LlvmLoop, analyse_llvm_loop, find_llvm_loops
from schedcc.swp.view import NotPipelined
from schedcc.swp.pipeliner import LoopResult, PipelineResult, schedule_loop
from schedcc.target import Target, check_opcodes, load_target


def pipeline_llvm(source: Source, target: Target | str, algorithm: str = "ims",
                  accept: AcceptFunction | None = None, exact=None, select: Selection | None = None) -> PipelineResult:
    """Pipeline the loops of an LLVM IR source; ``text`` of the result is the new file.
    With *exact* (the solver's limits) each loop's II is the proven minimum; with *select*
    (``--function``, ``--block``) only the loops it chooses (the others are left out)."""
    tgt = load_target(target)
    check_opcodes(source.program, tgt)
    current = source
    results: list[LoopResult] = []
    for found in find_llvm_loops(source):
        if select is not None and not select.wants_loop(found.function, found.block.label):
            continue
        if isinstance(found, NotPipelined) and found.kind == "multi-block":
            x, res = _reshaped(current, found, tgt, algorithm, accept, exact)
            results.append(res)
            if x is None or not res.pipelined:
                continue
        elif isinstance(found, NotPipelined):
            results.append(schedule_loop(found, tgt, algorithm, accept))
            continue
        else:
            x = found if current is source else _again(current, found)
            res = schedule_loop(x.loop, tgt, algorithm, accept, fresh=False, exact=exact)
            results.append(res)
            if not res.pipelined:
                continue
        try:
            text, code = generate_llvm(x.text or current.text, x, res.schedule)
        except NotGenerated as err:
            res.schedule, res.reason, res.kind = None, str(err), "code"
            continue
        current = parse_llvm(text, source.program.source)
        res.code = code
        phis = sum(1 for line in code[3][1] if " = phi " in line)
        res.registers_text = (f"kernel not unrolled: {phis} phi{'s' if phis != 1 else ''} pass values on to later "
                              "stages (LLVM's register allocator gives them registers)")
    return PipelineResult(source.program, tgt, results, None, current.text, "ll")


def _reshaped(current: Source, found: NotPipelined, tgt: Target, algorithm: str,
                  accept: AcceptFunction | None, exact) -> tuple[LlvmLoop | None, LoopResult]:
    """A loop of several blocks rotated (:mod:`schedcc.swp.llvm_rotate`: a loop tested at its
    top) or if-converted (:mod:`schedcc.swp.llvm_ifconv`) into an
    :class:`LlvmLoop` of the converted text, with its schedule; or None and the loop
    left alone with the reason. The converted text is kept only when the loop is
    pipelined (the caller generates from ``x.info``'s text)."""
    func, header = found.function.name, found.block.label
    try:
        try:
            text, block = rotate(current.text, func, header)
        except Refused as not_rotated:
            try:
                text, block = if_convert(current.text, func, header), header
            except Refused as err:
                raise Refused(f"not if-converted: {err}" if "tests at its top" not in found.reason else
                              f"not rotated: {not_rotated}") from None
            done = "if-converted to one block"
        else:
            done = f"the loop tests at its top ('{header}'); rotated to test at its end in '{block}'"
            if block not in parse_llvm(text, "<rotated>").program.function(func).block(block).successors():
                try:
                    text = if_convert(text, func, block)
                except Refused as err:  # its line numbers are the rotated text's: left out
                    raise Refused(f"{done}, then not if-converted: {re.sub(r'^line [0-9]+: ', '', str(err))}") \
                        from None
                done += ", then if-converted to one block"
    except Refused as err:
        why = NotPipelined(found.function, found.block, f"{found.reason}; {err}", found.kind)
        return None, schedule_loop(why, tgt, algorithm, accept)
    conv = parse_llvm(text, current.program.source)
    f = conv.program.function(func)
    x = analyse_llvm_loop(f, f.block(block), conv.extra["llvm"][func], text.splitlines())
    if isinstance(x, NotPipelined):
        why = NotPipelined(found.function, found.block, f"{done}: {x.reason}", x.kind)
        return None, schedule_loop(why, tgt, algorithm, accept)
    x.text = text
    res = schedule_loop(x.loop, tgt, algorithm, accept, fresh=False, exact=exact)
    if not res.pipelined:
        res.reason = f"{done}: {res.reason}"
    else:   # the report's "rotated" / "if-converted" lines and JSON flags, as for the other front ends
        res.rotated, res.if_converted = done.startswith("the loop tests at its top"), "if-converted" in done
    return x, res


def _again(source: Source, old: LlvmLoop) -> LlvmLoop:
    """The same loop in the text after earlier loops were transformed."""
    func = source.program.function(old.loop.function.name)
    block = func.block(old.loop.block.label)
    found = analyse_llvm_loop(func, block, source.extra["llvm"][func.name], source.text.splitlines())
    if not isinstance(found, LlvmLoop):  # only values outside it were renamed: it cannot change
        raise AssertionError(f"internal: {old.name} is no longer a loop: {found.reason}")
    return found

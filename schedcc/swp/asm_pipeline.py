"""Software pipelining of an assembly file (LoongArch or RISC-V): every single-block loop is
found (:mod:`schedcc.swp.asm_loops`), modulo-scheduled and verified, and
written back on physical registers (:mod:`schedcc.swp.asm_codegen`). A schedule
whose code would need more registers than the loop has is rejected, and the
modulo scheduler tries the next II, as long as the II stays below the cycles
one iteration takes without pipelining; past that, the loop is left alone
with the reason ("needs N registers at once, M free"). Loops are transformed
one after the other; the text is read again after each. A loop tested at its
top is rotated first (:mod:`schedcc.swp.asm_rotate`; a body of several blocks then
if-converted, :mod:`schedcc.swp.asm_ifconv`) and the rotated text kept
only when the rotated loop is pipelined; otherwise the text stays as it was and
the reason says what was tried.

Example::

    >>> from schedcc.frontends import parse_source
    >>> src = parse_source(open("examples/swp/kernels-O2.s").read(), "kernels-O2.s")
    >>> res = pipeline_asm(src, load_target("la464"))
    >>> [(r.name, r.schedule.ii, r.cycles_before) for r in res.loops][:2]
    [('saxpy/.LBB0_2', 2, 11), ('dot/.LBB1_2', 5, 10)]
"""

from __future__ import annotations

import re
from collections.abc import Collection

from schedcc.frontends.source import Source
from schedcc.frontends.select import Selection
from schedcc.sched.lifetimes import register_pressure
from schedcc.sched.modulo import AcceptFunction, ModuloSchedule
from schedcc.swp.asm_codegen import generate_asm
from schedcc.swp.asm_ifconv import NotConverted, if_convert_asm
from schedcc.swp.asm_isa import isa_of
from schedcc.swp.asm_liveness import live_in
from schedcc.swp.asm_loops import AsmLoop, analyse_asm_loop, find_asm_loops
from schedcc.swp.asm_rotate import NotRotated, rotate_asm
from schedcc.swp.llvm_codegen import NotGenerated
from schedcc.swp.view import NotPipelined
from schedcc.swp.pipeliner import LoopResult, PipelineResult, schedule_loop
from schedcc.target import Target, check_opcodes, load_target


def pipeline_asm(source: Source, target: Target | str, algorithm: str = "ims",
                 accept: AcceptFunction | None = None, functions: Collection[str] | None = None,
                 select: Selection | None = None) -> PipelineResult:
    """Pipeline the loops of an assembly source; ``text`` of the result is the new file.
    *functions*: only the loops of these functions; *select* (``--function``, ``--block``):
    only the loops it chooses (the others are left out of the result)."""
    tgt = load_target(target)
    check_opcodes(source.program, tgt)
    isa = isa_of(source)
    current = source
    results: list[LoopResult] = []
    for found in find_asm_loops(source):
        if functions is not None and found.function.name not in functions:
            continue
        if select is not None and not select.wants_loop(found.function, found.block.label):
            continue
        base, done = current, ""
        if isinstance(found, NotPipelined) and found.kind == "multi-block":
            try:
                text, block, done = _one_block(current, found, isa)
            except (NotRotated, NotConverted) as err:
                what = ("not rotated: " if isinstance(err, NotRotated) else
                        "" if str(err).startswith("rotated") else "not if-converted: ")
                found = NotPipelined(found.function, found.block, f"{found.reason}; {what}{err}", found.kind)
            else:
                base = isa.parse(text, source.program.source)
                func = base.program.function(found.function.name)
                x = analyse_asm_loop(func, func.block(block), isa)
                if isinstance(x, NotPipelined):
                    why = re.sub(r" \(line [0-9?]+\)", "", x.reason)   # the rotated text's lines: left out
                    found = NotPipelined(found.function, found.block, f"{done}: {why}", x.kind)
                else:
                    found = x
        if isinstance(found, NotPipelined):
            results.append(schedule_loop(found, tgt, algorithm, accept))
            continue
        x = found if current is source or done else _again(current, found)
        live = live_in(x.loop.function, isa)
        made: dict[int, tuple] = {}

        def fits(sched: ModuloSchedule, x: AsmLoop = x, live=live, made=made, base=base) -> bool | str:
            verdict = accept(sched) if accept is not None else True
            if verdict is not True and verdict is not None:
                return verdict
            pressure = register_pressure(sched.graph, sched.ii, sched.cycle,
                                         frozenset(x.loop.address_only_uses()))
            try:
                made[sched.ii] = (pressure, *generate_asm(base.text, x, sched, pressure, live))
            except NotGenerated as err:
                return str(err)
            return True

        res = schedule_loop(x.loop, tgt, algorithm, fits)
        flat = res.cycles_before
        results.append(res)
        if not res.pipelined:
            if res.kind == "registers":
                need = res.reason.split("rejected: ")[-1][:-1]   # (schedule_loop closed it with a parenthesis)
                res.reason = (f"{need}, at every II below the {flat} cycles one iteration takes: the registers "
                              "run out before iterations can overlap")
            if done:
                res.reason = f"{done}: {res.reason}"
            continue
        res.pressure, text, res.code, res.registers_text = made[res.schedule.ii]
        res.rotated = done.startswith("the loop tests at its top")
        res.if_converted = "if-converted" in done
        current = isa.parse(text, source.program.source)
    return PipelineResult(source.program, tgt, results, None, current.text, "asm")


def _one_block(source: Source, found: NotPipelined, isa) -> tuple[str, str, str]:
    """The text with the loop of several blocks at *found* made one block (rotated when it
    tests at its top, then if-converted when its body has several blocks), the new loop's
    label and what was done; :class:`NotRotated` or :class:`NotConverted` with the reason."""
    name, header = found.function.name, found.block.label
    try:
        text, block = rotate_asm(source, name, header)
    except NotRotated as err:
        if err.top or "tests at its top" in found.reason:
            raise
        return if_convert_asm(source, name, header), header, "if-converted to one block"
    done = f"the loop tests at its top ('{header}'); rotated to test at its end in '{block}'"
    rotated = isa.parse(text, source.program.source)
    if block in rotated.program.function(name).block(block).successors():
        return text, block, done
    try:
        return if_convert_asm(rotated, name, block), block, f"{done}, then if-converted to one block"
    except NotConverted as err:
        raise NotConverted(f"rotated to test at its end in '{block}', then not if-converted: {err}") from None


def _again(source: Source, old: AsmLoop) -> AsmLoop:
    """The same loop in the text after earlier loops were transformed."""
    func = source.program.function(old.loop.function.name)
    found = analyse_asm_loop(func, func.block(old.loop.block.label), old.isa)
    if not isinstance(found, AsmLoop):
        raise AssertionError(f"internal: {old.name} is no longer a loop: {found.reason}")
    return found

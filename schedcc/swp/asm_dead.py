"""Dead definitions in generated assembly: an instruction whose result is written again
before anything reads it.

A rotated loop (:mod:`schedcc.swp.asm_rotate`) computes the header's values twice: at
the top of the body (what the body reads) and at its end (what the loop's branch
reads), ``addi.w $t1, $t0, 0`` both times for a counter read through its sign
extension. Pipelined and unrolled, only the last iteration of a kernel round keeps
its branch, so the other iterations' end copies are read by nothing: the next
iteration's top copy writes the register again first. :func:`drop_dead` removes
such definitions from the code the assembly code generator writes.

The test is local and needs nothing outside the code: within a straight run of
instructions (no label between, no branch or jump before), a definition followed by
another definition of the same register, with no read of it in between, is dead. Only
instructions whose one effect is that register are removed: no memory access, no
control transfer, no call; an instruction writing part of its destination
(``lu32i.d``, ``bstrins.d``: :data:`schedcc.frontends.loongarch_asm.TIED`) reads it.
O(n x the length of a run), in practice O(n).

Example::

    >>> from schedcc.ir import Const, Instr, Reg
    >>> from schedcc.swp.asm_isa import LOONGARCH
    >>> code = [Instr("addi.w", Reg("$t1"), (Reg("$t0"), Const(0))),
    ...         Instr("addi.d", Reg("$t0"), (Reg("$t0"), Const(1))),
    ...         Instr("addi.w", Reg("$t1"), (Reg("$t0"), Const(0))),
    ...         Instr("slli.d", Reg("$t2"), (Reg("$t1"), Const(2)))]
    >>> [str(i) for i in drop_dead(code, LOONGARCH, set())]
    ['$t0 = addi.d $t0, 1', '$t1 = addi.w $t0, 0', '$t2 = slli.d $t1, 2']
"""

from __future__ import annotations

from typing import Sequence, TypeVar

from schedcc.frontends.loongarch_asm import TIED
from schedcc.ir import Instr, Mem
from schedcc.swp.asm_isa import AsmIsa

Item = TypeVar("Item", Instr, str)


def _reads(ins: Instr) -> set[str]:
    return set(ins.uses()) | (set(ins.defs()) if ins.opcode in TIED else set())


def _removable(ins: Instr, isa: AsmIsa, labels: set[str]) -> bool:
    """Only a register is written: no memory, no control, no call, nothing hidden."""
    return (len(ins.defs()) == 1 and ins.defs()[0] != isa.zero and isa.control(ins, labels) == "next"
            and ins.opcode not in isa.loads and ins.opcode not in isa.stores and ins.attr("spill") is None
            and not any(isinstance(op, Mem) for op in ins.operands))


def drop_dead(code: Sequence[Item], isa: AsmIsa, labels: set[str]) -> list[Item]:
    """*code* (instructions, and labels as strings) without the dead definitions (see the
    module docstring); *labels*: the labels branches may name (for ``isa.control``)."""
    dead: set[int] = set()
    for i, ins in enumerate(code):
        if isinstance(ins, str) or not _removable(ins, isa, labels):
            continue
        reg = ins.defs()[0]
        for later in code[i + 1:]:
            if isinstance(later, str):
                break                          # a label: control may come in with the value live
            if reg in _reads(later):
                break
            if reg in later.defs():
                dead.add(i)
                break
            if isa.control(later, labels) != "next":
                break                          # a branch or a call: the value may be read there
    return [ins for i, ins in enumerate(code) if i not in dead]

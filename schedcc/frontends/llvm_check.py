"""What makes LLVM IR invalid that its grammar lets through: checked after a
function is read, so that schedcc never writes invalid LLVM IR back.

* a branch to a label the function does not define;
* a local value (``%x``) used but defined nowhere (not a parameter, not the
  result of an instruction, a ``phi`` or an ``alloca``);
* a local value defined twice (LLVM IR is in SSA form);
* a block that does not end with a terminator (``br``, ``switch``, ``ret``,
  ``unreachable``).

The schedcc IR front end reports the first of these too (``ir_structure``).

Example::

    >>> from schedcc.frontends.llvm_ir import parse_llvm
    >>> parse_llvm("define i32 @f(i32 %a) {\\nentry:\\n  %x = add i32 %zz, 1\\n  ret i32 %x\\n}\\n", "f.ll")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: f.ll:3:16: error: '%zz' is used but never defined in @f
        %x = add i32 %zz, 1
                     ^~~
      note: a local value is a parameter of @f or the result of one of its instructions
"""

from __future__ import annotations

from schedcc.errors import SchedccError
from schedcc.ir import Function, Label, Loc


def check_function(func: Function, defined: list[tuple[str, Loc | None]]) -> None:
    """Refuse *func* (as read from LLVM IR) when it is not valid LLVM IR; *defined*
    lists every local value an instruction of it defines, with where, in order
    (results of phis and allocas included). O(instructions + operands)."""
    name = f"@{func.name.lstrip('@')}"
    first: dict[str, Loc | None] = {}
    for value, loc in defined:
        if value in first:
            raise SchedccError(f"'{value}' is defined twice in {name}", loc, focus=value,
                               notes=[f"its first definition is at {first[value]}" if first[value] else
                                      "LLVM IR defines every value once (SSA form)"])
        first[value] = loc
    known = set(first) | {r.name for r in func.params}
    labels = {b.label for b in func.blocks}
    for block in func.blocks:
        for instr in block.instrs:
            for op in instr.operands:
                if isinstance(op, Label) and op.name not in labels:
                    raise SchedccError(f"branch to undefined label '%{op.name}'", instr.loc, focus=f"%{op.name}",
                                       notes=[f"the labels of {name}: " + ", ".join(sorted(labels))])
            for reg in instr.uses():
                if reg.startswith("%") and reg not in known:
                    raise SchedccError(f"'{reg}' is used but never defined in {name}", instr.loc, focus=reg,
                                       notes=[f"a local value is a parameter of {name} or the result of one "
                                              "of its instructions"])
        if not block.instrs or not block.instrs[-1].is_terminator:
            last = block.instrs[-1].loc if block.instrs else block.loc
            raise SchedccError(f"block '{block.label}' of {name} does not end with a terminator", last,
                               notes=["every block ends with br, switch, ret or unreachable"])




"""The schedcc IR: ``Program > Function > Block > Instr`` in frozen data classes.

:mod:`schedcc.ir.nodes` defines the classes and the printer (print -> parse
round-trips with :func:`schedcc.parse`).
"""

from schedcc.ir.nodes import (INFIX_OPCODES, OPCODE_INFIX, TERMINATORS, Affine, Attr, Block, Const, Function,
                              Instr, Label, Loc, Mem, Program, Reg, Sym, format_instr, print_block,
                              print_function, print_program, has_no_effect, NO_EFFECT_PREFIXES)

__all__ = ["INFIX_OPCODES", "OPCODE_INFIX", "TERMINATORS", "Affine", "Attr", "Block", "Const", "Function",
           "Instr", "Label", "Loc", "Mem", "Program", "Reg", "Sym", "format_instr", "print_block",
           "print_function", "print_program", "has_no_effect", "NO_EFFECT_PREFIXES"]

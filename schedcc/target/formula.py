"""Cost formulas: latencies and occupancies that depend on an instruction's operands, as data.

A class of a machine model may give ``latency`` or ``occupancy`` as a string
instead of a number: an arithmetic expression over the class's ``params``, the
instruction's numeric attributes and, in ``latency``, the ``occupancy`` just
computed for the same instruction (one line: at most :data:`MAX_LENGTH` characters)::

    [classes.copy_in]                              # a DMA: busy while it streams the data,
    occupancy = "ceil(bytes / bandwidth)"          # the result a start-up later
    latency = "startup + occupancy"
    params = { bandwidth = 64, startup = 200 }

Allowed: numbers, names, ``+ - * / //``, unary minus and the functions
``ceil floor min max``. A name that is not a parameter is an attribute the
instruction must carry, as a positive number. The value is rounded up to a
whole cycle; an occupancy is at least 1. A value below 0 or above
:data:`MAX_CYCLES` is an error naming the formula (and, from the model, the
class and the instruction).

The expression is parsed with Python's :mod:`ast` and checked node by node
when the model loads, so nothing but arithmetic is ever evaluated, and a
model names no Python function (machine models are data).

Example::

    >>> f = Formula.parse("startup + ceil(bytes / bandwidth)", "classes.copy_in.latency")
    >>> sorted(f.names)
    ['bandwidth', 'bytes', 'startup']
    >>> f.evaluate({"bandwidth": 64, "startup": 200, "bytes": 1000})
    216
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field
from typing import Mapping

FUNCTIONS = {"ceil": math.ceil, "floor": math.floor, "min": min, "max": max}
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.USub, ast.UAdd)

# Costs beyond this many cycles are refused: no instruction of a shipped model
# comes near it, and schedules stay within exact integer arithmetic.
MAX_CYCLES = 2**40
# A formula is one line: the shipped ones are under 100 characters. The bound keeps
# Python's parser and compiler, which recurse on nesting, far from their limits.
MAX_LENGTH = 1000


class FormulaError(ValueError):
    """The text is not an allowed formula; the message says which part."""


@dataclass(frozen=True)
class Formula:
    """A checked arithmetic expression; see the module docstring."""

    text: str
    names: frozenset[str]
    code: object = field(compare=False, repr=False)

    @classmethod
    def parse(cls, text: str, key: str = "") -> "Formula":
        """Check *text* (from the model's *key*) and compile it. Raises :class:`FormulaError`."""
        if len(text) > MAX_LENGTH:
            raise FormulaError(f"a formula of {len(text):,} characters: at most {MAX_LENGTH:,} (one line)")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as err:
            raise FormulaError(f"'{text}' is not an arithmetic expression ({err.msg})") from None
        except (RecursionError, MemoryError, ValueError):  # nesting Python's parser refuses; a 5,000-digit number
            raise FormulaError(f"'{text[:60]}...' nests too deep or has too long a number") from None
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                if node.id not in FUNCTIONS:
                    names.add(node.id)
            elif isinstance(node, ast.Call):
                if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                    raise FormulaError(f"'{text}': only {', '.join(FUNCTIONS)} may be called")
            elif isinstance(node, ast.Constant):
                if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                    raise FormulaError(f"'{text}': {node.value!r} is not a number")
            elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Load) + _OPERATORS):
                raise FormulaError(f"'{text}': {type(node).__name__} is not allowed in a cost formula "
                                   "(numbers, names, + - * / //, ceil floor min max)")
        try:
            code = compile(tree, key or "<formula>", "eval")
        except (RecursionError, MemoryError, ValueError):
            raise FormulaError(f"'{text[:60]}...' nests too deep") from None
        return cls(text, frozenset(names), code)

    def __str__(self) -> str:
        return self.text

    def evaluate(self, values: Mapping[str, float]) -> int:
        """The value for *values* (every name bound), rounded up to a whole cycle."""
        try:
            result = eval(self.code, {"__builtins__": {}, **FUNCTIONS}, dict(values))  # noqa: S307 (checked AST)
        except ZeroDivisionError:
            raise FormulaError(f"'{self.text}' divides by zero") from None
        except OverflowError:
            raise FormulaError(f"'{self.text}' overflows") from None
        if not isinstance(result, (int, float)) or math.isnan(result) or result > MAX_CYCLES:
            raise FormulaError(f"'{self.text}' gives {result!r}, more than {MAX_CYCLES} cycles")
        if result < 0:
            raise FormulaError(f"'{self.text}' gives {result:g}: a cost cannot be negative")
        return int(math.ceil(result))

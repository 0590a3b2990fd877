"""An interpreter for the schedcc IR: run a program and see what it computes.

Values are 64-bit integers (wrapping as two's complement) or floats. Memory
holds one value per element: every array ``A`` of the program (a name written
before ``[``) is an array of ``array_size`` elements, and every parameter used
as a pointer base (``[p + 8]``) points to an array of its own. Addresses
count bytes and every element takes 8 (``A[i]`` is the element at byte
``8 * i`` of A; ``[p + 8]`` is the element after ``[p]``), so a pointer
stepped by 8 walks an array.

Instructions execute in program order: the interpreter gives the meaning of
a program, not its timing. Blocks end with ``br c, L1, L2`` (L1 when c is
non-zero), ``jmp L``, ``ret [v]``, or fall through to the next block; a
function that runs off its end returns nothing. ``call f(args)`` calls
another function of the file. Reading a register before it is written,
dividing by zero, an address outside every array and a run longer than
``max_steps`` instructions are errors (:class:`SchedccError`) naming the
instruction.

Example::

    >>> from schedcc import parse
    >>> prog = parse('''func f(n) {
    ... entry:
    ...   s = 0
    ...   i = 0
    ... loop:
    ...   a = load A[i]
    ...   s = s + a
    ...   i = i + 1
    ...   c = i < n
    ...   br c, loop, exit
    ... exit:
    ...   ret s
    ... }''')
    >>> result = run_program(prog, "f", {"n": 3, "A": [1, 2, 3, 4]})
    >>> result.value, result.arrays["A"]
    (6, [1, 2, 3, 4])
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from schedcc.errors import SchedccError
from schedcc.ir import Block, Const, Function, Instr, Mem, Program, Reg, Sym

ELEMENT = 8          # bytes per element
SPACING = 1 << 32    # bytes between the bases of two arrays
MASK = (1 << 64) - 1

Value = int | float


def _wrap(x: int) -> int:
    x &= MASK
    return x - (1 << 64) if x >> 63 else x


def _int(x: Value, ins: Instr) -> int:
    if isinstance(x, float):
        if not math.isfinite(x):
            raise SchedccError(f"'{ins}' needs an integer, got {x}", ins.loc)
        return int(x)
    return x


def _idiv(a: int, b: int, ins: Instr) -> int:
    if b == 0:
        raise SchedccError(f"division by zero in '{ins}'", ins.loc)
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _irem(a: int, b: int, ins: Instr) -> int:
    return a - b * _idiv(a, b, ins)


def _fdiv(a: float, b: float) -> float:
    if b == 0:  # IEEE 754: x / 0 is an infinity, 0 / 0 is NaN
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


_INT_BINARY = {
    "add": lambda a, b, i: a + b, "sub": lambda a, b, i: a - b, "mul": lambda a, b, i: a * b,
    "div": _idiv, "rem": _irem,
    "and": lambda a, b, i: a & b, "or": lambda a, b, i: a | b, "xor": lambda a, b, i: a ^ b,
    "shl": lambda a, b, i: a << (b & 63), "shr": lambda a, b, i: a >> (b & 63),
}
_COMPARE = {
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
}
_FLOAT_BINARY = {
    "fadd": lambda a, b: a + b, "fsub": lambda a, b: a - b, "fmul": lambda a, b: a * b,
    "fdiv": _fdiv, "fmax": max, "fmin": min,
}
_FLOAT_UNARY = {
    "fneg": lambda a: -a, "fabs": abs, "fmov": lambda a: a,
    "fsqrt": lambda a: math.sqrt(a) if a >= 0 else math.nan,
}


@dataclass
class Memory:
    """Named arrays at distinct base addresses; addresses count bytes."""

    arrays: dict[str, list[Value]] = field(default_factory=dict)
    bases: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, values: list[Value]) -> int:
        base = (len(self.bases) + 1) * SPACING
        self.arrays[name] = values
        self.bases[name] = base
        return base

    def locate(self, address: int, ins: Instr) -> tuple[str, int]:
        slot, offset = divmod(address, SPACING)
        for name, base in self.bases.items():
            if base == slot * SPACING:
                index, misaligned = divmod(offset, ELEMENT)
                if misaligned:
                    raise SchedccError(f"'{ins}' accesses byte {offset} of {name}, not a multiple of {ELEMENT}",
                                       ins.loc)
                return name, index
        raise SchedccError(f"'{ins}' accesses address {address}, which is in no array", ins.loc)


@dataclass
class RunResult:
    value: Value | None
    arrays: dict[str, list[Value]]
    steps: int
    arguments: dict[str, Any]


class _Machine:
    def __init__(self, program: Program, memory: Memory, max_steps: int):
        self.program, self.memory, self.max_steps = program, memory, max_steps
        self.steps = 0
        self.funcs = {f.name: f for f in program.functions}

    def address(self, mem: Mem, regs: dict[str, Value], ins: Instr) -> tuple[str, int]:
        total = mem.index.const
        for r, coef in mem.index.terms:
            total += coef * _int(self.read(regs, r, ins), ins)
        if mem.array is None:
            return self.memory.locate(total, ins)
        return mem.array, total

    def read(self, regs: dict[str, Value], r: str, ins: Instr) -> Value:
        try:
            return regs[r]
        except KeyError:
            raise SchedccError(f"'{ins}' reads {r} before it is written", ins.loc) from None

    def value(self, op, regs, ins: Instr) -> Value:
        if isinstance(op, Const):
            return op.value
        if isinstance(op, Reg):
            return self.read(regs, op.name, ins)
        raise SchedccError(f"'{ins}': '{op}' is not a value", ins.loc)

    def load(self, where: tuple[str, int], ins: Instr) -> Value:
        name, index = where
        values = self.memory.arrays[name]
        if not 0 <= index < len(values):
            raise SchedccError(f"'{ins}' reads {name}[{index}], outside the array (size {len(values)})", ins.loc,
                               notes=["'schedcc run --array-size N' makes the arrays larger"])
        return values[index]

    def store(self, where: tuple[str, int], v: Value, ins: Instr) -> None:
        name, index = where
        values = self.memory.arrays[name]
        if not 0 <= index < len(values):
            raise SchedccError(f"'{ins}' writes {name}[{index}], outside the array (size {len(values)})", ins.loc,
                               notes=["'schedcc run --array-size N' makes the arrays larger"])
        values[index] = v

    def call(self, func: Function, args: list[Value], depth: int = 0) -> Value | None:
        if depth > 200:
            raise SchedccError(f"calls nested more than 200 deep (in '{func.name}')", func.loc)
        if len(args) != len(func.params):
            raise SchedccError(f"'{func.name}' takes {len(func.params)} arguments, got {len(args)}", func.loc)
        regs: dict[str, Value] = {p.name: a for p, a in zip(func.params, args)}
        index = {b.label: k for k, b in enumerate(func.blocks)}
        k = 0
        while k < len(func.blocks):
            block: Block = func.blocks[k]
            nxt = k + 1
            for ins in block.instrs:
                self.steps += 1
                if self.steps > self.max_steps:
                    raise SchedccError(f"stopped after {self.max_steps} instructions (an endless loop?)", ins.loc,
                                       notes=["'schedcc run --max-steps N' allows longer runs"])
                op = ins.opcode
                if op == "br":
                    c, a, b = ins.operands
                    nxt = index[(a if self.value(c, regs, ins) else b).name]
                    break
                if op == "jmp":
                    nxt = index[ins.operands[0].name]
                    break
                if op == "ret":
                    return self.value(ins.operands[0], regs, ins) if ins.operands else None
                result = self.execute(ins, regs, depth)
                if ins.dest is not None:
                    regs[ins.dest.name] = result
            k = nxt
        return None

    def execute(self, ins: Instr, regs: dict[str, Value], depth: int) -> Value | None:
        op = ins.opcode
        if op == "call":
            callee = ins.operands[0]
            assert isinstance(callee, Sym)
            func = self.funcs.get(callee.name)
            if func is None:
                raise SchedccError(f"call to '{callee.name}', which is not a function of this file", ins.loc)
            return self.call(func, [self.value(a, regs, ins) for a in ins.operands[1:]], depth + 1)
        if op == "nop":
            return None
        mem_r, mem_w = ins.mem_read, ins.mem_write
        if mem_w is not None:
            vals = [o for o in ins.operands if not isinstance(o, Mem)]
            if op != "store" and not op.startswith(("st", "fst", "copy_out")) or len(vals) != 1:
                raise SchedccError(f"the interpreter does not know what '{op}' writes", ins.loc)
            self.store(self.address(mem_w, regs, ins), self.value(vals[0], regs, ins), ins)
            return None
        if mem_r is not None:
            if len(ins.operands) != 1:
                raise SchedccError(f"the interpreter does not know what '{op}' computes", ins.loc)
            return self.load(self.address(mem_r, regs, ins), ins)
        args = [self.value(o, regs, ins) for o in ins.operands]
        if op in ("mov", "li", "move") and len(args) == 1:
            return args[0]
        if op in _INT_BINARY and len(args) == 2:
            if any(isinstance(a, float) for a in args) and op in ("add", "sub", "mul"):
                return _FLOAT_BINARY["f" + op](float(args[0]), float(args[1]))
            a, b = (_int(x, ins) for x in args)
            return _wrap(_INT_BINARY[op](a, b, ins))
        if op in _COMPARE and len(args) == 2:
            return int(_COMPARE[op](args[0], args[1]))
        if op in _FLOAT_BINARY and len(args) == 2:
            return _FLOAT_BINARY[op](float(args[0]), float(args[1]))
        if op == "fma" and len(args) == 3:
            return float(args[0]) * float(args[1]) + float(args[2])
        if op in _FLOAT_UNARY and len(args) == 1:
            return _FLOAT_UNARY[op](float(args[0]))
        if op == "neg" and len(args) == 1:
            return -args[0] if isinstance(args[0], float) else _wrap(-args[0])
        if op == "not" and len(args) == 1:
            return _wrap(~_int(args[0], ins))
        if op == "itof" and len(args) == 1:
            return float(args[0])
        if op == "ftoi" and len(args) == 1:
            return _int(args[0], ins)
        raise SchedccError(f"the interpreter does not know opcode '{op}' with {len(args)} operands", ins.loc,
                           notes=["it knows add sub mul div rem and or xor shl shr, lt le gt ge eq ne, neg not "
                                  "mov li, load store, fadd fsub fmul fdiv fma fneg fabs fsqrt fmax fmin, "
                                  "itof ftoi, call br jmp ret nop"])


# -- arguments ----------------------------------------------------------------------------

def memory_names(program: Program, func: Function) -> tuple[list[str], list[str]]:
    """(arrays named in the program, parameters of *func* used as pointer bases)."""
    arrays: dict[str, None] = {}
    bases: dict[str, None] = {}
    params = {p.name for p in func.params}
    for _, block in program.blocks():
        for ins in block.instrs:
            for op in ins.operands:
                if isinstance(op, Mem):
                    if op.array is not None:
                        arrays[op.array] = None
                    else:
                        for r in op.regs():
                            if r in params:
                                bases[r] = None
    return list(arrays), [p.name for p in func.params if p.name in bases]


def default_arguments(program: Program, func: Function, seed: int = 0, array_size: int = 64
                      ) -> dict[str, Any]:
    """Deterministic inputs: scalars small integers, arrays *array_size* random integers."""
    rng = random.Random(seed)
    arrays, pointers = memory_names(program, func)
    args: dict[str, Any] = {}
    for p in func.params:
        if p.name in pointers or p.name in arrays:
            continue
        args[p.name] = rng.randint(1, 16)
    for name in arrays + pointers:
        args[name] = [rng.randint(-9, 9) for _ in range(array_size)]
    return args


def run_program(program: Program, function: str | None = None, arguments: dict[str, Any] | None = None,
                seed: int = 0, array_size: int = 64, max_steps: int = 10_000_000) -> RunResult:
    """Run *function* (default: ``main`` if present, else the first) of *program*.

    *arguments* maps parameter and array names to values (a list for an array);
    the rest come from :func:`default_arguments`. Returns the return value and
    the final contents of every array."""
    if not program.functions:
        raise SchedccError("the program has no function to run")
    names = [f.name for f in program.functions]
    if function is None:
        function = "main" if "main" in names else names[0]
    if function not in names:
        raise SchedccError(f"no function '{function}' in the program", notes=[f"functions: {', '.join(names)}"])
    func = program.function(function)
    args = default_arguments(program, func, seed, array_size)
    arrays, pointers = memory_names(program, func)
    for key, value in (arguments or {}).items():
        if key not in args and key not in arrays and key not in {p.name for p in func.params}:
            raise SchedccError(f"'{key}' is neither a parameter of '{function}' nor an array of the program",
                               notes=[f"parameters: {', '.join(p.name for p in func.params) or 'none'}; "
                                      f"arrays: {', '.join(arrays + pointers) or 'none'}"])
        args[key] = value
    memory = Memory()
    values: dict[str, Value] = {}
    for name in arrays + pointers:
        v = args[name]
        if not isinstance(v, list):
            raise SchedccError(f"'{name}' is an array: give it as a list of values (NAME=1,2,3)")
        base = memory.add(name, list(v))
        if name in pointers:
            values[name] = base
    for p in func.params:
        if p.name not in values:
            v = args[p.name]
            if isinstance(v, list):
                raise SchedccError(f"'{p.name}' is a scalar parameter, not an array")
            values[p.name] = v
    machine = _Machine(program, memory, max_steps)
    result = machine.call(func, [values[p.name] for p in func.params])
    return RunResult(result, memory.arrays, machine.steps,
                     {p.name: values[p.name] for p in func.params if p.name not in pointers})


def format_value(v: Value | None) -> str:
    if v is None:
        return "none"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def format_result(result: RunResult) -> str:
    """Stable text: the return value, then every array, one line each, sorted by name."""
    lines = [f"return {format_value(result.value)}"]
    for name in sorted(result.arrays):
        values = result.arrays[name]
        lines.append(f"{name}[{len(values)}] = " + " ".join(format_value(v) for v in values))
    return "\n".join(lines) + "\n"

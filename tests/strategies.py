"""Hypothesis strategies for random straight-line programs."""

from hypothesis import strategies as st

REGS = [f"r{i}" for i in range(8)]
ARRAYS = ["A", "B"]


@st.composite
def instruction(draw, opcodes=("add", "sub", "mul")):
    kind = draw(st.sampled_from(["arith", "arith", "arith", "load", "store", "pload", "pstore", "div", "call"]))
    reg = st.sampled_from(REGS)
    if kind == "arith":
        op = draw(st.sampled_from(["+", "-", "*", "&"]))
        return f"{draw(reg)} = {draw(reg)} {op} {draw(st.one_of(reg, st.integers(0, 9).map(str)))}"
    if kind == "div":
        return f"{draw(reg)} = {draw(reg)} / {draw(reg)}"
    index = f"{draw(st.sampled_from(['i', 'j', 'r1']))} + {draw(st.integers(0, 3))}"
    if kind == "load":
        return f"{draw(reg)} = load {draw(st.sampled_from(ARRAYS))}[{index}]"
    if kind == "store":
        return f"store {draw(st.sampled_from(ARRAYS))}[{index}], {draw(reg)}"
    if kind == "pload":
        return f"{draw(reg)} = load [p + {8 * draw(st.integers(0, 3))}]"
    if kind == "pstore":
        return f"store [{draw(st.sampled_from(['p', 'r2']))} + {8 * draw(st.integers(0, 3))}], {draw(reg)}"
    return f"{draw(reg)} = call f({draw(reg)})"


@st.composite
def straight_line(draw, min_size=1, max_size=30):
    lines = draw(st.lists(instruction(), min_size=min_size, max_size=max_size))
    return "\n".join(lines) + "\n"


@st.composite
def memory_instruction(draw):
    """Loads and stores that stress the alias rules: ``{private = true}`` on some
    accesses of an array and not on others (an LLVM alloca whose address may or may
    not escape), distinct arrays, the very same element, pointers that may reach it."""
    kind = draw(st.sampled_from(["load", "store", "pload", "pstore", "arith"]))
    reg = st.sampled_from(REGS[:4])
    if kind == "arith":
        return f"{draw(reg)} = {draw(reg)} + {draw(reg)}"
    array = draw(st.sampled_from(["A", "B", "C"]))
    index = draw(st.sampled_from(["i", "i + 1", "j", "0"]))
    private = " {private = true}" if draw(st.booleans()) else ""
    if kind == "load":
        return f"{draw(reg)} = load {array}[{index}]{private}"
    if kind == "store":
        return f"store {array}[{index}], {draw(reg)}{private}"
    pointer = draw(st.sampled_from(["p", "q"]))
    if kind == "pload":
        return f"{draw(reg)} = load [{pointer}]"
    return f"store [{pointer}], {draw(reg)}"


@st.composite
def memory_block(draw, max_size=12):
    lines = draw(st.lists(memory_instruction(), min_size=2, max_size=max_size))
    return "\n".join(lines) + "\nret r0\n"

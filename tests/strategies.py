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

"""The regex fast path must build exactly what the Lark grammar builds, line for line."""

from hypothesis import given, settings
from hypothesis import strategies as st

from schedcc import parse

names = st.sampled_from(["a", "b", "t0", "x1", "$t0", "%v", "i", "k", "r.2", "e5", "call", "func"])
numbers = st.sampled_from(["0", "7", "42", "0x1f", "2.5", "1e3", ".5"])
values = st.one_of(names, numbers)
ops = st.sampled_from(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!="])
space = st.sampled_from(["", " ", "  ", "\t"])
index = st.one_of(names, st.tuples(names, st.sampled_from(["+", "-"]), st.integers(0, 20))
                  .map(lambda t: f"{t[0]} {t[1]} {t[2]}"), st.integers(0, 9).map(str))
comment = st.sampled_from(["", " # c", " // c"])


@st.composite
def lines(draw):
    kind = draw(st.sampled_from(["binary", "load", "store", "pload", "pstore", "other"]))
    s = draw(space)
    if kind == "binary":
        return f"{s}{draw(names)}{draw(space)}={draw(space)}{draw(values)}{draw(space)}{draw(ops)}{draw(space)}{draw(values)}{draw(comment)}"
    if kind == "load":
        return f"{s}{draw(names)} = load {draw(st.sampled_from(['A', 'B2']))}[{draw(index)}]{draw(comment)}"
    if kind == "store":
        return f"{s}store {draw(st.sampled_from(['A', 'B2']))}[{draw(index)}], {draw(values)}{draw(comment)}"
    if kind == "pload":
        return f"{s}{draw(names)} = load [{draw(index)}]{draw(comment)}"
    if kind == "pstore":
        return f"{s}store [{draw(index)}], {draw(values)}{draw(comment)}"
    return f"{s}{draw(names)} = {draw(values)}{draw(comment)}"


def outcome(text, fast):
    try:
        prog = parse(text, "f.ir", fast=fast)
    except Exception as err:  # noqa: BLE001 - compare the error, whatever it is
        return ("error", type(err).__name__, getattr(err, "loc", None))
    return ("ok", prog, [(i.loc, i.syntax, i.opcode_loc) for _, b in prog.blocks() for i in b.instrs])


@settings(max_examples=300, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=6))
def test_fast_path_equals_grammar(block):
    text = "\n".join(block) + "\n"
    assert outcome(text, fast=True) == outcome(text, fast=False)

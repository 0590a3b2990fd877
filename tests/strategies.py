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


# -- blocks that exercise the memory alias rules (docs/dag.md) ---------------------------

def _attrs(private: bool, width: int) -> str:
    parts = (["private = true"] if private else []) + ([f"width = {width}"] if width != 1 else [])
    return f" {{{', '.join(parts)}}}" if parts else ""


_ARRAY_REF = st.tuples(st.sampled_from(["A", "B"]), st.sampled_from(["i", "i", "2*i", "k"]),
                       st.integers(0, 2), st.sampled_from([1, 1, 2]))
_POINTER_REF = st.tuples(st.sampled_from(["p", "p", "q"]), st.integers(0, 3), st.sampled_from([1, 4, 8]))


@st.composite
def memory_block(draw, min_size=2, max_size=16):
    """A block full of memory accesses, ending in ``ret``.

    Accesses pick their addresses from a small pool drawn per block, so the same
    element, elements a constant apart, other variables and coefficients, overlapping
    widths and pointer references with the same or another base meet often. ``private``
    is drawn per block: on no access, on every access of some arrays, or on each
    access at random (hand-written IR may mix them). Redefinitions of the address
    registers, arithmetic and calls (barriers) come in between."""
    arrays = draw(st.lists(_ARRAY_REF, min_size=1, max_size=4))
    pointers = draw(st.lists(_POINTER_REF, min_size=1, max_size=3))
    mode = draw(st.sampled_from(["none", "arrays", "mixed", "mixed"]))
    private_arrays = draw(st.sampled_from([("B",), ("A", "B")]))
    val = st.sampled_from(["r0", "r1", "r2", "r3"])
    lines = []
    for _ in range(draw(st.integers(min_size, max_size))):
        kind = draw(st.sampled_from(["aload", "astore", "aload", "astore", "pload", "pstore",
                                     "redef", "arith", "call"]))
        if kind == "redef":
            reg = draw(st.sampled_from(["i", "k", "p", "q"]))
            lines.append(f"{reg} = {reg} + {8 if reg in ('p', 'q') else 1}")
        elif kind == "arith":
            lines.append(f"{draw(val)} = {draw(val)} {draw(st.sampled_from(['+', '*']))} {draw(val)}")
        elif kind == "call":
            lines.append(f"{draw(val)} = call f({draw(val)})")
        elif kind in ("aload", "astore"):
            array, var, const, width = draw(st.sampled_from(arrays))
            private = (mode == "arrays" and array in private_arrays
                       or mode == "mixed" and draw(st.booleans()))
            ref = f"{array}[{var} + {const}]"
            attrs = _attrs(private, width)
            lines.append(f"{draw(val)} = load {ref}{attrs}" if kind == "aload" else f"store {ref}, {draw(val)}{attrs}")
        else:
            base, offset, width = draw(st.sampled_from(pointers))
            ref = f"[{base} + {4 * offset}]"
            attrs = _attrs(False, width)
            lines.append(f"{draw(val)} = load {ref}{attrs}" if kind == "pload" else f"store {ref}, {draw(val)}{attrs}")
    return "\n".join(lines + [f"ret {draw(st.sampled_from(['r0', 'r1']))}"]) + "\n"

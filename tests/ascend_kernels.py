"""Hypothesis strategy: random but well-formed Ascend kernels (straight-line IR text).

Tiles come from small pools per buffer so that names are reused (WAR and WAW
between pipes); global-memory arrays are indexed by constants and by a scalar
that the kernel updates, so memory dependences appear too.
"""

from hypothesis import strategies as st

POOLS = {"UB": ["a_ub", "b_ub", "c_ub"], "L1": ["a_l1", "b_l1"], "L0A": ["a_l0a"],
         "L0B": ["b_l0b"], "L0C": ["c_l0c", "d_l0c"]}
VEC = ["vadd", "vmul", "vexp", "vsub", "vreduce_sum", "vdiv", "vcast"]


@st.composite
def ascend_kernel(draw, max_ops=24, fixpipe_to_gm=True):
    n = draw(st.integers(1, max_ops))
    defined = {b: [] for b in POOLS}
    lines = []
    size = draw(st.sampled_from(["1KiB", "2KiB"]))
    for _ in range(n):
        choices = ["copy_in", "load_l1", "scalar"]
        if defined["UB"]:
            choices += ["vec", "vec", "copy_out", "get_value"]
        if defined["L1"]:
            choices += ["load_l0a", "load_l0b"]
        if defined["L0A"] and defined["L0B"]:
            choices += ["mmad"]
        if defined["L0C"] and fixpipe_to_gm:
            choices += ["fixpipe"]
        kind = draw(st.sampled_from(choices))
        arr = draw(st.sampled_from(["xGm", "yGm"]))
        idx = draw(st.sampled_from(["0", "1", "i", "i + 1"]))

        def pick_def(buf):
            name = draw(st.sampled_from(POOLS[buf]))
            if name not in defined[buf]:
                defined[buf].append(name)
            return name

        if kind == "copy_in":
            lines.append(f"{pick_def('UB')} = copy_in {arr}[{idx}] {{bytes = {size}}}")
        elif kind == "load_l1":
            lines.append(f"{pick_def('L1')} = load_l1 {arr}[{idx}] {{bytes = {size}}}")
        elif kind == "scalar":
            lines.append(draw(st.sampled_from(["i = i + 1", "j = i * 2", "i = j + 1"])))
        elif kind == "vec":
            op = draw(st.sampled_from(VEC))
            srcs = [draw(st.sampled_from(defined["UB"])) for _ in range(2)]
            two = op in ("vadd", "vmul", "vsub", "vdiv")
            dst = pick_def("UB")
            lines.append(f"{dst} = {op} {srcs[0]}{', ' + srcs[1] if two else ''} {{bytes = {size}}}")
        elif kind == "copy_out":
            lines.append(f"copy_out {arr}[{idx}], {draw(st.sampled_from(defined['UB']))} {{bytes = {size}}}")
        elif kind == "get_value":
            lines.append(f"j = get_value {draw(st.sampled_from(defined['UB']))}")
        elif kind in ("load_l0a", "load_l0b"):
            buf = "L0A" if kind == "load_l0a" else "L0B"
            src = draw(st.sampled_from(defined["L1"]))
            lines.append(f"{pick_def(buf)} = {kind} {src} {{bytes = {size}}}")
        elif kind == "mmad":
            lines.append(f"{pick_def('L0C')} = mmad {defined['L0A'][0]}, {defined['L0B'][0]} "
                         "{m = 16, k = 32, n = 16}")
        elif kind == "fixpipe":
            lines.append(f"fixpipe {arr}[{idx}], {draw(st.sampled_from(defined['L0C']))} {{bytes = {size}}}")
    return "\n".join(lines) + "\n"

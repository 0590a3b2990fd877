"""The ``width`` attribute: an access covers ``width`` units from its offset,
and overlapping ranges alias (in the DAG builder and, independently, the verifier)."""

import pytest

from schedcc import parse
from schedcc.dag import build_dag
from schedcc.verifier.block import VerificationError, verify


def _block(text):
    return parse(text).functions[0].blocks[0]


@pytest.mark.parametrize("store_off, store_w, load_off, load_w, alias", [
    (0, 4, 4, 8, False),   # [0,4) and [4,12)
    (0, 8, 4, 4, True),    # st.d at 0 covers 4..7
    (4, 4, 0, 8, True),    # ld.d at 0 covers 4..7
    (0, 4, 0, 4, True),
    (8, 4, 0, 8, False),
    (0, 1, 1, 1, False),   # default width 1: the old rule
])
def test_width_ranges(store_off, store_w, load_off, load_w, alias):
    text = (f"store [p + {store_off}], x {{width = {store_w}}}\n"
            f"y = load [p + {load_off}] {{width = {load_w}}}\n")
    block = _block(text)
    dag = build_dag(block, "mips4")
    assert dag.has_dep(0, 1) == alias
    # the verifier agrees: issuing the load first is legal exactly when they do not alias
    cycle, unit = {0: 1, 1: 0}, {0: "ALU", 1: "ALU"}
    if alias:
        with pytest.raises(VerificationError, match="memory"):
            verify(block, "mips4", cycle, unit)
    else:
        verify(block, "mips4", cycle, unit)


def test_width_without_attribute_keeps_old_rule():
    dag = build_dag(_block("store A[i], x\ny = load A[i+1]\nstore A[i+1], y\n"), "generic")
    assert not dag.has_dep(0, 1) and dag.has_dep(1, 2)


def test_same_key_store_does_not_hide_wider_store():
    # st.d [p+0] then st.w [p+0]: a later load of [p+4] still depends on the st.d.
    block = _block("store [p + 0], x {width = 8}\nstore [p + 0], y {width = 4}\n"
                   "z = load [p + 4] {width = 4}\n")
    dag = build_dag(block, "generic")
    assert dag.has_dep(0, 2) and not dag.has_dep(1, 2)


# -- private arrays: no pointer reference reaches them ---------------------------

@pytest.mark.parametrize("private, alias", [(True, False), (False, True)])
def test_private_array_and_pointer(private, alias):
    attr = ", private = true" if private else ""
    block = _block(f"store A[0], x {{width = 4{attr}}}\ny = load [p] {{width = 4}}\n"
                   f"store [p + 8], y {{width = 4}}\nz = load A[0] {{width = 4{attr}}}\n")
    dag = build_dag(block, "mips4")
    assert dag.has_dep(0, 1) == alias and dag.has_dep(2, 3) == alias
    cycle, unit = {0: 1, 1: 0, 2: 5, 3: 4}, {k: "ALU" for k in range(4)}
    if alias:
        with pytest.raises(VerificationError, match="memory"):
            verify(block, "mips4", cycle, unit)
    else:
        verify(block, "mips4", cycle, unit)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from schedcc.sched import list_schedule  # noqa: E402


@st.composite
def _memory_block(draw):
    lines = []
    for k in range(draw(st.integers(2, 14))):
        where = draw(st.sampled_from(["A", "B", "p", "q"]))
        off = draw(st.integers(0, 12))
        width = draw(st.sampled_from([1, 2, 4, 8]))
        ref = f"[{where} + {off}]" if where in "pq" else f"{where}[{off}]"
        attrs = f"width = {width}" + (", private = true" if where == "A" else "")
        if draw(st.booleans()):
            lines.append(f"store {ref}, v{k} {{{attrs}}}")
        else:
            lines.append(f"v{k + 100} = load {ref} {{{attrs}}}")
    return "\n".join(lines) + "\n"


@settings(max_examples=80, deadline=None)
@given(text=_memory_block(), data=st.data())
def test_private_and_widths_dag_and_verifier_agree(text, data):
    """The list schedule of any such block verifies; and the verifier's fast
    memory check finds the same violations as comparing every pair."""
    import sys

    block = _block(text)
    for target in ("la464", "mips4"):
        dag = build_dag(block, target)
        s = list_schedule(dag, target)
        verify(block, target, s.cycle, s.unit)
    v = sys.modules["schedcc.verifier.block"]
    n = len(block.instrs)
    cycle = {i: data.draw(st.integers(0, 2 * n)) for i in range(n)}

    def violations(check):
        saved = v._check_memory
        v._check_memory = check
        try:
            verify(block, "generic", cycle, {i: "ALU" for i in range(n)})
            return set()
        except VerificationError as err:
            return {x.split(" at cycle")[0] for x in err.violations if "memory" in x}
        finally:
            v._check_memory = saved

    def pairwise(refs, cycle, latency, tgt, need):
        for j, b in enumerate(refs):
            for a in refs[:j]:
                if v._conflict(a, b):
                    bound = max([latency[a.index]] * (a.writes and b.reads) + [tgt.waw_latency] *
                                (a.writes and b.writes) + [tgt.war_latency] * (a.reads and b.writes))
                    need(a.index, b.index, bound, "accesses memory out of order with")

    assert violations(v._check_memory) == violations(pairwise)

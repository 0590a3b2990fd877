"""The ``width`` attribute: an access covers ``width`` units from its offset,
and overlapping ranges alias (in the DAG builder and, independently, the verifier)."""

import pytest

from schedcc import parse
from schedcc.dag import build_dag
from schedcc.sched.verify import VerificationError, verify


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
    assert dag.has_edge(0, 1) == alias
    # the verifier agrees: issuing the load first is legal exactly when they do not alias
    cycle, unit = {0: 1, 1: 0}, {0: "ALU", 1: "ALU"}
    if alias:
        with pytest.raises(VerificationError, match="memory"):
            verify(block, "mips4", cycle, unit)
    else:
        verify(block, "mips4", cycle, unit)


def test_width_without_attribute_keeps_old_rule():
    dag = build_dag(_block("store A[i], x\ny = load A[i+1]\nstore A[i+1], y\n"), "generic")
    assert not dag.has_edge(0, 1) and dag.has_edge(1, 2)


def test_same_key_store_does_not_hide_wider_store():
    # st.d [p+0] then st.w [p+0]: a later load of [p+4] still depends on the st.d.
    block = _block("store [p + 0], x {width = 8}\nstore [p + 0], y {width = 4}\n"
                   "z = load [p + 4] {width = 4}\n")
    dag = build_dag(block, "generic")
    assert dag.has_edge(0, 2) and not dag.has_edge(1, 2)

"""Dependence edges: registers, memory alias rules, barriers, the terminator, and linear size."""

import pytest

from schedcc import parse
from schedcc.dag import HUGE_REGION, build_dag
from schedcc.target import load_target

MIPS4 = load_target("mips4")


def edges(text, target=MIPS4):
    dag = build_dag(parse(text).functions[0].blocks[0], target)
    return {(d.src, d.dst): (d.kind, d.latency, d.reason, d.detail or None) for d in dag.deps}


def test_register_dependences_and_latencies():
    e = edges("a = b + c\nd = a + b\nb = 1\na = 2\n")
    assert e[(0, 1)] == ("RAW", 3, "a", None)
    assert e[(0, 2)][0] == "WAR" and e[(0, 2)][1] == 0      # b read by 0, written by 2
    assert e[(1, 2)][:2] == ("WAR", 0)
    assert e[(1, 3)][:2] == ("WAR", 0)                       # a read by 1, rewritten by 3
    assert (0, 3) not in e or e[(0, 3)][0] in ("WAW",)       # WAW implied by 0 -> 1 -> 3


def test_waw_without_reader():
    e = edges("a = 1\na = 2\n")
    assert e == {(0, 1): ("WAW", 1, "a", None)}


def test_waw_and_war_latencies_come_from_the_target(tmp_path):
    text = (load_target("mips4").path and open(load_target("mips4").path).read())
    text = text.replace("war_latency = 0", "war_latency = 2").replace("waw_latency = 1", "waw_latency = 4")
    path = tmp_path / "slow.toml"
    path.write_text(text)
    e = edges("a = 1\na = 2\nb = a + 1\na = 3\n", load_target(str(path)))
    assert e[(0, 1)][:2] == ("WAW", 4)
    assert e[(2, 3)][:2] == ("WAR", 2)


@pytest.mark.parametrize("first,second,dependent", [
    ("store A[i], x", "y = load A[i]", True),          # same location
    ("store A[i], x", "y = load A[i+1]", False),       # same array, constant apart
    ("store A[2*i], x", "y = load A[2*i+1]", False),
    ("store A[i], x", "y = load B[i]", False),         # different arrays never alias
    ("store A[i], x", "y = load A[k]", True),          # different variables: may alias
    ("store A[i], x", "y = load A[2*i]", True),
    ("store [p + 8], x", "y = load [p + 16]", False),  # same base, different offsets
    ("store [p + 8], x", "y = load [p + 8]", True),
    ("store [p], x", "y = load [q]", True),            # different bases may alias
    ("store [p], x", "y = load A[i]", True),           # a pointer may point into any array
    ("y = load A[i]", "store A[i], x", True),          # WAR through memory
    ("y = load A[i]", "z = load A[i]", False),         # two loads never conflict
    ("store A[i], x", "store A[i], z", True),          # WAW through memory
])
def test_alias_rules(first, second, dependent):
    e = edges(f"{first}\n{second}\n")
    assert ((0, 1) in e) == dependent
    if dependent:
        assert e[(0, 1)][0] == "MEM"


def test_memory_hazard_kinds_and_latencies():
    e = edges("store A[i], x\ny = load A[i]\nstore A[i], y\n")
    assert e[(0, 1)] == ("MEM", 3, "A[i]", "RAW")
    assert e[(1, 2)][0] == "RAW"  # y flows from 1 to 2 (register RAW dominates the memory WAR)


def test_redefined_index_breaks_disambiguation():
    # A[i] before and after i changes are different locations for all we know.
    e = edges("store A[i], x\ni = i + 1\ny = load A[i+1]\n")
    assert (0, 2) in e and e[(0, 2)][0] == "MEM"
    # without the redefinition A[i] and A[i+1] never meet
    assert (0, 1) not in edges("store A[i], x\ny = load A[i+1]\n")


def test_calls_are_barriers():
    e = edges("store A[i], x\nr = call f(a)\ny = load B[j]\nz = a + 1\n")
    assert (0, 1) in e and (1, 2) in e
    assert (1, 3) not in e  # arithmetic moves freely across a call


def test_unknown_side_effect_is_barrier():
    e = edges("store A[i], x\nfence\ny = load B[j]\n", load_target("generic"))
    assert (0, 1) in e and (1, 2) in e


def test_terminator_stays_last():
    text = "func f() {\nentry:\n  a = 1\n  b = 2\n  c = a + b\n  d = 4\n  ret c\n}\n"
    dag = build_dag(parse(text).functions[0].blocks[0], MIPS4)
    import networkx as nx
    assert all(dag.has_path(n, 4) for n in range(4))
    assert dag.dep(3, 4).kind == "CTRL"


def test_edge_count_is_linear_in_block_size():
    # Many loads of distinct locations followed by many unknown stores: the
    # naive all-pairs edge set is quadratic; the builder stays linear.
    n = 4000
    lines = [f"x{k} = load A[i + {k}]" for k in range(n)] + [f"store A[k{k}], v" for k in range(n)]
    dag = build_dag(parse("\n".join(lines) + "\n").functions[0].blocks[0], MIPS4)
    assert len(dag.deps) <= (HUGE_REGION + 2) * 2 * n


def test_opcode_unknown_to_target_is_located_error():
    from schedcc.errors import SchedccError
    block = parse("x = mul.w a, b\ny = fmadd.q x, x\n", "k.ir").functions[0].blocks[0]
    with pytest.raises(SchedccError) as exc:
        build_dag(block, load_target("la464"))
    err = exc.value
    assert "has no opcode 'fmadd.q'" in err.message and err.loc.line == 2 and err.loc.col == 5
    assert any("fmadd.s" in n or "fmadd.d" in n for n in err.notes)

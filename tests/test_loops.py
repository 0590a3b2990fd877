"""Loop recognition and loop-carried dependences with distances (schedcc.swp.loops)."""

import pytest

from schedcc import parse
from schedcc.swp.analysis import memory_distances
from schedcc.swp.dependences import loop_dag
from schedcc.swp.loops import find_loops
from schedcc.swp.view import Access, Linear, LoopView, NotPipelined


def loop_of(body: str, test: str = "c = i < n", br: str = "br c, loop, exit", init: str = "i = 0",
            params: str = "n"):
    text = f"func f({params}) {{\nentry:\n  {init}\nloop:\n" + "".join(f"  {x}\n" for x in body.splitlines()) \
        + f"  {test}\n  {br}\nexit:\n  ret i\n}}\n"
    (loop,) = find_loops(parse(text).functions[0])
    return loop


def edges(loop, target="generic"):
    g = loop_dag(loop, target)
    return {(d.src, d.dst): (d.kind, d.latency, d.distance) for d in g.deps}


def test_lecture_loop_is_recognised(root):
    prog = parse((root / "examples/loops/lecture_cj.ir").read_text())
    (loop,) = find_loops(prog.functions[0])
    assert isinstance(loop, LoopView)
    assert (loop.iv.reg, loop.iv.step) == ("j", 1)
    assert loop.exit.op == "lt" and loop.exit.offset == 1 and str(loop.exit.bound) == "MAX"
    assert loop.exit_label == "exit"


def test_store_then_load_two_back_is_distance_two():
    loop = loop_of("a = load A[i-2]\nstore A[i], a\ni = i + 1")
    e = edges(loop)
    assert e[(1, 0)] == ("MEM", 1, 2)  # store A[i] in iteration k, load A[i-2] in k+2
    assert e[(0, 1)] == ("RAW", 1, 0)


def test_even_and_odd_elements_never_meet():
    loop = loop_of("o = load A[2*i+1]\nstore A[2*i], o\ni = i + 1")
    e = edges(loop)
    assert (1, 0) not in e and e[(0, 1)][0] == "RAW"


def test_distance_counts_the_step():
    # i steps by 2: A[i] and A[i-4] are 2 iterations apart; A[i-3] never meets A[i].
    loop = loop_of("a = load A[i-4]\nb = load A[i-3]\nstore A[i], a\ni = i + 2")
    e = edges(loop)
    assert e[(2, 0)][2] == 2
    assert (2, 1) not in e


def test_unanalysable_access_is_distance_one():
    loop = loop_of("k = load B[i]\nh = load H[k]\nh2 = h + 1\nstore H[k], h2\ni = i + 1")
    e = edges(loop)
    assert e[(3, 1)] == ("MEM", 1, 1)       # the store may feed the next iteration's load
    assert e[(1, 3)][2] == 0                # and the load comes before the store


def test_register_recurrence_has_distance_one():
    loop = loop_of("a = load A[i]\ns = s + a\ni = i + 1", init="i = 0\n  s = 0")
    e = edges(loop)
    assert e[(1, 1)] == ("RAW", 1, 1)
    assert e[(2, 2)] == ("RAW", 1, 1)
    assert e[(0, 1)] == ("RAW", 1, 0)


def test_no_war_or_waw_register_edges():
    # Modulo variable expansion renames values, so only true dependences constrain.
    loop = loop_of("t = load A[i]\nstore B[i], t\nt = load C[i]\nstore D[i], t\ni = i + 1")
    assert all(kind in ("RAW", "MEM") for kind, _, _ in edges(loop).values())


def test_branch_is_pinned_to_the_kernel_end():
    loop = loop_of("a = load A[i]\ni = i + 1")
    g = loop_dag(loop, "generic")
    assert g.ops[loop.exit.branch].kernel_end


@pytest.mark.parametrize("test,br,op,label", [
    ("c = i < n", "br c, loop, exit", "lt", "exit"),
    ("c = n > i", "br c, loop, exit", "lt", "exit"),
    ("c = i >= n", "br c, exit, loop", "lt", "exit"),
    ("c = i <= n", "br c, loop, done", "le", "done"),
])
def test_exit_tests_are_normalised(test, br, op, label):
    text = ("func f(n) {\nentry:\n  i = 0\nloop:\n  i = i + 1\n"
            f"  {test}\n  {br}\nexit:\n  ret i\ndone:\n  ret 0\n}}\n")
    (loop,) = find_loops(parse(text).functions[0])
    assert isinstance(loop, LoopView), loop
    assert (loop.exit.op, loop.exit_label) == (op, label)


@pytest.mark.parametrize("body,test,br,words", [
    ("a = load A[i]\nb = call g(a)\ni = i + 1", "c = i < n", "br c, loop, exit", "calls 'g'"),
    ("a = load A[i]\ni = a + 1", "c = i < n", "br c, loop, exit", "no induction variable"),
    ("i = i + 1", "c = i != n", "br c, loop, exit", "write the test with < or >"),
    ("i = i + 1", "c = i > n", "br c, loop, exit", "counts up"),
    ("i = i + 1\nm = load A[i]", "c = m < n", "br c, loop, exit", "does not compare an induction variable"),
    ("i = i + 1\nk = load A[i]", "c = i < k", "br c, loop, exit", "does not compare"),
])
def test_not_pipelined_reasons(body, test, br, words):
    loop = loop_of(body, test, br)
    assert isinstance(loop, NotPipelined)
    assert words in loop.reason


def test_multi_block_loop_is_reported(root):
    prog = parse((root / "examples/loops/not_pipelined.ir").read_text())
    reasons = [lp.reason for f in prog.functions for lp in find_loops(f)]
    assert any("spans 3 blocks" in r for r in reasons)
    assert len(reasons) == 4 and not any(isinstance(lp, LoopView) for f in prog.functions for lp in find_loops(f))


def test_memory_distances_directly():
    def at(region, terms, const, step):
        return Access(0, region, Linear(terms, const, step), 1, True)
    a = at("A", (("i", 1),), 0, 1)
    assert memory_distances(a, at("A", (("i", 1),), -2, 1)) == [2]
    assert memory_distances(a, at("A", (("i", 1),), 2, 1)) == []   # the other direction
    assert memory_distances(a, at("B", (("i", 1),), 0, 1)) == []
    assert memory_distances(a, at(None, (("p", 1),), 0, 8)) is None
    assert memory_distances(at("A", (), 3, 0), at("A", (), 3, 0)) == [0, 1]

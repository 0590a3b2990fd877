"""ResMII and the exact RecMII (schedcc.sched.mii)."""

import itertools
import math

import networkx as nx
from hypothesis import given, settings, strategies as st

from schedcc.sched.mii import rec_mii, res_mii


def node(g, n, units=("ALU",), occ=1, also=(), lat=1):
    g.add_node(n, units=units, occupancy=occ, also=also, latency=lat)


def test_issue_width_bound():
    g = nx.DiGraph()
    for n in range(9):
        node(g, n, units=("A0", "A1", "A2", "A3"))
    assert res_mii(g, 4).value == 3


def test_unit_subsets_are_combined():
    # 3 ops only on ALU0/ALU1 and 5 on any of ALU0-ALU3: 8 ops on 4 units -> 2,
    # but the 3 confined ones need ceil(3/2) = 2 as well; add one more confined op -> still 2;
    # two more confined ones -> 5 on 2 units -> 3.
    g = nx.DiGraph()
    for n in range(5):
        node(g, n, units=("ALU0", "ALU1"))
    for n in range(5, 10):
        node(g, n, units=("ALU0", "ALU1", "ALU2", "ALU3"))
    b = res_mii(g, 8)
    assert b.value == 3 and "ALU0/ALU1" in b.reason


def test_occupancy_and_extra_resources():
    g = nx.DiGraph()
    node(g, 0, units=("ALU0",), also=(("IDIV", 11),))
    node(g, 1, units=("ALU0",), also=(("IDIV", 11),))
    assert res_mii(g, 4).value == 22
    assert res_mii(g, 4, capacity={"IDIV": 2}).value == 11
    h = nx.DiGraph()
    node(h, 0, units=("FDIV",), occ=7)
    assert res_mii(h, 1).value == 7


def brute_rec_mii(g):
    best = 0
    for cycle in nx.simple_cycles(g):
        pairs = list(zip(cycle, cycle[1:] + cycle[:1]))
        lat = sum(g.edges[u, v]["latency"] for u, v in pairs)
        dist = sum(g.edges[u, v]["distance"] for u, v in pairs)
        best = max(best, math.ceil(lat / dist))
    return best


@st.composite
def cyclic_graphs(draw):
    n = draw(st.integers(2, 7))
    g = nx.DiGraph()
    for k in range(n):
        g.add_node(k, latency=1)
    for u, v in itertools.permutations(range(n), 2):
        if draw(st.booleans()):
            # forward edges may have distance 0; backward ones need >= 1 (no zero-distance cycle)
            dist = draw(st.integers(0 if u < v else 1, 3))
            g.add_edge(u, v, latency=draw(st.integers(0, 9)), distance=dist)
    for k in range(n):
        if draw(st.integers(0, 4)) == 0:
            g.add_edge(k, k, latency=draw(st.integers(1, 9)), distance=draw(st.integers(1, 3)))
    return g


@settings(max_examples=150, deadline=None)
@given(cyclic_graphs())
def test_rec_mii_matches_brute_force(g):
    got = rec_mii(g)
    assert got.value == brute_rec_mii(g)
    if got.value:
        c = got.cycle
        pairs = list(zip(c, c[1:] + c[:1]))
        assert all(g.has_edge(u, v) for u, v in pairs)
        assert math.ceil(got.latency / got.distance) == got.value


def test_many_recurrences_stay_fast():
    import time
    g = nx.DiGraph()
    n = 200
    for k in range(n):
        g.add_node(k, latency=1)
    for k in range(n - 1):
        g.add_edge(k, k + 1, latency=3, distance=0)
    for k in range(0, n - 5, 3):
        g.add_edge(k + 5, k, latency=1, distance=1 + k % 4)
    t0 = time.perf_counter()
    value = rec_mii(g).value
    assert time.perf_counter() - t0 < 2.0
    assert value == 16  # 5 edges of latency 3 + 1 back over distance 1


def test_rec_mii_of_a_2000_operation_loop_is_fast_and_exact():
    """Issue 10: the MII search grew about n^3 (Floyd-Warshall per binary-search step);
    Howard's policy iteration finds the maximum cycle ratio in near-linear time."""
    import random
    import time
    from schedcc.swp.loopgen import random_loop
    from schedcc.swp.dependences import loop_dag
    from schedcc.swp.loops import find_loops
    from schedcc import parse
    loop = find_loops(parse(random_loop(random.Random(0), 2000)).function("f"))[0]
    dag = loop_dag(loop, "la464")
    t0 = time.perf_counter()
    got = rec_mii(dag)
    assert time.perf_counter() - t0 < 15.0  # about 1 s on the project machine
    assert got.value == math.ceil(got.latency / got.distance)
    # the cycle it reports is a cycle of the graph with those sums
    pairs = list(zip(got.cycle, got.cycle[1:] + got.cycle[:1]))
    edges = {(d.src, d.dst): d for d in dag.deps}
    assert all(p in edges for p in pairs)


def test_zero_distance_cycle_of_latency_zero_takes_the_exact_search():
    g = nx.DiGraph()
    for k in range(3):
        g.add_node(k, latency=1)
    g.add_edge(0, 1, latency=0, distance=0)
    g.add_edge(1, 0, latency=0, distance=0)  # a distance-0 cycle that constrains nothing
    g.add_edge(1, 2, latency=4, distance=0)
    g.add_edge(2, 0, latency=3, distance=2)
    assert rec_mii(g).value == 4  # 0 -> 1 -> 2 -> 0: latency 7 over distance 2


@settings(max_examples=100, deadline=None)
@given(cyclic_graphs())
def test_howard_agrees_with_the_binary_search(g):
    from schedcc.problem import as_graph
    from schedcc.sched.mii import _rec_mii_by_search, max_cycle_ratio
    sg = as_graph(g)
    comps = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1 or g.has_edge(*(list(c) * 2))]
    for nodes in comps:
        inside = [(d.src, d.dst, d.latency, d.distance) for d in sg.deps if d.src in nodes and d.dst in nodes]
        lat, dist, _ = max_cycle_ratio(nodes, inside)
        searched = _rec_mii_by_search(nodes, inside)
        assert (math.ceil(lat / dist) if lat > 0 else None) == searched


from schedcc.sched.mii import strongly_connected  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=30))))
def test_strongly_connected_yields_networkx_components_in_networkx_order(case):
    """The order matters: the first component of the largest ratio names the recurrence."""
    n, arcs = case
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(arcs)
    assert list(strongly_connected(n, arcs)) == list(nx.strongly_connected_components(g))

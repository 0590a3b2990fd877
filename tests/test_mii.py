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

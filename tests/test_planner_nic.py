"""Pipeline transfers and data-parallel collectives share a rank's NIC (issue 22, planner/nic.py).

A transfer between nodes and a collective between nodes that overlap on one rank's NIC
slow each other (max-min fair share); inside a node (NVLink) they do not, nor on the
NICs of ranks that are neither the sender nor the receiver, nor when they do not overlap.
"""

import pytest

from schedcc.planner import ModelSpec
from schedcc.planner.nic import NicUse, fair_shares, shared_nics
from schedcc.planner.pipe import action_lists, step_graph
from schedcc.planner.score import Context, _durations, _stage_params, finish, prepare
from schedcc.planner.space import Candidate
from schedcc.problem import Machine, Op, SchedGraph
from schedcc.sched.solve import ListStrategy, solve

SMALL = ModelSpec(layers=16, hidden=2048, heads=16, seq=2048, vocab=32000, name="small")


def _graph(ops):
    units = tuple(sorted({op.units[0] for op in ops}))
    return SchedGraph(tuple(ops), (), Machine("m", len(ops), units))


def _op(name, unit, dur, use):
    return Op(name, (unit,), dur, dur, (), "comm", False, use)


def test_overlapping_transfer_and_collective_on_one_nic_slow_each_other():
    x = _op("xfer", "r0:pp", 1000, NicUse(1.0, (0, 1)))
    # on the sender's NIC, half of the transfer under the reduction: that half at half speed
    g = shared_nics(_graph([x, _op("grad", "r0:dp", 4000, NicUse(1.0, (0,)))]), {0: 0, 1: 500})
    assert [op.latency for op in g.ops] == [1500, 4500]
    # on the receiver's NIC (its way in) alike
    g = shared_nics(_graph([x, _op("grad", "r1:dp", 4000, NicUse(1.0, (1,)))]), {0: 0, 1: 0})
    assert [op.latency for op in g.ops] == [2000, 5000]


@pytest.mark.parametrize("xfer_load, grad_load, grad_rank, grad_start", [
    (0.0, 1.0, 0, 0),      # the transfer stays inside a node (NVLink)
    (1.0, 0.0, 0, 0),      # the collective stays inside a node
    (1.0, 1.0, 2, 0),      # the collective is on another rank's NIC
    (1.0, 1.0, 0, 1000),   # they do not overlap in time
])
def test_no_slowdown_on_separate_links_or_without_overlap(xfer_load, grad_load, grad_rank, grad_start):
    ops = [_op("xfer", "r0:pp", 1000, NicUse(xfer_load, (0, 1))),
           _op("grad", f"r{grad_rank}:dp", 4000, NicUse(grad_load, (grad_rank,)))]
    assert shared_nics(_graph(ops), {0: 0, 1: grad_start}) is None


def test_fair_shares_fill_the_link_and_keep_what_fits():
    for a in (0.1, 0.4, 0.5, 0.9, 1.0):
        for b in (0.1, 0.4, 0.5, 0.9, 1.0):
            sa, sb = fair_shares(a, b)
            assert sa <= a and sb <= b
            assert sa + sb == pytest.approx(min(1.0, a + b))
            if a + b > 1:
                assert min(sa, sb) == pytest.approx(min(a, b, 0.5))


def _scheduled(cand, gpus, batch):
    ctx = Context(SMALL, "dgx-a100", gpus, batch)
    p = prepare(cand, ctx)
    lists = action_lists(p.candidate, p.microbatches)
    graph, _ = step_graph(p.candidate, ctx.settings, ctx.cluster, SMALL, lists, _durations(p.times),
                          _stage_params(SMALL, p.candidate, p.layers), ctx.sharding(p.candidate))
    prio = [-i for i in range(len(graph.ops))]
    start = solve(graph, ListStrategy(lambda g: prio, repair=False), bound=False, verify=False).schedule.cycle
    return ctx, p, graph, start


def _makespan(graph):
    prio = [-i for i in range(len(graph.ops))]
    start = solve(graph, ListStrategy(lambda g: prio, repair=False), bound=False, verify=False).schedule.cycle
    return max(start[i] + op.latency for i, op in enumerate(graph.ops))


def test_interleaved_pipeline_across_nodes_pays_for_its_shared_nics():
    # tp8 x dp4 x pp2 on 8 DGX A100 nodes: the next pipeline rank is 32 GPUs away and each of the
    # four data-parallel peers is in another node, so both cross the NICs (the reduction all of
    # its time); the reduction of the drain's first chunks runs while the last chunks still send
    cand = Candidate(4, 8, 2, virtual=2, microbatch=1, schedule="interleaved", zero=1, sp=True)
    ctx, p, graph, start = _scheduled(cand, 64, 64)
    assert min(op.payload.load for op in graph.ops if op.name.startswith(("grad", "xfer"))) > 0.9
    shared = shared_nics(graph, start)
    assert shared is not None
    longer = [i for i, (a, b) in enumerate(zip(graph.ops, shared.ops)) if b.latency > a.latency]
    assert {graph.ops[i].name for i in longer} >= {"xfer"}
    assert any(graph.ops[i].name.startswith(("grad", "gather")) for i in longer)
    assert _makespan(shared) >= _makespan(graph)
    assert finish(p, ctx).step_time_s * 1e9 == pytest.approx(_makespan(shared), abs=2)


def test_a_collective_that_leaves_half_the_nic_free_is_not_slowed():
    # dp16 x pp2: a hierarchical reduction (8 peers a node over NVLink, then between 2 nodes)
    # keeps its NIC busy less than half its time; the transfer takes the rest and pays alone
    cand = Candidate(16, 1, 2, virtual=2, microbatch=1, schedule="interleaved", zero=1)
    _, _, graph, start = _scheduled(cand, 32, 64)
    assert all(0 < op.payload.load < 0.5 for op in graph.ops if op.name.startswith(("grad", "gather")))
    shared = shared_nics(graph, start)
    assert shared is not None
    longer = {a.name[:4] for a, b in zip(graph.ops, shared.ops) if b.latency > a.latency}
    assert longer == {"xfer"}


@pytest.mark.parametrize("cand, gpus", [
    (Candidate(4, 2, 2, virtual=2, microbatch=1, schedule="interleaved", zero=1), 16),   # dp inside a node
    (Candidate(2, 1, 4, virtual=2, microbatch=1, schedule="interleaved", zero=1), 8),    # all inside a node
])
def test_no_sharing_when_the_data_parallel_group_or_the_pipeline_stays_in_a_node(cand, gpus):
    _, _, graph, start = _scheduled(cand, gpus, 64)
    assert shared_nics(graph, start) is None


@pytest.mark.parametrize("tp, cp, crosses", [(4, 2, False), (8, 2, True), (2, 8, True), (1, 8, False)])
def test_context_parallel_ring_crossing_nodes_runs_at_nic_speed(tp, cp, crosses):
    # cp ranks tp apart: the ring stays in a DGX node while tp x cp <= 8, else its hops between
    # nodes (each step waits for the slowest) go over InfiniBand
    from schedcc.planner.layer import _Layer
    from schedcc.planner.space import Settings
    from schedcc.target import load_target
    from schedcc.training.costs import cluster_of
    cl = cluster_of(load_target("dgx-h100"))
    layer = _Layer(SMALL, Candidate(1, tp, 1, cp=cp, sp=tp > 1), Settings(), cl)
    kv = next(op for op in layer.forward() if op.name == "kv0")
    nbytes = 2 * SMALL.seq / cp * max(SMALL.kv / tp, 1) * SMALL.head_dim * 2
    assert kv.dur == pytest.approx(cl.collective_time("send", nbytes, 2, 8 if crosses else 1))
    assert (cl.net_time("send", nbytes, 2, layer.cp_stride) > 0) == crosses

"""Merging independent collectives of FX graphs into one call (schedcc.torch.coalesce, issue 18):
each kind keeps every output bit for bit, a dependent pair is never merged, the cost model's
choice, and reorder(rebucket=True) on the tiny tensor-parallel graph."""

import copy

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

import torch_models as tm  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import schedcc.torch as st  # noqa: E402
from schedcc.torch import coalesce as co  # noqa: E402
from schedcc.torch import spmd  # noqa: E402

_C = torch.ops._c10d_functional
W = 4


def _all_reduce(a, b):
    x = _C.wait_tensor(_C.all_reduce(a.sin(), "sum", "0"))
    y = _C.wait_tensor(_C.all_reduce((b * 3).cos(), "sum", "0"))
    return x + 1, y.relu()


def _all_gather(a, b):
    x = _C.wait_tensor(_C.all_gather_into_tensor(a.sin(), W, "0"))
    y = _C.wait_tensor(_C.all_gather_into_tensor(b.cos(), W, "0"))
    return x * 2, y + 1


def _reduce_scatter(a, b):
    x = _C.wait_tensor(_C.reduce_scatter_tensor(a.sin(), "sum", W, "0"))
    y = _C.wait_tensor(_C.reduce_scatter_tensor(b.cos(), "sum", W, "0"))
    return x * 2, y + 1


def _count(gm, target):
    return sum(n.target == target for n in gm.graph.nodes)


# inputs of different shapes and sizes: a wrong offset or layout reads other bytes
INPUTS = (torch.randn(8, 3, 5), torch.randn(12, 7))


@pytest.mark.parametrize("fn, target", [(_all_reduce, _C.all_reduce.default),
                                        (_all_gather, _C.all_gather_into_tensor.default),
                                        (_reduce_scatter, _C.reduce_scatter_tensor.default)])
def test_each_kind_merged_keeps_every_output_bit_for_bit(fn, target):
    original = make_fx(fn, tracing_mode="fake")(*INPUTS)
    gm = copy.deepcopy(original)
    singles = co.find_singles(gm)
    assert len(singles) == 2 and singles[0].pool() == singles[1].pool()
    lines = co.apply(gm, [[s.name for s in singles]])
    assert lines == [f"{singles[0].kind}: 2 collectives merged into 1 call (2)"]
    gm.graph.lint()
    assert _count(original, target) == 2 and _count(gm, target) == 1
    assert spmd.compare(original, gm, inputs=list(INPUTS), default_size=W) == []


def _naive_gather(a, b):  # the flat result split as if it were input-major: wrong, rank-major it is not
    flat = _C.wait_tensor(_C.all_gather_into_tensor(torch.cat([a.sin().view(-1), b.cos().view(-1)]), W, "0"))
    x, y = flat.split([W * a.numel(), W * b.numel()])
    return x.view(W * a.shape[0], *a.shape[1:]) * 2, y.view(W * b.shape[0], *b.shape[1:]) + 1


def _naive_scatter(a, b):  # the inputs concatenated flat: each rank would receive the wrong chunk
    flat = _C.wait_tensor(_C.reduce_scatter_tensor(torch.cat([a.sin().view(-1), b.cos().view(-1)]), "sum", W, "0"))
    x, y = flat.split([a.numel() // W, b.numel() // W])
    return x.view(a.shape[0] // W, *a.shape[1:]) * 2, y.view(b.shape[0] // W, *b.shape[1:]) + 1


@pytest.mark.parametrize("fn, naive", [(_all_gather, _naive_gather), (_reduce_scatter, _naive_scatter)])
def test_a_merge_that_ignores_the_rank_major_layout_is_seen(fn, naive):
    original = make_fx(fn, tracing_mode="fake")(*INPUTS)
    wrong = make_fx(naive, tracing_mode="fake")(*INPUTS)
    assert spmd.compare(original, wrong, inputs=list(INPUTS), default_size=W) != []


def _dependent(a, b):
    x = _C.wait_tensor(_C.all_reduce(a.sin(), "sum", "0"))
    y = _C.wait_tensor(_C.all_reduce((b + x.sum()).cos(), "sum", "0"))  # reads the first one's result
    z = _C.wait_tensor(_C.all_reduce(b.exp(), "sum", "0"))
    return x, y, z


def test_a_dependent_pair_is_never_merged():
    inputs = (torch.randn(64, 64), torch.randn(64, 64))
    gm = make_fx(_dependent, tracing_mode="fake")(*inputs)
    first, second, third = (s.name for s in co.find_singles(gm))
    before = [n.name for n in gm.graph.nodes]
    with pytest.raises(ValueError, match="cycle"):
        co.apply(gm, [[first, second]])
    assert [n.name for n in gm.graph.nodes] == before
    # the cost model (all latency: one call would be cheapest) never groups the dependent pair
    from schedcc.torch.fx_graph import build_step
    from schedcc.torch.fx_reorder import durations, target_of
    from schedcc.torch import fx_streams as fs
    from schedcc.torch.fx_best import best_order
    step = build_step(gm, target_of("h100-8x"), {"0": 8})
    dur = durations(step)
    calls = co.plan(step, dur, fs.timeline(step, best_order(step, dur)[0], dur)[3], "schedcc")
    assert calls and all(not {first, second} <= set(c) for c in calls)
    original = copy.deepcopy(gm)
    co.apply(gm, calls)
    assert spmd.compare(original, gm, inputs=list(inputs), default_size=8) == []


def test_the_cost_model_chooses_the_calls():
    def cost(latency, bandwidth):
        return lambda group: latency + bandwidth * len(group)
    free = lambda group: True  # noqa: E731
    # latency-bound, results needed at the end: one call
    assert co.merge_groups([0, 10, 20], cost(100, 1), free) == [[0, 1, 2]]
    # bandwidth-bound: each leaves when it is made, no call waits for the last input
    assert co.merge_groups([0, 100, 200], cost(1, 90), free) == [[0], [1], [2]]
    # latency-bound: waiting for the last input (70) costs less than a second latency (ends 173, not 203)
    assert co.merge_groups([0, 60, 70], cost(100, 1), free) == [[0, 1, 2]]
    # ... unless the first result is needed when it would end alone (101): 72 ticks late would cost more
    assert co.merge_groups([0, 60, 70], cost(100, 1), free, need=[101, 10**6, 10**6]) == [[0], [1, 2]]
    # a pair that may not share a call is cut
    assert co.merge_groups([0, 10, 20], cost(100, 1), lambda g: not {0, 1} <= set(g)) == [[0], [1, 2]]


def test_reorder_merges_the_tiny_tp_graphs_layer_norm_all_reduces():
    gm, inputs = tm.capture_family("tp", "tiny", functional=True)
    for est in ("schedcc", "inductor"):
        plain = st.reorder(copy.deepcopy(gm), "h100-8x", groups={"0": tm.WORLD}, estimates=est)
        changed = copy.deepcopy(gm)
        r = st.reorder(changed, "h100-8x", groups={"0": tm.WORLD}, estimates=est, rebucket=True)
        assert any("all_reduce:" in line and "merged into" in line for line in r.rebucketed), r.rebucketed
        assert _count(changed, _C.all_reduce.default) < _count(gm, _C.all_reduce.default)
        assert r.after.step_time_us < plain.after.step_time_us
        changed.graph.lint()
        assert spmd.compare(gm, changed, default_size=tm.WORLD) == []


def _written_between(a, b):
    x = _C.wait_tensor(_C.all_reduce(a.sin(), "sum", "0"))
    out = x + b  # reads b before it is written
    b.add_(1)
    y = _C.wait_tensor(_C.all_reduce(b.cos(), "sum", "0"))
    return out, y


def test_collectives_with_a_write_between_them_are_not_merged():
    inputs = (torch.randn(16), torch.randn(16))
    gm = make_fx(_written_between, tracing_mode="fake")(*inputs)
    first, second = (s.name for s in co.find_singles(gm))
    before = [n.name for n in gm.graph.nodes]
    # merged, x + b would move after the call, so after b.add_(1): refused, the graph unchanged
    with pytest.raises(ValueError, match="writes memory"):
        co.apply(gm, [[first, second]])
    assert [n.name for n in gm.graph.nodes] == before

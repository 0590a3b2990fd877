"""The issue's goal "a 10,000-node FX graph reordered in under 10 s", as a test (issue 18).

bench/bench_torch_fx.py's ``big_graph()`` measures it on a captured FSDP2 graph (24 blocks, 10,169 nodes;
capturing it takes minutes of CPU). Here the graph is built node by node (no tracing: 1 s of CPU), a shape the
bench does not have: a chain of 1,666 layers, each a GEMM, a ReLU and a column sum all-reduced on one group
(DDP-like: 1,666 collectives, each wanted by nothing but the output). Every node carries ``meta["val"]`` (on
the meta device), as make_fx gives it."""

import time

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

from torch import fx  # noqa: E402

import schedcc.torch as st  # noqa: E402

NODES = 10_000
BUDGET_CPU_S = 10.0  # the goal


def chain(layers: int, hidden: int = 128, rows: int = 64) -> fx.GraphModule:
    aten, c10d = torch.ops.aten, torch.ops._c10d_functional
    g = fx.Graph()

    def node(target, args, shape, op="call_function"):
        n = g.call_function(target, args) if op == "call_function" else g.placeholder(target)
        n.meta["val"] = torch.empty(shape, device="meta")
        return n

    h = node("x", (), (rows, hidden), "placeholder")
    outs = []
    for i in range(layers):
        w = node(f"w{i}", (), (hidden, hidden), "placeholder")
        h = node(aten.relu.default, (node(aten.mm.default, (h, w), (rows, hidden)),), (rows, hidden))
        s = node(aten.sum.dim_IntList, (h, [0]), (hidden,))
        outs.append(node(c10d.wait_tensor.default, (node(c10d.all_reduce.default, (s, "sum", "0"), (hidden,)),),
                         (hidden,)))
    g.output((h, outs))
    return fx.GraphModule(torch.nn.Module(), g)


def test_a_10000_node_graph_is_reordered_in_under_10_s_of_cpu():
    gm = chain((NODES - 2) // 6)
    nodes = sum(1 for _ in gm.graph.nodes)
    assert NODES - 6 <= nodes <= NODES
    t = time.process_time()
    r = st.reorder(gm, "h100-8x", groups={"0": 8})
    seconds = time.process_time() - t
    gm.graph.lint()
    assert r.after.step_time_us < r.before.step_time_us  # the all-reduces now hide behind the next layers
    assert seconds < BUDGET_CPU_S, f"{nodes} nodes reordered in {seconds:.2f} s CPU"

"""The cluster cost model and the cluster machine models."""

import re
from pathlib import Path

import pytest

from schedcc.errors import SchedccError
from schedcc.target import list_targets, load_target
from schedcc.training.costs import (Cluster, apply_overrides, cluster_of, parse_overrides, parse_quantity)

CLUSTERS = ["h100-8x", "h100-128x", "ascend910b-8x", "ascend910b-128x"]


def simple(**kw):
    base = dict(peak_flops=1e15, efficiency=0.5, hbm_bw=2e12, link_bw=1e11, link_latency=1e-5,
                net_bw=1e10, net_latency=1e-4, devices_per_node=8, nodes=4)
    base.update(kw)
    return Cluster(**base)


def test_compute_is_the_roofline_maximum():
    c = simple()
    assert c.compute_time(flops=1e12) == pytest.approx(2e-3)
    assert c.compute_time(bytes=2e9) == pytest.approx(1e-3)
    assert c.compute_time(flops=1e12, bytes=8e9) == pytest.approx(4e-3)
    assert c.compute_time() == 0


@pytest.mark.parametrize("p", [2, 4, 8])
def test_ring_factors_inside_a_node(p):
    c = simple()
    size = 1e9
    assert c.collective_time("allreduce", size, p) == pytest.approx(2 * (p - 1) / p * size / 1e11 + 2 * (p - 1) * 1e-5)
    for kind in ("allgather", "reduce_scatter"):
        assert c.collective_time(kind, size, p) == pytest.approx((p - 1) / p * size / 1e11 + (p - 1) * 1e-5)


def test_between_nodes_ring_tree_and_hierarchical():
    c = simple()
    size = 1e9
    # stride 8: every member on its own node: a flat ring over the network
    assert c.collective_time("allreduce", size, 4, stride=8) == pytest.approx(2 * 3 / 4 * size / 1e10 + 6 * 1e-4)
    tree = simple(inter_algorithm="tree")
    assert tree.collective_time("allreduce", size, 4, stride=8) == pytest.approx(2 * size / 1e10 + 2 * 2 * 1e-4)
    # 32 devices, 8 per node: reduce-scatter and all-gather inside, all-reduce of size/8 across 4 nodes
    intra = 7 / 8 * size / 1e11 + 7 * 1e-5
    inter = 2 * 3 / 4 * (size / 8) / 1e10 + 6 * 1e-4
    assert c.collective_time("allreduce", size, 32) == pytest.approx(2 * intra + inter)
    assert c.placement(32) == (8, 4) and c.placement(8, stride=4) == (2, 4)


def test_point_to_point_and_trivial_groups():
    c = simple()
    assert c.collective_time("send", 1e9, 2, stride=1) == pytest.approx(1e-5 + 1e-2)
    assert c.collective_time("send", 1e9, 2, stride=8) == pytest.approx(1e-4 + 1e-1)
    assert c.collective_time("allreduce", 1e9, 1) == 0
    assert c.collective_time("allreduce", 0, 8) == 0


@pytest.mark.parametrize("text,value", [("200GB/s", 2e11), ("5us", 5e-6), ("989TFLOPS", 9.89e14),
                                        ("0.5", 0.5), ("1.5e3", 1500.0), ("400Gbps", 5e10)])
def test_quantities(text, value):
    assert parse_quantity(text) == pytest.approx(value)


@pytest.mark.parametrize("bad", ["fast", "5 parsecs", ""])
def test_bad_quantities(bad):
    with pytest.raises(SchedccError):
        parse_quantity(bad, "link_bw")


def test_every_target_file_loads_and_clusters_are_listed():
    names = {t.name for t in list_targets()}
    assert set(CLUSTERS) <= names
    for name in CLUSTERS:
        c = cluster_of(load_target(name))
        assert c.world == (8 if name.endswith("-8x") else 128)


@pytest.mark.parametrize("name", CLUSTERS)
def test_every_cluster_number_has_a_source_or_is_an_assumption(name, root):
    text = (root / "targets" / f"{name}.toml").read_text()
    body = text.split("\n[cluster]\n", 1)[1]
    for line in body.splitlines():
        if "=" in line and not line.strip().startswith("#"):
            assert re.search(r"#\s*\[(h100|h100wp|cutlass|dgx|a2|rep|ascendc|assumption)\]", line), line


def test_overrides_change_the_costs_and_are_checked():
    t = load_target("h100-8x")
    t2 = apply_overrides(t, parse_overrides(["link_bw=200GB/s"]))
    assert cluster_of(t2).link_bw == pytest.approx(2e11)
    assert cluster_of(t).link_bw == pytest.approx(4.5e11)  # the original is untouched
    with pytest.raises(SchedccError, match="unknown cluster parameter 'link_bandwidth'"):
        apply_overrides(t, {"link_bandwidth": "1GB/s"})
    with pytest.raises(SchedccError, match="KEY=VALUE"):
        parse_overrides(["link_bw"])
    with pytest.raises(SchedccError, match="no \\[cluster\\] table"):
        apply_overrides(load_target("mips4"), {"link_bw": "1GB/s"})


def test_a_training_step_is_priced_by_the_training_graph_builder(root):
    from schedcc import parse
    from schedcc.dag import build_dag
    from schedcc.training.graph import build_training_graph
    prog = parse("a = matmul x {flops = 4.4e12}\nr = allreduce a {bytes = 128MiB, group = dp, ranks = 8}\n")
    t = load_target("h100-8x")
    tg = build_training_graph(prog, t)
    c = cluster_of(t)
    assert tg.graph.nodes[0]["dur"] == round(c.compute_time(4.4e12) * 1e9)
    assert tg.graph.nodes[1]["dur"] == round(c.collective_time("allreduce", 128 * 2**20, 8) * 1e9)
    assert tg.graph.edges[0, 1]["kind"] == "RAW"
    # the instruction DAG builder knows no cluster costs (targets are data): it says where to go
    with pytest.raises(SchedccError, match="cluster model.*schedcc.training"):
        build_dag(prog.functions[0].blocks[0], t)


def test_a_bad_cluster_table_is_a_located_error(tmp_path):
    from schedcc.target import parse_target
    text = (Path(__file__).resolve().parent.parent / "targets" / "h100-8x.toml").read_text()
    bad = text.replace("hbm_bw = 3.35e12", 'hbm_bw = "fast"')
    t = parse_target(bad, "bad.toml")
    with pytest.raises(SchedccError, match="cluster.hbm_bw"):
        cluster_of(t)
    weird = parse_target("cluster = 5\n" + text.replace("[cluster]", "[notcluster]"), "weird.toml")
    with pytest.raises(SchedccError, match="not a cluster model"):
        cluster_of(weird)

"""Re-bucketing collectives of FX graphs (schedcc.torch.rebucket, issue 18): the buckets found in
real captured graphs, splits and merges that keep every output bit for bit, the cost model's
choice of calls, reorder(rebucket=True) and the command line."""

import copy

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

import torch_models as tm  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import schedcc.torch as st  # noqa: E402
from schedcc.torch import rebucket as rb  # noqa: E402
from schedcc.torch import spmd  # noqa: E402

_graphs: dict = {}
_C = torch.ops._c10d_functional


def graph(family: str, inputs: bool = False):
    if family not in _graphs:
        _graphs[family] = tm.capture_family(family, "tiny", functional=True)
    gm, args = _graphs[family]
    return (copy.deepcopy(gm), args) if inputs else copy.deepcopy(gm)


def buckets_by_pool(gm):
    pools = {}
    for b in rb.find_buckets(gm):
        if len(b.pieces) > 1:
            pools.setdefault(b.pool(), []).append(b)
    return pools


def collectives(gm, target):
    return sum(n.target == target for n in gm.graph.nodes)


@pytest.mark.parametrize("family, kind", [("ddp", "all_reduce"), ("fsdp", "reduce_scatter"), ("moe", "all_reduce")])
def test_splits_and_merges_keep_every_output_bit_for_bit(family, kind):
    original = graph(family)
    pools = buckets_by_pool(original)
    assert pools and all(key[0] == kind for key in pools), "the family's buckets are found"
    # each piece alone, then every pool's pieces interleaved into two calls (merging buckets)
    for mode in ("alone", "interleaved"):
        gm = copy.deepcopy(original)
        calls = []
        for bs in buckets_by_pool(gm).values():
            pieces = [(b.name, k) for b in bs for k in range(len(b.pieces))]
            calls += [[p] for p in pieces] if mode == "alone" else [pieces[0::2], pieces[1::2]]
        lines = rb.apply(gm, calls)
        assert lines and all(line.startswith(kind) for line in lines)
        gm.graph.lint()
        target = _C.all_reduce.default if kind == "all_reduce" else _C.reduce_scatter_tensor.default
        assert collectives(gm, target) == collectives(original, target) - sum(map(len, pools.values())) + len(calls)
        assert spmd.compare(original, gm, default_size=tm.WORLD) == [], mode


def test_a_piece_read_from_the_wrong_call_is_seen():
    original = graph("ddp")
    gm = copy.deepcopy(original)
    (b,) = [b for bs in buckets_by_pool(gm).values() for b in bs]
    rb.apply(gm, [[(b.name, k)] for k in range(len(b.pieces))])
    a, c = (n for n in gm.graph.nodes if n.name.endswith(("_c0_piece0", "_c1_piece0")))
    c.replace_input_with(c.args[0], a.args[0])  # the second piece now reads the first's call (same size)
    gm.recompile()
    assert spmd.compare(original, gm, default_size=tm.WORLD) != []


def test_calls_that_do_not_cover_a_bucket_are_refused_and_change_nothing():
    gm = graph("ddp")
    (b,) = [b for bs in buckets_by_pool(gm).values() for b in bs]
    before = [n.name for n in gm.graph.nodes]
    with pytest.raises(ValueError, match="once"):
        rb.apply(gm, [[(b.name, 0)]])
    assert [n.name for n in gm.graph.nodes] == before


def test_the_cost_model_chooses_the_calls():
    # two pieces, made at 0 and 100 ticks, half the bytes each; a call costs latency + bandwidth x share
    def cost(latency, bandwidth):
        return lambda share: latency + round(bandwidth * share)
    # bandwidth-bound: the first half leaves at 0 and ends under the second's making (ends 160, not 210)
    assert rb.split_groups([0, 100], [0.5, 0.5], cost(10, 100)) == [[0], [1]]
    # latency-bound: two calls end no earlier (210 either way) and take longer on the stream: one call
    assert rb.split_groups([0, 100], [0.5, 0.5], cost(100, 10)) == [[0, 1]]
    # pieces are taken by when they are made, whatever their place in the buffer
    assert rb.split_groups([100, 0, 100], [0.25, 0.5, 0.25], cost(10, 100)) == [[1], [0, 2]]


def _bucketed(a, b):
    x, y = (a @ a).view(-1), (b @ b @ b @ b).view(-1)  # the second gradient is made three products later
    flat = _C.all_reduce(torch.cat([x, y]) / 4, "sum", "0")
    return _C.wait_tensor(flat).split([x.numel(), y.numel()])


def _together(a):
    p = a @ a
    x, y = p[:1024].reshape(-1), p[1024:].reshape(-1)
    flat = _C.all_reduce(torch.cat([x, y]) / 4, "sum", "0")
    return _C.wait_tensor(flat).split([x.numel(), y.numel()])


def test_reorder_rebuckets_only_when_asked_and_only_when_the_step_is_shorter():
    inputs = (torch.randn(2048, 2048), torch.randn(2048, 2048))
    original = make_fx(_bucketed, tracing_mode="fake")(*inputs)
    plain = copy.deepcopy(original)
    r0 = st.reorder(plain, "h100-8x", groups={"0": 8})
    assert r0.rebucketed == () and collectives(plain, _C.all_reduce.default) == 1
    gm = copy.deepcopy(original)
    r = st.reorder(gm, "h100-8x", groups={"0": 8}, rebucket=True)
    assert r.rebucketed == ("all_reduce: 1 bucket of 2 pieces in 2 calls (1, 1)",)
    assert r.after.step_time_us < r0.after.step_time_us and r.after.exposed_comm_us < r0.after.exposed_comm_us
    gm.graph.lint()
    assert spmd.compare(original, gm, inputs=list(inputs)) == []
    # a bucket whose pieces are made together gains nothing from splitting: kept as it is
    same = make_fx(_together, tracing_mode="fake")(inputs[0])
    assert st.reorder(same, "h100-8x", groups={"0": 8}, rebucket=True).rebucketed == ()


def test_cli_rebuckets_and_writes_a_graph_that_computes_the_same(tmp_path, capsys):
    """``schedcc fx --rebucket`` by the CLI's own entry point in this process (``python -m schedcc`` calls
    the same ``main``; real subprocess runs of ``schedcc fx`` stay in test_torch_fx and test_torch_user):
    a subprocess cost 28 s of CPU here, most of it importing torch and its serialiser again."""
    from schedcc.cli import main
    from schedcc.torch.capture import export
    gm, inputs = graph("fsdp", inputs=True)
    saved, out = tmp_path / "fsdp.pt2", tmp_path / "out.pt2"
    program = export(gm, inputs)
    torch.export.save(program, saved)
    code = main(["fx", str(saved), "--target", "h100-8x", "--group", "0=4", "--estimates", "inductor",
                 "--rebucket", "-o", str(out)])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stderr
    # the tiny graph's three reduce-scatters are all latency: one call (the export's graph, as saved);
    # its five all-gathers are merged in a second round (schedcc.torch.coalesce)
    assert "  re-bucketed: round 1: reduce_scatter: 3 buckets of 26 pieces in 1 calls (26)" in stdout
    assert "  re-bucketed: round 2: all_gather: 5 collectives merged into 1 call (5)" in stdout
    # the graph the CLI read is the one exported (and saved): compared with what it wrote
    before, after = program.graph_module, torch.export.load(out).graph_module
    after.graph.lint()
    assert collectives(after, _C.reduce_scatter_tensor.default) == 1
    assert spmd.compare(before, after, default_size=tm.WORLD) == []

"""torch.fx graphs in (issue 18): pricing, dependences, schedcc's reorder, Inductor's passes, the CLI.

The graphs are the four families of tests/torch_models.py at their tiny size,
captured on CPU with the fake process group (seconds each, captured once per
process by tests/torch_models.py); bench/bench_torch_fx.py runs the larger sizes.
"""

import copy
import json
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

import torch_models as tm  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

import schedcc.torch as st  # noqa: E402
from schedcc.errors import SchedccError  # noqa: E402
from schedcc.target import load_target  # noqa: E402
from schedcc.torch import spmd  # noqa: E402
from schedcc.torch.fx_graph import build_step, schedcc_durations  # noqa: E402
from schedcc.torch.fx_order import BrokenOrder, check_order, current_order  # noqa: E402

H100 = load_target("h100-8x")
_graphs: dict = {}


def graph(family: str, functional: bool = True):
    """A fresh copy of *family*'s tiny graph (captured once per process)."""
    key = (family, functional)
    if key not in _graphs:
        _graphs[key] = tm.capture_family(family, "tiny", functional=functional)[0]
    return copy.deepcopy(_graphs[key])


@pytest.mark.parametrize("family", tm.FAMILIES)
def test_reorder_lints_keeps_every_output_and_is_never_slower(family):
    gm = graph(family)
    original = copy.deepcopy(gm)
    step = build_step(original, H100)
    assert step.collectives(), "the family's graph has its collectives"
    r = st.reorder(gm, "h100-8x")
    gm.graph.lint()
    assert r.after.step_time_us <= r.before.step_time_us
    assert sorted(r.order) == sorted(n.name for n in step.nodes)
    assert spmd.compare(original, gm, default_size=tm.WORLD) == []


def test_in_place_writes_keep_their_order_in_a_graph_that_is_not_functional():
    gm = graph("fsdp", functional=False)
    original = copy.deepcopy(gm)
    step = build_step(gm, H100)
    assert any(kind == "MEM" for _, _, kind in step.deps)
    st.reorder(gm, "h100-8x", estimates="inductor")
    gm.graph.lint()
    assert spmd.compare(original, gm, default_size=tm.WORLD) == []


def test_the_output_check_sees_a_changed_graph():
    gm = make_fx(lambda a, b: (a @ b).relu())(torch.randn(4, 4), torch.randn(4, 4))
    other = copy.deepcopy(gm)
    relu = next(n for n in other.graph.nodes if n.target is torch.ops.aten.relu.default)
    relu.target = torch.ops.aten.sin.default
    other.recompile()
    assert spmd.compare(gm, other) == ["output 0 differs"]


def test_an_order_that_breaks_a_dependence_is_refused():
    step = build_step(graph("ddp"), H100)
    order = current_order(step)
    c = step.collectives()[0]
    wait = next(t for s, t, _ in step.deps if s == c)
    order.remove(c)
    order.insert(order.index(wait) + 1, c)
    with pytest.raises(BrokenOrder, match="depends on"):
        check_order(step, order)


def test_inductor_and_schedcc_are_compared_under_both_estimates():
    from schedcc.torch.inductor import PEERS, compare_orders
    rows = compare_orders(build_step(graph("fsdp"), H100))
    assert {(r["estimates"], r["order"]) for r in rows} == {
        (e, o) for e in ("schedcc", "inductor") for o in ("original", "schedcc", *PEERS)}
    for est in ("schedcc", "inductor"):
        mine = {r["order"]: r for r in rows if r["estimates"] == est}
        assert all(r["error"] is None for r in mine.values())
        assert mine["schedcc"]["step_us"] <= mine["original"]["step_us"]
        assert mine["overlap-scheduler"]["step_us"] < mine["original"]["step_us"]  # Inductor really reorders
        assert mine["schedcc"]["step_us"] <= min(mine[p]["step_us"] for p in PEERS)


@pytest.mark.parametrize("family", ["tp", "moe"])
def test_the_stream_scheduler_predicts_what_simulate_measures(family):
    from schedcc.torch import fx_streams as fs
    from schedcc.torch.fx_best import stream_candidates
    from schedcc.torch.fx_order import simulate
    from schedcc.torch.inductor import inductor_durations
    step = build_step(graph(family), H100)
    for dur in (schedcc_durations(step), inductor_durations(step)):
        seen = set()
        for label, order, span, exposed, _ in stream_candidates(step, dur):
            r = simulate(step, order, dur)  # checks every dependence
            assert (round(r.step_time_us * 1000), round(r.exposed_comm_us * 1000)) == (span, exposed), label
            seen.add(tuple(order))
        assert len(seen) > 1, "the variants differ"
        for keys in (fs.waits_sunk_keys(step), fs.feeds_first_keys(step)):
            order = fs.kahn_order(step, keys)
            r = simulate(step, order, dur)
            assert fs.timeline(step, order, dur)[:2] == (round(r.step_time_us * 1000), round(r.exposed_comm_us * 1000))
        given = current_order(step)
        better, span, exposed = fs.improve(step, dur, given, eager=False)
        check_order(step, better)
        assert (span, exposed) <= fs.timeline(step, given, dur)[:2]


def test_group_sizes_from_the_graph_and_from_the_user():
    step = build_step(graph("tp"), H100)
    assert step.groups == {"0": tm.WORLD} and step.assumed == ()
    with pytest.raises(SchedccError, match="more than the 8 devices"):
        build_step(graph("tp"), H100, {"0": 16})


@pytest.fixture(scope="module")
def mystery_op():
    """A custom op schedcc's tables do not know (its fake kernel gives shapes)."""
    lib = torch.library.Library("schedcc_test", "FRAGMENT")
    lib.define("mystery(Tensor x) -> Tensor")
    lib.impl("mystery", lambda x: x * 2, "CompositeExplicitAutograd")
    lib.impl("mystery", lambda x: torch.empty_like(x), "Meta")
    yield torch.ops.schedcc_test.mystery
    lib._destroy()


def test_an_unknown_op_is_priced_from_its_metadata(mystery_op):
    gm = make_fx(lambda a: mystery_op(a).sin())(torch.ones(256, 256))
    step = build_step(gm, H100)
    cost = next(c for c in step.costs if "mystery" in c.op)
    assert cost.category == "compute" and cost.flops == 0 and cost.bytes == 2 * 256 * 256 * 4
    assert schedcc_durations(step)[0] > 0


def test_an_unknown_op_with_flops_in_its_metadata_is_priced_from_them(mystery_op):
    """The issue's "priced from its FLOPs and bytes": node.meta["flops"] counts, and makes it longer."""
    gm = make_fx(lambda a: mystery_op(a).sin())(torch.ones(256, 256))
    node = next(n for n in gm.graph.nodes if "mystery" in str(n.target))
    plain = build_step(gm, H100)
    node.meta["flops"] = 4e12
    step = build_step(gm, H100)
    k = next(i for i, c in enumerate(step.costs) if "mystery" in c.op)
    assert step.costs[k].flops == 4e12 and step.costs[k].bytes == plain.costs[k].bytes
    assert schedcc_durations(step)[k] > 100 * schedcc_durations(plain)[k]  # 4 TFLOP: milliseconds on an H100


def test_an_op_without_metadata_is_a_named_error(mystery_op):
    gm = make_fx(lambda a: mystery_op(a).sin())(torch.ones(4))
    node = next(n for n in gm.graph.nodes if "mystery" in str(n.target))
    node.meta.clear()
    with pytest.raises(SchedccError, match=r"cannot price op schedcc_test.mystery.default at node 'mystery'"):
        st.reorder(gm, "h100-8x")


def test_the_post_grad_pass_reorders_the_graph_it_is_given():
    gm = graph("moe")
    original = copy.deepcopy(gm)
    p = st.post_grad_pass("h100-8x")
    hash(p.uuid())
    p(gm.graph)
    gm.graph.lint()
    assert [n.name for n in gm.graph.nodes] != [n.name for n in original.graph.nodes]
    assert spmd.compare(original, gm, default_size=tm.WORLD) == []


# -- the command line ------------------------------------------------------------------------

def schedcc(*args):
    return subprocess.run([sys.executable, "-m", "schedcc", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def in_process(capsys, *args):
    """``schedcc ARGS`` run by the CLI's own entry point in this process (exit code, output, errors):
    a torch subprocess costs 4-8 s of CPU to import torch and torch.export before it reads a byte."""
    from schedcc.cli import main
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    from schedcc.torch.capture import export
    gm, inputs = tm.capture_family("ddp", "tiny", functional=True)
    path = tmp_path_factory.mktemp("fx") / "ddp.pt2"
    torch.export.save(export(gm, inputs), path)
    return path


def test_cli_reorders_a_saved_graph_and_writes_one_that_computes_the_same(saved, tmp_path, capsys):
    out = tmp_path / "out.pt2"
    code, stdout, stderr = in_process(capsys, "fx", saved, "--target", "h100-8x", "--group", "0=4", "-o", out)
    assert code == 0, stderr
    assert "original" in stdout and "schedcc" in stdout and f"wrote {out}" in stderr
    rows = {line[:32].strip(): line[32:].split() for line in stdout.splitlines() if line.startswith("  ")}
    assert float(rows["any order (lower bound)"][-1]) <= float(rows["schedcc"][-1])  # exposed (us)
    assert "  bound: " in stdout
    before, after = torch.export.load(saved).graph_module, torch.export.load(out).graph_module
    after.graph.lint()
    assert spmd.compare(before, after, default_size=tm.WORLD) == []


def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "step.pt2"
    bad.write_text("not a graph\n")
    out = tmp_path / "out.pt2"
    code, _, err = in_process(capsys, "fx", bad, "--target", "h100-8x", "-o", out)
    assert code == 2 and "not a graph saved by torch.export.save" in err
    assert "Traceback" not in err and not out.exists()
    code, _, err = in_process(capsys, "fx", tmp_path / "missing.pt2", "--target", "h100-8x")
    assert code == 2 and "no such file" in err


MYSTERY_MODULE = """import torch
lib = torch.library.Library("schedcc_test", "FRAGMENT")
lib.define("mystery(Tensor x) -> Tensor")
lib.impl("mystery", lambda x: x * 2, "CompositeExplicitAutograd")
lib.impl("mystery", lambda x: torch.empty_like(x), "Meta")
"""


def test_cli_a_custom_op_not_registered_is_named_and_import_loads_and_prices_it(mystery_op, tmp_path, capsys):
    """A saved graph with a custom op: without the module that registers it torch.export.load fails; the
    error names the op and the node (not "not a graph"), exit 2, nothing written; --import MODULE loads it
    and the op is priced from its tensor metadata."""
    from schedcc.torch.capture import export
    x = torch.ones(256, 256)
    gm = make_fx(lambda a: mystery_op(a).sin() @ a)(x)
    saved = tmp_path / "custom.pt2"
    torch.export.save(export(gm, [x]), saved)
    out = tmp_path / "out.pt2"
    r = schedcc("fx", saved, "--target", "h100-8x", "-o", out)
    assert r.returncode == 2 and "Traceback" not in r.stderr and not out.exists()
    assert "op schedcc_test.mystery.default at node 'mystery' is not registered" in r.stderr, r.stderr
    assert "--import MODULE" in r.stderr
    (tmp_path / "mystery_ops.py").write_text(MYSTERY_MODULE)
    r = subprocess.run([sys.executable, "-m", "schedcc", "fx", saved.name, "--target", "h100-8x", "--import",
                        "mystery_ops", "--format", "json", "-o", out.name], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert out.exists() and "mystery" in json.loads(r.stdout)["order"]
    code, _, err = in_process(capsys, "fx", saved, "--target", "h100-8x", "--import", "no_such_module_here")
    assert code == 2 and "--import no_such_module_here: cannot import it" in err


def test_the_api_example_runs(capsys):
    import re
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text()
    section = text.split("## PyTorch graphs", 1)[1].split("\n## ", 1)[0]
    (code,) = [b for b in re.findall(r"```python\n(.*?)```", section, flags=re.S) if "schedcc.torch" in b]
    exec(compile(code, "docs/api.md", "exec"), {})
    assert "step 249 -> 163 us, exposed communication 90 -> 4 us" in capsys.readouterr().out


def _bf16_step():
    """A bf16 graph with every op the check runs in fp32: mm, addmm, bmm, baddbmm, CPU flash
    attention and its backward."""
    import torch.nn.functional as F

    def step(x, w, b, q, k, v):
        q = q.detach().requires_grad_()
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        (gq,) = torch.autograd.grad(y.float().square().sum(), q)
        q3, k3, v3 = (t.detach()[0] for t in (q, k, v))
        z = torch.baddbmm(q3, torch.bmm(q3, k3.transpose(1, 2)), v3)
        return torch.addmm(b, x, w) @ w.t(), gq, z

    args = [torch.randn(8, 16), torch.randn(16, 16), torch.randn(16)] + [torch.randn(1, 2, 8, 4) for _ in range(3)]
    args = [a.bfloat16() for a in args]
    return make_fx(step)(*args), args


def test_half_precision_products_run_in_fp32_rounded_once_and_changes_are_still_seen():
    gm, args = _bf16_step()
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"}
    assert spmd.UPCAST.keys() <= targets | {torch.ops.aten.mm.default}, spmd.UPCAST.keys() - targets
    fast, _ = spmd.run(gm, args)
    native, _ = spmd.run(gm, args, native_kernels=True)
    for a, b in zip(fast, native):
        assert a.dtype == b.dtype == torch.bfloat16 and a.shape == b.shape
        torch.testing.assert_close(a, b, rtol=0.05, atol=0.05)  # bf16 rounding apart
    assert any(not torch.equal(a, b) for a, b in zip(fast, native))  # not PyTorch's bf16 kernels
    assert spmd.compare(gm, copy.deepcopy(gm)) == []
    other = copy.deepcopy(gm)
    mm = next(n for n in other.graph.nodes if n.target is torch.ops.aten.addmm.default)
    mm.args = (mm.args[0], mm.args[1], mm.args[2])
    mm.kwargs = {"beta": 2}
    other.recompile()
    assert spmd.compare(gm, other) == ["output 0 differs"]

"""Double buffering from the modulo scheduler: buffers from lifetimes, II raised when they do not fit."""

import pytest

pytest.importorskip("schedcc.sched.modulo")  # the modulo scheduler is its own part of schedcc

from schedcc import parse  # noqa: E402
from schedcc.ascend.pipeline import pipeline_tile_loops  # noqa: E402
from schedcc.cli import main  # noqa: E402
from schedcc.target.overrides import apply_overrides  # noqa: E402
from schedcc.target import load_target  # noqa: E402


def example(root, name):
    return parse((root / "examples" / "ascend" / f"{name}.ir").read_text(), f"{name}.ir")


def steady(root, name, target="ascend"):
    (a,) = pipeline_tile_loops(example(root, name), target, tiles=8)
    (b,) = pipeline_tile_loops(example(root, name), target, tiles=16)
    return a, (b.kernel.simulated_makespan - a.kernel.simulated_makespan) / 8


def test_vector_add_double_buffers_at_the_mte2_bound(root):
    p, per_tile = steady(root, "vector_add")
    assert (p.ii, p.bound) == (512, 512)
    assert p.copies == {"x_ub": 2, "y_ub": 2, "z_ub": 2}   # BUFFER_NUM = 2, derived
    assert per_tile == 512                                 # the synchronised code reaches II
    # the overlap: MTE2 of tile i+1 runs while V and MTE3 work on tile i
    k = p.kernel
    starts = {str(k.block.instrs[n]): k.check.start[n] for n in k.check.start}
    assert starts["x1_ub = copy_in xGm[i + 1] {bytes = 16KiB}"] < starts["copy_out zGm[i], z0_ub {bytes = 16KiB}"]


def test_matmul_gets_three_l0c_buffers_from_the_lifetime(root):
    p, per_tile = steady(root, "matmul")
    assert p.ii == 256 and p.copies["c_l0c"] == 3 and p.lifetimes["c_l0c"] > 2 * 256
    assert per_tile <= 1.05 * p.bound


def test_ii_is_raised_when_the_buffers_do_not_fit(root):
    small = apply_overrides(load_target("ascend"), ["ascend.buffers.UB.capacity=57344"])
    (p,) = pipeline_tile_loops(example(root, "vector_add"), small, tiles=4)
    assert p.ii > 512 and p.usage["UB"] <= 57344
    assert p.rejected and "UB overflows" in p.rejected[0]
    assert p.kernel.check is not None  # the concrete program with its copies passed the checker


def test_a_schedule_with_shorter_lifetimes_keeps_the_mii_when_ims_overflows(root):
    """At 64 KiB of UB, IMS's schedule at the MII needs 96 KiB; swing's, offered when IMS's is
    rejected (schedcc.sched.modulo), lets the add write its sum into x's buffer and fits."""
    small = apply_overrides(load_target("ascend"), ["ascend.buffers.UB.capacity=65536"])
    (p,) = pipeline_tile_loops(example(root, "vector_add"), small, tiles=4)
    assert p.ii == 512 and p.usage["UB"] <= 65536 and not p.rejected
    assert p.kernel.check is not None


def test_cli_pipeline_report(root, capsys):
    code = main([str(root / "examples" / "ascend" / "flash_attention.ir"), "--target", "ascend", "--pipeline",
                 "--no-code"])
    out = capsys.readouterr().out
    assert code == 0
    assert "tile loop modulo-scheduled" in out and "BUFFER_NUM" in out and "as code for 8 tiles" in out


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ascend_kernels import ascend_kernel  # noqa: E402
from schedcc.errors import SchedccError  # noqa: E402


def as_tile_loop(body: str) -> str:
    lines = [ln for ln in body.splitlines() if not ln.startswith(("i =", "j ="))]
    lines = [ln for ln in lines if "get_value" not in ln]
    return ("func k(n) {\nentry:\n  i = 0\n  jmp loop\nloop:\n" + "".join(f"  {ln}\n" for ln in lines)
            + "  i = i + 1\n  c = i < n\n  br c, loop, done\ndone:\n  ret\n}\n")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ascend_kernel(max_ops=10), st.integers(2, 6))
def test_random_tile_loops_pipeline_into_checked_code(body, tiles):
    text = as_tile_loop(body)
    try:
        (p,) = pipeline_tile_loops(parse(text, "r.ir"), "ascend", tiles=tiles)
    except SchedccError as err:  # an honest refusal: no II fits the buffers
        assert "no modulo schedule" in err.message or "overflows" in err.message, err.message
        return
    assert p.kernel.check is not None          # the concrete code passed the checker
    assert p.ii >= p.schedule.mii.value
    assert all(c >= 1 for c in p.copies.values())


def test_cli_pipeline_json_and_code(root, tmp_path, capsys):
    import json
    out = tmp_path / "mm.cc"
    code = main([str(root / "examples" / "ascend" / "matmul.ir"), "--target", "ascend", "--pipeline",
                 "--tiles", "4", "--format", "json", "-o", str(out)])
    doc = json.loads(capsys.readouterr().out)
    (loop,) = doc["pipelined"]
    assert code == 0 and loop["ii"] == 256 and loop["buffers"]["c_l0c"] == 3 and loop["tiles"] == 4
    assert "c2_l0c = mmad" in out.read_text()   # the third L0C buffer is used by the code


def test_mte2_of_the_next_tile_v_of_this_one_and_mte3_of_the_last_overlap(root):
    (p,) = pipeline_tile_loops(example(root, "vector_add"), "ascend", tiles=8)
    k = p.kernel
    span = {}
    for n, instr in enumerate(k.block.instrs):
        mem = next((op for op in instr.operands if hasattr(op, "index")), None)
        tile = mem.index.const if mem is not None else None
        if instr.opcode == "vadd":
            tile = sum(1 for m in range(n) if k.block.instrs[m].opcode == "vadd")
        if instr.opcode in ("copy_in", "vadd", "copy_out") and (instr.opcode, tile) not in span:
            span[instr.opcode, tile] = (k.check.start[n], k.check.end[n])
    both = 0
    for t in range(1, 7):
        a, b, c = span["copy_in", t + 1], span["vadd", t], span["copy_out", t - 1]
        if max(a[0], b[0], c[0]) < min(a[1], b[1], c[1]):   # all three at once
            both += 1
    assert both >= 5

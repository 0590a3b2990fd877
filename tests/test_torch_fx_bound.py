"""The lower bound on exposed communication of every order of an FX step (issue 18, schedcc.torch.fx_bound).

Random small steps have every topological order run by the stream
simulation (schedcc.torch.fx_streams.timeline, which the tests of
test_torch_fx.py check against schedcc.torch.fx_order.simulate): the bound is
never above any of them, and step - W equals the exposed communication of
each (the identity the bound rests on). On hand graphs the bound equals the
optimum found the same way; on two families' tiny graphs it is below every
order compared (the original, Inductor's, schedcc's) under both estimates
(bench/bench_torch_fx.py checks the same on every family at two sizes).
"""

import pytest

pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from schedcc.torch.fx_bound import lower_bound, step_bound  # noqa: E402
from schedcc.torch.fx_streams import timeline  # noqa: E402


class Step:
    """The part of an FxStep the simulation reads."""

    def __init__(self, streams, deps):
        self.streams, self.deps = tuple(streams), tuple((s, t, "RAW") for s, t in deps)

    def __len__(self):
        return len(self.streams)


def orders(step):
    """Every topological order of *step*."""
    n = len(step)
    preds = [set() for _ in range(n)]
    for s, t, _ in step.deps:
        preds[t].add(s)
    placed, order = [False] * n, []

    def walk():
        if len(order) == n:
            yield list(order)
            return
        for i in range(n):
            if not placed[i] and all(placed[p] for p in preds[i]):
                placed[i] = True
                order.append(i)
                yield from walk()
                order.pop()
                placed[i] = False
    yield from walk()


def optimum(step, dur):
    """The least exposed communication over every order, checking exposed = step - W on each."""
    work = sum(d for i, d in enumerate(dur) if step.streams[i] == "compute")
    best = None
    for order in orders(step):
        span, exposed = timeline(step, order, dur)[:2]
        assert span - work == exposed, order
        best = exposed if best is None else min(best, exposed)
    return best


@st.composite
def steps(draw):
    n = draw(st.integers(2, 7))
    streams = [draw(st.sampled_from(["compute", "compute", "comm:a", "comm:b"])) for _ in range(n)]
    dur = [draw(st.integers(1, 30)) if s != "compute" else draw(st.sampled_from([0, 0, 1, 5, 12, 20, 40]))
           for s in streams]
    deps = [(i, j) for j in range(n) for i in range(j) if draw(st.integers(0, 99)) < 35]
    return Step(streams, deps), dur


@settings(max_examples=120, deadline=None)
@given(steps())
def test_the_bound_is_never_above_any_order(case):
    step, dur = case
    b = lower_bound(step.streams, step.deps, dur)
    assert 0 <= b.exposed_ticks <= optimum(step, dur)
    assert b.step_ticks == b.exposed_ticks + sum(d for i, d in enumerate(dur) if step.streams[i] == "compute")


# name: (streams, deps, durations, the optimum)
HAND = {
    # a collective no kernel can hide, a kernel that needs it and one that does not
    "one collective": (["comm:pg0", "compute", "compute"], [(0, 1)], [50, 20, 30], 20),
    # FSDP-like: two all-gathers, each feeding a layer, then the gradients' reduce-scatter;
    # the first all-gather and the reduce-scatter cannot hide, the second can
    "fsdp-like": (["comm:pg0", "compute", "compute", "comm:pg0", "compute", "compute", "comm:pg0", "compute"],
                  [(0, 1), (1, 2), (3, 4), (4, 5), (2, 5), (5, 6), (6, 7)],
                  [10, 0, 20, 10, 0, 20, 5, 0], 15),
    # communication-bound: two collectives in a chain, one kernel between, one kernel free
    "comm-bound": (["comm:pg0", "compute", "compute", "comm:pg0", "compute", "compute", "compute"],
                   [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)],
                   [30, 0, 10, 30, 0, 10, 15], 45),
    # two groups in parallel, a kernel that needs both
    "two groups": (["comm:a", "comm:b", "compute"], [(0, 2), (1, 2)], [10, 8, 5], 10),
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_the_bound_is_the_optimum_on_hand_graphs(name):
    streams, deps, dur, best = HAND[name]
    step = Step(streams, deps)
    assert optimum(step, dur) == best
    b = lower_bound(step.streams, step.deps, dur)
    assert b.exposed_ticks == best and dict(b.arguments)[b.argument] == best


def test_the_bound_of_a_step_without_communication_is_zero():
    b = lower_bound(["compute", "compute"], [(0, 1, "RAW")], [5, 7])
    assert (b.exposed_ticks, b.step_ticks, b.argument) == (0, 12, "no argument forces any")
    with pytest.raises(ValueError, match="cycle"):
        lower_bound(["compute", "compute"], [(0, 1, "RAW"), (1, 0, "RAW")], [5, 7])


@pytest.mark.parametrize("family", ["tp", "moe"])
def test_the_bound_is_below_every_compared_order_of_the_real_graphs(family):
    import torch_models as tm
    from schedcc.target import load_target
    from schedcc.torch.fx_graph import build_step
    from schedcc.torch.fx_reorder import durations
    from schedcc.torch.inductor import compare_orders
    step = build_step(tm.capture_family(family, "tiny", functional=True)[0], load_target("h100-8x"))
    rows = compare_orders(step)
    for est in ("schedcc", "inductor"):
        b = step_bound(step, durations(step, est))
        for r in rows:
            if r["estimates"] == est and r["error"] is None:
                assert b.exposed_us <= r["exposed_us"] + 1e-9, (est, r["order"])
                assert b.step_us <= r["step_us"] + 1e-9, (est, r["order"])
        assert b.to_json()["argument"] == b.argument

"""The bound on exposed communication of every order and every splitting or re-bucketing (schedcc.torch.fx_volume).

Random small steps are changed the ways the bound allows (each collective's
input bytes, kept as the parts they were made of, split among one or more
pieces on the same stream, each piece costing at least its share of the
latency-free time plus the per-call latency; the bucketing glue dropped), and every order of the changed
step is run by the stream simulation (schedcc.torch.fx_streams.timeline): the
bound of the original step is never above any of them. It is also never above
schedcc.torch.fx_bound's bound for orders alone, there and on two families'
tiny graphs under both estimates.
"""

import itertools
import random

import pytest

pytest.importorskip("torch", reason="torch is not installed (pip install 'schedcc[torch]')")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_torch_fx_bound import Step, orders  # noqa: E402

from schedcc.torch.fx_bound import lower_bound, step_bound  # noqa: E402
from schedcc.torch.fx_streams import timeline  # noqa: E402
from schedcc.torch.fx_volume import volume_bound  # noqa: E402


@st.composite
def steps(draw):
    """(streams, inputs, roles, dur, volume, latency): nodes in topological order."""
    n = draw(st.integers(2, 5))
    streams, inputs, roles, dur, volume, latency = [], [], [], [], [], []
    for i in range(n):
        stream = draw(st.sampled_from(["compute", "compute", "compute", "comm:a", "comm:b"]))
        earlier = draw(st.lists(st.integers(-1, i - 1), min_size=1, max_size=3, unique=True)) if i else [-1]
        if stream == "compute":
            role = draw(st.sampled_from(["kernel", "kernel", "view", "part", "cat"]))
            if role == "view":
                earlier = earlier[:1]
            d, v, lat = (draw(st.sampled_from([0, 5, 12, 20, 40])) if role == "kernel"
                         else draw(st.sampled_from([0, 0, 3])), 0, 0)
        else:
            role = draw(st.sampled_from(["comm", "comm-full"]))
            v, lat = draw(st.integers(0, 30)), draw(st.integers(0, 8))
            d = v + lat + draw(st.integers(0, 3))
        streams.append(stream)
        inputs.append(earlier)
        roles.append(role)
        dur.append(d)
        volume.append(v)
        latency.append(lat)
    return streams, inputs, roles, dur, volume, latency


def changed(streams, inputs, roles, dur, volume, latency, rng):
    """A random splitting and re-bucketing of the step: (Step, durations). Each value is a
    list of parts, each part the set of new nodes its bytes need; kernels wait for every part
    of their inputs, a partial view keeps some of its input's parts, a collective's parts are
    dealt to pieces (a part may also be cut in two), each piece on the collective's stream
    and paying the per-call latency."""
    new_streams, new_deps, new_dur = [], [], []
    parts: list[list[frozenset]] = []

    def node(stream, need, d):
        k = len(new_streams)
        new_streams.append(stream)
        new_dur.append(d)
        new_deps.extend((s, k) for s in sorted(need))
        return k

    def of(p):
        return parts[p] if p >= 0 else [frozenset()]

    for i, role in enumerate(roles):
        ins = [part for p in inputs[i] for part in of(p)]
        if streams[i] != "compute":
            cut = []
            for part in ins:
                cut.extend([part, part] if rng.random() < 0.3 else [part])
            k = rng.randint(1, min(2, len(cut)))
            rng.shuffle(cut)
            groups = [cut[j::k] for j in range(k)]
            share = -(-volume[i] // k)
            pieces = [node(streams[i], frozenset().union(*g), share + latency[i] + rng.randint(0, 3))
                      for g in groups]
            parts.append([frozenset({p}) for p in pieces])
        elif role == "kernel":
            parts.append([frozenset({node("compute", frozenset().union(*ins), dur[i])})])
        elif role in ("view", "cat") and (role == "cat" or len(inputs[i]) == 1):
            parts.append(ins)
        else:
            parts.append(rng.sample(ins, rng.randint(1, len(ins))))
    return Step(new_streams, new_deps), new_dur


@settings(max_examples=150, deadline=None)
@given(steps(), st.integers(0, 10 ** 6))
def test_no_order_of_any_splitting_beats_the_bound(case, seed):
    streams, inputs, roles, dur, volume, latency = case
    b = volume_bound(streams, inputs, roles, dur, volume, latency=latency)
    deps = [(p, i, "RAW") for i in range(len(streams)) for p in inputs[i] if p >= 0]
    assert 0 <= b.exposed_ticks <= lower_bound(streams, deps, dur).exposed_ticks
    rng = random.Random(seed)
    for _ in range(3):
        step, new_dur = changed(streams, inputs, roles, dur, volume, latency, rng)
        for order in itertools.islice(orders(step), 2000):
            assert b.exposed_ticks <= timeline(step, order, new_dur)[1], (order, step.deps, new_dur)


def test_a_bucket_split_by_its_gradients_hides_what_one_bucket_cannot():
    # a 40-tick all-reduce (20 of latency) of two gradients made by kernels of 30 and 10
    streams = ["compute", "compute", "compute", "comm:pg0"]
    inputs, roles = [[], [0], [0, 1], [2]], ["kernel", "kernel", "cat", "comm-full"]
    dur, volume = [30, 10, 0, 40], [0, 0, 0, 20]
    deps = [(p, i, "RAW") for i in range(4) for p in inputs[i]]
    assert lower_bound(streams, deps, dur).exposed_ticks == 40
    assert volume_bound(streams, inputs, roles, dur, volume).exposed_ticks == 10
    # the first gradient's bytes on their own, as soon as it is made: exactly 10 exposed
    step = Step(["compute", "compute", "comm:pg0", "comm:pg0"], [(0, 1), (0, 2), (1, 3)])
    assert min(timeline(step, o, [30, 10, 10, 10])[1] for o in orders(step)) == 10
    # a slice of the bucket (its bytes may all be the first gradient's) may go at 30 too
    five = (streams[:3] + ["compute", "comm:pg0"], [[], [0], [0, 1], [2], [3]],
            ["kernel", "kernel", "cat", "part", "comm"], [30, 10, 0, 0, 40], [0, 0, 0, 0, 20])
    assert volume_bound(*five).exposed_ticks == 10
    # a bucket whose bytes are cut out of one kernel's output cannot start before it
    assert volume_bound(streams, [[], [0], [1], [2]], ["kernel", "kernel", "part", "comm"], dur,
                        volume).exposed_ticks == 20


@pytest.mark.parametrize("family", ["ddp", "fsdp"])
def test_on_real_graphs_the_bound_is_below_the_bound_for_orders(family):
    import torch_models as tm
    from schedcc.target import load_target
    from schedcc.torch.fx_graph import build_step
    from schedcc.torch.fx_reorder import durations
    from schedcc.torch.fx_volume import step_roles, step_volume_bound, volume_ticks
    step = build_step(tm.capture_family(family, "tiny", functional=True)[0], load_target("h100-8x"))
    _, roles = step_roles(step)
    assert {"kernel", "comm-full"} <= set(roles)
    for est in ("schedcc", "inductor"):
        dur = durations(step, est)
        vol, lat = volume_ticks(step, est, dur)
        assert all(0 <= vol[c] and 0 < lat[c] and vol[c] + lat[c] <= dur[c] for c in step.collectives())
        assert 0 <= step_volume_bound(step, dur, est).exposed_ticks <= step_bound(step, dur).exposed_ticks


def test_collectives_in_a_chain_each_pay_their_latency():
    # an all-gather, a kernel that needs all of it, a reduce-scatter of its output: no bucketing
    # can put the two in one call, so both latencies are exposed whatever the pieces
    streams = ["comm:pg0", "compute", "comm:pg0"]
    inputs, roles = [[-1], [0], [1]], ["comm-full", "kernel", "comm"]
    b = volume_bound(streams, inputs, roles, [12, 5, 12], [2, 0, 2], latency=[10, 0, 10])
    assert b.exposed_ticks == 24
    step = Step(streams, [(0, 1), (1, 2)])
    assert min(timeline(step, o, [12, 5, 12])[1] for o in orders(step)) == 24
    # two independent collectives could share a call: only one latency is sure
    b = volume_bound(["comm:pg0", "comm:pg0"], [[-1], [-1]], ["comm", "comm"], [12, 12], [2, 2], latency=[10, 10])
    assert b.exposed_ticks == 14

"""Partial recomputation: the first n layers of every model chunk recomputed (Megatron-LM's
block method), the fewest that fit unless pinned."""

from dataclasses import replace

import pytest

from schedcc.errors import SchedccError
from schedcc.planner.model import preset
from schedcc.planner.score import Context, score
from schedcc.planner.space import Candidate, enumerate_space, parse_fix


def _gpt3(batch=64):
    return Context(preset("gpt3-175b"), "dgx-a100", gpus=64, global_batch=batch)


def test_partial_sits_between_none_and_full_and_fits_where_none_does_not():
    base = Candidate(1, 8, 8, microbatch=4, schedule="1f1b", sp=True)
    ctx = _gpt3(batch=64)     # 16 microbatches of 4 sequences
    none, full = score(replace(base, recompute="none"), ctx), score(replace(base, recompute="full"), ctx)
    part = score(replace(base, recompute="partial"), ctx)
    assert not none.feasible and full.feasible and part.feasible
    n = part.candidate.recompute_layers
    assert 1 <= n < 12 and part.candidate.label().endswith(f"rc=part{n} sp")
    assert full.memory_per_gpu_bytes < part.memory_per_gpu_bytes <= ctx.cluster.memory_capacity < none.memory_per_gpu_bytes
    assert part.step_time_s < full.step_time_s
    # one layer fewer recomputed does not fit: n is the fewest
    fewer = score(replace(base, recompute="partial", recompute_layers=n - 1), ctx) if n > 1 else None
    assert fewer is None or not fewer.feasible
    # time grows with the recomputed layers, from none's (unscheduled) towards full's
    times = [score(replace(base, recompute="partial", recompute_layers=k), ctx).step_time_s for k in (n, n + 2, 11)]
    assert times == sorted(times) and times[-1] < full.step_time_s
    assert part.hfu > part.mfu and part.hfu < full.hfu * full.step_time_s / part.step_time_s
    data = part.to_json()
    assert data["recompute"] == "partial" and data["recompute_layers"] == n


def test_fix_parses_partial_and_its_layers():
    assert parse_fix("recompute=partial") == {"recompute": "partial"}
    assert parse_fix("recompute_layers=3") == {"recompute": "partial", "recompute_layers": 3}
    assert parse_fix("recompute=part,recompute-layers=2") == {"recompute": "partial", "recompute_layers": 2}
    with pytest.raises(SchedccError, match="recompute_layers needs|contradictory"):
        parse_fix("recompute=full,recompute_layers=2")
    with pytest.raises(SchedccError, match="whole number"):
        parse_fix("recompute_layers=0")
    with pytest.raises(SchedccError, match="none, selective, full or partial"):
        parse_fix("recompute=some")


def test_partial_is_searched_and_needs_two_layers_a_chunk():
    model = preset("gpt3-175b")
    space = enumerate_space(model, gpus=64, global_batch=64, devices_per_node=8,
                            fix=parse_fix("tp=8,pp=8,microbatch=1,zero=0,sp=1,schedule=1f1b"))
    assert {c.recompute for c in space.candidates} == {"none", "full", "partial"}
    pinned = enumerate_space(model, gpus=64, global_batch=64, devices_per_node=8,
                             fix=parse_fix("tp=8,pp=8,microbatch=1,zero=0,sp=1,schedule=1f1b,recompute_layers=4"))
    assert [c.recompute_layers for c in pinned.candidates] == [4]
    with pytest.raises(SchedccError, match="no configuration"):
        enumerate_space(model, gpus=64, global_batch=64, devices_per_node=8,
                        fix=parse_fix("tp=8,pp=8,microbatch=1,zero=0,sp=1,schedule=1f1b,recompute_layers=12"))

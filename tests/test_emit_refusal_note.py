"""--emit FRAMEWORK when no candidate of the plan can run on it: the error says how to get one that can
(a new user pinned an interleaved schedule and asked for DeepSpeed: the notes said only why not)."""

from __future__ import annotations

import pytest

from schedcc.emit.launch import emit
from schedcc.errors import SchedccError
from schedcc.planner import plan
from schedcc.planner.model import ModelSpec

TINY = ModelSpec(name="tiny", layers=8, hidden=512, heads=8, seq=512, vocab=1000)


def test_no_candidate_it_can_run_points_to_framework():
    res = plan(TINY, "dgx-h100", gpus=8, global_batch=16, workers=1, progress=False,
               fix="tp=1,pp=2,cp=1,microbatch=1,schedule=interleaved,virtual=2,zero=1,recompute=none")
    with pytest.raises(SchedccError) as err:
        emit(res, "deepspeed")
    assert "1F1B only" in err.value.notes[0]
    assert "--framework deepspeed searches only what deepspeed can run (with a --fix it can run)" in err.value.notes

"""DualPipeV (torch's ScheduleDualPipeV lists, OVERLAP_F_B composites): the lists, their
bubble against DeepSeek's formula, the composite's meaning, import with explicit transfers."""

import json

import pytest

from schedcc.cli import main
from schedcc.errors import SchedccError
from schedcc.training.pipeline import dualpipev, evaluate_named
from schedcc.training.pipeline_graph import Action, StageCosts, evaluate
from schedcc.training.pipeline_import import parse_schedule_text, parse_unit_costs


def as_text(lists) -> str:
    return "".join(f"rank {r}: " + " ".join(str(a) for a in acts) + "\n" for r, acts in enumerate(lists))


def test_the_lists_are_torchs():
    # torch 2.x, ScheduleDualPipeV with 2 ranks (4 stages) and 4 microbatches: the compute
    # actions of rank 0's pipeline_order_with_comms, in order, and how many of each kind
    # it holds (F x5, I x3, W x3, OVERLAP_F_B x3, B x2), as printed by a run of torch.
    lists = dualpipev(2, 4)
    assert [str(a) for a in lists[0][:9]] == [
        "0F0", "0F1", "0F2", "3F0", "3I0", "3W0", "3F1", "(0F3;3B1)OVERLAP_F_B", "(3F2;0B0)OVERLAP_F_B"]
    kinds = {}
    for a in lists[0]:
        kinds[a.kind] = kinds.get(a.kind, 0) + 1
    assert kinds == {"F": 5, "I": 3, "W": 3, "OVERLAP_F_B": 3, "B": 2}
    # the issue's composite: rank 0 of 4 ranks pairs its stage 0 with stage 7 (the V)
    assert "(0F7;7B3)OVERLAP_F_B" in [str(a) for a in dualpipev(4, 8)[0]]


@pytest.mark.parametrize("p", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("extra", [0, 1, 5])
def test_every_stage_runs_every_microbatch_once_on_the_v(p, extra):
    m = 2 * p + extra
    lists = dualpipev(p, m)
    for r, acts in enumerate(lists):
        stages = {x.stage for a in acts for x in (a.sub or (a,))}
        assert stages == {r, 2 * p - 1 - r}
        done = [(x.kind, x.stage, x.mb) for a in acts for x in (a.sub or (a,))]
        assert len(done) == len(set(done))
        for s in stages:
            assert sorted(mb for k, st, mb in done if k == "F" and st == s) == list(range(m))
            backs = sorted(mb for k, st, mb in done if k in ("B", "I") and st == s)
            assert backs == list(range(m))
            assert {mb for k, st, mb in done if k == "I" and st == s} == \
                   {mb for k, st, mb in done if k == "W" and st == s}


@pytest.mark.parametrize("p, m", [(2, 4), (2, 9), (3, 6), (4, 8), (4, 16), (5, 13), (6, 12)])
@pytest.mark.parametrize("k", [1, 3])
def test_imported_bubble_is_deepseeks_formula(p, m, k):
    """DualPipe's README: bubble (PP/2 - 1)(F&B + B - 3W) for PP stages (DualPipeV: PP/2
    devices) and activations PP + 1 chunks per device. With F = I = W = k and a composite
    taking F + B, every rank idles exactly that long, whatever m."""
    lists = parse_schedule_text(as_text(dualpipev(p, m)))
    ev = evaluate(lists, parse_unit_costs(f"F={k},I={k},W={k}"))
    f = i = w = k
    idle = (p - 1) * ((f + i + w) + (i + w) - 3 * w)
    assert {r: ev.makespan - ev.busy[r] for r in ev.busy} == {r: idle for r in range(p)}
    assert ev.makespan == 2 * m * (f + i + w) + idle
    assert set(ev.peak_activation.values()) == {2 * p + 1}


def test_the_issue_case_composites_vs_sub_actions_back_to_back():
    """p=4, m=8, F=I=W=1: 6 idle units of 54 (0.111). Torch runs a composite only when
    both halves' inputs are there (its lowering places both receives before it, its
    visualiser requires both halves ready) and sends both results after it (as DeepSeek's
    reference does); written as two separate actions the forward's result leaves
    before the backward runs, and the bubble is 1/17."""
    costs = parse_unit_costs("F=1,I=1,W=1")
    lists = dualpipev(4, 8)
    ev = evaluate(lists, costs)
    assert (ev.makespan, round(ev.bubble_fraction, 4)) == (54, round(6 / 54, 4))
    flat = [[x for a in acts for x in (a.sub or (a,))] for acts in lists]
    ev_flat = evaluate(flat, costs)
    assert (ev_flat.makespan, round(ev_flat.bubble_fraction, 4)) == (51, round(1 / 17, 4))
    # A composite that really overlaps its halves (DeepSeek's F&B below F + B) shortens
    # the step by (p - 1) x the saving on every rank's critical composites.
    ev_fb = evaluate(lists, parse_unit_costs("F=1,I=1,W=1,FB=2"))
    assert ev_fb.makespan < ev.makespan
    assert max(ev_fb.makespan - b for b in ev_fb.busy.values()) == 3 * (2 + 2 - 3)


def lower_with_comms(lists: list[list[Action]]) -> list[list[Action]]:
    """Compute-only lists -> lists with SEND_F/RECV_F/SEND_B/RECV_B, placed the way torch's
    runtime lowers them: ranks take turns; an action is placed once every part of it has
    its input on this rank (the previous stage's result, or its RECV already placed); its
    SENDs follow it, and the RECV goes into the receiving rank's list at that moment."""
    owner = {x.stage: r for r, acts in enumerate(lists) for a in acts for x in (a.sub or (a,))}
    last = max(owner)
    todo = [list(acts) for acts in lists]
    out: list[list[Action]] = [[] for _ in lists]
    have: list[set] = [set() for _ in lists]

    def ready(x: Action, r: int) -> bool:
        if x.kind == "F" and x.stage > 0:
            return ("RECV_F", x.stage, x.mb) in have[r] or ("F", x.stage - 1, x.mb) in have[r]
        if x.kind in ("B", "I") and x.stage < last:
            return any(k in have[r] for k in (("RECV_B", x.stage, x.mb), ("B", x.stage + 1, x.mb),
                                              ("I", x.stage + 1, x.mb)))
        return True

    while any(todo):
        progress = False
        for r in range(len(lists)):
            if not todo[r]:
                continue
            a = todo[r][0]
            parts = a.sub or (a,)
            if not all(ready(x, r) for x in parts):
                continue
            todo[r].pop(0)
            progress = True
            out[r].append(a)
            for x in parts:
                have[r].add((x.kind, x.stage, x.mb))
                if x.kind == "F" and x.stage < last and owner[x.stage + 1] != r:
                    out[r].append(Action("SEND_F", x.stage, x.mb))
                    peer = owner[x.stage + 1]
                    out[peer].append(Action("RECV_F", x.stage + 1, x.mb))
                    have[peer].add(("RECV_F", x.stage + 1, x.mb))
                elif x.kind in ("B", "I") and x.stage > 0 and owner[x.stage - 1] != r:
                    out[r].append(Action("SEND_B", x.stage, x.mb))
                    peer = owner[x.stage - 1]
                    out[peer].append(Action("RECV_B", x.stage - 1, x.mb))
                    have[peer].add(("RECV_B", x.stage - 1, x.mb))
        assert progress, "the compute lists deadlock"
    return out


@pytest.mark.parametrize("p, m", [(2, 4), (3, 7), (4, 8)])
def test_lists_with_explicit_transfers_import_and_time_alike(p, m):
    lists = dualpipev(p, m)
    with_comms = lower_with_comms(lists)
    text = as_text(with_comms)
    assert "SEND_F" in text and "RECV_B" in text and "OVERLAP_F_B" in text
    imported = parse_schedule_text(text)
    free = evaluate(imported, parse_unit_costs("F=1,I=1,W=1"))
    assert free.makespan == evaluate(lists, parse_unit_costs("F=1,I=1,W=1")).makespan
    slow = evaluate(imported, parse_unit_costs("F=1,I=1,W=1,C=1"))
    assert slow.makespan > free.makespan
    assert all(v > 0 for v in slow.exposed_comm.values())


def test_named_schedule_and_auto():
    r = evaluate_named("dualpipev", 4, 8, costs=StageCosts(f=1, b=2, i=1, w=1))
    assert r.virtual == 2 and round(r.bubble_fraction, 4) == round(6 / 54, 4)
    # two stages per rank, each half the rank's layers: 2p + 1 half-stage activations
    assert set(r.evaluation.peak_activation.values()) == {4.5}
    with pytest.raises(SchedccError, match="at least as many microbatches as stages"):
        evaluate_named("dualpipev", 4, 7)
    auto = evaluate_named("auto", 4, 8, costs=StageCosts(f=1, b=2, i=1, w=1))
    assert "dualpipev" in {c["schedule"] for c in auto.candidates}


def test_cli(tmp_path, capsys):
    assert main(["pipeline", "--schedule", "dualpipev", "--stages", "4", "--microbatches", "8",
                 "--unit-costs", "F=1,I=1,W=1", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert round(data["bubble_fraction"], 4) == round(6 / 54, 4)
    assert "(0F7;7B3)OVERLAP_F_B" in data["actions"][0]
    f = tmp_path / "dualpipev.txt"
    f.write_text(as_text(dualpipev(4, 8)))
    assert main(["pipeline", "--import", str(f), "--unit-costs", "F=1,I=1,W=1,FB=2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["step_time"] < 54
    assert main(["pipeline", "--schedule", "dualpipev", "--stages", "4", "--microbatches", "6"]) == 2
    assert "at least as many microbatches as stages" in capsys.readouterr().err

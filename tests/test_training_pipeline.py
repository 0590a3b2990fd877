"""Pipeline schedules: the published bubble fractions, memory, import, impossible lists."""

import json

import pytest
from hypothesis import given, settings, strategies as st

from schedcc.cli import main
from schedcc.errors import SchedccError
from schedcc.training.pipeline import evaluate_named, gpipe, one_f_one_b
from schedcc.training.pipeline_graph import Action, StageCosts, evaluate
from schedcc.training.pipeline_import import parse_schedule_text, parse_unit_costs


@pytest.mark.parametrize("name", ["gpipe", "1f1b"])
@pytest.mark.parametrize("p,m", [(2, 1), (2, 4), (4, 4), (4, 8), (4, 16), (8, 8), (8, 32), (3, 5)])
def test_gpipe_and_1f1b_bubble_is_p_minus_1_over_m_plus_p_minus_1(name, p, m):
    r = evaluate_named(name, p, m)
    assert r.bubble_fraction == pytest.approx((p - 1) / (m + p - 1), abs=1e-12)
    assert r.step_time == (m + p - 1) * 3  # F=1, B=2


@pytest.mark.parametrize("p,m,v", [(2, 4, 2), (4, 8, 2), (4, 8, 4), (4, 16, 2), (4, 16, 3), (8, 16, 2), (8, 8, 4)])
def test_interleaved_reduces_the_bubble_by_v(p, m, v):
    r = evaluate_named("interleaved", p, m, v)
    assert r.bubble_fraction == pytest.approx((p - 1) / (v * m + p - 1), abs=1e-12)
    bubble_time = r.step_time - m * 3
    assert bubble_time == pytest.approx((p - 1) * 3 / v)


@pytest.mark.parametrize("p,m", [(2, 4), (4, 8), (4, 16), (8, 16), (8, 32)])
def test_zero_bubble_h1_is_a_third_of_1f1b_and_h2_is_near_zero_at_twice_the_memory(p, m):
    costs = StageCosts(f=1, b=2, i=1, w=1)
    base = evaluate_named("1f1b", p, m, costs=costs)
    h1 = evaluate_named("zb-h1", p, m, costs=costs)
    h2 = evaluate_named("zb-h2", p, m, costs=costs)
    work = 3 * m
    assert (h1.step_time - work) * 3 == base.step_time - work  # (p-1)(F+I-W) vs (p-1)(F+B)
    assert h1.evaluation.peak_activation == base.evaluation.peak_activation  # same memory
    assert h2.evaluation.span_bubble == 0  # every rank busy from its first action to its last
    assert h2.step_time <= h1.step_time
    assert max(h2.evaluation.peak_activation.values()) == 2 * p - 1  # about twice 1F1B's p


def test_1f1b_memory_is_p_minus_rank_and_gpipe_holds_everything():
    assert evaluate_named("1f1b", 4, 8).evaluation.peak_activation == {0: 4, 1: 3, 2: 2, 3: 1}
    assert set(evaluate_named("gpipe", 4, 8).evaluation.peak_activation.values()) == {8}


def test_auto_picks_the_lowest_bubble_that_fits():
    costs = StageCosts(f=1, b=2, i=1, w=1)
    r = evaluate_named("auto", 4, 8, costs=costs, memory_limit=4)
    fits = [c for c in r.candidates if c["fits"]]
    assert r.bubble_fraction == pytest.approx(min(c["bubble_fraction"] for c in fits))
    assert max(r.evaluation.peak_activation.values()) <= 4
    assert {c["schedule"] for c in r.candidates} >= {"gpipe", "1f1b", "zb-h1", "zb-h2", "interleaved"}
    with pytest.raises(SchedccError, match="no schedule fits"):
        evaluate_named("auto", 4, 8, costs=costs, memory_limit=0.5)


def test_communication_becomes_exposed():
    free = evaluate_named("1f1b", 4, 8, costs=StageCosts(f=2, b=4))
    paid = evaluate_named("1f1b", 4, 8, costs=StageCosts(f=2, b=4, comm=1))
    assert paid.step_time > free.step_time
    assert sum(paid.evaluation.exposed_comm.values()) > 0 == sum(free.evaluation.exposed_comm.values())


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 5), st.integers(1, 9), st.integers(1, 3), st.integers(1, 4), st.integers(0, 2))
def test_imported_lists_time_like_the_named_ones_and_respect_dependences(p, m, f, b, comm):
    costs = StageCosts(f=f, b=b, comm=comm)
    for lists in (gpipe(p, m), one_f_one_b(p, m)):
        text = "\n".join(" ".join(str(a) for a in acts) for acts in lists)
        ev = evaluate(parse_schedule_text(text), costs)
        again = evaluate(lists, costs)
        assert ev.makespan == again.makespan
        # independent check: every dependence and every rank's order hold, no overlap on a rank
        g = ev.graph
        for u, v, d in g.edges(data=True):
            assert ev.start[v] >= ev.start[u] + d["latency"]
        for r in range(p):
            spans = sorted((ev.start[n], ev.end[n]) for n, dd in g.nodes(data=True)
                           if dd["rank"] == r and dd["stream"] == "compute")
            assert all(a[1] <= b_[0] for a, b_ in zip(spans, spans[1:]))


def test_torch_notation_round_trips_and_json_is_accepted():
    text = "rank 0: 0F0, 0F1, (0F2;0B0)OVERLAP_F_B, 0B1, 0B2\n"
    lists = parse_schedule_text(text)
    assert [str(a) for a in lists[0]] == ["0F0", "0F1", "(0F2;0B0)OVERLAP_F_B", "0B1", "0B2"]
    lists = parse_schedule_text(json.dumps([["0F0", "0I0", None, "0W0"], ["1F0", "1I0", "1W0"]]))
    assert [str(a) for a in lists[0]] == ["0F0", "0I0", "0W0"]
    assert evaluate(lists, parse_unit_costs("F=1,I=1,W=1")).makespan == 5


def test_explicit_send_and_recv_actions():
    lists = parse_schedule_text("0F0 0SEND_F0 0RECV_B0 0B0\n1RECV_F0 1F0 1B0 1SEND_B0\n")
    ev = evaluate(lists, StageCosts(f=1, b=2, comm=1))
    assert ev.makespan == 1 + 1 + 1 + 2 + 1 + 2


@pytest.mark.parametrize("text,message", [
    ("0F0 0F1 0B0 0B1\n1F0 1B0 1B1\n", "rank 1: action '1B1' waits for '1F1', which no rank runs"),
    ("0F0 0F1 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n", "rank 0: action '0F1' appears twice"),
    ("0F0 0B0 0F1 0B1\n1F1 1F0 1B0 1B1\n", "the schedule deadlocks: rank 0: '0F1' can never start"),
    ("0F0 0F1 0B0\n1F0 1B0 1F1 1B1\n", "rank 0: stage 0 never runs microbatch 1's backward"),
    ("0F0 0I0\n", "runs 0I0 but never 0W0"),
    ("0F0 1F0 0B0 1B0\n1F0\n", "stage 1 appears on rank 0 and on rank 1"),
    ("0F0 0B0\n1RECV_F0 1F0 1B0\n", "rank 0: action '0B0' waits for '0RECV_B0', which no rank runs"),
])
def test_impossible_lists_name_rank_action_and_what_it_waits_for(text, message):
    with pytest.raises(SchedccError) as err:
        evaluate(parse_schedule_text(text), StageCosts())
    assert message in err.value.render()


@pytest.mark.parametrize("text,where", [
    ("0F0 0F1 0B0 0B1\n1F0 1B0 1B1\n", "f.txt:2:9: error: rank 1: action '1B1' waits for"),
    ("0F0 0F1 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n", "f.txt:1:9: error: rank 0: action '0F1' appears twice"),
    ("0F0 1F0 0B0 1B0\n1F0\n", "f.txt:2:1: error: stage 1 appears on rank 0 and on rank 1"),
])
def test_errors_in_imported_lists_point_at_the_action(text, where):
    with pytest.raises(SchedccError) as err:
        evaluate(parse_schedule_text(text, "f.txt"), StageCosts())
    assert err.value.render().startswith(where)


def test_deadlock_notes_say_what_each_action_waits_for():
    with pytest.raises(SchedccError) as err:
        evaluate(parse_schedule_text("0F0 0B0 0F1 0B1\n1F1 1F0 1B0 1B1\n"), StageCosts())
    notes = "\n".join(err.value.notes)
    assert "rank 0: '0F1' comes after '0B0' in its list" in notes
    assert "rank 0: '0B0' waits for '1B0' (rank 1)" in notes


def test_cli_pipeline_json(capsys):
    assert main(["pipeline", "--schedule", "interleaved", "--virtual", "2", "--stages", "4",
                 "--microbatches", "8", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bubble_fraction"] == pytest.approx(3 / 19)
    assert len(data["actions"]) == 4 and data["actions"][0][:2] == ["0F0", "0F1"]
    assert set(data) >= {"step_time", "peak_activation", "bubble_fraction", "actions"}


def test_cli_pipeline_import_errors_are_located(tmp_path, capsys):
    bad = tmp_path / "s.txt"
    bad.write_text("0F0 0F1 0B0 0X1\n")
    assert main(["pipeline", "--import", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1:13: error: cannot read action" in err and "^~~" in err and "Traceback" not in err


def test_cli_pipeline_with_a_target_writes_trace_and_timeline(tmp_path, capsys):
    trace, svg = tmp_path / "pp.json", tmp_path / "pp.svg"
    assert main(["pipeline", "--schedule", "zb-h1", "--stages", "4", "--microbatches", "8", "--layers", "8",
                 "--target", "h100-128x", "--tp", "4", "--dp", "8", "--trace", str(trace),
                 "--timeline", str(svg), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["time_unit"] == "us" and data["step_time"] > 0
    assert sum(data["exposed_comm"].values()) > 0
    doc = json.loads(trace.read_text())
    names = {e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
    assert names == {"rank 0", "rank 1", "rank 2", "rank 3"}
    assert any(e["ph"] == "s" for e in doc["traceEvents"])  # flow arrows between ranks
    assert svg.read_text().startswith("<svg") or "<svg" in svg.read_text()[:200]
    assert main(["pipeline", "--stages", "64", "--target", "h100-8x"]) == 2


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.booleans(), st.randoms(use_true_random=False))
def test_any_deadlock_free_order_evaluates_and_keeps_every_rank_busy_for_its_work(p, m, split, rnd):
    # a random topological order of all actions, projected onto the ranks, never deadlocks
    kinds = ("F", "I", "W") if split else ("F", "B")
    done: set = set()
    todo = {(k, s, i) for k in kinds for s in range(p) for i in range(m)}

    def ready(a):
        k, s, i = a
        if k == "F":
            return s == 0 or ("F", s - 1, i) in done
        if k in ("B", "I"):
            nxt = ("B" if not split else "I", s + 1, i)
            return ("F", s, i) in done and (s == p - 1 or nxt in done)
        return ("I", s, i) in done

    lists = [[] for _ in range(p)]
    while todo:
        a = rnd.choice(sorted(x for x in todo if ready(x)))
        todo.remove(a)
        done.add(a)
        lists[a[1]].append(Action(a[0], a[1], a[2]))
    costs = StageCosts(f=2, b=4, i=2, w=2, comm=1)
    ev = evaluate(lists, costs)
    for r in range(p):
        assert ev.busy[r] == m * 6
    for u, v, d in ev.graph.edges(data=True):
        assert ev.start[v] >= ev.start[u] + d["latency"]
    assert ev.makespan >= m * 6


def test_auto_builds_a_zero_bubble_schedule_for_a_tight_memory_limit():
    costs = StageCosts(f=1, b=2, i=1, w=1)
    r = evaluate_named("auto", 4, 8, costs=costs, memory_limit=2)
    assert r.schedule == "auto:zb-limited"
    assert max(r.evaluation.peak_activation.values()) <= 2
    assert r.bubble_fraction < 1

"""--explain lists every ready instruction, also one made ready within the cycle by a
predecessor issued at latency 0 (a WAR); one cycle is "1 cycle" everywhere (issue 19)."""

from schedcc import build_dag, list_schedule, parse
from schedcc.cli import main

WAR = "func f() {\nentry:\n  t1 = t0 + t5\n  t0 = t2 + t3\n  t4 = t0 + t0\n}\n"
ONE = "func f() {\nentry:\n  t0 = t1 + t2\n}\n"


def test_a_successor_ready_at_latency_0_is_in_the_cycles_ready_list():
    dag = build_dag(parse(WAR).functions[0].blocks[0], "la464")
    s = list_schedule(dag, explain=True)
    first = s.steps[0]
    assert s.cycle[0] == s.cycle[1] == 0                        # both issue in cycle 0 (width 4)
    assert [n for n, _ in first.ready] == [0, 1] and first.joined == [(1, 0)]
    single = list_schedule(build_dag(parse(WAR).functions[0].blocks[0], "mips4"), explain=True)
    ready_at = {n: st.cycle for st in single.steps for n, _ in reversed(st.ready)}
    for n, c in single.cycle.items():                            # every node is listed ready by its issue
        assert ready_at[n] <= c


def test_explain_shows_it(tmp_path, capsys):
    f = tmp_path / "war.ir"
    f.write_text(WAR)
    assert main([str(f), "--target", "la464", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "0  #0 (2) #1 (2; +0 after #0)  #0 t1 = t0 + t5 on ALU0, #1 t0 = t2 + t3 on ALU1" in out
    assert "cycle 0: #1 became ready when #0 issued (latency 0) and issued in the same cycle" in out


def test_one_cycle_is_singular(tmp_path, capsys):
    f = tmp_path / "one.ir"
    f.write_text(ONE)
    assert main([str(f), "--explain", "--show-pipeline"]) == 0
    out = capsys.readouterr().out
    assert "1 cycles" not in out and "makespan 1 cycle," in out and "original order: 1 cycle" in out
    assert main(["check", str(f), "--against", str(f), "--show-pipeline"]) == 0
    out = capsys.readouterr().out
    assert "1 cycles" not in out and "your order         1 cycle   (no stall)" in out
    assert "result: LEGAL; 1 cycle (schedcc 1" in out

"""The exact solver's limits (issue 21): a search cut by the time limit says so, and the
answer, bounds included, does not depend on how loaded the machine is."""

import json
import subprocess
import sys
import time

import pytest

from schedcc import parse
from schedcc.cli import main
from schedcc.dag import build_dag
from schedcc.sched import cpsat
from schedcc.sched.cpsat import Limits
from schedcc.sched.exact import exact_schedule
from schedcc.sched.exact_modulo import average_live_bound, exact_modulo_schedule
from schedcc.sched.lifetimes import register_pressure
from schedcc.sched.solve import ModuloStrategy, solve
from schedcc.swp.loops import find_loops, loop_dag
from schedcc.target import load_target

EOS = ["examples/loops/eos.ir", "--pipeline", "--exact", "--time-limit", "0.05", "--target", "la664"]


def _exact(capsys, args):
    assert main(args + ["--format", "json"]) == 0
    found = []

    def walk(o):
        if isinstance(o, dict):
            if "max_live_bound" in o:
                found.append({k: v for k, v in o.items() if "seconds" not in k})
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(json.loads(capsys.readouterr().out))
    assert found
    return found


def test_a_register_search_cut_by_the_time_limit_says_so(capsys):
    """Was ``stopped: null`` with a MaxLive bound of 0: the II is proven, the registers' search
    is cut, and both the JSON and the text name the limit; the bound is at least the average."""
    [info] = _exact(capsys, EOS)
    assert info["status"] == "optimal" and info["max_live_status"] == "feasible"
    assert info["stopped"] == "time limit (registers)"
    assert 0 < info["max_live_bound"] < info["max_live"]
    assert main(EOS) == 0
    assert "needed (the time limit stopped the search)" in capsys.readouterr().out


def test_the_answer_is_the_same_under_load(capsys):
    """The same search with three busy processes on the machine: the same schedule, MaxLive
    and bound. While the clock was the safety, eos's registers search stopped on it: MaxLive
    22 on a quiet machine, 32 with three busy processes."""
    args = EOS[:4] + ["0.3"] + EOS[5:]
    quiet = [_exact(capsys, args) for _ in range(2)]
    assert quiet[0] == quiet[1] and quiet[0][0]["stopped"] == "time limit (registers)"
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]
    try:
        time.sleep(0.2)
        loaded = _exact(capsys, args)
    finally:
        for p in burners:
            p.kill()
            p.wait()
    assert loaded == quiet[0]


def test_the_cpu_time_safety_stops_a_search_and_says_so(monkeypatch):
    """A search whose deterministic limit is far away is stopped by the process's CPU time
    (never the clock a loaded machine stretches), and the answer says which limit it was."""
    sys.path.insert(0, "bench")
    from gen_block import random_block
    monkeypatch.setattr(cpsat, "CPU_FACTOR", 0.0)
    monkeypatch.setattr(cpsat, "CPU_SLACK", 0.3)
    g = build_dag(parse(random_block(200, 12)).functions[0].blocks[0], load_target("mips4"))
    start = time.process_time()
    s = exact_schedule(g, limits=Limits(60))
    assert time.process_time() - start < 10
    assert s.exact.status == "feasible" and s.exact.stopped == "CPU-time limit"


@pytest.mark.parametrize("name", ["axpy", "eos", "fir4", "hydro", "stencil5", "tridiag", "complex_mul"])
@pytest.mark.parametrize("target", ["la464", "la664"])
def test_the_average_live_bound_is_a_lower_bound(name, target):
    """Never above the MaxLive of the heuristic's schedule, nor of the exact one."""
    loop = find_loops(parse(open(f"examples/loops/{name}.ir").read()).functions[0])[0]
    g = loop_dag(loop, load_target(target))
    ims = solve(g, ModuloStrategy(), bound=False).schedule
    assert average_live_bound(g, ims.ii) <= register_pressure(g, ims.ii, ims.cycle).max_live
    s = exact_modulo_schedule(g, ims, Limits(0.05))
    assert 0 < s.exact.max_live_bound <= s.exact.max_live
    if s.exact.max_live_status == "optimal":
        assert s.exact.max_live_bound == s.exact.max_live

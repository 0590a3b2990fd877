"""Property tests: software-pipelined loops compute what the originals computed.

Random loops (schedcc.swp.loopgen) on random targets with both schedulers; each is
run through the interpreter with trip counts 0, 1, below the stage count, at
it and well above, and must leave the same memory and return the same value.
Every modulo schedule must also pass the independent modulo verifier.
"""

import random

from hypothesis import HealthCheck, given, settings, strategies as st

from schedcc import parse
from schedcc.sim.interp import format_result, run_program
from schedcc.ir import print_program
from schedcc.swp.loopgen import ARRAY_SLACK, random_loop
from schedcc.swp.pipeliner import pipeline_program
from schedcc.verifier.modulo import verify_modulo


def check_equivalent(text: str, target: str, algorithm: str, seed: int, extra_trips=()):
    prog = parse(text)
    result = pipeline_program(prog, target, algorithm)
    (res,) = result.loops
    if res.kind in ("no-gain", "schedule"):
        # No II below one list-scheduled iteration (none exists, or none found): the loop
        # is left as it was, and says its bounds.
        assert res.mii.value >= res.cycles_before if res.kind == "no-gain" else res.mii.value < res.cycles_before
        assert "left as it was" in res.reason and f"MII {res.mii.value}" in res.reason
        assert print_program(result.transformed) == print_program(prog)
        return
    assert res.pipelined, res.reason
    s = res.schedule
    verify_modulo(res.dag, s.ii, s.cycle, s.unit, result.target.issue_width)
    new = parse(print_program(result.transformed))
    assert print_program(parse(print_program(new))) == print_program(new)
    S, u = s.stages, res.pressure.unroll
    trips = {0, 1, 2, max(S - 1, 0), S, S + 1, S - 1 + u, S + 2 * u + 1, *extra_trips}
    rng = random.Random(seed)
    for n in sorted(trips):
        arrays = {a: [rng.randint(-5, 5) for _ in range(n + ARRAY_SLACK + 8)] for a in "ABC" if f"{a}[" in text}
        if "[p " in text:
            arrays["p"] = [rng.randint(-5, 5) for _ in range(n + ARRAY_SLACK + 8)]
        args = dict(arrays, n=n, a=rng.randint(-4, 4), b=rng.randint(-4, 4))
        want = format_result(run_program(prog, "f", args, max_steps=200_000))
        got = format_result(run_program(new, "f", args, max_steps=400_000))
        assert got == want, f"trip count {n} differs on {target}/{algorithm}:\n{text}"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), ops=st.integers(1, 16),
       target=st.sampled_from(["la464", "la664", "mips4", "generic"]),
       algorithm=st.sampled_from(["ims", "swing"]))
def test_pipelined_loops_compute_the_same(seed, ops, target, algorithm):
    text = random_loop(random.Random(seed), ops)
    check_equivalent(text, target, algorithm, seed)


def test_lecture_loop_for_every_small_trip_count(root):
    text = (root / "examples/loops/lecture_cj.ir").read_text()
    prog = parse(text)
    for target in ("la464", "mips4"):
        new = parse(print_program(pipeline_program(prog, target).transformed))
        for n in range(0, 25):
            args = {"MAX": n, "A": 3}
            assert format_result(run_program(new, "lecture", args)) == format_result(run_program(prog, "lecture", args))


import glob  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

KERNELS = sorted(glob.glob(str(Path(__file__).resolve().parent.parent / "examples" / "loops" / "*.ir")))


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: Path(p).stem)
def test_example_kernels_compute_the_same(path):
    prog = parse(Path(path).read_text())
    func = prog.functions[0]
    trip = next((p.name for p in func.params if p.name in ("n", "MAX")), None)
    for target, algorithm in (("la464", "ims"), ("la664", "swing")):
        new = parse(print_program(pipeline_program(prog, target, algorithm).transformed))
        for n in (0, 1, 2, 3, 5, 8, 13, 21):
            args = {trip: n} if trip else {}
            want = run_program(prog, func.name, args, seed=n, array_size=48)
            got = run_program(new, func.name, args, seed=n, array_size=48)
            assert format_result(got) == format_result(want), (target, algorithm, n)


def test_constant_bound_and_countdown_with_every_start():
    # The trip count comes from a constant bound; the start value varies it from 1 to 40.
    text = """func f(s) {
entry:
  i = s
  acc = 0
loop:
  a = load A[i]
  b = load B[i]
  p = a * b
  acc = acc + p
  store C[i], acc
  i = i - 3
  more = i >= 7
  br more, loop, exit
exit:
  ret acc
}
"""
    prog = parse(text)
    for target, algorithm in (("la464", "ims"), ("la664", "swing"), ("mips4", "ims")):
        new = parse(print_program(pipeline_program(prog, target, algorithm).transformed))
        assert any(b.label == "loop.kernel" for b in new.functions[0].blocks)
        for s in range(7, 127, 3):
            args = {"s": s}
            want = format_result(run_program(prog, "f", args, seed=s, array_size=130))
            assert format_result(run_program(new, "f", args, seed=s, array_size=130)) == want, (target, s)


def test_addresses_read_fresh_induction_copies(root):
    from schedcc.sched.lifetimes import register_pressure
    prog = parse((root / "examples/loops/lecture_cj.ir").read_text())
    (res,) = pipeline_program(prog, "la464").loops
    s = res.schedule
    plain = register_pressure(res.dag, s.ii, s.cycle)
    assert res.pressure.registers < plain.registers and res.pressure.unroll < plain.unroll
    kernel = next(b for b in res.blocks if b.label == "loop.kernel")
    stores = [str(i) for i in kernel.instrs if i.opcode == "store"]
    assert stores and all(" - " in t for t in stores)  # C[j.k - offset]: a fresher copy, corrected

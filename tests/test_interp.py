"""The IR interpreter (schedcc.sim.interp) and ``schedcc run``."""

import math
import subprocess
import sys

import pytest

from schedcc import parse
from schedcc.errors import SchedccError
from schedcc.sim.interp import default_arguments, format_result, run_program


def run(text, function=None, args=None, **kw):
    return run_program(parse(text), function, args, **kw)


def test_integer_arithmetic_and_comparisons():
    r = run("func f(a, b) {\nentry:\n  c = a * b\n  d = c / 4\n  e = c % 4\n  g = -7 / 2\n  h = -7 % 2\n"
            "  s = d << 2\n  t = s - e\n  u = t > 10\n  v = u + g\n  w = v + h\n  ret w\n}\n",
            args={"a": 5, "b": 3})
    # c = 15, d = 3, e = 3, g = -3 (toward zero), h = -1, s = 12, t = 9, u = 0
    assert r.value == 0 - 3 - 1


def test_wraps_at_64_bits():
    r = run("func f(a) {\nentry:\n  b = a << 63\n  c = b - 1\n  ret c\n}\n", args={"a": 1})
    assert r.value == 2**63 - 1


def test_floats():
    r = run("func f(x) {\nentry:\n  y = fmul x, 2.5\n  z = fsqrt y\n  w = fma z, z, 1.0\n  ret w\n}\n",
            args={"x": 4})
    assert math.isclose(r.value, 11.0)
    r = run("func f(x) {\nentry:\n  y = fdiv x, 0.0\n  ret y\n}\n", args={"x": 1.0})
    assert r.value == math.inf


def test_arrays_pointers_and_calls():
    text = """func main(p, n) {
entry:
  s = 0
  i = 0
loop:
  v = load [p]
  w = call twice(v)
  s = s + w
  store A[i], w
  p = p + 8
  i = i + 1
  c = i < n
  br c, loop, exit
exit:
  ret s
}

func twice(x) {
entry:
  y = x + x
  ret y
}
"""
    r = run(text, args={"n": 3, "p": [1, 2, 3, 4], "A": [0, 0, 0, 0]})
    assert r.value == 12
    assert r.arrays == {"A": [2, 4, 6, 0], "p": [1, 2, 3, 4]}


def test_fall_through_and_jumps():
    r = run("func f(a) {\nentry:\n  b = a + 1\nnext:\n  c = b > 5\n  br c, big, small\nsmall:\n  jmp done\n"
            "big:\n  b = 100\ndone:\n  ret b\n}\n", args={"a": 1})
    assert r.value == 2


@pytest.mark.parametrize("text,words", [
    ("func f() {\nentry:\n  a = b + 1\n  ret a\n}\n", "reads b before it is written"),
    ("func f() {\nentry:\n  a = 1 / 0\n  ret a\n}\n", "division by zero"),
    ("func f() {\nentry:\n  a = load A[100]\n  ret a\n}\n", "outside the array"),
    ("func f() {\nentry:\nl:\n  jmp l\n}\n", "stopped after"),
    ("func f() {\nentry:\n  a = call g(1)\n  ret a\n}\n", "not a function of this file"),
    ("func f() {\nentry:\n  a = frob 1, 2\n  ret a\n}\n", "does not know opcode 'frob'"),
])
def test_errors_name_the_instruction(text, words):
    with pytest.raises(SchedccError, match=words) as info:
        run(text, max_steps=1000)
    assert info.value.loc is None or info.value.loc.line >= 2


def test_default_arguments_are_deterministic():
    prog = parse("func f(n, a) {\nentry:\n  x = load X[n]\n  ret x\n}\n")
    one = default_arguments(prog, prog.functions[0], seed=3, array_size=5)
    assert one == default_arguments(prog, prog.functions[0], seed=3, array_size=5)
    assert len(one["X"]) == 5 and set(one) == {"n", "a", "X"}
    assert one != default_arguments(prog, prog.functions[0], seed=4, array_size=5)


def test_format_is_stable():
    r = run("func f() {\nentry:\n  store B[1], 2.5\n  store A[0], 7\n  ret\n}\n", args={"A": [0, 1], "B": [0, 0]})
    assert format_result(r) == "return none\nA[2] = 7 1\nB[2] = 0 2.5\n"


def cli(*args, input=None):
    return subprocess.run([sys.executable, "-m", "schedcc.cli", *args], capture_output=True, text=True, input=input)


def test_run_command(root):
    out = cli("run", str(root / "examples/loops/sum.ir"), "--set", "n=4", "--set", "A=1,2,3,4,5")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "return 10\nA[5] = 1 2 3 4 5\n"
    again = cli("run", str(root / "examples/loops/sum.ir"), "--seed", "7", "--array-size", "10")
    assert again.stdout == cli("run", str(root / "examples/loops/sum.ir"), "--seed", "7", "--array-size", "10").stdout


def test_run_command_errors_exit_2(root):
    out = cli("run", str(root / "examples/loops/sum.ir"), "--set", "n=100", "--array-size", "8")
    assert out.returncode == 2 and "outside the array" in out.stderr and "Traceback" not in out.stderr
    assert "sum.ir:" in out.stderr and "^" in out.stderr
    out = cli("run", str(root / "examples/loops/sum.ir"), "--set", "n")
    assert out.returncode == 2 and "expected NAME=VALUE" in out.stderr
    out = cli("run", str(root / "examples/loops/sum.ir"), "--function", "nope")
    assert out.returncode == 2 and "no function 'nope'" in out.stderr

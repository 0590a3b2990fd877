"""Loop rotation (swp/rotate.py): while-form loops, tested at their top, pipelined in
schedcc IR and computing what the originals computed; a rotation that gains nothing
is undone, so the program stays byte-identical."""

from schedcc import parse
from schedcc.ir import print_program
from schedcc.sim.interp import format_result, run_program
from schedcc.swp.pipeliner import pipeline_program


def test_while_loops_are_rotated_pipelined_and_compute_the_same(root):
    prog = parse((root / "examples/loops/while_form.ir").read_text())
    for target, algorithm in (("la464", "ims"), ("la664", "swing"), ("mips4", "ims")):
        result = pipeline_program(prog, target, algorithm)
        assert [(r.name, r.pipelined, r.rotated) for r in result.loops] == [
            ("saxpy/body", True, True), ("dot_down/body", True, True), ("stride3/body", True, True)]
        new = parse(print_program(result.transformed))
        for func in prog.functions:
            for n in range(0, 22):
                args = {"n": n, "a": 3} if func.name == "saxpy" else {"n": n}
                want = format_result(run_program(prog, func.name, args, seed=n, array_size=64))
                got = format_result(run_program(new, func.name, args, seed=n, array_size=64))
                assert got == want, (target, func.name, n)


def test_a_rotation_that_gains_nothing_is_undone():
    text = """func f(n) {
entry:
  i = 0
  s = 1
head:
  c = i < n
  br c, body, exit
body:
  s = s * s
  x = call g(s)
  i = i + 1
  jmp head
exit:
  ret s
}
"""
    prog = parse(text)
    result = pipeline_program(prog, "la464")
    (res,) = result.loops
    assert not res.pipelined and not res.rotated and res.loop.block.label == "head"
    assert res.reason.startswith("the loop tests at its top ('head'); rotated to test at its end in 'body', it is "
                                 "still not pipelined: the body calls 'g'")
    assert print_program(result.transformed) == print_program(prog)

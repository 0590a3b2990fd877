"""The library's result objects: a shared base for what the loop searches find, and
one-line reprs for what a user prints at a prompt (issue 19, the library boundary)."""

from pathlib import Path

import schedcc
from schedcc.driver import schedule_program
from schedcc.driver.job import Job, Options, run_job
from schedcc.frontends import parse_source
from schedcc.swp.asm_loops import find_asm_loops
from schedcc.swp.llvm_loops import find_llvm_loops
from schedcc.swp.loops import find_loops
from schedcc.swp.view import FoundLoop, LoopView, NotPipelined
from schedcc.target import load_target

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TWO_LOOPS = """\
func f(n) {
top:
  i = 0
  s = 0
loop:
  x = load A[i]
  s = s + x
  i = i + 1
  c = lt i, n
  br c, loop, mid
mid:
  call g()
  j = 0
loop2:
  call g()
  j = j + 1
  d = lt j, n
  br d, loop2, out
out:
  ret
}
"""


def test_found_loops_share_a_base_with_a_flag():
    view, refused = find_loops(schedcc.parse(TWO_LOOPS).functions[0])
    assert isinstance(view, LoopView) and isinstance(refused, NotPipelined)
    assert isinstance(view, FoundLoop) and isinstance(refused, FoundLoop)
    assert view.pipelinable and not refused.pipelinable
    assert (view.name, refused.name) == ("f/loop", "f/loop2")
    assert refused.kind == "call"


def test_every_front_end_says_pipelinable_and_names_its_loop():
    asm = parse_source((EXAMPLES / "swp" / "kernels-O2.s").read_text(), "kernels-O2.s")
    found = find_asm_loops(asm)
    assert found and all(x.pipelinable for x in found)
    assert found[0].name == "saxpy/.LBB0_2" == f"{found[0].function.name}/{found[0].block.label}"
    ll = parse_source((EXAMPLES / "swp" / "kernels-O2.ll").read_text(), "kernels-O2.ll")
    assert all(x.pipelinable == (not isinstance(x, NotPipelined)) for x in find_llvm_loops(ll))


def _one_line(obj) -> str:
    text = repr(obj)
    assert "\n" not in text and len(text) < 200, text
    return text


def test_short_reprs_of_loops():
    view, refused = find_loops(schedcc.parse(TWO_LOOPS).functions[0])
    assert _one_line(view) == "<LoopView f/loop: 5 instrs, i += 1 while i + 1 < n>"  # i at the top of the iteration
    assert _one_line(refused).startswith("<NotPipelined f/loop2 (call): ")
    asm = parse_source((EXAMPLES / "swp" / "kernels-O2.s").read_text(), "kernels-O2.s")
    assert _one_line(find_asm_loops(asm)[0]) == "<AsmLoop saxpy/.LBB0_2: 8 instrs, $a0 -= 1 while $a0 - 1 != $zero>"


def test_short_reprs_of_schedules_and_results():
    prog, mips4 = schedcc.parse((EXAMPLES / "lecture.ir").read_text()), load_target("mips4")
    dag = schedcc.build_dag(prog.functions[0].blocks[0], mips4)
    assert _one_line(schedcc.list_schedule(dag)) == "<Schedule critical-path: 6 ops in 9 cycles>"
    assert _one_line(schedcc.solve(dag)) == "<Solved <Schedule critical-path: 6 ops in 9 cycles>, bound 9, verified>"
    res = schedule_program(prog, mips4)
    assert _one_line(res) == "<ProgramResult on mips4: 1 block, 9 cycles (original 11)>"
    assert _one_line(res.blocks[0]) == "<BlockResult main/entry: 6 instrs, 9 cycles (original 11, bound 9)>"
    src = parse_source((EXAMPLES / "swp" / "kernels-O2.s").read_text(), "kernels-O2.s")
    job = run_job(Job(src, load_target("la464"), Options(pipeline=True)))
    loops = job.loops
    assert _one_line(loops) == "<PipelineResult asm on la464: 9 of 9 loops pipelined>"
    first = loops.loops[0]
    s = first.schedule
    assert _one_line(first) == (f"<LoopResult saxpy/.LBB0_2: II {s.ii} (MII {s.mii.value}), {s.stages} stages, "
                                f"{first.cycles_before} cycles per iteration before>")
    assert _one_line(s) == f"<ModuloSchedule ims: II {s.ii} (MII {s.mii.value}, {s.mii.bound_by}), " \
                           f"{s.stages} stages, {len(s.cycle)} ops>"
    assert _one_line(job).startswith("<JobResult cpu: <ProgramResult on la464: ")

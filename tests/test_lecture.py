"""The lecture's list-scheduling example is an acceptance test."""

from schedcc import parse
from schedcc.dag import build_dag
from schedcc.driver import schedule_program
from schedcc.sched import list_schedule, lower_bound
from schedcc.verifier import verify
from schedcc.sim import simulate_in_order
from schedcc.target import load_target

EXPECTED_ORDER = [
    "t0 = t1 + t2",
    "t3 = t2 + t4",
    "t6 = t2 + t7",
    "t1 = t0 + t1",
    "t5 = t3 + t4",
    "t0 = t1 + t2",
]


def test_lecture_order_and_makespan(lecture_text):
    mips4 = load_target("mips4")
    block = parse(lecture_text).functions[0].blocks[0]
    dag = build_dag(block, mips4)
    sched = list_schedule(dag, mips4)
    assert [str(block.instrs[i]) for i in sched.order] == EXPECTED_ORDER
    assert sched.makespan == 9
    assert simulate_in_order(block, mips4).makespan == 11
    assert lower_bound(dag, mips4).value == 9
    verify(block, mips4, sched.cycle, sched.unit)


def test_lecture_through_driver(lecture_text):
    result = schedule_program(parse(lecture_text), "mips4")
    (res,) = result.blocks
    assert (res.makespan, res.original_makespan, res.saved) == (9, 11, 2)
    assert [str(i) for i in res.scheduled_block().instrs] == EXPECTED_ORDER

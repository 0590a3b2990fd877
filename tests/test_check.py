"""schedcc check: legality of a hand-made order, its cycles, the messages and the exit status."""

import json
import random

import networkx as nx
from hypothesis import given, settings, strategies as st

from schedcc import parse
from schedcc.cli import main
from schedcc.teaching.grading import check_reordering

LECTURE_GOOD = "t0 = t1 + t2\nt3 = t2 + t4\nt1 = t0 + t1\nt6 = t2 + t7\nt5 = t3 + t4\nt0 = t1 + t2\n"
LECTURE_BAD = "t1 = t0 + t1\nt0 = t1 + t2\nt3 = t2 + t4\nt0 = t1 + t2\nt5 = t3 + t4\nt6 = t2 + t7\n"


def run_cli(tmp_path, capsys, student: str, original: str, *extra: str):
    (tmp_path / "mine.ir").write_text(student)
    (tmp_path / "orig.ir").write_text(original)
    rc = main(["check", str(tmp_path / "mine.ir"), "--against", str(tmp_path / "orig.ir"), *extra])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_legal_order(tmp_path, capsys, lecture_text):
    rc, out, _ = run_cli(tmp_path, capsys, LECTURE_GOOD, lecture_text, "--target", "mips4")
    assert rc == 0
    assert "legal reordering of 6 instructions" in out
    assert "2 cycles faster than the original; as fast as schedcc; optimal" in out
    assert "result: LEGAL; 9 cycles (schedcc 9, lower bound 9)" in out


def test_illegal_order_names_first_violation(tmp_path, capsys, lecture_text):
    rc, out, _ = run_cli(tmp_path, capsys, LECTURE_BAD, lecture_text, "--target", "mips4")
    assert rc == 1
    assert "mine.ir:1:1: first violation: t1 = t0 + t1 is issued before t0 = t1 + t2 has produced t0: " \
           "RAW on t0" in out
    assert "t0 = t1 + t2 is at" in out and "mine.ir:2:1; it must come first" in out


def test_changed_instruction_is_illegal(tmp_path, capsys, lecture_text):
    rc, out, _ = run_cli(tmp_path, capsys, LECTURE_GOOD.replace("t7", "t8"), lecture_text, "--target", "mips4")
    assert rc == 1
    assert "t6 = t2 + t8 is not an instruction of the original block" in out
    assert "t6 = t2 + t7 of the original is missing from your block" in out


def test_missing_block_and_function(tmp_path, capsys):
    original = "func f(a) {\nentry:\n  b = a + 1\n  jmp done\ndone:\n  ret b\n}\n"
    student = "func f(a) {\nentry:\n  b = a + 1\n  jmp done2\ndone2:\n  ret b\n}\n"
    rc, out, _ = run_cli(tmp_path, capsys, student, original)
    assert rc == 1
    assert "block f / done is missing" in out


def test_bad_input_exits_2(tmp_path, capsys, lecture_text):
    rc, _, err = run_cli(tmp_path, capsys, "t0 = t1 +\n", lecture_text, "--target", "mips4")
    assert rc == 2 and "mine.ir:1:10: error:" in err and "^" in err
    rc, _, err = run_cli(tmp_path, capsys, LECTURE_GOOD, lecture_text, "--target", "nosuch")
    assert rc == 2 and "error:" in err
    rc = main(["check", str(tmp_path / "absent.ir"), "--against", str(tmp_path / "orig.ir")])
    assert rc == 2


def test_terminator_and_memory_messages():
    original = parse("store A[i], x\ny = load A[i]\nz = y + 1\nret z\n", "o.ir")
    student = parse("y = load A[i]\nstore A[i], x\nz = y + 1\nret z\n", "s.ir")
    r = check_reordering(student, original, "mips4")
    messages = [v.message for v in r.blocks[0].violations]
    assert messages[0] == ("y = load A[i] is issued before store A[i], x has stored A[i]: "
                           "RAW through memory on A[i]")
    student = parse("store A[i], x\nz = y + 1\ny = load A[i]\nret z\n", "s.ir")
    r = check_reordering(student, original, "mips4")
    assert r.blocks[0].violations[0].message == (
        "z = y + 1 is issued before y = load A[i] has produced y: RAW on y")


def test_json(tmp_path, capsys, lecture_text):
    rc, out, _ = run_cli(tmp_path, capsys, LECTURE_BAD, lecture_text, "--target", "mips4", "--format", "json")
    doc = json.loads(out)
    assert rc == 1 and doc["legal"] is False
    assert doc["blocks"][0]["violations"][0]["kind"] == "RAW"


# -- properties ----------------------------------------------------------------------------

REGS = ["a", "b", "c", "d"]


@st.composite
def blocks(draw):
    n = draw(st.integers(1, 8))
    lines = []
    for _ in range(n):
        dst, x, y = (draw(st.sampled_from(REGS)) for _ in range(3))
        op = draw(st.sampled_from(["+", "-", "*", "^"]))
        lines.append(f"{dst} = {x} {op} {y}")
    return "\n".join(lines) + "\n"


def evaluate(text: str) -> dict:
    regs = {r: i + 2 for i, r in enumerate(REGS)}
    for line in text.splitlines():
        dst, expr = line.split(" = ")
        x, op, y = expr.split()
        regs[dst] = {"+": regs[x] + regs[y], "-": regs[x] - regs[y], "^": regs[x] ^ regs[y],
                     "*": regs[x] * regs[y]}[op] % 1000003
    return regs


@settings(max_examples=60, deadline=None)
@given(blocks(), st.randoms(use_true_random=False))
def test_legal_orders_compute_the_same(text, rnd):
    original = parse(text, "o.ir")
    lines = text.splitlines()
    perm = list(range(len(lines)))
    rnd.shuffle(perm)
    student_text = "\n".join(lines[i] for i in perm) + "\n"
    result = check_reordering(parse(student_text, "s.ir"), original, "mips4")
    if result.legal:
        assert evaluate(student_text) == evaluate(text)
        (b,) = result.blocks
        assert b.lower_bound <= b.cycles
    else:
        assert result.blocks[0].violations


@settings(max_examples=40, deadline=None)
@given(blocks(), st.integers(0, 10_000))
def test_every_topological_order_is_legal(text, seed):
    original = parse(text, "o.ir")
    from schedcc.dag import build_dag
    dag = build_dag(original.functions[0].blocks[0], "mips4")
    rnd = random.Random(seed)
    order, indeg = [], {n: len(dag.pred[n]) for n in range(len(dag))}
    ready = [n for n, k in indeg.items() if k == 0]
    while ready:
        n = ready.pop(rnd.randrange(len(ready)))
        order.append(n)
        for d in dag.succ[n]:
            indeg[d.dst] -= 1
            if indeg[d.dst] == 0:
                ready.append(d.dst)
    assert nx.is_directed_acyclic_graph(dag.to_networkx())
    lines = text.splitlines()
    result = check_reordering(parse("\n".join(lines[i] for i in order) + "\n", "s.ir"), original, "mips4")
    assert result.legal

"""Checking a student's instruction order against the original program.

:func:`check_reordering` answers, block by block: is the student's block a
legal reordering of the original one (the same instructions, every
dependence of the original respected), how many cycles it takes when issued
in order on the target, and how far that is from schedcc's list schedule and
from the lower bound. The first violated dependence is named in the
lecture's words ("t1 = t0 + t1 is issued before t0 = t1 + t2 has produced t0:
RAW on t0").

Instructions are matched by their text (opcode, destination, operands and
attributes; comments and spacing do not matter). Equal instructions are
matched in order, which loses nothing: two equal instructions write the same
register or memory, or order memory, so every legal order keeps them in
their original order anyway.

Both timings (the student's order issued in order, schedcc's list schedule)
are checked by the independent verifier (:func:`schedcc.verifier.verify`),
which re-derives every constraint from the program: an order the DAG wrongly
allows is an internal error, never graded legal.

Complexity: O(n + e) per block plus the scheduler's O((n + e) log n).

Example::

    >>> from schedcc import parse
    >>> original = parse("t0 = t1 + t2\\nt1 = t0 + t1\\n", "orig.ir")
    >>> student = parse("t1 = t0 + t1\\nt0 = t1 + t2\\n", "mine.ir")
    >>> result = check_reordering(student, original, "mips4")
    >>> result.legal, result.blocks[0].violations[0].message
    (False, 't1 = t0 + t1 is issued before t0 = t1 + t2 has produced t0: RAW on t0')
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

from schedcc.dag import build_dag
from schedcc.ir import Block, Instr, Loc, Program
from schedcc.frontends.select import Selection
from schedcc.sched import list_schedule, lower_bound
from schedcc.problem import SchedGraph
from schedcc.sim import simulate_in_order, simulate_order
from schedcc.target import Target, check_opcodes, load_target
from schedcc.verifier import verify
from schedcc.verifier.problem import VerificationError, own_schedule


@dataclass
class Violation:
    """Instruction ``early`` (original index) is issued before ``needed`` although it depends on it."""

    early: int
    needed: int
    kind: str
    reason: str
    message: str
    loc: Loc | None = None         # where the early instruction is in the student's file
    needed_loc: Loc | None = None  # where the needed one is


@dataclass
class BlockCheck:
    function: str
    block: str
    instructions: int
    problems: list[str] = field(default_factory=list)   # not the same instructions
    violations: list[Violation] = field(default_factory=list)
    order: list[int] = field(default_factory=list)      # the student's order, as original indices
    cycles: int | None = None                           # the student's makespan (when legal)
    issue: dict[int, int] = field(default_factory=dict)  # original index -> issue cycle in the student's order
    stalls: dict[int, str] = field(default_factory=dict)  # original index -> why it waited
    original_cycles: int = 0
    scheduler_cycles: int = 0
    scheduler_kept_original: bool = False               # the list schedule was longer: the original order kept
    list_cycles: int = 0                                # what the list schedule itself took
    lower_bound: int = 0
    bound_reason: str = ""
    dag: SchedGraph | None = None

    @property
    def legal(self) -> bool:
        return not self.problems and not self.violations


@dataclass
class CheckResult:
    student: Program
    original: Program
    target: Target
    priority: str
    problems: list[str] = field(default_factory=list)  # functions or blocks missing or extra
    blocks: list[BlockCheck] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return not self.problems and all(b.legal for b in self.blocks)

    @property
    def cycles(self) -> int | None:
        if not self.legal:
            return None
        return sum(b.cycles or 0 for b in self.blocks)


def check_reordering(student: Program, original: Program, target: Target | str,
                     priority: str = "critical-path", select: Selection | None = None) -> CheckResult:
    """Check *student* against *original* on *target*; see the module docstring. With
    *select* (:func:`schedcc.frontends.select.select` on the original: ``--function``, ``--block``)
    only the blocks chosen are compared, and a block or function the student added is
    not a problem.

    Raises :class:`~schedcc.errors.SchedccError` when a program uses an opcode the
    target does not know (bad input, not an illegal order).
    """
    tgt = load_target(target)
    check_opcodes(original, tgt)
    check_opcodes(student, tgt)
    result = CheckResult(student, original, tgt, priority)
    theirs = {f.name: f for f in student.functions}
    chosen = select if select is not None and not select.everything else None
    everything = chosen is None
    for func in original.functions:
        if chosen is not None and not chosen.wants_function(func.name):
            theirs.pop(func.name, None)
            continue
        other = theirs.pop(func.name, None)
        if other is None:
            result.problems.append(f"function {func.name} is missing from {student.source}")
            continue
        their_blocks = {b.label: b for b in other.blocks}
        for block in func.blocks:
            mine = their_blocks.pop(block.label, None)
            if chosen is not None and not chosen.wants(func.name, block.label):
                continue
            if mine is None:
                result.problems.append(f"block {func.name} / {block.label} is missing from {student.source}")
                continue
            result.blocks.append(check_block(func.name, mine, block, tgt, priority))
        for label in their_blocks if everything else ():
            result.problems.append(f"block {func.name} / {label} of {student.source} is not in {original.source}")
    for name in theirs if everything else ():
        result.problems.append(f"function {name} of {student.source} is not in {original.source}")
    return result


def check_block(function: str, student: Block, original: Block, target: Target,
                priority: str = "critical-path") -> BlockCheck:
    """Check one block (see :func:`check_reordering`)."""
    dag = build_dag(original, target)
    res = BlockCheck(function, original.label, len(original.instrs), dag=dag)
    sched = list_schedule(dag, priority=priority)
    # Both timings below come from the DAG; the independent verifier re-derives every
    # constraint from the program, so a dependence the DAG missed is a bug found here,
    # never an illegal order graded legal.
    with own_schedule():  # schedcc's list schedule: a violation is a bug in schedcc
        verify(original, target, sched.cycle, sched.unit)
    bound = lower_bound(dag)
    res.original_cycles = simulate_in_order(original, target, dag).makespan
    res.scheduler_cycles, res.lower_bound, res.bound_reason = sched.makespan, bound.value, bound.limited_by
    res.scheduler_kept_original = sched.input_order
    res.list_cycles = sched.list_makespan if sched.input_order else sched.makespan
    order = _match(student, original, res.problems)
    if res.problems:
        return res
    res.order = order
    res.violations = _violations(dag, order, student)
    if res.violations:
        return res
    # Issue the student's order in order, with the original's dependences.
    sim = simulate_order(dag, order)
    try:
        verify(original, target, sim.cycle, sim.unit)
    except VerificationError as err:  # the student's order: an error in the input (exit 2), not schedcc's bug
        raise VerificationError([f"your order of {function} / {original.label} fails the independent "
                                 f"verifier: {v}" for v in err.violations]) from None
    res.cycles = sim.makespan
    res.issue = dict(sim.cycle)
    res.stalls = dict(sim.stall)
    return res


def _match(student: Block, original: Block, problems: list[str]) -> list[int]:
    """Original index of each student instruction, equal ones matched in order."""
    where: dict[Instr, deque[int]] = defaultdict(deque)
    for i, ins in enumerate(original.instrs):
        where[ins].append(i)
    order: list[int] = []
    for ins in student.instrs:
        queue = where.get(ins)
        if queue:
            order.append(queue.popleft())
        else:
            problems.append(f"{_at(ins.loc)}{ins} is not an instruction of the original block "
                            f"(or it appears there fewer times)")
    for queue in where.values():
        for i in queue:
            ins = original.instrs[i]
            problems.append(f"{_at(ins.loc)}{ins} of the original is missing from your block")
    return order


def _at(loc: Loc | None) -> str:
    return f"{loc}: " if loc is not None else ""


_RANK = {"RAW": 0, "MEM": 1, "WAW": 2, "WAR": 3, "CTRL": 4}


def _violations(dag: SchedGraph, order: list[int], student: Block) -> list[Violation]:
    """Every dependence of *dag* that the student's order breaks, in the student's order."""
    placed: set[int] = set()
    loc_of = {orig: student.instrs[pos].loc for pos, orig in enumerate(order)}
    out: list[Violation] = []
    for v in order:
        late = [d for d in dag.pred[v] if d.src not in placed]
        late.sort(key=lambda d: (_RANK.get(d.kind, 9), d.src))
        for d in late:
            u = d.src
            out.append(Violation(v, u, d.kind, d.reason, violation_text(dag, u, v),
                                 loc_of.get(v), loc_of.get(u)))
        placed.add(v)
    return out


def violation_text(dag: SchedGraph, u: int, v: int) -> str:
    """Why *v* may not be issued before *u*, in the lecture's words."""
    d = dag.dep(u, v)
    first, then = dag.ops[u].payload, dag.ops[v].payload
    kind, what = d.kind, d.reason
    if kind == "RAW":
        return f"{then} is issued before {first} has produced {what}: RAW on {what}"
    if kind == "WAR":
        return f"{then} is issued before {first} has read {what}: WAR on {what}"
    if kind == "WAW":
        return f"{then} is issued before {first}, which writes {what} first: WAW on {what}"
    if kind == "CTRL":
        return f"the terminator {then} is issued before {first}: the terminator must stay last"
    hazard = d.detail
    if hazard == "RAW":
        return f"{then} is issued before {first} has stored {what}: RAW through memory on {what}"
    if hazard == "WAR":
        return f"{then} is issued before {first} has read {what}: WAR through memory on {what}"
    if hazard == "WAW":
        return f"{then} is issued before {first}, which stores {what} first: WAW through memory on {what}"
    return (f"{then} is issued before {first}: a call or an instruction with unknown side effects "
            f"orders all memory ({what})")


def parse_program(text: str, name: str, lang: str | None = None) -> Program:
    """Parse with the front end for *lang*, or for *name*'s extension (``.ir``,
    ``.ll``, ``.s``); see :mod:`schedcc.frontends`."""
    from schedcc.frontends import parse_file
    return parse_file(text, name, lang)

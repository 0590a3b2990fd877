"""Exercises 1 and 2: every dependence of a block, and checking a student's list of them.

:func:`all_dependences` lists every RAW, WAR and WAW dependence on registers
(the DAG keeps one edge per pair; a pair can depend in several ways) plus the
memory and control edges of the DAG. :func:`check_answer` compares a
student's list (lines ``#0 -> #1 RAW t0``, and ``#0 weight 6`` for the
lecture's node weights; the lines ``schedcc deps`` prints, with ``(memory)``
and the wait ``(+3)``, are read too, and a wait given is checked) with them:
every DAG edge must be covered by some listed dependence between the same
pair, and every listed one must exist; if weights are given at all, every
node needs the right one. An answer that lists nothing is not right.

O(n * r + e) for n instructions reading r registers each. Example::

    >>> from schedcc import parse
    >>> block = parse("t0 = t1 + t2\\nt1 = t0 + t1\\n").functions[0].blocks[0]
    >>> [str(d) for d in all_dependences(block, "mips4")]
    ['#0 -> #1 RAW t0', '#0 -> #1 WAR t1']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from schedcc.dag import build_dag
from schedcc.emit.explain import lecture_weights
from schedcc.errors import SchedccError
from schedcc.ir import Block, Loc
from schedcc.target import Target, load_target


@dataclass(frozen=True, order=True)
class Dependence:
    src: int
    dst: int
    kind: str   # RAW WAR WAW, ORDER (memory behind a call or barrier), CTRL (before the terminator)
    what: str   # register or memory location
    memory: bool = False

    def __str__(self) -> str:
        return f"#{self.src} -> #{self.dst} {self.kind} {self.what}" + (" (memory)" if self.memory else "")


def all_dependences(block: Block, target: Target | str) -> list[Dependence]:
    deps: set[Dependence] = set()
    last_def: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    for j, ins in enumerate(block.instrs):
        for r in ins.uses():
            if r in last_def:
                deps.add(Dependence(last_def[r], j, "RAW", r))
            readers.setdefault(r, []).append(j)
        for r in ins.defs():
            for k in readers.get(r, ()):
                if k != j:
                    deps.add(Dependence(k, j, "WAR", r))
            if r in last_def:
                deps.add(Dependence(last_def[r], j, "WAW", r))
            last_def[r] = j
            readers[r] = []
    dag = build_dag(block, load_target(target))
    for d in dag.deps:
        if d.kind == "MEM":
            deps.add(Dependence(d.src, d.dst, d.detail or "ORDER", d.reason, memory=True))
        elif d.kind == "CTRL":
            deps.add(Dependence(d.src, d.dst, "CTRL", d.reason))
    return sorted(deps)


def wait_of(d: Dependence, dag, target: Target) -> int:
    """The cycles the second instruction of *d* must wait after the first issues: a RAW
    the producer's latency, a WAR or WAW the target's ordering latency, anything else
    the DAG edge's."""
    lat = {"RAW": dag.ops[d.src].latency, "WAR": target.war_latency, "WAW": target.waw_latency}.get(d.kind)
    return lat if lat is not None else dag.dep(d.src, d.dst).latency


MAX_DIGITS = 18  # instruction numbers and waits in an answer: 18 digits are far more than any block holds
_BIG_NUMBER = re.compile(r"\d{%d,}" % (MAX_DIGITS + 1))
_EDGE = re.compile(r"^#?(\d+)\s*->\s*#?(\d+)\s+(RAW|WAR|WAW|MEM|CTRL|ORDER)\s*(.*)$", re.I)
# what `schedcc deps` prints after the location: "(memory)", then the wait "(+3)"
_WAIT = re.compile(r"\s*\(\s*\+?\s*(-?\d+)\s*\)\s*$")
_MEMORY = re.compile(r"\s*\(memory\)\s*$", re.I)
_WEIGHT = re.compile(r"^#?(\d+)\s+weight\s*=?\s*(-?\d+)$", re.I)
# the weights line `schedcc deps` prints: "#0 6, #1 3, #2 3"
_WEIGHTS = re.compile(r"^#\d+\s+-?\d+(\s*,\s*#\d+\s+-?\d+)*\s*,?$")


@dataclass
class AnswerReport:
    right: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)     # listed, but no such dependence / wrong weight
    missing: list[str] = field(default_factory=list)   # a DAG edge no listed dependence covers
    weights_checked: int = 0
    answered: int = 0   # lines that give a dependence or a weight

    @property
    def ok(self) -> bool:
        """Everything listed is right and nothing is missing; an answer that lists nothing is not."""
        return self.answered > 0 and not self.wrong and not self.missing


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check_answer(block: Block, target: Target | str, answer: str, name: str = "<answer>") -> AnswerReport:
    """Compare the student's *answer* text with the block's dependences (see the module docstring)."""
    tgt = load_target(target)
    deps = all_dependences(block, tgt)
    dag = build_dag(block, tgt)
    n = len(block.instrs)
    report = AnswerReport()
    listed_pairs: set[tuple[int, int]] = set()
    weights = lecture_weights(dag)
    given_weights: dict[int, int] = {}

    def instruction(node: int, loc: Loc, raw: str) -> int:
        if node >= n:
            raise SchedccError(f"there is no instruction #{node} (the block has #0 to #{n - 1})", loc,
                               source_line=raw)
        return node

    for lineno, raw in enumerate(answer.splitlines(), 1):
        line = raw.split("//")[0].strip()
        if not line or line.startswith(";") or (line.startswith("#") and not re.match(r"#\s*[-+]?\d", line)):
            continue
        m, w = _EDGE.match(line), _WEIGHT.match(line)
        loc = Loc(name, lineno, 1)
        big = _BIG_NUMBER.search(raw.split("//")[0])
        if big:  # no block has that many instructions, no wait is that long (and Python reads 4,300 digits)
            raise SchedccError(f"a number of {len(big.group()):,} digits: instruction numbers and waits have at "
                               f"most {MAX_DIGITS}", Loc(name, lineno, big.start() + 1), source_line=raw,
                               width=len(big.group()))
        if w:
            given_weights[instruction(int(w.group(1)), loc, raw)] = int(w.group(2))
            report.answered += 1
            continue
        if not m and _WEIGHTS.match(line):  # the weights as `schedcc deps` prints them
            for node, value in re.findall(r"#(\d+)\s+(-?\d+)", line):
                given_weights[instruction(int(node), loc, raw)] = int(value)
            report.answered += 1
            continue
        if not m:
            raise SchedccError("cannot read this line", loc, source_line=raw,
                               notes=["write a dependence as '#0 -> #1 RAW t0' (kinds RAW WAR WAW MEM; "
                                      "'(memory)' and the wait '(+3)' may follow, as `schedcc deps` prints "
                                      "them) or a node weight as '#0 weight 6'"])
        report.answered += 1
        src, dst, kind, what = (instruction(int(m.group(1)), loc, raw), instruction(int(m.group(2)), loc, raw),
                                m.group(3).upper(), m.group(4).strip())
        wait = _WAIT.search(what)
        if wait:
            what = what[:wait.start()]
        memory = _MEMORY.search(what)
        if memory:
            what = what[:memory.start()]
        what = what.strip()
        text = line
        match = [d for d in deps if d.src == src and d.dst == dst and
                 (d.kind == kind or (d.memory and kind == "MEM")) and
                 (not memory or d.memory) and
                 (not what or _norm(d.what) == _norm(what))]
        if not match:
            report.wrong.append(f"{name}:{lineno}: {text}: no such dependence" + _hint(deps, src, dst))
            continue
        listed_pairs.add((src, dst))
        if wait and int(wait.group(1)) not in {wait_of(d, dag, tgt) for d in match}:
            waits = sorted({wait_of(d, dag, tgt) for d in match})
            cycles = "cycle" if waits == [1] else "cycles"
            report.wrong.append(f"{name}:{lineno}: {text}: the dependence is right, but #{dst} waits "
                                f"{' or '.join(map(str, waits))} {cycles} after #{src} issues, "
                                f"not {wait.group(1)}")
        else:
            report.right.append(text)
    # Every DAG edge must be covered, if the answer lists dependences at all. Say only which
    # instruction has an unlisted dependence, not on what: the student should find it.
    if listed_pairs or report.wrong:
        missing: dict[int, int] = {}
        for d in dag.deps:
            if d.kind != "CTRL" and (d.src, d.dst) not in listed_pairs:
                missing[d.dst] = missing.get(d.dst, 0) + 1
        for v, count in sorted(missing.items()):
            report.missing.append(f"#{v} {block.instrs[v]} depends on {count} more instruction"
                                  f"{'s' if count != 1 else ''} than you listed")
    if given_weights:  # weights asked for: every node needs one
        # one entry per node, so that the summary counts what is missing
        report.missing.extend(f"no weight given for #{i} {block.instrs[i]}" for i in range(n)
                              if i not in given_weights)
    for node, value in sorted(given_weights.items()):
        report.weights_checked += 1
        if value == weights[node]:
            report.right.append(f"#{node} weight {value}")
        else:
            report.wrong.append(f"#{node} weight {value}: not the longest path of edge weights from "
                                f"#{node} to the end")
    return report


def _hint(deps: list[Dependence], src: int, dst: int) -> str:
    same = [d for d in deps if d.src == src and d.dst == dst]
    if same:
        return " of that kind or on that location (the pair does depend: check the kind and the register)"
    if any(d.src == dst and d.dst == src for d in deps):
        return " in this direction (the dependence goes the other way)"
    return ""

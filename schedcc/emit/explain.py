"""``--explain``: the lecture's list-scheduling walkthrough, step for step.

The lecture ("数据依赖指导下的指令调度" / "升级版的指令调度") builds the
dependence DAG, weights its edges with latencies (+3 on the 4-stage
pipeline), weights every node bottom-up with the longest path to the end,
then schedules: at each step the ready list, the pick with the highest
weight, until the final order; and it draws the result on the pipeline.
:func:`format_walkthrough` prints the same steps for any block:

1. the weighted DAG (edges with their latency, kind and cause),
2. the node weights: the lecture's (edges only, a node without successors
   weighs 0) next to schedcc's priority (``critical-path`` adds the latency of
   the last instruction on the path; on ``mips4`` every priority is the
   lecture's weight + 3, so every choice is the same),
3. the ready list and the pick at every cycle, with what the others wait for,
4. the final order and what it saves,
5. the pipeline diagram, original and scheduled.

O(n + e + steps). From the command line: ``schedcc examples/lecture.ir --target mips4 --explain``;
from Python::

    >>> from schedcc import build_dag, parse
    >>> dag = build_dag(parse(open("examples/lecture.ir").read()).functions[0].blocks[0], "mips4")
    >>> weight = lecture_weights(dag)
    >>> weight[0], longest_path(dag, 0, weight)
    (6, [0, 1, 3])
"""

from __future__ import annotations

from schedcc.errors import plural
from schedcc.problem import SchedGraph
from schedcc.sched.priority import PRIORITY_HELP

# Long lists make the walkthrough quadratic in the block size and unreadable:
# show this many entries of a ready or waiting list, and of a longest path.
LIST_SHOWN = 12
PATH_SHOWN = 8


def lecture_weights(graph: SchedGraph) -> dict[int, int]:
    """The lecture's node weights: longest edge-latency path to a node without
    successors (which weighs 0). O(n + e)."""
    weight: dict[int, int] = {}
    for n in reversed(graph.topological_order):
        weight[n] = max((d.latency + weight[d.dst] for d in graph.succ[n]), default=0)
    return weight


def longest_path(graph: SchedGraph, n: int, weight: dict[int, int], limit: int | None = None) -> list[int]:
    """One path from *n* that realises its weight (the heaviest successor, then the
    smallest name, on a tie); at most *limit* nodes."""
    path = [n]
    while limit is None or len(path) < limit:
        nxt = [d.dst for d in graph.succ[n] if d.latency + weight[d.dst] == weight[n]]
        if not nxt:
            return path
        n = min(nxt, key=lambda s: (-weight[s], str(s)))
        path.append(n)
    return path


def _table(rows: list[list[str]], header: list[str], right: frozenset[int] = frozenset()) -> list[str]:
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return [fmt(header)] + [fmt(r) for r in rows]


def _indent(lines: list[str], by: str = "     ") -> list[str]:
    return [by + line if line else line for line in lines]


def format_walkthrough(res, target, pipeline: bool = True) -> str:
    """The walkthrough of one :class:`schedcc.driver.BlockResult` (scheduled with
    ``explain=True``); *pipeline* adds step 5, the pipeline diagram."""
    from schedcc.emit.text import summary_line  # the same summary as the schedule table
    from schedcc.viz.pipeline_diagram import format_block_diagrams

    exact = res.exact
    s, dag = (exact.heuristic if exact is not None else res.schedule), res.dag  # the list scheduler's steps
    text = dag.label
    nodes = range(len(dag))

    out = [f"How {res.function.name} / {res.block.label} is list-scheduled on {target.name} "
           f"(the lecture's algorithm)", ""]

    # 1. The weighted DAG.
    out.append("1. The dependence DAG. An edge A -> B +k: B may issue k cycles after A at the")
    out.append("   earliest (RAW: A's result latency; WAR/WAW: the target's ordering latency).")
    label_w = max((len(f"#{n} {text(n)}") for n in nodes), default=0)
    for n in nodes:
        succ = sorted(dag.succ[n], key=lambda d: str(d.dst))
        edges = ", ".join(f"#{d.dst} (+{d.latency} {_why(d)})" for d in succ)
        out.append(f"     {f'#{n} {text(n)}'.ljust(label_w)}  " + (f"-> {edges}" if edges else "(no successor)"))
    out.append("")

    # 2. Node weights and priorities.
    weight = lecture_weights(dag)
    name = s.priority_name
    out.append("2. Weight the nodes bottom-up. The lecture's weight is the longest path of edge")
    out.append("   weights from the node to an instruction without successors (those weigh 0).")
    if name == "critical-path":
        out.append("   schedcc's priority (critical-path) adds the latency of the last instruction on")
        out.append("   that path: the cycles from the node's issue until its last result is written.")
    else:
        out.append(f"   This run uses --priority {name}: {PRIORITY_HELP.get(name, name)}.")
    rows = []
    for n in sorted(nodes, key=lambda n: (-s.priority[n], n)):
        path = longest_path(dag, n, weight, PATH_SHOWN + 1)
        steps = "".join(f" +{dag.dep(a, b).latency} #{b}" for a, b in zip(path, path[1:PATH_SHOWN]))
        end = (f" (+{dag.ops[path[-1]].latency})" if len(path) <= PATH_SHOWN
               else " ... (longer)")
        rows.append([f"#{n}", text(n), str(weight[n]), f"{s.priority[n]:g}", f"#{n}{steps}{end}"])
    out += _indent(_table(rows, ["node", "instruction", "weight", "priority", "longest path (+ last latency)"],
                          frozenset({2, 3})))
    offsets = {s.priority[n] - weight[n] for n in nodes}
    if name == "critical-path" and len(offsets) == 1:
        out.append(f"     every priority is the lecture's weight + {offsets.pop():g}: the same choices")
    out.append("")

    # 3. The ready list, cycle by cycle.
    out.append("3. Schedule cycle by cycle. The ready list holds the instructions whose predecessors")
    out.append("   have all issued and whose operands are ready; issue the one with the highest")
    out.append("   priority; on a tie the one more instructions depend on (the lecture's second")
    out.append(f"   heuristic), then the earlier one; at most {target.issue_width} per cycle.")
    if s.repair_round:
        from schedcc.sched.list_scheduler import REPAIR_ROUNDS
        spread = "0.5: ties broken in a shuffled order" if s.repair_round % 2 else \
            "1.5: ties shuffled, priorities one apart may trade places"
        out.append(f"   The plain run missed the lower bound, so the scheduler ran again (up to {REPAIR_ROUNDS}")
        out.append(f"   times) with priorities perturbed; the shortest was repair round {s.repair_round} (perturbation")
        out.append(f"   below {spread}). Its steps:")
    rows, notes, told = [], [], set()
    previous = -1
    steps = s.steps or []
    last_waiting: list = []
    for step in steps:
        if step.cycle > previous + 1:
            span = str(previous + 1) if step.cycle == previous + 2 else f"{previous + 1}-{step.cycle - 1}"
            rows.append([span, "-", "(nothing ready: stall)", _waiting(last_waiting)])
        previous = step.cycle
        joined = dict(step.joined)   # ready in the cycle, after a predecessor issued at latency 0
        ready = " ".join(f"#{n} ({p:g}" + (f"; +0 after #{joined[n]})" if n in joined else ")")
                         for n, p in step.ready[:LIST_SHOWN]) or "-"
        if len(step.ready) > LIST_SHOWN:
            ready += f" ... ({len(step.ready) - LIST_SHOWN} more)"
        many_units = len(target.units) > 1
        picked = ", ".join(f"#{n} {text(n)}" + (f" on {u}" if many_units else "") for n, u in step.picked)
        rows.append([str(step.cycle), ready, picked or "(stall)", _waiting(step.waiting)])
        for n, t, why in step.waiting:
            if n not in told and why:
                told.add(n)
                notes.append(f"#{n} waits until cycle {t}: {why}")
        held = [(n, why) for n, why in step.blocked if not why.startswith("no issue slot")]
        for n, why in held[:LIST_SHOWN]:
            notes.append(f"cycle {step.cycle}: #{n} is ready but held: {why}")
        if len(held) > LIST_SHOWN:
            notes.append(f"cycle {step.cycle}: {len(held) - LIST_SHOWN} more are ready but held")
        for n, pred in step.joined:
            if n in dict(step.picked):
                notes.append(f"cycle {step.cycle}: #{n} became ready when #{pred} issued (latency 0) and issued "
                             "in the same cycle")
        last_waiting = step.waiting
    out += _indent(_table(rows, ["cycle", "ready list (priority)", "issue", "not ready yet (until cycle)"],
                          frozenset({0})))
    out += _indent(notes)
    out.append("")

    # 4. The final order.
    if s.input_order:
        out.append(f"4. The list schedule above takes {plural(s.list_makespan, 'cycle')}, but the original order issued in")
        out.append(f"   order takes {s.makespan}: schedcc never returns a schedule worse than the order given,")
        out.append("   so it keeps the original order:")
    else:
        out.append("4. The final order:")
    for pos, n in enumerate(s.order):
        out.append(f"     {pos + 1:>2}. #{n} {text(n)}   (cycle {s.cycle[n]})")
    if exact is None:
        out.append("   " + summary_line(res))
    else:
        out.append(f"   the list schedule takes {plural(s.makespan, 'cycle')} (lower bound {res.bound.value})")
    out.append("")

    # 5. On the pipeline.
    if pipeline:
        new = "the new one" if exact is None else "the exact schedule's"
        out.append(f"5. On the pipeline, the original order and {new}:")
        out += _indent(format_block_diagrams(res, target).rstrip("\n").split("\n"), "   ")
        out.append("")
    if exact is not None:
        out += exact_section(res, 6 if pipeline else 5)
    return "\n".join(out).rstrip() + "\n"


def exact_section(res, number: int) -> list[str]:
    """``--explain --exact``: the proven optimum against the list schedule, and the
    decisions that cost cycles (:mod:`schedcc.sched.exact_explain`)."""
    from schedcc.emit.exact_out import exact_line
    info = res.exact
    if info.proof == "lower bound":
        return [f"{number}. Against the proven optimum. The list schedule meets the lower bound "
                f"({res.bound.limited_by}),", "   so no schedule is shorter: it is optimal, no search needed."]
    out = [f"{number}. Against the proven optimum. CP-SAT solves the same problem exactly (every",
           "   dependence, unit and issue slot) and proves that no schedule is shorter:",
           "   " + exact_line(info)]
    lost = info.heuristic_makespan - info.makespan
    if lost <= 0:
        out.append("   The list scheduler lost nothing on this block.")
        return out
    if not info.optimal:
        out.append("   The optimum is not proven, so no decision can be blamed for the difference.")
        return out
    out.append("   Keep the list scheduler's picks one by one, in issue order, while an optimal schedule")
    out.append("   still exists; the first pick after which none does cost cycles:")
    label = lambda n: f"#{n} {res.dag.label(n)}"  # noqa: E731
    for d in info.decisions:
        out.append("   - " + d.text(res.dag, label))
    shown = sum(d.lost for d in info.decisions)
    if shown < lost:
        out.append(f"   ({lost - shown} more cycle{'s' if lost - shown != 1 else ''} lost by later picks, "
                   "not searched)")
    return out


def _why(d) -> str:
    kind = d.kind if d.kind != "MEM" else f"{d.detail or 'MEM'} through memory"
    return f"{kind} {d.reason}"


def _waiting(waiting: list) -> str:
    text = ", ".join(f"#{n} ({t})" for n, t, _ in waiting[:LIST_SHOWN]) or "-"
    return text + (f" ... ({len(waiting) - LIST_SHOWN} more)" if len(waiting) > LIST_SHOWN else "")


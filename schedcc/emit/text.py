"""Human-readable output: the schedule table and the ``--explain`` walkthrough."""

from __future__ import annotations

from ..dag import edge_text
from ..driver import BlockResult, ProgramResult
from ..sched.priority import PRIORITY_HELP


def _table(rows: list[list[str]], header: list[str], right: set[int] = frozenset()) -> list[str]:
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        return "  ".join(cells).rstrip()
    return [fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows]


def stall_reason(res: BlockResult, node: int, previous_cycle: int | None) -> str:
    """Why *node* issued later than right after the previous issue, if it did."""
    s = res.schedule
    c = s.cycle[node]
    gap = c - (previous_cycle if previous_cycle is not None else -1) - 1
    if gap <= 0:
        return ""
    dag = res.dag
    waits = [(s.cycle[p] + d["latency"], p) for p, d in dag.pred[node].items()]
    binding = [p for t, p in waits if t == c]
    cycles = "cycle" if gap == 1 else "cycles"
    if binding:
        p = binding[0]
        return f"stalled {gap} {cycles}: waits for #{p} ({edge_text(dag, p, node)})"
    return f"stalled {gap} {cycles}: unit busy"


def block_header(res: BlockResult, target_name: str) -> str:
    n = len(res.block.instrs)
    return f"{res.function.name} / {res.block.label}: {n} instruction{'s' if n != 1 else ''} on {target_name}"


def format_block(res: BlockResult, target_name: str) -> str:
    s = res.schedule
    rows = []
    prev = None
    for node in s.order:
        instr = res.dag.nodes[node]["instr"]
        rows.append([str(s.cycle[node]), s.unit[node], f"#{node}", str(instr), stall_reason(res, node, prev)])
        prev = s.cycle[node]
    lines = [block_header(res, target_name)]
    lines += ["  " + line for line in _table(rows, ["cycle", "unit", "#", "instruction", "stall"], {0})]
    lines.append("  " + summary_line(res))
    return "\n".join(lines)


def _cycles(n: int) -> str:
    return f"{n} cycle" if n == 1 else f"{n} cycles"


def summary_line(res: BlockResult) -> str:
    saved = res.saved
    pct = f" ({100 * saved / res.original_makespan:.0f}%)" if res.original_makespan and saved > 0 else ""
    verdict = "saves" if saved >= 0 else "loses"
    bound = res.bound
    optimal = ", optimal" if res.makespan == bound.value else ""
    check = "verified" if res.verified else "not verified (large block; use --verify)"
    return (f"makespan {_cycles(res.makespan)}, original order {res.original_makespan}: "
            f"{verdict} {abs(saved)} cycle{'s' if abs(saved) != 1 else ''}{pct}; "
            f"lower bound {bound.value} ({bound.limited_by}){optimal}; {check}")


def format_program(result: ProgramResult) -> str:
    t = result.target
    units = ", ".join(f"{g} x{len(m)}" for g, m in t.groups.items())
    head = f"target {t.name}: issue width {t.issue_width}; units {units}"
    parts = [head, ""]
    for res in result.blocks:
        parts.append(format_block(res, t.name))
        parts.append("")
    if len(result.blocks) > 1:
        total = sum(r.makespan for r in result.blocks)
        orig = sum(r.original_makespan for r in result.blocks)
        parts.append(f"all blocks: {total} cycles scheduled, {orig} in the original order "
                     f"(sum of block makespans)")
    return "\n".join(parts).rstrip() + "\n"


def format_explain(res: BlockResult) -> str:
    """The list scheduler's decisions, cycle by cycle, in words."""
    s = res.schedule
    dag = res.dag
    name = s.priority_name

    def label(n: int) -> str:
        return f"#{n} '{dag.nodes[n]['instr']}'"

    out = [f"How {res.function.name} / {res.block.label} was scheduled",
           f"  priority: {name}: {PRIORITY_HELP.get(name, name)}; ties: more successors, then source order",
           "  dependences:"]
    edges = sorted(dag.edges(data=True))
    if not edges:
        out.append("    none: every instruction is independent")
    for u, v, d in edges:
        out.append(f"    #{u} -> #{v}  {edge_text(dag, u, v)}")
    out.append("  priorities:")
    for n in dag.nodes:
        out.append(f"    {label(n)}: {s.priority[n]:g}")
    previous = -1
    for step in s.steps or []:
        if step.cycle > previous + 1:
            gap = step.cycle - previous - 1
            out.append(f"  cycle {previous + 1}{'' if gap == 1 else f'-{step.cycle - 1}'}: "
                       f"nothing can issue (stall)")
        previous = step.cycle
        ready = ", ".join(f"#{n} ({p:g})" for n, p in step.ready) or "empty"
        out.append(f"  cycle {step.cycle}: ready list [{ready}]")
        for n, unit in step.picked:
            out.append(f"    issue {label(n)} on {unit}")
        for n, why in step.blocked:
            out.append(f"    hold  {label(n)}: {why}")
        for n, t, why in step.waiting:
            out.append(f"    wait  {label(n)} until cycle {t}" + (f": {why}" if why else ""))
    out.append("  final order: " + ", ".join(f"#{n}" for n in s.order))
    out.append("  " + summary_line(res))
    return "\n".join(out) + "\n"

"""Human-readable output: the schedule table and its summary line.

The ``--explain`` walkthrough is in :mod:`schedcc.emit.explain`.

Example::

    >>> from schedcc import parse
    >>> from schedcc.driver import schedule_program
    >>> res = schedule_program(parse(open("examples/lecture.ir").read()), "mips4")
    >>> print(summary_line(res.blocks[0]))
    makespan 9 cycles, original order 11: saves 2 cycles (18%); lower bound 9 (critical path), optimal; verified
"""

from __future__ import annotations

from schedcc.errors import plural
from schedcc.dag import edge_text
from schedcc.driver import BlockResult, ProgramResult


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
    waits = [(s.cycle[d.src] + d.latency, d.src) for d in dag.pred[node]]
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
        instr = res.dag.ops[node].payload
        rows.append([str(s.cycle[node]), s.unit[node], f"#{node}", str(instr), stall_reason(res, node, prev)])
        prev = s.cycle[node]
    lines = [block_header(res, target_name)]
    lines += ["  " + line for line in _table(rows, ["cycle", "unit", "#", "instruction", "stall"], {0})]
    lines.append("  " + summary_line(res))
    if res.exact is not None:
        from schedcc.emit.exact_out import exact_line
        lines.append("  " + exact_line(res.exact))
    lines += ["  note: " + note for note in barrier_notes(res)]
    return "\n".join(lines)


def barrier_notes(res: BlockResult) -> list[str]:
    """One line for each call whose effect schedcc does not know: it orders all memory.

    The LLVM IR front end turns the intrinsics whose effects it knows (``llvm.fmuladd``,
    ``llvm.memcpy``, ...) into instructions of their own; what stays a ``call`` is a barrier."""
    out = []
    for n, instr in enumerate(res.block.instrs):
        if instr.is_call:
            callee = instr.operands[0] if instr.operands else "?"
            line = f" (line {instr.loc.line})" if instr.loc else ""
            out.append(f"#{n} calls {callee}{line}: schedcc does not know what it reads or writes, so no "
                       "load or store moves across it")
    return out


def _cycles(n: int) -> str:
    return f"{n} cycle" if n == 1 else f"{n} cycles"


def summary_line(res: BlockResult) -> str:
    saved = res.saved
    pct = f" ({100 * saved / res.original_makespan:.0f}%)" if res.original_makespan and saved > 0 else ""
    verdict = "saves" if saved >= 0 else "loses"
    bound = res.bound
    optimal = ", optimal" if res.makespan == bound.value else ""
    check = "verified" if res.verified else "not verified (--no-verify)"
    if res.schedule.input_order:
        # the list schedule was longer than the order given: the guarantee kept the latter
        return (f"makespan {_cycles(res.makespan)}: the original order, kept (the list schedule took "
                f"{_cycles(res.schedule.list_makespan)}); lower bound {bound.value} ({bound.limited_by}){optimal}; "
                f"{check}")
    return (f"makespan {_cycles(res.makespan)}, original order {res.original_makespan}: "
            f"{verdict} {_cycles(abs(saved))}{pct}; "
            f"lower bound {bound.value} ({bound.limited_by}){optimal}; {check}")


def target_header(t) -> str:
    """The first line of a report: the target, its issue width and units, and how it is simulated:
    in order, as an in-order pipeline issues, or, for a machine that issues out of order, the static
    order's cycles (the hardware may reorder further at run time)."""
    units = ", ".join(f"{g} x{len(m)}" for g, m in t.groups.items())
    how = "simulated in order" if t.in_order else \
        f"simulated in order (the {t.name} itself issues out of order and may reorder further)"
    return f"target {t.name}: issue width {t.issue_width}; units {units}; {how}"


def format_program(result: ProgramResult) -> str:
    t = result.target
    head = target_header(t)
    parts = [head, ""]
    for res in result.blocks:
        parts.append(format_block(res, t.name))
        parts.append("")
    if len(result.blocks) > 1:
        total = sum(r.makespan for r in result.blocks)
        orig = sum(r.original_makespan for r in result.blocks)
        parts.append(f"all blocks: {plural(total, 'cycle')} scheduled, {orig} in the original order "
                     f"(sum of block makespans)")
    return "\n".join(parts).rstrip() + "\n"

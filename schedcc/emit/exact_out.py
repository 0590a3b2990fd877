"""Text for the exact solver: the verdict line under a schedule, loops' II proofs, the gap table.

"optimal (proven)" when CP-SAT (or schedcc's lower bound) proved the
makespan minimal; "within N% of optimal (bound B)" when the time limit
stopped the search; and next to it what the heuristic took.

Example::

    >>> from schedcc.problem import Dep, Machine, Op, SchedGraph
    >>> from schedcc.sched.exact import exact_schedule
    >>> alu = ("ALU",)
    >>> g = SchedGraph((Op("a", alu, 2, 2), Op("b", alu, 2), Op("c", alu, 4, 2), Op("d", alu, 1, 2)),
    ...                (Dep(0, 1, "RAW", 2), Dep(1, 2, "RAW", 2), Dep(0, 3, "RAW", 2)), Machine("toy", 1, alu))
    >>> print(exact_line(exact_schedule(g).exact))   # doctest: +ELLIPSIS
    exact (CP-SAT): optimal (proven in ... s) 8 cycles; the list schedule takes 9 cycles (1 cycle, 12.5% more)
"""

from __future__ import annotations

from typing import Any, Callable


def _plural(n: int | float, word: str) -> str:
    return f"{n:g} {word}" if n == 1 else f"{n:g} {word}s"


def exact_line(info, unit: str = "cycle", show: Callable[[int], str] | None = None,
               heuristic: str = "list schedule") -> str:
    """The verdict on one exact solve (:class:`~schedcc.sched.exact.ExactInfo`). *show*
    formats an amount (default: "N cycles"); *unit* names one in the difference."""
    show = show or (lambda v: _plural(v, unit))
    if getattr(info.heuristic, "input_order", False):
        heuristic += " (the original order, kept: shorter than the list scheduler's own)"
    lost = info.heuristic_makespan - info.makespan
    if info.optimal and info.proof == "lower bound":
        return (f"exact: optimal (proven) {show(info.makespan)}: the {heuristic} meets the lower bound, "
                "no search needed")
    if info.optimal:
        verdict = f"optimal (proven in {info.seconds:.2f} s) {show(info.makespan)}"
    else:
        verdict = (f"within {info.gap:g}% of optimal (bound {show(info.lower_bound)}): {show(info.makespan)}, "
                   f"the best found before the {info.stopped or 'time limit'} ({info.seconds:.2f} s)")
    if lost <= 0:
        theirs = f"the {heuristic} is {'optimal too' if info.optimal else 'as good'}"
    else:
        more = f"{info.heuristic_gap:g}% more" if info.optimal else f"at most {info.heuristic_gap:g}% above optimal"
        theirs = f"the {heuristic} takes {show(info.heuristic_makespan)} ({show(lost)}, {more})"
    return f"exact (CP-SAT): {verdict}; {theirs}"


def modulo_exact_lines(info, heuristic_name: str) -> list[str]:
    """The II and register verdicts of an exact modulo schedule
    (:class:`~schedcc.sched.exact_modulo.ExactModuloInfo`)."""
    if info.optimal:
        verdict = f"II {info.ii} is the minimum (proven, {info.ii_seconds:.2f} s)"
    else:
        verdict = (f"II {info.ii}, within {info.gap:g}% of the minimum (every II below {info.ii_bound} is "
                   f"proven infeasible; the {info.stopped or 'time limit'} left II {info.ii_bound} open)")
    if info.heuristic is None:
        theirs = f"{heuristic_name} found no schedule ({info.heuristic_error})"
    elif info.heuristic_ii > info.ii:
        theirs = f"{heuristic_name} found II {info.heuristic_ii}: not minimal"
    else:
        theirs = f"{heuristic_name} found II {info.heuristic_ii} too"
    regs = (f"MaxLive {info.max_live}, the fewest at this II (proven)" if info.max_live_status == "optimal"
            else f"MaxLive {info.max_live}, at least {info.max_live_bound} needed (the "
            f"{info.stopped.removesuffix(' (registers)') or 'time limit'} stopped the search)")
    return [f"exact (CP-SAT): {verdict}; {theirs}",
            f"exact registers: {regs}; {info.seconds:.2f} s in all, stages below {info.stages_bound}"]


def format_gap_table(rows: list[dict[str, Any]], target: str) -> str:
    """The table of ``schedcc gap``: one row per file (blocks summed), then the totals.

    A row has ``file``, ``blocks``, ``heuristic``, ``optimal`` (the exact makespan),
    ``bound``, ``proven`` (blocks proven optimal), ``heuristic_optimal`` (blocks where the
    heuristic meets the proven optimum), ``seconds``; or ``file`` and ``error``."""
    header = ["file", "blocks", "heuristic", "optimal", "gap", "proven", "solve s"]
    body, errors = [], []
    tot = {"blocks": 0, "heuristic": 0, "optimal": 0, "bound": 0, "proven": 0, "heuristic_optimal": 0,
           "seconds": 0.0}
    for r in rows:
        if "error" in r:
            errors.append(f"  {r['file']}: skipped: {r['error']}")
            continue
        for k in tot:
            tot[k] += r[k]
        body.append([r["file"], str(r["blocks"]), str(r["heuristic"]), _optimal_cell(r), _gap_cell(r),
                     f"{r['proven']}/{r['blocks']}", f"{r['seconds']:.2f}"])
    if body:
        total = dict(tot, file="total")
        body.append(["total", str(tot["blocks"]), str(tot["heuristic"]), _optimal_cell(total), _gap_cell(total),
                     f"{tot['proven']}/{tot['blocks']}", f"{tot['seconds']:.2f}"])
    widths = [max(len(x[i]) for x in body + [header]) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    lines = [f"heuristic (list scheduler) against the exact optimum on {target}; makespans in cycles, "
             "summed over each file's blocks", "", fmt(header), fmt(["-" * w for w in widths])]
    lines += [fmt(r) for r in body[:-1]]
    if len(body) > 1:
        lines.append(fmt(["-" * w for w in widths]))
    lines += [fmt(r) for r in body[-1:]]
    if body:
        lines.append("")
        lost = tot["heuristic"] - tot["optimal"]
        lines.append(f"the heuristic reaches the proven optimum on {tot['heuristic_optimal']} of {tot['blocks']} "
                     f"blocks and loses {_plural(lost, 'cycle')} in all ({_pct(lost, tot['optimal'])}); "
                     f"{tot['proven']} of {tot['blocks']} optima proven")
    lines += errors
    return "\n".join(lines) + "\n"


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "0.00%"


def _optimal_cell(r: dict[str, Any]) -> str:
    return str(r["optimal"]) if r["proven"] == r["blocks"] else f"<={r['optimal']} (>={r['bound']})"


def _gap_cell(r: dict[str, Any]) -> str:
    lost = r["heuristic"] - r["optimal"]
    if r["proven"] == r["blocks"]:
        return f"{_pct(lost, r['optimal'])}"
    return f">={_pct(lost, r['optimal'])}"

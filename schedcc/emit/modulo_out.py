"""Reports for ``schedcc FILE --pipeline``: text, ``--explain`` and the JSON ``loops`` list.

Example::

    >>> from schedcc import parse
    >>> from schedcc.swp.pipeliner import pipeline_program
    >>> res = pipeline_program(parse(open("examples/loops/lecture_cj.ir").read()), "la464")
    >>> print(bound_text(res.loops[0]))
    II 2 = MII, bound by resources: ...
"""

from __future__ import annotations

from typing import Any

from schedcc.emit.text import target_header
from schedcc.errors import plural
from schedcc.swp.view import instr_text
from schedcc.swp.pipeliner import LoopResult, PipelineResult
from schedcc.sched.modulo import ALGORITHMS


def _instr(res: LoopResult, n) -> str:
    return instr_text(res.dag.ops[n].payload)


def recurrence_text(res: LoopResult) -> str:
    rec = res.schedule.mii.rec
    if not rec.cycle:
        return "no recurrence"
    steps = " -> ".join(f"#{n} {_instr(res, n)}" for n in rec.cycle + rec.cycle[:1])
    return f"{steps}: latency {rec.latency} over {rec.distance} iteration{'s' if rec.distance != 1 else ''}"


def bound_text(res: LoopResult) -> str:
    """What sets the II, in words."""
    s = res.schedule
    m = s.mii
    if m.joint is not None:
        why = (f"the recurrence {recurrence_text(res)} (RecMII {m.rec.value}) together with resources: at II "
               f"{m.rec.value} it leaves no slack and {m.joint.reason} (MII {m.value})")
    elif m.rec.value > m.res.value:
        why = f"the recurrence {recurrence_text(res)} (RecMII {m.rec.value})"
    elif m.res.value > m.rec.value:
        why = f"resources: {m.res.reason} (ResMII {m.res.value})"
    else:
        why = f"both resources ({m.res.reason}) and the recurrence {recurrence_text(res)} (MII {m.value})"
    if s.ii > m.value and s.writeback_ii is not None:
        return (f"II {s.ii} is {s.ii - m.value} above the MII {m.value}, bound by in-order write-back (results "
                f"are written in issue order; without that rule {s.algorithm} finds II {s.writeback_ii}); "
                f"the MII is bound by {why}")
    if s.ii > m.value:
        return f"II {s.ii} is {s.ii - m.value} above the MII {m.value}, bound by {why}"
    return f"II {s.ii} = MII, bound by {why}"


def _joint(m) -> dict[str, Any]:
    """JSON ``joint_mii``/``joint_reason``: the MII of a recurrence without slack that
    resources cannot hold (schedcc.sched.mii_joint), only where it raised the MII."""
    return {"joint_mii": m.joint.value, "joint_reason": m.joint.reason} if m.joint is not None else {}


def bound_kind(s) -> str:
    """What sets the II, in one word (JSON ``bound``): ``writeback`` when the in-order
    write-back rule raised it above the MII, else what sets the MII: ``resources``,
    ``recurrence`` or ``both``."""
    m = s.mii
    if s.ii > m.value and s.writeback_ii is not None:
        return "writeback"
    if m.joint is not None:
        return "both"
    return "recurrence" if m.rec.value > m.res.value else "resources" if m.res.value > m.rec.value else "both"


def kernel_table(res: LoopResult, target) -> list[str]:
    """The modulo reservation table: rows = cycle mod II, columns = the units the loop uses."""
    s = res.schedule
    used_groups = []
    for n in range(len(res.dag)):
        for g, members in target.groups.items():
            if s.unit[n] in members and g not in used_groups:
                used_groups.append(g)
    columns = [u for g in target.groups if g in used_groups for u in target.groups[g]]
    for n in range(len(res.dag)):  # units outside the target's groups (graphs from elsewhere)
        if s.unit[n] not in columns:
            columns.append(s.unit[n])
    cells = {(r, u): "" for r in range(s.ii) for u in columns}
    for n in sorted(range(len(res.dag)), key=lambda n: s.cycle[n]):
        key = (s.row(n), s.unit[n])
        text = f"#{n} {_instr(res, n)} [s{s.stage(n)}]"
        cells[key] = (cells[key] + "; " if cells[key] else "") + text
        occ = res.dag.ops[n].occupancy
        for k in range(1, min(occ, s.ii)):
            r = (s.cycle[n] + k) % s.ii
            cells[(r, s.unit[n])] = cells[(r, s.unit[n])] or f"(#{n} busy)"
    header = ["row"] + columns
    rows = [[str(r)] + [cells[(r, u)] or "." for u in columns] for r in range(s.ii)]
    widths = [max(len(x[i]) for x in rows + [header]) for i in range(len(header))]
    fmt = lambda r: " | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
    return [fmt(header), "-+-".join("-" * w for w in widths)] + [fmt(r) for r in rows]


def format_loop(res: LoopResult, target, show_code: bool = True) -> str:
    head = f"{res.loop.function.name} / {res.loop.block.label}"
    if not res.pipelined:
        return f"{head}: not pipelined: {res.reason}"
    s, p = res.schedule, res.pressure
    m = s.mii
    lines = [f"{head}: software-pipelined on {target.name} ({s.algorithm}: {_algorithm(s).split(':')[0]})"]
    if res.rotated:
        lines.append("  rotated: the loop tested at its top; its header now runs once as the guard, and the body "
                     "tests at its end")
    if res.if_converted:
        lines.append("  if-converted: the body's blocks made one predicated block (selects; loads and stores under "
                     "a condition through guarded addresses)")
    lines.append(f"  ResMII {m.res.value}: {m.res.reason}")
    lines.append(f"  RecMII {m.rec.value}: {recurrence_text(res)}")
    lines.append(f"  {bound_text(res)}")
    registers = res.registers_text or (f"registers after modulo variable expansion {p.registers} "
                                       f"(kernel unrolled {p.unroll}x)")
    lines.append(f"  stages {s.stages} (one iteration takes {plural(s.length, 'cycle')}); MaxLive {p.max_live}; {registers}")
    before = res.cycles_before
    speed = f": {before / s.ii:.2f}x faster" if s.ii else ""
    lines.append(f"  cycles per iteration: {before} before (list-scheduled, one iteration at a time), "
                 f"{s.ii} after (II){speed}")
    if s.exact is not None:
        from schedcc.emit.exact_out import modulo_exact_lines
        lines += ["  " + line for line in modulo_exact_lines(s.exact, _heuristic_name(s))]
    lines.append("  verified: every dependence holds at its iteration distance; no unit used twice in the same kernel row")
    lines.append("  kernel (modulo reservation table; row = cycle mod II, [sN] = stage):")
    lines += ["    " + line for line in kernel_table(res, target)]
    if show_code:
        lines.append("  generated code:")
        for _, code in res.code or []:
            lines += ["    " + line for line in code]
    return "\n".join(lines)


CP_SAT_TEXT = ("CP-SAT: the heuristic missed the MII; a feasibility model per II from the MII, on a small "
               "budget, found this schedule (schedcc.sched.exact_below)")


def _algorithm(s) -> str:
    if s.exact is None:
        return ALGORITHMS.get(s.algorithm, CP_SAT_TEXT)
    return (f"CP-SAT: a feasibility model per II from the MII up to {_heuristic_name(s)}'s II, then the fewest "
            "registers at the smallest II (docs/exact.md)")


def _heuristic_name(s) -> str:
    h = s.exact.heuristic
    return h.algorithm if h is not None else "the heuristic"


def format_pipeline(result: PipelineResult, show_code: bool = True, chosen: bool = False) -> str:
    """The pipelining report; *chosen*: only the loops ``--function``/``--block`` chose were looked at."""
    t = result.target
    out = [target_header(t), ""]
    if not result.loops:
        out.append("no loop holds the blocks chosen (--function, --block)" if chosen else
                   "no loops found (a loop is a block that branches back to itself or to an earlier block)")
    for res in result.loops:
        out.append(format_loop(res, t, show_code))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def format_pipeline_explain(res: LoopResult) -> str:
    head = f"{res.loop.function.name} / {res.loop.block.label}"
    if not res.pipelined:
        return f"{head}: not pipelined: {res.reason}\n"
    s = res.schedule
    lines = [f"{head}: how the II was found"]
    lines.append(f"  lower bounds: ResMII {s.mii.res.value} ({s.mii.res.reason}); "
                 f"RecMII {s.mii.rec.value} ({recurrence_text(res)})")
    lines.append(f"  {bound_text(res)}")
    lines.append(f"  scheduler: {_algorithm(s)}")
    heuristic = s.exact.heuristic if s.exact is not None else s
    if heuristic is not None:
        who = f"{heuristic.algorithm} " if s.exact is not None else ""
        for a in heuristic.attempts:
            work = f"{a.placements} placements" + (f", {a.evictions} evictions"
                                                   if heuristic.algorithm == "ims" or a.evictions else "")
            lines.append(f"  {who}tried II {a.ii}: {a.outcome} ({work})")
    if s.exact is not None:
        for a in s.attempts:
            lines.append(f"  CP-SAT, II {a.ii}: {a.outcome}")
    else:
        lines.append(f"  stage scheduling: {s.stage_moves} operation{'s' if s.stage_moves != 1 else ''} moved by whole "
                     "stages (same rows, so the same resources) to shorten lifetimes")
    p = res.pressure
    longest = max(p.lifetime.items(), key=lambda kv: kv[1], default=None)
    if longest is not None:
        n, length = longest
        lines.append(f"  registers: the longest lifetime is {plural(length, 'cycle')} (#{n} {_instr(res, n)}), so the kernel "
                     f"is unrolled ceil({length}/{s.ii}) = {p.unroll} times for modulo variable expansion")
    return "\n".join(lines) + "\n"


def loops_json(result: PipelineResult) -> list[dict[str, Any]]:
    """The ``loops`` list of ``--format json`` (schema in docs/modulo.md)."""
    out = []
    for res in result.loops:
        entry: dict[str, Any] = {"function": res.loop.function.name, "block": res.loop.block.label,
                                 "cycles_before": res.cycles_before}
        if not res.pipelined:
            entry.update({"ii": None, "reason": res.reason, "kind": res.kind})
            if res.mii is not None:   # left alone by the modulo scheduler: its bounds
                m = res.mii
                entry.update({"res_mii": m.res.value, "res_mii_reason": m.res.reason, "rec_mii": m.rec.value,
                              "recurrence": list(m.rec.cycle), "mii": m.value, **_joint(m)})
            out.append(entry)
            continue
        s, p, m = res.schedule, res.pressure, res.schedule.mii
        if res.rotated:
            entry["rotated"] = True
        if res.if_converted:
            entry["if_converted"] = True
        entry.update({
            "res_mii": m.res.value, "res_mii_reason": m.res.reason,
            "rec_mii": m.rec.value, "recurrence": list(m.rec.cycle),
            "mii": m.value, **_joint(m), "ii": s.ii, "bound": bound_kind(s), "bound_text": bound_text(res),
            **({"writeback_ii": s.writeback_ii} if s.writeback_ii is not None else {}),
            "stages": s.stages, "algorithm": s.algorithm,
            "max_live": p.max_live, "registers": p.registers, "unroll": p.unroll, "stage_moves": s.stage_moves,
            "attempts": [{"ii": a.ii, "outcome": a.outcome, "placements": a.placements,
                          "evictions": a.evictions} for a in s.attempts],
            "kernel": [{"id": n, "text": _instr(res, n), "cycle": s.cycle[n], "stage": s.stage(n),
                        "row": s.row(n), "unit": s.unit[n]}
                       for n in sorted(range(len(res.dag)), key=lambda n: (s.cycle[n], n))],
            "edges": [{"src": d.src, "dst": d.dst, "kind": d.kind, "latency": d.latency,
                       "distance": d.distance, "reason": d.reason, **({"mem": d.detail} if d.detail else {})}
                      for d in sorted(res.dag.deps, key=lambda d: (d.src, d.dst))],
            "code": [{"label": label, "instructions": [line.strip() for line in code[1:] if line.strip()]}
                     for label, code in res.code or []],
            **({"registers_note": res.registers_text} if res.registers_text else {}),
            **({"exact": s.exact.to_json()} if s.exact is not None else {}),
        })
        out.append(entry)
    return out

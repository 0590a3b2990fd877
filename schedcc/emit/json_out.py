"""The JSON document of ``--format json`` (schema: ``docs/json.md``).

Example::

    >>> from schedcc import parse
    >>> from schedcc.driver import schedule_program
    >>> res = schedule_program(parse(open("examples/lecture.ir").read()), "mips4")
    >>> doc = program_json(res, "critical-path")
    >>> doc["schema"], doc["blocks"][0]["makespan"], [e["kind"] for e in doc["blocks"][0]["edges"]][:3]
    (1, 9, ['RAW', 'WAW', 'RAW'])
"""

from __future__ import annotations

import json
from typing import Any

from schedcc.resources import VERSION as __version__
from schedcc.driver import BlockResult, ProgramResult

SCHEMA_VERSION = 1


def block_json(res: BlockResult) -> dict[str, Any]:
    dag, s = res.dag, res.schedule
    instructions = []
    for n, op in enumerate(dag.ops):
        instr = op.payload
        instructions.append({
            "id": n, "text": str(instr), "opcode": instr.opcode, "class": op.kind,
            "units": list(op.units), "unit": s.unit[n], "latency": op.latency,
            "occupancy": op.occupancy, "line": instr.loc.line if instr.loc else None,
        })
    edges = [{"src": d.src, "dst": d.dst, "kind": d.kind, "latency": d.latency, "reason": d.reason,
              **({"mem": d.detail} if d.kind == "MEM" else {})}
             for d in sorted(dag.deps, key=lambda d: (d.src, d.dst))]
    return {
        "function": res.function.name,
        "block": res.block.label,
        "instructions": instructions,
        "edges": edges,
        "schedule": [{"id": n, "cycle": s.cycle[n], "unit": s.unit[n]} for n in s.order],
        "original_schedule": [{"id": n, "cycle": res.original.cycle[n], "unit": res.original.unit[n]}
                              for n in sorted(res.original.cycle)],
        "makespan": res.makespan,
        "original_makespan": res.original_makespan,
        "saved": res.saved,
        "lower_bound": res.bound.value,
        "lower_bound_detail": {"critical_path": res.bound.critical_path, "resource": res.bound.resource,
                               "limited_by": res.bound.limited_by},
        "verified": res.verified,
        **({"exact": exact_json(res.exact)} if res.exact is not None else {}),
    }


def exact_json(info) -> dict[str, Any]:
    """A block's ``exact`` object (docs/json.md): the proof, and the heuristic's schedule."""
    h = info.heuristic
    return {**info.to_json(),
            "heuristic_schedule": [{"id": n, "cycle": h.cycle[n], "unit": h.unit[n]} for n in h.order]}


def program_json(result: ProgramResult, priority: str) -> dict[str, Any]:
    t = result.target
    return {
        "schedcc": __version__,
        "schema": SCHEMA_VERSION,
        "source": result.program.source,
        "target": {"name": t.name, "issue_width": t.issue_width,
                   "units": {g: len(m) for g, m in t.groups.items()}},
        "priority": priority,
        "blocks": [block_json(r) for r in result.blocks],
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2) + "\n"

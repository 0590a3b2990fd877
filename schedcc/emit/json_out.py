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
import json.encoder
import operator
from typing import Any

from schedcc.resources import VERSION as __version__
from schedcc.driver import BlockResult, ProgramResult
from schedcc.ir import format_instr

SCHEMA_VERSION = 1


def block_json(res: BlockResult, records: bool = True) -> dict[str, Any]:
    """The JSON object of one block (without its four lists of records unless *records*)."""
    dag, s = res.dag, res.schedule
    if not records:
        return {"function": res.function.name, "block": res.block.label, **_block_summary(res)}
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
        **_block_summary(res),
    }


def _block_summary(res: BlockResult) -> dict[str, Any]:
    from schedcc.emit.text import barrier_notes
    notes = barrier_notes(res)
    return {
        "makespan": res.makespan,
        "original_makespan": res.original_makespan,
        "saved": res.saved,
        **_kept(res.exact.heuristic if res.exact is not None else res.schedule),
        "lower_bound": res.bound.value,
        "lower_bound_detail": {"critical_path": res.bound.critical_path, "resource": res.bound.resource,
                               "limited_by": res.bound.limited_by},
        "verified": res.verified,
        **({"exact": exact_json(res.exact)} if res.exact is not None else {}),
        **({"notes": notes} if notes else {}),
    }


def _kept(listed) -> dict[str, Any]:
    """Whether the list scheduler kept the original order (it was shorter than its own schedule)."""
    if listed.input_order:
        return {"original_order_kept": True, "list_makespan": listed.list_makespan}
    return {"original_order_kept": False}


def exact_json(info) -> dict[str, Any]:
    """A block's ``exact`` object (docs/json.md): the proof, and the heuristic's schedule."""
    h = info.heuristic
    return {**info.to_json(),
            "heuristic_schedule": [{"id": n, "cycle": h.cycle[n], "unit": h.unit[n]} for n in h.order]}


def program_json(result: ProgramResult, priority: str, blocks: bool = True) -> dict[str, Any]:
    t = result.target
    return {
        "schedcc": __version__,
        "schema": SCHEMA_VERSION,
        "source": result.program.source,
        "target": {"name": t.name, "issue_width": t.issue_width,
                   "units": {g: len(m) for g, m in t.groups.items()}},
        "priority": priority,
        "blocks": [block_json(r) for r in result.blocks] if blocks else [],
    }


def program_json_text(result: ProgramResult, priority: str, extra: dict[str, Any] | None = None) -> str:
    """``dumps(program_json(result, priority) | extra)``, the same document, written
    without building a dict per instruction, edge and schedule entry: on a
    100,000-instruction block those dicts cost more time and memory than the
    scheduling. O(n + e); tests check it equals the dict form.
    """
    doc = program_json(result, priority, blocks=False)
    doc["blocks"] = [_block_records(r) for r in result.blocks]
    if extra:
        doc.update(extra)
    return dumps(doc)


def _block_records(res: BlockResult) -> dict[str, Any]:
    dag, s = res.dag, res.schedule
    enc = json.dumps
    text = _encode_str  # what json.dumps does for a str, without building an encoder per call
    memo: dict[Any, str] = {}  # units, kinds, opcodes, registers repeat: each encoded once

    def cached(v: Any) -> str:
        out = memo[v] = enc(v)
        return out

    get = memo.get
    unit = s.unit
    instructions = []
    add = instructions.append
    middle: dict[tuple, str] = {}  # (opcode, class, units) -> their part of the record
    for n, op in enumerate(dag.ops):
        instr = op.payload
        loc = instr.loc
        key = (instr.opcode, op.kind, op.units)
        mid = middle.get(key)
        if mid is None:
            mid = middle[key] = f'"opcode": {enc(key[0])}, "class": {enc(key[1])}, "units": {enc(key[2])}'
        add(f'{{"id": {n}, "text": {text(format_instr(instr))}, {mid}, '
            f'"unit": {get(unit[n]) or cached(unit[n])}, "latency": {op.latency}, "occupancy": {op.occupancy}, '
            f'"line": {"null" if loc is None else loc.line}}}')
    edges = []
    add = edges.append
    # by (src, dst): each node's few dependences sorted by dst, nodes in order
    # (a pair has at most one dependence), cheaper than sorting all of them at once
    parts: dict[tuple, str] = {}  # (kind, latency, reason) -> their part of the record: they repeat
    for out in dag.succ:
        for src, dst, kind, latency, reason, detail in map(_EDGE, sorted(out, key=_DST) if len(out) > 1 else out):
            key = (kind, latency, reason)
            mid = parts.get(key)
            if mid is None:
                mid = parts[key] = f'"kind": {text(kind)}, "latency": {latency}, "reason": {text(reason)}'
            if kind == "MEM":
                add(f'{{"src": {src}, "dst": {dst}, {mid}, "mem": {text(detail)}}}')
            else:
                add(f'{{"src": {src}, "dst": {dst}, {mid}}}')
    cycle = s.cycle
    schedule = [f'{{"id": {n}, "cycle": {cycle[n]}, "unit": {get(unit[n]) or cached(unit[n])}}}' for n in s.order]
    ocycle, ounit = res.original.cycle, res.original.unit
    original = [f'{{"id": {n}, "cycle": {ocycle[n]}, "unit": {get(ounit[n]) or cached(ounit[n])}}}'
                for n in sorted(ocycle)]
    head = block_json(res, records=False)
    return {"function": head["function"], "block": head["block"], "instructions": _Raw(instructions),
            "edges": _Raw(edges), "schedule": _Raw(schedule), "original_schedule": _Raw(original),
            **{k: v for k, v in head.items() if k not in ("function", "block")}}


_DST = operator.itemgetter(1)  # a Dep's dst
_EDGE = operator.itemgetter(0, 1, 2, 3, 5, 6)  # a Dep's src, dst, kind, latency, reason, detail
_encode_str = json.encoder.encode_basestring_ascii


class _Raw(list):
    """Records already encoded as JSON text, one per line in :func:`dumps`."""


def dumps(doc: Any) -> str:
    """*doc* as JSON text, indented by two spaces down to its records, each
    record (an object or array of scalars and flat containers: an instruction,
    an edge, a schedule entry) on one line.

    Python's ``json.dumps(indent=...)`` runs the pure-Python encoder, which
    took 60% of a 100,000-instruction run; the records here go through the C
    encoder. O(size of the document).

    >>> print(dumps({"a": 1, "xs": [{"id": 0, "u": ["ALU"]}, {"id": 1, "u": []}], "t": {"n": {"k": 1}}}))
    {
      "a": 1,
      "xs": [
        {"id": 0, "u": ["ALU"]},
        {"id": 1, "u": []}
      ],
      "t": {"n": {"k": 1}}
    }
    <BLANKLINE>
    """
    out: list[str] = []
    _encode(doc, "", out)
    out.append("\n")
    return "".join(out)


_SCALARS = (str, int, float, bool, type(None))


def _flat(value: Any) -> bool:
    """A scalar, or a container of scalars."""
    if isinstance(value, _Raw):
        return False
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, dict):
        return all(isinstance(v, _SCALARS) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, _SCALARS) for v in value)
    return False


def _record(value: Any) -> bool:
    """Goes on one line: a container of flat values."""
    if isinstance(value, _Raw):
        return False
    if isinstance(value, dict):
        return all(_flat(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(isinstance(v, _SCALARS) for v in value)
    return True


def _encode(value: Any, pad: str, out: list[str]) -> None:
    if isinstance(value, _Raw):
        if not value:
            out.append("[]")
            return
        inner = pad + "  "
        out.append("[\n" + inner)
        out.append((",\n" + inner).join(value))
        out.append("\n" + pad + "]")
        return
    if not value or _record(value):
        out.append(json.dumps(value))
        return
    inner = pad + "  "
    if isinstance(value, dict):
        out.append("{\n")
        last = len(value) - 1
        for k, (key, item) in enumerate(value.items()):
            out.append(f"{inner}{json.dumps(str(key))}: ")
            _encode(item, inner, out)
            out.append(",\n" if k < last else "\n")
        out.append(pad + "}")
        return
    out.append("[\n")
    last = len(value) - 1
    for k, item in enumerate(value):
        out.append(inner)
        _encode(item, inner, out)
        out.append(",\n" if k < last else "\n")
    out.append(pad + "]")

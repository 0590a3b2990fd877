"""Read pipeline schedules written as torch.distributed.pipelining action lists,
and derive stage costs from a cluster model.

Accepted files: one rank per line (actions separated by spaces or commas, an
optional ``rank 3:`` prefix, ``None``/``_``/``-`` for an idle slot, ``#``
comments), or a JSON list of lists of action strings (``null`` for idle).

Example::

    >>> lists = parse_schedule_text("0F0 0F1 0B0 0B1\\n1F0 1B0 1F1 1B1\\n")
    >>> [str(a) for a in lists[1]]
    ['1F0', '1B0', '1F1', '1B1']
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from schedcc.errors import SchedccError
from schedcc.fileio import check_nesting
from schedcc.ir import Loc
from schedcc.target import Target
from schedcc.training.pipeline_graph import Action, StageCosts, parse_action

_IDLE = {"none", "_", "-", ""}
_TOKEN = re.compile(r"\([^)]*\)OVERLAP_F_B|[^\s,]+")


def parse_schedule_text(text: str, filename: str = "<schedule>") -> list[list[Action]]:
    """Per-rank action lists from *text*; located errors for anything unreadable."""
    if text.lstrip().startswith("["):
        return _parse_json(text, filename)
    lists: list[list[Action]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0]
        if not body.strip():
            continue
        offset = 0
        m = re.match(r"\s*rank\s*(\d+)\s*:", body, re.IGNORECASE)
        if m:
            if int(m.group(1)) != len(lists):
                raise SchedccError(f"expected rank {len(lists)} here, found rank {m.group(1)}",
                                   Loc(filename, lineno, 1), source_line=line,
                                   notes=["list the ranks in order, one per line"])
            offset = m.end()
        acts = []
        for tok in _TOKEN.finditer(body, offset):
            word = tok.group(0)
            if word.lower() in _IDLE:
                continue
            loc = Loc(filename, lineno, tok.start() + 1)
            try:
                acts.append(replace(parse_action(word), loc=loc))
            except ValueError as err:
                raise SchedccError(f"cannot read action: {err}", loc, source_line=line, width=len(word)) from None
        lists.append(acts)
    if not lists:
        raise SchedccError(f"{filename}: no actions", notes=["write one rank per line: 0F0 0F1 0B0 0B1"])
    return lists


def _parse_json(text: str, filename: str) -> list[list[Action]]:
    try:
        check_nesting(text, filename, 32, comment="\0")  # a JSON list of lists of actions: 3 levels
        data = json.loads(text)
    except json.JSONDecodeError as err:
        lines = text.splitlines()
        raise SchedccError(f"invalid JSON: {err.msg}", Loc(filename, err.lineno, err.colno),
                           source_line=lines[err.lineno - 1] if 0 < err.lineno <= len(lines) else None) from None
    if not isinstance(data, list) or not data or not all(isinstance(r, list) for r in data):
        raise SchedccError("expected a JSON list of lists of actions, one list per rank",
                           Loc(filename, 1, 1), notes=['for example: [["0F0", "0B0"], ["1F0", "1B0"]]'])
    lists = []
    for rank, row in enumerate(data):
        acts = []
        for pos, item in enumerate(row):
            if item is None or (isinstance(item, str) and item.strip().lower() in _IDLE):
                continue
            try:
                acts.append(parse_action(str(item)))
            except ValueError as err:
                raise SchedccError(f"rank {rank}, position {pos}: {err}", _json_loc(text, filename, str(item))) from None
        lists.append(acts)
    if not any(lists):
        raise SchedccError("no actions", Loc(filename, 1, 1), notes=['for example: [["0F0", "0B0"], ["1F0", "1B0"]]'])
    return lists


def _json_loc(text: str, filename: str, item: str) -> Loc:
    """Where *item* first appears in the JSON *text* (1:1 when it cannot be found)."""
    at = text.find(json.dumps(item))
    if at < 0:
        return Loc(filename, 1, 1)
    return Loc(filename, text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1)


MAX_UNIT_COST = 1_000_000


def parse_unit_costs(text: str) -> StageCosts:
    """``F=1,B=2,I=1,W=1,C=0,FB=3`` (C: one transfer between ranks; FB: an
    ``OVERLAP_F_B`` composite, default F + B) -> :class:`StageCosts`."""
    values: dict[str, int] = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        key = key.strip().upper()
        if not sep or key not in ("F", "B", "I", "W", "C", "COMM", "FB"):
            raise SchedccError(f"--unit-costs: cannot read '{item.strip()}'",
                               notes=["write KIND=N for F, B, I, W, C (a transfer) and FB (an OVERLAP_F_B "
                                      "composite), e.g. F=1,B=2,I=1,W=1"])
        try:
            n = int(value)
        except ValueError:
            raise SchedccError(f"--unit-costs: '{value.strip()}' is not a whole number") from None
        if not 0 <= n <= MAX_UNIT_COST:
            raise SchedccError(f"--unit-costs: {key} must be a whole number from 0 to {MAX_UNIT_COST:,} "
                               f"(abstract time units), got {n}")
        field = "comm" if key in ("C", "COMM") else key.lower()
        if field in values:
            raise SchedccError(f"--unit-costs: {key} is given twice ('{text}')", notes=["give each kind once"])
        values[field] = n
    i, w = values.get("i"), values.get("w")
    b = values.get("b", (i or 1) + (w or 1) if (i is not None or w is not None) else 2)
    return StageCosts(f=values.get("f", 1), b=b, i=i, w=w, comm=values.get("comm", 0), fb=values.get("fb"))


def costs_from_target(target: Target, stages: int, layers: int = 24, hidden: int = 4096, seq: int = 2048,
                      micro_batch: int = 1, tp: int = 1, dp: int = 1) -> tuple[StageCosts, float]:
    """Per-stage costs (nanosecond ticks) of a transformer cut into *stages* on *target*,
    and one stage's activation bytes per microbatch."""
    from schedcc.training.generator import TransformerConfig, generate_program
    from schedcc.training.graph import build_training_graph
    if layers % stages:
        raise SchedccError(f"--layers ({layers}) must be a multiple of --stages ({stages})")
    cfg = TransformerConfig(layers=1, hidden=hidden, seq=seq, micro_batch=micro_batch, microbatches=1, tp=tp)
    tg = build_training_graph(generate_program(cfg), target, {"tp": tp})
    f = b = w = 0
    act = 0.0
    for _, d in tg.graph.nodes(data=True):
        if d["layer"] != 0 or d.get("update") is not None or d["opcode"] in ("embedding", "embedding_bwd"):
            continue
        if d["opcode"].endswith("_w"):
            w += d["dur"]
        elif d["opcode"].endswith("_bwd") or d["name"].startswith(("dn2r", "dn1r")):
            b += d["dur"]
        else:
            f += d["dur"]
        act += d["act"]
    per = layers // stages
    comm = tg.cluster.collective_time("send", micro_batch * seq * hidden * 2, 2, tp * dp)
    from schedcc.training.costs import ticks
    return StageCosts(f=f * per, b=(b + w) * per, i=b * per, w=w * per, comm=ticks(comm)), act * per

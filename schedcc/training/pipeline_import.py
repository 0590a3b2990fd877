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

from schedcc.errors import SchedccError, check_nesting
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
        m = re.match(r"\s*rank\s*(\d{1,9})\s*:", body, re.IGNORECASE)
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
    _check_some(lists, filename, text)
    return lists


class _Refused(ValueError):
    """A JSON number json.loads should not convert (thousands of digits)."""


def _parse_json(text: str, filename: str) -> list[list[Action]]:
    check_nesting(text, filename, "[]{}", '"')  # json.loads recurses on nesting

    def whole(digits: str) -> int:
        if len(digits.lstrip("-")) > 30:
            raise _Refused(digits)
        return int(digits)

    lines = text.splitlines()
    try:
        data = json.loads(text, parse_int=whole)
    except json.JSONDecodeError as err:
        line = lines[err.lineno - 1] if 0 < err.lineno <= len(lines) else ""
        raise SchedccError(f"invalid JSON: {err.msg}", Loc(filename, err.lineno, err.colno), source_line=line) from None
    except _Refused as err:
        at = text.find(str(err))
        raise SchedccError(f"a number of {len(str(err)):,} digits is not an action", _where(text, filename, at),
                           width=min(len(str(err)), 40)) from None
    if not isinstance(data, list) or not all(isinstance(r, list) for r in data):
        raise SchedccError("expected a JSON list of lists of actions, one list per rank", Loc(filename, 1, 1),
                           source_line=lines[0] if lines else "")
    places = _item_offsets(text)
    lists = []
    for rank, row in enumerate(data):
        acts = []
        for pos, item in enumerate(row):
            at = places[rank][pos] if rank < len(places) and pos < len(places[rank]) else 0
            loc = _where(text, filename, at + (text[at:at + 1] == '"'))  # inside a string's quotes
            if item is None or (isinstance(item, str) and item.strip().lower() in _IDLE):
                continue
            if not isinstance(item, str):
                raise SchedccError(f"rank {rank}, position {pos}: expected an action string like \"0F0\", got "
                                   f"{json.dumps(item)[:40]}", loc)
            try:
                acts.append(replace(parse_action(item), loc=loc))
            except ValueError as err:
                raise SchedccError(f"rank {rank}, position {pos}: {err}", loc, width=len(item)) from None
        lists.append(acts)
    _check_some(lists, filename, text)
    return lists


def _where(text: str, filename: str, offset: int) -> Loc:
    offset = max(offset, 0)
    return Loc(filename, text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1)


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]|[^\s\[\]{},:"]+')


def _item_offsets(text: str) -> list[list[int]]:
    """The offset of every item of every row of a JSON list of lists, in order. O(len(text))."""
    rows: list[list[int]] = []
    depth, expect = 0, False
    for m in _JSON_TOKEN.finditer(text):
        tok = m.group()
        if depth == 2 and expect and tok not in ("]", ",", "}", ":"):
            rows[-1].append(m.start())
            expect = False
        if tok in ("[", "{"):
            depth += 1
            if depth == 2:
                rows.append([])
                expect = True
        elif tok in ("]", "}"):
            depth -= 1
        elif tok == "," and depth == 2:
            expect = True
    return rows


def _check_some(lists: list[list[Action]], filename: str, text: str) -> None:
    if not any(lists):
        lines = text.splitlines()
        raise SchedccError("no actions", Loc(filename, 1, 1), source_line=lines[0] if lines else "",
                           notes=["write one rank per line: 0F0 0F1 0B0 0B1"])


MAX_UNIT_COST = 1_000_000  # abstract units per action: a makespan sums them over thousands of actions


def parse_unit_costs(text: str) -> StageCosts:
    """``F=1,B=2,I=1,W=1,C=0,FB=3`` (C: one transfer between ranks; FB: an
    ``OVERLAP_F_B`` composite, default F + B) -> :class:`StageCosts`. Each cost is a whole
    number from 0 to :data:`MAX_UNIT_COST`, given once."""
    values: dict[str, int] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip().upper()
        if not sep or key not in ("F", "B", "I", "W", "C", "COMM", "FB"):
            raise SchedccError(f"--unit-costs: cannot read '{item.strip()}'",
                               notes=["write KIND=N for F, B, I, W, C (a transfer) and FB (an OVERLAP_F_B "
                                      "composite), e.g. F=1,B=2,I=1,W=1"])
        if not re.fullmatch(r"\s*[-+]?\d{1,30}\s*", value, re.ASCII):
            raise SchedccError(f"--unit-costs: '{value.strip()}' is not a whole number")
        n = int(value)
        if not 0 <= n <= MAX_UNIT_COST:
            raise SchedccError(f"--unit-costs: {key} must be a whole number from 0 to {MAX_UNIT_COST:,} (abstract "
                               f"units per action), got {n}")
        name = "comm" if key in ("C", "COMM") else key.lower()
        if name in values:
            raise SchedccError(f"--unit-costs: {key} is given twice ({values[name]} and {n})")
        values[name] = n
    if not values:
        raise SchedccError("--unit-costs: no costs given", notes=["e.g. --unit-costs F=1,B=2,I=1,W=1"])
    i, w = values.get("i"), values.get("w")
    b = values.get("b", (i or 1) + (w or 1) if (i is not None or w is not None) else 2)
    if values.get("f", 1) == 0 and b == 0 and not i and not w:
        raise SchedccError("--unit-costs: F and B are both 0: a step of no work has no bubble to measure",
                           notes=["give the forward or the backward some cost, e.g. F=1,B=2"])
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

"""``--fix``: pinned dimensions of the search, parsed and checked for contradictions.

``"tp=8,pp=8,recompute=selective,sp=1"`` (or a dict) becomes a dict of
:class:`~schedcc.planner.space.Candidate` fields and values; unknown keys get
a did-you-mean, values their range, and contradictions among the pinned
values alone (``schedule=1f1b`` with ``pp=1``, ``zero=3`` with
``reshard=0``... ) an error naming both. What a framework cannot run is
checked against it by :func:`check_framework`.

Example (through :func:`schedcc.planner.space.parse_fix`, which names the dimensions)::

    >>> from schedcc.planner.space import parse_fix
    >>> try:
    ...     parse_fix("tp=8,pp=8,zero=2")
    ... except SchedccError as err:
    ...     print(str(err).splitlines()[0])
    error: contradictory --fix: zero=2 with pp=8
    >>> sorted(parse_fix("tp=8, mb=2, rc=sel").items())
    [('microbatch', 2), ('recompute', 'selective'), ('tp', 8)]
"""

from __future__ import annotations

from schedcc.errors import SchedccError

SCHEDULES = ("1f1b", "interleaved", "zb-h1", "zb-h2")
RECOMPUTE = ("none", "selective", "full", "partial")
OVERLAPS = ("none", "tp2", "tp4", "tp8", "auto")  # tp communication overlap (schedcc.planner.overlap)

_INT_KEYS = ("dp", "tp", "pp", "cp", "virtual", "microbatch", "zero", "recompute_layers", "trim")
_BOOL_KEYS = ("sp", "reshard")
_ALIASES = {"v": "virtual", "vp": "virtual", "mb": "microbatch", "mbs": "microbatch", "micro_batch": "microbatch",
            "micro-batch": "microbatch", "sequence_parallel": "sp", "sequence-parallel": "sp",
            "recompute-layers": "recompute_layers", "recompute_num_layers": "recompute_layers",
            "rc": "recompute", "reshard_after_forward": "reshard", "reshard-after-forward": "reshard",
            "fsdp_reshard_after_forward": "reshard", "uneven": "trim"}


def parse_fix(text: str | dict | None, names: list[str]) -> dict:
    """``"tp=8,pp=8,recompute=selective,sp=1"`` -> a dict of pinned dimensions, checked;
    *names* are the dimensions a candidate has (``schedcc.planner.space.parse_fix`` passes
    :class:`~schedcc.planner.space.Candidate`'s fields)."""
    if not text:
        return {}
    items = text.items() if isinstance(text, dict) else (p.partition("=")[::2] for p in text.split(",") if p.strip())
    out: dict = {}
    for key, value in items:
        key = str(key).strip().lower()
        key = _ALIASES.get(key, key)
        value = str(value).strip().lower()
        if key not in names:
            import difflib
            close = difflib.get_close_matches(key, names, n=2)
            raise SchedccError(f"--fix: unknown dimension '{key}'",
                               notes=([f"did you mean {close[0]}?"] if close else []) + ["dimensions: " + ", ".join(names)])
        if not value:
            raise SchedccError(f"--fix {key}: needs a value, e.g. --fix {key}=...")
        v: object
        if key in _INT_KEYS:
            low = 0 if key in ("zero", "trim") else 1
            if not value.isdigit() or int(value) < low:
                raise SchedccError(f"--fix {key}={value}: expected a whole number"
                                   + (" from 0 to 3" if key == "zero" else f" of at least {low}"))
            v = int(value)
            if key == "zero" and v > 3:
                raise SchedccError(f"--fix zero={value}: ZeRO stages are 0, 1, 2 and 3")
        elif key in _BOOL_KEYS:
            if value not in ("0", "1", "true", "false", "on", "off", "yes", "no"):
                raise SchedccError(f"--fix {key}={value}: expected 1 or 0")
            v = value in ("1", "true", "on", "yes")
        elif key == "schedule":
            if value not in SCHEDULES + ("none",):
                raise SchedccError(f"--fix schedule={value}: unknown pipeline schedule",
                                   notes=["schedules: " + ", ".join(SCHEDULES) + " (none when pp=1)"])
            v = value
        elif key == "recompute":
            value = {"sel": "selective", "no": "none", "off": "none", "part": "partial"}.get(value, value)
            if value not in RECOMPUTE:
                raise SchedccError(f"--fix recompute={value}: choose none, selective, full or partial")
            v = value
        else:  # overlap
            if value not in OVERLAPS:
                raise SchedccError(f"--fix overlap={value}: unknown overlap transformation",
                                   notes=["known: " + ", ".join(OVERLAPS)])
            v = value
        if key in out:  # the same value twice is a slip too (a merged command line); say so
            raise SchedccError(f"--fix gives {key} twice: {out[key]} and {v}" if out[key] != v
                               else f"--fix gives {key}={value} twice")
        out[key] = v
    if "recompute_layers" in out:
        if out.setdefault("recompute", "partial") != "partial":
            raise SchedccError(f"contradictory --fix: recompute_layers={out['recompute_layers']} with "
                               f"recompute={out['recompute']}", notes=["recompute_layers needs recompute=partial"])
    _check_fix(out)
    return out


def _check_fix(fix: dict) -> None:
    """Contradictions among pinned values alone (the rest is checked against the model)."""
    def bad(msg, note):
        raise SchedccError(f"contradictory --fix: {msg}", notes=[note])
    if fix.get("pp") == 1 and fix.get("schedule") not in (None, "none"):
        bad(f"schedule={fix['schedule']} with pp=1", "a pipeline schedule needs pp > 1")
    if fix.get("pp", 2) > 1 and fix.get("schedule") == "none":
        bad(f"schedule=none with pp={fix['pp']}", "pp > 1 needs a pipeline schedule: " + ", ".join(SCHEDULES))
    if fix.get("virtual", 1) > 1 and fix.get("schedule") not in (None, "interleaved"):
        bad(f"virtual={fix['virtual']} with schedule={fix['schedule']}", "virtual stages need schedule=interleaved")
    if fix.get("schedule") == "interleaved" and fix.get("virtual") == 1:
        bad("schedule=interleaved with virtual=1", "interleaving needs virtual >= 2")
    if fix.get("virtual", 1) > 1 and fix.get("pp") == 1:
        bad(f"virtual={fix['virtual']} with pp=1", "virtual stages need pp > 1")
    if fix.get("sp") and fix.get("tp") == 1:
        bad("sp=1 with tp=1", "sequence parallelism splits the tensor-parallel group's work: it needs tp > 1")
    if fix.get("zero", 0) >= 2 and fix.get("pp", 1) > 1 and not (fix.get("zero") == 3 and fix.get("reshard") is False):
        bad(f"zero={fix['zero']} with pp={fix['pp']}", "ZeRO stages 2 and 3 need pp=1, except FSDP without "
            "resharding under a pipeline schedule (zero=3,reshard=0, --framework torchtitan); docs/planner.md")
    if fix.get("reshard") is False and fix.get("zero", 3) != 3:
        bad(f"reshard=0 with zero={fix['zero']}", "reshard (FSDP's reshard-after-forward) is a ZeRO-3 option")
    if fix.get("trim", 0) > 0 and fix.get("pp") == 1:
        bad(f"trim={fix['trim']} with pp=1", "trim takes layers off the first and last pipeline stage: it needs pp > 1")


def check_framework(fw, fix: dict, attention: str) -> None:
    """Refuse pinned values the framework cannot run, naming what it offers. O(len(fix))."""
    def refuse(what, offered):
        raise SchedccError(f"--fix {what}: --framework {fw.name} ({fw.title}, {fw.version}) does not offer it",
                           notes=[f"{fw.name} offers {offered}", "--framework any searches every technique"])
    for key in ("tp", "pp", "cp"):
        if fix.get(key, 1) > 1 and not getattr(fw, key):
            refuse(f"{key}={fix[key]}", f"no {key.upper()} (only {key}=1)")
    checks = {"sp": ("sequence parallelism" if fw.sp else "no sequence parallelism"),
              "schedule": "schedules " + (", ".join(fw.schedules) or "none (no pipeline)"),
              "virtual": "interleaving" if "interleaved" in fw.schedules else "no interleaving",
              "trim": "uneven stages" if fw.uneven_stages else "only even stages",
              "zero": "ZeRO stages " + ", ".join(str(z) for z in fw.zero),
              "reshard": "reshard " + ", ".join(str(int(r)) for r in fw.reshard),
              "recompute": "recomputation " + ", ".join(fw.recompute),
              "overlap": "overlap " + ", ".join(fw.overlap)}
    for key, offered in checks.items():
        if key in fix and not fw.offers(key, fix[key]):
            refuse(f"{key}={int(fix[key]) if isinstance(fix[key], bool) else fix[key]}", offered)
    if fix.get("zero", 0) >= 2 and fix.get("pp", 1) > 1 and fix["zero"] not in fw.zero_with_pp:
        refuse(f"zero={fix['zero']} with pp={fix['pp']}",
               "with pp > 1 only ZeRO " + ", ".join(str(z) for z in fw.zero_with_pp))
    if not fw.offers("attention", attention):
        raise SchedccError(f"--attention {attention}: --framework {fw.name} ({fw.title}, {fw.version}) "
                           f"does not offer it", notes=[f"{fw.name} offers attention " + ", ".join(fw.attention)])

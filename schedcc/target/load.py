"""Loading and validating the machine models in ``targets/`` (format: ``docs/targets.md``).

Every value is checked as it is read; an error names the file and the key.
The loader knows nothing of the domains: tables it does not read
(``[ascend]``, ``[cluster]``) stay in :attr:`Target.raw` for the domain code
that does, and a cost that depends on operands is a formula
(:mod:`schedcc.target.formula`), never a function named by the file.

Example::

    >>> from schedcc import parse
    >>> t = load_target("ascend")
    >>> i = parse("x_ub = copy_in xGm[0] {bytes = 16KiB}\\n").functions[0].blocks[0].instrs[0]
    >>> t.class_of(i).cost_of(i)   # busy 16384 / 64 bytes per cycle; the result 200 cycles later
    (456, 256)
"""

from __future__ import annotations

import difflib
import functools
import re
import tomllib
from pathlib import Path
from typing import Any

from schedcc.errors import MAX_NESTING, SchedccError, check_nesting, located
from schedcc.fileio import decode_text, note_input
from schedcc.ir import Loc
from schedcc.resources import targets_dir
from schedcc.target.formula import Formula, FormulaError
from schedcc.target.model import OpClass, Target
CLASS_KEYS = frozenset({"opcodes", "units", "latency", "occupancy", "also", "latency_per", "occupancy_per",
                        "params", "description"})


# The largest values a model may give (docs/targets.md): beyond them a model is a
# mistake, and a unit count of 10^8 would make every scheduler crawl.
MAX_UNITS = 1024          # instances of one unit group, and the issue width
MAX_CYCLES = 1_000_000    # latencies, occupancies, cycles an extra resource is held
MAX_NUMBER = 1e18         # parameters and rates


class _Validator:
    """Reads values out of the TOML tables with errors naming file and key, and
    (when the TOML text is known) the line of the key with a caret."""

    def __init__(self, path: str, text: str | None = None):
        self.path = path
        self.text = text

    def fail(self, key: str, message: str) -> SchedccError:
        loc = key_location(self.text, key, self.path) if self.text is not None else None
        if loc is None and self.text is None:
            return SchedccError(f"{self.path}: key '{key}': {message}")
        if loc is None:  # a table that is not there: the file's start
            lines = self.text.splitlines()
            return SchedccError(f"key '{key}': {message}", Loc(self.path, 1, 1),
                                source_line=lines[0] if lines else None)
        line = self.text.splitlines()[loc.line - 1]
        word = key.rsplit(".", 1)[-1]
        width = len(word) if line[loc.col - 1:loc.col - 1 + len(word)] == word else 1
        return SchedccError(f"key '{key}': {message}", loc, source_line=line, width=width)

    def number(self, value: Any, key: str, maximum: float, what: str = "a number") -> Any:
        """*value* if it is a finite number no larger than *maximum*."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"expected {what}, got {value!r}")
        if not abs(value) <= maximum:  # also inf and nan
            raise self.fail(key, f"{value!r} is out of range: at most {maximum:,g}")
        return value

    def table(self, data: dict, key: str, required: bool = True) -> dict:
        value = data.get(key.rsplit(".", 1)[-1])
        if value is None:
            if required:
                raise self.fail(key, "missing table")
            return {}
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, got {type(value).__name__}")
        return value

    def get(self, data: dict, key: str, kind: type | tuple[type, ...], default: Any = ..., *,
            minimum: float | None = None, maximum: float | None = None) -> Any:
        short = key.rsplit(".", 1)[-1]
        if short not in data:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        value = data[short]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            raise self.fail(key, f"expected {_kind_name(kinds)}, got {value!r}")
        if not isinstance(value, kinds):
            raise self.fail(key, f"expected {_kind_name(kinds)}, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be at least {minimum}, got {value!r}")
        if maximum is not None and value > maximum:
            raise self.fail(key, f"must be at most {maximum:,}, got {value!r}")
        return value


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", list: "a list",
             bool: "true or false", dict: "a table"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def key_location(text: str, key: str, path: str) -> Loc | None:
    """Where the dotted *key* (``units.ALU.count``) is written in the TOML *text*:
    under the longest table header ``[a.b]`` that prefixes it, the line whose
    key starts the rest (``count = ...``, ``ALU = { count = ... }``, ``ALU.count``).
    Falls back to the table's header. O(lines).

    >>> key_location("[target]\\nname = 'x'\\n[units]\\nALU = { count = 0 }\\n", "units.ALU.count", "m.toml")
    Loc(file='m.toml', line=4, col=9)
    """
    parts = key.split(".")
    lines = text.splitlines()
    best: tuple[int, int] | None = None  # (parts matched by the header, header line index)
    for i, line in enumerate(lines):
        m = re.match(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$", line)
        if m:
            head = [p.strip().strip('"') for p in m.group(1).split(".")]
            if head == parts[:len(head)] and (best is None or len(head) > best[0]):
                best = (len(head), i)
    start, depth = (best[1] + 1, best[0]) if best else (0, 0)
    rest = parts[depth:]
    if not rest:
        return Loc(path, start, 1) if best else None
    for i in range(start, len(lines)):
        line = lines[i]
        if best and re.match(r"\s*\[", line):
            break
        m = re.match(r"\s*" + re.escape(rest[0]) + r"\s*[.=]", line)
        if m:
            col = line.index(rest[0]) + 1
            for inner in rest[1:]:  # a key inside an inline table or a dotted key
                found = re.search(r"(?<![A-Za-z0-9_])" + re.escape(inner) + r"\s*=", line[col:])
                if found:
                    col = col + found.start() + 1
            return Loc(path, i + 1, col)
    return Loc(path, best[1] + 1, 1) if best else None


def parse_target(text: str, path: str = "<target>") -> Target:
    """Build a :class:`Target` from TOML *text*; errors name *path* and the key."""
    return target_from_data(read_toml(text, path), path, text)


def read_toml(text: str, path: str) -> dict[str, Any]:
    """The tables of the TOML *text*, with located errors: a syntax error (at the end of
    the file: its last line and column), brackets or dotted keys nested more than
    :data:`~schedcc.errors.MAX_NESTING` deep (tomllib and every reader after it recurse)."""
    check_nesting(text, path, "[]{}", "\"'", ("#",))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        msg = str(err)
        lines = text.splitlines()
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        loc = Loc(path, int(m.group(1)), int(m.group(2))) if m else None
        if loc is None and "(at end of document)" in msg:
            last = text.rstrip("\n").count("\n") + 1 if text.strip() else 1
            loc = Loc(path, last, len(lines[last - 1]) + 1 if lines else 1)
        line = lines[loc.line - 1] if loc and 0 < loc.line <= len(lines) else ("" if loc else None)
        raise SchedccError(f"invalid TOML: {re.sub(r' [(]at (line|end).*', '', msg)}", loc,
                           source_line=line) from None
    if _too_deep(data):
        for number, line in enumerate(text.splitlines(), 1):  # a dotted key or table header
            head = line.split("=", 1)[0] if not line.lstrip().startswith("[") else line
            if head.count(".") >= MAX_NESTING:
                loc = Loc(path, number, len(line) - len(line.lstrip()) + 1)
                break
        else:
            loc = Loc(path, 1, 1)
        lines = text.splitlines()
        raise SchedccError(f"keys nested more than {MAX_NESTING} deep", loc,
                           source_line=lines[loc.line - 1] if loc.line <= len(lines) else None,
                           notes=[f"schedcc reads tables nested at most {MAX_NESTING} deep"])
    return data


def _too_deep(data: dict) -> bool:
    """Whether tables nest deeper than MAX_NESTING in *data*. O(size), no recursion."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return False


def target_from_data(data: dict[str, Any], path: str = "<target>", text: str | None = None) -> Target:
    """Build a :class:`Target` from already-parsed TOML *data* (see :func:`parse_target`;
    *text*, the TOML it came from, lets errors point at the key's line)."""
    v = _Validator(path, text)
    head = v.table(data, "target")
    name = v.get(head, "target.name", str)
    description = v.get(head, "target.description", str, "")
    width = v.get(head, "target.issue_width", int, minimum=1, maximum=MAX_UNITS)
    stages = tuple(v.get(head, "target.stages", list, ["IF", "EX", "WB"]))
    in_order = v.get(head, "target.in_order", bool, True)
    writeback = v.get(head, "target.in_order_writeback", bool, False)
    aliases = tuple(v.get(head, "target.aliases", list, []))
    deps = v.table(data, "dependences", required=False)
    war = v.get(deps, "dependences.war_latency", int, 0, minimum=0, maximum=MAX_CYCLES)
    waw = v.get(deps, "dependences.waw_latency", int, 1, minimum=0, maximum=MAX_CYCLES)

    units_table = v.table(data, "units")
    if not units_table:
        raise v.fail("units", "a target needs at least one unit")
    groups: dict[str, tuple[str, ...]] = {}
    instances: list[str] = []
    for group, spec in units_table.items():
        key = f"units.{group}"
        if isinstance(spec, int) and not isinstance(spec, bool):
            count = spec
        elif isinstance(spec, dict):
            for extra in spec.keys() - {"count", "description"}:
                raise v.fail(f"{key}.{extra}", "unknown key (a unit has a count and a description)")
            count = v.get(spec, f"{key}.count", int, 1)
        else:
            raise v.fail(key, "expected a count or a table with 'count'")
        if not 1 <= count <= MAX_UNITS:
            raise v.fail(f"{key}.count" if isinstance(spec, dict) else key,
                         f"count must be from 1 to {MAX_UNITS:,}, got {count}")
        members = (group,) if count == 1 else tuple(f"{group}{i}" for i in range(count))
        groups[group] = members
        instances.extend(members)
    known_units = set(instances) | set(groups)

    classes_table = v.table(data, "classes")
    classes: list[OpClass] = []
    for cname, spec in classes_table.items():
        key = f"classes.{cname}"
        if not isinstance(spec, dict):
            raise v.fail(key, "expected a table")
        for extra in spec.keys() - CLASS_KEYS:
            hint = (" (machine models are data: write an operand-dependent cost as a formula, "
                    "docs/targets.md)" if extra == "cost" else "")
            close = difflib.get_close_matches(extra, sorted(CLASS_KEYS), n=1)
            hint = hint or (f" (did you mean '{close[0]}'?)" if close else "")
            raise v.fail(f"{key}.{extra}", f"unknown key{hint}")
        opcodes = v.get(spec, f"{key}.opcodes", list)
        if not opcodes or not all(isinstance(o, str) for o in opcodes):
            raise v.fail(f"{key}.opcodes", "expected a non-empty list of opcode names")
        unit_names = v.get(spec, f"{key}.units", list)
        chosen: list[str] = []
        for u in unit_names:
            if u not in known_units:
                close = difflib.get_close_matches(str(u), sorted(known_units), n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise v.fail(f"{key}.units", f"unknown unit '{u}'{hint}")
            chosen.extend(groups.get(u, (u,)))
        also = v.get(spec, f"{key}.also", dict, {})
        for u, cycles in also.items():
            if u not in known_units:
                raise v.fail(f"{key}.also", f"unknown unit '{u}'")
            if isinstance(cycles, bool) or not isinstance(cycles, int) or not 1 <= cycles <= MAX_CYCLES:
                raise v.fail(f"{key}.also.{u}", f"expected an integer from 1 to {MAX_CYCLES:,}, got {cycles!r}")
        rates = {}
        for per in ("latency_per", "occupancy_per"):
            table = v.get(spec, f"{key}.{per}", dict, {})
            for attr, rate in table.items():
                v.number(rate, f"{key}.{per}.{attr}", MAX_NUMBER, "a positive rate")
                if rate <= 0:
                    raise v.fail(f"{key}.{per}.{attr}", f"expected a positive rate, got {rate!r}")
            rates[per] = tuple(table.items())
        params = v.get(spec, f"{key}.params", dict, {})
        for pname, pvalue in params.items():
            v.number(pvalue, f"{key}.params.{pname}", MAX_NUMBER)
        costs = {what: _cost(v, spec, f"{key}.{what}", default, set(params))
                 for what, default in (("latency", ...), ("occupancy", 1))}
        classes.append(OpClass(
            name=cname, opcodes=tuple(opcodes), units=tuple(dict.fromkeys(chosen)),
            latency=costs["latency"], occupancy=costs["occupancy"],
            also=tuple((u, c) for u, c in also.items()),
            latency_per=rates["latency_per"], occupancy_per=rates["occupancy_per"],
            params=tuple(params.items()),
        ))
    if not classes:
        raise v.fail("classes", "a target needs at least one opcode class")
    return Target(name=name, description=description, issue_width=width,
                  units=tuple(instances), groups=groups, classes=tuple(classes),
                  stages=tuple(str(s) for s in stages), in_order=in_order, in_order_writeback=writeback,
                  war_latency=war, waw_latency=waw, aliases=tuple(str(a) for a in aliases),
                  path=path, raw=data)


def _cost(v: _Validator, spec: dict, key: str, default: Any, params: set[str]) -> int | Formula:
    """A latency or occupancy: a non-negative integer, or a formula string."""
    short = key.rsplit(".", 1)[-1]
    value = spec.get(short, default)
    if value is ...:
        raise v.fail(key, "missing")
    if isinstance(value, str):
        try:
            formula = Formula.parse(value, key)
        except FormulaError as err:
            raise v.fail(key, str(err)) from None
        if short == "occupancy" and "occupancy" in formula.names:
            raise v.fail(key, "an occupancy formula cannot name 'occupancy'")
        return formula
    if isinstance(value, bool) or not isinstance(value, int):
        raise v.fail(key, f"expected an integer or a formula string, got {value!r}")
    minimum = 1 if short == "occupancy" else 0
    if not minimum <= value <= MAX_CYCLES:
        raise v.fail(key, f"must be from {minimum} to {MAX_CYCLES:,}, got {value!r}")
    return value


def _target_files() -> list[Path]:
    return sorted(targets_dir().glob("*.toml"))


def _load_file(path: str) -> Target:
    """The model in *path*, parsed once per content: the cache is keyed by the path as
    given and the file's bytes, so ``m.toml`` in another directory, or the same file
    edited (even within one tick of its modification time, at the same size), is parsed
    afresh, and each parse is its own :class:`Target` with its own ``derived`` memo."""
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise SchedccError(f"cannot read machine model '{path}': {err.strerror}") from None
    return _load_version(path, data)


@functools.lru_cache(maxsize=64)
def _load_version(path: str, data: bytes) -> Target:
    text = decode_text(data, path)
    with located(text, path):
        target = parse_target(text, path)
    target.derived["source"] = text  # for errors located in tables other modules read ([cluster])
    return target


def list_targets() -> list[Target]:
    """All machine models shipped in ``targets/``, sorted by name."""
    return sorted((_load_file(str(p)) for p in _target_files()), key=lambda t: t.name)


def load_target(name_or_path: str | Target) -> Target:
    """Load a machine model by name (``mips4``), alias (``loongarch``) or path (``./cpu.toml``).

    Raises :class:`SchedccError` naming the close matches for an unknown name.
    """
    if isinstance(name_or_path, Target):
        return name_or_path
    spec = str(name_or_path)
    if spec.endswith(".toml") or "/" in spec or "\\" in spec:
        note_input(spec)  # the run's outputs may not replace it
        return _load_file(str(Path(spec)))
    files = {p.stem: p for p in _target_files()}
    if spec in files:
        return _load_file(str(files[spec]))
    names = []
    for t in list_targets():
        if spec == t.name or spec in t.aliases:
            return t
        names.extend([t.name, *t.aliases])
    close = difflib.get_close_matches(spec, names, n=3, cutoff=0.4)
    notes = [f"did you mean {', '.join(repr(c) for c in close)}?"] if close else []
    notes.append("'schedcc targets' lists them; a path to a .toml file works too")
    raise SchedccError(f"unknown target '{spec}'", notes=notes)

"""Machine models: loading and validating the data files in ``targets/``.

A machine model is data, not code (LLVM's SchedMachineModel is the model for
this). A TOML file names the issue width, the functional units, and per class
of opcodes the units that may execute it, the result latency and how long it
occupies its unit. A CPU's issue port, an Ascend pipe and a cluster's
communication stream are all *units* to the scheduler. The format is
described in ``docs/targets.md``.

Example::

    >>> t = load_target("mips4")
    >>> t.issue_width, t.stages
    (1, ('ID', 'RR', 'ALU', 'RW'))
    >>> t.op_class("add").latency
    3
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .errors import SchedccError
from .ir import Instr, Loc
from .resources import targets_dir

# Named cost functions a class may use (``cost = "name"``) when a latency is
# not a linear function of attributes. Each takes (op_class, instr) and
# returns (latency, occupancy). Targets that need one register it here.
CostFunction = Callable[["OpClass", Instr], tuple[int, int]]
COST_FUNCTIONS: dict[str, CostFunction] = {}


def register_cost_function(name: str) -> Callable[[CostFunction], CostFunction]:
    def deco(fn: CostFunction) -> CostFunction:
        COST_FUNCTIONS[name] = fn
        return fn
    return deco


@dataclass(frozen=True)
class OpClass:
    """How one class of opcodes executes.

    ``units`` are the unit instances that can execute it (the scheduler picks
    one); ``occupancy`` is how many cycles that unit is then busy (1 means
    pipelined); ``also`` lists further resources held for a number of cycles
    from issue (a divider behind an ALU port). Latencies may grow with
    attributes: ``latency + sum(ceil(attr / rate) for attr, rate in latency_per)``.
    """

    name: str
    opcodes: tuple[str, ...]
    units: tuple[str, ...]
    latency: int
    occupancy: int = 1
    also: tuple[tuple[str, int], ...] = ()
    latency_per: tuple[tuple[str, float], ...] = ()
    occupancy_per: tuple[tuple[str, float], ...] = ()
    cost: str | None = None
    params: tuple[tuple[str, Any], ...] = ()  # free-form numbers for cost functions

    def param(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    def cost_of(self, instr: Instr) -> tuple[int, int]:
        """(result latency, unit occupancy) of *instr* in this class."""
        if self.cost is not None:
            return COST_FUNCTIONS[self.cost](self, instr)
        latency, occupancy = self.latency, self.occupancy
        for attr, rate in self.latency_per:
            latency += _scaled(instr, attr, rate)
        for attr, rate in self.occupancy_per:
            occupancy += _scaled(instr, attr, rate)
        return latency, max(occupancy, 1)


def _scaled(instr: Instr, attr: str, rate: float) -> int:
    value = instr.attr(attr, 0)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return 0
    return int(math.ceil(value / rate))


@dataclass(frozen=True)
class Target:
    """A machine model. Build one with :func:`load_target`."""

    name: str
    description: str
    issue_width: int
    units: tuple[str, ...]  # unit instances, e.g. ("ALU0", "ALU1", "AGU0")
    groups: dict[str, tuple[str, ...]]  # group name -> its instances
    classes: tuple[OpClass, ...]
    stages: tuple[str, ...] = ("IF", "EX", "WB")
    in_order: bool = True
    war_latency: int = 0
    waw_latency: int = 1
    aliases: tuple[str, ...] = ()
    path: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @functools.cached_property
    def _exact(self) -> dict[str, OpClass]:
        table: dict[str, OpClass] = {}
        for cls in self.classes:
            for op in cls.opcodes:
                if not any(c in op for c in "*?["):
                    table.setdefault(op, cls)
        return table

    @functools.cached_property
    def _patterns(self) -> list[tuple[str, OpClass]]:
        return [(op, cls) for cls in self.classes for op in cls.opcodes if any(c in op for c in "*?[")]

    @functools.lru_cache(maxsize=None)
    def op_class(self, opcode: str) -> OpClass | None:
        """The class executing *opcode*, or None if this target does not know it."""
        cls = self._exact.get(opcode)
        if cls is not None:
            return cls
        for pattern, cls in self._patterns:
            if fnmatch.fnmatchcase(opcode, pattern):
                return cls
        return None

    def known_opcodes(self) -> list[str]:
        return sorted(self._exact)

    def class_of(self, instr: Instr) -> OpClass:
        cls = self.op_class(instr.opcode)
        if cls is None:
            raise unknown_opcode_error(self, instr)
        return cls

    def latency(self, instr: Instr) -> int:
        return self.class_of(instr).cost_of(instr)[0]

    def occupancy(self, instr: Instr) -> int:
        return self.class_of(instr).cost_of(instr)[1]

    def unit_count(self) -> dict[str, int]:
        return {g: len(members) for g, members in self.groups.items()}

    def __hash__(self) -> int:
        return hash((self.name, self.path))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and (self.name, self.path) == (other.name, other.path)


def unknown_opcode_error(target: Target, instr: Instr) -> SchedccError:
    close = difflib.get_close_matches(instr.opcode, target.known_opcodes(), n=4, cutoff=0.5)
    notes = [f"did you mean {', '.join(repr(c) for c in close)}?"] if close else []
    notes.append(f"'schedcc targets --show {target.name}' lists the opcodes it knows")
    return SchedccError(f"target '{target.name}' has no opcode '{instr.opcode}'", instr.opcode_loc or instr.loc,
                        notes=notes, width=max(len(instr.opcode), 1))


def check_opcodes(program, target: Target) -> None:
    """Raise a located :class:`SchedccError` for the first opcode *target* does not know."""
    for _, block in program.blocks():
        for instr in block.instrs:
            if target.op_class(instr.opcode) is None:
                raise unknown_opcode_error(target, instr)


# -- loading ---------------------------------------------------------------------

class _Validator:
    """Reads values out of the TOML tables with errors naming file and key."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, message: str) -> SchedccError:
        return SchedccError(f"{self.path}: key '{key}': {message}")

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
            minimum: float | None = None) -> Any:
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
        return value


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", list: "a list",
             bool: "true or false", dict: "a table"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def parse_target(text: str, path: str = "<target>") -> Target:
    """Build a :class:`Target` from TOML *text*; errors name *path* and the key."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        msg = str(err)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        loc = Loc(path, int(m.group(1)), int(m.group(2))) if m else None
        lines = text.splitlines()
        line = lines[loc.line - 1] if loc and 0 < loc.line <= len(lines) else None
        raise SchedccError(f"invalid TOML: {re.sub(r' [(]at line.*', '', msg)}", loc,
                           source_line=line) from None
    return target_from_data(data, path)


def target_from_data(data: dict[str, Any], path: str = "<target>") -> Target:
    """Build a :class:`Target` from already-parsed TOML *data* (see :func:`parse_target`)."""
    v = _Validator(path)
    head = v.table(data, "target")
    name = v.get(head, "target.name", str)
    description = v.get(head, "target.description", str, "")
    width = v.get(head, "target.issue_width", int, minimum=1)
    stages = tuple(v.get(head, "target.stages", list, ["IF", "EX", "WB"]))
    in_order = v.get(head, "target.in_order", bool, True)
    aliases = tuple(v.get(head, "target.aliases", list, []))
    deps = v.table(data, "dependences", required=False)
    war = v.get(deps, "dependences.war_latency", int, 0, minimum=0)
    waw = v.get(deps, "dependences.waw_latency", int, 1, minimum=0)

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
            count = v.get(spec, f"{key}.count", int, 1)
        else:
            raise v.fail(key, "expected a count or a table with 'count'")
        if count < 1:
            raise v.fail(key, f"count must be at least 1, got {count}")
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
            if not isinstance(cycles, int) or cycles < 1:
                raise v.fail(f"{key}.also.{u}", f"expected a positive integer, got {cycles!r}")
        rates = {}
        for per in ("latency_per", "occupancy_per"):
            table = v.get(spec, f"{key}.{per}", dict, {})
            for attr, rate in table.items():
                if not isinstance(rate, (int, float)) or isinstance(rate, bool) or rate <= 0:
                    raise v.fail(f"{key}.{per}.{attr}", f"expected a positive rate, got {rate!r}")
            rates[per] = tuple(table.items())
        cost = v.get(spec, f"{key}.cost", str, None)
        if cost is not None and cost not in COST_FUNCTIONS:
            _load_cost_plugins()
            if cost not in COST_FUNCTIONS:
                raise v.fail(f"{key}.cost", f"unknown cost function '{cost}'")
        params = v.get(spec, f"{key}.params", dict, {})
        # A cluster model's numbers ([cluster], see docs/cost-model.md) reach its cost functions.
        cluster = data.get("cluster") if isinstance(data.get("cluster"), dict) else {}
        params = {**{k: x for k, x in cluster.items() if not isinstance(x, dict)}, **params}
        classes.append(OpClass(
            name=cname, opcodes=tuple(opcodes), units=tuple(dict.fromkeys(chosen)),
            latency=v.get(spec, f"{key}.latency", int, 0 if cost is not None else ..., minimum=0),
            occupancy=v.get(spec, f"{key}.occupancy", int, 1, minimum=1),
            also=tuple((u, c) for u, c in also.items()),
            latency_per=rates["latency_per"], occupancy_per=rates["occupancy_per"],
            cost=cost, params=tuple(params.items()),
        ))
    if not classes:
        raise v.fail("classes", "a target needs at least one opcode class")
    return Target(name=name, description=description, issue_width=width,
                  units=tuple(instances), groups=groups, classes=tuple(classes),
                  stages=tuple(str(s) for s in stages), in_order=in_order,
                  war_latency=war, waw_latency=waw, aliases=tuple(str(a) for a in aliases),
                  path=path, raw=data)


def _load_cost_plugins() -> None:
    """Import modules that register cost functions (they live beside their targets' code)."""
    import importlib
    for module in ("schedcc.costs", "schedcc.training.costs"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError:
            pass


def _target_files() -> list[Path]:
    return sorted(targets_dir().glob("*.toml"))


@functools.lru_cache(maxsize=64)
def _load_file(path: str) -> Target:
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise SchedccError(f"cannot read machine model '{path}': {err.strerror}") from None
    return parse_target(text, path)


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

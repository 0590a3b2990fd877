"""Machine models: the :class:`Target` and its classes of opcodes.

A machine model is data, not code (LLVM's SchedMachineModel is the model for
this). A TOML file names the issue width, the functional units, and per class
of opcodes the units that may execute it, the result latency and how long it
occupies its unit. A CPU's issue port, an Ascend pipe and a cluster's
communication stream are all *units* to the scheduler. The format is
described in ``docs/targets.md``; :mod:`schedcc.target.load` reads it.

Example::

    >>> from schedcc.target import load_target
    >>> t = load_target("mips4")
    >>> t.issue_width, t.stages, t.domain
    (1, ('ID', 'RR', 'ALU', 'RW'), 'cpu')
    >>> t.op_class("add").latency
    3
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from schedcc.errors import SchedccError
from schedcc.ir import Instr
from schedcc.problem import Machine
from schedcc.target.formula import Formula, FormulaError

DOMAINS = ("cpu", "ascend", "cluster")


@dataclass(frozen=True)
class OpClass:
    """How one class of opcodes executes.

    ``units`` are the unit instances that can execute it (the scheduler picks
    one); ``occupancy`` is how many cycles that unit is then busy (1 means
    pipelined); ``also`` lists further resources held for a number of cycles
    from issue (a divider behind an ALU port). Latency and occupancy are
    numbers, or :class:`~schedcc.target.formula.Formula` objects over
    ``params`` and the instruction's attributes; either may grow linearly with
    attributes: ``+ sum(ceil(attr / rate) for attr, rate in latency_per)``.
    """

    name: str
    opcodes: tuple[str, ...]
    units: tuple[str, ...]
    latency: int | Formula
    occupancy: int | Formula = 1
    also: tuple[tuple[str, int], ...] = ()
    latency_per: tuple[tuple[str, float], ...] = ()
    occupancy_per: tuple[tuple[str, float], ...] = ()
    params: tuple[tuple[str, Any], ...] = ()  # numbers the formulas name

    def param(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)

    @property
    def constant_cost(self) -> tuple[int, int] | None:
        """(latency, occupancy) when no instruction changes them (numbers, no formula), else None."""
        return self._constant

    @functools.cached_property
    def _constant(self) -> tuple[int, int] | None:
        if isinstance(self.latency, int) and isinstance(self.occupancy, int) \
                and not self.latency_per and not self.occupancy_per:
            return self.latency, max(self.occupancy, 1)
        return None

    def cost_of(self, instr: Instr) -> tuple[int, int]:
        """(result latency, unit occupancy) of *instr* in this class."""
        constant = self._constant
        if constant is not None:
            return constant
        values = self._values(instr)
        occupancy = self._evaluate(self.occupancy, values, instr, "occupancy")
        for attr, rate in self.occupancy_per:
            occupancy += _scaled(instr, attr, rate)
        occupancy = max(occupancy, 1)
        values["occupancy"] = occupancy
        latency = self._evaluate(self.latency, values, instr, "latency")
        for attr, rate in self.latency_per:
            latency += _scaled(instr, attr, rate)
        return latency, occupancy

    def _values(self, instr: Instr) -> dict[str, float]:
        values = dict(self.params)
        for formula in (self.latency, self.occupancy):
            if not isinstance(formula, Formula):
                continue
            for name in formula.names:
                if name in values or name == "occupancy":
                    continue
                values[name] = _attribute(instr, name, self, formula)
        return values

    def _evaluate(self, value: int | Formula, values: dict, instr: Instr, what: str) -> int:
        if isinstance(value, int):
            return value
        try:
            return value.evaluate(values)
        except FormulaError as err:
            raise SchedccError(f"'{instr.opcode}': {what} of class '{self.name}': {err}",
                               instr.opcode_loc or instr.loc, width=max(len(instr.opcode), 1)) from None


def _attribute(instr: Instr, name: str, cls: OpClass, formula: Formula) -> float:
    value = instr.attr(name)
    where = instr.opcode_loc or instr.loc
    if value is None:
        example = f"{name} = 16KiB" if name == "bytes" else f"{name} = 128"
        raise SchedccError(f"'{instr.opcode}' needs a '{name}' attribute (class '{cls.name}' costs it as "
                           f"{formula.text})", where, notes=[f"for example: {instr} {{{example}}}"],
                           width=max(len(instr.opcode), 1))
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0 or value == math.inf:
        raise SchedccError(f"'{instr.opcode}' attribute '{name}' must be a positive number, got {value!r}",
                           where, width=max(len(instr.opcode), 1))
    return value


def _scaled(instr: Instr, attr: str, rate: float) -> int:
    value = instr.attr(attr, 0)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return 0
    return int(math.ceil(value / rate))


@dataclass(frozen=True)
class Target:
    """A machine model. Build one with :func:`schedcc.target.load_target`.

    ``raw`` keeps the whole parsed file, so that a domain reads its own tables
    (``[ascend]``, ``[cluster]``); :attr:`domain` says which one the model is for.
    """

    name: str
    description: str
    issue_width: int
    units: tuple[str, ...]  # unit instances, e.g. ("ALU0", "ALU1", "AGU0")
    groups: dict[str, tuple[str, ...]]  # group name -> its instances
    classes: tuple[OpClass, ...]
    stages: tuple[str, ...] = ("IF", "EX", "WB")
    in_order: bool = True
    in_order_writeback: bool = False  # results written in issue order (llvm-mca's in-order pipeline)
    war_latency: int = 0
    waw_latency: int = 1
    aliases: tuple[str, ...] = ()
    path: str = ""
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def domain(self) -> str:
        """``ascend`` (an ``[ascend]`` table), ``cluster`` (a ``[cluster]`` table) or ``cpu``."""
        if isinstance(self.raw.get("ascend"), dict):
            return "ascend"
        if isinstance(self.raw.get("cluster"), dict):
            return "cluster"
        return "cpu"

    @functools.cached_property
    def derived(self) -> dict[str, Any]:
        """What other modules compute from this model once (the Ascend tables, the cluster,
        the source text it was parsed from), kept on this object: never a cache keyed by
        ``==``, which compares name and path as given, so an edited file, ``m.toml`` in
        another directory or a ``--set`` copy would be served another model's answer.
        ``dataclasses.replace`` makes a copy with an empty one."""
        return {}

    def memo(self, key: str, make: Callable[[], Any]) -> Any:
        """``derived[key]``, computed by *make* the first time (an error is not kept)."""
        memo = self.derived
        if key not in memo:
            memo[key] = make()
        return memo[key]

    @functools.cached_property
    def machine(self) -> Machine:
        """The resources of this model, as the scheduling problem states them."""
        return Machine(self.name, self.issue_width, self.units, in_order_writeback=self.in_order_writeback)

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

    @functools.cached_property
    def _classes_by_opcode(self) -> dict[str, OpClass | None]:
        # Per instance: an lru_cache on the method would key by equality, and two models that
        # differ only in a cost formula compare equal, so one would answer with the other's class.
        return {}

    def op_class(self, opcode: str) -> OpClass | None:
        """The class executing *opcode*, or None if this target does not know it."""
        memo = self._classes_by_opcode
        if opcode in memo:
            return memo[opcode]
        found = self._exact.get(opcode)
        if found is None:
            found = next((cls for pattern, cls in self._patterns if fnmatch.fnmatchcase(opcode, pattern)), None)
        memo[opcode] = found
        return found

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
    known: set[str] = set()
    for _, block in program.blocks():
        for instr in block.instrs:
            if instr.opcode in known:
                continue
            if target.op_class(instr.opcode) is None:
                raise unknown_opcode_error(target, instr)
            known.add(instr.opcode)

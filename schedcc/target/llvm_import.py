"""Machine models imported from LLVM: ``schedcc targets import --from-llvm TRIPLE CPU``.

LLVM carries a scheduling model for hundreds of CPUs; ``llvm-mca`` simulates
code on them and reports, per instruction, its latency and the processor
resources it holds. This module asks ``llvm-mca`` about one sample of every
instruction of an instruction set (``targets/llvm-probes/TRIPLE.toml``:
data, not code) and writes its answers as an ordinary machine model
(TOML, docs/targets.md):

* the issue width is llvm-mca's dispatch width;
* the units are LLVM's processor resources, with their counts;
* an instruction's units are the resources ``--instruction-tables`` spreads
  it over (SiFive 7's two pipes: 0.5 cycles each) or, where it holds several
  whole, the one it holds longest; its occupancy is how long it holds that
  unit, ``also`` the others it holds (a divider behind a pipe);
* its latency is llvm-mca's; a pseudo-instruction or an IR opcode that
  becomes a chain of instructions gets the chain's: the cycles llvm-mca
  takes to run it once, less one (llvm-mca counts the cycle in which the
  last result is written);
* in order or not is asked of llvm-mca as well: a sample in which an
  out-of-order core would start an independent instruction early.

Instructions that agree in all of that form one class. Nothing is fitted:
every number is llvm-mca's, and ``bench/bench_mca.py`` holds schedcc's
predictions on the imported model against llvm-mca's simulation of the same
code (docs/performance.md).

Example (runs llvm-mca-16)::

    >>> text = import_llvm_model("riscv64", "sifive-u74")       # doctest: +SKIP
    >>> "issue_width = 2" in text and "in_order = true" in text  # doctest: +SKIP
    True
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from schedcc.errors import SchedccError
from schedcc.resources import targets_dir

MCA = ("llvm-mca-16", "llvm-mca")
LLC = ("llc-16", "llc")
TIMEOUT = 120  # seconds for one llvm-mca run over every sample


def probes_dir() -> Path:
    return targets_dir() / "llvm-probes"


def known_triples() -> list[str]:
    """The triples schedcc has samples for (``targets/llvm-probes/*.toml``)."""
    return sorted(p.stem for p in probes_dir().glob("*.toml"))


def tool(names: tuple[str, ...]) -> str:
    """The path of the first of *names* on PATH, or an error saying how to install it."""
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise SchedccError(f"'{names[0]}' is not installed: schedcc runs it to read LLVM's scheduling models",
                       notes=["on Debian: apt-get install llvm-16 (python3 tasks.py test installs it)"])


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SchedccError(f"{Path(cmd[0]).name} did not finish within {TIMEOUT} s") from None


def llvm_cpus(triple: str) -> list[str]:
    """The CPUs LLVM has a name for under *triple* (``llc -mcpu=help``). O(output)."""
    proc = _run([tool(LLC), f"-mtriple={triple}", "-mcpu=help"])
    out = proc.stdout + proc.stderr
    cpus, reading = [], False
    for line in out.splitlines():
        if line.startswith("Available CPUs"):
            reading = True
        elif line.startswith("Available features"):
            break
        elif reading and line.strip():
            cpus.append(line.split()[0])
    return cpus


# --- llvm-mca's report ---------------------------------------------------------------------------------------


@dataclass
class Region:
    """llvm-mca's answer for one code region: its instructions run once."""

    cycles: int = 0                                               # Total Cycles
    latency: list[int] = field(default_factory=list)              # per instruction (Instruction Info)
    pressure: list[dict[str, float]] = field(default_factory=list)  # per instruction: resource -> cycles
    dispatch: list[int] = field(default_factory=list)             # per instruction: its 'D' in the timeline


@dataclass
class Report:
    dispatch_width: int
    resources: dict[str, int]  # LLVM resource -> units (``[0.0]``, ``[0.1]``: two)
    regions: list[Region]


_REGION = re.compile(r"^\[\d+\] Code Region(?: - \S+)?\s*$", re.M)
_RESOURCE = re.compile(r"^\[(\d+)(?:\.(\d+))?\]\s+-\s+(\S+)\s*$", re.M)


def parse_report(text: str) -> Report:
    """llvm-mca's output for a file of code regions; O(len(text)).

    >>> r = parse_report('''[0] Code Region - r0
    ... Total Cycles:      4
    ... Dispatch Width:    2
    ... Instruction Info:
    ... [1]    [2]    [3]    [4]    [5]    [6]    Instructions:
    ...  1      3     0.50                        add	a0, a1, a2
    ...
    ... Resources:
    ... [0]   - PipeA
    ... [1]   - PipeB
    ...
    ... Resource pressure by instruction:
    ... [0]    [1]    Instructions:
    ... 0.50   0.50   add	a0, a1, a2
    ... ''')
    >>> r.dispatch_width, r.resources, r.regions[0].latency, r.regions[0].pressure
    (2, {'PipeA': 1, 'PipeB': 1}, [3], [{'PipeA': 0.5, 'PipeB': 0.5}])
    """
    bodies = _REGION.split(text)[1:] or [text]
    width = 0
    resources: dict[str, int] = {}
    regions = []
    for body in bodies:
        reg = Region()
        m = re.search(r"Total Cycles:\s+(\d+)", body)
        reg.cycles = int(m.group(1)) if m else 0
        m = re.search(r"Dispatch Width:\s+(\d+)", body)
        width = max(width, int(m.group(1)) if m else 0)
        reg.latency = [int(row.split()[1]) for row in _rows(body, "Instruction Info:")]
        columns = []
        for m in _RESOURCE.finditer(body):
            name = m.group(3)
            columns.append(name)
            if m.group(2) is None or int(m.group(2)) + 1 > resources.get(name, 0):
                resources[name] = 1 if m.group(2) is None else int(m.group(2)) + 1
        for row in _rows(body, "Resource pressure by instruction:"):
            cells = row.split()[:len(columns)]
            held: dict[str, float] = {}
            for name, cell in zip(columns, cells):
                if cell != "-":
                    held[name] = held.get(name, 0.0) + float(cell)
            reg.pressure.append(held)
        reg.dispatch = _dispatch_columns(body)
        regions.append(reg)
    return Report(width, resources, regions)


def _rows(body: str, section: str) -> list[str]:
    """The rows of the table under *section*'s column header (the line ending 'Instructions:')."""
    at = body.find(section)
    if at < 0:
        return []
    lines = body[at:].splitlines()
    start = next((k for k, line in enumerate(lines) if line.rstrip().endswith("Instructions:")), len(lines))
    out = []
    for line in lines[start + 1:]:
        if not line.strip():
            break
        out.append(line)
    return out


def _dispatch_columns(body: str) -> list[int]:
    """Per timeline row ``[0,k]     .  DeeE``, the column of its 'D'."""
    at = body.find("Timeline view:")
    out = []
    for line in body[at:].splitlines() if at >= 0 else ():
        m = re.match(r"\[\d+,\d+\]\s{2,}", line)
        if m:
            cells = line[10:]  # the timeline starts in column 10, under 'Index     '
            out.append(cells.find("D"))
    return out


# --- from llvm-mca's answers to a model ------------------------------------------------------------------------


@dataclass(frozen=True)
class Cost:
    units: tuple[str, ...]
    occupancy: int
    also: tuple[tuple[str, int], ...]
    latency: int


def cost_of(pressure: dict[str, float], latency: int, counts: dict[str, int]) -> Cost:
    """The units, occupancy and extra resources of an instruction that holds *pressure*
    (resource -> cycles, as ``--instruction-tables`` reports it). O(resources).

    >>> cost_of({"PipeA": 0.5, "PipeB": 0.5}, 3, {"PipeA": 1, "PipeB": 1})
    Cost(units=('PipeA', 'PipeB'), occupancy=1, also=(), latency=3)
    >>> cost_of({"PipeB": 16.0, "IDiv": 15.0}, 16, {"PipeB": 1, "IDiv": 1})
    Cost(units=('PipeB',), occupancy=16, also=(('IDiv', 15),), latency=16)
    >>> cost_of({"ALU": 1.0}, 3, {"ALU": 2})   # 0.5 on each of two ALUs, summed
    Cost(units=('ALU',), occupancy=1, also=(), latency=3)
    """
    if not pressure:
        return Cost((), 1, (), latency)
    shared = {r: p for r, p in pressure.items() if p != int(p) and counts.get(r, 1) == 1}
    if len(shared) >= 2:  # one of several resources (p each, summing to a whole number of cycles)
        units = tuple(sorted(shared))
        occupancy = max(1, round(sum(shared.values())))
        rest = {r: p for r, p in pressure.items() if r not in shared}
    else:
        primary = max(pressure, key=lambda r: (pressure[r] / counts.get(r, 1), r))
        units = (primary,)
        occupancy = max(1, round(pressure[primary] / counts.get(primary, 1)))
        rest = {r: p for r, p in pressure.items() if r != primary}
    also = tuple(sorted((r, max(1, round(p / counts.get(r, 1)))) for r, p in rest.items()))
    return Cost(units, occupancy, also, latency)


@dataclass
class Probes:
    triple: str
    mattr: str
    samples: list[tuple[str, str]]   # (opcode, assembly of one or more lines)
    no_code: list[str]
    assumed: dict[str, str]          # opcode llvm-mca cannot model -> the sample it is costed like
    order: str                       # in order or not: an out-of-order core starts ...
    order_index: int                 # ... this instruction of it at once
    writeback: str                   # results written in order or not: a short instruction after a long one


def llvm_triples() -> list[str]:
    """The architectures this LLVM was built for (``llc --version``'s registered targets)."""
    out = _run([tool(LLC), "--version"]).stdout
    return [line.split()[0] for line in out.split("Registered Targets:", 1)[-1].splitlines() if line.strip()]


def load_probes(triple: str) -> Probes:
    path = probes_dir() / f"{triple}.toml"
    if not path.exists():
        arch = triple.split("-")[0]
        if arch not in llvm_triples():
            raise SchedccError(f"LLVM does not know the triple '{triple}'",
                               notes=[f"its targets: {', '.join(llvm_triples())}; schedcc has instruction "
                                      f"samples for: {', '.join(known_triples())}"])
        raise SchedccError(f"schedcc has no instruction samples for '{triple}' (LLVM knows it)",
                           notes=[f"it imports models for: {', '.join(known_triples())}; to add {triple}, write "
                                  f"targets/llvm-probes/{triple}.toml like riscv64.toml"])
    data = tomllib.loads(path.read_text())
    samples = [(op, f"{op} {operands}".strip()) for op, operands in data["instructions"].items()]
    samples += list(data.get("pseudo", {}).items()) + list(data.get("generic", {}).items())
    order = data["order"]
    return Probes(triple, data["target"].get("mattr", ""), samples, list(data.get("no_code", {}).get("opcodes", [])),
                  dict(data.get("assumed", {})), order["code"], order["independent"], data["writeback"]["code"])


def _regions(asm: list[str]) -> str:
    return "".join(f"# LLVM-MCA-BEGIN r{k}\n{code}\n# LLVM-MCA-END\n" for k, code in enumerate(asm))


def ask_mca(triple: str, cpu: str, probes: Probes, tmp: Path) -> tuple[Report, Report]:
    """(``--instruction-tables`` report, one-iteration timeline report) of every sample."""
    src = tmp / "samples.s"
    src.write_text(_regions([code for _, code in probes.samples] + [probes.order, probes.writeback]))
    base = [tool(MCA), f"-mtriple={triple}", f"-mcpu={cpu}"] + ([f"-mattr={probes.mattr}"] if probes.mattr else [])
    reports = []
    for extra in (["--instruction-tables"], ["-iterations=1", "-timeline", "-instruction-info=false"]):
        proc = _run(base + extra + [str(src)])
        if proc.returncode != 0 or "not a recognized processor" in proc.stderr:
            raise _mca_error(triple, cpu, proc.stderr)
        reports.append(parse_report(proc.stdout))
    return reports[0], reports[1]


def _mca_error(triple: str, cpu: str, stderr: str) -> SchedccError:
    if "not a recognized processor" in stderr:
        cpus = llvm_cpus(triple)
        return SchedccError(f"LLVM does not know the CPU '{cpu}' for {triple}",
                            notes=[f"LLVM's CPUs for {triple}: {', '.join(c for c in cpus if c != 'help')}"])
    if "unable to get target" in stderr:
        return SchedccError(f"LLVM does not know the triple '{triple}'")
    first = stderr.strip().splitlines()[:2]
    return SchedccError(f"llvm-mca could not run the samples for {triple} {cpu}: {' '.join(first)}")


def _toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_model(triple: str, cpu: str, probes: Probes, tables: Report, runs: Report, name: str,
                command: str, aliases: tuple[str, ...] = ()) -> str:
    """The TOML text of the machine model llvm-mca's answers describe."""
    n = len(probes.samples)
    if len(tables.regions) != n + 2 or len(runs.regions) != n + 2:
        raise SchedccError(f"llvm-mca answered {len(tables.regions)} of the {n + 2} samples for {triple} {cpu}")
    counts = tables.resources
    width = max(1, runs.dispatch_width)
    classes: dict[Cost, list[str]] = {}
    cost_by_opcode: dict[str, Cost] = {}
    for (opcode, code), reg, run in zip(probes.samples, tables.regions, runs.regions):
        if opcode in cost_by_opcode:  # an IR opcode spelled like an instruction: the instruction's
            continue
        if not reg.latency or not reg.pressure:
            raise SchedccError(f"llvm-mca reported nothing for '{code}' on {cpu}")
        lines = code.count("\n") + 1
        latency = reg.latency[0] if lines == 1 else max(run.cycles - 1, 0)
        cost = cost_by_opcode[opcode] = cost_of(reg.pressure[0], latency, counts)
        classes.setdefault(cost, []).append(opcode)
    for opcode, like in probes.assumed.items():  # what llvm-mca cannot model: costed like another
        if like not in cost_by_opcode:
            raise SchedccError(f"{probes.triple}.toml: [assumed] {opcode} = '{like}', which has no sample")
        classes[cost_by_opcode[like]].append(opcode)
    order = runs.regions[n]
    first_latency = tables.regions[n].latency[0]
    in_order = len(order.dispatch) > probes.order_index and order.dispatch[probes.order_index] >= first_latency
    # the second instruction of the write-back sample waits until its result comes after the first's
    wb, wb_lat = runs.regions[n + 1], tables.regions[n + 1].latency
    in_order_writeback = len(wb.dispatch) == 2 and wb.dispatch[1] + wb_lat[1] >= wb_lat[0] > wb_lat[1] + 1
    unit_names = {r: _unit_name(r) for r in counts}
    description = (f"{cpu} ({triple}) from LLVM: {width}-wide, "
                   f"{'in order' if in_order else 'out of order'}, {len(counts)} resources (imported with llvm-mca)")
    out = [f"# {cpu} ({triple}), imported from LLVM's scheduling model by llvm-mca.",
           f"#   made by: {command}",
           "# Every number is llvm-mca's (docs/targets.md, 'Models imported from LLVM'): the issue width",
           "# is its dispatch width, units are LLVM's processor resources, a class's latency is llvm-mca's",
           "# (a chain's for pseudo-instructions and IR opcodes), occupancy and 'also' the cycles",
           "# --instruction-tables says each resource is held. Edit freely: it is ordinary data.",
           "[target]",
           f"name = {_toml_str(name)}",
           *([f"aliases = [{', '.join(_toml_str(a) for a in aliases)}]"] if aliases else []),
           f"description = {_toml_str(description)}",
           f"issue_width = {width}",
           f"in_order = {'true' if in_order else 'false'}",
           f"in_order_writeback = {'true' if in_order_writeback else 'false'}"
           + ("  # llvm-mca writes results in issue order: a later instruction never completes first"
              if in_order_writeback else ""),
           'stages = ["IF", "ID", "EX", "WB"]',
           "",
           "[dependences]",
           "war_latency = 0",
           "waw_latency = 1",
           "",
           "[units]"]
    for r, count in counts.items():
        out.append(f"{unit_names[r]} = {{ count = {count}, description = {_toml_str(f'LLVM resource {r}')} }}")
    out.append(f"ISSUE = {{ count = {width}, description = "
               f"\"an issue slot, for what holds no LLVM resource\" }}")
    used: set[str] = set()
    for cost, opcodes in sorted(classes.items(), key=lambda kv: (kv[0].units, kv[0].latency, kv[1][0])):
        cname = re.sub(r"[^A-Za-z0-9_]", "_", opcodes[0]).strip("_") or "c"
        while cname in used:
            cname += "_"
        used.add(cname)
        units = [unit_names[u] for u in cost.units] or ["ISSUE"]
        out += ["", f"[classes.{cname}]",
                "opcodes = [" + ", ".join(_toml_str(o) for o in opcodes) + "]",
                "units = [" + ", ".join(_toml_str(u) for u in units) + "]",
                f"latency = {cost.latency}"]
        if cost.occupancy != 1:
            out.append(f"occupancy = {cost.occupancy}")
        if cost.also:
            out.append("also = { " + ", ".join(f"{unit_names[r]} = {c}" for r, c in cost.also) + " }")
    if probes.no_code:
        out += ["", "[classes.no_code]  # LLVM IR operations that become no instruction",
                "opcodes = [" + ", ".join(_toml_str(o) for o in probes.no_code) + "]",
                'units = ["ISSUE"]', "latency = 0"]
    return "\n".join(out) + "\n"


def _unit_name(resource: str) -> str:
    """``SiFive7PipeA`` -> ``PipeA``: LLVM prefixes every resource with its model's name."""
    short = re.sub(r"^(SiFive\d+|CortexA\d+Unit|Rocket|SiFive7|[A-Z][a-z]+\d+Unit)", "", resource)
    return short if short and short[0].isalpha() else resource


def import_llvm_model(triple: str, cpu: str, name: str | None = None, command: str = "",
                      aliases: tuple[str, ...] = ()) -> str:
    """The TOML text of a schedcc machine model of *cpu* from LLVM's scheduling model
    under *triple* (module docstring). Two llvm-mca runs over every sample."""
    import tempfile
    probes = load_probes(triple)
    with tempfile.TemporaryDirectory(prefix="schedcc-mca-") as tmp:
        tables, runs = ask_mca(triple, cpu, probes, Path(tmp))
    name = name or cpu
    command = command or f"schedcc targets import --from-llvm {triple} {cpu}"
    return build_model(triple, cpu, probes, tables, runs, name, command, tuple(aliases))

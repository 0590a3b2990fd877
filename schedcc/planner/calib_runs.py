"""The measured runs a cluster is calibrated on: ``runs.toml``, read and checked.

A calibration file names the cluster file to start from and lists measured
steps of the user's own runs: the model, the GPUs and batch, the whole
configuration (``config``, in ``--fix``'s words), what the framework did and
the measured step (``step_time_s``, or a throughput, or a profiler trace)::

    [cluster]
    name = "jeanzay-a100"         # the fitted cluster (written to a file for --target)
    base = "dgx-a100"             # the cluster file to start from: a name or a path
    [cluster.set]                 # numbers known for this cluster, not fitted
    net_bw = "6.25GB/s"

    [fit]                         # optional
    constants = ["compute", "net_efficiency"]
    on = ["a", "b"]               # the runs fitted; the others are held out

    [[runs]]
    id = "a"
    model = { layers = 70, hidden = 14336, heads = 64, seq = 2048, vocab = 250880 }
    gpus = 384
    global_batch = 2048
    config = "dp=8,tp=4,pp=12,microbatch=2,zero=1,recompute=full"
    framework = { attention = "unfused" }
    step_time_s = 102.03

Every error points at its key (``runs.toml:14:1: error: ...``): unknown keys,
numbers out of range, a configuration the planner's rules refuse, a run that
names another cluster, two runs of the same configuration whose times
disagree (:data:`CONTRADICTION`). :func:`read_runs` returns a
:class:`CalibrationInput`; :mod:`.calibrate` fits it.

Example::

    >>> text = '''[cluster]\\nname = "mine"\\nbase = "dgx-a100"\\n[[runs]]\\nid = "a"\\nmodel = "mpt-7b"
    ... gpus = 8\\nglobal_batch = 48\\nconfig = "tp=1,pp=1,microbatch=6,zero=3"\\nstep_time_s = 1.1\\n'''
    >>> inp = parse_runs(text, "runs.toml")
    >>> inp.name, [r.id for r in inp.runs], inp.runs[0].candidate.label()
    ('mine', ['a'], 'dp8 tp1 pp1 mb6 z3 rc=none')
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from schedcc.errors import SchedccError, check_range
from schedcc.ir import Loc
from schedcc.planner.frameworks import framework
from schedcc.planner.model import ModelSpec, preset
from schedcc.planner.space import Candidate, Settings, enumerate_space, parse_fix
from schedcc.training.limits import SIZES

AUTO = "auto"          # [fit] on = "auto" / --fit-on auto: the runs chosen by their sensitivities (calibrate.pick_runs)
CONTRADICTION = 0.10   # the same configuration measured twice may differ by this much (run-to-run noise)
RUN_KEYS = {"id", "model", "model_overrides", "gpus", "global_batch", "config", "framework", "step_time_s",
            "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s", "trace", "cluster", "fit", "source", "note"}
MEASURES = ("step_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s", "trace")
FRAMEWORK_KEYS = {f.name for f in fields(Settings)} - {"explicit"}


# What a file may say of the framework (a calibration run's ``framework`` table), checked as
# ``schedcc plan``'s options are (commands/plan.py reads the same ranges and choices).
ATTENTIONS = ("flash", "unfused", "triton", "eager", "cudnn")
SETTING_FLAGS = ("grad_overlap", "param_gather_overlap", "fp32_params", "tp_cross_node", "expandable_segments",
                 "tp_async_allreduce", "zero1_allreduce", "zero1_param_broadcast")
SETTING_RANGES = {
    "bucket_elements": (0, 10**10, "gradients per reduction bucket; 0: one per model chunk"),
    "grad_bytes": (2, 4, "bytes per element: 2 (bf16) or 4 (fp32)"),
    "grad_reduce_bytes": (2, 4, "bytes per element: 2 (bf16) or 4 (fp32)"),
    "optimizer_bytes": (0, 16, "optimizer state bytes per parameter"),
    "buckets": (1, 64, "graph nodes per model chunk's gradient reduction"),
}


def check_settings(given: dict) -> dict:
    """*given* framework settings (``Settings``' fields but ``explicit``) when each is of its
    kind and range: flags true or false, sizes whole numbers in :data:`SETTING_RANGES`,
    ``attention`` one of :data:`ATTENTIONS`, ``framework`` a known one; else a
    :class:`SchedccError` naming the setting. O(settings).

    >>> check_settings({"framework": "megatron", "expandable_segments": True, "grad_reduce_bytes": 2})
    {'framework': 'megatron', 'expandable_segments': True, 'grad_reduce_bytes': 2}
    >>> try:
    ...     check_settings({"grad_overlap": "yes"})
    ... except SchedccError as err:
    ...     print(err.message)
    framework setting grad_overlap must be true or false, not 'yes'
    """
    for key, value in given.items():
        if key not in FRAMEWORK_KEYS:
            raise SchedccError(f"unknown framework setting '{key}'", notes=["framework settings: "
                                                                             + ", ".join(sorted(FRAMEWORK_KEYS))])
        if key in SETTING_FLAGS and not isinstance(value, bool):
            raise SchedccError(f"framework setting {key} must be true or false, not {value!r}")
        if key in SETTING_RANGES:
            lo, hi, why = SETTING_RANGES[key]
            check_range(value, lo, hi, f"framework setting {key}", integer=True, why=why)
            if key in ("grad_bytes", "grad_reduce_bytes") and value not in (2, 4):
                raise SchedccError(f"framework setting {key} must be 2 (bf16) or 4 (fp32), not {value!r}")
        if key == "attention" and value not in ATTENTIONS:
            raise SchedccError(f"framework setting attention must be one of {', '.join(ATTENTIONS)}, not {value!r}")
        if key == "framework":
            if not isinstance(value, str):
                raise SchedccError(f"framework setting framework must be a name, not {value!r}")
            framework(value)
    return given


@dataclass(frozen=True)
class Run:
    """One measured run: what ran and how long its step took (seconds)."""

    id: str
    model: ModelSpec
    gpus: int
    global_batch: int
    candidate: Candidate
    settings: Settings
    step_time_s: float
    fit: bool | None = None       # None: the file does not say
    line: int = 0                 # where its [[runs]] table starts
    compute_share: float | None = None   # from a trace: busy compute kernels / step
    source: str = ""


@dataclass
class CalibrationInput:
    """A parsed ``runs.toml``."""

    path: str
    name: str
    base: str
    description: str
    overrides: dict[str, str]
    constants: list[str] | None
    fit_on: list[str] | None
    runs: list[Run]
    text: str = ""
    notes: list[str] = field(default_factory=list)

    def locate(self, message: str, key: str = "", run: str | None = None, table: str | None = None,
               notes: list[str] | None = None) -> SchedccError:
        """An error at *key* of the run with id *run* (or of *table*) in this file."""
        doc = _Doc(self.path, self.text)
        index = next((i for i, r in enumerate(self.runs) if r.id == run), None) if run else None
        return doc.error(message, key, index, table, notes)


class _Doc:
    """Where a key of the file is: the i-th [[runs]] table, the [cluster] and [fit] tables."""

    def __init__(self, path: str, text: str):
        self.path, self.lines = path, text.splitlines()
        self.runs = [i for i, line in enumerate(self.lines) if re.match(r"\s*\[\[\s*runs\s*\]\]", line)]

    def _block(self, start: int) -> range:
        end = next((i for i in range(start + 1, len(self.lines)) if re.match(r"\s*\[", self.lines[i])),
                   len(self.lines))
        return range(start, end)

    def loc(self, key: str, run: int | None = None, table: str | None = None) -> Loc | None:
        if run is not None and run < len(self.runs):
            block = self._block(self.runs[run])
        elif table is not None:
            head = next((i for i, line in enumerate(self.lines)
                         if re.match(r"\s*\[\s*" + re.escape(table) + r"\s*\]", line)), None)
            if head is None:
                return None
            block = self._block(head)
        else:
            return None
        for i in block:
            m = re.match(r"\s*(" + re.escape(key) + r")\s*=", self.lines[i])
            if m:
                return Loc(self.path, i + 1, m.start(1) + 1)
        return Loc(self.path, block.start + 1, 1)

    def error(self, message: str, key: str = "", run: int | None = None, table: str | None = None,
              notes: list[str] | None = None) -> SchedccError:
        loc = self.loc(key, run, table) if (key or run is not None or table) else None
        line = self.lines[loc.line - 1] if loc else None
        return SchedccError(message, loc, notes=notes or [], source_line=line,
                            width=max(1, len(key)) if key and loc and line and line[loc.col - 1:].startswith(key) else 1)


def read_runs(path: str) -> CalibrationInput:
    """Read and check the calibration file at *path* (module docstring)."""
    from schedcc.fileio import read_input
    text, name = read_input(path)
    return parse_runs(text, name)


def parse_runs(text: str, path: str = "<runs>") -> CalibrationInput:
    """Check the calibration file *text* (named *path* in errors). O(runs)."""
    doc = _Doc(path, text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        loc = Loc(path, int(m.group(1)), int(m.group(2))) if m else None
        if loc is None and "(at end of document)" in str(err):  # a file cut short: point at its end
            loc = Loc(path, max(1, len(doc.lines)), len(doc.lines[-1]) + 1 if doc.lines else 1)
        message = re.sub(r" [(]at (line|end of document).*", "", str(err))
        raise SchedccError(f"invalid TOML: {message}" if loc else f"{path}: invalid TOML: {message}", loc,
                           notes=["the file ends in the middle of a value: is it complete?"]
                           if "end of document" in str(err) else [],
                           source_line=doc.lines[loc.line - 1] if loc and loc.line <= len(doc.lines) else None) from None
    for key in data.keys() - {"cluster", "fit", "runs"}:
        raise doc.error(f"unknown table '{key}'", key, table=key,
                        notes=["a calibration file has [cluster], [fit] and [[runs]] tables (docs/planner.md)"])
    cluster = data.get("cluster")
    if not isinstance(cluster, dict) or "base" not in cluster or "name" not in cluster:
        raise doc.error("[cluster] needs 'name' (the fitted cluster) and 'base' (the cluster file to start from)",
                        table="cluster" if isinstance(cluster, dict) else None,
                        notes=['e.g. [cluster]  name = "mycluster"  base = "dgx-a100"'])
    for key in cluster.keys() - {"name", "base", "description", "set"}:
        raise doc.error(f"unknown key 'cluster.{key}'", key, table="cluster",
                        notes=["[cluster] has name, base, description and a [cluster.set] table"])
    name, base = cluster["name"], cluster["base"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise doc.error("cluster.name: a name of letters, digits, '-', '_' and '.'", "name", table="cluster")
    overrides = cluster.get("set", {})
    if not isinstance(overrides, dict):
        raise doc.error("cluster.set: expected a table of numbers (net_bw = \"6.25GB/s\")", "set", table="cluster")
    fit = data.get("fit", {})
    for key in fit.keys() - {"constants", "on"}:
        raise doc.error(f"unknown key 'fit.{key}'", key, table="fit",
                        notes=["[fit] has 'constants' (what to fit) and 'on' (the runs fitted)"])
    if fit.get("on") == AUTO:
        fit = dict(fit, on=[AUTO])
    for key in ("constants", "on"):
        if key in fit and (not isinstance(fit[key], list) or not all(isinstance(x, str) for x in fit[key])):
            raise doc.error(f"fit.{key}: expected a list of names" + (' (or "auto")' if key == "on" else ""),
                            key, table="fit")
    raw = data.get("runs")
    if not isinstance(raw, list) or not raw:
        raise SchedccError(f"{path}: no [[runs]]: a calibration needs measured runs",
                           notes=["each [[runs]] table gives a model, gpus, global_batch, config and step_time_s"])
    base_dir = Path(path).parent
    runs = [_run(doc, i, r, base_dir, name) for i, r in enumerate(raw)]
    ids = [r.id for r in runs]
    for i, r in enumerate(runs):
        if ids.index(r.id) != i:
            raise doc.error(f"run id '{r.id}' is used twice (first at line {runs[ids.index(r.id)].line})", "id", i)
    _contradictions(doc, runs)
    for key in ("on",):
        for rid in fit.get(key, []):
            if rid not in ids and fit[key] != [AUTO]:
                raise doc.error(f"fit.on names '{rid}', which is no run's id", "on", table="fit",
                                notes=["runs: " + ", ".join(ids)])
    return CalibrationInput(path, name, base, str(cluster.get("description", "")),
                            {k: str(v) for k, v in overrides.items()}, fit.get("constants"), fit.get("on"),
                            runs, text)


def _run(doc: _Doc, i: int, r: dict, base_dir: Path, cluster_name: str) -> Run:
    if not isinstance(r, dict):
        raise doc.error("a [[runs]] entry must be a table", run=i)
    for key in r.keys() - RUN_KEYS:
        raise doc.error(f"unknown key '{key}' in a run", key, i, notes=["keys: " + ", ".join(sorted(RUN_KEYS))])
    rid = r.get("id")
    if not isinstance(rid, str) or not rid:
        raise doc.error("every run needs an 'id' (a name the report uses)", "id", i)
    if "cluster" in r and r["cluster"] != cluster_name:
        raise doc.error(f"run '{rid}' was measured on '{r['cluster']}', not on '{cluster_name}'", "cluster", i,
                        notes=["a calibration fits one cluster: move the runs of another cluster to their own file"])
    for key in ("model", "gpus", "global_batch", "config"):
        if key not in r:
            raise doc.error(f"run '{rid}' has no '{key}'", run=i,
                            notes=["a run gives model, gpus, global_batch, config and its measured step"])
    try:
        model = _model(r)
    except SchedccError as err:
        raise doc.error(f"run '{rid}': {err.message}", "model", i, notes=err.notes) from None
    nums = {}
    for key in ("gpus", "global_batch"):
        lim = SIZES[key]
        try:
            nums[key] = check_range(r[key], lim.lo, lim.hi, key, integer=True, why=lim.why)
        except SchedccError as err:
            raise doc.error(f"run '{rid}': {err.message}", key, i) from None
    if not isinstance(r["config"], str):
        raise doc.error(f"run '{rid}': config is the configuration in --fix's words, e.g. \"tp=8,pp=4,microbatch=1\"",
                        "config", i)
    fw = r.get("framework", {})
    if not isinstance(fw, dict):
        raise doc.error(f"run '{rid}': framework is a table of settings", "framework", i,
                        notes=["framework settings: " + ", ".join(sorted(FRAMEWORK_KEYS))])
    try:
        check_settings(fw)
    except SchedccError as err:
        raise doc.error(f"run '{rid}': {err.message}", "framework", i, notes=err.notes) from None
    try:
        settings = Settings(**fw)
        cand = _candidate(model, nums["gpus"], nums["global_batch"], r["config"], settings)
    except (SchedccError, TypeError) as err:
        msg = err.message if isinstance(err, SchedccError) else str(err)
        raise doc.error(f"run '{rid}': {msg}", "config", i, notes=getattr(err, "notes", [])) from None
    given = [k for k in MEASURES if k in r]
    if len(given) != 1:
        raise doc.error(f"run '{rid}' needs exactly one measurement: {', '.join(MEASURES)}"
                        + (f" (it gives {', '.join(given)})" if given else ""), given[-1] if given else "", i)
    key = given[0]
    share = None
    if key == "trace":
        step, share = read_trace(str(base_dir / str(r["trace"])))
    else:
        if not isinstance(r[key], (int, float)) or isinstance(r[key], bool):
            raise doc.error(f"run '{rid}': {key} must be a positive number", key, i)
        try:
            value = check_range(r[key], 0, 1e12, key, above=True, why="a measured time or rate")
        except SchedccError as err:
            raise doc.error(f"run '{rid}': {err.message}", key, i) from None
        tokens = nums["global_batch"] * model.seq
        step = {"step_time_s": value, "tokens_per_s": tokens / value,
                "tokens_per_s_per_gpu": tokens / (value * nums["gpus"]),
                "samples_per_s": nums["global_batch"] / value}[key]
    if "fit" in r and not isinstance(r["fit"], bool):
        raise doc.error(f"run '{rid}': fit is true or false", "fit", i)
    return Run(rid, model, nums["gpus"], nums["global_batch"], cand, settings, step, r.get("fit"),
               doc.runs[i] + 1 if i < len(doc.runs) else 0, share, str(r.get("source", "")))


def _model(r: dict) -> ModelSpec:
    m, over = r["model"], r.get("model_overrides", {})
    if not isinstance(over, dict):
        raise SchedccError("model_overrides must be a table of sizes")
    if isinstance(m, str):
        return preset(m, **over)
    if not isinstance(m, dict):
        raise SchedccError("model is a preset name (\"llama3-8b\") or a table of sizes")
    known = {f.name for f in fields(ModelSpec)} - {"name"}
    if (m.keys() | over.keys()) - known:
        raise SchedccError(f"unknown model size '{sorted((m.keys() | over.keys()) - known)[0]}'",
                           notes=["sizes: " + ", ".join(sorted(known))])
    spec = ModelSpec(name=str(r.get("id", "model")), **{**m, **over})
    spec.check()
    return spec


def _candidate(model: ModelSpec, gpus: int, batch: int, config: str, settings: Settings) -> Candidate:
    """The one configuration *config* names, defaults filled in as a run of that software had
    them (1F1B with pp > 1, no ZeRO, no recomputation, no sequence parallelism, no overlap),
    checked by the planner's rules, its layers laid out as the run's framework (*settings*) lays
    them out: even stages where it has no uneven ones (``uneven_stages = false``: DeepSpeed's
    pipeline engine, whose Megatron-DeepSpeed models partition by ``type:transformer``), else
    the trim :func:`~.score.choose_trim` picks, unless *config* gives one."""
    fix = parse_fix(config)
    if "dp" not in fix and not all(k in fix for k in ("tp", "pp")):
        raise SchedccError("config must give tp and pp (and dp when cp is not 1)",
                           notes=["e.g. config = \"tp=8,pp=4,microbatch=1,zero=1,recompute=full\""])
    pp = fix.get("pp", 1)
    full = {"cp": 1, "virtual": 1, "microbatch": 1, "zero": 0, "recompute": "none", "sp": False,
            "overlap": "none", "schedule": ("interleaved" if fix.get("virtual", 1) > 1 else "1f1b") if pp > 1
            else "none", **fix}
    if "dp" not in full:
        full["dp"] = gpus // (full["tp"] * full["pp"] * full["cp"])
    if "trim" not in full and not framework(settings.framework).uneven_stages:
        full["trim"] = 0
    try:
        space = enumerate_space(model, gpus, batch, 1 << 30, full, attention=settings.attention)
    except SchedccError as err:   # the rule that refused it, in the words of this file
        raise SchedccError(f"config '{config}' breaks the planner's rules: "
                           + (err.notes[0] if err.notes else err.message),
            notes=["config gives the run's configuration as --fix does (docs/planner.md)"]) from None
    if len(space.candidates) != 1:
        raise SchedccError(f"config '{config}' leaves {len(space.candidates)} configurations, not one")
    return space.candidates[0]


def _contradictions(doc: _Doc, runs: list[Run]) -> None:
    """Two runs of the same model, GPUs, batch, configuration and framework must agree."""
    seen: dict = {}
    for i, r in enumerate(runs):
        key = (replace(r.model, name=""), r.gpus, r.global_batch, r.candidate, r.settings)
        if key in seen:
            j = seen[key]
            a, b = runs[j].step_time_s, r.step_time_s
            if abs(math.log(b / a)) > math.log1p(CONTRADICTION):
                raise doc.error(f"runs '{runs[j].id}' and '{r.id}' are the same configuration but their steps "
                                f"differ by {max(a, b) / min(a, b) - 1:.0%} ({a:.4g} s and {b:.4g} s)", "id", i,
                                notes=[f"the same configuration on one cluster should repeat within "
                                       f"{CONTRADICTION:.0%}; check that both ran on this cluster with the same "
                                       "software, or keep the one you trust"])
        else:
            seen[key] = i


def read_trace(path: str) -> tuple[float, float | None]:
    """(mean step seconds, compute share or None) of a PyTorch profiler (Chrome) trace:
    steps are the ``ProfilerStep#N`` spans (the first is dropped when there are more than
    two: warm-up); the compute share is the time GPU kernels other than communication
    (``nccl``/``hccl``/``rccl``) run, over the steps, when the trace has kernels. O(events)."""
    from schedcc.fileio import read_input
    try:
        data = json.loads(read_input(path)[0])
    except json.JSONDecodeError as err:
        raise SchedccError(f"{path}:{err.lineno}:{err.colno}: error: not a JSON trace: {err.msg}") from None
    events = data.get("traceEvents", data) if isinstance(data, dict) else data
    if not isinstance(events, list):
        raise SchedccError(f"{path}: no traceEvents list: not a PyTorch profiler trace")
    steps = sorted((e for e in events if isinstance(e, dict) and e.get("ph") == "X"
                    and str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e.get("ts", 0))
    if not steps:
        raise SchedccError(f"{path}: the trace has no ProfilerStep#N spans",
                           notes=["profile with torch.profiler.profile(schedule=...) and call prof.step() "
                                  "once per training step"])
    if len(steps) > 2:
        steps = steps[1:]
    total = sum(float(e["dur"]) for e in steps)
    step = total / len(steps) / 1e6
    if not step > 0:
        raise SchedccError(f"{path}: its ProfilerStep spans last no time")
    lo, hi = steps[0]["ts"], steps[-1]["ts"] + steps[-1]["dur"]
    kernels = [e for e in events if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") == "kernel"
               and lo <= e.get("ts", -1) < hi]
    if not kernels:
        return step, None
    from schedcc.training.intervals import union_length
    comm = re.compile(r"nccl|hccl|rccl|allreduce|allgather|reducescatter", re.I)
    busy = union_length([(float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0))) for e in kernels
                         if not comm.search(str(e.get("name", "")))])
    return step, min(1.0, busy / total)


def with_runs(inp: CalibrationInput, runs: list[Run]) -> CalibrationInput:
    return replace(inp, runs=runs)

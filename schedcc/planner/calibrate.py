"""Calibration: fit a cluster's shared constants to measured runs of the user's own cluster.

The planner prices a step from a cluster file (``targets/dgx-a100.toml``): the
device's datasheet numbers and a few shared constants that no datasheet gives
(what fraction of peak a GEMM, a fused attention kernel and a streaming
kernel reach, what fraction of link bandwidth a collective reaches inside a
node and between nodes, the latency of a ring step, how much compute slows
under communication). On a cluster that is not the one a file was made for,
those constants are guesses. :func:`calibrate` takes measured steps of a few
runs (:mod:`.calib_runs`), predicts each with the planner's own scorer
(:func:`schedcc.planner.score.score`: the same two scheduled levels a plan
uses, memory not checked: the run ran), and fits the constants asked
(:data:`KNOBS`) by bounded nonlinear least squares on the log of the step
times (:func:`schedcc.planner.calib_fit.solve`: a coarse grid over the
constants' ranges, then ``scipy.optimize.least_squares`` from the best points,
trust-region reflective, finite differences: the step time is a schedule's
length, piecewise smooth in the constants and flat where a cost is hidden, so
the fit must not hang on its start). Runs not fitted are held out and predicted with the fitted
constants: their errors and the Kendall rank correlation of predicted and
measured steps (``scipy.stats.kendalltau``) say how far the fit carries.

Which constants: ``compute`` scales the three kernel efficiencies together
(their ratios stay the base file's); the others are single keys. Unasked,
:func:`choose_constants` takes, in the order of :data:`PREFERENCE`, the ones
the fitted runs are sensitive to (made four times worse, the constant moves
some fitted step by at least :data:`MIN_SENSITIVITY` of a log step per log unit) and that are not a
combination of those already taken, at most one per fitted run. A fit is
*unstable* when a constant ends at its bound or the fitted runs cannot tell
two constants apart (the smallest singular value of the sensitivity matrix
below :data:`MIN_SENSITIVITY`); the result says so with the residuals.

Which runs: ``fit on = "auto"`` lets :func:`pick_runs` choose them, the
best-conditioned subset for the constants asked, from the configurations
alone (the measured steps are not looked at, so the others stay held out).

Example::

    >>> from schedcc.planner.calib_runs import parse_runs
    >>> runs = '''[cluster]\\nname = "slow-a100"\\nbase = "dgx-a100"
    ... [[runs]]\\nid = "a"\\nmodel = { layers = 4, hidden = 1024, heads = 16, seq = 1024, vocab = 32000 }
    ... gpus = 8\\nglobal_batch = 16\\nconfig = "tp=2,pp=1,microbatch=2"\\nstep_time_s = 0.02\\n'''
    >>> fit = calibrate(parse_runs(runs, "runs.toml"))
    >>> fit.constants[0].name, round(fit.rows[0].predicted / 0.02, 2)
    ('compute', 1.0)
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field, replace
from schedcc.errors import SchedccError
from schedcc.target import Target, load_target
from schedcc.training.costs import PLANNER_CLUSTERS, Cluster, apply_overrides, cluster_of

MIN_SENSITIVITY = 0.02       # d log(step) / d log(constant) below this: the runs cannot see the constant
EFFICIENCIES = ("gemm_efficiency", "attention_efficiency", "memory_efficiency")
AUTO = "auto"                # fit on = "auto": the runs chosen by pick_runs
AUTO_RUNS = 2                # how many runs fit on auto fits (more when more constants are asked)
PICK_EXACT = 20_000          # pick_runs tries every subset up to this many, else picks greedily


@dataclass(frozen=True)
class Knob:
    """A constant the fit can move: the ``[cluster]`` keys it sets, its range, whether it is
    fitted on a log scale, and what it means."""

    name: str
    keys: tuple[str, ...]
    lo: float
    hi: float
    log: bool
    what: str

    def value(self, c: Cluster, base: Cluster) -> float:
        if self.name == "compute":
            return c.gemm_efficiency / base.gemm_efficiency if base.gemm_efficiency else 1.0
        v = getattr(c, self.keys[0])
        if self.name == "net_efficiency" and not v:
            return c.comm_efficiency
        if self.name == "attention_efficiency" and not v:
            return c.gemm_efficiency
        return v

    def put(self, c: Cluster, v: float, base: Cluster) -> Cluster:
        if self.name == "compute":   # an efficiency fitted on its own is set after this one
            return replace(c, **{k: min(1.0, (getattr(base, k) or base.gemm_efficiency) * v) for k in EFFICIENCIES})
        return replace(c, **{self.keys[0]: v})

    def bounds(self, base: Cluster) -> tuple[float, float]:
        if self.name == "compute":
            top = max((getattr(base, k) or base.gemm_efficiency) for k in EFFICIENCIES)
            return self.lo, min(self.hi, 1.0 / top) if top else self.hi
        return self.lo, self.hi


KNOBS: dict[str, Knob] = {k.name: k for k in (
    Knob("compute", EFFICIENCIES, 0.01, 100.0, True,
         "scales the GEMM, attention and streaming-kernel efficiencies together"),
    Knob("gemm_efficiency", ("gemm_efficiency",), 0.01, 1.0, True, "fraction of peak a full wave of GEMM tiles reaches"),
    Knob("attention_efficiency", ("attention_efficiency",), 0.01, 1.0, True,
         "fraction of peak a fused attention kernel reaches"),
    Knob("memory_efficiency", ("memory_efficiency",), 0.01, 1.0, True, "fraction of hbm_bw streaming kernels reach"),
    Knob("comm_efficiency", ("comm_efficiency",), 0.005, 1.0, True,
         "fraction of link bandwidth collectives reach inside a node"),
    Knob("net_efficiency", ("net_efficiency",), 0.005, 1.0, True,
         "fraction of network bandwidth collectives reach between nodes"),
    Knob("link_latency", ("link_latency",), 1e-7, 1e-2, True, "seconds per ring step inside a node"),
    Knob("net_latency", ("net_latency",), 1e-7, 1e-2, True, "seconds per ring step between nodes"),
    Knob("contention", ("contention",), 0.0, 2.0, False, "compute slowdown per unit of overlapping communication"),
    Knob("launch_overhead", ("launch_overhead",), 1e-7, 1e-3, True, "seconds added to every kernel"),
)}
PREFERENCE = ("compute", "net_efficiency", "comm_efficiency", "attention_efficiency", "memory_efficiency",
              "contention", "net_latency", "link_latency", "launch_overhead")


@dataclass(frozen=True)
class Fitted:
    """One fitted constant: its value in the base file and after the fit (for ``compute``,
    the factor; :attr:`keys` has the efficiencies it set)."""

    name: str
    base: float
    value: float
    at_bound: bool
    keys: dict[str, tuple[float, float]]   # cluster key -> (base, fitted)


@dataclass(frozen=True)
class RunResult:
    """A run's measured step against the fitted and the base cluster's prediction."""

    id: str
    fitted: bool
    measured: float
    predicted: float
    base_predicted: float
    label: str
    memory_note: str = ""

    @property
    def error(self) -> float:
        """Predicted throughput over measured, minus 1 (positive: the model is optimistic)."""
        return self.measured / self.predicted - 1

    @property
    def base_error(self) -> float:
        return self.measured / self.base_predicted - 1


@dataclass
class Calibration:
    """The fit: constants, the fitted cluster, every run's residual, held-out summary."""

    name: str
    base: str
    base_path: str
    constants: list[Fitted]
    cluster: Cluster
    rows: list[RunResult]
    unstable: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evaluations: int = 0
    cpu_s: float = 0.0
    overrides: dict[str, str] = field(default_factory=dict)
    source: str = ""

    @property
    def held_out(self) -> list[RunResult]:
        return [r for r in self.rows if not r.fitted]

    def summary(self) -> dict:
        """Held-out median and worst |error|, Kendall tau of held-out and of all runs, and the
        same for the base cluster (None where fewer than two runs)."""
        held = self.held_out
        out: dict = {"fitted": [r.id for r in self.rows if r.fitted], "held_out": [r.id for r in held]}
        for key, rows in (("held_out", held), ("all", self.rows)):
            errs = [abs(r.error) for r in rows]
            base = [abs(r.base_error) for r in rows]
            out[key + "_median_error"] = statistics.median(errs) if errs else None
            out[key + "_worst_error"] = max(errs) if errs else None
            out[key + "_base_median_error"] = statistics.median(base) if base else None
            out[key + "_tau"] = kendall([r.measured for r in rows], [r.predicted for r in rows])
            out[key + "_base_tau"] = kendall([r.measured for r in rows], [r.base_predicted for r in rows])
        return out


def kendall(a: list[float], b: list[float]) -> float | None:
    """Kendall's tau-b of two lists (``scipy.stats.kendalltau``); None below two items or
    when one list is constant."""
    if len(a) < 2:
        return None
    from scipy.stats import kendalltau
    tau = kendalltau(a, b).statistic
    return None if tau is None or math.isnan(tau) else float(tau)


def base_cluster(inp) -> tuple[Cluster, Target]:
    """The cluster a calibration starts from: the base file with ``[cluster.set]`` applied."""
    target = load_target(inp.base)
    if target.domain != "cluster":
        raise SchedccError(f"{inp.path}: base '{inp.base}' is not a cluster model",
                           notes=["the planner's cluster models: " + ", ".join(PLANNER_CLUSTERS)])
    try:
        target = apply_overrides(target, inp.overrides)
    except SchedccError as err:
        key = next((k for k in inp.overrides if k in err.message), "")
        if not hasattr(inp, "locate"):
            raise
        raise inp.locate(err.message.replace("--set", "cluster.set").replace("--set:", "cluster.set:"),
                         key, table="cluster.set", notes=err.notes) from None
    c = cluster_of(target)
    if not c.memory_capacity or not c.compute_units:
        raise SchedccError(f"{inp.path}: base '{inp.base}' lacks the planner's fields (memory_capacity, compute_units)",
                           notes=[f"start from {', '.join(PLANNER_CLUSTERS[:-1])} or {PLANNER_CLUSTERS[-1]}"])
    return c, target


class _Predictor:
    """Step times of runs on a cluster (memory not checked); counts its evaluations."""

    def __init__(self):
        self.count = 0

    def __call__(self, run, cluster: Cluster):
        from schedcc.planner.score import Context, score
        self.count += 1
        ctx = Context(run.model, replace(cluster, memory_capacity=1e18), run.gpus, run.global_batch, run.settings)
        s = score(run.candidate, ctx)
        busy = s.breakdown.get("compute", 0.0) + s.breakdown.get("recompute", 0.0)
        return s.step_time_s, busy / s.step_time_s


def _residuals(runs, cluster: Cluster, predict) -> list[float]:
    out = []
    for r in runs:
        step, share = predict(r, cluster)
        out.append(math.log(step / r.step_time_s))
        if r.compute_share:
            out.append(math.log(max(share, 1e-6) / r.compute_share))
    return out


def sensitivities(runs, cluster: Cluster, names, predict, step: float = 0.05) -> dict[str, list[float]]:
    """d log(step) / d log(constant) of each run for each constant *names* (linear constants:
    per unit), by a difference of *step* in the direction that slows a step (efficiencies
    down, latencies and contention up: a constant whose cost is hidden under compute at the
    base value shows only when it grows). O(runs x constants) evaluations."""
    base = [math.log(predict(r, cluster)[0]) for r in runs]
    out = {}
    for name in names:
        k = KNOBS[name]
        v = k.value(cluster, cluster)
        lo, hi = k.bounds(cluster)
        slower = -1.0 if name.endswith("efficiency") or name == "compute" else 1.0
        if k.log:
            nv = min(max(max(v, k.lo) * math.exp(slower * step), lo), hi)
            d = math.log(nv / max(v, k.lo))
        else:
            nv = min(max(v + slower * step, lo), hi)
            d = nv - v
        if not d:
            out[name] = [0.0] * len(runs)
            continue
        moved = k.put(cluster, nv, cluster)
        out[name] = [(math.log(predict(r, moved)[0]) - b) / d for r, b in zip(runs, base)]
    return out


def choose_constants(runs, cluster: Cluster, predict) -> list[str]:
    """The constants the fitted *runs* can identify (module docstring), at most one per run."""
    import numpy as np
    sens = sensitivities(runs, cluster, PREFERENCE, predict, step=math.log(4))
    chosen: list[str] = []
    for name in PREFERENCE:
        if len(chosen) >= len(runs):
            break
        col = sens[name]
        if max(abs(x) for x in col) < MIN_SENSITIVITY:
            continue
        m = np.array([sens[c] for c in chosen + [name]]).T
        if np.linalg.svd(m, compute_uv=False).min() >= MIN_SENSITIVITY:
            chosen.append(name)
    return chosen or ["compute"]


def pick_runs(runs, cluster: Cluster, names: list[str], predict, count: int = AUTO_RUNS) -> list:
    """The *count* runs (at least one per constant) whose sensitivities to the constants
    *names* are best conditioned: the largest smallest singular value of their
    runs x constants matrix (:func:`sensitivities`, each constant made four times worse), so
    that the fit can tell the constants apart. Only the configurations are looked at, never
    the measured steps: the runs left out stay held out. Ties: the earlier runs of the file.
    O(runs x constants) evaluations and O(C(runs, count)) small SVDs (greedy beyond
    :data:`PICK_EXACT` subsets)."""
    import itertools
    import numpy as np
    count = min(len(runs), max(count, len(names)))
    sens = sensitivities(runs, cluster, names, predict, step=math.log(4))
    rows = np.array([[sens[n][i] for n in names] for i in range(len(runs))])

    def cond(idx) -> float:
        return float(np.linalg.svd(rows[list(idx)], compute_uv=False).min())

    if math.comb(len(runs), count) <= PICK_EXACT:
        best = max(itertools.combinations(range(len(runs)), count), key=lambda idx: (cond(idx), [-i for i in idx]))
    else:
        best = []
        for _ in range(count):
            rest = [i for i in range(len(runs)) if i not in best]
            best.append(max(rest, key=lambda i: (cond(best + [i]) if len(best) + 1 >= len(names)
                                                 else float(np.linalg.norm(rows[best + [i]])), -i)))
    return [runs[i] for i in sorted(best)]


def fitted_runs(inp, fit_on: list[str] | None):
    """(fitted, held out): *fit_on* if given, else ``[fit] on``, else the runs marked
    ``fit = true``, else every run not marked ``fit = false``. ``["auto"]`` is resolved
    by :func:`calibrate` (:func:`pick_runs`)."""
    ids = [r.id for r in inp.runs]
    on = fit_on or inp.fit_on
    if on:
        unknown = [x for x in on if x not in ids]
        if unknown:
            raise SchedccError(f"--fit-on names '{unknown[0]}', which is no run of {inp.path}",
                               notes=["runs: " + ", ".join(ids)])
        chosen = set(on)
    elif any(r.fit for r in inp.runs):
        chosen = {r.id for r in inp.runs if r.fit}
    else:
        chosen = {r.id for r in inp.runs if r.fit is not False}
    fit = [r for r in inp.runs if r.id in chosen]
    return fit, [r for r in inp.runs if r.id not in chosen]


def calibrate(inp, constants: list[str] | None = None, fit_on: list[str] | None = None) -> Calibration:
    """Fit the constants (*constants*, else ``[fit] constants``, else :func:`choose_constants`)
    to the fitted runs of *inp* (a :class:`~schedcc.planner.calib_runs.CalibrationInput`) and
    predict every run with the result. O(iterations x constants x fitted runs) step
    evaluations, each one candidate scored (about 0.01-0.1 s)."""
    import numpy as np
    from schedcc.planner.calib_fit import solve
    t0 = time.process_time()
    base, target = base_cluster(inp)
    predict = _Predictor()
    auto = (fit_on or inp.fit_on) == [AUTO]
    if auto:
        _check_peak(inp, base)
        names = list(constants or inp.constants
                     or choose_constants(inp.runs, base, predict)[:AUTO_RUNS])
        _check_names(inp, names, inp.runs)
        picked = {r.id for r in pick_runs(inp.runs, base, names, predict)}
        fit, held = fitted_runs(inp, [r.id for r in inp.runs if r.id in picked])
    else:
        fit, held = fitted_runs(inp, fit_on)
    if not fit:
        raise SchedccError(f"{inp.path}: no run is fitted", notes=["mark some runs fit = true, or give --fit-on"])
    _check_peak(inp, base)
    if not auto:
        names = list(constants or inp.constants or choose_constants(fit, base, predict))
    _check_names(inp, names, fit)
    knobs = sorted((KNOBS[n] for n in names), key=lambda k: k.name != "compute")   # compute first
    names = [k.name for k in knobs]

    def to_x(k: Knob, v: float) -> float:
        return math.log(v) if k.log else v

    def from_x(k: Knob, x: float) -> float:
        return math.exp(x) if k.log else x

    def cluster_at(xs) -> Cluster:
        c = base
        for k, x in zip(knobs, xs):
            c = k.put(c, from_x(k, x), base)
        return c

    lo = [to_x(k, k.bounds(base)[0]) for k in knobs]
    hi = [to_x(k, k.bounds(base)[1]) for k in knobs]
    x0 = [min(max(to_x(k, max(k.value(base, base), k.lo) if k.log else k.value(base, base)), a), b)
          for k, a, b in zip(knobs, lo, hi)]
    def fun(xs):
        return np.array(_residuals(fit, cluster_at(xs), predict))

    res = solve(fun, x0, lo, hi)
    fitted_cluster = cluster_at(res.x)
    out_constants, unstable = [], []
    for k, x, a, b in zip(knobs, res.x, lo, hi):
        at_bound = bool(min(x - a, b - x) < 1e-3 * max(1.0, abs(b - a)))
        if k.name == "compute":   # its own scale: an efficiency fitted on its own may override one it set
            own = k.put(base, from_x(k, x), base)
            keys = {key: (getattr(base, key), getattr(own, key)) for key in k.keys}
            value = from_x(k, x)
        else:
            keys = {key: (getattr(base, key), getattr(fitted_cluster, key)) for key in k.keys}
            value = k.value(fitted_cluster, base)
        out_constants.append(Fitted(k.name, k.value(base, base), value, at_bound, keys))
        if at_bound:
            unstable.append(f"{k.name} ended at its bound ({from_x(k, x):.4g}): the runs ask for a value "
                            f"outside {from_x(k, a):.4g}..{from_x(k, b):.4g}")
    jac = np.atleast_2d(res.jac)
    if jac.size and len(knobs) > 1:
        sv = np.linalg.svd(jac, compute_uv=False)
        if sv.min() < MIN_SENSITIVITY:
            unstable.append(f"the fitted runs cannot tell {', '.join(names)} apart (smallest singular value of "
                            f"their sensitivities {sv.min():.3g} < {MIN_SENSITIVITY}): fit runs that differ in "
                            "what the constants price, or fit fewer constants")
    elif jac.size and abs(jac).max() < MIN_SENSITIVITY:
        unstable.append(f"no fitted run is sensitive to {names[0]}")
    rows = []
    for r in inp.runs:
        step = predict(r, fitted_cluster)[0]
        base_step = predict(r, base)[0]
        rows.append(RunResult(r.id, r in fit, r.step_time_s, step, base_step, r.candidate.label(),
                              _memory_note(r, fitted_cluster)))
    fitted_res = [abs(x.error) for x in rows if x.fitted]
    notes = []
    if len(res.fun) > len(knobs) and fitted_res and max(fitted_res) > 0.10:
        notes.append(f"the fitted runs are not all reproduced (worst {max(fitted_res):.0%}): "
                     "they disagree about the constants, or the model misses what differs between them")
    if auto:
        notes.append(f"fitted runs chosen by their sensitivities to {', '.join(names)} (fit on auto: the "
                     f"best-conditioned {len(fit)}; measured steps not looked at): {', '.join(r.id for r in fit)}")
    if not held:
        notes.append("no run is held out: every error shown is a fitted one; mark some runs fit = false "
                     "(or give --fit-on) to see how the fit predicts runs it has not seen")
    return Calibration(inp.name, inp.base, target.path, out_constants, fitted_cluster, rows, unstable, notes,
                       predict.count, time.process_time() - t0, dict(inp.overrides),
                       getattr(inp, "path", ""))


def _check_names(inp, names: list[str], fit) -> None:
    for n in names:
        if n not in KNOBS:
            import difflib
            close = difflib.get_close_matches(n, list(KNOBS), n=1)
            raise SchedccError(f"unknown constant '{n}'", notes=([f"did you mean {close[0]}?"] if close else [])
                               + ["constants: " + ", ".join(KNOBS)])
    if len(set(names)) != len(names):
        raise SchedccError(f"a constant is asked twice: {', '.join(names)}")
    if "compute" in names and set(EFFICIENCIES) <= set(names):
        raise SchedccError("'compute' scales the three efficiencies, which are all fitted on their own",
                           notes=["fit compute, or the efficiencies one by one"])
    observations = sum(1 + bool(r.compute_share) for r in fit)
    if observations < len(names):
        raise SchedccError(f"too few runs for the constants asked: {len(names)} constants "
                           f"({', '.join(names)}) need at least {len(names)} fitted runs; {inp.path} fits "
                           f"{len(fit)} ({', '.join(r.id for r in fit)})",
                           notes=["add measured runs, fit fewer constants, or give a profiler trace "
                                  "(each trace also measures its compute share)"])


def _check_peak(inp, base: Cluster) -> None:
    """A run faster than the cluster's peak was not measured on it."""
    bad = []
    for r in inp.runs:
        mfu = r.model.model_flops(r.global_batch) / r.step_time_s / r.gpus / base.peak_flops
        if mfu > 1.0:
            bad.append(f"{r.id} ({mfu:.0%} of peak)")
    if bad:
        raise SchedccError(f"{inp.path}: runs faster than the peak of '{inp.base}' allow: {', '.join(bad)}",
                           notes=["they ran on another cluster, or the step time, GPUs or batch are wrong "
                                  "(model FLOPs / (step x GPUs x peak) must stay below 100%)"])


def _memory_note(run, cluster: Cluster) -> str:
    from schedcc.planner.score import Context, score
    s = score(run.candidate, Context(run.model, cluster, run.gpus, run.global_batch, run.settings))
    if s.feasible or not s.reason or "memory" not in s.reason:
        return ""
    return f"the memory model refuses it ({s.reason}), yet it ran"


def predict_steps(runs, cluster: Cluster) -> list[float]:
    """The planner's step time of each run on *cluster* (memory not checked). O(runs)."""
    p = _Predictor()
    return [p(r, cluster)[0] for r in runs]


"""Named pipeline-parallel schedules: GPipe, 1F1B, interleaved 1F1B, ZB-H1, ZB-H2, DualPipeV, auto.

Each schedule is a list of actions per rank (:mod:`.pipeline_graph`), timed
by the list scheduler on the action graph. GPipe, 1F1B and interleaved 1F1B
are the published orders; ZB-H1 and ZB-H2 are built the way the zero-bubble
paper's heuristic does: the list scheduler runs the F, I (input gradient) and
W (weight gradient) actions of every rank with priority I > F > W, and a
per-rank limit on microbatches in flight, written as edges ``I(m) ->
F(m + limit)`` (1F1B's limit for ZB-H1, about twice it for ZB-H2); the W
actions then fill what would be bubbles. ``auto`` tries every schedule (and
interleaving depth, and a zero-bubble schedule with exactly the in-flight
microbatches the memory limit allows) and keeps the lowest bubble that fits.

With uniform stage times and free communication: GPipe and 1F1B leave a
bubble fraction of (p-1)/(m+p-1), interleaved (p-1)/(v m + p-1), ZB-H1 about
a third of 1F1B's bubble time at the same memory, ZB-H2 close to none with
twice the memory. DualPipeV (DeepSeek's DualPipe cut in half, the lists
``torch.distributed.pipelining.ScheduleDualPipeV`` builds) puts stages ``r``
and ``2p-1-r`` on rank ``r`` (a V) and pairs a forward of one with a full
backward of the other in ``OVERLAP_F_B`` composites; its bubble is
DeepSeek's ``(p-1)(F&B + B - 3W)`` per rank for stage costs F, B, W and a
composite taking F&B (``F + B`` unless ``--unit-costs FB=``).

Example::

    >>> r = evaluate_named("1f1b", stages=4, microbatches=8)
    >>> round(r.bubble_fraction, 4) == round(3 / 11, 4)
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.errors import SchedccError
from schedcc.training.pipeline_graph import Action, Evaluation, StageCosts, build_graph, evaluate, measure, schedule_graph

SCHEDULES = ("gpipe", "1f1b", "interleaved", "zb-h1", "zb-h2", "dualpipev")


def gpipe(p: int, m: int) -> list[list[Action]]:
    """All forwards, then all backwards."""
    return [[Action("F", r, i) for i in range(m)] + [Action("B", r, i) for i in range(m)] for r in range(p)]


def one_f_one_b(p: int, m: int) -> list[list[Action]]:
    """1F1B (PipeDream-Flush): p-r-1 warm-up forwards, then one forward one backward."""
    lists = []
    for r in range(p):
        warm = min(p - r - 1, m)
        acts = [Action("F", r, i) for i in range(warm)]
        for i in range(m - warm):
            acts += [Action("F", r, warm + i), Action("B", r, i)]
        acts += [Action("B", r, i) for i in range(m - warm, m)]
        lists.append(acts)
    return lists


def interleaved(p: int, m: int, v: int) -> list[list[Action]]:
    """Megatron-LM's interleaved 1F1B: rank r holds stages r, r+p, ..., r+(v-1)p.

    Needs m to be a multiple of p (as Megatron does)."""
    if v < 1:
        raise SchedccError(f"--virtual must be at least 1, got {v}")
    if m % p:
        raise SchedccError(f"interleaved 1F1B needs the microbatches ({m}) to be a multiple of the stages ({p})",
                           notes=[f"try --microbatches {m + (p - m % p)}"])
    total = m * v

    def fwd(k: int) -> tuple[int, int]:
        chunk = (k // p) % v
        return chunk, (k // (p * v)) * p + k % p

    def bwd(k: int) -> tuple[int, int]:
        chunk, mb = fwd(k)
        return v - 1 - chunk, mb

    lists = []
    for r in range(p):
        warm = min((p - r - 1) * 2 + (v - 1) * p, total)
        acts = []
        for k in range(warm):
            c, mb = fwd(k)
            acts.append(Action("F", c * p + r, mb))
        for i in range(total - warm):
            c, mb = fwd(warm + i)
            acts.append(Action("F", c * p + r, mb))
            c, mb = bwd(i)
            acts.append(Action("B", c * p + r, mb))
        for i in range(total - warm, total):
            c, mb = bwd(i)
            acts.append(Action("B", c * p + r, mb))
        lists.append(acts)
    return lists


def dualpipev(p: int, m: int) -> list[list[Action]]:
    """DualPipeV on *p* ranks (2p stages, rank r holds r and 2p-1-r) for *m* >= 2p microbatches.

    Per rank, in order (a = stage r going down the V, b = stage 2p-1-r coming back):
    2(p-r-1) forwards of a; r+1 pairs F(a) F(b); p-r-1 times I(b), the oldest
    pending W, F(b); the steady state of m-2p+r+1 rounds (F(a);B(b)) and
    (F(b);B(a)) composites (the last rank runs its first F(a) and B(b) apart);
    p-r-1 rounds B(b), (F(b);B(a)); r+1 rounds of backwards of b and a, the
    second half of them split into I and W (zero bubble); p-r-1 rounds of a
    pending W and a backward of a; the remaining W. A composite's backward
    is a full B; an I queues its W, which later rounds run oldest first.
    The same lists as torch's ``ScheduleDualPipeV``. O(m) per rank.
    """
    if p < 1 or m < 2 * p:
        raise SchedccError(f"DualPipeV needs at least as many microbatches as stages (2 x {p} ranks = {2 * p}), "
                           f"got {m}", notes=[f"try --microbatches {2 * p}"])
    return [_dualpipev_rank(p, m, r) for r in range(p)]


def _dualpipev_rank(p: int, m: int, r: int) -> list[Action]:
    a, b = r, 2 * p - 1 - r
    fwd = {a: 0, b: 0}
    bwd = {a: 0, b: 0}
    pending: list[tuple[int, int]] = []
    out: list[Action] = []

    def forward(s: int) -> Action:
        fwd[s] += 1
        return Action("F", s, fwd[s] - 1)

    def backward(s: int, kind: str = "B") -> Action:
        bwd[s] += 1
        if kind == "I":
            pending.append((s, bwd[s] - 1))
        return Action(kind, s, bwd[s] - 1)

    def weight() -> None:
        if pending:
            s, mb = pending.pop(0)
            out.append(Action("W", s, mb))

    def pair(f: int, back: int) -> Action:
        sub = (forward(f), backward(back))
        return Action("OVERLAP_F_B", f, sub[0].mb, sub)

    out += [forward(a) for _ in range(2 * (p - r - 1))]
    for _ in range(r + 1):
        out += [forward(a), forward(b)]
    for _ in range(p - r - 1):
        out.append(backward(b, "I"))
        weight()
        out.append(forward(b))
    for i in range(m - 2 * p + r + 1):
        if i == 0 and r == p - 1:
            out += [forward(a), backward(b)]
        else:
            out.append(pair(a, b))
        out.append(pair(b, a))
    for _ in range(p - r - 1):
        out += [backward(b), pair(b, a)]
    split = False
    half = (r + 1) // 2
    for i in range(r + 1):
        split = split or (i == half and r % 2 == 1)
        out.append(backward(b, "I" if split else "B"))
        split = split or (i == half and r % 2 == 0)
        out.append(backward(a, "I" if split else "B"))
    for _ in range(p - r - 1):
        weight()
        out.append(backward(a, "I" if split else "B"))
    while pending:
        weight()
    return out


def zero_bubble(p: int, m: int, costs: StageCosts, limits: list[int]) -> list[list[Action]]:
    """ZB-H1/H2-style lists: greedy I > F > W under per-rank in-flight *limits*.

    The list scheduler runs the F, I, W actions of every rank on the action
    graph plus memory edges ``I(r, m) -> F(r, m + limits[r])``; each rank's
    order is read off the result. O(p m log(p m))."""
    lists = [[Action(k, r, i) for i in range(m) for k in ("F", "I", "W")] for r in range(p)]
    g = build_graph(lists, costs, ordered=False)
    where = g.graph["where"]
    for r in range(p):
        for i in range(m - limits[r]):
            g.add_edge(where[("I", r, i)], where[("F", r, i + limits[r])], latency=g.nodes[where[("I", r, i)]]["dur"],
                       kind="MEMORY")
    rank_of = {"I": 3, "F": 2, "W": 1}
    prio = {}
    for n, d in g.nodes(data=True):
        a = d["action"]
        prio[n] = rank_of[a.kind] * 10 * (m + 1) - a.mb if a is not None else 0
    start, _ = schedule_graph(g, prio)
    out = []
    for r in range(p):
        nodes = sorted((n for n, d in g.nodes(data=True) if d["rank"] == r and d["action"] is not None),
                       key=lambda n: (start[n], -prio[n]))
        out.append([g.nodes[n]["action"] for n in nodes])
    return out


@dataclass
class PipelineResult:
    """One evaluated schedule; times in ticks (µs x 1000 with a target) or abstract units."""

    schedule: str
    stages: int
    microbatches: int
    virtual: int
    evaluation: Evaluation
    unit: str = "units"
    candidates: list[dict] = field(default_factory=list)  # what auto tried

    @property
    def bubble_fraction(self) -> float:
        return self.evaluation.bubble_fraction

    @property
    def step_time(self) -> float:
        return self.evaluation.makespan

    def to_json(self) -> dict:
        ev = self.evaluation
        scale = 1000 if self.unit == "us" else 1
        data = {
            "schedule": self.schedule, "stages": self.stages, "microbatches": self.microbatches,
            "virtual": self.virtual, "time_unit": self.unit,
            "step_time": ev.makespan / scale, "bubble_fraction": ev.bubble_fraction,
            "stage_span_bubble": ev.span_bubble,
            "peak_activation": {str(r): v for r, v in ev.peak_activation.items()},
            "busy": {str(r): v / scale for r, v in ev.busy.items()},
            "exposed_comm": {str(r): v / scale for r, v in ev.exposed_comm.items()},
            "actions": [[str(a) for a in acts] for acts in ev.lists],
        }
        if self.candidates:
            data["candidates"] = self.candidates
        return data


def _scaled(costs: StageCosts, v: int) -> StageCosts:
    """Costs with every duration a multiple of *v*, so that v chunks split them exactly."""
    if v == 1:
        return costs
    mul = lambda x: None if x is None else x * v  # noqa: E731
    return StageCosts(f=costs.f * v, b=costs.b * v, i=mul(costs.i), w=mul(costs.w), comm=costs.comm * v,
                      act=costs.act, fb=mul(costs.fb))


def named_lists(name: str, p: int, m: int, v: int, costs: StageCosts) -> list[list[Action]]:
    if name == "gpipe":
        return gpipe(p, m)
    if name == "1f1b":
        return one_f_one_b(p, m)
    if name == "interleaved":
        return interleaved(p, m, v)
    if name == "zb-h1":
        return zero_bubble(p, m, costs, [min(m, p - r) for r in range(p)])
    if name == "zb-h2":
        return zero_bubble(p, m, costs, [min(m, 2 * (p - r) - 1) for r in range(p)])
    if name == "dualpipev":
        return dualpipev(p, m)
    import difflib
    close = difflib.get_close_matches(name, SCHEDULES + ("auto",), n=2)
    raise SchedccError(f"unknown pipeline schedule '{name}'",
                       notes=([f"did you mean {close[0]!r}?"] if close else [])
                       + ["schedules: " + ", ".join(SCHEDULES + ("auto",))])


def evaluate_named(name: str, stages: int, microbatches: int, virtual: int = 1,
                   costs: StageCosts | None = None, memory_limit: float | None = None,
                   unit: str = "units") -> PipelineResult:
    """Build schedule *name* for *stages* x *microbatches* and time it with *costs*
    (unit costs F=1, B=2 by default). ``auto`` searches under *memory_limit*
    (in microbatch activations of one stage)."""
    if stages < 1 or microbatches < 1:
        raise SchedccError("--stages and --microbatches must be at least 1")
    costs = costs or StageCosts()
    if name == "auto":
        return _auto(stages, microbatches, costs, memory_limit, unit)
    v = virtual if name == "interleaved" else 2 if name == "dualpipev" else 1
    if name == "interleaved" and v < 2:
        v = 2
    c = _scaled(costs, v)
    lists = named_lists(name, stages, microbatches, v, c)
    ev = evaluate(lists, c, chunks=v)
    if v > 1:  # back to the caller's time unit
        ev.makespan /= v
        ev.busy = {r: b / v for r, b in ev.busy.items()}
        ev.exposed_comm = {r: b / v for r, b in ev.exposed_comm.items()}
        ev.start = {n: t / v for n, t in ev.start.items()}
        ev.end = {n: t / v for n, t in ev.end.items()}
    res = PipelineResult(name, stages, microbatches, v, ev, unit)
    if memory_limit is not None:
        worst = max(ev.peak_activation.values(), default=0)
        if worst > memory_limit + 1e-9:
            raise SchedccError(f"{name} needs {worst:g} microbatch activations on a rank, over the limit "
                               f"of {memory_limit:g}", notes=["--schedule auto finds the best schedule that fits"])
    return res


def _auto(p: int, m: int, costs: StageCosts, limit: float | None, unit: str) -> PipelineResult:
    tried: list[tuple[PipelineResult, dict]] = []
    options = [("gpipe", 1), ("1f1b", 1), ("zb-h1", 1), ("zb-h2", 1)]
    if m % p == 0:
        options += [("interleaved", v) for v in (2, 3, 4)]
    if m >= 2 * p:
        options.append(("dualpipev", 2))
    for name, v in options:
        r = evaluate_named(name, p, m, v, costs, None, unit)
        worst = max(r.evaluation.peak_activation.values(), default=0)
        tried.append((r, {"schedule": name, "virtual": v, "bubble_fraction": r.bubble_fraction,
                          "peak_activation": worst,
                          "fits": limit is None or worst <= limit + 1e-9}))
    if limit is not None and limit >= 1:
        # zero-bubble lists with exactly the in-flight microbatches the limit allows
        k = int(limit + 1e-9)
        limits = [max(1, min(m, k, 2 * (p - r) - 1)) for r in range(p)]
        ev = evaluate(zero_bubble(p, m, costs, limits), costs)
        r = PipelineResult("zb-limited", p, m, 1, ev, unit)
        worst = max(ev.peak_activation.values(), default=0)
        tried.append((r, {"schedule": "zb-limited", "virtual": 1, "bubble_fraction": r.bubble_fraction,
                          "peak_activation": worst, "fits": worst <= limit + 1e-9}))
    fitting = [(r, info) for r, info in tried if info["fits"]]
    if not fitting:
        least = min(info["peak_activation"] for _, info in tried)
        raise SchedccError(f"no schedule fits a memory limit of {limit:g} microbatch activations per rank",
                           notes=[f"the least any schedule needs is {least:g}"])
    best, _ = min(fitting, key=lambda x: (round(x[0].bubble_fraction, 12), x[1]["peak_activation"]))
    best.candidates = [info for _, info in tried]
    best.schedule = f"auto:{best.schedule}"
    return best


__all__ = ["SCHEDULES", "PipelineResult", "evaluate_named", "gpipe", "one_f_one_b", "interleaved",
           "zero_bubble", "dualpipev", "measure", "evaluate"]

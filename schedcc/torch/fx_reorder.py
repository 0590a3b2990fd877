"""schedcc's reordering of an FX graph: the library entry point and the ``torch.compile`` pass.

:func:`reorder` prices the graph's nodes (:mod:`schedcc.torch.fx_graph`),
finds schedcc's order (:func:`schedcc.torch.fx_best.best_order`: a portfolio
of stream and list schedules, CP-SAT with ``exact``), checks it against every
dependence, moves the nodes into it, lints the graph and recompiles it.
:func:`post_grad_pass` wraps it as Inductor's custom post-grad pass.

Example::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> gm = make_fx(lambda a, b: ((a @ b).relu(), (b @ a).sin()))(torch.ones(64, 32), torch.ones(32, 64))
    >>> r = reorder(gm, "h100-8x")
    >>> r.after.step_time_us <= r.before.step_time_us
    True
"""

from __future__ import annotations

from dataclasses import dataclass

import torch.fx as fx

from schedcc._perf import paused_gc
from schedcc.errors import SchedccError
from schedcc.torch.inductor import ESTIMATES, durations  # noqa: F401  (durations: part of this module's API)
from schedcc.training.result import StepResult
REBUCKET_ROUNDS = 4  # plans of re-bucketing, each from the schedule of the one before, at most


@dataclass
class Reordered:
    """What :func:`reorder` did: the graph module (reordered in place), the step before and
    after under the estimates used, and the new order of the scheduled nodes' names."""

    gm: fx.GraphModule
    before: StepResult
    after: StepResult
    order: list[str]
    estimates: str
    assumed_groups: tuple[str, ...] = ()
    bound: object = None  # a schedcc.torch.fx_bound.ExposedBound when asked for (bound=True)
    rebucketed: tuple[str, ...] = ()  # the buckets split (rebucket=True), one line each; () when none was

    @property
    def changed(self) -> bool:
        return self.after.step_time_us < self.before.step_time_us

    def to_json(self) -> dict:
        return {"estimates": self.estimates, "nodes": len(self.order),
                "before": self.before.to_json(summary=True), "after": self.after.to_json(summary=True),
                "assumed_groups": list(self.assumed_groups), "rebucketed": list(self.rebucketed),
                **({"bound": self.bound.to_json()} if self.bound is not None else {})}


def target_of(cluster):
    """A cluster model's name (``"h100-8x"``) or a loaded ``Target`` -> the ``Target``."""
    from schedcc.target import Target, load_target
    from schedcc.training.costs import cluster_of
    target = cluster if isinstance(cluster, Target) else load_target(cluster)
    cluster_of(target)  # a clear error for a model that is not a cluster
    return target


def reorder(gm: fx.GraphModule | fx.Graph, cluster="h100-8x", *, groups: dict[str, int] | None = None,
            estimates: str = "schedcc", exact=None, source: str = "<graph>", bound: bool = False,
            rebucket: bool = False) -> Reordered:
    """Reorder the nodes of *gm* (a ``GraphModule``, or a ``Graph`` that has one) in place so
    that its collectives hide behind compute on *cluster* (a cluster model's name or
    ``Target``). *groups* sizes process groups the graph does not size (``{"0": 8}``);
    *estimates* is ``"schedcc"`` (the cluster cost model) or ``"inductor"`` (Inductor's
    roofline and NCCL estimates); *exact* (a :class:`schedcc.sched.cpsat.Limits`) adds CP-SAT.
    The graph keeps its order when nothing is faster. With *bound*, the result also holds the
    lower bound on the exposed communication of every order (:mod:`schedcc.torch.fx_bound`). With
    *rebucket*, bucketed collectives (DDP's all-reduce of a concatenation, FSDP2's reduce-scatter of
    its chunk-cat buffer) are also split into calls on groups of their pieces chosen by the cost
    model (:mod:`schedcc.torch.rebucket`), and the changed graph is kept only when its best order
    predicts a shorter step than the best order of the graph as it is; independent collectives of
    one kind, group, reduction and dtype (tensor parallelism's layer-norm all-reduces) are also
    merged into calls the cost model chooses (:mod:`schedcc.torch.coalesce`), kept on the same
    rule; the node set then changes (``Reordered.rebucketed`` says how), the outputs stay exactly
    the same. Raises
    :class:`SchedccError` naming the op and node that cannot be priced. O(k (n + e) log n) for n
    nodes, e uses, k candidates.
    """
    from schedcc.torch.fx_graph import build_step
    from schedcc.torch.fx_best import best_order
    from schedcc.torch.fx_order import check_order, current_order, simulate, write_back
    if isinstance(gm, fx.Graph):
        if gm.owning_module is None:
            raise SchedccError("reorder: the graph has no GraphModule (pass the GraphModule)")
        gm = gm.owning_module
    if estimates not in ESTIMATES:
        raise SchedccError(f"unknown estimates '{estimates}'", notes=[f"choose one of: {', '.join(ESTIMATES)}"])
    for name, size in (groups or {}).items():
        if not isinstance(size, int) or size < 1:
            raise SchedccError(f"process group '{name}': size {size!r} is not a positive whole number")
    with paused_gc():  # many small acyclic objects (fx_best.best_order)
        step = build_step(gm, target_of(cluster), groups, source)
        dur = durations(step, estimates)
        before = simulate(step, current_order(step), dur, "original")
        order, after = best_order(step, dur, exact)
        split: tuple[str, ...] = ()
        if rebucket:
            found = _rebucketed(step, dur, order, after, estimates, exact, groups, source)
            if found is not None:  # the graph is changed: its own step and order from now on
                step, dur, order, after, split = found
        floor = None
        if bound:
            from schedcc.torch.fx_bound import step_bound
            floor = step_bound(step, dur)
    check_order(step, order)
    write_back(step, order)
    return Reordered(gm, before, after, [step.nodes[i].name for i in order], estimates, step.assumed, floor,
                     split)


def _rebucketed(step, dur, order, after, estimates, exact, groups, source):
    """(step, durations, order, result, lines) of *step*'s graph with its buckets split and
    merged as :func:`schedcc.torch.rebucket.plan` chooses and its independent collectives merged
    as :func:`schedcc.torch.coalesce.plan` chooses, each from the schedule of the best order so
    far, changed in place, when its best order predicts a shorter step than *after*; else None
    and the graph unchanged. Each plan is tried on a copy first (the graph a post-grad pass is
    given must change in place or not at all) and kept only when the step gets shorter (of the
    merge's two plans, the shorter); up to :data:`REBUCKET_ROUNDS` rounds of both, while one of
    them does."""
    from schedcc.torch import coalesce as co
    from schedcc.torch import fx_streams as fs
    from schedcc.torch import rebucket as rb
    from schedcc.torch.fx_best import best_order
    from schedcc.torch.fx_graph import build_step
    from schedcc.torch.fx_order import order_of_nodes
    gm = step.gm
    plans, lines, cur = [], [], (step, dur, order, after)
    for _ in range(REBUCKET_ROUNDS):
        kept = False
        for mod in (rb, co):
            end = fs.timeline(cur[0], cur[2], cur[1])[3]
            candidates = [rb.plan(cur[0], cur[1], end, estimates)] if mod is rb else \
                [co.plan(cur[0], cur[1], end, estimates, w) for w in (0, 1)]  # gaps free; stream time counted
            best = None
            for chosen in [c for k, c in enumerate(candidates) if c and c not in candidates[:k]]:
                trial_graph = fx.Graph(owning_module=gm)
                trial_graph.output(trial_graph.graph_copy(cur[0].gm.graph, {}))
                trial = fx.GraphModule(gm, trial_graph)
                try:
                    done = mod.apply(trial, chosen)
                except ValueError:  # the calls would make a cycle
                    continue
                tstep = build_step(trial, step.target, groups, source)
                tdur = durations(tstep, estimates)
                torder, tafter = best_order(tstep, tdur, exact)
                bar = best[1][3] if best else cur[3]
                if (tafter.step_time_us, tafter.exposed_comm_us) < (bar.step_time_us, bar.exposed_comm_us):
                    best = (chosen, (tstep, tdur, torder, tafter), done)
            if best is not None:
                plans.append((mod, best[0]))
                lines += [f"round {len(plans)}: {line}" for line in best[2]]
                cur, kept = best[1], True
        if not kept:
            break
    if not plans:
        return None
    for mod, chosen in plans:
        mod.apply(gm, chosen)
    tstep, _, torder, tafter = cur
    new = build_step(gm, step.target, groups, source)
    names = [tstep.nodes[i].name for i in torder]
    mapped = order_of_nodes(new, names)
    if len(mapped) != len(new) or sorted(n.name for n in new.nodes) != sorted(names):
        mapped, tafter = best_order(new, durations(new, estimates), exact)  # names differ: order it again
    tafter.note = f"{tafter.note}; collectives re-bucketed"
    if len(plans) == 1:
        lines = [line.split(": ", 1)[1] for line in lines]
    return new, durations(new, estimates), mapped, tafter, tuple(lines)


def post_grad_pass(cluster="h100-8x", **options):
    """Inductor's custom post-grad pass running :func:`reorder` (*options* as there)::

        torch._inductor.config.post_grad_custom_post_pass = schedcc.torch.post_grad_pass("h100-8x")
    """
    from torch._inductor.custom_graph_pass import CustomGraphPass

    class SchedccReorder(CustomGraphPass):
        def __call__(self, graph: fx.Graph) -> None:
            reorder(graph, cluster, **options)

        def uuid(self):
            return ("schedcc.torch.reorder", str(cluster), repr(sorted(options.items())))

    return SchedccReorder()

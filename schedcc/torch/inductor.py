"""Inductor's reordering of the same graph, and Inductor's runtime estimates, for the comparison.

Two peers, run unchanged on the graph schedcc reorders:

* **the FX overlap scheduler** (``torch._inductor.fx_passes.overlap_scheduling``,
  ``schedule_overlap_bucketing``, as torch 2.13 runs it post-grad) on a copy
  of the graph, with analytical estimates, Inductor's memory limits (1 GB or
  5 % over the original peak), no bucketing (the node set must stay the
  same to be compared), and the runtimes it is asked to use fed through its
  ``custom_runtime_estimation`` hook;
* **the older scheduler-node passes** of ``torch._inductor.comms``
  (``sink_waits``, ``raise_comms``, ``reorder_compute_for_overlap``: one
  function, ``_schedule_for_comm``, behind all three). They read Inductor's
  scheduler nodes (fused kernels after lowering); :class:`_SchedulerNode`
  presents each FX node through the few members the function reads: its
  name as its buffer, its dependences (data, in-place writes, side effects:
  the ones schedcc keeps) as unmet dependencies, its ancestors, its estimated
  runtime, and a marker of Inductor's collective or wait kernel type. What
  differs from Inductor proper: its nodes would be fused kernels.

**Inductor's estimates** (:func:`inductor_durations`): compute nodes by its
roofline (``estimate_roofline_runtime_ms``: FLOPs at 75 % of the datasheet
peak, bytes at the datasheet bandwidth) with the datasheet of the target's GPU
(``torch._inductor.analysis.device_info``; CPU attention kernels counted as
their CUDA twins, as for schedcc), collectives by its NCCL model
(``estimate_nccl_collective_runtime_impl``: ring and tree, LL/LL128/Simple,
from NCCL's tuning tables) on the same group sizes.

Importing this module imports Inductor (seconds); nothing else in schedcc does.

Example (the in-place ``add_`` stays after the ``sin`` that reads ``a`` first)::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> from schedcc.target import load_target
    >>> from schedcc.torch.fx_graph import build_step, schedcc_durations
    >>> step = build_step(make_fx(lambda a: (a.sin(), a.add_(1)))(torch.ones(4)), load_target("h100-8x"))
    >>> comms_pass_order(step, schedcc_durations(step), "sink_waits")
    [0, 1]
"""

from __future__ import annotations

import contextlib
import copy

import torch
import torch.fx as fx

from schedcc.errors import SchedccError
from schedcc.torch.fx_ops import FLOP_TWINS, _base_name
from schedcc.training.costs import ticks

DEVICES = {"h100": "NVIDIA H100", "a100": "NVIDIA A100"}
COMMS_PASSES = ("sink_waits", "raise_comms", "reorder_compute_for_overlap")


@contextlib.contextmanager
def _datasheet(target):
    """Inductor's roofline reads the local GPU's datasheet; here, the target's."""
    import torch.utils._runtime_estimation as rt
    from torch._inductor.analysis.device_info import lookup_device_info
    from schedcc.training.costs import cluster_of
    info = next((lookup_device_info(d) for key, d in DEVICES.items() if key in target.name), None)
    cluster = cluster_of(target)

    def tflops(dtype):
        if info is not None and dtype in info.tops:
            return info.tops[dtype] / info.tops_sparsity_factor
        return cluster.peak_flops / 1e12

    saved = rt.get_device_tflops, rt.get_gpu_dram_gbps
    rt.get_device_tflops = tflops
    rt.get_gpu_dram_gbps = lambda: info.dram_bw_gbs if info is not None else cluster.hbm_bw / 1e9
    try:
        yield
    finally:
        rt.get_device_tflops, rt.get_gpu_dram_gbps = saved


ESTIMATES = ("schedcc", "inductor")


def durations(step, estimates: str = "schedcc") -> list[int]:
    """Every node's ticks under schedcc's cost model or Inductor's estimates."""
    if estimates == "schedcc":
        from schedcc.torch.fx_graph import schedcc_durations
        return schedcc_durations(step)
    if estimates == "inductor":
        return inductor_durations(step)
    raise SchedccError(f"unknown estimates '{estimates}'", notes=[f"choose one of: {', '.join(ESTIMATES)}"])


def inductor_durations(step) -> list[int]:
    """Ticks of every node under Inductor's estimates (module docstring)."""
    from torch._inductor.fx_passes.overlap_scheduling import estimate_roofline_runtime_ms
    out = []
    with _datasheet(step.target):
        for i, (node, cost) in enumerate(zip(step.nodes, step.costs)):
            if cost.category == "comm":
                size, seconds = nccl_cost_fn(step, i)
                out.append(ticks(seconds(size)))
                continue
            if cost.category in ("wait", "free") or node.op != "call_function":  # no kernel
                ms = 0.0
            elif _base_name(node.target)[1] in FLOP_TWINS:
                ms = _twin_roofline_ms(node)
            else:
                ms = estimate_roofline_runtime_ms(node)
            out.append(ticks(ms * 1e-3))
    return out


def nccl_cost_fn(step, i: int):
    """(bytes, seconds-of-bytes function) of collective *i* under Inductor's NCCL model, the
    function's ``kind`` set (schedcc.torch.fx_volume reads its slope and intercept)."""
    from torch._inductor.comm_analysis import (estimate_fx_collective_size, estimate_nccl_collective_runtime_impl,
                                               get_collective_type_from_kernel_name)
    node = step.nodes[i]
    ranks = step.groups[step.costs[i].group]
    kind = get_collective_type_from_kernel_name(node.target.name())

    def fn(x):
        with _datasheet(step.target):
            return estimate_nccl_collective_runtime_impl(int(x), ranks, kind) * 1e-3
    fn.kind = str(kind)
    return estimate_fx_collective_size(node), fn


def _twin_roofline_ms(node: fx.Node) -> float:
    """Inductor's roofline of a CPU attention kernel, counted as the CUDA kernel it stands for."""
    from torch.utils._pytree import tree_flatten, tree_map
    from torch.utils._runtime_estimation import get_compute_time, get_transfer_time

    def val(n):
        return n.meta.get("val") if isinstance(n, fx.Node) else n
    args, kwargs, out = tree_map(val, node.args), tree_map(val, node.kwargs), val(node)
    twin = getattr(torch.ops.aten, FLOP_TWINS[_base_name(node.target)[1]])
    flat_in, _ = tree_flatten((args, kwargs))
    flat_out, _ = tree_flatten(out)
    dtype = next(t.dtype for t in flat_out if isinstance(t, torch.Tensor))
    lead = []
    for a in args:  # the formula reads the leading tensors (grad_out, q, k, v or q, k, v)
        if not isinstance(a, torch.Tensor):
            break
        lead.append(a)
    compute = get_compute_time(twin, tuple(lead[:4] if "backward" in str(twin) else lead[:3]), {}, out, {dtype})
    return max(float(compute), float(get_transfer_time(flat_in, flat_out))) / 1e6


def _by_name_ms(step, dur: list[int]):
    """Inductor's ``custom_runtime_estimation`` hook answering with *dur* (node -> ms)."""
    table = {n.name: d / 1e6 for n, d in zip(step.nodes, dur)}

    def estimate(node: fx.Node, override_size=None):
        if override_size is not None:
            return None
        return table.get(node.name)
    return estimate


@contextlib.contextmanager
def _world(step):
    """The overlap scheduler asks for the world size: a fake world when the process has none."""
    import torch.distributed as dist
    if dist.is_initialized():
        yield
        return
    from torch.testing._internal.distributed.fake_pg import FakeStore
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=max(step.groups.values(), default=1))
    try:
        yield
    finally:
        dist.destroy_process_group()


def _run_overlap_scheduler(step, dur: list[int], bucketing: bool):
    """Inductor's FX overlap scheduler (``schedule_overlap_bucketing``, with or without its
    collective bucketing) run on a copy of the step's graph under *dur*, its log quiet: the copy."""
    import logging
    from torch._inductor.fx_passes.overlap_scheduling import schedule_overlap_bucketing
    gm = copy.deepcopy(step.gm)
    quiet = logging.getLogger("torch._inductor.fx_passes.overlap_scheduling")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        with _world(step), _datasheet(step.target):
            schedule_overlap_bucketing(gm, collective_bucketing=bucketing, insert_overlap_deps=False,
                                       custom_runtime_estimation=_by_name_ms(step, dur),
                                       collective_estimator="analytical", compute_estimator="analytical",
                                       pre_bucketing_fsdp_collectives=False)
    finally:
        quiet.setLevel(level)
    return gm


def overlap_scheduler_order(step, dur: list[int]) -> list[int]:
    """The node order Inductor's FX overlap scheduler gives a copy of the graph, under *dur*."""
    gm = _run_overlap_scheduler(step, dur, bucketing=False)
    from schedcc.torch.fx_order import order_of_nodes
    order = order_of_nodes(step, gm.graph.nodes)
    if len(order) != len(step):
        raise RuntimeError(f"Inductor's scheduler returned {len(order)} of {len(step)} nodes")
    return order


class _Buffer:
    def __init__(self, name: str):
        self.name = name


class _SchedulerNode:
    """An FX node as ``torch._inductor.comms._schedule_for_comm`` reads a scheduler node."""

    def __init__(self, name: str, marker, runtime_ns: float):
        self.name, self.node, self.runtime = name, marker, runtime_ns
        self.unmet_dependencies: set = set()
        self.ancestors: set = set()

    def get_name(self) -> str:
        return self.name

    def get_buffer_names(self):
        return {self.name}

    def get_operation_names(self):
        return {self.name}

    def get_estimated_runtime(self) -> float:
        return self.runtime

    def __repr__(self) -> str:
        return f"_SchedulerNode({self.name})"


def comms_pass_order(step, dur: list[int], name: str) -> list[int]:
    """The node order one of ``torch._inductor.comms``'s passes (:data:`COMMS_PASSES`) gives the graph."""
    from torch._inductor import comms, ir
    collective = ir._CollectiveKernel.__new__(ir._CollectiveKernel)  # type markers only
    wait = ir._WaitKernel.__new__(ir._WaitKernel)
    names = [f"op{i}" for i in range(len(step))]
    markers = {"comm": collective, "wait": wait}
    snodes = [_SchedulerNode(names[i], markers.get(c.category), float(dur[i])) for i, c in enumerate(step.costs)]
    preds: list[list[int]] = [[] for _ in snodes]
    for s, t, _ in step.deps:
        preds[t].append(s)
        snodes[t].unmet_dependencies.add(_Buffer(names[s]))
    for i, c in enumerate(step.costs):  # ancestors are read for collectives only
        if c.category == "comm":
            seen, todo = set(), list(preds[i])
            while todo:
                p = todo.pop()
                if p not in seen:
                    seen.add(p)
                    todo.extend(preds[p])
            snodes[i].ancestors = {names[p] for p in seen}
    from schedcc.torch.fx_order import current_order
    ordered = [snodes[i] for i in current_order(step)]
    result = getattr(comms, name)(ordered)
    index = {sn.name: i for i, sn in enumerate(snodes)}
    return [index[sn.name] for sn in result]


PEERS = ("overlap-scheduler",) + COMMS_PASSES


def overlap_bucketed(step, estimates: str):
    """Inductor's FX overlap scheduler *with* its collective bucketing
    (``schedule_overlap_bucketing(collective_bucketing=True)``, the overlap-preserving bucketer)
    on a copy of the graph, its runtimes those of *estimates*; the bucketed graph's own order run
    under the same estimates: its :class:`~schedcc.training.result.StepResult`."""
    from schedcc.torch.fx_graph import build_step
    from schedcc.torch.fx_order import current_order, simulate
    gm = _run_overlap_scheduler(step, durations(step, estimates), bucketing=True)
    gm.graph.lint()
    new = build_step(gm, step.target, dict(step.groups), step.source)
    return simulate(new, current_order(new), durations(new, estimates), "overlap-scheduler+bucketing")


def peer_order(step, dur: list[int], name: str) -> list[int]:
    """The order Inductor's pass *name* (:data:`PEERS`) gives the step under *dur*."""
    if name == "overlap-scheduler":
        return overlap_scheduler_order(step, dur)
    return comms_pass_order(step, dur, name)


def compare_orders(step, estimates: tuple[str, ...] = ("schedcc", "inductor"), exact=None) -> list[dict]:
    """The original order, Inductor's (:data:`PEERS`) and schedcc's, each run under each of
    *estimates*: one row per (estimates, order) with ``step_us``, ``exposed_us``, ``comm_us``
    and ``error`` (an order that breaks a dependence of the graph is reported, not run)."""
    from schedcc.torch.fx_best import best_order
    from schedcc.torch.fx_order import BrokenOrder, current_order, simulate
    rows = []
    for est in estimates:
        dur = durations(step, est)
        results = [("original", simulate(step, current_order(step), dur, "original"))]
        for name in PEERS:
            try:
                results.append((name, simulate(step, peer_order(step, dur, name), dur, name)))
            except (BrokenOrder, RuntimeError) as err:  # an order that breaks the graph, a refusal
                results.append((name, str(err)))
        results.append(("schedcc", best_order(step, dur, exact)[1]))
        for name, r in results:
            if isinstance(r, str):
                rows.append({"estimates": est, "order": name, "step_us": None, "exposed_us": None,
                             "comm_us": None, "error": r})
            else:
                rows.append({"estimates": est, "order": name, "step_us": r.step_time_us,
                             "exposed_us": r.exposed_comm_us, "comm_us": r.comm_us, "error": None})
    return rows

"""Capture a training step of a PyTorch program as an FX graph with its collectives visible.

:func:`capture` traces a step function (forward, ``loss.backward()``, whatever
it returns) with ``make_fx`` into an ATen-level ``torch.fx.GraphModule``:

* collectives called through ``torch.distributed`` (FSDP2's all-gathers and
  reduce-scatters, DDP's all-reduces, a hand-written all-to-all) become
  *functional collectives* (``torch.ops._c10d_functional.*`` followed by
  ``wait_tensor``) by PyTorch's own table, the one ``torch.compile`` uses
  (``torch.distributed._functional_collectives.traceable_collective_remaps``);
  DTensor (tensor parallel, ``parallelize_module``) emits them by itself while
  tracing;
* an ``async_op=True`` call returns a finished work object: its wait is the
  ``wait_tensor`` in the graph, right after the collective (the order a
  scheduler is there to improve);
* a DTensor the step returns (FSDP2's sharded ``p.grad``, a tensor-parallel
  output) is returned as this rank's local tensor (``to_local()``): traced
  as a DTensor, it would be an opaque constant of the graph, not computed by
  it;
* profiler annotations (``record_function`` ranges) are dropped, and tensor
  constants the trace captured (parameters, buffers) become inputs, so that
  the graph can be exported (:func:`export`) and saved with
  ``torch.export.save``.

Run it in a process with a process group: on CPU, the fake one
(``dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=8)``,
``torch.testing._internal.distributed.fake_pg``) traces any parallel layout
without a GPU or other processes. docs/torch-fx.md shows the whole recipe.

Example (no collective: one process, no process group needed)::

    >>> import torch
    >>> w = torch.ones(3, requires_grad=True)
    >>> def step(x):
    ...     loss = (w * x).sum()
    ...     loss.backward()
    ...     return loss, w.grad
    >>> gm, inputs = capture(step, torch.ones(3))
    >>> [n.op for n in gm.graph.nodes if n.op == "placeholder"], len(inputs)
    (['placeholder', 'placeholder'], 2)
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import torch
import torch.distributed as dist
import torch.fx as fx

PROFILER_NAMESPACE = "profiler"


class _FinishedWork:
    """What an ``async_op=True`` collective returns while tracing: its wait is already in the graph."""

    def wait(self, *args: Any, **kwargs: Any) -> bool:
        return True

    def is_completed(self) -> bool:
        return True


def _reduce_op_name(value: Any) -> Any:
    """``ReduceOp.SUM`` -> ``"sum"`` (functional collectives take the name)."""
    if isinstance(value, dist.ReduceOp.RedOpType):
        return value.name.lower()
    if isinstance(value, dist.ReduceOp):
        return value.op.name.lower() if hasattr(value, "op") else str(value).lower()
    return value


@contextlib.contextmanager
def functional_collectives():
    """While active, ``torch.distributed``'s collectives trace as functional collectives
    (PyTorch's ``traceable_collective_remaps``, as under ``torch.compile``)."""
    import torch.distributed._functional_collectives as funcol
    saved: dict[str, Callable] = {}
    for legacy, remapped in funcol.traceable_collective_remaps.items():
        name = legacy.__name__
        if getattr(dist, name, None) is not legacy:
            continue

        def traced(*args, _remapped=remapped, **kwargs):
            asynchronous = kwargs.pop("async_op", False)
            args = tuple(_reduce_op_name(a) for a in args)
            kwargs = {k: _reduce_op_name(v) for k, v in kwargs.items()}
            result = _remapped(*args, **kwargs)
            return _FinishedWork() if asynchronous else result
        saved[name] = legacy
        setattr(dist, name, traced)
    try:
        yield
    finally:
        for name, fn in saved.items():
            setattr(dist, name, fn)


def capture(step: Callable, *args: Any, tracing_mode: str = "real", functional: bool = False,
            real_parameters: bool = False) -> tuple[fx.GraphModule, list]:
    """Trace ``step(*args)`` into an ATen graph with functional collectives.

    Returns the ``GraphModule`` and its example inputs: *args* (flattened),
    then the tensors the trace had captured as constants (now inputs, in the
    order of the graph's placeholders). ``tracing_mode`` is ``make_fx``'s
    (``"real"`` runs the step once on CPU; ``"fake"`` runs nothing but needs
    fake parameters, or *real_parameters*: real ones read as fake). With *functional*, the graph is traced once more through
    ``torch.func.functionalize``: no op writes its inputs any more (what
    AOTAutograd hands Inductor, and what Inductor's FX passes expect).
    """
    from torch.fx.experimental.proxy_tensor import make_fx
    from torch.utils import _pytree as pytree
    with functional_collectives():
        gm = make_fx(_local_outputs(step), tracing_mode=tracing_mode, _allow_non_fake_inputs=real_parameters)(*args)
    flat_args = [_materialised(a) if isinstance(a, torch.Tensor) else a for a in pytree.tree_leaves(args)]
    _drop_profiler_ranges(gm.graph)
    constants = _lift_constants(gm)
    gm.graph._codegen = fx.graph.CodeGen()  # flat inputs: the lifted constants follow the arguments
    gm.graph.lint()
    gm.recompile()
    inputs = flat_args + constants
    if functional:
        gm = functionalized(gm, inputs)
    return gm, inputs


def _local_outputs(step: Callable) -> Callable:
    """*step* returning each DTensor of its result as this rank's local tensor.

    FSDP2 makes a sharded gradient a DTensor outside the dispatcher, so
    ``make_fx`` cannot trace the wrapper: returned as such it becomes a
    constant of the graph, and the reduce-scatter that computed it is cut off
    from the outputs. Its local tensor is the traced value."""
    try:
        from torch.distributed.tensor import DTensor
    except ImportError:  # a torch built without distributed
        return step
    from torch.utils import _pytree as pytree

    def local_step(*args: Any) -> Any:
        return pytree.tree_map_only(DTensor, lambda t: t.to_local(), step(*args))
    return local_step


def functionalized(gm: fx.GraphModule, inputs: list) -> fx.GraphModule:
    """*gm* without mutations, as AOTAutograd would hand it to Inductor: exported and
    functionalized by ``run_decompositions({})`` (an op writing its arguments becomes
    ``auto_functionalized``; the inputs it wrote are returned as extra outputs)."""
    ep = export(gm, inputs).run_decompositions({})
    out = ep.graph_module
    out.graph._codegen = fx.graph.CodeGen()
    out.recompile()
    return out


def export(gm: fx.GraphModule, inputs: list) -> "torch.export.ExportedProgram":
    """The captured graph as an ``ExportedProgram`` (``torch.export.save`` writes it as .pt2)."""
    return torch.export.export(gm, tuple(inputs), strict=False)


def _drop_profiler_ranges(graph: fx.Graph) -> None:
    """Remove ``record_function`` enter/exit pairs (annotations for the profiler, no data)."""
    for node in reversed(list(graph.nodes)):
        if node.op == "call_function" and getattr(node.target, "namespace", "") == PROFILER_NAMESPACE \
                and not node.users:
            graph.erase_node(node)
    for node in reversed(list(graph.nodes)):  # the enters, now without their exits
        if node.op == "call_function" and getattr(node.target, "namespace", "") == PROFILER_NAMESPACE \
                and not node.users:
            graph.erase_node(node)


def _lift_constants(gm: fx.GraphModule) -> list:
    """Turn every tensor ``get_attr`` into a placeholder; return the tensors, in placeholder order.

    A constant whose storage was released by the end of the trace (FSDP frees
    unsharded parameters and their low-precision copies) is written by the
    step before it is read; it is given zeros of its shape."""
    graph = gm.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    anchor = placeholders[-1] if placeholders else None
    lifted: dict[str, fx.Node] = {}
    values: list = []
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        value = _attr(gm, node.target)
        if not isinstance(value, torch.Tensor):
            continue
        ph = lifted.get(node.target)
        if ph is None:
            name = node.target.replace(".", "_").lstrip("_") or "constant"
            if anchor is None:
                with graph.inserting_before(next(iter(graph.nodes))):
                    ph = graph.placeholder(name)
            else:
                with graph.inserting_after(anchor):
                    ph = graph.placeholder(name)
            anchor = lifted[node.target] = ph
            ph.meta = dict(node.meta)
            values.append(_materialised(value))
        node.replace_all_uses_with(ph)
        graph.erase_node(node)
    for target in lifted:
        _delete_attr(gm, target)
    return values


def _materialised(t: torch.Tensor) -> torch.Tensor:
    """A real tensor for an example input: a copy, or random values of a fake tensor's shape."""
    from torch._subclasses.fake_tensor import FakeTensor
    if isinstance(t, FakeTensor):
        if t.dtype.is_floating_point:
            return torch.randn(tuple(t.shape)).to(t.dtype)
        return torch.zeros(tuple(t.shape), dtype=t.dtype)
    needed = (t.storage_offset() + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) + 1) * t.element_size()
    if t.numel() and t.untyped_storage().nbytes() < needed:
        return torch.zeros(t.shape, dtype=t.dtype)
    return t.detach().clone()


def _attr(gm: fx.GraphModule, target: str) -> Any:
    obj: Any = gm
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj


def _delete_attr(gm: fx.GraphModule, target: str) -> None:
    *path, last = target.split(".")
    obj: Any = gm
    for part in path:
        obj = getattr(obj, part)
    if hasattr(obj, last):
        delattr(obj, last)

"""What each node of an ATen FX graph is, and what it costs: FLOPs and bytes from the tensor metadata.

Every ``call_function`` node falls in one of four categories:

* ``comm``: a functional collective (``torch.ops._c10d_functional.*``:
  all-gather, reduce-scatter, all-reduce, all-to-all, broadcast and their
  coalesced forms); its kind in the cluster model's terms (``allgather`` ...),
  its process group's name, the group's size when the node says it
  (``group_size``, all-to-all split sizes), and its size in the cluster
  model's convention (the gathered result, the reduce-scatter's input, the
  all-reduced vector, what one rank sends);
* ``wait``: ``wait_tensor``, which blocks the compute stream until its
  collective is done;
* ``free``: no kernel: views and aliases (the op's schema says its result
  aliases an input), ``getitem``, allocations without a fill (``empty``);
* ``compute``: everything else, with its FLOPs (``torch.utils.flop_counter``'s
  formulas; CPU attention kernels counted as their CUDA twins, the kernels
  the graph would run on the cluster) and the bytes it reads and writes (its
  tensor inputs and outputs).

An op priced from metadata needs ``node.meta["val"]`` (``make_fx``,
``torch.export``) or ``node.meta["tensor_meta"]`` (``ShapeProp``); a node
that has neither, and is not free, is refused with :class:`Unpriced`, which
names the op and the node. ``node.meta["flops"]``, when a user sets it,
counts for an op the FLOP formulas do not know.

Example::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> gm = make_fx(lambda a, b: (a @ b).relu())(torch.ones(64, 32), torch.ones(32, 16))
    >>> [(n.name, cost_of(n).category, cost_of(n).flops) for n in gm.graph.nodes if n.op == "call_function"]
    [('mm', 'compute', 65536.0), ('relu', 'compute', 0.0)]
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

COLLECTIVE_NAMESPACES = ("_c10d_functional", "_c10d_functional_autograd")
# functional collective (without overload and trailing "_") -> the cluster model's kind
COLLECTIVES = {
    "all_gather_into_tensor": "allgather", "all_gather_into_tensor_coalesced": "allgather",
    "all_gather_into_tensor_out": "allgather",
    "reduce_scatter_tensor": "reduce_scatter", "reduce_scatter_tensor_coalesced": "reduce_scatter",
    "all_reduce": "allreduce", "all_reduce_coalesced": "allreduce",
    "all_to_all_single": "alltoall",
    "broadcast": "broadcast",
}
WAITS = ("wait_tensor",)
# allocations that launch no kernel, and Python-level plumbing of the graph
FREE_TARGETS = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
                          "_unsafe_view", "lift_fresh", "lift_fresh_copy", "sym_size", "sym_stride",
                          "sym_numel", "sym_storage_offset"})
# CPU kernels counted as the CUDA kernels the graph runs on a GPU cluster
FLOP_TWINS = {
    "_scaled_dot_product_flash_attention_for_cpu": "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_flash_attention_for_cpu_backward": "_scaled_dot_product_flash_attention_backward",
}


class Unpriced(Exception):
    """A node whose cost cannot be known: ``op`` and ``node`` name it, ``reason`` says why."""

    def __init__(self, op: str, node: str, reason: str):
        super().__init__(f"{op} (node '{node}'): {reason}")
        self.op, self.node, self.reason = op, node, reason


@dataclass(frozen=True)
class OpCost:
    """One node's category and size; see the module docstring."""

    category: str                  # compute, free, comm, wait
    op: str                        # the op's name for people (aten.mm.default)
    flops: float = 0.0
    bytes: float = 0.0             # compute: read + written; comm: the cluster model's size
    collective: str = ""           # comm: allgather, reduce_scatter, allreduce, alltoall, broadcast
    group: str = ""                # comm: the process group's name
    ranks: int | None = None       # comm: the group's size when the node says it


def op_name(node: fx.Node) -> str:
    """``aten.mm.default``, ``getitem``, ``call_module fc1``: what an error calls the op."""
    t = node.target
    if node.op == "call_function":
        if isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
            return str(t)
        return getattr(t, "__name__", str(t))
    return f"{node.op} {t}"


def _base_name(target: Any) -> tuple[str, str]:
    """(namespace, op name without overload and trailing underscore) of an op target."""
    if isinstance(target, torch._ops.OpOverload):
        return target.namespace, target._opname.rstrip("_")
    if isinstance(target, torch._ops.OpOverloadPacket):
        ns, _, name = target._qualified_op_name.partition("::")
        return ns, name.rstrip("_")
    return "", getattr(target, "__name__", "")


def schema_of(target: Any):
    """The op's schema (an overload packet's default overload), or None for plain callables."""
    if isinstance(target, torch._ops.OpOverload):
        return target._schema
    if isinstance(target, torch._ops.OpOverloadPacket):
        default = getattr(target, "default", None)
        if default is not None:
            return default._schema
        names = target.overloads()
        return getattr(target, names[0])._schema if names else None
    return None


def is_view(target: Any) -> bool:
    """Every result of the op aliases an input and nothing is written (a view or alias)."""
    schema = schema_of(target)
    if schema is None or not schema.returns:
        return False
    if any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments):
        return False
    return all(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns)


def value_of(node: Any) -> Any:
    """The node's example value: ``meta["val"]`` or ``meta["tensor_meta"]`` (None when absent)."""
    if not isinstance(node, fx.Node):
        return node
    val = node.meta.get("val")
    return val if val is not None else node.meta.get("tensor_meta")


def _is_tensorish(v: Any) -> bool:
    return isinstance(v, torch.Tensor) or (hasattr(v, "shape") and hasattr(v, "dtype"))


def tensor_bytes(v: Any) -> float:
    """Bytes of a tensor (or its ``TensorMetadata``): elements times element size."""
    numel = 1
    for s in v.shape:
        numel *= int(s)
    dtype = v.dtype
    size = dtype.itemsize if hasattr(dtype, "itemsize") else torch.empty((), dtype=dtype).element_size()
    return float(numel * size)


def _bytes_of(tree: Any) -> float | None:
    """Bytes of every tensor in *tree* (nodes read through their metadata); None when a node has none."""
    total, missing = 0.0, False
    for leaf in pytree.tree_leaves(tree):
        if isinstance(leaf, fx.Node):
            v = value_of(leaf)
            if v is None:
                missing = True
                continue
            for x in pytree.tree_leaves(v):
                if _is_tensorish(x):
                    total += tensor_bytes(x)
        elif isinstance(leaf, torch.Tensor):
            total += tensor_bytes(leaf)
    return None if missing else total


def cost_of(node: fx.Node) -> OpCost:
    """The node's :class:`OpCost`; raises :class:`Unpriced` for an op without metadata."""
    target = node.target
    name = op_name(node)
    if node.op != "call_function":
        return _priced_by_metadata(node, name, None)
    if target is operator.getitem or not callable(target):
        return OpCost("free", name)
    ns, base = _base_name(target)
    if ns in COLLECTIVE_NAMESPACES:
        if base in WAITS:
            return OpCost("wait", name)
        if base in COLLECTIVES:
            return _collective(node, name, COLLECTIVES[base])
    if ns in ("aten", "prims") and (base in FREE_TARGETS or is_view(target)):
        return OpCost("free", name)
    if ns == "" and getattr(target, "__module__", "") in ("_operator", "operator", "math", "builtins"):
        return OpCost("free", name)  # scalar arithmetic on sizes
    return _priced_by_metadata(node, name, _flops(node, target, name))


def _priced_by_metadata(node: fx.Node, name: str, flops: float | None) -> OpCost:
    out = value_of(node)
    schema = schema_of(node.target) if node.op == "call_function" else None
    if out is None and not (schema is not None and not schema.returns):  # an op returning nothing writes its args
        raise Unpriced(name, node.name, "no tensor metadata to price it (node.meta has neither 'val' nor "
                                        "'tensor_meta')")
    inputs = _bytes_of((node.args, node.kwargs))
    if inputs is None:
        raise Unpriced(name, node.name, "an input has no tensor metadata, so its bytes are unknown")
    if flops is None:
        flops = float(node.meta.get("flops", 0.0) or 0.0)
    return OpCost("compute", name, flops=flops, bytes=inputs + (_bytes_of(node) if out is not None else 0.0))


def _flops(node: fx.Node, target: Any, name: str) -> float | None:
    """FLOPs by torch.utils.flop_counter's formula for the op (None: the formulas do not know it)."""
    from torch.utils.flop_counter import flop_registry
    packet = getattr(target, "overloadpacket", target)
    key = packet if packet in flop_registry else None
    if key is None:
        twin = FLOP_TWINS.get(_base_name(target)[1])
        key = getattr(torch.ops.aten, twin) if twin else None
    if key is None or key not in flop_registry:
        return None
    args, kwargs = pytree.tree_map_only(fx.Node, value_of, (node.args, node.kwargs))
    if any(a is None for a in pytree.tree_leaves((args, kwargs))) and value_of(node) is None:
        raise Unpriced(name, node.name, "no tensor metadata to count its FLOPs")
    try:
        count = flop_registry[key](*args, **kwargs, out_val=value_of(node))
    except Exception as err:  # a formula that cannot read these arguments
        raise Unpriced(name, node.name, f"cannot count its FLOPs from the metadata ({err})") from None
    return float(count)


def _collective(node: fx.Node, name: str, kind: str) -> OpCost:
    schema = schema_of(node.target)
    bound = _bind(schema, node) if schema is not None else {}
    group = bound.get("group_name", "")
    if isinstance(group, fx.Node) or not isinstance(group, str):
        group = str(group)
    ranks = bound.get("group_size")
    if ranks is None and kind == "alltoall":
        splits = bound.get("output_split_sizes") or bound.get("input_split_sizes")
        if splits:
            ranks = len(splits)
    moved = node if kind == "allgather" else bound.get("input", bound.get("inputs", node.args[0] if node.args else None))
    size = _bytes_of(moved)
    if size is None or (moved is node and value_of(node) is None):
        raise Unpriced(name, node.name, "no tensor metadata to size the collective")
    return OpCost("comm", name, bytes=size, collective=kind, group=group,
                  ranks=int(ranks) if isinstance(ranks, int) else None)


def _bind(schema, node: fx.Node) -> dict:
    """Argument name -> value of a call (positional and keyword)."""
    out = {}
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
    return out


def written_args(node: fx.Node) -> list:
    """The arguments the op writes (its schema's ``Tensor(a!)``), as they appear in the call."""
    schema = schema_of(node.target) if node.op == "call_function" else None
    if schema is None:
        return []
    bound = _bind(schema, node)
    return [bound[a.name] for a in schema.arguments
            if a.alias_info is not None and a.alias_info.is_write and a.name in bound]


def aliased_args(node: fx.Node) -> list:
    """The arguments the op's results alias (its schema's ``Tensor(a)`` on a result)."""
    schema = schema_of(node.target) if node.op == "call_function" else None
    if schema is None:
        return []
    sets = {s for r in schema.returns if r.alias_info is not None for s in r.alias_info.before_set}
    if not sets:
        return []
    bound = _bind(schema, node)
    return [bound[a.name] for a in schema.arguments
            if a.alias_info is not None and sets & set(a.alias_info.before_set) and a.name in bound]


def ordered_effect(node: fx.Node) -> bool:
    """Must keep its place among the other such nodes: side effects (asserts, profiler ranges,
    storage resizes, effectful ops) and random-number draws (they advance the RNG state)."""
    if node.op != "call_function":
        return node.op in ("call_module", "call_method")
    target = node.target
    ns, base = _base_name(target)
    if ns in COLLECTIVE_NAMESPACES:
        return False
    from torch.fx.node import _side_effectful_functions
    if target in _side_effectful_functions:
        return True
    overload = target if isinstance(target, torch._ops.OpOverload) else getattr(target, "default", None)
    if isinstance(overload, torch._ops.OpOverload):
        if overload in _side_effectful_functions or torch.Tag.nondeterministic_seeded in overload.tags:
            return True
        from torch._higher_order_ops.effects import _get_effect
        return _get_effect(overload) is not None
    return False

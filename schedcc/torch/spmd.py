"""Run a captured graph for real on CPU, and check that a reordered graph computes the same.

A graph of one rank's step calls collectives; without the other ranks (the
fake process group fills nothing in) :class:`SpmdInterpreter` computes each
as if every rank held this rank's data: an all-gather repeats its input, a
reduce-scatter keeps this rank's chunk (times the group's size for a sum),
an all-reduce scales (sum) or copies, an all-to-all receives this rank's
chunk from everyone, ``wait_tensor`` passes its tensor through. These are
deterministic functions of the right shapes, so two orders of one graph
must agree on every output and on every input they write, bit for bit.

Half-precision matrix products (``mm``, ``addmm``, ``bmm``, ``baddbmm`` of
bf16 or fp16 tensors) and CPU flash attention (forward and backward) run, by
default, in fp32 with each result rounded once to the dtype the op returns
(the inputs are exact in fp32; fp32 accumulation is what a GPU's tensor
cores do). Each result has the op's shape and dtype and is a deterministic
function of its inputs, so the comparison stays bit for bit; it is 60 times
faster than PyTorch's own bf16 GEMM on a CPU without bf16 instructions
(AVX2: 0.8 against 55 GFLOP/s on one core) and 5 times for the attention's
backward, which made the large graphs unaffordable to run
(docs/performance.md, issue 18). ``native_kernels=True`` runs PyTorch's own
kernels instead.

:func:`random_inputs` draws inputs from the placeholders' metadata;
:func:`compare` runs two graphs on copies of the same inputs and lists what
differs.

Example::

    >>> import torch
    >>> from torch.fx.experimental.proxy_tensor import make_fx
    >>> gm = make_fx(lambda a: (a + 1).relu())(torch.ones(4))
    >>> compare(gm, gm)
    []
"""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from schedcc.torch.fx_ops import COLLECTIVE_NAMESPACES, _base_name, value_of


class SpmdInterpreter(fx.Interpreter):
    """An ``fx.Interpreter`` that computes functional collectives as described in the module docstring."""

    def __init__(self, gm: fx.GraphModule, group_sizes: dict[str, int] | None = None, default_size: int = 1,
                 native_kernels: bool = False):
        super().__init__(gm)
        self.sizes = dict(group_sizes or {})
        self.default = default_size
        self.native_kernels = native_kernels

    def _size(self, group: Any, stated: Any = None) -> int:
        if isinstance(stated, int):
            return stated
        return int(self.sizes.get(str(group), self.default))

    def call_function(self, target, args, kwargs):
        if target in UPCAST and not self.native_kernels:
            half = _half_dtype([*args, *kwargs.values()])
            if half is not None:
                def up(a):
                    return a.float() if isinstance(a, torch.Tensor) and a.dtype == half else a
                out = target(*map(up, args), **{k: up(v) for k, v in kwargs.items()})
                if isinstance(out, torch.Tensor):
                    return out.to(half)
                return type(out)(x.to(half) if cast else x for x, cast in zip(out, UPCAST[target]))
        ns, base = _base_name(target)
        if ns not in COLLECTIVE_NAMESPACES:
            return super().call_function(target, args, kwargs)
        inplace = getattr(target, "_opname", "").endswith("_")
        a = list(args) + [kwargs[k] for k in ("group_size", "group_name") if k in kwargs]
        if base == "wait_tensor":
            return args[0]
        if base.startswith("all_gather_into_tensor"):
            n = self._size(None, a[1])
            many = base.endswith("coalesced")
            xs = a[0] if many else [a[0]]
            out = [torch.cat([x] * n, dim=0) for x in xs]
            return out if many else out[0]
        if base.startswith("reduce_scatter_tensor"):
            op, n = a[1], self._size(None, a[2])
            many = base.endswith("coalesced")
            xs = a[0] if many else [a[0]]
            out = [_scaled(x.chunk(n, dim=0)[0].clone(), op, n) for x in xs]
            return out if many else out[0]
        if base.startswith("all_reduce"):
            op, n = a[1], self._size(a[2])
            many = base.endswith("coalesced")
            xs = a[0] if many else [a[0]]
            out = [_scaled(x.clone(), op, n) for x in xs]
            if inplace:
                for x, y in zip(xs, out):
                    x.copy_(y)
                return a[0]
            return out if many else out[0]
        if base == "all_to_all_single":
            x, out_splits, in_splits, group = a[0], a[1], a[2], a[3]
            if out_splits:
                return torch.cat([x[:int(s)] for s in out_splits], dim=0)
            n = self._size(group)
            return torch.cat([x[:x.shape[0] // n]] * n, dim=0)
        if base == "broadcast":
            if inplace:
                return a[0]
            return a[0].clone()
        raise NotImplementedError(f"no stand-in for collective {target}")


_A = torch.ops.aten
# the ops run in fp32 on half-precision inputs (module docstring), and which of their outputs are
# rounded back (the attention's logsumexp is fp32 either way)
UPCAST = {_A.mm.default: (True,), _A.addmm.default: (True,), _A.bmm.default: (True,), _A.baddbmm.default: (True,),
          _A._scaled_dot_product_flash_attention_for_cpu.default: (True, False),
          _A._scaled_dot_product_flash_attention_for_cpu_backward.default: (True, True, True)}


def _half_dtype(args) -> torch.dtype | None:
    """bf16 or fp16 when every half-precision tensor argument has that dtype and the others
    (an attention's logsumexp) are fp32, else None."""
    dtypes = {a.dtype for a in args if isinstance(a, torch.Tensor)} - {torch.float32}
    if len(dtypes) == 1 and next(iter(dtypes)) in (torch.bfloat16, torch.float16):
        return next(iter(dtypes))
    return None


def _scaled(x: torch.Tensor, op: str, n: int) -> torch.Tensor:
    return x * n if str(op).lower() in ("sum", "redoptype.sum") else x


def random_inputs(gm: fx.GraphModule, seed: int = 0) -> list:
    """One random tensor per placeholder, of its recorded shape and dtype (normal floats,
    small non-negative integers, random booleans); a placeholder without metadata gets None."""
    gen = torch.Generator().manual_seed(seed)
    out = []
    for node in gm.graph.nodes:
        if node.op != "placeholder":
            continue
        v = value_of(node)
        if not (hasattr(v, "shape") and hasattr(v, "dtype")):
            out.append(v if isinstance(v, (int, float, bool)) else None)
            continue
        shape = [int(s) for s in v.shape]
        if v.dtype.is_floating_point or v.dtype.is_complex:
            out.append(torch.randn(shape, generator=gen, dtype=torch.float32).to(v.dtype))
        elif v.dtype == torch.bool:
            out.append(torch.randint(0, 2, shape, generator=gen).bool())
        else:
            out.append(torch.randint(0, 4, shape, generator=gen, dtype=v.dtype))
    return out


def run(gm: fx.GraphModule, inputs: list, group_sizes: dict[str, int] | None = None, default_size: int = 1,
        native_kernels: bool = False):
    """(outputs, inputs after the run): *gm* run on copies of *inputs* with collectives stood in for."""
    copies = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
    with torch.no_grad():
        outputs = SpmdInterpreter(gm, group_sizes, default_size, native_kernels).run(*copies)
    return outputs, copies


def compare(a: fx.GraphModule, b: fx.GraphModule, inputs: list | None = None, seed: int = 0,
            group_sizes: dict[str, int] | None = None, default_size: int = 1,
            native_kernels: bool = False) -> list[str]:
    """What differs between running *a* and *b* on the same (random) inputs: one line per
    output or written input that is not bit for bit the same; [] when they agree."""
    inputs = random_inputs(a, seed) if inputs is None else inputs
    out_a, in_a = run(a, inputs, group_sizes, default_size, native_kernels)
    out_b, in_b = run(b, inputs, group_sizes, default_size, native_kernels)
    diffs = []
    la, lb = pytree.tree_leaves(out_a), pytree.tree_leaves(out_b)
    if len(la) != len(lb):
        return [f"{len(la)} outputs against {len(lb)}"]
    for i, (x, y) in enumerate(zip(la, lb)):
        if not _same(x, y):
            diffs.append(f"output {i} differs")
    for i, (x, y) in enumerate(zip(in_a, in_b)):
        if not _same(x, y):
            diffs.append(f"input {i} is written differently")
    return diffs


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False
        if x.dtype.is_floating_point or x.dtype.is_complex:
            return bool(((x == y) | (torch.isnan(x) & torch.isnan(y))).all())
        return bool(torch.equal(x, y))
    return x == y or (x is None and y is None)

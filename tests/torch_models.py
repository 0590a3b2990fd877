"""Small GPT-style PyTorch programs, parallelised the ways people train them, captured as FX graphs.

Four families (issue 18), each a real PyTorch program run through PyTorch's
own parallel APIs under the fake process group (no GPU, one process):

* ``fsdp``: a GPT block stack sharded with FSDP2 (``fully_shard`` per block,
  bf16 parameters): all-gathers in forward and backward, reduce-scatters of
  gradients;
* ``tp``: the same stack with tensor and sequence parallelism
  (``parallelize_module``: column/row-wise linears, sequence-parallel layer
  norms): all-gathers and reduce-scatters around every block, all-reduces of
  the layer norms' gradients;
* ``ddp``: the stack under ``DistributedDataParallel`` (its Python reducer,
  the one ``torch.compile`` traces: an all-reduce per gradient), bucketed by
  Inductor's own DDP fusion pass (``fuse_ddp_with_concat_op``);
* ``moe``: attention plus a mixture-of-experts layer with expert
  parallelism: tokens routed top-1, dispatched and combined by all-to-all
  (an autograd function around ``dist.all_to_all_single``), the dense
  gradients all-reduced in one bucket.

:func:`capture_family` builds one at a size from :data:`SIZES` and returns the
graph and its example inputs (tests and ``bench/bench_torch_fx.py`` share it).
"""

from __future__ import annotations

import contextlib
import copy
import math
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

FAMILIES = ("fsdp", "tp", "ddp", "moe")
WORLD = 4


@dataclass(frozen=True)
class Size:
    layers: int
    hidden: int
    heads: int
    batch: int
    seq: int
    experts_per_rank: int = 2


SIZES = {
    "tiny": Size(layers=2, hidden=32, heads=4, batch=2, seq=16),     # the tests: seconds of CPU
    "small": Size(layers=4, hidden=512, heads=8, batch=4, seq=512),  # bench, size 1
    "large": Size(layers=8, hidden=1024, heads=16, batch=4, seq=1024),  # bench, size 2
}


def init_fake_world(world: int = WORLD) -> None:
    """The fake process group of *world* ranks (this process is rank 0), once per process."""
    if dist.is_initialized():
        return
    from torch.testing._internal.distributed.fake_pg import FakeStore
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)


class Attention(nn.Module):
    def __init__(self, h: int, heads: int):
        super().__init__()
        self.head_dim = h // heads
        self.wq, self.wk, self.wv = (nn.Linear(h, h, bias=False) for _ in range(3))
        self.proj = nn.Linear(h, h, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = (w(x).view(b, s, -1, self.head_dim).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, s, -1))


class MLP(nn.Module):
    def __init__(self, h: int):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(h, 4 * h), nn.Linear(4 * h, h)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


class Block(nn.Module):
    def __init__(self, h: int, heads: int, ffn: nn.Module | None = None):
        super().__init__()
        self.ln1, self.attn, self.ln2 = nn.LayerNorm(h), Attention(h, heads), nn.LayerNorm(h)
        self.mlp = ffn if ffn is not None else MLP(h)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, size: Size, ffn=None):
        super().__init__()
        self.blocks = nn.ModuleList(Block(size.hidden, size.heads, ffn() if ffn else None)
                                    for _ in range(size.layers))
        self.ln_f = nn.LayerNorm(size.hidden)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x)


@contextlib.contextmanager
def _default_dtype(dtype):
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


def _loss(out):
    return out.float().pow(2).mean()


def _local(t):
    """A gradient as this rank holds it (DTensors reduced where they are partial)."""
    from torch.distributed.tensor import DTensor, Replicate
    if isinstance(t, DTensor):
        if any(p.is_partial() for p in t.placements):
            t = t.redistribute(placements=[Replicate() for _ in t.placements])
        return t.to_local()
    return t


# -- the four families --------------------------------------------------------------------

def fsdp(size: Size, fake=None):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    with fake or contextlib.nullcontext():
        model = GPT(size)
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        for block in model.blocks:
            fully_shard(block, mesh=mesh, mp_policy=policy)
        fully_shard(model, mesh=mesh, mp_policy=policy)
        x = torch.randn(size.batch, size.seq, size.hidden)

    def step(x):
        loss = _loss(model(x))
        loss.backward()
        return loss, [_local(p.grad) for p in model.parameters()]
    return step, (x,)


def tp(size: Size, fake=None):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                                   SequenceParallel, parallelize_module)
    mesh = init_device_mesh("cpu", (dist.get_world_size(),))
    with fake or contextlib.nullcontext():
        return _tp(size, mesh, Replicate, Shard, ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                   SequenceParallel, parallelize_module)


def _tp(size, mesh, Replicate, Shard, ColwiseParallel, PrepareModuleInput, RowwiseParallel, SequenceParallel,
        parallelize_module):
    with _default_dtype(torch.bfloat16):  # built in bf16: .to() would swap fake parameters DTensor holds
        model = GPT(size)
    plan = {"ln1": SequenceParallel(), "ln2": SequenceParallel(),
            "attn": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
            "attn.wq": ColwiseParallel(), "attn.wk": ColwiseParallel(), "attn.wv": ColwiseParallel(),
            "attn.proj": RowwiseParallel(output_layouts=Shard(1)),
            "mlp": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
            "mlp.fc1": ColwiseParallel(), "mlp.fc2": RowwiseParallel(output_layouts=Shard(1))}
    for block in model.blocks:
        parallelize_module(block, mesh, plan)
    parallelize_module(model, mesh, {"ln_f": SequenceParallel(use_local_output=True)})
    x = torch.randn(size.batch, size.seq // mesh.size(), size.hidden, dtype=torch.bfloat16)

    def step(x):
        loss = _loss(model(x))
        loss.backward()
        return loss, [_local(p.grad) for p in model.parameters()]
    return step, (x,)


def ddp(size: Size, fake=None, bucket_mb: float | None = None):
    import torch._dynamo
    from torch.nn.parallel import DistributedDataParallel
    torch._dynamo.config.optimize_ddp = "python_reducer"
    try:
        # DDP checks its parameters' data on construction: real ones (memory, no compute)
        model = DistributedDataParallel(GPT(size).to(torch.bfloat16))
        x = torch.randn(size.batch, size.seq, size.hidden, dtype=torch.bfloat16)
    finally:
        torch._dynamo.config.optimize_ddp = True
    params = list(model.parameters())
    # DDP's 25 MB buckets, scaled with the model so that every size gets several
    bucket = bucket_mb if bucket_mb is not None else max(
        0.01, sum(p.numel() * p.element_size() for p in params) / 2**20 / 6)

    def step(x):
        for p in params:
            p.grad = None
        loss = _loss(model(x))
        loss.backward()
        return loss, [p.grad for p in params]
    return step, (x,), bucket


class AllToAll(torch.autograd.Function):
    """Equal-split all-to-all of the first dimension (its backward is the inverse exchange)."""

    @staticmethod
    def forward(ctx, x):
        out = torch.empty_like(x)
        dist.all_to_all_single(out, x.contiguous())
        return out

    @staticmethod
    def backward(ctx, grad):
        out = torch.empty_like(grad)
        dist.all_to_all_single(out, grad.contiguous())
        return out


class MoE(nn.Module):
    """Top-1 routed experts, ``experts_per_rank`` on each of the world's ranks, capacity 1.25."""

    def __init__(self, h: int, experts_per_rank: int):
        super().__init__()
        self.ep = dist.get_world_size()
        self.local = experts_per_rank
        self.experts = self.ep * experts_per_rank
        self.router = nn.Linear(h, self.experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts_per_rank, h, 2 * h) / math.sqrt(h))
        self.w2 = nn.Parameter(torch.randn(experts_per_rank, 2 * h, h) / math.sqrt(2 * h))

    def forward(self, x):
        b, s, h = x.shape
        tokens = x.reshape(b * s, h)
        probs = torch.softmax(self.router(tokens).float(), dim=-1)
        weight, expert = probs.max(dim=-1)
        capacity = max(1, math.ceil(1.25 * b * s / self.experts))
        onehot = (expert[:, None] == torch.arange(self.experts)).long()
        slot = (torch.cumsum(onehot, dim=0) * onehot).sum(-1) - 1   # place in its expert's queue
        keep = (slot < capacity).to(x.dtype)
        slot = slot.clamp(max=capacity - 1)
        dispatch = x.new_zeros(self.experts, capacity, h).index_put(
            (expert, slot), tokens * keep[:, None], accumulate=True)
        received = AllToAll.apply(dispatch.view(self.experts * capacity, h))
        work = received.view(self.ep, self.local, capacity, h).transpose(0, 1).reshape(self.local, -1, h)
        y = torch.bmm(F.gelu(torch.bmm(work, self.w1.to(x.dtype))), self.w2.to(x.dtype))
        back = y.view(self.local, self.ep, capacity, h).transpose(0, 1).reshape(self.experts * capacity, h)
        combined = AllToAll.apply(back).view(self.experts, capacity, h)
        out = combined[expert, slot] * (weight.to(x.dtype) * keep)[:, None]
        return out.view(b, s, h)


def moe(size: Size, fake=None):
    with fake or contextlib.nullcontext(), _default_dtype(torch.bfloat16):
        model = GPT(size, ffn=lambda: MoE(size.hidden, size.experts_per_rank))
        x = torch.randn(size.batch, size.seq, size.hidden, dtype=torch.bfloat16)
    dense = [p for n, p in model.named_parameters() if not n.endswith((".w1", ".w2"))]
    experts = [p for n, p in model.named_parameters() if n.endswith((".w1", ".w2"))]

    def step(x):
        loss = _loss(model(x))
        loss.backward()
        flat = torch.cat([p.grad.reshape(-1) for p in dense]) / dist.get_world_size()
        dist.all_reduce(flat)                       # the dense (data-parallel) gradients, one bucket
        return loss, list(flat.split([p.numel() for p in dense])), [p.grad for p in experts]
    return step, (x,)


_captured: dict = {}


def capture_family(family: str, size: str | Size = "tiny", seed: int = 0, functional: bool = False):
    """(GraphModule, example inputs) of *family* at *size*: the model built with fake tensors
    (no memory, no compute) and captured with :func:`schedcc.torch.capture`; DDP's graph is
    then bucketed by Inductor's pass. With *functional*, the graph Inductor would see.

    The tests' size (``"tiny"``) is captured once per process (its FSDP2 graph takes 13 s of CPU, a
    deep copy 0.1 s; four test files use these graphs): every call returns a fresh deep copy of the
    graph and of the inputs, so callers may change them. Other sizes (the bench's) are captured
    on every call, so that the bench's capture times stay what they measure."""
    if size != "tiny":
        return _capture_family(family, size, seed, functional)
    key = (family, size, seed, functional)
    if key not in _captured:
        _captured[key] = _capture_family(family, size, seed, functional)
    gm, inputs = _captured[key]
    return copy.deepcopy(gm), copy.deepcopy(inputs)


def _capture_family(family: str, size: str | Size, seed: int, functional: bool):
    from torch._subclasses.fake_tensor import FakeTensorMode
    from schedcc.torch.capture import capture, functionalized
    init_fake_world()
    torch.manual_seed(seed)
    s = SIZES[size] if isinstance(size, str) else size
    fake = FakeTensorMode()
    if family == "ddp":
        from torch._inductor.fx_passes.ddp_fusion import fuse_ddp_with_concat_op
        from torch._inductor.virtualized import V
        step, args, bucket = ddp(s, fake)
        gm, inputs = capture(step, *args, tracing_mode="fake", real_parameters=True)
        from torch._guards import detect_fake_mode
        with V.set_fake_mode(detect_fake_mode([n.meta.get("val") for n in gm.graph.nodes])):
            fuse_ddp_with_concat_op(gm.graph, bucket)
        gm.graph.eliminate_dead_code()
        gm.graph.lint()
        gm.recompile()
    else:
        step, args = {"fsdp": fsdp, "tp": tp, "moe": moe}[family](s, fake)
        gm, inputs = capture(step, *args, tracing_mode="fake")
    if functional:
        gm = functionalized(gm, inputs)
    return gm, inputs

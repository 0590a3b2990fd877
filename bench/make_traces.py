"""Profile a small model trained with real collectives and write one Kineto trace per rank.

Every run is real: N processes on this machine (forked from this one), the
``gloo`` backend over a file store (no network port), a stack of transformer
MLP blocks (LayerNorm, Linear d->4d, GELU, Linear 4d->d, residual) trained with
SGD for a few steps under ``torch.profiler`` (CPU activity, shapes recorded).
The profiler skips the first two steps (DDP rebuilds its buckets after the
first) and records ``--steps`` steps, each marked ``ProfilerStep#N``.

Models (``--model``, repeatable; ``all`` is every one):

* ``ddp``: ``DistributedDataParallel`` with ``--bucket-mb`` buckets (gradient
  all-reduces overlap the backward);
* ``fsdp``: FSDP2, ``fully_shard`` on every block and on the root (parameter
  all-gathers before forward and backward, gradient reduce-scatters after);
* ``fsdp-noreshard``: the same with ``reshard_after_forward=False`` (the
  parameters gathered in the forward stay for the backward: no all-gathers
  there);
* ``tp``: tensor parallel, ``parallelize_module`` with the first Linear of each
  block column-wise and the second row-wise (an all-reduce after each block in
  forward and in backward).

Usage::

    python bench/make_traces.py OUT [--model ddp --model fsdp] [--ranks 2] [--steps 3] [--tag T]

writes ``OUT/ddp/rank0.json`` ... (``--gzip``: ``rank0.json.gz``; ``--tag T``:
``OUT/ddp-T/``). The default model is 4 blocks of width 512 on 128 rows per
rank: wide enough that a block's backward takes as long as a gloo all-reduce
of its gradients, so DDP's overlap is there to measure. It needs
torch (``pip install schedcc[torch]``); ``tests/data/traces/README.md`` says
which command made the traces kept in the repository.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

MODELS = ("ddp", "fsdp", "fsdp-noreshard", "tp")


def _model(torch, layers: int, hidden: int):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(hidden)
            self.fc1 = nn.Linear(hidden, 4 * hidden)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(4 * hidden, hidden)

        def forward(self, x):
            return x + self.fc2(self.act(self.fc1(self.norm(x))))

    return nn.Sequential(*[Block() for _ in range(layers)])


def _worker(rank: int, opts: argparse.Namespace, model_name: str, store: str, out: Path) -> None:
    import torch
    import torch.distributed as dist
    from torch.profiler import ProfilerActivity, profile, schedule

    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=opts.ranks)
    torch.manual_seed(0)
    model = _model(torch, opts.layers, opts.hidden)
    if model_name == "ddp":
        from torch.nn.parallel import DistributedDataParallel
        model = DistributedDataParallel(model, bucket_cap_mb=opts.bucket_mb)
    elif model_name.startswith("fsdp"):
        from torch.distributed.fsdp import fully_shard
        keep = {"reshard_after_forward": False} if model_name == "fsdp-noreshard" else {}
        for block in model:
            fully_shard(block, **keep)
        fully_shard(model, **keep)
    else:
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
        mesh = init_device_mesh("cpu", (opts.ranks,), mesh_dim_names=("tp",))
        for block in model:
            parallelize_module(block, mesh, {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    torch.manual_seed(1 + (rank if model_name != "tp" else 0))  # tp: every rank sees the same batch
    x = torch.randn(opts.batch, opts.hidden)
    suffix = ".json.gz" if opts.gzip else ".json"

    def save(prof) -> None:
        prof.export_chrome_trace(str(out / f"rank{rank}{suffix}"))

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=opts.steps), on_trace_ready=save) as prof:
        for _ in range(opts.steps + 2):
            loss = model(x).square().mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def make(out: Path, model_name: str, opts: argparse.Namespace) -> Path:
    """Run *model_name* on ``opts.ranks`` processes; returns the folder of its traces."""
    import torch.multiprocessing as mp
    folder = out / (f"{model_name}-{opts.tag}" if opts.tag else model_name)
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("rank*.json*"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp:
        # fork: the children share this process's imported torch (spawn would import it again)
        mp.start_processes(_worker, args=(opts, model_name, os.path.join(tmp, "store"), folder),
                           nprocs=opts.ranks, start_method="fork")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder to write OUT/MODEL/rankN.json into")
    parser.add_argument("--model", action="append", choices=MODELS + ("all",),
                        help="ddp, fsdp, fsdp-noreshard, tp or all (repeatable; default ddp and fsdp)")
    parser.add_argument("--ranks", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--steps", type=int, default=3, help="profiled steps (default 3)")
    parser.add_argument("--layers", type=int, default=4, help="blocks (default 4)")
    parser.add_argument("--hidden", type=int, default=512, help="model width (default 512)")
    parser.add_argument("--batch", type=int, default=128, help="rows per rank and step (default 128)")
    parser.add_argument("--bucket-mb", type=float, default=1.0, help="DDP bucket size in MiB (default 1)")
    parser.add_argument("--tag", default="", help="write OUT/MODEL-TAG instead of OUT/MODEL")
    parser.add_argument("--gzip", action="store_true", help="write rankN.json.gz")
    opts = parser.parse_args(argv)
    models = opts.model or ["ddp", "fsdp"]
    if "all" in models:
        models = list(MODELS)
    if not 2 <= opts.ranks <= 64 or not 1 <= opts.steps <= 100 or not 1 <= opts.layers <= 256 \
            or not 8 <= opts.hidden <= 16384 or not 1 <= opts.batch <= 65536 or not 0 < opts.bucket_mb <= 1024:
        parser.error("need 2 <= --ranks <= 64, 1 <= --steps <= 100, 1 <= --layers <= 256, 8 <= --hidden <= 16384, "
                     "1 <= --batch <= 65536, 0 < --bucket-mb <= 1024")
    if opts.tag and not all(c.isalnum() or c in "-_." for c in opts.tag):
        parser.error(f"--tag {opts.tag!r}: letters, digits, '-', '_' and '.' only")
    if "tp" in models and (4 * opts.hidden) % opts.ranks:
        parser.error("--model tp: 4 x --hidden must divide by --ranks")
    for name in dict.fromkeys(models):
        print(make(opts.out, name, opts))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Kineto traces of a made-up GPU job, written the way torch.profiler writes them on CUDA.

No GPU is available here, so the GPU half of the trace reader (kernels per
stream, ``ac2g`` launch flows, NCCL kernels, ``cudaStreamSynchronize``) is
tested on traces this module writes: per rank, a CPU thread that launches
``layers`` GEMM kernels forward and backward on stream 7 and one NCCL
all-reduce per layer in the backward on stream 20, then synchronises at the
end of each step. The times come from a small event simulation (a kernel
starts when its launch and its stream allow it, an all-reduce when every rank
has launched it and ends together on all ranks), so they obey the rules the
replay assumes; the durations are random (seeded), so that overlap varies.
"""

from __future__ import annotations

import json
import random
from pathlib import Path


def make_gpu_job(folder: Path, ranks: int = 2, steps: int = 2, layers: int = 4, seed: int = 0,
                 comm_us: float = 300.0) -> list[Path]:
    rng = random.Random(seed)
    gemm = [[rng.uniform(80, 400) for _ in range(2 * layers)] for _ in range(steps)]
    comm = [[rng.uniform(0.5, 1.5) * comm_us for _ in range(layers)] for _ in range(steps)]
    launch = [[[rng.uniform(5, 15) for _ in range(3 * layers + 2)] for _ in range(steps)] for _ in range(ranks)]
    events: list[list[dict]] = [[] for _ in range(ranks)]
    corr = [1000] * ranks
    cpu = [10.0 + 20 * r for r in range(ranks)]        # CPU clock of each rank
    gpu = [0.0] * ranks                                  # end of the compute stream
    nccl = [0.0] * ranks                                 # end of the NCCL stream

    def x(r, name, cat, ts, dur, pid, tid, **args):
        events[r].append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": round(ts, 3),
                          "dur": round(dur, 3), "args": args})

    def launch_kernel(r, name, dur, stream, after=0.0, nccl_args=None):
        corr[r] += 1
        c = corr[r]
        start_cpu = cpu[r]
        x(r, "cudaLaunchKernel", "cuda_runtime", start_cpu, 4.0, 100 + r, 100 + r, correlation=c)
        events[r].append({"ph": "s", "id": c, "pid": 100 + r, "tid": 100 + r, "ts": round(start_cpu, 3),
                          "cat": "ac2g", "name": "ac2g"})
        cpu[r] += 4.0
        return c, start_cpu

    for s in range(steps):
        step_start = list(cpu)
        # forward and backward GEMMs; an all-reduce after each backward layer
        pending = []
        for k in range(2 * layers):
            for r in range(ranks):
                c, t0 = launch_kernel(r, "gemm", gemm[s][k], 7)
                start = max(t0 + 6.0, gpu[r])
                gpu[r] = start + gemm[s][k] * (1 + 0.05 * r)
                x(r, f"void gemm_kernel<{k}>", "kernel", start, gpu[r] - start, 0, 7, stream=7, correlation=c,
                  device=0)
                events[r].append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": round(start, 3), "cat": "ac2g",
                                  "name": "ac2g", "bp": "e"})
                cpu[r] += launch[r][s][k]
            if k >= layers:  # backward layer done: all-reduce its gradient
                ready, cs = [], []
                for r in range(ranks):
                    c, t0 = launch_kernel(r, "nccl", 0, 20)
                    ready.append(max(t0 + 6.0, gpu[r], nccl[r]))
                    cs.append(c)
                    cpu[r] += 2.0
                start_all = max(ready)
                end = start_all + comm[s][k - layers]
                for r in range(ranks):
                    x(r, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel",
                      ready[r], end - ready[r], 0, 20, stream=20, correlation=cs[r], device=0,
                      **{"In msg nelems": 262144, "dtype": "Float", "Group size": ranks})
                    events[r].append({"ph": "f", "id": cs[r], "pid": 0, "tid": 20, "ts": round(ready[r], 3),
                                      "cat": "ac2g", "name": "ac2g", "bp": "e"})
                    nccl[r] = end
        for r in range(ranks):  # wait for the GPU, then the step ends
            done = max(gpu[r], nccl[r])
            sync_start = cpu[r]
            cpu[r] = max(cpu[r], done) + 8.0
            x(r, "cudaStreamSynchronize", "cuda_runtime", sync_start, cpu[r] - sync_start, 100 + r, 100 + r)
            x(r, f"ProfilerStep#{s + 1}", "user_annotation", step_start[r], cpu[r] - step_start[r], 100 + r, 100 + r)
            cpu[r] += 20.0
    paths = []
    folder.mkdir(parents=True, exist_ok=True)
    for r in range(ranks):
        meta = [{"ph": "M", "name": "thread_name", "pid": 100 + r, "tid": 100 + r, "args": {"name": "python"}},
                {"ph": "M", "name": "process_name", "pid": 0, "tid": 0, "args": {"name": "GPU 0"}}]
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": ranks},
               "deviceProperties": [{"id": 0, "name": "made-up GPU"}], "traceEvents": meta + events[r]}
        p = folder / f"rank{r}.json"
        p.write_text(json.dumps(doc))
        paths.append(p)
    return paths

"""How long one kernel takes, from its shape: GEMMs, fused attention, streaming kernels.

The planner (:mod:`schedcc.planner`) prices the operators of a transformer
layer with these functions instead of one flat ``efficiency``; the numbers
come from the ``[cluster]`` table (:class:`~schedcc.training.costs.Cluster`,
``docs/cost-model.md``).

* :func:`gemm_time`: an ``m x k`` by ``k x n`` matrix product (``batch`` of
  them) is cut into output tiles (``gemm_tiles``); the tiles run in *waves*
  of ``compute_units`` at a time, each at ``gemm_efficiency`` of the per-SM
  peak. Partial tiles (tile quantisation) and a last, partly filled wave
  (wave quantisation) cost as much as full ones. The best tile is kept, as
  a GEMM library's heuristic would.
  Every wave of tiles also pays a fixed ``gemm_k_overhead`` (k0) in reduction
  steps: filling the tile's operand pipeline and writing its output (the
  epilogue), so a GEMM's math takes ``(k + k0) / k`` times its FLOP time and
  a short reduction loses more than a long one (0, the default: no cost).
  The result is at least the memory time of reading both operands and writing
  the product (the roofline for thin matrices).
* :func:`attention_time`: a fused (FlashAttention-style) kernel over
  ``heads`` heads of ``sq`` queries against ``skv`` keys of width ``d``:
  ``4 sq skv d`` FLOPs per head forward (``QK^T`` and ``PV``), half of them
  skipped under a causal mask, 2.5 times as many backward (it recomputes the
  scores), at ``attention_efficiency`` of peak (cuDNN's kernel at
  ``cudnn_attention_efficiency``, where the cluster file measures it).
* :func:`stream_time`: a memory-bound kernel (norms, activations, dropout,
  residual adds, the optimizer) moving ``bytes`` at ``memory_efficiency`` of
  ``hbm_bw``.

Every function adds the cluster's ``launch_overhead`` once.

Example::

    >>> from schedcc.training.costs import Cluster
    >>> a100 = Cluster(peak_flops=312e12, efficiency=0.5, hbm_bw=2.039e12, link_bw=3e11,
    ...                link_latency=5e-6, net_bw=2.5e10, net_latency=1e-5, devices_per_node=8,
    ...                nodes=1, compute_units=108, gemm_efficiency=0.8,
    ...                gemm_tiles=((128, 256), (256, 128)))
    >>> big = gemm_time(a100, 8192, 8192, 8192)   # 2,048 tiles of 128 x 256: 19 waves on 108 SMs
    >>> round(2 * 8192**3 / big / 1e12)           # TFLOP/s reached: 0.8 x 312 x 2048 / (19 x 108)
    249
    >>> round(2 * 8192 * 8200 * 8192 / gemm_time(a100, 8192, 8200, 8192) / 1e12)  # 33 tile columns: 20 waves
    237
"""

from __future__ import annotations

from schedcc.training.costs import Cluster

FLASH_BACKWARD_FACTOR = 2.5  # backward FLOPs / forward FLOPs of FlashAttention (it recomputes QK^T)

# Fused attention kernels against the FlashAttention-2 class that ``attention_efficiency`` prices:
# the Triton FlashAttention of 2023 (flash_attn_triton; llm-foundry's default attn_impl, with an
# ALiBi bias) takes 1.8x as long, the geometric middle of the 1.3-2.5x by which Dao (2023),
# FlashAttention-2, Section 4.1, reports FlashAttention-2 faster than FlashAttention in Triton.
ATTENTION_KERNEL_SLOWDOWN = {"flash": 1.0, "triton": 1.8, "cudnn": 1.0}
# "cudnn": cuDNN's fused attention (Transformer Engine's FusedAttention, F16_arbitrary_seqlen backend,
# which Transformer Engine 1.8+ prefers to FlashAttention-2 on Hopper unless NVTE_FUSED_ATTN=0) runs at the
# cluster's own ``cudnn_attention_efficiency`` (measured per GPU; 0: as the FlashAttention-2 class).

# Unfused attention: bytes moved per attention score by the softmax, (forward, backward).
# "unfused": Megatron's fused scale-mask-softmax kernel reads the bf16 scores and writes bf16
#   probabilities (2 + 2); its backward reads the gradient and the probabilities and writes the
#   scores' gradient (2 + 2 + 2).
# "eager": the same softmax as torch operators (Megatron's FusedScaleMaskSoftmax.forward_torch_softmax,
#   --no-masked-softmax-fusion, softmax in fp32 as --apply-query-key-layer-scaling forces), each
#   reading and writing the whole score tensor: forward .float() 2 + 4, x the layer-scaling
#   coefficient 4 + 4, masked_fill 4 + 4, softmax 4 + 4, .bfloat16() 4 + 2 = 36; backward the
#   casts' 2 + 4 and 4 + 2, softmax's 4 + 4 + 4, masked_fill's 4 + 4, the scaling's 4 + 4 = 40
#   (without query-key layer scaling the multiply is absent: 28 and 32, not distinguished).
SOFTMAX_BYTES = {"unfused": (4, 6), "eager": (36, 40)}


def _gemm_eff(c: Cluster) -> float:
    return c.gemm_efficiency or c.efficiency


def gemm_time(c: Cluster, m: float, n: float, k: float, batch: float = 1, dtype_bytes: float = 2) -> float:
    """Seconds for *batch* products of ``m x k`` by ``k x n`` (module docstring). O(tiles listed).

    The tile and wave quantisation is :meth:`Cluster.tile_efficiency`, the same
    one that prices the chunks of a decomposed GEMM (``--tp-comm-overlap``)."""
    if m <= 0 or n <= 0 or k <= 0 or batch <= 0:
        return 0.0
    flops = 2 * batch * m * n * k
    math_time = flops / (c.peak_flops * _gemm_eff(c) * c.tile_efficiency(m, n, gemms=batch))
    math_time *= (k + c.gemm_k_overhead) / k     # each wave of tiles: its k steps plus the fixed k0
    memory = batch * (m * k + k * n + m * n) * dtype_bytes / (c.hbm_bw * c.memory_efficiency)
    return max(math_time, memory) + c.launch_overhead


def attention_time(c: Cluster, heads: float, sq: float, skv: float, d: float, causal: bool = True,
                   backward: bool = False, kernel: str = "flash") -> float:
    """Seconds for a fused attention kernel (module docstring); *heads* counts every
    (sequence, head) pair of the batch; *kernel* one of :data:`ATTENTION_KERNEL_SLOWDOWN`. O(1).

    >>> from schedcc.training.costs import Cluster
    >>> h100 = Cluster(peak_flops=989e12, efficiency=0.5, hbm_bw=3.35e12, link_bw=4.5e11, link_latency=3e-6,
    ...                net_bw=5e10, net_latency=8e-6, devices_per_node=8, nodes=1, attention_efficiency=0.5)
    >>> fwd = attention_time(h100, 32, 8192, 8192, 128)
    >>> round(fwd * 1e3, 2), round(attention_time(h100, 32, 8192, 8192, 128, backward=True) / fwd, 2)
    (1.11, 2.5)
    """
    if heads <= 0 or sq <= 0 or skv <= 0:
        return 0.0
    flops = 4 * heads * sq * skv * d
    if causal:
        flops /= 2
    if backward:
        flops *= FLASH_BACKWARD_FACTOR
    eff = c.attention_efficiency or _gemm_eff(c)
    if kernel == "cudnn":
        eff = c.cudnn_attention_efficiency or eff
    memory = heads * (sq + 2 * skv) * d * 2 * (3 if backward else 1) / (c.hbm_bw * c.memory_efficiency)
    return max(ATTENTION_KERNEL_SLOWDOWN.get(kernel, 1.0) * flops / (c.peak_flops * eff), memory) + c.launch_overhead


def stream_time(c: Cluster, nbytes: float) -> float:
    """Seconds for a memory-bound kernel moving *nbytes* (read and written). O(1).

    >>> from schedcc.training.costs import Cluster
    >>> c = Cluster(peak_flops=1e15, efficiency=0.5, hbm_bw=2e12, link_bw=1e11, link_latency=0,
    ...             net_bw=1e10, net_latency=0, devices_per_node=8, nodes=1, memory_efficiency=0.8)
    >>> stream_time(c, 1.6e9)
    0.001
    """
    if nbytes <= 0:
        return 0.0
    return nbytes / (c.hbm_bw * c.memory_efficiency) + c.launch_overhead

"""Memory per GPU: weights, gradients, optimizer states, activations, logits, workspace.

For pipeline rank ``r`` of a :class:`~schedcc.planner.space.Candidate` (bytes),
``P`` the parameters the rank holds (its layers, the embedding on the first
stage, the output layer on the last (a copy of the embedding when they are
tied and ``pp > 1``), all divided by ``tp``), ``d = dp x cp`` the ranks that
share them, and the framework's :class:`~schedcc.planner.frameworks.Sharding`
saying how they are held:

* **weights** ``2 P`` (bf16; ``4 P`` when the framework keeps fp32
  parameters, PyTorch FSDP); sharded (ZeRO-3 with reshard): ``P/d`` of that
  plus two layers gathered in bf16 (the one computing and the one
  prefetched); FSDP without reshard (or under a pipeline schedule): the
  gathered bf16 copy ``2 P`` while a microbatch runs, plus the shard;
* **gradients** ``g P`` at the dtype the framework accumulates them in
  (``g = 4``: Megatron-LM's fp32 main gradients; ``2`` with
  ``--grad-reduce-in-bf16`` or NeMo's ``grad_sync_dtype: bf16``, which make the
  gradient buffer bf16; DeepSpeed ZeRO-2 keeps the bf16 partition); sharded
  (ZeRO-2, ZeRO-3): ``g P/d`` plus the reduction bucket (DeepSpeed's
  ``reduce_bucket_size``) or one layer's unsharded gradient (FSDP);
* **optimizer** ``o P``, ``/d`` from ZeRO-1 on, ``o`` the framework's
  ``optimizer_bytes``: ``12`` (Adam's fp32 master weights, first and second
  moments: Megatron-LM's distributed optimizer, DeepSpeed); ``8`` when the fp32
  parameters are the master copy (PyTorch FSDP); ``10`` for Apex's
  ``DistributedFusedAdam`` as NeMo sets it up for bf16 parameters
  (``store_param_remainders``: the 16 bits that, with the bf16 parameter,
  make the fp32 master weight, and two fp32 moments); ``4`` when NeMo's
  ``optim.dtype`` is bf16 (two bf16 moments, the bf16 parameters being the
  master copy: ``store_params`` off). The optimizer step's transient fp32 copy of a bf16 gradient shard
  is not counted: the activations are freed by then;
* **activations** per layer and microbatch after Korthikanti et al. (2022),
  generalised to grouped-query attention, gated MLPs and models without
  dropout (``sb`` = tokens of a microbatch on this rank, ``s/cp`` per
  sequence; ``T = tp`` with sequence parallelism, else 1 for the parts
  tensor parallelism replicates):

  ====================  ==============================================
  attention             ``2sbh/T`` (norm input) + ``2sbh/T`` (QKV input) +
                        ``2sb(h + 2gd)/tp`` (Q, K, V) + ``2sbh/tp``
                        (projection input) + ``sbh/T`` (dropout mask) +
                        unfused scores: ``5 a s_q s b/tp`` with dropout
                        (``2`` without; ``eager``, the torch softmax in
                        fp32, ``4`` more); FlashAttention keeps ``4 a s b/tp``
                        (its log-sum-exp) instead
  MLP                   ``2sbh/T`` (norm input) + ``2sbh/T`` (first matrix
                        input) + ``2sbf/tp`` (x2 gated) (activation input) +
                        ``2sbf/tp`` (second matrix input) + ``sbh/T``
  ====================  ==============================================

  For a GPT (``f = 4h``, dropout, ``tp = 1``) that is the paper's
  ``sbh (34 + 5 a s/h)``. Selective recomputation drops the score terms; full
  recomputation keeps only each layer's input ``2sbh/T`` plus, while a layer
  runs backward, that one layer's activations; partial recomputation of ``n``
  layers per model chunk of ``k`` keeps the input of ``n`` and everything of
  the other ``k - n`` (plus the working layer). Times the microbatches the
  schedule keeps in flight on the rank (counted on its action list: a
  forward allocates, its backward frees), in layers;
* **logits** on the last stage: ``4 s b V / tp`` bytes, twice (fp32 logits
  and their gradient, one microbatch at a time);
* **fragmentation**: :data:`FRAGMENTATION` of the activations and logits (0 with the
  allocator's expandable segments, ``PYTORCH_CUDA_ALLOC_CONF`` or
  ``PYTORCH_NPU_ALLOC_CONF=expandable_segments:True``: :func:`fragmentation_share`).
  Weights, gradients and optimizer states are allocated once (Megatron-LM's
  contiguous buffers) and do not fragment; activations are allocated and
  freed in varied sizes every microbatch, and PyTorch's caching allocator,
  which splits cached blocks and cannot move them, leaves part of what it
  reserves unusable. GMLake (Guo et al., ASPLOS 2024) measured that slack on
  eight LLMs on A100 80GB: 15% of the reserved memory on average (up to 33%),
  which their stitching allocator recovers (9.2 GB on average). A plan that
  fills the device to the byte is one the caching allocator cannot run;
* **workspace**: the cluster's ``memory_reserved`` (CUDA context,
  communication buffers, library workspaces: docs/cost-model.md); the
  capacity is what PyTorch reports for the device (``memory_capacity``).

Example::

    >>> from schedcc.planner.model import preset
    >>> from schedcc.planner.space import Candidate
    >>> gpt = preset("gpt3-175b")
    >>> per_layer = activation_bytes_per_layer(gpt, Candidate(1, 1, 1), "unfused", tokens=2048)
    >>> per_layer == 2048 * 12288 * (34 + 5 * 96 * 2048 / 12288)
    True

Korthikanti et al. Table 2 with ``t = 8``: tensor and sequence parallelism
divide everything by ``t``; selective recomputation leaves ``34 sbh / t``;
full recomputation keeps the layer input, ``2 sbh / t``::

    >>> sbh = 2048 * 12288
    >>> tp_sp = activation_bytes_per_layer(gpt, Candidate(1, 8, 1, sp=True), "unfused", tokens=2048)
    >>> tp_sp == sbh * (34 + 5 * 96 * 2048 / 12288) / 8
    True
    >>> tp_only = activation_bytes_per_layer(gpt, Candidate(1, 8, 1), "unfused", tokens=2048)
    >>> tp_only == sbh * (10 + 24 / 8 + 5 * 96 * 2048 / (12288 * 8))
    True
    >>> sel = activation_bytes_per_layer(gpt, Candidate(1, 8, 1, sp=True, recompute="selective"), "unfused", 2048)
    >>> sel == sbh * 34 / 8
    True
    >>> activation_bytes_per_layer(gpt, Candidate(1, 8, 1, sp=True, recompute="full"), "unfused", 2048) == 2 * sbh / 8
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from schedcc.training.kernels import SOFTMAX_BYTES

WEIGHT_BYTES = 2       # bf16 weights
LOGIT_BYTES = 4        # fp32 logits for the loss
# The caching allocator's slack over the memory allocated and freed every step (activations,
# logits): 15% of reserved memory unusable on average in GMLake's measurements (Guo et al.,
# ASPLOS 2024, eight LLMs on A100 80GB), i.e. 0.15 / 0.85 of what is allocated.
FRAGMENTATION = 0.15 / 0.85


def fragmentation_share(expandable_segments: bool) -> float:
    """The fragmentation term's share of the activations and logits: :data:`FRAGMENTATION` for
    PyTorch's caching allocator as GMLake measured it (a segment per large request, whose freed
    blocks later requests of other sizes fit only in part); 0 [assumption] with expandable
    segments, where the allocator maps pages into one growing segment per stream and unmaps
    them when freed, so blocks of differing sizes leave no gaps between segments."""
    return 0.0 if expandable_segments else FRAGMENTATION


def activation_bytes_per_layer(model, cand, attention: str, tokens: float, kind: str | None = None) -> float:
    """Bytes one layer keeps for backward for one microbatch of *tokens* tokens on this
    rank (``microbatch x seq / cp``), under the candidate's recomputation (or *kind*)."""
    h, f, d = model.hidden, model.ffn_size, model.head_dim
    tp = cand.tp
    T = tp if cand.sp else 1
    kind = kind or cand.recompute
    if kind == "partial":   # the mix per rank is memory_of's (recomputed layers keep only their input)
        kind = "none"
    if kind == "full":
        return 2 * tokens * h / T
    drop = 1 if model.dropout else 0
    sb = tokens
    attn = 2 * sb * h / T + 2 * sb * h / T + 2 * sb * (h + 2 * model.kv * d) / tp + 2 * sb * h / tp
    attn += drop * sb * h / T
    s_kv = model.seq  # every query of this rank's chunk against the whole sequence
    if attention in SOFTMAX_BYTES:   # the unfused kernels keep their scores
        if kind != "selective":   # eager: softmax's fp32 output (4) besides the bf16 probabilities
            attn += ((5 if drop else 2) + (4 if attention == "eager" else 0)) * model.heads * sb * s_kv / tp
    else:
        attn += 4 * model.heads * sb / tp
    mlp = 2 * sb * h / T + 2 * sb * h / T + 2 * sb * f / tp * (2 if model.gated else 1) + 2 * sb * f / tp
    mlp += drop * sb * h / T
    return attn + mlp


@dataclass
class Memory:
    """The worst pipeline rank's memory, by term (bytes)."""

    rank: int
    terms: dict[str, float]
    capacity: float
    per_rank: dict[int, float] = field(default_factory=dict)

    @property
    def total(self) -> float:
        return sum(self.terms.values())

    @property
    def fits(self) -> bool:
        return not self.capacity or self.total <= self.capacity

    def overflow(self) -> str:
        """Which term overflows and by how much (empty when it fits)."""
        if self.fits:
            return ""
        big = max(self.terms, key=self.terms.get)
        over = self.total - self.capacity
        return (f"out of memory on pipeline rank {self.rank}: {gib(self.total)} needed, {gib(self.capacity)} "
                f"available ({gib(over)} over); largest term {big} {gib(self.terms[big])}")


def gib(x: float) -> str:
    """Bytes as decimal gigabytes, as device memory is sold (80 GB)."""
    return f"{x / 1e9:.1f} GB"


def rank_params(model, cand, layers_on_rank: int, rank: int) -> float:
    """Parameters pipeline rank *rank* holds, per tensor-parallel shard."""
    p = layers_on_rank * model.layer_params()
    if rank == 0:
        p += model.embedding_params()
    if rank == cand.pp - 1 and (not model.tied_embeddings or cand.pp > 1):
        p += model.embedding_params()
    return p / cand.tp


def _default_sharding(cand):
    from schedcc.planner.frameworks import DEFAULT, framework, sharding
    return sharding(framework(DEFAULT), cand)


def state_terms(model, cand, params: float, sh, bucket_bytes: float = 0.0) -> dict[str, float]:
    """Weights, gradients and optimizer bytes of *params* parameters (one rank's, per
    tensor-parallel shard) held as *sh* says (module docstring). O(1).

    The ZeRO paper's Figure 1 (Rajbhandari et al. 2020): 7.5B parameters on 64 GPUs with
    mixed-precision Adam take 120 GB per GPU, 31.4 with ZeRO-1, 16.6 with ZeRO-2 and 1.9
    with ZeRO-3 (fp16 gradients, the working layers and buckets left out)::

        >>> from schedcc.planner.model import preset
        >>> from schedcc.planner.space import Candidate
        >>> from schedcc.planner.frameworks import framework, sharding
        >>> from schedcc.planner.space import Settings
        >>> st = Settings(framework="deepspeed", grad_bytes=2, grad_reduce_bytes=2)
        >>> gb = [sum(state_terms(None, c, 7.5e9, sharding(framework("deepspeed"), c, st)).values()) / 1e9
        ...       for c in (Candidate(64, 1, 1, zero=z) for z in (0, 1, 2))]
        >>> [round(x, 1) for x in gb]
        [120.0, 31.4, 16.6]
    """
    d = cand.dp * cand.cp
    master = 4 if sh.fp32_params else WEIGHT_BYTES
    optimizer = sh.optimizer_bytes * params
    layer = model.layer_params() / cand.tp if model is not None else 0.0
    if sh.weights_sharded:
        weights = master * params / d + 2 * WEIGHT_BYTES * layer
    elif sh.weights_full_and_shard:
        weights = WEIGHT_BYTES * params + master * params / d
    else:
        weights = master * params
    if sh.grads_sharded:
        gradients = sh.grad_bytes * params / d
        gradients += (sh.grad_reduce_bytes * layer) if sh.grad_sync == "layer" else bucket_bytes
    else:
        gradients = sh.grad_bytes * params
    return {"weights": weights, "gradients": gradients,
            "optimizer": optimizer / (d if sh.optimizer_sharded else 1)}


def memory_of(model, cand, attention: str, capacity: float, reserved: float, layers_per_rank: list[int],
              inflight_layers: list[float], sh=None, bucket_elements: int = 0,
              fragmentation: float = FRAGMENTATION) -> Memory:
    """Memory of every pipeline rank; *inflight_layers[r]*: the most layer-microbatches of
    activations rank r holds at once (its schedule's peak); *sh*: how the framework holds
    the states (:func:`schedcc.planner.frameworks.sharding`; default: the ``any``
    framework's); *bucket_elements*: its gradient bucket (ZeRO-2); *fragmentation*: the
    allocator's (:func:`fragmentation_share`). O(pp)."""
    sh = sh or _default_sharding(cand)
    tokens = cand.microbatch * model.seq / cand.cp
    per_layer = activation_bytes_per_layer(model, cand, attention, tokens)
    partial = cand.recompute == "partial" and cand.recompute_layers > 0
    kept = activation_bytes_per_layer(model, cand, attention, tokens, "full") if partial else 0.0
    working = (activation_bytes_per_layer(model, cand, attention, tokens, "none")
               if cand.recompute == "full" or partial else 0.0)
    worst = None
    per_rank = {}
    for r in range(cand.pp):
        p = rank_params(model, cand, layers_per_rank[r], r)
        layer_bytes = per_layer
        if partial:   # the first n layers of each of the rank's chunks keep only their input
            chunk = layers_per_rank[r] / max(cand.virtual, 1)
            frac = min(cand.recompute_layers, chunk) / chunk if chunk else 0.0
            layer_bytes = (1 - frac) * per_layer + frac * kept
        bucket = min(bucket_elements, p) * sh.grad_reduce_bytes if bucket_elements else 0.0
        terms = state_terms(model, cand, p, sh, bucket)
        terms["activations"] = layer_bytes * inflight_layers[r] + working
        if r == cand.pp - 1:
            terms["logits"] = 2 * LOGIT_BYTES * tokens * model.vocab / cand.tp
        terms["fragmentation"] = fragmentation * (terms["activations"] + terms.get("logits", 0.0))
        terms["workspace"] = reserved
        total = sum(terms.values())
        per_rank[r] = total
        if worst is None or total > sum(worst.terms.values()):
            worst = Memory(r, terms, capacity)
    worst.per_rank = per_rank
    return worst


def fewest_recomputed_layers(model, cand, attention: str, capacity: float, reserved: float,
                             layers_per_rank: list[int], inflight_layers: list[float], chunk_layers: int,
                             sh=None, bucket_elements: int = 0,
                             fragmentation: float = FRAGMENTATION) -> tuple[int, Memory]:
    """For ``recompute="partial"``: the fewest layers per model chunk (1 to *chunk_layers* - 1)
    whose recomputation makes *cand* fit, and that memory; the most when none fits. O(pp x
    chunk_layers).

    GPT-3 175B on 64 A100s (tp 8, pp 8, 12 layers a stage, microbatches of 4, 1F1B): without
    recomputation it needs 104 GB; recomputing 7 of every 12 layers fits in 80 GB,
    between full recomputation's memory and none's::

        >>> from dataclasses import replace
        >>> from schedcc.planner.model import preset
        >>> from schedcc.planner.space import Candidate
        >>> gpt = preset("gpt3-175b")
        >>> c = Candidate(1, 8, 8, microbatch=4, schedule="1f1b", sp=True, recompute="partial")
        >>> args = ("flash", 80e9, 5e9, [12] * 8, [12 * (8 - r) for r in range(8)])
        >>> n, mem = fewest_recomputed_layers(gpt, c, *args, chunk_layers=12)
        >>> none = memory_of(gpt, replace(c, recompute="none"), *args)
        >>> full = memory_of(gpt, replace(c, recompute="full"), *args)
        >>> n, mem.fits, round(full.total / 1e9), round(mem.total / 1e9), round(none.total / 1e9)
        (7, True, 59, 78, 104)
    """
    from dataclasses import replace
    mem = None
    for n in range(1, max(chunk_layers, 2)):
        mem = memory_of(model, replace(cand, recompute_layers=n), attention, capacity, reserved, layers_per_rank,
                        inflight_layers, sh, bucket_elements, fragmentation)
        if mem.fits:
            return n, mem
    return max(chunk_layers - 1, 1), mem

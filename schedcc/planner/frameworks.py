"""Training frameworks as data: what each can do, how it runs it, what it calls it.

``schedcc/planner/frameworks.toml`` describes every framework the planner
knows (``--framework``): the dimensions and values it offers (the search
space is limited to them), its defaults (bucket size, gradient dtype, whether
gradient reduction and parameter gathering overlap compute: the planner's
:class:`~schedcc.planner.space.Settings`), and its option names (for launch
configurations). A :class:`Framework` is one entry; :func:`framework` loads
it by name.

**Sharding behaviour.** The same ZeRO stage is run differently by different
frameworks; :func:`sharding` says how a candidate's data-parallel side runs
(a :class:`Sharding`), and the memory model and both scheduled levels read
it:

=====================  ==================  ===============  =============  ===============
stage (framework)      gradients reduced   weights gathered gradients held weights held
=====================  ==================  ===============  =============  ===============
0  DDP                 once per step,      -                full           full
                       all-reduce
1  distributed         once per step,      once per step    full           full
   optimizer           reduce-scatter
2  DeepSpeed ZeRO-2    every microbatch,   once per step    a shard        full
                       reduce-scatter
3  FSDP, reshard       every microbatch,   every layer,     a shard        a shard + two
                       per layer           forward and                     layers
                                           backward
3  FSDP, no reshard    every microbatch,   every layer,     a shard        all layers while
                       per layer           forward only                    a microbatch runs
3  FSDP under a        once per step       once per step    full (fp32)    full (bf16) + a
   pipeline schedule                                                       fp32 shard
=====================  ==================  ===============  =============  ===============

Sources: DeepSpeed's maintainers on ZeRO-2 ("gradient reduction is required
after every backward because of gradient partitioning", deepspeedai/DeepSpeed
#2252; the partition holds the bf16 gradients, #6707); PyTorch's pipelining
(``torch.distributed.pipelining`` turns FSDP's gradient sync and resharding
off until the last backward of a step); Megatron-Core's distributed optimizer
(gradients reduced in the last microbatch's backward, weights gathered under
the next step's forwards).

Example::

    >>> fw = framework("megatron-2021")
    >>> fw.offers("recompute", "selective"), fw.offers("schedule", "interleaved"), fw.attention
    (False, True, ('unfused', 'eager'))
    >>> from schedcc.planner.space import Candidate
    >>> sharding(framework("deepspeed"), Candidate(8, 1, 1, zero=2)).grad_sync
    'micro'
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from schedcc.errors import SchedccError

DATA = Path(__file__).resolve().parent / "frameworks.toml"
DEFAULT = "any"
SETTING_KEYS = ("grad_overlap", "param_gather_overlap", "bucket_elements", "grad_bytes", "grad_reduce_bytes",
                "fp32_params", "optimizer_bytes")


@dataclass(frozen=True)
class Framework:
    """One entry of ``frameworks.toml`` (module docstring)."""

    name: str
    title: str
    version: str
    source: str
    tp: bool
    pp: bool
    cp: bool
    sp: bool
    schedules: tuple[str, ...]
    uneven_stages: bool
    zero: tuple[int, ...]
    zero_with_pp: tuple[int, ...]
    reshard: tuple[bool, ...]
    recompute: tuple[str, ...]
    attention: tuple[str, ...]
    overlap: tuple[str, ...]
    fsdp_pp_sync: str
    loss_bytes: tuple[int, int]                       # bytes per logit the loss moves, forward and backward
    defaults: dict = field(default_factory=dict)      # SETTING_KEYS -> value
    stages: dict = field(default_factory=dict)        # ZeRO stage -> {key: value} overriding defaults
    zero_names: dict = field(default_factory=dict)    # ZeRO stage -> the framework's name for it
    options: dict = field(default_factory=dict)       # dimension[.value] -> the framework's option

    def offers(self, key: str, value) -> bool:
        """Whether the framework can run *key* = *value* (a :class:`Candidate` dimension)."""
        if key in ("tp", "pp", "cp"):
            return value == 1 or getattr(self, key)
        if key == "sp":
            return not value or self.sp
        if key == "schedule":
            return value == "none" or value in self.schedules
        if key == "virtual":
            return value == 1 or "interleaved" in self.schedules
        if key == "trim":
            return value == 0 or self.uneven_stages
        if key in ("zero", "reshard", "recompute", "attention", "overlap"):
            return value in getattr(self, key)
        return True

    def default(self, key: str, zero: int | None = None):
        """The framework's value of setting *key* (one of :data:`SETTING_KEYS`), for ZeRO
        stage *zero* when the stage has its own."""
        if zero is not None and key in self.stages.get(zero, {}):
            return self.stages[zero][key]
        return self.defaults[key]

    def zero_name(self, zero: int) -> str:
        return self.zero_names.get(zero, f"ZeRO-{zero}")

    def describe(self) -> str:
        """One line: what the framework offers (for errors and ``--framework`` help)."""
        parts = ["tp" if self.tp else "", "pp (" + ", ".join(self.schedules) + ")" if self.pp else "",
                 "cp" if self.cp else "", "sp" if self.sp else "",
                 "zero " + "/".join(str(z) for z in self.zero),
                 "recompute " + "/".join(self.recompute), "attention " + "/".join(self.attention)]
        return f"{self.name} ({self.title}, {self.version}): " + ", ".join(p for p in parts if p)


@lru_cache(maxsize=1)
def _table() -> dict:
    with DATA.open("rb") as fh:
        return tomllib.load(fh)


def names() -> list[str]:
    """Every framework the planner knows, the default first."""
    return [DEFAULT] + sorted(k for k in _table() if k != DEFAULT)


@lru_cache(maxsize=None)
def framework(name: str) -> Framework:
    """The framework called *name* (``frameworks.toml``); a :class:`SchedccError` naming
    the known ones otherwise."""
    table = _table()
    if name not in table:
        close = difflib.get_close_matches(name, list(table), n=2)
        raise SchedccError(f"--framework: unknown framework '{name}'",
                           notes=([f"did you mean {close[0]}?"] if close else [])
                           + ["frameworks: " + ", ".join(names())])
    t = table[name]
    return Framework(
        name=name, title=t["title"], version=t["version"], source=t["source"],
        tp=t["tp"], pp=t["pp"], cp=t["cp"], sp=t["sp"], schedules=tuple(t["schedules"]),
        uneven_stages=t["uneven_stages"], zero=tuple(t["zero"]), zero_with_pp=tuple(t["zero_with_pp"]),
        reshard=tuple(t["reshard"]), recompute=tuple(t["recompute"]), attention=tuple(t["attention"]),
        overlap=tuple(t["overlap"]), fsdp_pp_sync=t["fsdp_pp_sync"], loss_bytes=tuple(t["loss_bytes"]),
        defaults=dict(t["defaults"]), stages={int(k): dict(v) for k, v in t.get("stage", {}).items()},
        zero_names={int(k): v for k, v in t.get("zero_names", {}).items()}, options=dict(t.get("options", {})))


# -- how the data-parallel side runs ---------------------------------------------------------
@dataclass(frozen=True)
class Sharding:
    """How a candidate's gradients and weights are reduced, gathered and held (module
    docstring's table). *grad_sync*: ``"none"`` (one data-parallel rank), ``"step"`` (once,
    in the last microbatch's backward), ``"micro"`` (every microbatch's backward, in
    buckets), ``"layer"`` (every layer's backward, FSDP); *gather*: ``"none"``, ``"step"``
    (the updated weights, once per step), ``"layer"`` (every layer before its forward and
    its backward), ``"layer-fwd"`` (before its forward only)."""

    grad_sync: str
    grad_collective: str        # "allreduce" or "reduce_scatter"
    gather: str
    grads_sharded: bool
    weights_sharded: bool       # the bf16 weights are a shard (ZeRO-3 with reshard)
    weights_full_and_shard: bool  # a full bf16 copy and a sharded master (FSDP without reshard)
    optimizer_sharded: bool
    grad_bytes: int             # bytes per gradient element held
    grad_reduce_bytes: int      # bytes per gradient element on the wire
    fp32_params: bool
    optimizer_bytes: int = 12   # optimizer state bytes per parameter before sharding (planner.memory)
    gather_broadcast: bool = False  # the weights gathered by one broadcast per rank, not one all-gather


def sharding(fw: Framework, cand, settings=None) -> Sharding:
    """How *fw* runs *cand*'s data parallelism; *settings* (a resolved
    :class:`~schedcc.planner.space.Settings`) overrides the dtypes. O(1)."""
    z, shard = cand.zero, cand.dp * cand.cp

    def pick(key):
        v = getattr(settings, key, None) if settings is not None else None
        explicit = settings is not None and key in getattr(settings, "explicit", ())
        if v is not None and (explicit or z not in fw.stages or key not in fw.stages[z]):
            return v
        return fw.default(key, z)
    fp32 = bool(pick("fp32_params"))
    reduce_bytes = int(pick("grad_reduce_bytes"))
    grad_bytes = int(pick("grad_bytes"))
    opt = int(pick("optimizer_bytes"))
    if shard == 1:
        return Sharding("none", "allreduce", "none", False, False, False, False, grad_bytes, reduce_bytes, fp32, opt)
    if z == 0:
        return Sharding("step", "allreduce", "none", False, False, False, False, grad_bytes, reduce_bytes, fp32, opt)
    if z == 1:   # the gradients reduce-scattered (Megatron's distributed optimizer) or all-reduced whole
        coll = "allreduce" if getattr(settings, "zero1_allreduce", False) else "reduce_scatter"
        return Sharding("step", coll, "step", False, False, False, True, grad_bytes, reduce_bytes, fp32, opt,
                        bool(getattr(settings, "zero1_param_broadcast", False)))
    if z == 2:
        return Sharding("micro", "reduce_scatter", "step", True, False, False, True, grad_bytes, reduce_bytes, fp32, opt)
    if cand.pp > 1:   # FSDP under a pipeline schedule: no sync, no reshard until the last backward
        return Sharding("step", "reduce_scatter", "step", False, False, True, True, grad_bytes, reduce_bytes, fp32, opt)
    if cand.reshard:
        return Sharding("layer", "reduce_scatter", "layer", True, True, False, True, grad_bytes, reduce_bytes, fp32, opt)
    return Sharding("layer", "reduce_scatter", "layer-fwd", True, False, True, True, grad_bytes, reduce_bytes, fp32, opt)


def param_broadcasts(cand, cluster, model, stage_params, s: int, n_stages: int) -> tuple[float, float]:
    """ZeRO-1's weights redistributed as InternLM's HybridZeroOptimizer does it (broadcast_params):
    one ``dist.broadcast`` of each rank's updated shard, all issued on the ZeRO group's one
    communicator and waited together, so run one after another; a rank holds whole tensors, so
    ``min(ranks, tensors)`` of them. Each pays its own latency and launch
    (:meth:`~schedcc.training.costs.Cluster.collective_time` of one shard's bytes); their bytes
    total the all-gather's. (seconds of them all, the share of a member's NIC they keep busy).
    O(1)."""
    shard, tp = cand.dp * cand.cp, cand.tp
    first, last = s == 0, s == n_stages - 1
    emb = model.embedding_params() * (int(first) + int(last and (not model.tied_embeddings or n_stages > 1)))
    layers = round((stage_params[s] * tp - emb) / model.layer_params())
    count = max(1, min(shard, model.param_tensors(layers, first, last)))
    one = stage_params[s] * 2 / count
    t = cluster.collective_time("broadcast", one, shard, tp)
    return count * t, (min(1.0, cluster.net_time("broadcast", one, shard, tp) / t) if t > 0 else 0.0)


def bucket_plan(elements: float, bucket_elements: int, cap: int) -> tuple[int, list[float]]:
    """Gradient reduction of *elements* in buckets of *bucket_elements* (0: one bucket), as
    at most *cap* graph nodes: (real buckets, the share of *elements* each node carries).
    The last node is one real bucket (it decides what stays exposed after the backward);
    the others share the rest evenly. O(cap).

    >>> bucket_plan(1e9, 40_000_000, 4)
    (25, [0.32, 0.32, 0.32, 0.04])
    >>> bucket_plan(1e6, 40_000_000, 4)
    (1, [1.0])
    """
    n = max(1, -(-int(elements) // bucket_elements)) if bucket_elements else 1
    if n == 1:
        return 1, [1.0]
    k = min(n, cap)
    last = 1.0 / n
    rest = (1.0 - last) / (k - 1)
    return n, [round(rest, 12)] * (k - 1) + [round(last, 12)]

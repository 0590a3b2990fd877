"""The search space: parallel configurations, the rules that make one valid, ``--fix``.

A :class:`Candidate` is one configuration: data, tensor, pipeline and context
parallel degrees (``dp x tp x pp x cp`` = GPUs), virtual stages per pipeline
rank (interleaved 1F1B), microbatch size, pipeline schedule, ZeRO stage,
activation recomputation, sequence parallelism and the communication-overlap
transformation (``overlap``: ``none``, or tensor-parallel collectives and their
GEMMs in ``K`` chunks, ``tp2``/``tp4``/``tp8``/``auto``, see
:mod:`schedcc.planner.overlap`). Recomputation is ``none``, ``selective``
(attention scores), ``full`` (every layer) or ``partial``: the first
``recompute_layers`` layers of every model chunk fully recomputed, the rest
not (Megatron-LM's ``--recompute-granularity full --recompute-method block
--recompute-num-layers N``); unpinned, the planner takes the fewest that fit
in memory (:func:`schedcc.planner.memory.fewest_recomputed_layers`). :class:`Settings` holds what the framework does
and the search does not choose (the framework, the attention kernel, whether
gradient reduction overlaps backward, gradient dtypes).

Rules (:func:`enumerate_space` applies them and says which one removed what):

* ``tp`` divides the heads, the key/value heads and the MLP width; ``tp`` fits
  in a node (``devices_per_node``) unless ``--fix tp=`` asks for more;
* ``cp`` splits the sequence into ``2 cp`` chunks (causal load balancing): it
  divides ``seq / 2``;
* ``pp`` stages of at least one layer each (``virtual`` chunks per stage);
  when the layers do not divide evenly, the first and last stages, which
  also hold the embedding and the output layer, get one layer fewer;
* ``dp = GPUs / (tp cp pp)``; the global batch (sequences) is a multiple of
  ``dp x microbatch``; interleaving needs the microbatches to be a multiple of
  ``pp`` (as Megatron-LM does);
* ZeRO stages 2 and 3 shard gradients (and weights), which pipeline
  parallelism's accumulation over microbatches would have to gather again:
  they need ``pp = 1`` (DeepSpeed's rule), except where the framework runs
  FSDP under a pipeline schedule (torchtitan: gradients reduced once per step,
  weights kept gathered, ``reshard`` off); any ZeRO stage needs ``dp cp > 1``;
* sequence parallelism needs ``tp > 1``; so does communication overlap;
* the framework (``--framework``, :mod:`schedcc.planner.frameworks`) limits
  every dimension to what it offers, and the layers to even stages where it
  has no uneven ones.

With ``pp > 1`` and a framework that offers uneven stages, ``trim`` (layers
taken off the first and last model chunk, which also hold the embedding and
the output layer) is ``-1`` in the space: the scoring chooses it per
candidate (:func:`schedcc.planner.score.choose_trim`); ``--fix trim=N`` pins
it. With ``zero = 3`` both values of ``reshard`` the framework offers are
tried.

Search defaults (each also a rule the report counts; ``--fix`` pins a value
outside them): microbatches of 1, 2 or 4 sequences; pipeline stages of at
least :data:`MIN_STAGE_LAYERS` layers; a pipeline gets at least
as many microbatches as stages (with fewer, more than half of 1F1B is
bubble); context parallelism leaves each rank at least
:data:`CP_MIN_TOKENS` tokens of a sequence (shorter blocks cannot hide the
ring's transfers); with a fused attention kernel, selective recomputation is
the same as none (there are no stored scores to drop) and is not searched
twice; communication overlap ``auto`` with ``tp > 1`` (it picks the chunk
count per layer, 1 being none; ``--fix overlap=none`` or ``tp4`` pins one); with ``tp > 1`` sequence parallelism is on (its reduce-scatter and
all-gather move what tensor parallelism's all-reduce moves, and it keeps a
``tp``-th of the norms' and dropouts' activations and work: Korthikanti et
al., 2022, Section 4.2.2), ``--fix sp=0`` searches without it.

Example::

    >>> from schedcc.planner.model import preset
    >>> space = enumerate_space(preset("gpt3-175b"), gpus=64, global_batch=64, devices_per_node=8,
    ...                         fix=parse_fix("tp=8,pp=8,microbatch=1,zero=0,recompute=selective,sp=1"))
    >>> sorted({(c.schedule, c.virtual) for c in space.candidates})
    [('1f1b', 1), ('interleaved', 2), ('interleaved', 3), ('interleaved', 4), ('interleaved', 6), ('zb-h1', 1), ('zb-h2', 1)]
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields, replace

from schedcc.errors import SchedccError
from schedcc.planner import fix as _fix
from schedcc.planner.fix import OVERLAPS, RECOMPUTE, SCHEDULES, check_framework  # noqa: F401
from schedcc.planner.frameworks import DEFAULT, SETTING_KEYS, framework

ATTENTION = ("flash", "unfused", "triton", "eager", "cudnn")
MICROBATCHES = (1, 2, 4)         # microbatch sizes searched (those the batch allows); --fix for others
VIRTUAL_MAX = 8                  # interleaving depths searched: 2..8 that divide a stage's layers
MIN_STAGE_LAYERS = 4             # a pipeline stage holds at least this many layers (search default)
CP_MIN_TOKENS = 2048             # a context-parallel rank keeps at least this many tokens of a sequence


@dataclass(frozen=True, order=True)
class Candidate:
    """One parallel configuration (module docstring)."""

    dp: int
    tp: int
    pp: int
    cp: int = 1
    virtual: int = 1
    microbatch: int = 1
    schedule: str = "none"       # "none" when pp = 1
    zero: int = 0
    recompute: str = "none"
    sp: bool = False
    overlap: str = "none"
    recompute_layers: int = 0    # recompute="partial": layers of each model chunk recomputed (0: fewest that fit)
    reshard: bool = True         # zero=3: FSDP reshards (frees) the gathered weights after the forward
    trim: int = 0                # layers fewer on the first and last model chunk (-1: chosen when scored)

    @property
    def gpus(self) -> int:
        return self.dp * self.tp * self.pp * self.cp

    def microbatches(self, global_batch: int) -> int:
        """Microbatches each pipeline (data-parallel rank) runs per step."""
        return global_batch // (self.dp * self.microbatch)

    def label(self) -> str:
        """``dp16 tp8 pp8 v5 mb1 interleaved z1 rc=sel sp`` (short, for tables; ``t1``: one layer
        fewer on the first and last chunk; ``z3nr``: FSDP without resharding after forward)."""
        parts = [f"dp{self.dp}", f"tp{self.tp}", f"pp{self.pp}"]
        if self.cp > 1:
            parts.append(f"cp{self.cp}")
        if self.virtual > 1:
            parts.append(f"v{self.virtual}")
        if self.trim > 0:
            parts.append(f"t{self.trim}")
        parts.append(f"mb{self.microbatch}")
        if self.pp > 1:
            parts.append(self.schedule)
        parts.append(f"z{self.zero}" + ("nr" if self.zero == 3 and not self.reshard else ""))
        parts.append({"none": "rc=none", "selective": "rc=sel", "full": "rc=full"}.get(self.recompute)
                     or f"rc=part{self.recompute_layers or ''}")
        if self.sp:
            parts.append("sp")
        if self.overlap != "none":
            parts.append(f"ov={self.overlap}")
        return " ".join(parts)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Settings:
    """What the framework does; the same for every candidate of a search. Fields left
    ``None`` take the framework's defaults (``frameworks.toml``) when constructed;
    ``explicit`` records the ones given."""

    framework: str = DEFAULT          # schedcc.planner.frameworks: what can run and how it is priced
    attention: str | None = None      # "flash": fused kernel; "unfused": QK^T, softmax, dropout, PV apart;
    #                                   "triton": the 2023 Triton FlashAttention (slower, layer.TRITON_FLASH_SLOWDOWN);
    #                                   "eager": unfused, the softmax as torch operators in fp32 (kernels.SOFTMAX_BYTES)
    grad_overlap: bool | None = None  # gradient reduction overlaps the backward that produces it
    param_gather_overlap: bool | None = None  # ZeRO 1/2's weight gather overlaps the first forwards
    bucket_elements: int | None = None  # gradients per reduction bucket (0: one bucket per model chunk)
    grad_bytes: int | None = None     # bytes per gradient element held (4: fp32 main gradients)
    grad_reduce_bytes: int | None = None  # bytes per gradient element reduced (4: fp32; 2: bf16)
    fp32_params: bool | None = None   # parameters kept in fp32 (PyTorch FSDP): they are the master copy
    optimizer_bytes: int | None = None  # optimizer state per parameter before sharding (12: fp32 Adam + master)
    tp_cross_node: bool = False       # let tensor parallelism span nodes
    expandable_segments: bool = False  # the allocator's expandable segments: no fragmentation (memory.FRAGMENTATION)
    tp_async_allreduce: bool = True   # the input gradient's tensor-parallel all-reduce runs under the weight-gradient
    #                                   GEMM (Megatron-LM's async all-reduce); False: after it, as autograd orders
    #                                   copy_to_tensor_model_parallel_region + F.linear (BigScience's 2022 fork)
    zero1_allreduce: bool = False     # ZeRO-1: the whole gradients all-reduced, each rank updating its shard
    #                                   (DeepSpeed's BF16_Optimizer, InternLM's HybridZeroOptimizer); False:
    #                                   reduce-scattered (Megatron-LM's distributed optimizer)
    zero1_param_broadcast: bool = False  # ZeRO-1: each rank broadcasts its updated shard, one broadcast
    #                                   per rank holding tensors (InternLM's HybridZeroOptimizer.broadcast_params);
    #                                   False: one all-gather
    buckets: int = 4                  # at most this many graph nodes per model chunk's gradient reduction
    explicit: tuple[str, ...] | None = None

    def __post_init__(self):
        fw = framework(self.framework)
        if self.explicit is None:
            given = tuple(k for k in SETTING_KEYS + ("attention",) if getattr(self, k) is not None)
            object.__setattr__(self, "explicit", given)
        if self.attention is None:
            object.__setattr__(self, "attention", fw.attention[0])
        for key in SETTING_KEYS:
            if getattr(self, key) is None:
                object.__setattr__(self, key, fw.default(key))
        # the gradient buffer is the reduction buffer where the framework keeps both in one dtype
        if ("grad_reduce_bytes" in self.explicit and "grad_bytes" not in self.explicit and not self.fp32_params
                and fw.default("grad_bytes") == fw.default("grad_reduce_bytes")):
            object.__setattr__(self, "grad_bytes", self.grad_reduce_bytes)
        # fp32 parameters are the master copy: the optimizer keeps only the moments (4 bytes less)
        if ("fp32_params" in self.explicit and "optimizer_bytes" not in self.explicit
                and bool(self.fp32_params) != bool(fw.default("fp32_params"))):
            object.__setattr__(self, "optimizer_bytes",
                               fw.default("optimizer_bytes") + (-4 if self.fp32_params else 4))


def parse_fix(text: str | dict | None) -> dict:
    """``"tp=8,pp=8,recompute=selective,sp=1"`` -> a dict of pinned dimensions, checked
    against :class:`Candidate`'s fields (:func:`schedcc.planner.fix.parse_fix`)."""
    return _fix.parse_fix(text, [f.name for f in fields(Candidate)])


def stage_layers(layers: int, chunks: int, trim: int = 0) -> tuple[int, ...] | None:
    """Layers of each of *chunks* model chunks; None when a chunk would get none.

    *trim* = 0: even, or one fewer on the first and last chunk (they hold the embedding and
    the output layer), then on their neighbours, when the layers do not divide:
    ``stage_layers(126, 16)`` -> 7, 8 x 14, 7. *trim* = t > 0: the first and last chunk get
    about t fewer than the others, which share the rest evenly (the extra layers nearest the
    middle), as Llama 3 trained: ``stage_layers(80, 8, 1)`` -> 9, 10, 10, 11, 11, 10, 10, 9.
    O(chunks)."""
    if chunks > layers:
        return None
    if trim > 0:
        if chunks < 3:
            return None
        end = max(1, round((layers + 2 * trim) / chunks - trim))
        middle = chunks - 2
        base, extra = divmod(layers - 2 * end, middle)
        if base < 1:
            return None
        mids = [base] * middle
        centre = (middle - 1) / 2
        for i in sorted(range(middle), key=lambda i: (abs(i - centre), i))[:extra]:
            mids[i] += 1
        return (end, *mids, end)
    base = math.ceil(layers / chunks)
    out = [base] * chunks
    short = base * chunks - layers
    order = [i for pair in zip(range(chunks), reversed(range(chunks))) for i in pair]
    seen = []
    for i in order:
        if i not in seen:
            seen.append(i)
    for i in seen[:short]:
        out[i] -= 1
    return tuple(out) if min(out) >= 1 else None


TRIMS = (1, 2)   # trims the search weighs per candidate (score.choose_trim); --fix trim=N pins one


def _short_ends(layers: int, chunks: int) -> bool:
    """Uneven chunks as Llama 3 trains its 126 layers (one layer fewer on the first and the
    last chunk, which hold the embedding and the output layer): 126 layers in 32 chunks."""
    short = math.ceil(layers / chunks) * chunks - layers
    return 0 < short <= 2 and math.ceil(layers / chunks) > 1


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


@dataclass
class Space:
    """The candidates that pass every rule, and what the rules removed (rule -> count, example)."""

    candidates: list[Candidate]
    removed: dict[str, list] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def remove(self, rule: str, example: str) -> None:
        entry = self.removed.setdefault(rule, [0, example])
        entry[0] += 1


def enumerate_space(model, gpus: int, global_batch: int, devices_per_node: int, fix: dict | None = None,
                    overlaps: tuple[str, ...] = OVERLAPS, attention: str = "flash", fw=None) -> Space:
    """Every candidate for *model* on *gpus* devices with *global_batch* sequences per step
    that the framework *fw* (a :class:`~schedcc.planner.frameworks.Framework`; default
    ``any``) can run."""
    fix = fix or {}
    fw = fw or framework(DEFAULT)
    space = Space([])
    if gpus < 1:
        raise SchedccError(f"--gpus must be at least 1, got {gpus}")
    if global_batch < 1:
        raise SchedccError(f"--global-batch must be at least 1, got {global_batch}")

    if all(k in fix for k in ("dp", "tp", "pp")):
        product = fix["dp"] * fix["tp"] * fix["pp"] * fix.get("cp", 1)
        if (gpus % product if "cp" not in fix else product != gpus):
            shown = " x ".join(f"{k}={fix[k]}" for k in ("dp", "tp", "pp", "cp") if k in fix)
            raise SchedccError(f"contradictory --fix: {shown} uses {product:,} GPUs, not the {gpus:,} of --gpus",
                               notes=["dp x tp x pp x cp must equal --gpus; leave one of them unpinned to let the "
                                      "search derive it"])
    not_offered = f"{fw.name} does not offer it"

    def allowed(key, values):
        out = []
        for v in values:
            if fix.get(key, v) != v:
                continue
            if not fw.offers(key, v):
                space.remove(f"--framework {not_offered}: {key} > 1", f"{key}={v}")
                continue
            out.append(v)
        return out

    for tp in allowed("tp", _divisors(gpus)):
        if model.heads % tp or model.kv % tp or model.ffn_size % tp:
            space.remove("tp must divide the heads, the key/value heads and the MLP width", f"tp={tp}")
            continue
        if tp > devices_per_node and "tp" not in fix:
            space.remove("tp stays inside a node (--fix tp= to cross)", f"tp={tp} > {devices_per_node} per node")
            continue
        for cp in allowed("cp", _divisors(gpus // tp)):
            if cp > 1 and (model.seq // 2) % cp:
                space.remove("cp must divide seq/2 (2 cp chunks per sequence)", f"cp={cp}, seq={model.seq}")
                continue
            if cp > 1 and model.seq // cp < CP_MIN_TOKENS and "cp" not in fix:
                space.remove(f"search default: at least {CP_MIN_TOKENS} tokens per context-parallel rank",
                             f"cp={cp}, seq={model.seq}")
                continue
            for pp in allowed("pp", _divisors(gpus // (tp * cp))):
                if pp > model.layers:
                    space.remove("at least one layer per stage", f"pp={pp} > {model.layers} layers")
                    continue
                if pp > 1 and model.layers < MIN_STAGE_LAYERS * pp and "pp" not in fix:
                    space.remove(f"search default: at least {MIN_STAGE_LAYERS} layers per pipeline stage",
                                 f"pp={pp}, {model.layers} layers")
                    continue
                if not fw.uneven_stages and model.layers % pp:
                    space.remove(f"--framework {fw.name} needs the layers to divide evenly over the stages",
                                 f"{model.layers} layers, pp={pp}")
                    continue
                dp = gpus // (tp * cp * pp)
                if fix.get("dp", dp) != dp:
                    space.remove("dp = GPUs / (tp cp pp)", f"tp={tp} cp={cp} pp={pp} gives dp={dp}")
                    continue
                _expand(model, space, fix, overlaps, global_batch, dp, tp, pp, cp, attention, fw)
    if not space.candidates:
        _explain_empty(model, gpus, global_batch, devices_per_node, fix, space)
    return space


def _schedules(model, space: Space, fix: dict, pp: int, fw) -> list[tuple[str, int]]:
    """(schedule, virtual) pairs for *pp* stages that *fw* offers and the layers allow."""
    if pp == 1:
        return [("none", 1)] if fix.get("schedule", "none") == "none" else []
    scheds = []
    for s in SCHEDULES:
        if fix.get("schedule", s) != s:
            continue
        if not fw.offers("schedule", s):
            space.remove(f"--framework {fw.name} does not offer the schedule", f"schedule={s}")
            continue
        if s != "interleaved":
            if fix.get("virtual", 1) == 1 and stage_layers(model.layers, pp):
                scheds.append((s, 1))
            continue
        per_stage = model.layers // pp
        vs = [fix["virtual"]] if "virtual" in fix else [v for v in range(2, VIRTUAL_MAX + 1)
                                                        if (per_stage % v == 0 and model.layers % pp == 0)
                                                        or (fw.uneven_stages and _short_ends(model.layers, pp * v))]
        for v in vs:
            if not fw.uneven_stages and model.layers % (pp * v):
                space.remove(f"--framework {fw.name} needs the layers to divide evenly over the stages",
                             f"{model.layers} layers, pp={pp} virtual={v}")
            elif stage_layers(model.layers, pp * v):
                scheds.append(("interleaved", v))
            else:
                space.remove("at least one layer per model chunk", f"pp={pp} virtual={v}")
    return scheds


def _expand(model, space: Space, fix: dict, overlaps, global_batch: int, dp: int, tp: int, pp: int, cp: int,
            attention: str, fw):
    per_dp = global_batch / dp
    if per_dp != int(per_dp):
        space.remove("the global batch must be a multiple of dp", f"batch {global_batch}, dp={dp}")
        return
    mbs = [b for b in (MICROBATCHES if "microbatch" not in fix else (fix["microbatch"],)) if int(per_dp) % b == 0]
    if not mbs:
        space.remove("the batch per data-parallel rank must be a multiple of the microbatch",
                     f"batch/dp={int(per_dp)}, microbatch={fix.get('microbatch')}")
        return
    scheds = _schedules(model, space, fix, pp, fw)
    if not scheds:
        space.remove("no pipeline schedule fits", f"pp={pp} with the fixed schedule/virtual")
        return
    zeros = [z for z in range(4) if fix.get("zero", z) == z]
    trim = fix.get("trim", -1 if fw.uneven_stages and pp > 1 else 0)
    for b in mbs:
        m = int(per_dp) // b
        if pp > 1 and m < pp and "microbatch" not in fix:
            space.remove("search default: at least as many microbatches as pipeline stages", f"m={m}, pp={pp}")
            continue
        for sched, v in scheds:
            if sched == "interleaved" and m % pp:
                space.remove("interleaving needs the microbatches to be a multiple of pp", f"m={m}, pp={pp}")
                continue
            if trim > 0 and not stage_layers(model.layers, pp * v, trim):
                space.remove("trim leaves at least one layer on the first and last chunk",
                             f"pp={pp} virtual={v} trim={trim}")
                continue
            for z in zeros:
                for reshard in _reshards(space, fix, fw, z, dp * cp, pp):
                    _expand_rest(model, space, fix, overlaps, attention, fw, (dp, tp, pp, cp, v, b, sched, z),
                                 reshard, trim)


def _reshards(space: Space, fix: dict, fw, z: int, shard: int, pp: int) -> list[bool]:
    """The ZeRO stage *z* is offered and possible; the reshard values to try with it."""
    if z and shard == 1:
        space.remove("ZeRO needs dp x cp > 1 (something to shard over)", f"zero={z}, dp x cp=1")
        return []
    if not fw.offers("zero", z):
        space.remove(f"--framework {fw.name} does not offer the ZeRO stage", f"zero={z}")
        return []
    if z >= 2 and pp > 1 and z not in fw.zero_with_pp:
        space.remove(f"ZeRO {z} needs pp = 1 under --framework {fw.name}", f"zero={z}, pp={pp}")
        return []
    if z != 3:
        return [True] if fix.get("reshard", True) else []
    if pp > 1:   # FSDP under a pipeline schedule keeps the weights gathered through the step
        return [False] if not fix.get("reshard", False) else []
    return [r for r in fw.reshard if fix.get("reshard", r) == r]


def _expand_rest(model, space: Space, fix: dict, overlaps, attention: str, fw, shape: tuple, reshard: bool,
                 trim: int) -> None:
    dp, tp, pp, cp, v, b, sched, z = shape
    searched_overlap = "auto" if fw.offers("overlap", "auto") else "none"
    for rc in RECOMPUTE:
        if fix.get("recompute", rc) != rc:
            continue
        if not fw.offers("recompute", rc):
            space.remove(f"--framework {fw.name} does not offer the recomputation", f"recompute={rc}")
            continue
        if rc == "selective" and attention not in ("unfused", "eager") and "recompute" not in fix:
            space.remove("search default: under a fused attention kernel selective recomputation keeps as much "
                         "and recomputes the kernel",
                         "recompute=selective")
            continue
        n_rc = fix.get("recompute_layers", 0) if rc == "partial" else 0
        if rc == "partial" and max(stage_layers(model.layers, pp * v)) < max(2, n_rc + 1):
            space.remove("partial recomputation leaves at least one layer of a chunk unrecomputed",
                         f"pp={pp} virtual={v} recompute_layers={n_rc}")
            continue
        for sp in ((False, True) if tp > 1 else (False,)):
            if fix.get("sp", sp) != sp:
                continue
            if sp and not fw.sp:
                space.remove(f"--framework {fw.name} does not offer sequence parallelism", f"tp={tp} sp=1")
                continue
            if tp > 1 and not sp and "sp" not in fix and fw.sp:
                space.remove("search default: sequence parallelism with tp > 1 (same communication, "
                             "less memory and norm work; --fix sp=0 to search without)", f"tp={tp} sp=0")
                continue
            for ov in overlaps:
                if fix.get("overlap", ov) != ov:
                    continue
                if ov != "none" and tp == 1:
                    if "overlap" not in fix:
                        continue  # nothing to overlap: not a candidate, not worth a rule line
                    space.remove("overlap needs tp > 1 (it chunks tensor-parallel collectives)", f"overlap={ov}, tp=1")
                    continue
                if tp > 1 and ov != searched_overlap and "overlap" not in fix:
                    continue  # none/tp2/tp4/tp8 only when pinned: auto tries each per layer
                if not fw.offers("overlap", ov):
                    space.remove(f"--framework {fw.name} does not offer the overlap", f"overlap={ov}")
                    continue
                space.candidates.append(Candidate(dp, tp, pp, cp, v, b, sched, z, rc, sp, ov, n_rc, reshard, trim))


def _explain_empty(model, gpus, global_batch, devices_per_node, fix, space: Space) -> None:
    rules = "; ".join(f"{rule} ({n}x, e.g. {ex})" for rule, (n, ex) in space.removed.items())
    if fix:
        pinned = ",".join(f"{k}={int(v) if isinstance(v, bool) else v}" for k, v in fix.items())
        raise SchedccError(f"no configuration of {gpus} GPUs satisfies --fix {pinned}",
                           notes=[rules or "the pinned values leave nothing to search"])
    raise SchedccError(f"no parallel configuration can use {gpus} GPUs with a global batch of {global_batch}",
                       notes=[rules or "nothing to search",
                              f"try a GPU count whose factors fit the model (e.g. a multiple of {devices_per_node}) "
                              f"or a batch divisible by more data-parallel degrees"])


def with_fix(c: Candidate, **changes) -> Candidate:
    return replace(c, **changes)

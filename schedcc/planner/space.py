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
and the search does not choose (the attention kernel, whether gradient
reduction overlaps backward).

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
  they need ``pp = 1`` (DeepSpeed's rule); any ZeRO stage needs ``dp cp > 1``;
* sequence parallelism needs ``tp > 1``; so does communication overlap.

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

SCHEDULES = ("1f1b", "interleaved", "zb-h1", "zb-h2")
RECOMPUTE = ("none", "selective", "full", "partial")
ATTENTION = ("flash", "unfused")
MICROBATCHES = (1, 2, 4)         # microbatch sizes searched (those the batch allows); --fix for others
VIRTUAL_MAX = 8                  # interleaving depths searched: 2..8 that divide a stage's layers
MIN_STAGE_LAYERS = 4             # a pipeline stage holds at least this many layers (search default)
CP_MIN_TOKENS = 2048             # a context-parallel rank keeps at least this many tokens of a sequence
OVERLAPS = ("none", "tp2", "tp4", "tp8", "auto")  # tp communication overlap (schedcc.planner.overlap)
SEARCHED_OVERLAPS = ("auto",)     # search default with tp > 1 (auto weighs K = 1, 2, 4, 8 per layer); --fix pins others


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

    @property
    def gpus(self) -> int:
        return self.dp * self.tp * self.pp * self.cp

    def microbatches(self, global_batch: int) -> int:
        """Microbatches each pipeline (data-parallel rank) runs per step."""
        return global_batch // (self.dp * self.microbatch)

    def label(self) -> str:
        """``dp16 tp8 pp8 v5 mb1 interleaved z1 rc=sel sp`` (short, for tables)."""
        parts = [f"dp{self.dp}", f"tp{self.tp}", f"pp{self.pp}"]
        if self.cp > 1:
            parts.append(f"cp{self.cp}")
        if self.virtual > 1:
            parts.append(f"v{self.virtual}")
        parts.append(f"mb{self.microbatch}")
        if self.pp > 1:
            parts.append(self.schedule)
        parts.append(f"z{self.zero}")
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
    """What the framework does; the same for every candidate of a search."""

    attention: str = "flash"          # "flash": fused kernel; "unfused": QK^T, softmax, dropout, PV apart
    grad_overlap: bool = True         # gradient reduction overlaps the last microbatch's backward
    param_gather_overlap: bool = True  # ZeRO's parameter gather overlaps the first forwards
    buckets: int = 4                  # gradient buckets per model chunk
    grad_reduce_bytes: int = 4        # bytes per gradient element reduced (4: Megatron's fp32; 2: FSDP in bf16)
    tp_cross_node: bool = False       # let tensor parallelism span nodes
    fp32_params: bool = False         # parameters kept in fp32 (PyTorch FSDP mixed precision): they are the master copy


_INT_KEYS = ("dp", "tp", "pp", "cp", "virtual", "microbatch", "zero", "recompute_layers")
_ALIASES = {"v": "virtual", "vp": "virtual", "mb": "microbatch", "mbs": "microbatch", "micro_batch": "microbatch",
            "micro-batch": "microbatch", "sequence_parallel": "sp", "sequence-parallel": "sp",
            "recompute-layers": "recompute_layers", "recompute_num_layers": "recompute_layers"}


def parse_fix(text: str | dict | None) -> dict:
    """``"tp=8,pp=8,recompute=selective,sp=1"`` -> a dict of pinned dimensions, checked."""
    if not text:
        return {}
    items = text.items() if isinstance(text, dict) else (p.partition("=")[::2] for p in text.split(",") if p.strip())
    out: dict = {}
    names = [f.name for f in fields(Candidate)]
    for key, value in items:
        key = str(key).strip().lower()
        key = _ALIASES.get(key, key)
        value = str(value).strip().lower()
        if key not in names:
            import difflib
            close = difflib.get_close_matches(key, names, n=2)
            raise SchedccError(f"--fix: unknown dimension '{key}'",
                               notes=([f"did you mean {close[0]}?"] if close else []) + ["dimensions: " + ", ".join(names)])
        if not value:
            raise SchedccError(f"--fix {key}: needs a value, e.g. --fix {key}=...")
        if key in _INT_KEYS:
            if not value.isdigit() or int(value) < (0 if key == "zero" else 1):
                raise SchedccError(f"--fix {key}={value}: expected a whole number"
                                   + (" from 0 to 3" if key == "zero" else " of at least 1"))
            v: object = int(value)
            if key == "zero" and v > 3:
                raise SchedccError(f"--fix zero={value}: ZeRO stages are 0, 1, 2 and 3")
        elif key == "sp":
            if value not in ("0", "1", "true", "false", "on", "off", "yes", "no"):
                raise SchedccError(f"--fix sp={value}: expected 1 or 0")
            v = value in ("1", "true", "on", "yes")
        elif key == "schedule":
            if value not in SCHEDULES + ("none",):
                raise SchedccError(f"--fix schedule={value}: unknown pipeline schedule",
                                   notes=["schedules: " + ", ".join(SCHEDULES) + " (none when pp=1)"])
            v = value
        elif key == "recompute":
            value = {"sel": "selective", "no": "none", "off": "none", "part": "partial"}.get(value, value)
            if value not in RECOMPUTE:
                raise SchedccError(f"--fix recompute={value}: choose none, selective, full or partial")
            v = value
        else:  # overlap
            if value not in OVERLAPS:
                raise SchedccError(f"--fix overlap={value}: unknown overlap transformation",
                                   notes=["known: " + ", ".join(OVERLAPS)])
            v = value
        if key in out and out[key] != v:
            raise SchedccError(f"--fix gives {key} twice: {out[key]} and {v}")
        out[key] = v
    if "recompute_layers" in out:
        if out.setdefault("recompute", "partial") != "partial":
            raise SchedccError(f"contradictory --fix: recompute_layers={out['recompute_layers']} with "
                               f"recompute={out['recompute']}", notes=["recompute_layers needs recompute=partial"])
    _check_fix(out)
    return out


def _check_fix(fix: dict) -> None:
    """Contradictions among pinned values alone (the rest is checked against the model)."""
    def bad(msg, note):
        raise SchedccError(f"contradictory --fix: {msg}", notes=[note])
    if fix.get("pp") == 1 and fix.get("schedule") not in (None, "none"):
        bad(f"schedule={fix['schedule']} with pp=1", "a pipeline schedule needs pp > 1")
    if fix.get("pp", 2) > 1 and fix.get("schedule") == "none":
        bad(f"schedule=none with pp={fix['pp']}", "pp > 1 needs a pipeline schedule: " + ", ".join(SCHEDULES))
    if fix.get("virtual", 1) > 1 and fix.get("schedule") not in (None, "interleaved"):
        bad(f"virtual={fix['virtual']} with schedule={fix['schedule']}", "virtual stages need schedule=interleaved")
    if fix.get("schedule") == "interleaved" and fix.get("virtual") == 1:
        bad("schedule=interleaved with virtual=1", "interleaving needs virtual >= 2")
    if fix.get("virtual", 1) > 1 and fix.get("pp") == 1:
        bad(f"virtual={fix['virtual']} with pp=1", "virtual stages need pp > 1")
    if fix.get("sp") and fix.get("tp") == 1:
        bad("sp=1 with tp=1", "sequence parallelism splits the tensor-parallel group's work: it needs tp > 1")
    if fix.get("zero", 0) >= 2 and fix.get("pp", 1) > 1:
        bad(f"zero={fix['zero']} with pp={fix['pp']}", "ZeRO stages 2 and 3 need pp=1 (docs/planner.md)")


def stage_layers(layers: int, chunks: int) -> tuple[int, ...] | None:
    """Layers of each of *chunks* model chunks: even, or one fewer on the first and last
    (they hold the embedding and the output layer), then on their neighbours; None when a
    chunk would get none. ``stage_layers(126, 16)`` -> 7, 8 x 14, 7."""
    if chunks > layers:
        return None
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
                    overlaps: tuple[str, ...] = OVERLAPS, attention: str = "flash") -> Space:
    """Every candidate for *model* on *gpus* devices with *global_batch* sequences per step."""
    fix = fix or {}
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

    def allowed(key, values):
        return [v for v in values if fix.get(key, v) == v]

    tps = allowed("tp", _divisors(gpus))
    for tp in tps:
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
                dp = gpus // (tp * cp * pp)
                if fix.get("dp", dp) != dp:
                    space.remove("dp = GPUs / (tp cp pp)", f"tp={tp} cp={cp} pp={pp} gives dp={dp}")
                    continue
                _expand(model, space, fix, overlaps, global_batch, dp, tp, pp, cp, attention)
    if not space.candidates:
        _explain_empty(model, gpus, global_batch, devices_per_node, fix, space)
    return space


def _expand(model, space: Space, fix: dict, overlaps, global_batch: int, dp: int, tp: int, pp: int, cp: int,
            attention: str):
    per_dp = global_batch / dp
    if per_dp != int(per_dp):
        space.remove("the global batch must be a multiple of dp", f"batch {global_batch}, dp={dp}")
        return
    mbs = [b for b in (MICROBATCHES if "microbatch" not in fix else (fix["microbatch"],)) if int(per_dp) % b == 0]
    if not mbs:
        space.remove("the batch per data-parallel rank must be a multiple of the microbatch",
                     f"batch/dp={int(per_dp)}, microbatch={fix.get('microbatch')}")
        return
    if pp == 1:
        scheds = [("none", 1)] if fix.get("schedule", "none") == "none" else []
    else:
        scheds = []
        for s in SCHEDULES:
            if fix.get("schedule", s) != s:
                continue
            if s != "interleaved":
                if fix.get("virtual", 1) == 1 and stage_layers(model.layers, pp):
                    scheds.append((s, 1))
                continue
            per_stage = model.layers // pp
            vs = [fix["virtual"]] if "virtual" in fix else [v for v in range(2, VIRTUAL_MAX + 1)
                                                            if (per_stage % v == 0 and model.layers % pp == 0)
                                                            or _short_ends(model.layers, pp * v)]
            for v in vs:
                if stage_layers(model.layers, pp * v):
                    scheds.append(("interleaved", v))
                else:
                    space.remove("at least one layer per model chunk", f"pp={pp} virtual={v}")
    if not scheds:
        space.remove("no pipeline schedule fits", f"pp={pp} with the fixed schedule/virtual")
        return
    zeros = [z for z in range(4) if fix.get("zero", z) == z]
    for b in mbs:
        m = int(per_dp) // b
        if pp > 1 and m < pp and "microbatch" not in fix:
            space.remove("search default: at least as many microbatches as pipeline stages", f"m={m}, pp={pp}")
            continue
        for sched, v in scheds:
            if sched == "interleaved" and m % pp:
                space.remove("interleaving needs the microbatches to be a multiple of pp", f"m={m}, pp={pp}")
                continue
            for z in zeros:
                if z and dp * cp == 1:
                    space.remove("ZeRO needs dp x cp > 1 (something to shard over)", f"zero={z}, dp={dp} cp={cp}")
                    continue
                if z >= 2 and pp > 1:
                    space.remove("ZeRO 2 and 3 need pp = 1", f"zero={z}, pp={pp}")
                    continue
                for rc in RECOMPUTE:
                    if fix.get("recompute", rc) != rc:
                        continue
                    if rc == "selective" and attention == "flash" and "recompute" not in fix:
                        space.remove("search default: selective recomputation is none under flash attention",
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
                        if tp > 1 and not sp and "sp" not in fix:
                            space.remove("search default: sequence parallelism with tp > 1 (same communication, "
                                         "less memory and norm work; --fix sp=0 to search without)", f"tp={tp} sp=0")
                            continue
                        for ov in overlaps:
                            if fix.get("overlap", ov) != ov:
                                continue
                            if ov != "none" and tp == 1:
                                if "overlap" not in fix:
                                    continue  # nothing to overlap: not a candidate, not worth a rule line
                                space.remove("overlap needs tp > 1 (it chunks tensor-parallel collectives)",
                                             f"overlap={ov}, tp=1")
                                continue
                            if tp > 1 and ov not in SEARCHED_OVERLAPS and "overlap" not in fix:
                                continue  # none/tp2/tp4/tp8 only when pinned: auto tries each per layer
                            space.candidates.append(Candidate(dp, tp, pp, cp, v, b, sched, z, rc, sp, ov, n_rc))


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

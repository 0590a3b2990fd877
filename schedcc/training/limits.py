"""The ranges of a model's sizes and of its parallel layout, and the rules
that tie them together: one table for ``schedcc gen``, ``schedcc pipeline``,
``schedcc plan`` and the library functions behind them.

Each bound is generous for real models (the largest published dense models
have about 130 layers, hidden sizes of 20-30 thousand, and run on tens of
thousands of GPUs) and small enough that a run stays within seconds and the
numbers it derives (FLOPs, bytes, up to 1e18) stay exact; docs/cli.md lists
them. :func:`check_layout` holds the combinations every command refuses the
same way: ``--hidden 100 --heads 3``, ``--tp`` above ``--heads``,
``--sequence-parallel`` without tensor parallelism, ``--zero`` without data
parallelism.

Example::

    >>> check_size("layers", 80)
    80
    >>> check_size("layers", 10**6)
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: --layers must be a whole number from 1 to 1,024 (the deepest published models have about 130 layers; each layer is scheduled), got 1000000
    >>> check_layout(hidden=100, heads=3)
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: --hidden (100) must be a multiple of --heads (3)
"""

from __future__ import annotations

from typing import NamedTuple

from schedcc.errors import SchedccError, check_range


class Limit(NamedTuple):
    lo: int
    hi: int
    why: str


MIB_RANGE = (0.001, 1_048_576)  # bucket, partition and credit sizes in MiB
MIB_WHY = "MiB, from a kilobyte to a tebibyte"

# option name (without dashes, underscores for hyphens) -> its range and why it ends there
SIZES: dict[str, Limit] = {
    "layers": Limit(1, 1024, "the deepest published models have about 130 layers; each layer is scheduled"),
    "hidden": Limit(1, 262_144, "ten times the widest published model"),
    "heads": Limit(1, 8192, "attention heads; the widest published models have 128"),
    "kv_heads": Limit(1, 8192, "key/value heads, at most --heads"),
    "ffn_hidden": Limit(1, 1_048_576, "ten times the widest published MLP"),
    "seq": Limit(1, 1_048_576, "a million-token context"),
    "vocab": Limit(1, 4_194_304, "ten times the largest published vocabulary"),
    "micro_batch": Limit(1, 4096, "sequences per microbatch"),
    "microbatches": Limit(1, 4096, "each microbatch's operators are scheduled"),
    "global_batch": Limit(1, 1_048_576, "sequences per optimizer step; published runs use at most a few thousand"),
    "gpus": Limit(1, 131_072, "the largest clusters built have about 100,000 GPUs"),
    "dp": Limit(1, 131_072, "data-parallel replicas, at most the largest cluster"),
    "tp": Limit(1, 1024, "tensor-parallel ranks"),
    "pp": Limit(1, 1024, "pipeline stages, at most --layers"),
    "cp": Limit(1, 1024, "context-parallel ranks"),
    "ep": Limit(1, 4096, "expert-parallel ranks, at most --experts"),
    "experts": Limit(0, 4096, "experts per layer (0: a dense MLP); published models have at most 256"),
    "top_k": Limit(1, 64, "experts per token"),
    "virtual": Limit(1, 128, "model chunks per pipeline rank"),
}


def option(name: str) -> str:
    """The command-line spelling of a size: ``micro_batch`` -> ``--micro-batch``."""
    return "--" + name.replace("_", "-")


def check_size(name: str, value) -> int:
    """*value* for the size *name* of :data:`SIZES`, or a :class:`SchedccError` naming its
    option, range and why. O(1)."""
    lim = SIZES[name]
    return check_range(value, lim.lo, lim.hi, option(name), integer=True, why=lim.why)  # type: ignore[return-value]


def check_layout(*, hidden: int | None = None, heads: int | None = None, kv_heads: int | None = None,
                 layers: int | None = None, tp: int | None = None, pp: int | None = None, dp: int | None = None,
                 sequence_parallel: bool = False, zero: bool | int = False, experts: int = 0, top_k: int | None = None,
                 ep: int | None = None, seq: int | None = None, micro_batch: int = 1) -> None:
    """Refuse a model and layout that no framework runs; every argument is optional and
    checked only with the others it needs. The message names the options. O(1).

    >>> check_layout(heads=8, tp=16)
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: --tp (16) must divide --heads (8): each tensor-parallel rank holds whole heads
    """
    if hidden is not None and heads is not None and hidden % heads:
        raise SchedccError(f"--hidden ({hidden}) must be a multiple of --heads ({heads})")
    if heads is not None and kv_heads is not None and (kv_heads > heads or heads % kv_heads):
        raise SchedccError(f"--kv-heads ({kv_heads}) must divide --heads ({heads})")
    if tp is not None and tp > 1:
        if heads is not None and heads % tp:
            raise SchedccError(f"--tp ({tp}) must divide --heads ({heads}): each tensor-parallel rank holds "
                               "whole heads")
        if hidden is not None and hidden % tp:
            raise SchedccError(f"--hidden ({hidden}) must be a multiple of --tp ({tp})")
    if sequence_parallel:
        if tp is not None and tp == 1:
            raise SchedccError("--sequence-parallel needs tensor parallelism (--tp 2 or more): it splits the "
                               "tokens over the tensor-parallel ranks")
        if tp and seq is not None and (seq * micro_batch) % tp:
            raise SchedccError(f"--sequence-parallel splits the {seq * micro_batch} tokens of a microbatch over "
                               f"--tp {tp}: they must divide evenly")
    if zero and dp is not None and dp == 1:
        raise SchedccError("--zero shards over the data-parallel ranks: it needs --dp 2 or more")
    if layers is not None and pp is not None:
        if pp > layers:
            raise SchedccError(f"--pp ({pp}) is more than --layers ({layers}): every stage needs a layer")
    if experts:
        if top_k is not None and top_k > experts:
            raise SchedccError(f"--top-k ({top_k}) must be at most --experts ({experts})")
        if ep is not None and (experts % ep or (dp is not None and dp % ep)):
            raise SchedccError(f"--ep ({ep}) must divide --experts ({experts})"
                               + (f" and --dp ({dp})" if dp is not None else ""),
                               notes=["expert parallelism takes its ranks from the data-parallel group"])
    elif ep is not None and ep > 1:
        raise SchedccError(f"--ep {ep} needs mixture-of-experts layers: give --experts")

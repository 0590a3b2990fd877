"""The model a plan is for: a decoder-only transformer, its sizes, parameters and FLOPs.

A :class:`ModelSpec` comes from the command line (``schedcc plan transformer
--layers 80 --hidden 8192 ...``) or from a named preset in
``schedcc/planner/models.toml`` (every preset names its source).

FLOPs (multiply-adds count 2). Per sequence of ``s`` tokens, forward:

* every weight matrix: ``2 s`` x its parameters: per layer the attention
  projections ``h (h + 2 g d) + h h`` (``g`` key/value heads of width ``d``)
  and the MLP ``2 h f`` (``3 h f`` gated, SwiGLU); the output layer ``h V``;
* attention: ``4 s^2 h`` per layer (``QK^T`` and ``PV`` over all ``s^2``
  pairs, as Megatron-LM counts them, causal mask or not).

**Model FLOPs** of a step are three forward passes (forward, and a backward
twice as large) of every sequence; for a GPT with ``f = 4h`` and ``g`` = heads
this is Korthikanti et al.'s ``72 B L s h^2 (1 + s/(6h) + V/(12 h L))``.
MFU = model FLOPs / (step time x GPUs x peak). **Hardware FLOPs** add what
recomputation runs again (a fourth forward of the layers under full
recomputation: Narayanan et al.'s ``96 B s L h^2 (1 + s/(6h) + V/(16 L h))``).

Example::

    >>> m = preset("gpt3-175b")
    >>> round(m.params() / 1e9, 1)
    174.6
    >>> f = m.model_flops(1)             # one sequence
    >>> ref = 72 * 2048 * 96 * 12288**2 * (1 + 2048 / (6 * 12288) + 51200 / (12 * 12288 * 96))
    >>> abs(f / ref - 1) < 1e-12
    True
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, fields, replace
from pathlib import Path

from schedcc.errors import SchedccError, check_range
from schedcc.training.limits import check_layout, check_size

PRESETS_FILE = Path(__file__).resolve().parent / "models.toml"


@dataclass(frozen=True)
class ModelSpec:
    """A decoder-only transformer (sizes in elements)."""

    layers: int
    hidden: int
    heads: int
    seq: int
    vocab: int
    kv_heads: int = 0          # 0: as many as heads (multi-head attention)
    ffn: int = 0               # 0: 4 x hidden
    mlp: str = "gelu"          # "gelu": two matrices; "swiglu": three (gated)
    dropout: bool = False      # dropout after attention and MLP (its masks are kept for backward)
    tied_embeddings: bool = False
    causal: bool = True
    layer_tensors: int = 0     # parameter tensors per layer as the software holds them (0: its matrices
    #                            and two norm weights; InternLM's 7B: 9, Wqkv and out_proj with a bias)
    name: str = "transformer"
    source: str = ""

    @property
    def kv(self) -> int:
        return self.kv_heads or self.heads

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def ffn_size(self) -> int:
        return self.ffn or 4 * self.hidden

    @property
    def gated(self) -> bool:
        return self.mlp == "swiglu"

    def check(self) -> None:
        """The sizes in their ranges (:mod:`schedcc.training.limits`, shared with ``gen``)."""
        for key in ("layers", "hidden", "heads", "seq", "vocab"):
            check_size(key, getattr(self, key))
        if self.kv_heads:
            check_size("kv_heads", self.kv_heads)
        if self.ffn:
            check_size("ffn_hidden", self.ffn)
        check_layout(hidden=self.hidden, heads=self.heads, kv_heads=self.kv)
        if self.layer_tensors != 0:
            check_range(self.layer_tensors, 1, 1000, "layer_tensors", integer=True,
                        why="parameter tensors per layer; 0: its matrices and two norm weights")
        if self.mlp not in ("gelu", "swiglu"):
            raise SchedccError(f"unknown MLP '{self.mlp}'", notes=["choose gelu or swiglu"])

    # -- parameters ----------------------------------------------------------------
    def attention_params(self) -> int:
        h, d = self.hidden, self.head_dim
        return h * (h + 2 * self.kv * d) + h * h

    def mlp_params(self) -> int:
        return (3 if self.gated else 2) * self.hidden * self.ffn_size

    def layer_matrix_params(self) -> int:
        return self.attention_params() + self.mlp_params()

    def layer_params(self) -> int:
        """One layer: its matrices and two norms (weight and bias)."""
        return self.layer_matrix_params() + 4 * self.hidden

    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    def param_tensors(self, layers: int, first: bool = True, last: bool = True) -> int:
        """Parameter tensors of *layers* layers (plus the embedding on the *first* stage, the final
        norm and untied output layer on the *last*): what a ZeRO-1 that partitions whole tensors
        over its ranks (InternLM's HybridZeroOptimizer) can give a rank at most.

        >>> preset("gpt3-175b").param_tensors(96)   # 96 x (qkv, proj, 2 MLP, 2 norms) + 2
        578
        """
        per = self.layer_tensors or 2 + (3 if self.gated else 2) + 2
        return layers * per + int(first) + (1 + int(not self.tied_embeddings) if last else 0)

    def params(self) -> int:
        """Every parameter: layers, the input embedding, the output layer unless tied."""
        out = 0 if self.tied_embeddings else self.embedding_params()
        return self.layers * self.layer_params() + self.embedding_params() + out + 2 * self.hidden

    # -- FLOPs --------------------------------------------------------------------
    def forward_flops(self, sequences: float, with_head: bool = True) -> float:
        s = self.seq
        per_layer = 2 * s * self.layer_matrix_params() + 4 * s * s * self.hidden
        head = 2 * s * self.hidden * self.vocab if with_head else 0
        return sequences * (self.layers * per_layer + head)

    def model_flops(self, sequences: float) -> float:
        """Forward and backward of *sequences* sequences, no recomputation (the MFU numerator)."""
        return 3 * self.forward_flops(sequences)

    def hardware_flops(self, sequences: float, recompute: str) -> float:
        """Model FLOPs plus what recomputation runs again: a forward of the layers (full), or
        the attention scores and their product with the values (selective)."""
        extra = 0.0
        if recompute == "full":
            extra = self.forward_flops(sequences, with_head=False)
        elif recompute == "selective":
            extra = sequences * self.layers * 4 * self.seq * self.seq * self.hidden
        return self.model_flops(sequences) + extra


_KEYS = {f.name: f for f in fields(ModelSpec)}


def _load_presets() -> dict[str, dict]:
    with PRESETS_FILE.open("rb") as fh:
        return tomllib.load(fh)


def preset_names() -> list[str]:
    return sorted(_load_presets())


def preset(name: str, **overrides) -> ModelSpec:
    """The named model of ``models.toml``, with *overrides* (``seq=4096``) applied."""
    table = _load_presets()
    if name not in table:
        close = difflib.get_close_matches(name, list(table), n=3)
        raise SchedccError(f"unknown model '{name}'",
                           notes=([f"did you mean {', '.join(close)}?"] if close else [])
                           + ["models: transformer (give its sizes) or " + ", ".join(sorted(table))])
    values = {k: v for k, v in table[name].items() if k in _KEYS}
    spec = ModelSpec(name=name, **values)
    spec = replace(spec, **{k: v for k, v in overrides.items() if v is not None})
    spec.check()
    return spec

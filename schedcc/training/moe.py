"""Mixture-of-experts layers for the transformer generator (expert parallelism).

With ``experts = E``, ``top_k = k`` and ``ep = N`` every layer's MLP becomes
E experts (each an MLP of ``ffn`` hidden units) of which each token uses k,
spread over the N ranks of an expert-parallel group carved out of the data
parallel group (Megatron-LM's layout: ``dp`` divisible by ``ep``, members
``tp`` apart). Per layer and microbatch, on each rank:

* a router GEMM ``[tokens, h] x [h, E]`` on the tokens the rank holds;
* the dispatch all-to-all (group ``ep``) of ``k`` copies of each of the rank's
  tokens: ``tokens k h`` bytes x dtype in the send buffer;
* the experts as two grouped GEMMs (``gemms = E/N`` local experts, each with
  ``tokens k N / E`` rows, perfectly balanced routing assumed) around GeLU;
* the combine all-to-all back, and the weighted sum of each token's k
  outputs (``moe_combine``).

Without sequence parallelism every tensor-parallel rank holds all tokens
(after the attention's all-reduce): each takes 1/tp of them through the MoE
layer and an all-gather (group ``tp``) puts the layer's output back together;
with it the tokens are already split. Backward mirrors this (the all-to-alls
in reverse order; the all-gather after the dispatch's backward), and the
weight gradients of the experts are reduced over the ``dp / ep`` ranks
holding the same experts. FLOPs per token are k times a dense MLP's; the
router's backward (``2 tokens h E`` FLOPs, under 1% of the layer) is left
out. Activations kept per layer: the dispatched tokens, the experts' hidden
values (twice: before and after GeLU) and the combined outputs.

Example::

    >>> from schedcc.training.generator import TransformerConfig, generate_program
    >>> prog = generate_program(TransformerConfig(layers=1, hidden=1024, seq=512, microbatches=1, dp=4,
    ...                                           experts=8, top_k=2, ep=4))
    >>> sorted({i.opcode for i in prog.functions[0].blocks[0].instrs} & {"alltoall", "moe_combine"})
    ['alltoall', 'moe_combine']
"""

from __future__ import annotations


class MoE:
    """Emits one model's MoE layers through the generator's emitter *em*."""

    def __init__(self, em, cfg, sp: bool):
        self.em, self.cfg, self.sp = em, cfg, sp
        b, s, h, t = cfg.micro_batch, cfg.seq, cfg.hidden, cfg.tp
        self.h, self.t, self.e = h, t, cfg.dtype_bytes
        self.ffn = cfg.ffn or 4 * h
        self.E, self.k, self.N = cfg.experts, cfg.top_k, cfg.ep
        self.tokens = b * s / t           # each tensor-parallel rank routes 1/t of the tokens
        self.rows = self.tokens * self.k * self.N / self.E  # per local expert (balanced)
        self.local = self.E // self.N
        self.ep_kw = dict(group="ep", ranks=self.N, stride=t)
        self.tp_kw = dict(group="tp", ranks=t, stride=1)
        self.saved: dict[tuple, tuple] = {}

    def _gemm(self, n: float, k: float) -> dict:
        return dict(flops=2 * self.rows * self.local * n * k, m=self.rows, n=n, k=k, gemms=self.local)

    def forward(self, l: int, sfx: str, n2: str) -> str:
        """The MoE MLP of layer *l* on the normalised input *n2*; returns the layer's output."""
        em, h, e, tok, ffn = self.em, self.h, self.e, self.tokens, self.ffn
        moved = tok * self.k * h * e
        rt = em.op("matmul", "route" + sfx, n2, f"w.l{l}", flops=2 * tok * h * self.E, m=tok, n=self.E, k=h,
                   act=tok * self.E * 4, layer=l)
        dsp = em.op("alltoall", "disp" + sfx, n2, rt, bytes=moved, act=moved, layer=l, **self.ep_kw)
        e1 = em.op("matmul", "efc1" + sfx, dsp, f"we.l{l}", **self._gemm(ffn, h), act=2 * tok * self.k * ffn,
                   layer=l)
        eg = em.op("gelu", "egelu" + sfx, e1, bytes=4 * tok * self.k * ffn * e, act=2 * tok * self.k * ffn,
                   layer=l)
        e2 = em.op("matmul", "efc2" + sfx, eg, f"we.l{l}", **self._gemm(h, ffn), layer=l)
        cmb = em.op("alltoall", "comb" + sfx, e2, bytes=moved, act=moved, layer=l, **self.ep_kw)
        out = em.op("moe_combine", "moe" + sfx, cmb, rt, bytes=moved + 2 * tok * h * e, layer=l)
        self.saved[(l, sfx)] = (dsp, eg)
        if self.sp or self.t == 1:
            return out
        return em.op("allgather", "moeg" + sfx, out, bytes=tok * self.t * h * e, layer=l, **self.tp_kw)

    def backward(self, l: int, sfx: str, d: str) -> str:
        """The MoE MLP's input gradient from the output gradient *d*; returns it (as the
        dense layer's all-reduced ``dn2``: whole without sequence parallelism)."""
        em, h, e, tok, ffn = self.em, self.h, self.e, self.tokens, self.ffn
        moved = tok * self.k * h * e
        dc = em.op("moe_combine_bwd", "dmoe" + sfx, d, "route" + sfx, "comb" + sfx, bytes=moved + 2 * tok * h * e,
                   layer=l)
        de2 = em.op("alltoall", "dcomb" + sfx, dc, bytes=moved, layer=l, **self.ep_kw)
        dg = em.op("matmul_bwd", "defc2" + sfx, de2, f"we.l{l}", **self._gemm(ffn, h), layer=l)
        de1 = em.op("gelu_bwd", "degelu" + sfx, dg, "efc1" + sfx, bytes=6 * tok * self.k * ffn * e, layer=l)
        dd = em.op("matmul_bwd", "defc1" + sfx, de1, f"we.l{l}", **self._gemm(h, ffn), layer=l)
        dn = em.op("alltoall", "ddisp" + sfx, dd, bytes=moved, layer=l, **self.ep_kw)
        self.saved[(l, sfx, "bwd")] = (de2, de1)
        if self.sp or self.t == 1:
            return dn
        return em.op("allgather", "dmoeg" + sfx, dn, bytes=tok * self.t * h * e, layer=l, **self.tp_kw)

    def weight(self, l: int, sfx: str, grads: dict, reduce) -> None:
        """The experts' weight gradients of one microbatch, accumulated in *grads*; *reduce*
        (name, parameters) is called after the last microbatch."""
        dsp, eg = self.saved[(l, sfx)]
        de2, de1 = self.saved[(l, sfx, "bwd")]
        for name, ins in (("efc2", (de2, eg)), ("efc1", (de1, dsp))):
            prev = grads.get((l, name))
            grads[(l, name)] = self.em.op("matmul_w", f"g{name}" + sfx, *ins, *((prev,) if prev else ()),
                                          flops=2 * self.rows * self.local * self.h * self.ffn, layer=l)
            if reduce is not None:
                reduce(name, self.local * self.h * self.ffn)

    def expert_params(self) -> float:
        return self.local * 2 * self.h * self.ffn

    def router_params(self) -> float:
        return self.h * self.E

    def expert_dp(self) -> dict | None:
        """The group reducing the experts' gradients: the ``dp / ep`` ranks holding the same experts."""
        ranks = self.cfg.dp // self.N
        return dict(group="dp", ranks=ranks, stride=self.t * self.N) if ranks > 1 else None

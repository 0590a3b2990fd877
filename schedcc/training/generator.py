"""Generate the IR of one transformer training step (Megatron-style 3D parallelism).

One function per pipeline stage (``func stage0()``...): the dp x tp replicas of a
stage run the same program, so one representative rank per stage is
emitted and its collectives carry their group size (``ranks``) and the
distance between members (``stride``, tensor parallel innermost, then data,
then pipeline, as Megatron-LM lays ranks out).

Per layer and microbatch: the forward (layer norms, QKV, attention, the
projection, the MLP; a tensor-parallel all-reduce after the attention and
after the MLP), the input-gradient backward ``B`` (the same operators
backwards, all-reduces after the first MLP and the QKV input gradients) and
the weight-gradient ``W`` (one per weight matrix, accumulating over
microbatches). FLOPs follow Narayanan et al. (SC'21): per layer forward
``24 b s h^2 + 4 b s^2 h`` (the MLP with ``ffn = 4h``), backward twice that;
activation memory follows Korthikanti et al. (2022): ``s b h (10 + 24/t + 5 a s / (h t))``
bytes per layer. After the last microbatch of a layer come its data-parallel
gradient all-reduce (or reduce-scatter, Adam, all-gather with ``zero=True``),
then the optimizer. Stages exchange activations and gradients with
send/recv in the order of the chosen pipeline schedule.

Example::

    >>> prog = generate_program(TransformerConfig(layers=2, hidden=1024, seq=512, microbatches=2, dp=2))
    >>> [f.name for f in prog.functions], len(prog.functions[0].blocks[0].instrs) > 50
    (['stage0'], True)
"""

from __future__ import annotations

from dataclasses import dataclass

from schedcc.errors import SchedccError
from schedcc.ir import Attr, Block, Function, Instr, Program, Reg
from schedcc.training.limits import check_layout, check_size
from schedcc.training.moe import MoE
from schedcc.training.pipeline import gpipe, one_f_one_b, zero_bubble
from schedcc.training.pipeline_graph import Action, StageCosts


@dataclass(frozen=True)
class TransformerConfig:
    """A GPT-style model and its parallel layout. Sizes in elements; bytes per element in ``dtype_bytes``."""

    layers: int = 24
    hidden: int = 4096
    seq: int = 2048
    micro_batch: int = 1
    microbatches: int = 16
    dp: int = 1
    tp: int = 1
    pp: int = 1
    heads: int | None = None          # default hidden / 128
    vocab: int = 51200
    ffn: int | None = None            # default 4 * hidden
    zero: bool = False                # sharded data parallel: reduce-scatter + all-gather
    schedule: str = "1f1b"            # order of the pipeline: gpipe, 1f1b, zb-h1, zb-h2
    dtype_bytes: int = 2              # bf16 activations and gradients
    optimizer_bytes_per_param: int = 16  # Adam: fp32 master weight, m, v read and written [assumption]
    sequence_parallel: bool = False   # Megatron's sequence parallelism: all-gather + reduce-scatter
    experts: int = 0                  # mixture of experts: experts per layer (0: dense MLP), schedcc.training.moe
    top_k: int = 2                    # experts per token
    ep: int = 1                       # expert-parallel degree (divides dp and experts)

    def check(self) -> None:
        """The sizes in their ranges and the layout one that runs (:mod:`schedcc.training.limits`)."""
        for name in ("layers", "hidden", "seq", "micro_batch", "microbatches", "dp", "tp", "pp", "vocab", "experts",
                     "top_k", "ep"):
            check_size(name, getattr(self, name))
        for name in ("heads", "ffn"):
            if getattr(self, name) is not None:
                check_size("ffn_hidden" if name == "ffn" else name, getattr(self, name))
        heads = self.heads or max(1, self.hidden // 128)
        if self.heads is None and self.hidden % heads:
            raise SchedccError(f"--hidden ({self.hidden}) is not a multiple of 128, the default head width: "
                               "give --heads")
        check_layout(hidden=self.hidden, heads=heads, layers=self.layers, tp=self.tp, pp=self.pp, dp=self.dp,
                     sequence_parallel=self.sequence_parallel, zero=self.zero, experts=self.experts,
                     top_k=self.top_k, ep=self.ep, seq=self.seq, micro_batch=self.micro_batch)
        if self.layers % self.pp:
            raise SchedccError(f"--layers ({self.layers}) must be a multiple of --pp ({self.pp})")
        if self.layers * self.microbatches > MAX_LAYER_MICROBATCHES:
            raise SchedccError(f"--layers {self.layers} x --microbatches {self.microbatches} is "
                               f"{self.layers * self.microbatches:,} layer passes; at most "
                               f"{MAX_LAYER_MICROBATCHES:,} are generated (about 500,000 operators, 15 s and 1 GB)",
                               notes=["fewer microbatches give the same per-microbatch picture; the planner "
                                      "(schedcc plan) prices long pipelines without unrolling them"])
        if self.schedule not in ("gpipe", "1f1b", "zb-h1", "zb-h2"):
            raise SchedccError(f"unknown pipeline order '{self.schedule}' for the generator",
                               notes=["choose gpipe, 1f1b, zb-h1 or zb-h2 (schedcc pipeline evaluates the others)"])


MAX_LAYER_MICROBATCHES = 20_000
MAX_NUMBER = 1e18  # the IR's numbers are at most this (docs/ir.md)


def _num(value: float) -> Attr:
    """An attribute for a size: an integer when it is one (FLOPs, bytes), else a float; a
    size past the IR's numbers (1e18) is an error naming the sizes that make it."""
    if abs(value) > MAX_NUMBER:
        raise SchedccError(f"these sizes give an operator of {value:.3g} FLOPs or bytes; the IR's numbers are at "
                           "most 1e18", notes=["choose a smaller --hidden, --seq, --micro-batch, --ffn-hidden or "
                                               "--vocab"])
    if value == int(value) and abs(value) < 2**53:
        return Attr(int(value))
    return Attr(float(value))


def _mm(m: float, n: float, k: float) -> dict:
    """A GEMM's attributes: its FLOPs and its shape (``m`` token rows, ``n`` outputs, ``k`` inputs),
    which the cost model reads when the GEMM is cut into pieces."""
    return dict(flops=2 * m * n * k, m=m, n=n, k=k)


class _Emitter:
    def __init__(self, cfg: TransformerConfig, stage: int):
        self.cfg, self.stage = cfg, stage
        self.instrs: list[Instr] = []
        self.mb: int | None = None  # the microbatch being emitted: its operators carry ``mb``

    def op(self, opcode: str, dest: str, *operands: str, **attrs) -> str:
        items = tuple((k, _num(v) if isinstance(v, (int, float)) else Attr(v)) for k, v in attrs.items()
                      if v is not None)
        if self.mb is not None:
            items += (("mb", Attr(self.mb)),)
        self.instrs.append(Instr(opcode, Reg(dest), tuple(Reg(o) for o in operands), items))
        return dest


def _stage_orders(cfg: TransformerConfig) -> list[list[Action]]:
    p, m = cfg.pp, cfg.microbatches
    if cfg.schedule == "gpipe":
        lists = gpipe(p, m)
    elif cfg.schedule == "1f1b":
        lists = one_f_one_b(p, m)
    else:
        limits = [min(m, p - r) if cfg.schedule == "zb-h1" else min(m, 2 * (p - r) - 1) for r in range(p)]
        return zero_bubble(p, m, StageCosts(f=1, b=2, i=1, w=1), limits)
    # split every full backward into I then W, as the zero-bubble schedules do
    out = []
    for acts in lists:
        new = []
        for a in acts:
            new += [Action("I", a.stage, a.mb), Action("W", a.stage, a.mb)] if a.kind == "B" else [a]
        out.append(new)
    return out


def generate_program(cfg: TransformerConfig) -> Program:
    """The IR of one training step for *cfg* (see the module docstring)."""
    cfg.check()
    orders = _stage_orders(cfg)
    funcs = []
    for stage in range(cfg.pp):
        em = _Emitter(cfg, stage)
        _emit_stage(em, cfg, stage, orders[stage])
        funcs.append(Function(f"stage{stage}", (), (Block("entry", tuple(em.instrs) + (Instr("ret"),)),)))
    return Program(tuple(funcs), source=f"<transformer L={cfg.layers} h={cfg.hidden} dp={cfg.dp} "
                                        f"tp={cfg.tp} pp={cfg.pp} m={cfg.microbatches}>")


def _emit_stage(em: _Emitter, cfg: TransformerConfig, stage: int, order: list[Action]) -> None:
    b, s, h, t = cfg.micro_batch, cfg.seq, cfg.hidden, cfg.tp
    ffn = cfg.ffn or 4 * h
    heads = cfg.heads or max(1, h // 128)
    e = cfg.dtype_bytes
    per_stage = cfg.layers // cfg.pp
    layers = range(stage * per_stage, (stage + 1) * per_stage)
    first, last = stage == 0, stage == cfg.pp - 1
    act_bytes = b * s * h * e
    tp_ar = dict(group="tp", ranks=t, stride=1) if t > 1 else None
    pp_kw = dict(group="pp", ranks=cfg.pp, stride=t * cfg.dp)
    dp_kw = dict(group="dp", ranks=cfg.dp, stride=t)
    sp = cfg.sequence_parallel and t > 1
    q = t if sp else 1  # with sequence parallelism norms and residuals hold 1/t of the tokens
    moe = MoE(em, cfg, sp) if cfg.experts else None
    # QKV + proj + MLP (+ norms); with experts the router here, the experts apart
    params_layer = (4 * h * h + 2 * h * ffn) / t + 4 * h if not moe else 4 * h * h / t + moe.router_params() + 4 * h
    grads: dict[tuple, str] = {}

    def tp_allreduce(name: str, src: str, layer: int) -> str:
        """The tensor-parallel reduction: an all-reduce, or with sequence parallelism a reduce-scatter."""
        if tp_ar is None:
            return src
        return em.op("reduce_scatter" if sp else "allreduce", name, src, bytes=act_bytes, layer=layer, **tp_ar)

    def tp_gather(name: str, src: str, layer: int) -> str:
        """With sequence parallelism: the all-gather in front of a column-parallel GEMM."""
        return em.op("allgather", name, src, bytes=act_bytes, layer=layer, **tp_ar) if sp else src

    def forward(mb: int) -> None:
        x = f"x.s{stage}.m{mb}"
        if first:
            em.op("embedding", x, "tokens", "w.embed", bytes=2 * act_bytes, layer=0)
        else:
            em.op("recv", x, f"sendf.s{stage - 1}.m{mb}", **pp_kw)
        for l in layers:
            sfx = f".l{l}.m{mb}"
            w = f"w.l{l}"
            n1 = em.op("layernorm", "n1" + sfx, x, w, bytes=2 * act_bytes / q, act=4 * s * b * h / q, layer=l)
            n1 = tp_gather("n1g" + sfx, n1, l)
            qkv = em.op("matmul", "qkv" + sfx, n1, w, **_mm(b * s, 3 * h / t, h), act=6 * s * b * h / t, layer=l)
            at = em.op("attention", "attn" + sfx, qkv, flops=4 * b * s * s * h / t,
                       bytes=3 * act_bytes / t, act=5 * heads * s * s * b / t + 2 * s * b * h / t, layer=l)
            pr = em.op("matmul", "proj" + sfx, at, w, **_mm(b * s, h, h / t), layer=l)
            pr = tp_allreduce("projr" + sfx, pr, l)
            n2 = em.op("layernorm", "n2" + sfx, pr, x, w, bytes=3 * act_bytes / q, act=6 * s * b * h / q, layer=l)
            if moe:
                x = moe.forward(l, sfx, n2)
                continue
            n2 = tp_gather("n2g" + sfx, n2, l)
            f1 = em.op("matmul", "fc1" + sfx, n2, w, **_mm(b * s, ffn / t, h), act=2 * s * b * ffn / t, layer=l)
            ge = em.op("gelu", "gelu" + sfx, f1, bytes=4 * b * s * ffn * e / t, act=2 * s * b * ffn / t, layer=l)
            f2 = em.op("matmul", "fc2" + sfx, ge, w, **_mm(b * s, h, ffn / t), layer=l)
            x = tp_allreduce("fc2r" + sfx, f2, l)
        if last:
            x = logits_in[mb] = tp_gather(f"xg.m{mb}", x, cfg.layers)
            logits = em.op("matmul", f"logits.m{mb}", x, "w.out", **_mm(b * s, cfg.vocab / t, h),
                           act=b * s * cfg.vocab * 4 / t, layer=cfg.layers)
            em.op("xent", f"loss.m{mb}", logits, bytes=2 * b * s * cfg.vocab * 4 / t, layer=cfg.layers)
        else:
            em.op("send", f"sendf.s{stage}.m{mb}", x, bytes=act_bytes / q, **pp_kw)

    def backward_input(mb: int) -> None:
        if last:
            dlog = em.op("xent_bwd", f"dlogits.m{mb}", f"loss.m{mb}", f"logits.m{mb}",
                         bytes=2 * b * s * cfg.vocab * 4 / t, layer=cfg.layers)
            d = em.op("matmul_bwd", f"dx.out.m{mb}", dlog, "w.out", **_mm(b * s, h, cfg.vocab / t),
                      layer=cfg.layers)
            d = tp_allreduce(f"dx.outr.m{mb}", d, cfg.layers)
        else:
            d = em.op("recv", f"dy.s{stage}.m{mb}", f"sendb.s{stage + 1}.m{mb}", **pp_kw)
        for l in reversed(layers):
            sfx = f".l{l}.m{mb}"
            w = f"w.l{l}"
            d_in = d
            if moe:
                dn2, df1 = moe.backward(l, sfx, d), None
            else:
                d_in = tp_gather("dyg" + sfx, d, l)
                dge = em.op("matmul_bwd", "dgelu" + sfx, d_in, w, **_mm(b * s, ffn / t, h), layer=l)
                df1 = em.op("gelu_bwd", "dfc1" + sfx, dge, "fc1" + sfx, bytes=6 * b * s * ffn * e / t, layer=l)
                # with sequence parallelism the weight gradient's input is gathered again, issued
                # before the input gradient's GEMM so that it runs under it (Korthikanti et al.)
                regather["n2" + sfx] = tp_gather("n2w" + sfx, "n2" + sfx, l)
                dn2 = em.op("matmul_bwd", "dn2" + sfx, df1, w, **_mm(b * s, h, ffn / t), layer=l)
                dn2 = tp_allreduce("dn2r" + sfx, dn2, l)
            dpr = em.op("layernorm_bwd", "dproj" + sfx, dn2, "n2" + sfx, d, bytes=4 * act_bytes / q, layer=l)
            dprg = tp_gather("dprg" + sfx, dpr, l)
            dat = em.op("matmul_bwd", "dattn" + sfx, dprg, w, **_mm(b * s, h / t, h), layer=l)
            dq = em.op("attention_bwd", "dqkv" + sfx, dat, "qkv" + sfx, "attn" + sfx,
                       flops=8 * b * s * s * h / t, bytes=6 * act_bytes / t, layer=l)
            regather["n1" + sfx] = tp_gather("n1w" + sfx, "n1" + sfx, l)
            dn1 = em.op("matmul_bwd", "dn1" + sfx, dq, w, **_mm(b * s, h, 3 * h / t), layer=l)
            dn1 = tp_allreduce("dn1r" + sfx, dn1, l)
            d = em.op("layernorm_bwd", "dx" + sfx, dn1, "n1" + sfx, dpr, bytes=4 * act_bytes / q, layer=l)
            grads_in[(l, mb)] = (d_in, df1, dprg, dq)
        if last:
            grads_in[("out", mb)] = (dlog,)
        if first:
            em.op("embedding_bwd", f"dembed.m{mb}", d, bytes=2 * act_bytes, layer=0)
        else:
            em.op("send", f"sendb.s{stage}.m{mb}", d, bytes=act_bytes / q, **pp_kw)

    grads_in: dict[tuple[int, int], tuple] = {}
    regather: dict[str, str] = {}  # a norm's output -> what its weight gradient reads

    def backward_weight(mb: int) -> None:
        final = mb == cfg.microbatches - 1
        if last:
            prev = grads.get(("out", "out"))
            grads[("out", "out")] = em.op("matmul_w", f"gout.m{mb}", grads_in[("out", mb)][0], logits_in[mb],
                                          *((prev,) if prev else ()), flops=2 * b * s * h * cfg.vocab / t,
                                          layer=cfg.layers)
            if final:
                reduce_gradient("out", "out", h * cfg.vocab / t)
        for l in reversed(layers):
            sfx = f".l{l}.m{mb}"
            d_in, df1, dpr, dq = grads_in[(l, mb)]
            # one weight gradient per matrix, accumulated over microbatches: (name, inputs, FLOPs, parameters)
            mats = [("proj", (dpr, "attn" + sfx), 2 * b * s * h * h / t, h * h / t),
                    ("qkv", (dq, regather["n1" + sfx]), 6 * b * s * h * h / t,
                     3 * h * h / t + 2 * h)]
            if not moe:
                mats[:0] = [("fc2", (d_in, "gelu" + sfx), 2 * b * s * h * ffn / t, h * ffn / t),
                            ("fc1", (df1, regather["n2" + sfx]), 2 * b * s * h * ffn / t,
                             h * ffn / t + 2 * h)]
            for name, ins, flops, count in mats:
                prev = grads.get((l, name))
                grads[(l, name)] = em.op("matmul_w", f"g{name}" + sfx, *ins, *((prev,) if prev else ()),
                                         flops=flops, layer=l)
                if final:
                    reduce_gradient(l, name, count)
            if moe:
                moe.weight(l, sfx, grads, (lambda name, count, l=l: reduce_gradient(l, name, count, expert_kw))
                           if final and expert_kw else None)

    def reduce_gradient(l, name: str, count: float, kw: dict | None = None) -> None:
        layer = cfg.layers if l == "out" else l
        kw = kw if kw is not None else (dp_kw if cfg.dp > 1 else None)
        if kw is None:
            return
        op = "reduce_scatter" if cfg.zero else "allreduce"
        grads[(l, name)] = em.op(op, f"{'rs' if cfg.zero else 'ar'}.{name}.l{l}", grads[(l, name)],
                                 bytes=count * e, layer=layer, **kw)

    expert_kw = moe.expert_dp() if moe else None
    logits_in: dict[int, str] = {}

    for a in order:
        em.mb = a.mb
        {"F": forward, "I": backward_input, "W": backward_weight}[a.kind](a.mb)
    em.mb = None
    # optimizer, layer by layer from the input side (experts separately: other replicas)
    for l in list(layers) + (["out"] if last else []):
        layer = cfg.layers if l == "out" else l
        groups = [(f"w.l{l}" if l != "out" else "w.out", params_layer if l != "out" else h * cfg.vocab / t,
                   [grads[k] for k in grads if k[0] == l and not k[1].startswith("e")], dp_kw, cfg.dp)]
        if moe and l != "out":
            groups.append((f"we.l{l}", moe.expert_params(), [grads[k] for k in grads if k[0] == l and
                                                              k[1].startswith("e")], expert_kw, cfg.dp // cfg.ep))
        for param, count, inputs, kw, replicas in groups:
            shard = replicas if cfg.zero else 1
            new = em.op("adam", f"{param}.new", param, *inputs,
                        bytes=count * cfg.optimizer_bytes_per_param / shard, layer=layer)
            if cfg.zero and replicas > 1:
                em.op("allgather", f"{param}.full", new, bytes=count * e, layer=layer, updates=param, **kw)

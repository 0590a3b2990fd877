"""Tensor-parallel communication overlap as a value of the planner's ``overlap`` dimension.

The transformation of issue 14 (:mod:`schedcc.training.overlap`) on the
planner's own layer graph (:mod:`.layer`): a tensor-parallel collective and
the GEMM beside it run as ``K`` chunks of rows (tokens), so chunk ``i``'s
transfer runs while chunk ``i+1``'s GEMM computes (collective matmul: Wang et
al., ASPLOS 2023; Megatron-LM/Transformer Engine's ``tp_comm_overlap``):

* **AllGather+GEMM**: a sequence-parallel all-gather (``ag1``, ``ag2`` forward,
  ``b_ag1``, ``b_ag2`` backward) and the column-parallel GEMM that consumes it;
* **GEMM+ReduceScatter** (or **GEMM+AllReduce** without sequence parallelism):
  a row-parallel GEMM (``proj``, ``fc2``, backward ``d_fc1``, ``d_qkv``) and the
  collective of its output.

Each of the ``K`` collective pieces moves ``1/K`` of the bytes at the full
alpha-beta price (:meth:`~schedcc.training.costs.Cluster.collective_time`:
every piece pays the latency again); each GEMM piece computes ``1/K`` of the
rows slowed by :meth:`~schedcc.training.costs.Cluster.piece_slowdown` (a
smaller GEMM loses more to tile and wave quantisation) and pays its own
launch. So more chunks is not free: the list scheduler of level 1 decides
whether the overlap won outweighs what the pieces cost. The GEMMs that only
compute weight gradients keep their all-gathers whole (they already overlap
the input-gradient chain).

Values: ``none``; ``tp2``, ``tp4``, ``tp8`` (``K`` chunks at every site);
``auto``, for each layer's forward and backward the ``K`` of ``1, 2, 4, 8``
whose one-layer schedule is shortest (so ``auto`` is never slower than
``none`` on one layer, and ``K = 1`` is ``none``). The search tries ``auto``
when ``tp > 1`` and ``none`` when ``tp = 1`` (:data:`SEARCHED`): ``auto``
already weighs every chunk count against none, per layer, so searching
``none`` beside it would double the candidates for nothing; ``--fix
overlap=none`` (or ``tp4``...) pins one, and reproduces the scores of a
planner without overlap exactly.

Example::

    >>> from schedcc.planner.layer import LOp
    >>> ops = [LOp("fc2", "compute", 1.0, ("x",)), LOp("rs2", "tp", 1.0, ("fc2",), "comm"),
    ...        LOp("out", "compute", 0.1, ("rs2",))]
    >>> [(o.name, o.deps) for o in chunk_sites(ops, 2, piece=lambda o, k: o.dur / k, coll=lambda o, k: o.dur / k)]
    [('fc2.c0', ('x',)), ('fc2.c1', ('x',)), ('rs2.c0', ('fc2.c0',)), ('rs2.c1', ('fc2.c1',)), ('out', ('rs2.c0', 'rs2.c1'))]
"""

from __future__ import annotations

from typing import Callable

from schedcc.planner.layer import OVERLAP_TRANSFORMS, LOp, schedule_ops

CHUNKS = (2, 4, 8)
SEARCHED = ("auto",)                 # what the search tries with tp > 1 (the rest through --fix)
KINDS = {"ag": "allgather", "rs": "reduce_scatter", "ar": "allreduce"}

# A site: collective -> the GEMM paired with it, and the GEMM's output width n (its rows are
# the tokens) as a function of the layer. "before": the collective feeds the GEMM.
GEMM_COLS: dict[str, Callable] = {
    "qkv": lambda L: (L.m.hidden + 2 * L.m.kv * L.m.head_dim) / L.c.tp,
    "fc1": lambda L: L.m.ffn_size / L.c.tp * (2 if L.m.gated else 1),
    "proj": lambda L: L.m.hidden, "fc2": lambda L: L.m.hidden,
    "d_fc2": lambda L: L.m.ffn_size / L.c.tp, "d_proj": lambda L: L.m.hidden / L.c.tp,
    "d_fc1": lambda L: L.m.hidden, "d_qkv": lambda L: L.m.hidden,
}


def _base(name: str) -> str:
    return name[2:] if name.startswith("r.") else name


def _kind(name: str) -> str | None:
    """allgather / reduce_scatter / allreduce from a layer collective's name (``b_rs2``, ``r.ag1``)."""
    core = _base(name)
    core = core[2:] if core.startswith("b_") else core
    return KINDS.get(core[:2]) if core[2:].isdigit() else None


def find_sites(ops: list[LOp]) -> list[tuple[str, str, str]]:
    """(collective, GEMM, "before" | "after") pairs of one layer's operators. O(ops).

    >>> ops = [LOp("ag1", "tp", 1, ("x",), "comm"), LOp("qkv", "compute", 1, ("ag1",)),
    ...        LOp("proj", "compute", 1, ("qkv",)), LOp("rs1", "tp", 1, ("proj",), "comm")]
    >>> find_sites(ops)
    [('ag1', 'qkv', 'before'), ('rs1', 'proj', 'after')]
    """
    by = {o.name: o for o in ops}
    sites = []
    for o in ops:
        if o.stream != "tp" or not _kind(o.name):
            continue
        if _kind(o.name) != "allgather":
            src = by.get(o.deps[0]) if o.deps else None
            if src is not None and _base(src.name) in GEMM_COLS:
                sites.append((o.name, src.name, "after"))
            continue
        for user in ops:  # the input-gradient / forward GEMM reading the gathered rows first
            if o.name in user.deps and _base(user.name) in GEMM_COLS:
                sites.append((o.name, user.name, "before"))
                break
    return sites


def chunk_sites(ops: list[LOp], k: int, piece: Callable[[LOp, int], float],
                coll: Callable[[LOp, int], float]) -> list[LOp]:
    """*ops* with every site as *k* chunks; *piece(gemm, k)* and *coll(collective, k)* price one
    chunk. Readers outside a site read every chunk. O(ops x k)."""
    if k <= 1:
        return ops
    split: dict[str, list[str]] = {}
    pairs = {}
    for c, g, where in find_sites(ops):
        split[c] = [f"{c}.c{i}" for i in range(k)]
        split[g] = [f"{g}.c{i}" for i in range(k)]
        pairs[c], pairs[g] = (g, where), (c, where)

    def deps_outside(deps, skip=None):
        out = []
        for d in deps:
            if d != skip:
                out += split.get(d, [d])
        return tuple(out)

    out: list[LOp] = []
    for o in ops:
        if o.name not in split:
            out.append(LOp(o.name, o.stream, o.dur, deps_outside(o.deps), o.kind))
            continue
        other, where = pairs[o.name]
        is_coll = o.stream != "compute"
        dur = coll(o, k) if is_coll else piece(o, k)
        for i, name in enumerate(split[o.name]):
            feeds = (where == "after" and is_coll) or (where == "before" and not is_coll)
            deps = deps_outside(o.deps, skip=other) + ((split[other][i],) if feeds else ())
            out.append(LOp(name, o.stream, dur, deps, o.kind))
    return out


def _transform(k: int | None):
    def transform(ops: list[LOp], phase: str, layer) -> list[LOp]:
        cl = layer.cl

        def piece(o: LOp, n: int) -> float:
            rows = layer.tokens
            slow = cl.piece_slowdown(rows / n, rows, GEMM_COLS[_base(o.name)](layer))
            return (o.dur - cl.launch_overhead) / n * slow + cl.launch_overhead

        def collective(o: LOp, n: int) -> float:
            return layer.coll(_kind(o.name), layer.act / n)

        if k is not None:
            return chunk_sites(ops, k, piece, collective)
        # chunk_times builds the same layer several times (3 and 4 layers, forward and backward):
        # probe once per layer and phase (the operator lists of one _Layer are all alike)
        memo = layer.__dict__.setdefault("_overlap_auto_choice", {})
        if phase in memo:
            n = memo[phase]
            return chunk_sites(ops, n, piece, collective) if n > 1 else ops
        best, best_n, best_t = ops, 1, schedule_ops(ops, cl.contention)
        for n in CHUNKS:  # auto: the fastest one-layer schedule; ties keep fewer chunks
            cand = chunk_sites(ops, n, piece, collective)
            t = schedule_ops(cand, cl.contention)
            if t < best_t - 1e-12:
                best, best_n, best_t = cand, n, t
        memo[phase] = best_n
        return best
    return transform


def register() -> None:
    """Make ``tp2``, ``tp4``, ``tp8`` and ``auto`` values of the ``overlap`` dimension. O(1)."""
    for n in CHUNKS:
        OVERLAP_TRANSFORMS.setdefault(f"tp{n}", _transform(n))
    OVERLAP_TRANSFORMS.setdefault("auto", _transform(None))


register()


def chosen_chunks(model, cand, settings, cluster) -> dict[str, int]:
    """The chunk count ``K`` each phase of every layer runs with (``{"forward": 2, "backward": 4}``;
    1: not chunked) for *cand*'s ``overlap``: what ``auto`` chose by scheduling one layer, or the
    pinned ``tpK``; empty with ``tp = 1`` or ``overlap = none``. Every layer of the model is alike,
    so one choice per phase is the choice of every layer. O(one layer's probe per phase)."""
    from schedcc.planner.layer import _Layer
    if cand.tp <= 1 or cand.overlap == "none":
        return {}
    if cand.overlap != "auto":
        k = int(cand.overlap[2:])
        return {"forward": k, "backward": k}
    layer = _Layer(model, cand, settings, cluster)
    auto = OVERLAP_TRANSFORMS["auto"]
    auto(layer.forward(), "forward", layer)
    auto(layer.backward(), "backward", layer)
    return dict(layer.__dict__["_overlap_auto_choice"])

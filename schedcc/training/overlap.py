"""Decompose tensor- and expert-parallel collectives and their GEMMs into overlapping chunks.

A *site* is a tensor- or expert-parallel collective (``allreduce``,
``allgather``, ``reduce_scatter``, ``alltoall`` in a ``tp`` or ``ep`` group)
together with the row-wise operators around it on its rank: walking the
*primary* data path (an operator's first operand) upstream to the GEMM that
produces its input and downstream to the GEMM that consumes its output,
through row-wise operators (layer norms, activations) and further
collectives. Every operator of a site treats the tokens (rows) of its input
independently, so the site can run as K chunks of rows: chunk i's transfer
runs while chunk i+1's GEMM computes (collective matmul: Wang et al.,
ASPLOS 2023; AllGather+GEMM and GEMM+ReduceScatter for sequence-parallel
tensor parallelism; the MoE dispatch and combine around the expert GEMMs).

The transformation rewrites the program: each operator of a site becomes K
operators ``name.c0`` ... with 1/K of its FLOPs, bytes, activations and
time (rows split as evenly as integers allow); a GEMM piece carries its
rows ``m`` and the whole GEMM's ``whole_m``, so the cost model charges it
the tile and wave quantisation of a smaller GEMM
(:meth:`~schedcc.training.costs.Cluster.piece_slowdown`); a reader outside
the site reads every chunk. The chunks' program order comes from list
scheduling the chunked site alone with the cost model, so an in-order
stream (``fifo``, ``priority``) runs them as a software pipeline. The result
is a new :class:`~schedcc.ir.Program`; nothing is changed in place.

Row-wise operators are those in :data:`ROWWISE`; a site never crosses an
optimizer update, a weight gradient, attention, a loss, a recv or a
data-parallel collective; a send on the path belongs to it (it leaves in
chunks, and its recv arrives in as many). A site stays inside one *run*:
the operators of one microbatch's forward, or of its backward (the ``mb``
attribute, :func:`~schedcc.training.fbpair.program_runs`). Only operators
whose result name is defined once on their rank are chunked.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> from schedcc.training.graph import build_training_graph
    >>> tg = build_training_graph(parse(
    ...     "p = matmul a, w {flops = 4e12, m = 8192, n = 4096, k = 4096}\\n"
    ...     "r = allreduce p {bytes = 64MiB, group = tp, ranks = 4}\\n"
    ...     "y = gelu r {bytes = 128MiB}\\n"), load_target("h100-8x"))
    >>> [(s.ops, s.collectives) for s in find_sites(tg)]
    [(('p', 'r', 'y'), ('r',))]
    >>> prog = chunk_sites(tg, 2)
    >>> [i.dest.name for i in prog.functions[0].blocks[0].instrs]
    ['p.c0', 'r.c0', 'p.c1', 'y.c0', 'r.c1', 'y.c1']
    >>> print(prog.functions[0].blocks[0].instrs[0])
    p.c0 = matmul a, w {flops = 2000000000000, m = 4096, n = 4096, k = 4096, whole_m = 8192, chunk = 0, chunks = 2}
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

from schedcc._perf import paused_gc
from schedcc.errors import SchedccError
from schedcc.ir import Attr, Block, Function, Instr, Program, Reg
from schedcc.training.fbpair import run_of
from schedcc.training.graph import TrainingGraph
from schedcc.training.reorder import merge_in_order

CHUNKABLE = ("allreduce", "allgather", "reduce_scatter", "alltoall")
OVERLAP_GROUPS = ("tp", "ep")
GEMMS = frozenset({"matmul", "matmul_bwd", "mm", "gemm", "linear", "linear_bwd", "expert_matmul",
                   "expert_matmul_bwd", "grouped_matmul", "grouped_matmul_bwd"})
ROWWISE = GEMMS | frozenset({
    "layernorm", "layernorm_bwd", "rmsnorm", "rmsnorm_bwd", "gelu", "gelu_bwd", "silu", "silu_bwd",
    "swiglu", "swiglu_bwd", "relu", "relu_bwd", "dropout", "dropout_bwd", "add", "bias", "residual",
    "moe_combine", "moe_combine_bwd", "moe_permute", "moe_unpermute"})
SCALED = ("flops", "bytes", "act", "time")  # split over the chunks in proportion to their rows


@dataclass(frozen=True)
class Site:
    """One decomposable site: operator names in program order, on one rank."""

    index: int
    rank: int
    layer: float | None
    ops: tuple[str, ...]              # every operator of the site (names), program order
    collectives: tuple[str, ...]      # its collectives
    gemms: tuple[str, ...]            # its GEMMs
    rows: int | None                  # token rows of its GEMMs (``m``), when given
    nodes: tuple[int, ...] = field(default=(), repr=False, compare=False)
    kinds: tuple[str, ...] = field(default=(), repr=False, compare=False)  # opcodes, (group) of collectives

    def describe(self) -> str:
        """``matmul + allreduce(tp) + layernorm + matmul`` style summary, by opcode."""
        return " + ".join(self.kinds)


class _Index:
    """Per-rank definitions and primary producers of a training graph (built once)."""

    def __init__(self, tg: TrainingGraph):
        g = tg.graph
        self.g = g
        self.nodes = dict(g.nodes(data=True))
        self.block: dict[int, int] = {}  # node -> its block, numbered in program order
        n = 0
        for b, (_, block) in enumerate(tg.program.blocks() if tg.program is not None else ()):
            for instr in block.instrs:
                if not instr.is_terminator and instr.opcode != "nop":
                    self.block[n] = b
                    n += 1
        defs: dict[tuple[int, str], list[int]] = {}
        for n in sorted(g, key=lambda n: self.nodes[n]["order"]):
            instr = self.nodes[n]["instr"]
            if instr is not None and instr.dest is not None:
                defs.setdefault((self.nodes[n]["rank"], instr.dest.name), []).append(n)
        self.defs = defs
        self.recv_of = {u: v for u, v, e in g.edges(data=True) if e["kind"] == "P2P"}
        run = run_of(tg)  # a site stays inside one microbatch's forward or backward
        self.primary: dict[int, int] = {}
        self.consumers: dict[int, list[int]] = {}
        for n, d in self.nodes.items():
            instr = d["instr"]
            first = next((op for op in instr.operands if isinstance(op, Reg)), None) if instr is not None else None
            if first is None:
                continue
            src = defs.get((d["rank"], first.name))
            if (src and len(src) == 1 and self.nodes[src[0]]["order"] < d["order"]
                    and self.block.get(src[0]) == self.block.get(n) and run.get(src[0]) == run.get(n)):
                self.primary[n] = src[0]
                self.consumers.setdefault(src[0], []).append(n)

    def single_def(self, n: int) -> bool:
        d = self.nodes[n]
        instr = d["instr"]
        return instr is not None and instr.dest is not None and len(self.defs[(d["rank"], instr.dest.name)]) == 1

    def collective(self, n: int, groups) -> bool:
        d = self.nodes[n]
        return (d["kind"] == "comm" and d["opcode"] in CHUNKABLE and str(d["group"]) in groups
                and d["ranks"] > 1 and self.single_def(n))

    def send(self, n: int) -> bool:
        """A send whose transfer can leave in chunks (and its recv arrive in chunks)."""
        d = self.nodes[n]
        return d["opcode"] == "send" and self.single_def(n) and n in self.recv_of and \
            self.single_def(self.recv_of[n])

    def rowwise(self, n: int) -> bool:
        d = self.nodes[n]
        return (d["kind"] == "compute" and d["opcode"] in ROWWISE and d.get("update") is None
                and self.single_def(n))


def find_sites(tg: TrainingGraph, groups=OVERLAP_GROUPS, bridge: bool = True) -> list[Site]:
    """The decomposable sites of *tg* (see the module docstring), in program order.
    With *bridge*, two sites joined by row-wise operators between a GEMM of one and a GEMM of
    the other are one site. O(n)."""
    with paused_gc():
        return _find_sites(tg, groups, bridge)


def _find_sites(tg: TrainingGraph, groups, bridge: bool) -> list[Site]:
    ix = _Index(tg)
    nodes = ix.nodes
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a: int, b: int) -> None:
        if b not in parent:
            parent[b] = b
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    seeds = sorted((n for n in nodes if ix.collective(n, groups)), key=lambda n: nodes[n]["order"])
    for c in seeds:
        parent.setdefault(c, c)
        # upstream along the primary input: row-wise operators up to and including a GEMM
        x = c
        while True:
            p = ix.primary.get(x)
            if p is None or not (ix.rowwise(p) or ix.collective(p, groups)):
                break
            join(c, p)
            if nodes[p]["opcode"] in GEMMS:
                break
            x = p
        # downstream: the primary readers, up to and including a GEMM
        todo = [c]
        while todo:
            x = todo.pop()
            for v in ix.consumers.get(x, ()):
                if ix.send(v):  # the value leaves the rank: its transfer leaves in chunks too
                    join(c, v)
                    continue
                if not (ix.rowwise(v) or ix.collective(v, groups)):
                    continue
                new = v not in parent
                join(c, v)
                if new and nodes[v]["opcode"] not in GEMMS:
                    todo.append(v)
    if bridge:
        # a GEMM ending one site that feeds, through row-wise operators, the GEMM starting
        # another: one site (the MLP between two collectives pipelines as a whole)
        for g in [n for n in parent if nodes[n]["opcode"] in GEMMS]:
            path, x = [], g
            while True:
                nxt = [v for v in ix.consumers.get(x, ()) if ix.rowwise(v)]
                if len(nxt) != 1:
                    break
                v = nxt[0]
                if v in parent:
                    if path or nodes[v]["opcode"] in GEMMS:
                        for p in path:
                            join(g, p)
                        join(g, v)
                    break
                if nodes[v]["opcode"] in GEMMS:
                    break
                path.append(v)
                x = v
    members: dict[int, list[int]] = {}
    for n in parent:
        members.setdefault(find(n), []).append(n)
    sites = []
    for group in sorted(members.values(), key=lambda ms: min(nodes[m]["order"] for m in ms)):
        group.sort(key=lambda n: nodes[n]["order"])
        colls = [n for n in group if nodes[n]["kind"] == "comm"]
        gemms = [n for n in group if nodes[n]["opcode"] in GEMMS]
        rows = next((int(nodes[n]["instr"].attr("whole_m") or nodes[n]["instr"].attr("m"))
                     for n in gemms if nodes[n]["instr"].attr("m")), None)
        layers = [nodes[n]["layer"] for n in colls if nodes[n]["layer"] is not None]
        kinds = tuple(nodes[n]["opcode"] + (f"({nodes[n]['group']})" if nodes[n]["kind"] == "comm" else "")
                      for n in group)
        site = Site(len(sites), nodes[group[0]]["rank"], min(layers) if layers else None,
                    tuple(nodes[n]["name"] for n in group), tuple(nodes[n]["name"] for n in colls),
                    tuple(nodes[n]["name"] for n in gemms), rows, tuple(group), kinds)
        sites.append(site)
    return sites


def _fractions(rows: int | None, k: int) -> list[float]:
    """The share of the rows each of *k* chunks takes (integers as even as possible)."""
    if rows is None:
        return [1.0 / k] * k
    base, extra = divmod(rows, k)
    return [(base + (i < extra)) / rows for i in range(k)]


def _number(x: float) -> Attr:
    return Attr(int(x)) if x == int(x) and abs(x) < 2**53 else Attr(float(x))


def _chunk_instr(instr: Instr, dest: str, operands: tuple, frac: float, i: int, k: int) -> Instr:
    """Chunk *i* of *k* of *instr*, taking *frac* of its rows."""
    attrs = dict(instr.attrs)
    out = []
    gemm = instr.opcode in GEMMS
    if gemm and "m" not in attrs and not isinstance(instr.attr("flops"), (int, float)):
        gemm = False  # a GEMM given only a time: no shape to charge
    if gemm and ("m" not in attrs or "n" not in attrs):
        side = (float(instr.attr("flops")) / 2) ** (1 / 3)  # no shape given: taken as square
        attrs.setdefault("m", Attr(side))
        attrs.setdefault("n", Attr(side))
        attrs.setdefault("k", Attr(side))
    for key, a in attrs.items():
        if key in ("chunk", "chunks"):
            continue
        v = a.value
        if key in SCALED and isinstance(v, (int, float)) and not isinstance(v, bool):
            out.append((key, _number(v * frac)))
        elif key == "m" and gemm:
            out.append((key, _number(round(float(v) * frac, 6))))
        else:
            out.append((key, a))
    if gemm and "whole_m" not in attrs:
        m = float(attrs["m"].value)
        # 'm' then 'whole_m' next to it keeps the text readable
        pos = next(j for j, (key, _) in enumerate(out) if key == "m")
        out.insert(pos + 1 + sum(1 for key, _ in out[pos + 1:pos + 3] if key in ("n", "k")),
                   ("whole_m", _number(m)))
    out += [("chunk", Attr(i)), ("chunks", Attr(k))]
    return Instr(instr.opcode, Reg(dest), operands, tuple(out), instr.loc, instr.syntax, instr.opcode_loc)


def chunk_sites(tg: TrainingGraph, chunks: int | Mapping[int, int], sites: list[Site] | None = None,
                order: Callable[[TrainingGraph, list[Instr]], list[int]] | None = None) -> Program:
    """*tg*'s program with every site split into chunks: *chunks* is one K for every site or
    a map from site index to K (missing or 1: unchanged). *order* maps a site's chunk
    instructions (chunk-major) to the order they should be issued in (default:
    :func:`site_order`, a list schedule of the chunked site alone)."""
    with paused_gc():
        return _chunk_sites(tg, chunks, sites, order)


def _chunk_sites(tg, chunks, sites, order) -> Program:
    program = tg.program
    if program is None:
        raise SchedccError("this graph has no program to decompose; build it with build_training_graph")
    sites = find_sites(tg) if sites is None else sites
    per_site = {s.index: (chunks if isinstance(chunks, int) else chunks.get(s.index, 1)) for s in sites}
    for s in sites:
        k = per_site[s.index]
        if not isinstance(k, int) or k < 1:
            raise SchedccError(f"chunks must be a whole number of at least 1, got {k!r}")
        if s.rows is not None and k > s.rows:
            raise SchedccError(f"site {s.index} ({s.describe()}) has {s.rows} rows: it cannot take {k} chunks")
    nodes = dict(tg.graph.nodes(data=True))
    chunked: dict[int, tuple[Site, int]] = {}  # node -> (site, K)
    for s in sites:
        if per_site[s.index] > 1:
            for n in s.nodes:
                chunked[n] = (s, per_site[s.index])
    if not chunked:
        return program
    taken = {nodes[n]["instr"].dest.name for n in nodes if nodes[n]["instr"] is not None and nodes[n]["instr"].dest}
    names: dict[int, list[str]] = {}
    for n, (s, k) in chunked.items():
        base = nodes[n]["instr"].dest.name
        sep = ".c"
        while any(f"{base}{sep}{i}" in taken for i in range(k)):
            sep = "_" + sep
        names[n] = [f"{base}{sep}{i}" for i in range(k)]
    # a chunked send's recv arrives in as many chunks, on the receiving rank
    recvs = {v: (u, chunked[u][1]) for u, v, e in tg.graph.edges(data=True) if e["kind"] == "P2P" and u in chunked}
    for q, (n, k) in recvs.items():
        names[q] = [f"{nodes[q]['instr'].dest.name}{names[n][0][len(nodes[n]['instr'].dest.name):-1]}{i}"
                    for i in range(k)]
    # per rank: the name of a chunked operator's result -> its node
    by_name = {(nodes[n]["rank"], nodes[n]["instr"].dest.name): n for n in [*chunked, *recvs]}
    order = order or site_order
    # node -> what replaces it there, each piece with its place in program order (the node it
    # comes from, and its chunk)
    placed: dict[int, list[tuple[float, Instr]]] = {}
    memo: dict[tuple, list[int]] = {}  # identical sites (other layers, microbatches) share an order
    for s in sites:
        k = per_site[s.index]
        if k == 1:
            continue
        pieces = _pieces(nodes, s, k, names, by_name)
        sig = _signature(pieces)
        ranked = memo.get(sig)
        if ranked is None:
            ranked = memo[sig] = order(tg, pieces)
        width = len(s.nodes)
        placed[s.nodes[0]] = [(s.nodes[j % width] + (j // width) / (k + 1), pieces[j]) for j in ranked]
    for q, (n, k) in recvs.items():
        fr = _fractions(chunked[n][0].rows, k)
        placed[q] = [(q + i / (k + 1), _chunk_instr(nodes[q]["instr"], names[q][i], (Reg(names[n][i]),), fr[i], i, k))
                     for i in range(k)]
    return _rewrite(tg, placed, set(chunked) | set(recvs), by_name, names)


def _pieces(nodes, s: Site, k: int, names: dict[int, list[str]], by_name: dict) -> list[Instr]:
    """The K chunks of every operator of site *s*, chunk-major: chunk i reads chunk i of the
    site's values, every chunk of another site's, and anything else as it was."""
    fr = _fractions(s.rows, k)
    inside = set(s.nodes)
    pieces: list[Instr] = []
    for i in range(k):
        for n in s.nodes:
            instr = nodes[n]["instr"]
            ops = []
            for op in instr.operands:
                src = by_name.get((s.rank, op.name)) if isinstance(op, Reg) else None
                if src is None:
                    ops.append(op)
                elif src in inside:
                    ops.append(Reg(names[src][i]))
                else:
                    ops.extend(Reg(x) for x in names[src])
            pieces.append(_chunk_instr(instr, names[n][i], tuple(ops), fr[i], i, k))
    return pieces


def site_pieces(tg: TrainingGraph, site: Site, k: int) -> list[Instr]:
    """Site *site* of *tg* cut into *k* chunks, chunk-major, as :func:`chunk_sites` cuts it
    (reading values of other sites whole): what a planner schedules to price a choice."""
    nodes = tg.graph.nodes
    names = {n: [f"{nodes[n]['instr'].dest.name}.c{i}" for i in range(k)] for n in site.nodes}
    by_name = {(site.rank, nodes[n]["instr"].dest.name): n for n in site.nodes}
    return _pieces(nodes, site, k, names, by_name)


def _rewrite(tg, placed: dict[int, list[tuple[float, Instr]]], inside: set[int], by_name, names) -> Program:
    """The program with each chunked site's instructions in place of its first operator (and
    a chunked recv's in place of it), its other operators gone, and every other reader of
    a chunked value reading all its chunks; each block keeps a valid order (a topological
    merge)."""
    nodes = tg.graph.nodes
    funcs = []
    n = 0  # node ids follow program order, skipping terminators and nops (as the builder does)
    for func in tg.program.functions:
        blocks = []
        for block in func.blocks:
            entries: list[tuple[float, float, Instr]] = []  # (wished position, program order, instr)
            ends = []
            for instr in block.instrs:
                if instr.is_terminator:
                    ends.append(instr)
                    continue
                if instr.opcode == "nop":
                    entries.append((len(entries), n - 0.5, instr))
                    continue
                if n in placed:
                    pieces = placed[n]
                    pos = len(entries)
                    entries += [(pos + j / len(pieces), at, piece) for j, (at, piece) in enumerate(pieces)]
                elif n not in inside:
                    entries.append((len(entries), n, _expand(instr, nodes[n]["rank"], by_name, names)))
                n += 1
            blocks.append(replace(block, instrs=tuple(merge_in_order(entries) + ends)))
        funcs.append(replace(func, blocks=tuple(blocks)))
    return Program(tuple(funcs), source=tg.program.source)


def _expand(instr: Instr, rank: int, by_name, names) -> Instr:
    """*instr* reading every chunk of each chunked operand."""
    if not any(isinstance(op, Reg) and (rank, op.name) in by_name for op in instr.operands):
        return instr
    ops = []
    for op in instr.operands:
        src = by_name.get((rank, op.name)) if isinstance(op, Reg) else None
        ops.extend([op] if src is None else [Reg(x) for x in names[src]])
    return Instr(instr.opcode, instr.dest, tuple(ops), instr.attrs, instr.loc, instr.syntax, instr.opcode_loc)


IGNORED = ("layer", "mb", "chunk")  # attributes that do not change an operator's cost


def _signature(pieces: list[Instr]) -> tuple:
    """What decides a chunked site's order: opcodes, cost attributes, and which piece reads which."""
    where = {p.dest.name: j for j, p in enumerate(pieces)}
    return tuple((p.opcode, tuple(a for a in p.attrs if a[0] not in IGNORED),
                  tuple(where.get(op.name, -1) if isinstance(op, Reg) else -1 for op in p.operands))
                 for p in pieces)


def site_order(tg: TrainingGraph, pieces: list[Instr]) -> list[int]:
    """The issue order of a chunked site's instructions: list-schedule them alone (inputs
    ready at time 0) on the cluster of *tg* with no program order, and sort by start."""
    run = schedule_alone(tg, pieces)
    return sorted(range(len(pieces)), key=lambda j: (run.start[(0, j)], j))


def schedule_alone(tg: TrainingGraph, pieces: list[Instr]):
    """*pieces* list-scheduled on *tg*'s cluster with nothing else (inputs there at time 0,
    no program order; a send's transfer to a peer rank that only receives). Piece j is
    node ``(0, j)`` of the returned :class:`~schedcc.training.simulate.Run`."""
    from schedcc.training.graph import build_training_graph
    from schedcc.training.policies import Plan
    from schedcc.training.simulate import run_plan
    peer = tuple(Instr("recv", Reg(f"{p.dest.name}.peer"), (p.dest,), tuple(
        a for a in p.attrs if a[0] in ("group", "ranks", "stride"))) for p in pieces if p.opcode == "send")
    funcs = [Function("rank0", (), (Block("entry", tuple(pieces)),))]
    if peer:
        funcs.append(Function("rank1", (), (Block("entry", peer),)))
    local = build_training_graph(Program(tuple(funcs), source="<site>"), tg.target, tg.groups)
    return run_plan(local, Plan("site", local.graph, lambda r, s: False, None, {}), iterations=1)

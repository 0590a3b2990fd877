"""A training step in the IR -> the operator graph the policies schedule.

Every operator belongs to a *rank* (its ``rank`` or ``stage`` attribute, or a
function named ``rank3``/``stage3``; rank 0 otherwise) and runs on one
*stream* of that rank: ``compute``, or the communication channel of its group
(``comm:dp``, ``comm:tp``, ``comm:pp`` ...). Dependences inside a rank come
from :func:`schedcc.dag.build_dag` on that rank's operators (the same builder
that orders instructions); a ``recv`` depends on the ``send`` whose result it
reads, on whichever rank that is. Durations come from the cluster cost model
(:mod:`schedcc.training.costs`) in nanosecond ticks.

Errors (all located): a missing or negative size, an unknown collective or
group, a send nobody receives, a recv of something that was not sent, a value
used on another rank without send/recv, a dependence cycle across ranks.

Complexity: O(n + e) plus build_dag's near-linear cost.

Example::

    >>> from schedcc import parse
    >>> from schedcc.target import load_target
    >>> prog = parse("a = matmul x {flops = 1e12}\\nr = allreduce a {bytes = 1MiB, group = dp}\\n")
    >>> g = build_training_graph(prog, load_target("h100-8x"))
    >>> [(d["name"], d["stream"]) for _, d in g.graph.nodes(data=True)]
    [('a', 'compute'), ('r', 'comm:dp')]
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass, field, replace

import networkx as nx

from schedcc._perf import paused_gc
from schedcc.dag import block_dependences
from schedcc.errors import SchedccError
from schedcc.ir import Block, Instr, Program, Reg
from schedcc.target import OpClass, Target, load_target
from schedcc.training.costs import COLLECTIVES, GROUP_NAMES, Cluster, apply_overrides, cluster_of, ticks

OPTIMIZER_OPCODES = frozenset({"sgd", "adam", "adamw", "lamb", "optimizer", "update", "apply_grad"})
SIZE_ATTRS = ("flops", "bytes", "time", "ranks", "stride", "act", "m", "n", "k", "whole_m", "gemms")
COUNT_ATTRS = ("ranks", "stride")  # whole numbers of devices
MAX_RANKS = 1_000_000  # devices in a group (docs/training.md); sizes are at most 1e18 (docs/ir.md)
_RANK_FUNC = re.compile(r"(?:rank|stage)_?(\d+)$")


@dataclass
class TrainingGraph:
    """One training step: ``graph`` nodes are operators (ids in program order).

    Node attributes: ``instr``, ``name``, ``opcode``, ``rank``, ``stream``,
    ``kind`` (``compute`` or ``comm``), ``dur`` (ticks), ``flops``, ``bytes``,
    ``group``, ``ranks`` (group size), ``layer`` (or None), ``act`` (activation
    bytes kept until the last reader finishes), ``update`` (the parameter an
    optimizer operator updates, or None). Edge attribute ``kind``: RAW, WAR,
    WAW, MEM or P2P.
    """

    graph: nx.DiGraph
    target: Target
    cluster: Cluster
    ranks: list[int]
    live_in: dict[int, tuple[str, ...]] = field(default_factory=dict)  # node -> parameters read from outside
    source: str = "<input>"
    program: Program | None = field(default=None, repr=False)
    groups: dict[str, int] = field(default_factory=dict)

    @property
    def streams(self) -> list[tuple[int, str]]:
        return sorted({(d["rank"], d["stream"]) for _, d in self.graph.nodes(data=True)})

    def __len__(self) -> int:
        return self.graph.number_of_nodes()


def _error(message: str, instr: Instr, focus: str | None = None, notes: list[str] | None = None) -> SchedccError:
    """A located error; *focus* is the text the caret should point at (an attribute or the opcode)."""
    return SchedccError(message, instr.loc, notes=notes or [], width=len(focus or instr.opcode),
                        focus=focus or instr.opcode)


def _number(instr: Instr, name: str) -> float | None:
    value = instr.attr(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _error(f"attribute '{name}' of '{instr.opcode}' must be a number, got {value!r}", instr, name)
    if value < 0:
        raise _error(f"negative size: {name} = {value:g} on '{instr.opcode}'", instr, name,
                     ["sizes, FLOPs and times must be zero or more"])
    return float(value)


def _numbers(instr: Instr) -> dict[str, float]:
    """The size attributes of *instr* (flops, bytes, time, ranks, stride, act), checked."""
    out = {}
    for key, attr in instr.attrs:
        if key in SIZE_ATTRS:
            value = attr.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _error(f"attribute '{key}' of '{instr.opcode}' must be a number, got {value!r}", instr, key)
            if value < 0:
                raise _error(f"negative size: {key} = {value:g} on '{instr.opcode}'", instr, key,
                             ["sizes, FLOPs and times must be zero or more"])
            if key in COUNT_ATTRS and (value != int(value) or not 1 <= value <= MAX_RANKS):
                raise _error(f"'{key}' must be a whole number from 1 to {MAX_RANKS:,}, got {value:g}",
                             instr, key)
            out[key] = float(value)
    return out


@functools.lru_cache(maxsize=4096)
def _near_collectives(opcode: str) -> tuple[str, ...]:
    return tuple(difflib.get_close_matches(opcode, COLLECTIVES, n=2, cutoff=0.8))


def _rank_of(instr: Instr, default: int) -> int:
    for key in ("rank", "stage"):
        value = instr.attr(key)
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise _error(f"'{key}' must be a non-negative integer, got {value!r}", instr, key)
            return value
    return default


def _check_opcode(instr: Instr, groups: dict[str, int]) -> None:
    op = instr.opcode
    group = instr.attr("group")
    if op not in COLLECTIVES:
        close = _near_collectives(op)
        if group is not None or close:
            notes = [f"did you mean {', '.join(repr(c) for c in close)}?"] if close else []
            notes.append("collectives: " + ", ".join(COLLECTIVES))
            raise _error(f"unknown collective '{op}'", instr, op, notes)
        return
    if group is None:
        raise _error(f"'{op}' needs a group: {{group = dp}} (dp, tp, pp, ep, cp or a named group)", instr, op)
    if op != "recv" and instr.attr("bytes") is None and instr.attr("time") is None:
        raise _error(f"missing size: '{op}' needs bytes = ... (e.g. {{bytes = 64MiB, group = {group}}})", instr, op)
    if group not in GROUP_NAMES and group not in groups and instr.attr("ranks") is None:
        known = list(GROUP_NAMES) + sorted(groups)
        close = difflib.get_close_matches(str(group), known, n=2)
        notes = [f"did you mean {', '.join(repr(c) for c in close)}?"] if close else []
        notes.append("a named group needs its size: {group = experts, ranks = 4}, or --group NAME=SIZE")
        raise _error(f"unknown group '{group}'", instr, str(group), notes)


def _duration(cluster: Cluster, instr: Instr, nums: dict[str, float], groups: dict[str, int]) -> tuple[int, int]:
    """(ticks, group size) of one operator; *nums* are its checked size attributes."""
    slowdown = 1.0
    if "whole_m" in nums:  # a piece of a GEMM: slower per FLOP than the whole (docs/cost-model.md)
        whole = nums["whole_m"]
        slowdown = cluster.piece_slowdown(nums.get("m", whole), whole, nums.get("n", whole),
                                          max(1, int(nums.get("gemms", 1))))
    if "time" in nums:
        return ticks(nums["time"] * slowdown * 1e-6), 1
    if instr.opcode in COLLECTIVES:
        group = str(instr.attr("group"))
        ranks = int(nums.get("ranks") or groups.get(group) or cluster.world)
        stride = int(nums.get("stride") or 1)
        if (ranks - 1) * stride >= cluster.world or (instr.opcode in ("send", "recv") and stride >= cluster.world):
            raise _error(f"group '{group}' spans {ranks} ranks {stride} apart, more than the "
                         f"{cluster.world} devices of '{cluster.name}'", instr, instr.opcode,
                         ["choose a larger cluster model (e.g. h100-128x) or fewer ranks"])
        if instr.opcode == "recv":
            return 0, ranks
        return ticks(cluster.collective_time(instr.opcode, nums.get("bytes", 0.0), ranks, stride)), ranks
    if "flops" not in nums and "bytes" not in nums:
        raise _error(f"missing size: '{instr.opcode}' needs flops = ..., bytes = ... or time = ...", instr, None,
                     ["e.g. {flops = 4.4e12} for a matmul, {bytes = 64MiB} for an element-wise operator"])
    return ticks(cluster.compute_time(nums.get("flops", 0.0), nums.get("bytes", 0.0), slowdown)), 1



def build_training_graph(program: Program, target: Target | str, groups: dict[str, int] | None = None,
                         overrides: dict[str, str] | None = None) -> TrainingGraph:
    """The operator graph of *program* on cluster *target* (see the module docstring).

    *groups* gives group sizes (``{"dp": 8}``); a collective's ``ranks``
    attribute wins; the default is every device of the cluster.
    """
    tgt = apply_overrides(load_target(target), overrides)  # a library entry point: a name works too
    with paused_gc():
        return _build(program, tgt, groups)


def _build(program: Program, tgt: Target, groups: dict[str, int] | None) -> TrainingGraph:
    cluster = cluster_of(tgt)
    groups = dict(groups or {})
    for name, size in groups.items():
        if not 1 <= size <= MAX_RANKS:
            raise SchedccError(f"--group {name}={size}: a group has from 1 to {MAX_RANKS:,} ranks")
    per_rank: dict[int, list[int]] = {}
    instrs: list[Instr] = []
    g = nx.DiGraph()
    nodes = []
    # Generated steps repeat the same operator for every microbatch: check and
    # price each distinct (opcode, attributes) once.
    seen: dict[tuple, tuple] = {}
    for func in program.functions:
        m = _RANK_FUNC.search(func.name)
        default_rank = int(m.group(1)) if m else 0
        for block in func.blocks:
            for instr in block.instrs:
                if instr.is_terminator or instr.opcode == "nop":
                    continue
                key = (instr.opcode, instr.attrs)
                info = seen.get(key)
                if info is None:
                    nums = _numbers(instr)
                    _check_opcode(instr, groups)
                    dur, size = _duration(cluster, instr, nums, groups)
                    layer = instr.attr("layer")
                    layer = float(layer) if isinstance(layer, (int, float)) and not isinstance(layer, bool) else None
                    group = instr.attr("group")
                    comm = instr.opcode in COLLECTIVES
                    info = seen[key] = (nums, dur, size, group, comm, layer, _rank_of(instr, -1))
                nums, dur, size, group, comm, layer, rank = info
                if rank < 0:
                    rank = default_rank
                node = len(instrs)
                instrs.append(instr)
                per_rank.setdefault(rank, []).append(node)
                update = None
                if instr.opcode in OPTIMIZER_OPCODES or instr.attr("updates") is not None:
                    update = instr.attr("updates")
                    if update is None:
                        update = next((op.name for op in instr.operands if isinstance(op, Reg)), None)
                nodes.append((node, {
                    "instr": instr, "name": instr.dest.name if instr.dest else f"{instr.opcode}#{node}",
                    "opcode": instr.opcode, "rank": rank, "stream": f"comm:{group}" if comm else "compute",
                    "kind": "comm" if comm else "compute", "dur": dur, "flops": nums.get("flops", 0.0),
                    "bytes": nums.get("bytes", 0.0), "group": group, "ranks": size, "layer": layer,
                    "act": nums.get("act", 0.0), "update": update, "order": float(node)}))
    g.add_nodes_from(nodes)
    if not instrs:
        raise SchedccError(f"{program.source}: no operators to schedule")
    live_in: dict[int, tuple[str, ...]] = {}
    defined_on: dict[str, int] = {}
    for node, instr in enumerate(instrs):
        for reg in instr.defs():
            defined_on.setdefault(reg, g.nodes[node]["rank"])
    sends: dict[str, int] = {}
    for n in g:
        instr = instrs[n]
        if instr.opcode == "send" and instr.dest is not None:
            first = sends.setdefault(instr.dest.name, n)
            if first != n:  # a recv could not say which of the two it receives
                where = instrs[first].loc
                raise _error(f"'{instr.dest.name}' is defined by two sends", instr, instr.dest.name,
                             [f"the first is at {where}" if where else "the first is earlier",
                              "give each send its own name"])
    for rank, ids in per_rank.items():
        block = Block(f"rank{rank}", tuple(instrs[n] for n in ids))
        _, deps = block_dependences(block, _dependences_only(tgt))
        g.add_edges_from((ids[d.src], ids[d.dst], {"kind": d.kind}) for d in deps)
        defined: set[str] = set()
        for n in ids:
            instr = instrs[n]
            outside = tuple(r for r in instr.uses() if r not in defined)
            live_in[n] = outside
            for reg in outside:
                src_rank = defined_on.get(reg)
                if instr.opcode == "recv" or src_rank is None or src_rank == rank:
                    continue
                raise _error(f"rank {rank} reads '{reg}', which rank {src_rank} computes", instr, reg,
                             ["move a value between ranks with send and recv: s = send x {bytes = ..., "
                              "group = pp} on the sender, y = recv s {group = pp} on the receiver"])
            defined.update(instr.defs())
    received: set[str] = set()
    for n, instr in enumerate(instrs):
        if instr.opcode != "recv":
            continue
        regs = instr.uses()
        if len(regs) != 1 or regs[0] not in sends:
            what = f"'{regs[0]}'" if regs else "nothing"
            raise _error(f"recv of {what}, which no send produces", instr, regs[0] if regs else None,
                         ["a recv names the result of its send: s = send x {...}; y = recv s {...}"])
        send = sends[regs[0]]
        if regs[0] in received:
            raise _error(f"'{regs[0]}' is received twice", instr, regs[0])
        received.add(regs[0])
        g.add_edge(send, n, kind="P2P")
        g.nodes[n]["dur"] = 0
        g.nodes[n]["send"] = send
    for name, n in sends.items():
        if name not in received:
            instr = instrs[n]
            raise _error(f"send without its recv: nobody receives '{name}'", instr, "send",
                         [f"add '... = recv {name} {{group = {instr.attr('group')}, rank = R}}' on the receiving rank"])
    check_acyclic(g, "dependence cycle across ranks")
    return TrainingGraph(g, tgt, cluster, sorted(per_rank), live_in, program.source, program, groups)


def _dependences_only(target: Target) -> Target:
    """*target* with one zero-cost class: the DAG builder then finds the dependences without
    computing durations (this module computes them, with the group sizes). One per model
    object (``Target.derived``), not per name and path."""
    return target.memo("dependences only", lambda: replace(
        target, classes=(OpClass("any", ("*",), ("compute",), 0),), path=target.path + "#dependences"))


def describe(g: nx.DiGraph, node) -> str:
    d = g.nodes[node]
    instr = d.get("instr")
    text = str(instr) if instr is not None else d.get("name", str(node))
    loc = f" ({instr.loc})" if instr is not None and instr.loc is not None else ""
    return f"rank {d.get('rank', 0)}: '{text}'{loc}"


def check_acyclic(g: nx.DiGraph, what: str) -> None:
    """Raise a located error naming the operators on a cycle of *g*, if there is one."""
    if nx.is_directed_acyclic_graph(g):
        return
    cycle = [u for u, _ in nx.find_cycle(g)]
    first = g.nodes[cycle[0]].get("instr")
    notes = []
    for u, v in zip(cycle, cycle[1:] + cycle[:1]):
        if g.edges[u, v].get("kind") == "ORDER":
            d = g.nodes[v]
            notes.append(f"{describe(g, v)} runs after {describe(g, u)} on stream rank{d.get('rank', 0)}:"
                         f"{d.get('stream', '?')} (program order)")
        else:
            notes.append(f"{describe(g, v)} waits for {describe(g, u)}")
    raise SchedccError(f"{what}: " + " -> ".join(g.nodes[u].get("name", str(u)) for u in cycle),
                       first.loc if first is not None else None, notes=notes,
                       width=len(first.opcode) if first is not None else 1)

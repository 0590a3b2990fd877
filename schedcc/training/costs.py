"""The cluster cost model: how long an operator or a collective takes.

A cluster machine model (``targets/h100-8x.toml`` and friends) carries its
numbers in a ``[cluster]`` table. :class:`Cluster` reads them (with
``--set key=value`` overrides) and answers two questions:

* compute: ``max(flops / (peak * efficiency), bytes / hbm_bw) + launch``;
* communication: the alpha-beta model with the algorithm factors of ring,
  tree and hierarchical (intra-node then inter-node) collectives.

``docs/cost-model.md`` derives every formula. Times are in seconds here;
schedules count integer nanosecond *ticks* (:data:`TICKS_PER_US` per
microsecond) so that the list scheduler's integer cycles apply unchanged.

Example::

    >>> c = Cluster(peak_flops=1e15, efficiency=0.5, hbm_bw=3e12, link_bw=4e11,
    ...             link_latency=5e-6, net_bw=5e10, net_latency=1e-5,
    ...             devices_per_node=8, nodes=1)
    >>> round(c.compute_time(flops=1e12) * 1e3, 3)  # milliseconds
    2.0
    >>> round(c.collective_time("allreduce", 2**30, ranks=8) * 1e3, 2)
    4.77
"""

from __future__ import annotations

import math
import re
from dataclasses import MISSING, dataclass, fields, replace
from typing import NamedTuple

from schedcc.errors import SchedccError, check_range
from schedcc.target import Target

TICKS_PER_US = 1000  # schedules count nanoseconds

COLLECTIVES = ("allreduce", "allgather", "reduce_scatter", "alltoall", "broadcast", "reduce",
               "send", "recv")
GROUP_NAMES = ("dp", "tp", "pp", "ep", "cp")


@dataclass(frozen=True)
class Cluster:
    """The numbers of one cluster; every field is a ``[cluster]`` key of the target file."""

    peak_flops: float            # FLOP/s per device, dense, training precision
    efficiency: float            # achievable fraction of peak for large matmuls
    hbm_bw: float                # bytes/s per device
    link_bw: float               # bytes/s per device and direction inside a node
    link_latency: float          # seconds per step (alpha) inside a node
    net_bw: float                # bytes/s per device and direction between nodes
    net_latency: float           # seconds per step (alpha) between nodes
    devices_per_node: int
    nodes: int
    comm_efficiency: float = 1.0  # achievable fraction of link bandwidth
    launch_overhead: float = 0.0  # seconds added to every operator
    inter_algorithm: str = "ring"  # "ring" or "tree" between nodes
    contention: float = 0.0       # compute slows by this fraction of the time communication overlaps it
    compute_units: int = 0        # SMs / AI cores a GEMM's output tiles spread over (0: no tile model)
    gemm_tiles: tuple = ()        # ((tile_m, tile_n), ...) output tiles the GEMM library chooses from
    # the shape-aware kernel model of schedcc.training.kernels (the planner's); 0 = not given
    memory_capacity: float = 0.0  # bytes of device memory (HBM)
    memory_reserved: float = 0.0  # bytes the framework keeps (CUDA context, communication buffers, fragmentation)
    gemm_efficiency: float = 0.0  # fraction of peak a large GEMM reaches per tile (0: use efficiency)
    attention_efficiency: float = 0.0  # fraction of peak a fused (flash) attention kernel reaches (0: gemm's)
    cudnn_attention_efficiency: float = 0.0  # the same for cuDNN's fused attention (0: attention_efficiency's)
    memory_efficiency: float = 1.0  # fraction of hbm_bw a streaming (elementwise) kernel reaches
    gemm_k_overhead: float = 0.0  # fixed cost of a GEMM tile (pipeline fill, epilogue) in reduction steps
    net_efficiency: float = 0.0   # fraction of net_bw a collective reaches between nodes (0: comm_efficiency)
    name: str = ""

    @property
    def world(self) -> int:
        return self.devices_per_node * self.nodes

    # -- compute ------------------------------------------------------------------
    def compute_time(self, flops: float = 0.0, bytes: float = 0.0, slowdown: float = 1.0) -> float:
        """Roofline: the larger of the math time (times *slowdown*, a GEMM piece's
        :meth:`piece_slowdown`) and the memory time, plus launch."""
        if flops <= 0 and bytes <= 0:
            return 0.0
        return max(flops * slowdown / (self.peak_flops * self.efficiency), bytes / self.hbm_bw) + self.launch_overhead

    def tile_efficiency(self, m: float, n: float, gemms: int = 1) -> float:
        """Fraction of the GEMM units' tile throughput an ``m x n`` output (``gemms`` of them,
        grouped) keeps, best over :attr:`gemm_tiles` (tile and wave quantisation).

        A tile ``tm x tn`` covers ``ceil(m/tm) ceil(n/tn)`` tiles per GEMM; they run
        in ``ceil(tiles / compute_units)`` waves, each as long as one tile, so the
        padded tiles and the idle units of the last wave are lost. A smaller tile
        re-reads more operand bytes per FLOP: it runs at ``reuse / best reuse`` of
        the largest tile's rate, reuse being ``tm tn / (tm + tn)`` (docs/cost-model.md).
        1.0 without a tile model.
        """
        if not self.compute_units or not self.gemm_tiles or m <= 0 or n <= 0:
            return 1.0
        best_reuse = max(tm * tn / (tm + tn) for tm, tn in self.gemm_tiles)
        best = 0.0
        for tm, tn in self.gemm_tiles:
            tiles = gemms * math.ceil(m / tm) * math.ceil(n / tn)
            slots = math.ceil(tiles / self.compute_units) * self.compute_units
            used = gemms * m * n / (slots * tm * tn)
            best = max(best, used * min(1.0, tm * tn / (tm + tn) / best_reuse))
        return best

    def piece_slowdown(self, m: float, whole_m: float, n: float, gemms: int = 1) -> float:
        """How much slower per FLOP a GEMM of ``m`` rows runs than the ``whole_m``-row GEMM
        it is a piece of (:meth:`tile_efficiency` of each); at least 1: the whole could
        run as its pieces. The whole's time is what the calibrated ``efficiency`` says."""
        piece = self.tile_efficiency(m, n, gemms)
        return max(1.0, self.tile_efficiency(whole_m, n, gemms) / piece) if piece > 0 else 1.0

    # -- communication ---------------------------------------------------------------
    def placement(self, ranks: int, stride: int = 1) -> tuple[int, int]:
        """(members per node, nodes spanned) of a group of *ranks* devices *stride* apart."""
        if ranks <= 1:
            return 1, 1
        per_node = 1 if stride >= self.devices_per_node else max(1, min(ranks, self.devices_per_node // stride))
        return per_node, math.ceil(ranks / per_node)

    def _intra(self) -> tuple[float, float]:
        return self.link_bw * self.comm_efficiency, self.link_latency

    def _inter(self) -> tuple[float, float]:
        return self.net_bw * (self.net_efficiency or self.comm_efficiency), self.net_latency

    def collective_time(self, kind: str, size: float, ranks: int, stride: int = 1) -> float:
        """Seconds for collective *kind* on *size* bytes among *ranks* devices *stride* apart.

        *size* is the whole buffer: the vector all-reduced, the gathered result
        of an all-gather, the input of a reduce-scatter, what one rank sends.
        """
        if size <= 0:
            return 0.0
        if kind in ("send", "recv"):
            bw, alpha = self._intra() if stride < self.devices_per_node else self._inter()
            return alpha + size / bw + self.launch_overhead
        if ranks <= 1:
            return 0.0
        k, n = self.placement(ranks, stride)
        if n == 1:
            t = _flat(kind, size, ranks, *self._intra(), "ring")
        elif k == 1:
            t = self._inter_phase(kind, size, 1, ranks)
        else:
            t = self._hierarchical(kind, size, k, n)
        return t + self.launch_overhead

    def net_time(self, kind: str, size: float, ranks: int, stride: int = 1) -> float:
        """Seconds of :meth:`collective_time` during which each member's NIC carries the
        collective (its inter-node phase; 0 inside a node). Each device has its own NIC
        ([dgx]: one per GPU), and a rank's collectives and its pipeline transfers share it;
        ``net_time / collective_time`` is the share of the NIC the collective keeps busy.

        >>> from schedcc.training.costs import Cluster
        >>> c = Cluster(peak_flops=1e15, efficiency=0.5, hbm_bw=2e12, link_bw=300e9, link_latency=5e-6,
        ...             net_bw=25e9, net_latency=1e-5, devices_per_node=8, nodes=4)
        >>> c.net_time("allreduce", 1e9, 8, 1), c.net_time("send", 1e6, 2, 8) > 0
        (0.0, True)
        >>> 0 < c.net_time("allreduce", 1e9, 32, 1) < c.collective_time("allreduce", 1e9, 32, 1)
        True
        """
        if size <= 0:
            return 0.0
        if kind in ("send", "recv"):
            bn, an = self._inter()
            return an + size / bn if stride >= self.devices_per_node else 0.0
        k, n = self.placement(ranks, stride)
        if ranks <= 1 or n == 1:
            return 0.0
        return self._inter_phase(kind, size, k, n)

    def _inter_phase(self, kind: str, size: float, k: int, n: int) -> float:
        """The inter-node phase of *kind* among *n* nodes of *k* members each: the whole
        collective when k is 1, else on size/k bytes (each device drives its own NIC;
        broadcast: the chain's node crossings, its bytes spread over the k NICs as NCCL's channels
        spread them; all-to-all and reduce: every byte that leaves a node)."""
        bn, an = self._inter()
        if k == 1:
            return _flat(kind, size, n, bn, an, self.inter_algorithm)
        if kind == "allreduce":
            return _flat("allreduce", size / k, n, bn, an, self.inter_algorithm)
        if kind in ("allgather", "reduce_scatter", "broadcast"):  # broadcast: the chain's n - 1 node crossings
            return _flat(kind, size / k, n, bn, an, "ring")
        return _flat(kind, size * (n - 1) / n, n * k, bn, an, "ring")

    def _hierarchical(self, kind: str, size: float, k: int, n: int) -> float:
        """Intra-node phase over k devices, inter-node phase over n nodes on size/k bytes
        (each device drives its own NIC), then the intra-node phase back."""
        bi, ai = self._intra()
        if kind == "broadcast":   # NCCL's ring: one pipelined chain through the n k devices, node by node
            bn, an = self._inter()
            return n * (k - 1) * ai + (n - 1) * an + max(size / bi, size / (k * bn))
        inter = self._inter_phase(kind, size, k, n)
        half_intra = _flat("allgather", size, k, bi, ai, "ring")
        if kind == "allreduce":
            return 2 * half_intra + inter
        if kind in ("allgather", "reduce_scatter"):
            return half_intra + inter
        # alltoall, reduce: bounded by the slower level
        return max(_flat(kind, size, k, bi, ai, "ring"), inter)


def _flat(kind: str, size: float, p: int, bw: float, alpha: float, algorithm: str) -> float:
    """One level: ring (or double binary tree for all-reduce) among p peers."""
    if p <= 1:
        return 0.0
    if kind == "allreduce":
        if algorithm == "tree":
            return 2 * math.ceil(math.log2(p)) * alpha + 2 * size / bw
        return 2 * (p - 1) * alpha + 2 * (p - 1) / p * size / bw
    if kind in ("allgather", "reduce_scatter", "alltoall"):
        return (p - 1) * alpha + (p - 1) / p * size / bw
    if kind in ("broadcast", "reduce"):  # pipelined chain
        return (p - 1) * alpha + size / bw
    raise ValueError(kind)


# -- reading the model ------------------------------------------------------------------

_UNITS = {
    "b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12,
    "kib/s": 2**10, "mib/s": 2**20, "gib/s": 2**30, "tib/s": 2**40,
    "gbit/s": 1e9 / 8, "gbps": 1e9 / 8,
    "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "flops": 1, "gflops": 1e9, "tflops": 1e12, "pflops": 1e15,
    "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
    "%": 0.01,
}


def parse_quantity(text: str, key: str = "") -> float:
    """``200GB/s`` -> 2e11, ``5us`` -> 5e-6, ``989TFLOPS`` -> 9.89e14, ``0.5`` -> 0.5 (a sign, ``nan``
    and ``inf`` are read too: the range check of :data:`CLUSTER_RANGES` then names the key)."""
    m = re.fullmatch(r"\s*([-+]?(?:[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?|nan|inf(?:inity)?))\s*([A-Za-z/%]*)\s*",
                     text, re.IGNORECASE)
    if not m:
        raise SchedccError(f"--set {key}: cannot read '{text}' as a number",
                           notes=["write a number with an optional unit: 200GB/s, 5us, 989TFLOPS, 0.5"])
    value, unit = float(m.group(1)), m.group(2).lower()
    if unit and unit not in _UNITS:
        raise SchedccError(f"--set {key}: unknown unit '{m.group(2)}'",
                           notes=["units: " + ", ".join(sorted({u for u in _UNITS}))])
    return value * (_UNITS[unit] if unit else 1)


class Range(NamedTuple):
    lo: float
    hi: float
    why: str
    integer: bool = False
    above: bool = False  # lo itself excluded


# The range of every number of a [cluster] table (docs/cost-model.md lists them): wide
# enough for any device built or announced, ending where the cost model stops meaning
# anything (a fraction above 1, a link faster than any wire) or a count would make a
# run take minutes; rates and fractions start where a step would take longer than
# anyone waits (a tenth of a percent of peak, a MB/s).
CLUSTER_RANGES: dict[str, Range] = {
    "peak_flops": Range(1e9, 1e18, "FLOP/s per device, from a GFLOP/s to a thousand times an H100's 1e15"),
    "efficiency": Range(0.001, 1, "a fraction of peak"),
    "hbm_bw": Range(1e6, 1e15, "bytes/s per device, from a MB/s to 300 times an H100's 3.35e12"),
    "link_bw": Range(1e6, 1e15, "bytes/s per device and direction, from a MB/s to 2,000 times NVLink's 4.5e11"),
    "link_latency": Range(0, 1, "seconds per step; real links take microseconds"),
    "net_bw": Range(1e6, 1e15, "bytes/s per device and direction, from a MB/s to 20,000 times a 400 Gb/s NIC"),
    "net_latency": Range(0, 1, "seconds per step; real networks take microseconds"),
    "devices_per_node": Range(1, 1024, "devices in one node; the largest, NVL72, hold 72", integer=True),
    "nodes": Range(1, 131_072, "nodes; the largest clusters have about 100,000 devices", integer=True),
    "comm_efficiency": Range(0.001, 1, "a fraction of the link bandwidth"),
    "net_efficiency": Range(0, 1, "a fraction of net_bw; 0: comm_efficiency's"),
    "launch_overhead": Range(0, 1, "seconds per operator; launches take microseconds"),
    "contention": Range(0, 4, "compute at most five times slower under communication; measured slowdowns "
                              "are 10-40%"),
    "compute_units": Range(0, 65_536, "SMs or AI cores per device, 0 for no tile model; an H100 has 132",
                           integer=True),
    "memory_capacity": Range(0, 1e15, "bytes per device, 0 if not given; a petabyte"),
    "memory_reserved": Range(0, 1e15, "bytes per device, less than memory_capacity"),
    "gemm_efficiency": Range(0, 1, "a fraction of peak; 0: use efficiency"),
    "attention_efficiency": Range(0, 1, "a fraction of peak; 0: gemm_efficiency's"),
    "cudnn_attention_efficiency": Range(0, 1, "a fraction of peak; 0: attention_efficiency's"),
    "memory_efficiency": Range(0.001, 1, "a fraction of hbm_bw"),
    "gemm_k_overhead": Range(0, 1e6, "reduction steps per wave of tiles; the shipped models use a few hundred"),
}
MAX_TILE, MAX_TILES = 65_536, 64  # a GEMM tile's rows or columns; tile shapes listed


_FIELDS = {f.name: f for f in fields(Cluster)}


def cluster_from_table(table: dict, name: str = "", path: str = "", text: str | None = None) -> Cluster:
    """Build a :class:`Cluster` from a ``[cluster]`` table: every key checked against
    :data:`CLUSTER_RANGES`; an error names the key, and its line when the TOML *text* is given."""
    def fail(key: str, message: str) -> SchedccError:
        from schedcc.target.load import key_location
        loc = key_location(text, f"cluster.{key}", path) if text is not None else None
        if loc is None:
            return SchedccError(f"{path or name}: key 'cluster.{key}': {message}",
                                notes=["docs/cost-model.md lists the keys of a cluster model and their ranges"])
        line = text.splitlines()[loc.line - 1]
        return SchedccError(f"key 'cluster.{key}': {message}", loc, source_line=line,
                            width=len(key) if line[loc.col - 1:].startswith(key) else 1)

    values = {}
    for key, f in _FIELDS.items():
        if key == "name":
            continue
        if key not in table:
            if f.default is not MISSING:
                continue
            raise fail(key, "missing")
        value = table[key]
        if key == "gemm_tiles":
            try:
                values[key] = parse_tiles(value, f"key 'cluster.gemm_tiles'")
            except SchedccError as err:
                raise fail(key, err.message.removeprefix("key 'cluster.gemm_tiles': ")) from None
            continue
        if f.type == "str":
            if value not in ("ring", "tree"):
                raise fail(key, f"expected \"ring\" or \"tree\", got {value!r}")
            values[key] = value
            continue
        r = CLUSTER_RANGES[key]
        try:
            values[key] = check_range(value, r.lo, r.hi, "it", integer=r.integer, above=r.above, why=r.why)
        except SchedccError as err:
            raise fail(key, err.message.removeprefix("it ")) from None
    if values.get("memory_reserved", 0) and values["memory_reserved"] >= values.get("memory_capacity", 0):
        raise fail("memory_reserved", f"must be less than memory_capacity ({values.get('memory_capacity', 0):g}), "
                                      f"got {values['memory_reserved']:g}")
    world = values["devices_per_node"] * values["nodes"]
    if world > CLUSTER_RANGES["nodes"].hi:
        raise fail("nodes", f"{values['nodes']} nodes of {values['devices_per_node']} devices are {world:,} devices, "
                            f"more than {int(CLUSTER_RANGES['nodes'].hi):,}")
    values["devices_per_node"] = int(values["devices_per_node"])
    values["compute_units"] = int(values.get("compute_units", 0))
    values["nodes"] = int(values["nodes"])
    return Cluster(name=name, **values)


def is_cluster_target(target: Target) -> bool:
    return isinstance(target.raw.get("cluster"), dict)


def cluster_models_note() -> str:
    """The shipped models with a ``[cluster]`` table, for an error's note (read from ``targets/``)."""
    from schedcc.target import list_targets
    return "cluster models: " + ", ".join(t.name for t in list_targets() if is_cluster_target(t))


def apply_overrides(target: Target, overrides: dict[str, str] | None) -> Target:
    """*target* with ``[cluster]`` numbers replaced (``{"link_bw": "200GB/s"}``)."""
    if not overrides:
        return target
    if not is_cluster_target(target):
        raise SchedccError(f"--set needs a cluster machine model; '{target.name}' has no [cluster] table",
                           notes=[cluster_models_note()])
    table = dict(target.raw["cluster"])
    for key, text in overrides.items():
        if key not in _FIELDS or key == "name":
            import difflib
            close = difflib.get_close_matches(key, list(_FIELDS), n=3)
            raise SchedccError(f"--set: unknown cluster parameter '{key}'",
                               notes=[f"did you mean {', '.join(close)}?" if close else
                                      "parameters: " + ", ".join(k for k in _FIELDS if k != "name")])
        if key == "inter_algorithm":
            table[key] = text
        elif key == "gemm_tiles":
            table[key] = [t.strip() for t in text.split(",")] if isinstance(text, str) else list(text)
        else:
            value = parse_quantity(text, key) if isinstance(text, str) else text
            table[key] = value
    try:
        cluster_from_table(table, target.name)  # validate
    except SchedccError as err:  # name the --set that made the model invalid
        m = re.fullmatch(r".*?key 'cluster\.(\w+)': (.*)", err.message, re.S)
        if m is None:
            raise
        key, message = m.groups()
        what = f"{key}={overrides[key]}" if key in overrides else \
            " ".join(f"{k}={v}" for k, v in overrides.items()) + f": key '{key}'"
        raise SchedccError(f"--set {what}: {message}", notes=err.notes) from None
    raw = {**target.raw, "cluster": table}
    return replace(target, raw=raw, path=target.path + "?" + ",".join(
        f"{k}={v}" for k, v in sorted(overrides.items())))


def parse_overrides(items: list[str] | None) -> dict[str, str]:
    """``["link_bw=200GB/s"]`` -> ``{"link_bw": "200GB/s"}`` with a clear error otherwise."""
    out: dict[str, str] = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise SchedccError(f"--set '{item}': expected KEY=VALUE, e.g. --set link_bw=200GB/s")
        out[key.strip()] = value.strip()
    return out


def parse_tiles(value, where: str) -> tuple:
    """``["128x256", "64x64"]`` -> ``((128, 256), (64, 64))``; an error names *where*. At most
    :data:`MAX_TILES` shapes of 1 to :data:`MAX_TILE` rows and columns (libraries use 16 to 256)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    if not 1 <= len(items) <= MAX_TILES:
        raise SchedccError(f"{where}: expected 1 to {MAX_TILES} tile shapes, got {len(items)}")
    out = []
    for item in items:
        m = re.fullmatch(r"\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*", str(item))
        if not m or not 1 <= int(m.group(1)) <= MAX_TILE or not 1 <= int(m.group(2)) <= MAX_TILE:
            shown = repr(value) if len(repr(value)) < 80 else repr(value)[:77] + "..."
            raise SchedccError(f"{where}: expected tile shapes like \"128x256,128x128\" (rows and columns from 1 "
                               f"to {MAX_TILE:,}), got {shown}")
        out.append((int(m.group(1)), int(m.group(2))))
    return tuple(out)


# The shipped cluster models that carry the planner's fields (memory_capacity, compute_units and
# the kernel model): what `schedcc plan` and `schedcc calibrate` name when a target lacks them.
PLANNER_CLUSTERS = ("dgx-a100", "dgx-h100", "ascend910b-cluster", "mi250x-cluster")


def cluster_of(target: Target) -> Cluster:
    if not is_cluster_target(target):
        raise SchedccError(f"target '{target.name}' is not a cluster model (it has no [cluster] table)",
                           notes=[cluster_models_note(),
                                  "'schedcc targets' lists all models"])
    return _cluster_cached(target)


def _cluster_cached(target: Target) -> Cluster:
    """Once per model object (``Target.derived``): a cache keyed by name and path would
    serve an edited file, or m.toml in another directory, the other one's cluster. Errors
    point at the key's line in the text the model was parsed from, when it came from a file."""
    return target.memo("cluster", lambda: cluster_from_table(target.raw["cluster"], target.name, target.path,
                                                             target.derived.get("source")))


def ticks(seconds: float) -> int:
    """Nanosecond ticks; anything that takes time takes at least one tick."""
    if seconds <= 0:
        return 0
    return max(1, round(seconds * 1e9))

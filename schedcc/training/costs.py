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
            t = _flat(kind, size, ranks, *self._inter(), self.inter_algorithm)
        else:
            t = self._hierarchical(kind, size, k, n)
        return t + self.launch_overhead

    def _hierarchical(self, kind: str, size: float, k: int, n: int) -> float:
        """Intra-node phase over k devices, inter-node phase over n nodes on size/k bytes
        (each device drives its own NIC), then the intra-node phase back."""
        bi, ai = self._intra()
        bn, an = self._inter()
        half_intra = _flat("allgather", size, k, bi, ai, "ring")
        if kind == "allreduce":
            return 2 * half_intra + _flat("allreduce", size / k, n, bn, an, self.inter_algorithm)
        if kind in ("allgather", "reduce_scatter"):
            return half_intra + _flat(kind, size / k, n, bn, an, "ring")
        # alltoall, broadcast, reduce: bounded by the slower level
        return max(_flat(kind, size, k, bi, ai, "ring"), _flat(kind, size * (n - 1) / n, n * k, bn, an, "ring"))


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
    """``200GB/s`` -> 2e11, ``5us`` -> 5e-6, ``989TFLOPS`` -> 9.89e14, ``0.5`` -> 0.5.

    >>> parse_quantity("-1", "link_bw")
    Traceback (most recent call last):
    ...
    schedcc.errors.SchedccError: error: --set link_bw: '-1' is negative: link_bw is a size, a rate or a time
    """
    m = re.fullmatch(r"\s*([-+]?)([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/%]*)\s*", text)
    if not m:
        raise SchedccError(f"--set {key}: cannot read '{text}' as a number",
                           notes=["write a number with an optional unit: 200GB/s, 5us, 989TFLOPS, 0.5"])
    if m.group(1) == "-" and float(m.group(2)) != 0:
        raise SchedccError(f"--set {key}: '{text}' is negative: {key} is a size, a rate or a time")
    m = re.fullmatch(r"\s*[-+]?([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z/%]*)\s*", text)
    value, unit = float(m.group(1)), m.group(2).lower()
    if unit and unit not in _UNITS:
        raise SchedccError(f"--set {key}: unknown unit '{m.group(2)}'",
                           notes=["units: " + ", ".join(sorted({u for u in _UNITS}))])
    return value * (_UNITS[unit] if unit else 1)


_FIELDS = {f.name: f for f in fields(Cluster)}

# Every [cluster] number's range (key -> lo, hi, whether lo itself is allowed, why): a value
# outside it is an error naming the key, in a target file and in --set alike. The bounds
# are wide for any real hardware (docs/cost-model.md) and keep derived times finite.
_RANGES: dict[str, tuple[float, float, bool, str]] = {
    "peak_flops": (0, 1e19, False, "FLOP/s per device; the fastest accelerators do about 1e16"),
    "efficiency": (0, 1, False, "a fraction of peak"),
    "hbm_bw": (0, 1e15, False, "bytes/s per device; today's HBM gives about 8e12"),
    "link_bw": (0, 1e15, False, "bytes/s per device and direction; NVLink 5 gives about 1e12"),
    "link_latency": (0, 1, True, "seconds per step"),
    "net_bw": (0, 1e15, False, "bytes/s per device and direction"),
    "net_latency": (0, 1, True, "seconds per step"),
    "devices_per_node": (1, 1024, True, "devices in one node"),
    "nodes": (1, 131_072, True, "nodes in the cluster"),
    "comm_efficiency": (0, 1, False, "a fraction of link bandwidth"),
    "launch_overhead": (0, 1, True, "seconds added to every operator"),
    "contention": (0, 1, True, "the fraction compute slows while communication overlaps it"),
    "compute_units": (0, 1_000_000, True, "SMs or AI cores per device; 0: no tile model"),
    "memory_capacity": (0, 1e15, True, "bytes of device memory"),
    "memory_reserved": (0, 1e15, True, "bytes the framework keeps"),
    "gemm_efficiency": (0, 1, True, "a fraction of peak; 0: use efficiency"),
    "attention_efficiency": (0, 1, True, "a fraction of peak; 0: gemm_efficiency's"),
    "memory_efficiency": (0, 1, False, "a fraction of hbm_bw"),
    "gemm_k_overhead": (0, 1_000_000, True, "reduction steps per GEMM tile"),
}


def _check_field(key: str, value, where: str) -> None:
    lo, hi, closed, why = _RANGES[key]
    integer = _FIELDS[key].type == "int"
    check_range(value, lo, hi, where, integer=integer, above=not closed, why=why)


def cluster_from_table(table: dict, name: str = "", path: str = "") -> Cluster:
    """Build a :class:`Cluster` from a ``[cluster]`` table; errors name the missing key."""
    values = {}
    for key, f in _FIELDS.items():
        if key == "name":
            continue
        if key not in table:
            if f.default is not MISSING:
                continue
            raise SchedccError(f"{path or name}: key 'cluster.{key}': missing",
                               notes=["docs/cost-model.md lists the keys of a cluster model"])
        value = table[key]
        if key == "gemm_tiles":
            values[key] = parse_tiles(value, f"{path or name}: key 'cluster.gemm_tiles'")
            continue
        if f.type == "str":
            if value not in ("ring", "tree"):
                raise SchedccError(f"{path or name}: key 'cluster.{key}': expected \"ring\" or \"tree\"")
        else:
            _check_field(key, value, f"{path or name}: key 'cluster.{key}'")
        values[key] = value
    values["devices_per_node"] = int(values["devices_per_node"])
    values["compute_units"] = int(values.get("compute_units", 0))
    values["nodes"] = int(values["nodes"])
    return Cluster(name=name, **values)


def is_cluster_target(target: Target) -> bool:
    return isinstance(target.raw.get("cluster"), dict)


def apply_overrides(target: Target, overrides: dict[str, str] | None) -> Target:
    """*target* with ``[cluster]`` numbers replaced (``{"link_bw": "200GB/s"}``)."""
    if not overrides:
        return target
    if not is_cluster_target(target):
        raise SchedccError(f"--set needs a cluster machine model; '{target.name}' has no [cluster] table",
                           notes=["cluster models: ascend910b-8x, h100-8x, ascend910b-128x, h100-128x"])
    table = dict(target.raw["cluster"])
    for key, text in overrides.items():
        if key not in _FIELDS or key == "name":
            import difflib
            close = difflib.get_close_matches(key, list(_FIELDS), n=3)
            raise SchedccError(f"--set: unknown cluster parameter '{key}'",
                               notes=[f"did you mean {', '.join(close)}?" if close else
                                      "parameters: " + ", ".join(k for k in _FIELDS if k != "name")])
        if key == "inter_algorithm":
            if text not in ("ring", "tree"):
                raise SchedccError(f"--set inter_algorithm={text}: expected ring or tree")
            table[key] = text
        elif key == "gemm_tiles":
            table[key] = [t.strip() for t in text.split(",")] if isinstance(text, str) else list(text)
            parse_tiles(table[key], f"--set gemm_tiles")
        else:
            value = parse_quantity(text, key) if isinstance(text, str) else float(text)
            if _FIELDS[key].type == "int" and value == int(value):
                value = int(value)
            _check_field(key, value, f"--set {key}")
            table[key] = value
    cluster_from_table(table, target.name)  # validate
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
    """``["128x256", "64x64"]`` -> ``((128, 256), (64, 64))``; an error names *where*."""
    items = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for item in items:
        m = re.fullmatch(r"\s*(\d{1,6})\s*[xX]\s*(\d{1,6})\s*", str(item))
        if not m or not int(m.group(1)) or not int(m.group(2)):
            raise SchedccError(f"{where}: expected tile shapes like \"128x256,128x128\", got {value!r}")
        out.append((int(m.group(1)), int(m.group(2))))
    return tuple(out)


def cluster_of(target: Target) -> Cluster:
    if not is_cluster_target(target):
        raise SchedccError(f"target '{target.name}' is not a cluster model (it has no [cluster] table)",
                           notes=["cluster models: ascend910b-8x, h100-8x, ascend910b-128x, h100-128x",
                                  "'schedcc targets' lists all models"])
    return _cluster_cached(target)


_CACHE: dict[tuple, Cluster] = {}


def _cluster_cached(target: Target) -> Cluster:
    key = (target.name, target.path)
    c = _CACHE.get(key)
    if c is None:
        c = _CACHE[key] = cluster_from_table(target.raw["cluster"], target.name, target.path)
    return c


def ticks(seconds: float) -> int:
    """Nanosecond ticks; anything that takes time takes at least one tick."""
    if seconds <= 0:
        return 0
    return max(1, round(seconds * 1e9))

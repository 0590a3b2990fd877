"""A cluster cost model fitted to the collectives a trace measured.

What-ifs price collectives the trace never ran (other buckets, chunks): the
cluster model's alpha-beta formula (:meth:`schedcc.training.costs.Cluster.collective_time`,
one node, ring) with its two numbers fitted to the trace. Each collective
instance gives one sample: its bytes, group size and *transfer* time (from
the last rank's start to the mean end over the ranks: the collective itself,
not the wait for late ranks). The ring factors make ``t = A alpha + B bytes / bw``
linear in ``alpha`` and ``1 / bw``; the fit minimises the sum of absolute
errors (iteratively reweighted least squares: a preempted thread's outlier
pulls it little) with both numbers non-negative. When every sample has one
size, latency and bandwidth cannot be told apart: the fit keeps ``alpha = 0``.

The fitted model is a cluster target (``h100-8x``'s file with ``link_bw``,
``link_latency``, the group size and no contention changed), so everything
that takes a cluster takes it.

Example::

    >>> fit = fit_samples([("allreduce", 1e6, 2, 1100.0), ("allreduce", 4e6, 2, 4100.0)])
    >>> round(fit.alpha_us), round(fit.bandwidth / 1e9, 3)
    (50, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from schedcc.target import Target, load_target
from schedcc.training.costs import apply_overrides

ROUNDS = 30


@dataclass
class CommFit:
    """alpha (us per ring step) and bandwidth (bytes/s) of the fit, with its error on the samples."""

    alpha_us: float
    bandwidth: float
    samples: int
    median_error: float          # median |fit - measured| / measured over the samples
    target: Target | None = None
    sizeless: bool = False       # no sample had a size (traced without record_shapes): alpha only

    def predict_us(self, kind: str, size: float, ranks: int) -> float:
        a, b = factors(kind, ranks)
        return a * self.alpha_us + b * size / self.bandwidth * 1e6

    def describe(self) -> str:
        if not self.samples:
            return "no collectives to fit"
        if self.sizeless:
            return (f"alpha {self.alpha_us:,.1f} us per ring step, bandwidth unknown (the trace records no "
                    f"message sizes); median error {self.median_error:.0%} on {self.samples} collectives")
        return (f"alpha {self.alpha_us:,.1f} us per ring step, {self.bandwidth / 1e9:,.3f} GB/s; "
                f"median error {self.median_error:.0%} on {self.samples} collectives")


def factors(kind: str, p: int) -> tuple[float, float]:
    """(steps, bytes factor) of a flat ring collective among *p* ranks (costs._flat's formula)."""
    if p <= 1:
        return 0.0, 0.0
    if kind == "allreduce":
        return 2.0 * (p - 1), 2.0 * (p - 1) / p
    if kind in ("broadcast", "reduce"):
        return float(p - 1), 1.0
    if kind in ("send", "recv"):
        return 1.0, 1.0
    return float(p - 1), (p - 1) / p


def fit_samples(samples: list[tuple[str, float, int, float]]) -> CommFit:
    """Fit (kind, bytes, ranks, microseconds) samples; see the module docstring. O(ROUNDS x samples)."""
    rows = [(*factors(k, p), size, t) for k, size, p, t in samples if t > 0 and p > 1]
    if not rows:
        return CommFit(0.0, 1e9, 0, 0.0)
    weights = [1.0] * len(rows)
    alpha, beta = 0.0, 0.0
    one_size = len({size for _, _, size, _ in rows}) == 1
    sizeless = one_size and rows[0][2] == 0
    for _ in range(ROUNDS):
        alpha, beta = _solve(rows, weights, one_size and not sizeless, sizeless)
        weights = [1.0 / max(abs(a * alpha + b * s * beta - t), 1e-3 * t) for a, b, s, t in rows]
    errors = sorted(abs(a * alpha + b * s * beta - t) / t for a, b, s, t in rows)
    bandwidth = 1e6 / beta if beta > 0 else 1e12
    return CommFit(alpha, bandwidth, len(rows), errors[len(errors) // 2], sizeless=sizeless)


def _solve(rows, w, one_size: bool, sizeless: bool = False) -> tuple[float, float]:
    """Weighted least squares for t = a alpha + (b s) beta with alpha, beta >= 0 (us, us per byte)."""
    def single(col: int) -> float:
        num = sum(wi * (r[0] if col == 0 else r[1] * r[2]) * r[3] for wi, r in zip(w, rows))
        den = sum(wi * (r[0] if col == 0 else r[1] * r[2]) ** 2 for wi, r in zip(w, rows))
        return max(num / den, 0.0) if den > 0 else 0.0
    if sizeless:
        return single(0), 0.0
    if one_size:
        return 0.0, single(1)
    saa = sum(wi * r[0] * r[0] for wi, r in zip(w, rows))
    sbb = sum(wi * (r[1] * r[2]) ** 2 for wi, r in zip(w, rows))
    sab = sum(wi * r[0] * r[1] * r[2] for wi, r in zip(w, rows))
    sat = sum(wi * r[0] * r[3] for wi, r in zip(w, rows))
    sbt = sum(wi * r[1] * r[2] * r[3] for wi, r in zip(w, rows))
    det = saa * sbb - sab * sab
    if abs(det) <= 1e-12 * max(saa * sbb, 1e-300):
        return 0.0, single(1)
    alpha = (sat * sbb - sbt * sab) / det
    beta = (saa * sbt - sab * sat) / det
    if alpha < 0:
        return 0.0, single(1)
    if beta < 0:
        return single(0), 0.0
    return alpha, beta


def fit_target(views) -> CommFit:
    """Fit the collectives of a traced job (its :class:`~schedcc.torch.lanes.RankView` s) and
    build the cluster target with the fitted numbers."""
    samples = []
    for c in views[0].comms:
        peers = c.peers or [c]
        last = max(p.start for p in peers)
        transfer = sum(p.end for p in peers) / len(peers) - last
        samples.append((c.kind, c.bytes, c.group_size, transfer))
    fit = fit_samples(samples)
    world = max([len(views)] + [c.group_size for v in views for c in v.comms])
    base = load_target("h100-8x")
    link_bw = fit.bandwidth
    numbers = {"link_bw": link_bw, "net_bw": link_bw, "link_latency": fit.alpha_us * 1e-6,
               "net_latency": fit.alpha_us * 1e-6, "devices_per_node": world, "nodes": 1,
               "comm_efficiency": 1.0, "launch_overhead": 0.0, "contention": 0.0}
    target = apply_overrides(base, numbers)
    fit.target = replace(target, name="fitted to the trace", path=target.path + "#trace-fit")
    return fit

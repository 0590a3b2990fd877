"""The bounded least-squares fit behind calibration: a coarse grid over the box, then local refinement.

:func:`schedcc.planner.calibrate.calibrate` fits a few constants (on a log
scale where they are efficiencies or latencies) to measured step times. The
residuals (log predicted over measured step) are a schedule's length:
piecewise smooth, and flat where a cost is hidden. A collective under the
backward costs nothing until the network is slow enough to show, so from a
start where the network is fast a run's sensitivity to it can be near zero
(0.018 for one run of the synthetic tests, 0.13 at the value that made
them) and a trust region shrinks before it gets there. A single local fit
from the base file's values therefore stops wherever its start happens to
see no slope.

:func:`solve` does not depend on the start: it evaluates the cost (half the
sum of squared residuals) on a grid of cell centres over the whole box
(:data:`GRID_POINTS` points in all, as many per constant as that allows, at
least two) and at the start, refines the :data:`STARTS` best of them with
``scipy.optimize.least_squares`` (trust-region reflective, forward
differences of a fixed step: a schedule's length moves in whole ticks, so a
difference of the order of machine precision sees nothing), best first, and
keeps the lowest cost; it stops early once a fit reproduces every residual
to :data:`EXACT` (as many constants as runs usually do). Ties go to the
better-ranked start (equal costs: the base file's values first, then the
grid in order). Deterministic: no random starts.

Example (a residual with a plateau: flat for x > 0, the minimum at x = -2)::

    >>> import numpy as np
    >>> f = lambda x: np.array([min(x[0], 0.0) + 2.0])
    >>> res = solve(f, [1.0], [-5.0], [3.0])
    >>> round(float(res.x[0]), 3), bool(res.cost < 1e-12)
    (-2.0, True)
"""

from __future__ import annotations

import itertools
import math

FD_STEP = 0.02          # the finite-difference step (log scale: 2%)
GRID_POINTS = 25        # cost evaluations of the coarse grid, in all
STARTS = 3              # local fits, from the best grid points (and the start)
MAX_NFEV = 30           # residual evaluations of one local fit
EXACT = 1e-4            # an RMS residual (log of a step) below this reproduces the runs: the search stops


def grid(lo, hi, points: int = GRID_POINTS) -> list[tuple[float, ...]]:
    """Cell centres of a regular grid over the box *lo*..*hi*: about *points* in all, at
    least two per dimension, in lexicographic order.

    >>> grid([0.0, 0.0], [1.0, 4.0], points=4)
    [(0.25, 1.0), (0.25, 3.0), (0.75, 1.0), (0.75, 3.0)]
    """
    k = len(lo)
    per = max(2, round(points ** (1.0 / k))) if k else 0
    axes = [[a + (b - a) * (i + 0.5) / per for i in range(per)] for a, b in zip(lo, hi)]
    return list(itertools.product(*axes))


def solve(fun, x0, lo, hi, *, points: int = GRID_POINTS, starts: int = STARTS, max_nfev: int = MAX_NFEV):
    """Minimise half the sum of squares of ``fun(x)`` over the box *lo*..*hi* (module
    docstring): the result of the best local fit (``scipy.optimize.OptimizeResult``: ``x``,
    ``cost``, ``fun``, ``jac``), with ``nfev`` the residual evaluations of the whole search.
    O(points + starts x max_nfev x (1 + dimensions)) evaluations of *fun*."""
    import numpy as np
    from scipy.optimize import least_squares
    lo_a, hi_a = np.array(lo, dtype=float), np.array(hi, dtype=float)
    cache: dict[tuple, np.ndarray] = {}

    def f(x) -> np.ndarray:
        key = tuple(float(v) for v in x)
        if key not in cache:
            cache[key] = np.asarray(fun(np.array(key)), dtype=float)
        return cache[key]

    def jac(x):
        f0 = f(x)
        cols = []
        for i in range(len(x)):
            h = FD_STEP if x[i] + FD_STEP <= hi_a[i] else -FD_STEP
            moved = np.array(x, dtype=float)
            moved[i] += h
            cols.append((f(moved) - f0) / h)
        return np.array(cols).T

    def cost(x) -> float:
        r = f(x)
        return 0.5 * float(r @ r) if np.all(np.isfinite(r)) else math.inf

    first = tuple(float(v) for v in np.clip(np.array(x0, dtype=float), lo_a, hi_a))
    candidates = [first] + [p for p in grid(lo, hi, points) if p != first]
    ranked = sorted(range(len(candidates)), key=lambda i: (cost(candidates[i]), i))[:max(1, starts)]
    best = None
    for i in ranked:
        res = least_squares(f, np.array(candidates[i]), jac=jac, bounds=(lo_a, hi_a), method="trf",
                            max_nfev=max_nfev, xtol=1e-6, ftol=1e-8, gtol=1e-10)
        if best is None or res.cost < best.cost - 1e-15:
            best = res
        if best.cost <= 0.5 * len(best.fun) * EXACT ** 2:   # every residual reproduced: no start does better
            break
    best.nfev = len(cache)
    return best

"""Exact-scheduling benchmark: the goals of issue 11 for the CP-SAT solver.

* blocks of up to 64 instructions on every shipped instruction target: proven
  optimal in at most 10 s each (2 cores); 200-instruction blocks proven or
  reported with a gap within 60 s;
* loops of up to 50 operations: the minimal II proven in at most 10 s;
* determinism: the same input gives the same schedule (every block solved twice).

Blocks come from bench/gen_block.py: ``random_block`` (8 registers: many WAR/WAW
hazards, the hard kind) and ``generate`` (values through a window of registers).
Loops from schedcc.swp.loopgen. Times are wall-clock seconds of the solver in
this process (the machine is shared: compare within one run).

    .venv/bin/python bench/bench_exact.py
    .venv/bin/python bench/bench_exact.py --blocks 3 --loops 3 --skip-200
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gen_block import generate, random_block  # noqa: E402

from schedcc import parse  # noqa: E402
from schedcc.dag import build_dag  # noqa: E402
from schedcc.sched import list_schedule  # noqa: E402
from schedcc.sched.cpsat import Limits  # noqa: E402
from schedcc.sched.exact import exact_schedule  # noqa: E402
from schedcc.sched.exact_modulo import exact_modulo_schedule  # noqa: E402
from schedcc.sched.solve import ModuloStrategy  # noqa: E402
from schedcc.swp.loopgen import random_loop  # noqa: E402
from schedcc.swp.dependences import loop_dag  # noqa: E402
from schedcc.swp.loops import find_loops  # noqa: E402
from schedcc.swp.view import LoopView  # noqa: E402
from schedcc.target import list_targets, load_target  # noqa: E402
from schedcc.verifier import verify_modulo, verify_schedule  # noqa: E402


def cpu_targets() -> list[str]:
    return [t.name for t in list_targets() if t.domain == "cpu"]


def blocks(target, size: int, count: int, limit: float, check_determinism: bool):
    rows = []
    for k in range(count):
        text = random_block(size, 100 + k) if k % 2 == 0 else generate(size, 100 + k)
        g = build_dag(parse(text).functions[0].blocks[0], target)
        t0 = time.perf_counter()
        s = exact_schedule(g, list_schedule(g), Limits(limit))
        wall = time.perf_counter() - t0
        verify_schedule(g, s.cycle, s.unit)
        same = True
        if check_determinism:
            again = exact_schedule(g, list_schedule(g), Limits(limit))
            same = (again.cycle, again.unit) == (s.cycle, s.unit)
        rows.append((s.exact, wall, same))
    return rows


def loops(target, sizes: list[int], count: int, limit: float):
    rows = []
    for k in range(count):
        for size in sizes:
            text = random_loop(random.Random(1000 * size + k), size)
            loop = next((lp for lp in find_loops(parse(text).function("f")) if isinstance(lp, LoopView)), None)
            if loop is None:
                continue
            g = loop_dag(loop, target)
            try:
                ims = ModuloStrategy().schedule(g)
            except Exception:  # noqa: BLE001 - the exact search runs without a hint then
                ims = None
            s = exact_modulo_schedule(g, ims, Limits(limit), fresh_uses=frozenset(loop.address_only_uses()))
            verify_modulo(g, s.ii, s.cycle, s.unit, target.issue_width)
            rows.append((len(g), s.mii.value, ims.ii if ims else None, s))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--blocks", type=int, default=6, help="64-instruction blocks per target (default 6)")
    ap.add_argument("--big", type=int, default=2, help="200-instruction blocks per target (default 2)")
    ap.add_argument("--loops", type=int, default=4, help="random loops per size (default 4)")
    ap.add_argument("--skip-200", action="store_true")
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}; "
          "CP-SAT 1 worker, seed 0")
    ok = True
    print("\n## blocks of 64 instructions (limit 10 s; each solved twice for determinism)")
    for name in cpu_targets():
        rows = blocks(load_target(name), 64, args.blocks, 10.0, True)
        proven = sum(1 for e, _, _ in rows if e.optimal)
        worst = max(w for _, w, _ in rows)
        same = all(s for _, _, s in rows)
        won = sum(1 for e, _, _ in rows if e.makespan < e.heuristic_makespan)
        print(f"  {name:8} {proven}/{len(rows)} proven optimal, slowest {worst:.2f} s, deterministic: {same}; "
              f"the exact schedule beats the list scheduler on {won}")
        ok &= proven == len(rows) and worst <= 10 and same
    if not args.skip_200:
        print("\n## blocks of 200 instructions (limit 60 s)")
        for name in cpu_targets():
            for e, wall, _ in blocks(load_target(name), 200, args.big, 60.0, False):
                verdict = "proven optimal" if e.optimal else f"gap {e.gap:g}% (bound {e.lower_bound})"
                print(f"  {name:8} makespan {e.makespan} (list {e.heuristic_makespan}): {verdict}, {wall:.2f} s")
                ok &= wall <= 60 + 5
    print("\n## loops of up to 50 operations (limit 10 s per II)")
    for name in ("la464", "la664"):
        rows = loops(load_target(name), [10, 20, 30, 40, 50], args.loops, 10.0)
        proven = [s.exact.ii_seconds for *_, s in rows if s.exact.optimal]
        in_time = sum(1 for t in proven if t <= 10)
        below = sum(1 for _, _, h, s in rows if h is not None and s.ii < h)
        at_mii = sum(1 for _, mii, _, s in rows if s.ii == mii)
        print(f"  {name:8} {len(proven)}/{len(rows)} minimal II proven ({in_time} within 10 s; slowest proof "
              f"{max(proven, default=0):.2f} s); II = MII on {at_mii}; below IMS's II on {below}; "
              f"largest body {max(r[0] for r in rows)} operations")
        for n, mii, h, s in rows:
            if not s.exact.optimal:
                print(f"    open: {n} operations, MII {mii}, IMS II {h}, exact II {s.ii} (bound {s.exact.ii_bound})")
        ok &= in_time == len(rows)
    print(f"\ngoals {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

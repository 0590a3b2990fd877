"""Modulo-scheduling benchmark: every loop of examples/loops on every multi-unit target.

Prints, per target and scheduler, a table per loop (ResMII, RecMII, II,
stages, MaxLive, registers after modulo variable expansion, time to build
the graph and schedule), then the goals of issue 3:

* II == MII on at least 95% of the loops, and sum(II) / sum(MII) <= 1.02;
* a loop body of 200 operations modulo-scheduled in under 1 s (random bodies
  from schedcc.swp.loopgen, best of --repeat runs, MII computation included).

    .venv/bin/python bench/bench_modulo.py
    .venv/bin/python bench/bench_modulo.py --targets la464 --algorithms ims --quiet
"""

from __future__ import annotations

import argparse
import glob
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedcc import parse  # noqa: E402
from schedcc.errors import SchedccError  # noqa: E402
from schedcc.swp.loopgen import random_loop  # noqa: E402
from schedcc.swp.dependences import loop_dag  # noqa: E402
from schedcc.swp.loops import find_loops  # noqa: E402
from schedcc.swp.view import LoopView  # noqa: E402
from schedcc.sched.lifetimes import register_pressure  # noqa: E402
from schedcc.sched.modulo import modulo_schedule  # noqa: E402
from schedcc.verifier.modulo import verify_modulo  # noqa: E402
from schedcc.target import list_targets, load_target  # noqa: E402


def multi_unit_targets() -> list[str]:
    return [t.name for t in list_targets() if t.domain == "cpu" and (len(t.units) > 1 or t.issue_width > 1)]


def loops_of(paths: list[str]):
    for path in paths:
        prog = parse(Path(path).read_text(), path)
        for func in prog.functions:
            for loop in find_loops(func):
                yield Path(path).stem, loop


def run_table(target_name: str, algorithm: str, paths: list[str], quiet: bool) -> tuple[int, ...]:
    target = load_target(target_name)
    rows = []
    at_mii = total = sum_ii = sum_mii = sum_live = sum_regs = 0
    for stem, loop in loops_of(paths):
        name = f"{stem}:{loop.function.name}/{loop.block.label}"
        if not isinstance(loop, LoopView):
            rows.append((name, "-", "-", "-", "-", "-", "-", "-", "not pipelined"))
            continue
        try:
            t0 = time.perf_counter()
            dag = loop_dag(loop, target)
            s = modulo_schedule(dag, target, algorithm=algorithm)
            elapsed = time.perf_counter() - t0
        except SchedccError as err:
            rows.append((name, "-", "-", "-", "-", "-", "-", "-", err.message.split("\n")[0][:40]))
            continue
        verify_modulo(dag, s.ii, s.cycle, s.unit, target.issue_width)
        p = register_pressure(dag, s.ii, s.cycle, frozenset(loop.address_only_uses()))
        total += 1
        at_mii += s.ii == s.mii.value
        sum_ii += s.ii
        sum_mii += s.mii.value
        sum_live += p.max_live
        sum_regs += p.registers
        rows.append((name, s.mii.res.value, s.mii.rec.value, s.ii, s.stages, p.max_live, p.registers,
                     f"{elapsed * 1000:.1f}", "" if s.ii == s.mii.value else f"II > MII {s.mii.value}"))
    if not quiet:
        header = ("loop", "ResMII", "RecMII", "II", "stages", "MaxLive", "regs", "ms", "note")
        widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
        print(f"\n## {target_name}, {algorithm}")
        for r in [header] + rows:
            print("  ".join(str(c).rjust(w) if i and i < 8 else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
    print(f"{target_name:>8} {algorithm:>5}: II == MII on {at_mii}/{total} loops ({100 * at_mii / max(total, 1):.1f}%), "
          f"sum(II)/sum(MII) = {sum_ii}/{sum_mii} = {sum_ii / max(sum_mii, 1):.3f}; "
          f"sum(MaxLive) {sum_live}, sum(registers) {sum_regs}")
    return at_mii, total, sum_ii, sum_mii, sum_live, sum_regs


def big_body(target_name: str, algorithm: str, ops: int, repeat: int, seeds: int) -> None:
    target = load_target(target_name)
    worst = 0.0
    for seed in range(seeds):
        text = random_loop(random.Random(seed), ops)
        loop = find_loops(parse(text).function("f"))[0]
        assert isinstance(loop, LoopView), loop
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            dag = loop_dag(loop, target)
            s = modulo_schedule(dag, target, algorithm=algorithm)
            best = min(best, time.perf_counter() - t0)
        verify_modulo(dag, s.ii, s.cycle, s.unit, target.issue_width)
        worst = max(worst, best)
        print(f"{target_name:>8} {algorithm:>5}: {len(dag)} operations, {len(dag.deps)} edges, "
              f"MII {s.mii.value} (Res {s.mii.res.value}, Rec {s.mii.rec.value}), II {s.ii}, {s.stages} stages: "
              f"{best:.3f} s")
    print(f"{target_name:>8} {algorithm:>5}: slowest {ops}-operation body {worst:.3f} s (goal < 1 s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", nargs="*", default=None, help="default: every multi-unit target")
    ap.add_argument("--algorithms", nargs="*", default=["ims", "swing"])
    ap.add_argument("--ops", type=int, default=200, help="operations of the big random body (default 200)")
    ap.add_argument("--seeds", type=int, default=3, help="random big bodies per target (default 3)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quiet", action="store_true", help="summaries only")
    args = ap.parse_args()
    targets = args.targets or multi_unit_targets()
    paths = sorted(glob.glob(str(ROOT / "examples" / "loops" / "*.ir")))
    print(f"machine: {platform.machine()}, CPython {platform.python_version()}; targets {', '.join(targets)}; "
          f"{len(paths)} files in examples/loops")
    summary = []
    for t in targets:
        for alg in args.algorithms:
            summary.append((t, alg, run_table(t, alg, paths, args.quiet)))
    print("\nsummary:")
    for alg in args.algorithms:
        rows = [s for t, a, s in summary if a == alg]
        at, tot, si, sm, live, regs = (sum(x[k] for x in rows) for k in range(6))
        print(f"  {alg:>5}, all targets: II == MII on {at}/{tot} ({100 * at / max(tot, 1):.1f}%; goal >= 95%), "
              f"sum(II)/sum(MII) = {si / max(sm, 1):.3f} (goal <= 1.02); "
              f"sum(MaxLive) {live}, sum(registers) {regs}")
    print()
    for t in targets:
        for alg in args.algorithms:
            big_body(t, alg, args.ops, args.repeat, args.seeds)


if __name__ == "__main__":
    main()

"""Output safety under strace's fault injection at every system call of the write path (issue 21).

For each scenario (three outputs that all exist, or none of which exists), one
clean run under strace lists the system calls of the commit
(tests/strace_faults.py); each call is then hit in a run of its own with every
signal of --signals (delivered when the call returns) and with an error.
Counted: runs, calls actually hit, problems (a mix of old and new outputs, an
output neither old nor new, a temporary file left behind, a traceback).

    nice python bench/bench_output_safety.py                 # every call, every signal
    nice python bench/bench_output_safety.py --signals SIGTERM --no-errors
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import strace_faults as sf  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--signals", default=",".join(sf.SIGNALS), help="comma-separated signal names")
    ap.add_argument("--no-errors", action="store_true", help="inject signals only")
    ap.add_argument("--limit", type=int, default=0, help="at most this many calls per scenario (0: all)")
    ap.add_argument("--log", help="append one line per run to this file (scenario, call, action, exit, state, problems)")
    args = ap.parse_args()
    why = sf.strace_usable()
    if why:
        print(f"skipped: {why}")
        return 0
    signals = [s for s in args.signals.split(",") if s]
    start_cpu, start = time.process_time(), time.time()
    runs = hit = 0
    problems: list[str] = []
    states: Counter = Counter()
    table: dict[str, Counter] = {}  # action (signal name, or "error") -> counts
    log = open(args.log, "a", encoding="utf-8") if args.log else None
    for label, missing in (("old outputs exist", ()), ("no outputs yet", tuple(sf.OUTPUTS.values()))):
        scn = sf.scenario(label, missing)
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d) / "out"
            folder.mkdir()
            calls = sf.write_path(scn, folder)
            if args.limit:
                calls = calls[:args.limit]
            print(f"{label}: {len(calls)} system calls on the write path", flush=True)
            for call in calls:
                actions = [f"signal={s}" for s in signals]
                if not args.no_errors:
                    actions.append(f"error={sf.ERRORS.get(call.name, 'EIO')}")
                for action in actions:
                    out = sf.inject(scn, folder, call, action)
                    runs += 1
                    hit += out.injected
                    states[(action.split("=")[0], out.state)] += 1
                    row = table.setdefault(action.split("=")[1] if action.startswith("signal=") else "error",
                                           Counter())
                    _count(row, out)
                    for p in out.problems:
                        problems.append(f"{label}: {call} {action}: {p}")
                        print("PROBLEM", problems[-1], flush=True)
                    if log:
                        log.write(f"{label}\t{call}\t{action}\t{out.code}\t{int(out.injected)}\t{out.state}\t"
                                  f"{'; '.join(out.problems)}\n")
                        log.flush()
    t = os.times()
    print(f"{runs} runs, {hit} hit their call, {len(problems)} problems "
          f"({time.time() - start:.0f} s wall, {time.process_time() - start_cpu:.1f} s CPU in this process, "
          f"{t.children_user + t.children_system:.0f} s CPU in the traced runs and strace)")
    for (kind, state), n in sorted(states.items()):
        print(f"  {kind:6} -> outputs {state}: {n}")
    print("| injected | runs | hit | all old | all new | mixed | temp left | traceback |")
    print("|---|---|---|---|---|---|---|---|")
    total: Counter = Counter()
    for action, row in list(table.items()) + [("total", total)]:
        print(f"| {action} | " + " | ".join(str(row[k]) for k in _COLUMNS) + " |")
        if action != "total":
            total.update(row)
    return 1 if problems else 0


_COLUMNS = ("runs", "hit", "old", "new", "mixed", "left", "traceback")


def _count(row: Counter, out) -> None:
    words = set(out.state.split(","))
    row["runs"] += 1
    row["hit"] += out.injected
    row["old"] += words == {"old"}
    row["new"] += words == {"new"}
    row["mixed"] += len(words) > 1 or "other" in words
    row["left"] += any(p.startswith("left behind") for p in out.problems)
    row["traceback"] += any(p.startswith("traceback") for p in out.problems)


if __name__ == "__main__":
    sys.exit(main())

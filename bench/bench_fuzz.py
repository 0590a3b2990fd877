"""Malformed and extreme inputs for every command (issue 21): the whole fuzz.

Runs the cases of ``bench/fuzz_cases.py``, of the breadth the issue's fuzz used: every command and
subcommand; every numeric option, taken from the parsers themselves (values at
and past each bound, NaN, infinities, -0, 2**70, huge exponents, empty text,
words), so that a new option is fuzzed without touching this file; the
options that read numbers from text (``--set`` for cluster and CPU models,
``--timeline-window``, ``--memory-limit``, ``--unit-costs``, ``--group``,
``--fix``, ``run --set``, ``--tp-comm-overlap``); every front end (``.ir``,
``.ll``, ``.s``: truncations, deep nesting, huge numbers, wrong UTF-8,
binary); every file reader (TOML machine models and their cost formulas,
``pipeline --import`` text and JSON, ``deps --answer``, ``check --against``,
``gap`` directories). Each case runs as its own process with a CPU limit of
20 s and an address-space limit of 2 GB (``resource.setrlimit``) and is
classified:

* ``traceback``: a Python traceback on standard error;
* ``internal``: exit 1 with ``internal error``;
* ``over time`` / ``over memory``: the CPU limit, a ``MemoryError``, or more
  than 2 GB resident;
* ``accepted invalid``: exit 0 on an input the generator marks invalid;
* ``unlocated``: an error whose first line names neither ``file:line:col``
  nor ``<command line>:1:col``;
* ``other exit``: any other exit status;
* ``ok``: exit 0, or exit 2 with a located error.

The goal is 0 of every class but ``ok``. ``tests/test_fuzz_cli.py`` runs a
deterministic sample of the same cases in the suite.

    nice .venv/bin/python bench/bench_fuzz.py                 # every case, 2 processes at a time
    nice .venv/bin/python bench/bench_fuzz.py --fork          # the same, each case a fork of one preloaded process
    .venv/bin/python bench/bench_fuzz.py --family toml --show-ok
    .venv/bin/python bench/bench_fuzz.py --list               # the cases, not run
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_cases import CLASSES, CPU_LIMIT, MEMORY_LIMIT, ROOT, Case, generate  # noqa: E402

# -- running and classifying ------------------------------------------------------------------------------------

LOCATED = re.compile(r"^(\S.*?):(\d+):(\d+): error: ")


def classify(case: Case, code: int, err: str, cpu: float = 0.0, rss_bytes: int = 0, killed: bool = False) -> str:
    """The class of one run (see the module docstring)."""
    if killed or cpu > CPU_LIMIT:
        return "over time"
    if "MemoryError" in err or rss_bytes > MEMORY_LIMIT:
        return "over memory"
    if "Traceback (most recent call last)" in err:
        return "traceback"
    if code == 1 and "internal error" in err:
        return "internal"
    if code == 0:
        return "accepted invalid" if case.invalid else "ok"
    if code == 1 and case.argv[:1] in (["check"], ["deps"]):
        return "ok"  # graded: an illegal order, a wrong answer
    if code == 2:
        head = next((line for line in err.splitlines() if "error:" in line), "")
        return "ok" if LOCATED.match(head) else "unlocated"
    return "other exit"


def write_files(case: Case, where: Path) -> None:
    for name, data in case.files.items():
        path = where / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 5))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    os.nice(5)


@dataclass
class Outcome:
    case: Case
    klass: str
    code: int
    cpu: float
    rss_mb: float
    head: str


def _start(case: Case, where: Path, env: dict, err_file) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "schedcc", *case.argv], cwd=where,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err_file,
                            preexec_fn=_limits, env=env, start_new_session=True)


def run_case(case: Case, tmp: Path, wall_limit: float = 120.0) -> Outcome:
    where = Path(tempfile.mkdtemp(dir=tmp))
    try:
        write_files(case, where)
        env = {k: v for k, v in os.environ.items() if k != "SCHEDCC_DEBUG"}
        env.update(PYTHONPATH=str(ROOT), PYTHONHASHSEED="0", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
        with open(where / ".stderr", "wb") as err_file:
            try:
                proc = _start(case, where, env, err_file)
            except OSError as err:  # an argument over the kernel's 128 KiB: no user can pass it either
                if err.errno != errno.E2BIG:
                    raise
                return Outcome(case, "ok", -1, 0.0, 0.0, "the kernel refuses an argument this long (E2BIG)")
            t0 = time.monotonic()
            killed = False
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() - t0 > wall_limit:
                    os.killpg(proc.pid, signal.SIGKILL)
                    killed = True
                time.sleep(0.02)
            proc.returncode = os.waitstatus_to_exitcode(status)
        err = (where / ".stderr").read_bytes().decode("utf-8", "replace")
        cpu = usage.ru_utime + usage.ru_stime
        code = proc.returncode
        killed = killed or code in (-signal.SIGXCPU, -signal.SIGKILL)
        klass = classify(case, code, err, cpu, usage.ru_maxrss * 1024, killed)
        head = next((line for line in err.splitlines() if "error" in line), err.splitlines()[0] if err else "")
        return Outcome(case, klass, code, cpu, usage.ru_maxrss / 1024, head[:300])
    finally:
        shutil.rmtree(where, ignore_errors=True)


# -- forked runs: the modules imported once, each case a fork (--fork) ---------------------------------------------

def _preload() -> None:
    """Import every command's module (what a fresh interpreter spends ~0.5 s of each case on)."""
    import importlib
    import schedcc.cli as cli
    for module in [*cli.COMMANDS.values(), cli.DEFAULT_COMMAND]:
        importlib.import_module(module)


def _child(case: Case, where: Path) -> None:
    """In the forked child: the case's directory, limits, standard streams; ``schedcc.cli.main``;
    a traceback that escapes it printed as the interpreter would. Never returns."""
    code = 70
    try:
        os.setsid()
        os.chdir(where)
        _limits()
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(where / ".stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(err, 2)
        os.environ.pop("SCHEDCC_DEBUG", None)
        sys.argv = ["schedcc", *case.argv]
        from schedcc.cli import main as cli_main
        try:
            code = cli_main(list(case.argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
    except BaseException:
        import traceback
        try:
            traceback.print_exc()
            sys.stderr.flush()
        except Exception:
            pass
        code = 1
    os._exit(code if isinstance(code, int) and 0 <= code < 256 else 1)


MAX_ARG_STRLEN = 131072  # Linux: one argument of a command, its final NUL included (what exec refuses: E2BIG)


def run_forked(cases: list[Case], jobs: int, tmp: Path, wall_limit: float = 120.0):
    """Run *cases* *jobs* at a time, each in a child forked from this process after
    :func:`_preload`; yields the outcomes in the cases' order."""
    _preload()
    results: dict[int, Outcome] = {}
    running: dict[int, tuple[int, Case, Path, float]] = {}
    todo = list(enumerate(cases))
    todo.reverse()
    emitted = 0
    while todo or running:
        while todo and len(running) < jobs:
            index, case = todo.pop()
            if any(len(a.encode("utf-8", "surrogateescape")) >= MAX_ARG_STRLEN for a in case.argv):
                results[index] = Outcome(case, "ok", -1, 0.0, 0.0, "the kernel refuses an argument this long (E2BIG)")
                continue
            where = Path(tempfile.mkdtemp(dir=tmp))
            write_files(case, where)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                _child(case, where)
            running[pid] = (index, case, where, time.monotonic())
        while emitted in results:
            yield results.pop(emitted)
            emitted += 1
        if not running:
            continue
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if not pid:
            now = time.monotonic()
            for cpid, (_, _, _, t0) in running.items():
                if now - t0 > wall_limit:
                    try:
                        os.killpg(cpid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
            time.sleep(0.01)
            continue
        index, case, where, t0 = running.pop(pid)
        code = os.waitstatus_to_exitcode(status)
        err = (where / ".stderr").read_bytes().decode("utf-8", "replace")
        shutil.rmtree(where, ignore_errors=True)
        cpu = usage.ru_utime + usage.ru_stime
        killed = code in (-signal.SIGXCPU, -signal.SIGKILL) or time.monotonic() - t0 > wall_limit
        klass = classify(case, code, err, cpu, usage.ru_maxrss * 1024, killed)
        head = next((line for line in err.splitlines() if "error" in line), err.splitlines()[0] if err else "")
        results[index] = Outcome(case, klass, code, cpu, usage.ru_maxrss / 1024, head[:300])
        while emitted in results:
            yield results.pop(emitted)
            emitted += 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", help="only these families (comma-separated)")
    ap.add_argument("--jobs", type=int, default=2, help="cases at once (default 2)")
    ap.add_argument("--list", action="store_true", help="print the cases, run nothing")
    ap.add_argument("--show-ok", action="store_true", help="also print the cases that pass")
    ap.add_argument("--match", help="only cases whose command line contains this text")
    ap.add_argument("--wall-limit", type=float, default=120.0,
                    help="seconds of wall time before a case is killed as over time (default 120; raise it on a "
                         "loaded machine, where 20 s of CPU take longer)")
    ap.add_argument("--fork", action="store_true",
                    help="import schedcc once and fork a child per case (about 4x less CPU than a fresh "
                         "interpreter per case; the same limits and classes)")
    args = ap.parse_args()
    cases = generate()
    if args.family:
        cases = [c for c in cases if c.family in args.family.split(",")]
    if args.match:
        cases = [c for c in cases if args.match in " ".join(c.argv)]
    if args.list:
        for c in cases:
            print(f"{c.family:12} {'invalid' if c.invalid else 'valid  '} {c.name}")
        print(f"{len(cases)} cases")
        return 0
    t0, c0 = time.perf_counter(), time.process_time()
    counts = {k: 0 for k in CLASSES}
    families: dict[str, int] = {}
    by_family: dict[str, dict[str, int]] = {}
    cpu_total = 0.0
    slowest: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        outcomes = run_forked(cases, args.jobs, Path(tmp), args.wall_limit) if args.fork else \
            pool.map(lambda c: run_case(c, Path(tmp), args.wall_limit), cases)
        for done, out in enumerate(outcomes, 1):
            if done % 100 == 0:
                print(f"-- {done}/{len(cases)} cases, {time.perf_counter() - t0:.0f} s", flush=True)
            counts[out.klass] += 1
            families[out.case.family] = families.get(out.case.family, 0) + 1
            by_family.setdefault(out.case.family, {k: 0 for k in CLASSES})[out.klass] += 1
            cpu_total += out.cpu
            slowest = sorted(slowest + [out], key=lambda o: -o.cpu)[:5]
            if out.klass != "ok" or args.show_ok:
                print(f"[{out.klass}] exit {out.code}, {out.cpu:.1f} s, {out.rss_mb:.0f} MB: schedcc {out.case.name}\n"
                      f"    {out.head}", flush=True)
    print(f"\n{len(cases)} cases ({', '.join(f'{k} {v}' for k, v in families.items())})")
    print("classes: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    print(f"CPU of the cases {cpu_total:.0f} s, wall {time.perf_counter() - t0:.0f} s "
          f"(this process {time.process_time() - c0:.0f} s)")
    print("\n| family | cases | traceback | internal | over time / memory | accepted invalid | unlocated | other exit |")
    print("|---|---|---|---|---|---|---|---|")
    for family, row in [*by_family.items(), ("all", counts)]:
        print(f"| {family} | {sum(row.values()):,} | {row['traceback']} | {row['internal']} | "
              f"{row['over time']} / {row['over memory']} | {row['accepted invalid']} | {row['unlocated']} | "
              f"{row['other exit']} |")
    print("slowest: " + "; ".join(f"{o.cpu:.1f} s {o.case.name[:80]}" for o in slowest))
    return 0 if counts["ok"] == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())

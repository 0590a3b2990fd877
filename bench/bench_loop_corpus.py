"""Every loop a compiler emits (issue 19): the loop corpus of bench/corpus/ (kernels
written from PolyBench/C, the Livermore loops, LCALS and TSVC; README.md there),
compiled by clang-16 for loongarch64 at -O1 and -O2 to LLVM IR and to assembly,
software-pipelined on la464.

For each (level, language) it prints every program with its kernels' innermost
loops (outer loops hold an inner loop and are never candidates) and a summary:

* programs with a pipelined loop, in percent of all programs (the goal, 90%,
  counts every program) and of those without a loop of several blocks that
  if-conversion left ("multi-block, not if-converted": no loop pipelined and a
  loop whose body has several blocks: an early exit, too many blocks);
* II = MII on the pipelined loops;
* why the other loops were left alone, counted by kind;
* (with --run) each program, built whole (kernels and driver) and pipelined,
  run under qemu-loongarch64 for trip counts 0..MAXN: its output must be the
  original's (one checksum per result).

    .venv/bin/python bench/bench_loop_corpus.py                  # statistics only
    nice .venv/bin/python bench/bench_loop_corpus.py --run --jobs 2
    .venv/bin/python bench/bench_loop_corpus.py --only tsvc_s1 --levels=-O2 --langs s -v
    .venv/bin/python bench/bench_loop_corpus.py --levels mem2reg --langs ll   # loops tested at the top
    nice .venv/bin/python bench/bench_loop_corpus.py --levels mem2reg --langs s --jobs 1   # the same, assembly
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from schedcc.driver.loops import pipeline_source  # noqa: E402
from schedcc.frontends import parse_source  # noqa: E402
from swp_tools import LA, run, run_program  # noqa: E402

CORPUS = ROOT / "bench" / "corpus"
FLAGS = [*LA, "-fno-math-errno"]
_KERNEL = re.compile(r"^KERNEL\s+[\w\s*]*?\b(\w+)\s*\(", re.M)


@dataclass
class LoopOutcome:
    name: str
    pipelined: bool
    kind: str = ""
    reason: str = ""
    ii: int = 0
    mii: int = 0
    before: int = 0


@dataclass
class Outcome:
    program: str
    level: str
    lang: str
    loops: list[LoopOutcome] = field(default_factory=list)
    seconds: float = 0.0          # CPU time of pipelining the whole file
    mismatch: bool | None = None  # with --run
    error: str = ""

    @property
    def status(self) -> str:
        if self.error:
            return "error"
        if any(lp.pipelined for lp in self.loops):
            return "pipelined"
        if any(lp.kind == "multi-block" for lp in self.loops):
            return "pending"
        return "refused"


def programs(only: str = "") -> list[Path]:
    return sorted(p for p in CORPUS.glob("*.c") if only in p.stem)


def kernels(c_file: Path) -> set[str]:
    return set(_KERNEL.findall(c_file.read_text()))


def compile_c(c_file: Path, out: Path, level: str, lang: str) -> Path:
    """clang-16 at *level*; level ``mem2reg``: as a compiler that does not rotate loops
    writes them (clang's LLVM passes off, then only mem2reg: every loop tested at its
    top); in assembly that IR through ``llc-16 -O2 -disable-block-placement`` (the
    code generator does not move the test to the bottom either)."""
    if level == "mem2reg":
        raw = out.with_suffix(".raw.ll")
        run(["clang-16", *FLAGS, "-O1", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", f"-I{CORPUS}",
             c_file, "-o", raw])
        ll = out if lang == "ll" else out.with_suffix(".m2r.ll")
        run(["opt-16", "-passes=mem2reg", "-S", raw, "-o", ll])
        if lang != "ll":
            run(["llc-16", "-mtriple=loongarch64", "-O2", "-disable-block-placement", ll, "-o", out])
        return out
    flags = ["-S", "-emit-llvm"] if lang == "ll" else ["-S"]
    run(["clang-16", *FLAGS, level, *flags, f"-I{CORPUS}", c_file, "-o", out])
    return out


def study(job: tuple[Path, str, str, str, bool, str]) -> Outcome:
    """One program at one level in one language: its kernels' loops, and with *check*
    whether the pipelined program computes what the original does."""
    c_file, level, lang, target, check, tmp = job
    out = Outcome(c_file.stem, level, lang)
    names = kernels(c_file)
    try:
        path = compile_c(c_file, Path(tmp) / f"{c_file.stem}{level}.{lang}", level, lang)
        source = parse_source(path.read_text(), str(path))
        t0 = time.process_time()
        result = pipeline_source(source, target)
        out.seconds = time.process_time() - t0
        for res in result.loops:
            if res.loop.function.name.lstrip("@") not in names:
                continue
            kind = res.kind
            if kind == "outer":
                continue
            if res.pipelined:
                s = res.schedule
                out.loops.append(LoopOutcome(res.name, True, ii=s.ii, mii=s.mii.value, before=res.cycles_before))
            else:
                out.loops.append(LoopOutcome(res.name, False, kind or "other", res.reason or "",
                                             before=res.cycles_before))
        if check:
            pipelined = path.with_name(path.stem + ".swp" + path.suffix)
            pipelined.write_text(result.text)
            out.mismatch = run_program(path) != run_program(pipelined)
    except Exception as err:  # a crash is a result too: reported, counted, never hidden
        out.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return out


def summary(outcomes: list[Outcome]) -> dict:
    total = len(outcomes)
    done = sum(o.status == "pipelined" for o in outcomes)
    pending = sum(o.status == "pending" for o in outcomes)
    loops = [lp for o in outcomes for lp in o.loops]
    piped = [lp for lp in loops if lp.pipelined]
    return {
        "programs": total, "pipelined": done, "pending": pending,
        "errors": sum(o.status == "error" for o in outcomes),
        "percent": 100.0 * done / total if total else 0.0,
        "percent_without_pending": 100.0 * done / (total - pending) if total > pending else 0.0,
        "loops": len(loops), "loops_pipelined": len(piped),
        "ii_mii": sum(lp.ii == lp.mii for lp in piped),
        "ii_mii_percent": 100.0 * sum(lp.ii == lp.mii for lp in piped) / len(piped) if piped else 0.0,
        "kinds": dict(Counter(lp.kind for lp in loops if not lp.pipelined).most_common()),
        "mismatches": sum(bool(o.mismatch) for o in outcomes),
        "ran": sum(o.mismatch is not None for o in outcomes),
        "seconds": sum(o.seconds for o in outcomes),
    }


def report(level: str, lang: str, outcomes: list[Outcome], verbose: bool, markdown: bool) -> dict:
    s = summary(outcomes)
    what = "LLVM IR" if lang == "ll" else "assembly"
    print(f"\n{'### ' if markdown else ''}clang-16 {level}, {what}: {s['programs']} programs")
    for o in outcomes:
        if verbose or o.status != "pipelined" or o.mismatch:
            print(f"  {o.program:28} {o.status:9}"
                  + (" MISMATCH" if o.mismatch else "") + (f" {o.error}" if o.error else ""))
            for lp in o.loops:
                if verbose or not lp.pipelined:
                    text = f"II {lp.ii} (MII {lp.mii}, {lp.before} before)" if lp.pipelined else \
                        f"[{lp.kind}] {lp.reason}"
                    print(f"      {lp.name}: {text}")
    print(f"  programs with a pipelined loop: {s['pipelined']}/{s['programs']} ({s['percent']:.1f}%); "
          f"multi-block, not if-converted: {s['pending']}; without them: {s['pipelined']}/"
          f"{s['programs'] - s['pending']} ({s['percent_without_pending']:.1f}%)")
    print(f"  innermost kernel loops: {s['loops']}, pipelined {s['loops_pipelined']}; II = MII on "
          f"{s['ii_mii']}/{s['loops_pipelined']} ({s['ii_mii_percent']:.1f}%); left alone by kind: {s['kinds']}")
    if s["ran"]:
        print(f"  run under qemu, trip counts 0..MAXN: {s['mismatches']} mismatches in {s['ran']} programs")
    print(f"  CPU time pipelining: {s['seconds']:.1f} s")
    return s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--levels", nargs="+", default=["-O1", "-O2"],
                    help="clang levels (-O1 -O2: write --levels=-O2, or --levels O1 O2), or mem2reg")
    ap.add_argument("--langs", nargs="+", default=["ll", "s"])
    ap.add_argument("--target", default="la464")
    ap.add_argument("--run", action="store_true", help="build and run every program under qemu")
    ap.add_argument("--jobs", default="2", help="worker processes")
    ap.add_argument("--only", default="", help="programs whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="every program and loop")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", help="write every outcome to this file")
    args = ap.parse_args()
    args.levels = [lv if lv.startswith("-") or lv == "mem2reg" else "-" + lv for lv in args.levels]
    files = programs(args.only)
    ok = True
    everything = []
    with tempfile.TemporaryDirectory() as tmp:
        jobs = [(f, level, lang, args.target, args.run, tmp) for level in args.levels for lang in args.langs
                for f in files]
        with multiprocessing.Pool(max(1, int(args.jobs))) as pool:
            results = pool.map(study, jobs, chunksize=1)
    for level in args.levels:
        for lang in args.langs:
            outs = [o for o in results if o.level == level and o.lang == lang]
            s = report(level, lang, outs, args.verbose, args.markdown)
            ok &= s["percent"] >= 90 and s["ii_mii_percent"] >= 95 and not s["mismatches"] \
                and not s["errors"]
            everything += [asdict(o) | {"status": o.status} for o in outs]
    if args.json:
        Path(args.json).write_text(json.dumps(everything, indent=1))
    print("\nall goals met" if ok else "\nsome goal NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

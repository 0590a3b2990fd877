"""llvm-mca as the referee for loops (issue 20): the loop corpus of bench/corpus/
(kernels written from TSVC, PolyBench/C, the Livermore loops and LCALS)
compiled by clang-16 -O2 for riscv64 -mcpu=sifive-u74, and every innermost
single-block loop measured by llvm-mca-16 on LLVM's own SiFive U74 model.

Cycles per iteration of the loop, as llvm-mca runs it back to back
(``-iterations=100``, Total Cycles / 100, so that iterations overlap as far as
the in-order core lets them):

* clang: the loop body as clang-16 wrote it (LLVM's MachineScheduler for the U74);
* reordered: the same body list-scheduled by schedcc (``schedcc FILE``);
* pipelined: the kernel schedcc's software pipeliner wrote (``schedcc FILE
  --pipeline``; here only the kernels' loops are pipelined, the driver's are
  left as clang wrote them), divided by the kernel's unroll factor (one pass of the kernel
  holds u iterations); for a loop left alone, its reordered body.

Loops: the innermost single-block loops of the kernels (the functions a program
defines with KERNEL; the driver's loops that fill the data and sum the results
are left out).

A loop of clang's counts as one iteration of its source loop only when clang
did not unroll it; the ratios below compare the same code, so the unroll does
not matter. The goals: schedcc never slower than clang on any loop (the better
of its two answers: pipelined where it pipelines, reordered otherwise), and on
the pipelined loops at least 1.3x fewer cycles per iteration in geometric mean.

With --run every program is also built three ways (clang's, reordered,
pipelined), linked by ld.lld-16 (-static -e _start) and run by qemu-riscv64
for trip counts 0..MAXN (bench/corpus/corpus.h): the outputs must be the same.

    nice .venv/bin/python bench/bench_mca_loops.py                   # all programs
    nice .venv/bin/python bench/bench_mca_loops.py --run --jobs 2
    .venv/bin/python bench/bench_mca_loops.py --only livermore_k01 -v
    .venv/bin/python bench/bench_mca_loops.py --markdown            # the table for docs/performance.md
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedcc.driver import schedule_program  # noqa: E402
from schedcc.frontends import parse_source  # noqa: E402
from schedcc.swp.asm_loops import AsmLoop, find_asm_loops  # noqa: E402
from schedcc.swp.asm_pipeline import pipeline_asm  # noqa: E402
from schedcc.target import load_target  # noqa: E402

CORPUS = ROOT / "bench" / "corpus"
CPU = "sifive-u74"
FLAGS = ["--target=riscv64-linux-gnu", "-march=rv64gc", f"-mcpu={CPU}", "-O2", "-ffreestanding", "-fno-builtin",
         "-nostdlib", "-fno-math-errno"]
ITERATIONS = 100
_KERNEL = re.compile(r"^KERNEL\s+[\w\s*]*?\b(\w+)\s*\(", re.M)


def mca_cpi(lines: list[str], iterations: int = ITERATIONS) -> float:
    """llvm-mca's cycles per iteration of *lines* run back to back on the U74."""
    out = subprocess.run(["llvm-mca-16", "-mtriple=riscv64", f"-mcpu={CPU}", f"-iterations={iterations}"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Total Cycles:\s+(\d+)", out).group(1)) / iterations


def compile_riscv(c_file: Path, out: Path) -> str:
    subprocess.run(["clang-16", *FLAGS, f"-I{CORPUS}", "-S", str(c_file), "-o", str(out)], check=True,
                   capture_output=True)
    return out.read_text()


def run_riscv(text: str, tmp: Path, name: str) -> bytes:
    """Assemble, link (ld.lld-16 -static -e _start) and run under qemu-riscv64; its output."""
    asm, obj, elf = tmp / f"{name}.s", tmp / f"{name}.o", tmp / f"{name}.elf"
    asm.write_text(text)
    subprocess.run(["llvm-mc-16", "--triple=riscv64", "-mattr=+m,+a,+f,+d,+c", "--filetype=obj", str(asm),
                    "-o", str(obj)], check=True, capture_output=True)
    subprocess.run(["ld.lld-16", "-static", "-e", "_start", str(obj), "-o", str(elf)], check=True,
                   capture_output=True)
    proc = subprocess.run(["qemu-riscv64", str(elf)], capture_output=True, timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"{elf.name} exited with {proc.returncode}")
    return proc.stdout


@dataclass
class Loop:
    name: str
    n: int                      # instructions in the body
    clang: float
    reordered: float
    pipelined: float | None     # None: left alone
    ii: int = 0
    unroll: int = 1
    reason: str = ""

    @property
    def ours(self) -> float:
        return self.pipelined if self.pipelined is not None else self.reordered


@dataclass
class Outcome:
    program: str
    loops: list[Loop] = field(default_factory=list)
    seconds: float = 0.0        # CPU time of schedcc (scheduling and pipelining)
    mismatch: list[str] = field(default_factory=list)   # with --run: the versions whose output differs
    error: str = ""


def kernel_lines(code: list[tuple[str, list[str]]]) -> list[str]:
    """The instruction lines of the pipelined kernel: from label ``L.kernel`` to the
    branch back to it (the epilogue follows in the same block)."""
    for label, lines in code:
        if label.endswith(".kernel"):
            out = []
            for line in lines[1:]:
                if line.strip() and not line.strip().startswith("#"):
                    out.append(line)
                if re.search(re.escape(label) + r"\s*$", line):
                    return out
    raise AssertionError("no kernel block in the generated code")


def measure(c_file: Path, run: bool = False) -> Outcome:
    out = Outcome(c_file.stem)
    u74 = load_target(CPU)
    try:
        with tempfile.TemporaryDirectory() as tmp_name:
            tmp = Path(tmp_name)
            text = compile_riscv(c_file, tmp / f"{c_file.stem}.s")
            lines = text.splitlines()
            t0 = time.process_time()
            source = parse_source(text, f"{c_file.stem}.s")
            blocks = schedule_program(source.program, u74)
            order = {(r.function.name, r.block.label): r.schedule.order for r in blocks.blocks}
            reordered_text = source.render(blocks.scheduled_program())
            kernels = set(_KERNEL.findall(c_file.read_text()))
            piped = pipeline_asm(source, u74, functions=kernels)
            out.seconds = time.process_time() - t0
            results = {r.name: r for r in piped.loops}
            for found in find_asm_loops(source):
                if not isinstance(found, AsmLoop) or found.loop.function.name not in kernels:
                    continue   # a loop of several blocks, or of the driver (_start: filling and checksums)
                b = found.original
                body = [lines[i.loc.line - 1] for i in b.instrs]
                ordered = [body[k] for k in order[(found.loop.function.name, b.label)]]
                res = results[found.name]
                loop = Loop(found.name, len(body), mca_cpi(body), mca_cpi(ordered), None)
                if res.pipelined:
                    loop.ii, loop.unroll = res.schedule.ii, res.pressure.unroll
                    loop.pipelined = mca_cpi(kernel_lines(res.code)) / loop.unroll
                else:
                    loop.reason = res.reason or ""
                out.loops.append(loop)
            if run:
                want = run_riscv(text, tmp, "clang")
                for name, version in (("reordered", reordered_text), ("pipelined", piped.text)):
                    if run_riscv(version, tmp, name) != want:
                        out.mismatch.append(name)
    except Exception as err:   # a failed program is reported, not fatal to the run
        out.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return out


def _measure(job: tuple[Path, bool]) -> Outcome:
    return measure(*job)


def geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="program names (stems) to measure")
    ap.add_argument("--run", action="store_true", help="also run the three versions under qemu-riscv64")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("-v", "--verbose", action="store_true", help="one row per loop")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--progress", action="store_true", help="a line per program on standard error as it is done")
    args = ap.parse_args()
    if args.jobs < 1:
        ap.error(f"--jobs {args.jobs}: give at least 1")
    files = sorted(CORPUS.glob("*.c"))
    if args.only:
        files = [f for f in files if f.stem in args.only]
    outcomes = []
    with multiprocessing.Pool(args.jobs) as pool:
        for o in pool.imap(_measure, [(f, args.run) for f in files]):
            outcomes.append(o)
            if args.progress:
                print(f"{o.program}: {len(o.loops)} loops, {sum(lp.pipelined is not None for lp in o.loops)} "
                      f"pipelined{', ' + o.error if o.error else ''}"
                      f"{', MISMATCH ' + ' '.join(o.mismatch) if o.mismatch else ''}", file=sys.stderr, flush=True)
    loops = [lp for o in outcomes for lp in o.loops]
    errors = [o for o in outcomes if o.error]
    slower = [lp for lp in loops if lp.ours > lp.clang + 1e-9]
    reordered_slower = [lp for lp in loops if lp.reordered > lp.clang + 1e-9]
    piped = [lp for lp in loops if lp.pipelined is not None]
    gm_piped = geomean([lp.clang / lp.pipelined for lp in piped])
    gm_all = geomean([lp.clang / lp.ours for lp in loops])
    gm_reordered = geomean([lp.clang / lp.reordered for lp in loops])
    mismatches = [o for o in outcomes if o.mismatch]
    seconds = sum(o.seconds for o in outcomes)
    if args.verbose:
        print(f"{'loop':<44} {'n':>4} {'clang':>7} {'reord.':>7} {'piped':>7} {'II':>3} {'u':>2}")
        for o in outcomes:
            for lp in o.loops:
                p = f"{lp.pipelined:7.2f}" if lp.pipelined is not None else "      -"
                print(f"{o.program + ':' + lp.name:<44} {lp.n:>4} {lp.clang:7.2f} {lp.reordered:7.2f} {p} "
                      f"{lp.ii or '':>3} {lp.unroll if lp.pipelined is not None else '':>2}"
                      + (f"  ({lp.reason[:70]})" if lp.reason and args.verbose else ""))
    for o in errors:
        print(f"error: {o.program}: {o.error}")
    for lp in slower:
        print(f"slower than clang: {lp.name}: {lp.clang:.2f} -> {lp.ours:.2f}")
    for o in mismatches:
        print(f"MISMATCH under qemu-riscv64: {o.program}: {', '.join(o.mismatch)}")
    if args.markdown:
        print("| programs | loops | pipelined | slower than clang | fewer cycles/iteration, pipelined loops "
              "(geo. mean) | all loops | reordered only | qemu mismatches | schedcc CPU s |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        print(f"| {len(outcomes)} | {len(loops)} | {len(piped)} | {len(slower)} | {gm_piped:.2f}x | {gm_all:.2f}x "
              f"| {gm_reordered:.2f}x | {sum(len(o.mismatch) for o in mismatches) if args.run else 'not run'} "
              f"| {seconds:.0f} |")
    print(f"\n{len(outcomes)} programs ({len(errors)} failed), {len(loops)} single-block loops, {len(piped)} "
          f"pipelined; slower than clang's: {len(slower)} (reordered alone: {len(reordered_slower)}); "
          f"cycles/iteration clang / schedcc, geometric mean: pipelined loops {gm_piped:.2f}x, all loops "
          f"{gm_all:.2f}x, reordered only {gm_reordered:.2f}x"
          + (f"; qemu-riscv64 mismatches: {len(mismatches)}" if args.run else "")
          + f"; schedcc CPU {seconds:.1f} s")
    ok = not errors and not slower and not mismatches and (not piped or gm_piped >= 1.3)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

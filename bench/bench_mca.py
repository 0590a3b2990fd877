"""llvm-mca as the referee (issue 20): schedcc's cycle counts on the SiFive U74
model imported from LLVM, held against llvm-mca's simulation of the same code.

For every C file given (default: tests/data/c/*.c and examples/swp/kernels.c),
compiled by clang-16 -O2 for riscv64 -mcpu=sifive-u74 (so LLVM's
MachineScheduler ordered it for that CPU), and every block of two or more
instructions without a call (llvm-mca assumes 100 cycles for a call):

* predicted: schedcc's in-order simulation of clang's order on the imported
  model (``schedcc.sim.simulate_order``), against llvm-mca's cycles for one
  run of the same lines (its Total Cycles less the cycle in which it writes
  the last result back): the model is faithful when these agree;
* reordered: llvm-mca's cycles for clang's order and for schedcc's list
  schedule of the block, both as llvm-mca runs them: schedcc's order is
  never slower and the sum shows the gain.

Prints one row per block that differs, then the totals; --all prints every
block, --markdown the table for docs/performance.md.

    .venv/bin/python bench/bench_mca.py
    .venv/bin/python bench/bench_mca.py --markdown
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedcc.dag import build_dag  # noqa: E402
from schedcc.driver import schedule_program  # noqa: E402
from schedcc.frontends import parse_source  # noqa: E402
from schedcc.sim import simulate_order  # noqa: E402
from schedcc.target import load_target  # noqa: E402

DATA = ROOT / "tests" / "data" / "c"
FLAGS = ["--target=riscv64-linux-gnu", "-march=rv64gc", "-mcpu=sifive-u74", "-O2", "-ffreestanding",
         "-fno-builtin", "-nostdlib", f"-I{DATA}"]
CALLS = ("call", "tail", "jal", "jalr")


def mca(lines: list[str], iterations: int = 1) -> int:
    """llvm-mca's cycles for *iterations* runs of *lines* on the U74, less the write-back cycle."""
    out = subprocess.run(["llvm-mca-16", "-mtriple=riscv64", "-mcpu=sifive-u74", f"-iterations={iterations}"],
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Total Cycles:\s+(\d+)", out).group(1)) - 1


def blocks(c_file: Path, tmp: Path):
    """(name, block, its source lines, scheduled order's lines, predicted cycles of clang's order)."""
    asm = tmp / f"{c_file.stem}.s"
    subprocess.run(["clang-16", *FLAGS, "-S", str(c_file), "-o", str(asm)], check=True)
    text = asm.read_text()
    lines = text.splitlines()
    u74 = load_target("sifive-u74")
    source = parse_source(text, str(asm))
    result = schedule_program(source.program, u74)
    for r in result.blocks:
        b = r.block
        if len(b.instrs) < 2 or any(i.opcode in CALLS for i in b.instrs):
            continue
        original = [lines[i.loc.line - 1] for i in b.instrs]
        scheduled = [lines[b.instrs[k].loc.line - 1] for k in r.schedule.order]
        predicted = simulate_order(build_dag(b, u74), range(len(b.instrs))).makespan
        yield f"{c_file.stem}:{r.function.name}/{b.label}", len(b.instrs), original, scheduled, predicted


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--all", action="store_true", help="print every block")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    files = args.files or sorted(DATA.glob("*.c")) + [ROOT / "examples" / "swp" / "kernels.c"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            for name, n, original, scheduled, predicted in blocks(f, Path(tmp)):
                clang, ours = mca(original), mca(scheduled)
                rows.append((name, n, predicted, clang, ours))
    close = sum(abs(p - c) <= 0.05 * c for _, _, p, c, _ in rows)
    slower = [r for r in rows if r[4] > r[3]]
    total_clang, total_ours = sum(r[3] for r in rows), sum(r[4] for r in rows)
    if args.markdown:
        print("| blocks | predicted within 5% of llvm-mca | exact | schedcc's order slower | cycles, clang's order "
              "| cycles, schedcc's order | saved |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        exact = sum(p == c for _, _, p, c, _ in rows)
        print(f"| {len(rows)} | {close} ({close / len(rows):.1%}) | {exact} | {len(slower)} | {total_clang:,} "
              f"| {total_ours:,} | {1 - total_ours / total_clang:.1%} |")
        return 0
    print(f"{'block':<44} {'n':>4} {'predicted':>9} {'llvm-mca':>8} {'schedcc':>8}")
    for name, n, p, c, o in rows:
        if args.all or abs(p - c) > 0.05 * c or o != c:
            print(f"{name:<44} {n:>4} {p:>9} {c:>8} {o:>8}")
    print(f"\n{len(rows)} blocks: predicted within 5% of llvm-mca on {close} ({close / len(rows):.1%}); "
          f"schedcc's order slower than clang's on {len(slower)}; cycles {total_clang:,} -> {total_ours:,} "
          f"({1 - total_ours / total_clang:.1%} fewer)")
    return 0 if close >= 0.9 * len(rows) and not slower else 1


if __name__ == "__main__":
    sys.exit(main())

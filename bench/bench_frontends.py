"""Front-end speed: parse, schedule and write back large LLVM IR and LoongArch files.

    .venv/bin/python bench/bench_frontends.py [--copies N]

The inputs are the example kernel (examples/frontends/kernel.{ll,s}) repeated
N times as distinct functions, plus one long straight-line block of stack
loads, stores and arithmetic. Prints seconds per phase and lines per second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schedcc.driver import schedule_program  # noqa: E402
from schedcc.frontends import parse_source  # noqa: E402


def many_functions(text: str, copies: int, lang: str) -> str:
    if lang == "ll":
        head, _, rest = text.partition("define ")
        body, _, tail = ("define " + rest).partition("\n}\n")
        body += "\n}\n"
        return head + "".join(body.replace("@kernel", f"@kernel{k}") for k in range(copies)) + tail
    return "".join(text.replace("kernel", f"kernel{k}").replace(".LBB0_", f".LBB{k}_")
                   .replace(".Lfunc_end0", f".Lfunc_end{k}") for k in range(copies))


def long_block(n: int) -> str:
    rng = random.Random(1)
    regs = ["$a0", "$a1", "$a2", "$a3", "$t0", "$t1", "$t2", "$t3"]
    lines = ["\t.text", "big:"]
    for _ in range(n):
        kind = rng.random()
        if kind < 0.3:
            lines.append(f"\tld.w\t{rng.choice(regs)}, $sp, {4 * rng.randrange(64)}")
        elif kind < 0.5:
            lines.append(f"\tst.w\t{rng.choice(regs)}, $sp, {4 * rng.randrange(64)}")
        else:
            lines.append(f"\tadd.d\t{rng.choice(regs)}, {rng.choice(regs)}, {rng.choice(regs)}")
    lines.append("\tret")
    return "\n".join(lines) + "\n"


def measure(name: str, text: str, filename: str, target: str) -> None:
    t0 = time.perf_counter()
    source = parse_source(text, filename)
    t1 = time.perf_counter()
    result = schedule_program(source.program, target)
    t2 = time.perf_counter()
    source.render(result.scheduled_program())
    t3 = time.perf_counter()
    lines = text.count("\n")
    instrs = sum(len(b.instrs) for _, b in source.program.blocks())
    print(f"{name:<34} {lines:>7} lines {instrs:>7} instrs  parse {t1 - t0:6.2f} s "
          f"({lines / (t1 - t0):>8,.0f} lines/s)  schedule+verify {t2 - t1:6.2f} s  write {t3 - t2:5.2f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=200)
    ap.add_argument("--block", type=int, default=10_000)
    args = ap.parse_args()
    ex = ROOT / "examples" / "frontends"
    measure(f"kernel.ll x {args.copies}", many_functions((ex / "kernel.ll").read_text(), args.copies, "ll"),
            "many.ll", "la464")
    measure(f"kernel.s x {args.copies}", many_functions((ex / "kernel.s").read_text(), args.copies, "s"),
            "many.s", "la464")
    measure(f"one block of {args.block} instrs (.s)", long_block(args.block), "big.s", "la464")


if __name__ == "__main__":
    main()

"""Generate a straight-line IR block for benchmarks: 80% arithmetic, 20% loads and stores.

Deterministic for a given size and seed. Values flow through a sliding window
of recent registers, so the DAG has realistic depth and fan-out; memory goes
to a handful of arrays with affine indices in a few index registers, plus
some pointer references.
"""

from __future__ import annotations

import random

OPS = ["+", "-", "*", "&", "|", "^", "<<"]


def generate(n: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    lines = []
    live = [f"r{i}" for i in range(16)]
    arrays = ["A", "B", "C", "D", "E", "F"]
    counter = 16
    for k in range(n):
        r = rng.random()
        if r < 0.12:
            arr = rng.choice(arrays)
            idx = rng.choice(["i", "j", "k"])
            off = rng.randint(-8, 8)
            index = f"{idx} + {off}" if off > 0 else (f"{idx} - {-off}" if off < 0 else idx)
            dst = f"r{counter}"
            counter += 1
            lines.append(f"{dst} = load {arr}[{index}]")
            live.append(dst)
        elif r < 0.18:
            arr = rng.choice(arrays)
            idx = rng.choice(["i", "j", "k"])
            off = rng.randint(-8, 8)
            index = f"{idx} + {off}" if off > 0 else (f"{idx} - {-off}" if off < 0 else idx)
            lines.append(f"store {arr}[{index}], {rng.choice(live[-24:])}")
        elif r < 0.20:
            if rng.random() < 0.5:
                dst = f"r{counter}"
                counter += 1
                lines.append(f"{dst} = load [p + {8 * rng.randint(0, 31)}]")
                live.append(dst)
            else:
                lines.append(f"store [p + {8 * rng.randint(0, 31)}], {rng.choice(live[-24:])}")
        else:
            a, b = rng.choice(live[-24:]), rng.choice(live[-24:])
            dst = f"r{counter}" if rng.random() < 0.8 else rng.choice(live[-40:])
            if dst == f"r{counter}":
                counter += 1
            lines.append(f"{dst} = {a} {rng.choice(OPS)} {b}")
            live.append(dst)
        if len(live) > 64:
            del live[:16]
    return "\n".join(lines) + "\n"


REGS = [f"r{i}" for i in range(8)]


def random_block(n: int, seed: int) -> str:
    """A random block of *n* instructions over 8 registers (many WAR and WAW hazards, as
    in tests/strategies.py): 5/9 arithmetic, 4/9 loads and stores through two arrays and
    two pointers. The blocks of the heuristic-vs-optimum goals (bench/bench_gap.py)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        kind = rng.choice(["arith"] * 5 + ["load", "store", "pload", "pstore"])
        if kind == "arith":
            b = rng.choice(REGS) if rng.random() < 0.7 else str(rng.randint(0, 9))
            out.append(f"{rng.choice(REGS)} = {rng.choice(REGS)} {rng.choice(['+', '-', '*', '&'])} {b}")
        elif kind == "load":
            out.append(f"{rng.choice(REGS)} = load {rng.choice('AB')}[{rng.choice(['i', 'j'])} + {rng.randint(0, 3)}]")
        elif kind == "store":
            out.append(f"store {rng.choice('AB')}[{rng.choice(['i', 'j'])} + {rng.randint(0, 3)}], {rng.choice(REGS)}")
        elif kind == "pload":
            out.append(f"{rng.choice(REGS)} = load [p + {8 * rng.randint(0, 3)}]")
        else:
            out.append(f"store [{rng.choice(['p', 'r2'])} + {8 * rng.randint(0, 3)}], {rng.choice(REGS)}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import sys
    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1000))

"""Malformed and extreme inputs for every command, option and reader (issue 21).

:func:`cases` returns :class:`Case`\\ s, deterministically for a seed, of
these families:

* **option**: every numeric option of every command, taken from the parsers
  themselves (so a new option is fuzzed the day it is added), each at values
  past its range (below, above, far above), NaN, infinities, ``-0``, ``2**70``,
  ``1e400``, an empty word and a word, and at both ends of its range;
* **text option**: ``--set``, ``--group``, ``--fix``, ``--timeline-window``,
  ``--unit-costs``, ``--memory-limit``, ``--tp-comm-overlap``, output names;
* **front end**: mutations of real programs in each language (schedcc IR,
  LLVM IR, LoongArch and RISC-V assembly, training steps): truncated at
  random points, lines dropped or doubled, bytes flipped, binary, invalid
  UTF-8, huge numbers, deep nesting;
* **reader**: mutations of a machine model (TOML), a pipeline ``--import``
  file (JSON and text), a ``deps --answer`` file, ``run --set`` values.

Each case knows whether it is *invalid* (the tool must refuse it: exit 2)
or merely *extreme* (any clear outcome), and what its error must name (its
file, or the option). ``bench/bench_fuzz.py`` runs them all;
``tests/test_fuzz_cli.py`` runs a sample.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

EX = ROOT / "examples"
BASE = {  # a command line each option is added to, where it applies
    None: [str(EX / "lecture.ir"), "--target", "mips4"],
    "gen": ["gen", "transformer", "--layers", "2", "--hidden", "512", "--microbatches", "2"],
    "train": ["train", str(EX / "training" / "step.ir"), "--target", "h100-8x"],
    "compare": ["compare", str(EX / "training" / "step.ir"), "--target", "h100-8x"],
    "pipeline": ["pipeline"],
    "plan": ["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100", "--workers", "1"],
    "run": ["run", str(EX / "loops" / "dot.ir")],
    "gap": ["gap", str(EX / "lecture.ir"), "--target", "mips4"],
    "check": ["check", str(EX / "lecture.ir"), "--against", str(EX / "lecture.ir"), "--target", "mips4"],
    "report": ["report", str(EX / "lecture.ir"), "--target", "mips4"],
    "deps": ["deps", str(EX / "lecture.ir"), "--target", "mips4"],
    "targets": ["targets"],
}
# options that only act together with another one: added so that the value itself is tested
NEEDS = {("train", "--bucket-mb"): ["--policy", "ddp"], ("compare", "--bucket-mb"): [],
         ("train", "--max-activation-gib"): ["--tp-comm-overlap", "auto"],
         ("gen", "--max-activation-gib"): ["--tp-comm-overlap", "auto"],
         ("compare", "--max-activation-gib"): ["--tp-comm-overlap", "auto"],
         ("gen", "--iterations"): ["--tp-comm-overlap", "2"],
         (None, "--time-limit"): ["--exact"], (None, "--workers"): ["--exact"],
         ("train", "--time-limit"): ["--exact"], ("train", "--workers"): ["--exact"],
         (None, "--tiles"): ["--target", "ascend"], (None, "--buffers"): ["--target", "ascend"]}


@dataclass
class Case:
    family: str
    argv: list[str]
    invalid: bool                     # must be refused (exit 2)
    names: tuple[str, ...] = ()       # what the error must name: an option, or a file's name
    files: dict[str, bytes] = field(default_factory=dict)  # written into the run's directory first
    stdin: bytes = b""

    def label(self) -> str:
        return f"{self.family}: schedcc {' '.join(a if len(a) < 40 else a[:37] + '...' for a in self.argv)}"


def _numeric_cases() -> list[Case]:
    from schedcc.cli import COMMANDS, build_parser
    from schedcc.commands.values import Bounded
    out = []
    for command in [None, *COMMANDS]:
        if command not in BASE:
            continue
        for action in build_parser(command)._actions:
            t = action.type
            if not isinstance(t, Bounded) or not action.option_strings:
                continue
            opt = action.option_strings[-1]
            base = BASE[command] + NEEDS.get((command, opt), [])
            bad = ["nan", "inf", "-inf", str(2**70), "1e400", "", "many", str(t.hi * 10 + 1)]
            if t.integer:
                bad += [str(int(t.lo) - 1), str(int(t.hi) + 1), "2.5"]
            else:
                bad += [repr(t.lo - 1.0), repr(t.hi * 1.5)] + (["0"] if t.above and t.lo == 0 else [])
            for value in bad:
                out.append(Case("option", base + [opt, value], True, (opt,)))
            for value in (t.lo, t.hi):
                if t.above and value == t.lo:
                    continue
                text = str(int(value)) if t.integer else repr(float(value))
                out.append(Case("option extreme", base + [opt, text], False, (opt,)))
    return out


def _text_option_cases() -> list[Case]:
    step = str(EX / "training" / "step.ir")
    train = ["train", step, "--target", "h100-8x"]
    plan = BASE["plan"]
    cases = []
    for item in ("link_bw=nan", "link_bw=1e400GB/s", "link_bw=-1", "efficiency=5", "gemm_efficiency=2",
                 "contention=inf", "nodes=0", "nodes=2.5", "nosuch=1", "link_bw=", "=5", "link_bw",
                 "link_bw=200XB/s", "inter_algorithm=mesh", "gemm_tiles=0x0"):
        cases.append(Case("--set", train + ["--set", item], True, ("--set",)))
        cases.append(Case("--set", plan + ["--set", item], True, ("--set",)))
    for item in ("classes.alu.latency=-1", "classes.alu.latency=1e400", "target.issue_width=0",
                 "classes.alu.nosuch=1", "units.ALU.count=2000", "classes.alu.latency=[[[[[[1]]]]]]",
                 "target.issue_width=nan"):
        cases.append(Case("--set", BASE[None] + ["--set", item], True, ("--set",)))
    for item in ("dp=0", "dp=x", "dp", "=8", "dp=10000000", "dp=-3"):
        cases.append(Case("--group", train + ["--group", item], True, ("--group",)))
    for item in ("nan:nan", "5:1", "-1:3", "a:b", "1", "0:1e30", "inf:inf"):
        cases.append(Case("--timeline-window", train + ["--timeline-window", item, "--timeline", "t.svg"], True,
                          ("--timeline-window",)))
    for item in ("tp=eight", "tq=8", "tp=0", "tp=2**70", "tp=1e400", "pp=nan", "schedule=gpipe", "zero=9",
                 "recompute=some", "tp=8,tp=4", "microbatch=-1", "virtual=100000"):
        cases.append(Case("--fix", plan + ["--fix", item], True, ("--fix",)))
    for item in ("F=1,F=2", "F=-1", "X=1", "F=1e400", "F=nan", "F=", "F=99999999999"):
        cases.append(Case("--unit-costs", ["pipeline", "--unit-costs", item], True, ("--unit-costs",)))
    for item in ("1e999", "nan", "-4", "0", "20XB", "GiB"):
        cases.append(Case("--memory-limit", ["pipeline", "--memory-limit", item], True, ("--memory-limit",)))
    for item in ("0", "-1", "1000000", "many", "2.5", "nan"):
        cases.append(Case("--tp-comm-overlap", BASE["gen"] + ["--tp-comm-overlap", item], True,
                          ("--tp-comm-overlap",)))
    for opt in ("-o", "--emit-dag"):
        cases.append(Case("output", BASE[None] + [opt, ""], True, (opt,)))
        cases.append(Case("output", BASE[None] + [opt, "nosuchdir/x.svg"], True, ("nosuchdir",)))
        cases.append(Case("output", BASE[None] + [opt, "."], True, (".",)))
    cases.append(Case("output", BASE[None] + ["-o", "same.out", "--emit-dag", "same.out"], True, ("same.out",)))
    cases.append(Case("output", BASE[None] + ["-o", str(EX / "lecture.ir")], True, ("lecture.ir",)))
    for item in ("10.255.255.1", "x:y", "host:99999", "127.0.0.1:1"):
        cases.append(Case("--ray", plan + ["--ray", item], True, ("--ray",)))
    return cases


def _mutations(rng: random.Random, text: bytes, n: int) -> list[tuple[bytes, bool]]:
    """(mutated text, clearly invalid) pairs."""
    out = []
    lines = text.split(b"\n")
    for _ in range(n):
        kind = rng.randrange(9)
        if kind == 0:
            cut = rng.randrange(1, max(2, len(text)))
            out.append((text[:cut], False))
        elif kind == 1 and len(lines) > 2:
            k = rng.randrange(len(lines))
            out.append((b"\n".join(lines[:k] + lines[k + 1:]), False))
        elif kind == 2:
            k = rng.randrange(len(lines))
            out.append((b"\n".join(lines[:k] + [lines[k]] * rng.randrange(2, 50) + lines[k + 1:]), False))
        elif kind == 3:
            b = bytearray(text)
            for _ in range(rng.randrange(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(32, 127)
            out.append((bytes(b), False))
        elif kind == 4:
            out.append((bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))), True))
        elif kind == 5:
            k = rng.randrange(len(text))
            out.append((text[:k] + b"\xff\xfe\xc3(" + text[k:], True))
        elif kind == 6:
            k = rng.randrange(len(text))
            out.append((text[:k] + b"\x00" + text[k:], True))
        elif kind == 7:
            big = rng.choice([b"1e400", b"123456789012345678901234567890123", b"-0x" + b"f" * 40, b"nan", b"inf"])
            out.append((rng.choice([text.replace(b" 1", b" " + big, 1), text.replace(b"8", big, 1)]), False))
        else:
            depth = rng.choice([300, 2000, 30000])
            opener, closer = rng.choice([(b"[", b"]"), (b"(", b")"), (b"{", b"}")])
            out.append((text + b"\n" + opener * depth + closer * depth + b"\n", True))
    return out


FRONT_ENDS = [  # (file, extension, argv after the file)
    (EX / "lecture.ir", ".ir", ["--target", "mips4"]),
    (EX / "loops" / "dot.ir", ".ir", ["--target", "la464", "--pipeline"]),
    (EX / "swp" / "kernels-O2.ll", ".ll", ["--target", "la464"]),
    (EX / "swp" / "kernels-O2.s", ".s", ["--target", "la464"]),
    (EX / "frontends" / "kernel.ll", ".ll", ["--target", "la664", "--pipeline"]),
    (EX / "training" / "step.ir", ".ir", ["--target", "h100-8x"]),
    (EX / "ascend" / "vector_add.ir", ".ir", ["--target", "ascend"]),
]


def _front_end_cases(rng: random.Random, per_file: int) -> list[Case]:
    out = []
    sources = list(FRONT_ENDS)
    rv = ROOT / "tests" / "data" / "riscv" / "kernels-O2.s"
    if rv.exists():
        sources.append((rv, ".s", ["--target", "u74"]))
    for path, ext, tail in sources:
        text = path.read_bytes()
        for k, (mutant, invalid) in enumerate(_mutations(rng, text, per_file)):
            name = f"in{ext}"
            out.append(Case(f"front end {path.name}", [name, *tail], invalid, (name,), {name: mutant}))
    return out


def _reader_cases(rng: random.Random, per_reader: int) -> list[Case]:
    out = []
    mips4 = (ROOT / "targets" / "mips4.toml").read_bytes()
    for mutant, invalid in _mutations(rng, mips4, per_reader):
        out.append(Case("reader: target TOML", [str(EX / "lecture.ir"), "--target", "m.toml"], invalid, ("m.toml",),
                        {"m.toml": mutant}))
    for text in (b"issue_width = nan", b"latency = 1e400", b"latency = -5", b"count = 99999999999",
                 b'latency = "1 / 0"', b'latency = "bytes ** 999"', b'latency = "__import__(1)"'):
        body = mips4.replace(b"issue_width = 1", text if text.startswith(b"issue") else b"issue_width = 1", 1)
        if not text.startswith(b"issue"):
            body = body.replace(b"latency = 3", text, 1)
        out.append(Case("reader: target TOML", [str(EX / "lecture.ir"), "--target", "m.toml"], True, ("m.toml",),
                        {"m.toml": body}))
    plan = (EX / "training" / "1f1b-4x4.txt").read_bytes()
    for mutant, invalid in _mutations(rng, plan, per_reader):
        out.append(Case("reader: pipeline --import", ["pipeline", "--import", "p.txt"], invalid, ("p.txt",),
                        {"p.txt": mutant}))
    for body in (b"[[", b"[[\"0F0\"], 5]", b"{}", b"[]", b"[" * 500 + b"]" * 500, b"[[\"9F99999999999\"]]"):
        out.append(Case("reader: pipeline --import", ["pipeline", "--import", "p.json"], True, ("p.json",),
                        {"p.json": body}))
    answer = b"#0 -> #1 RAW t0\n#0 weight 9\n"
    for mutant, invalid in _mutations(rng, answer, per_reader):
        out.append(Case("reader: deps --answer", BASE["deps"] + ["--answer", "a.txt"], invalid, ("a.txt",),
                        {"a.txt": mutant}))
    for item in ("n=nan", "n=1e400", "X=1,,2", "X=1,nan,2", "=1", "n", "n=0x", "n=--1"):
        out.append(Case("reader: run --set", BASE["run"] + ["--set", item], True, ("--set",)))
    return out


def cases(seed: int = 0, per_file: int = 40, per_reader: int = 30) -> list[Case]:
    """Every case, the same list for the same seed."""
    rng = random.Random(seed)
    return (_numeric_cases() + _text_option_cases() + _front_end_cases(rng, per_file)
            + _reader_cases(rng, per_reader))

"""The cases of the fuzz (issue 21): malformed and extreme inputs for every command.

Generates cases of the breadth the issue's fuzz used: every command and
subcommand; every numeric option, taken from the parsers themselves (values at
and past each bound, NaN, infinities, -0, 2**70, huge exponents, empty text,
words), so that a new option is fuzzed without touching this file; the
options that read numbers from text (``--set`` for cluster and CPU models,
``--timeline-window``, ``--memory-limit``, ``--unit-costs``, ``--group``,
``--fix``, ``run --set``, ``--tp-comm-overlap``); every front end (``.ir``,
``.ll``, ``.s``: truncations, deep nesting, huge numbers, wrong UTF-8,
binary); every file reader (TOML machine models and their cost formulas,
``pipeline --import`` text and JSON, ``deps --answer``, ``check --against``,
``gap`` directories). Each case is a :class:`Case`: its command line, the
files it needs, and whether it is clearly invalid (exit 0 would be wrong).

``bench/bench_fuzz.py`` runs them (each in its own process with 20 s CPU and
2 GB); ``tests/test_fuzz_cli.py`` runs a deterministic sample in-process.
:func:`generate` is deterministic (a fixed seed), so a case keeps its place.
"""

from __future__ import annotations

import math
import random
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CPU_LIMIT = 20          # seconds of CPU per case
MEMORY_LIMIT = 2 << 30  # bytes of address space per case

CLASSES = ("ok", "traceback", "internal", "over time", "over memory", "accepted invalid", "unlocated",
           "other exit")


@dataclass
class Case:
    """One run: ``schedcc ARGV`` in a fresh directory holding *files*."""

    family: str
    argv: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    invalid: bool = False  # clearly invalid input: exit 0 would be wrong
    slow: bool = False     # not for the suite's sample (seconds, or a subprocess is needed)
    note: str = ""         # what the files hold that the command line does not show (``latency = 0``)

    @property
    def name(self) -> str:
        text = " ".join(self.argv)
        text = text if len(text) < 160 else text[:157] + "..."
        return f"{text} [{self.note[:80]}]" if self.note else text


# -- seeds -------------------------------------------------------------------------------------------------

def _read(rel: str) -> bytes:
    return (ROOT / rel).read_bytes()


def _step_ir() -> bytes:
    """A small training step with tensor and data parallelism (what ``schedcc gen`` writes)."""
    from schedcc.ir import print_program
    from schedcc.training.generator import TransformerConfig, generate_program
    cfg = TransformerConfig(layers=2, hidden=256, seq=128, micro_batch=1, microbatches=1, dp=2, tp=2, heads=4,
                            vocab=1000)
    return print_program(generate_program(cfg)).encode()


def seeds() -> dict[str, bytes]:
    return {
        "p.ir": _read("examples/lecture.ir"),
        "loop.ir": _read("examples/loops/dot.ir"),
        "k.ir": _read("examples/ascend/vector_add.ir"),
        "mm.ir": _read("examples/ascend/matmul.ir"),
        "f.ll": _read("examples/frontends/kernel.ll"),
        "f.s": _read("examples/frontends/kernel.s"),
        "step.ir": _step_ir(),
        "deps.ir": _read("docs/assignments/01-dependences/program.ir"),
        "deps.txt": _read("docs/assignments/01-dependences/my-deps.txt"),
        "mips4.toml": _read("targets/mips4.toml"),
        "ascend.toml": _read("targets/ascend910b.toml"),
        "h100.toml": _read("targets/h100-8x.toml"),
        "dgx.toml": _read("targets/dgx-h100.toml"),
    }


# -- values ------------------------------------------------------------------------------------------------

WORDS = ["nan", "inf", "-inf", "1e400", str(2**70), "", "abc"]
MORE_WORDS = ["NaN", "+inf", "-1e400", "-" + str(2**70), " ", "1e99999999", "0x", "--", "1,000", "½"]


def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) and abs(v) < 1e17 else repr(float(v))


def number_valid(text: str, lo: float, hi: float, integer: bool, above: bool) -> bool:
    """Whether *text* is a number in the range, read independently of schedcc's reader."""
    t = text.strip().replace("_", "")
    try:
        v = float(int(t, 16)) if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", t) else float(t)
    except (ValueError, OverflowError):
        return False
    if not math.isfinite(v) or (integer and v != int(v)):
        return False
    return lo <= v <= hi and not (above and v == lo)


def bound_values(lo: float, hi: float, integer: bool, above: bool) -> list[str]:
    """Values at and past the bounds of a range, and the usual suspects."""
    out = [_fmt(hi), _fmt(hi + 1) if integer else _fmt(hi * 2), "-0", "1.5"]
    if not above:
        out.append(_fmt(lo))
    out.append(_fmt(lo - 1) if integer else (_fmt(lo / 2) if lo > 0 else "-0.001"))
    return out + WORDS


# -- every numeric option, from the parsers ----------------------------------------------------------------

GEN = ["gen", "transformer", "--layers", "2", "--hidden", "256", "--heads", "4", "--seq", "128",
       "--microbatches", "1", "-o", "out.ir"]
PLAN = ["plan", "transformer", "--layers", "2", "--hidden", "256", "--heads", "4", "--seq", "128", "--vocab",
        "1000", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100", "--workers", "1"]
BASE = {
    None: ["p.ir", "--target", "mips4"],
    "gen": GEN,
    "train": ["train", "step.ir", "--target", "h100-8x"],
    "compare": ["compare", "step.ir", "--target", "h100-8x"],
    "pipeline": ["pipeline"],
    "plan": PLAN,
    "run": ["run", "loop.ir"],
    "gap": ["gap", "dir", "--target", "mips4"],
}
# options that only act with others
WITH = {
    (None, "--tiles"): ["mm.ir", "--target", "ascend"], (None, "--buffers"): ["mm.ir", "--target", "ascend"],
    (None, "--time-limit"): ["p.ir", "--target", "mips4", "--exact"],
    (None, "--workers"): ["p.ir", "--target", "mips4", "--exact"],
    ("train", "--time-limit"): ["train", "step.ir", "--target", "h100-8x", "--exact"],
    # a step is not proven within the limit: N workers search the whole 10 s each, N x 10 s of CPU as asked;
    # the case is about the workers' bound, so a short limit
    ("train", "--workers"): ["train", "step.ir", "--target", "h100-8x", "--exact", "--time-limit", "0.2"],
    ("train", "--credit-mb"): ["train", "step.ir", "--target", "h100-8x", "--policy", "priority"],
    ("train", "--bucket-mb"): ["train", "step.ir", "--target", "h100-8x", "--policy", "ddp"],
    ("compare", "--bucket-mb"): ["compare", "step.ir", "--target", "h100-8x", "--policies", "ddp"],
    ("gen", "--max-activation-gib"): GEN + ["--tp", "2", "--tp-comm-overlap", "auto"],
    ("gen", "--iterations"): GEN + ["--tp", "2", "--tp-comm-overlap", "auto"],
    ("gen", "--experts"): GEN, ("gen", "--ep"): GEN + ["--experts", "4"],
    ("gen", "--top-k"): GEN + ["--experts", "4"],
    ("train", "--max-activation-gib"): ["train", "step.ir", "--target", "h100-8x", "--tp-comm-overlap", "auto"],
    ("compare", "--max-activation-gib"): ["compare", "step.ir", "--target", "h100-8x", "--tp-comm-overlap", "1"],
    ("pipeline", "--layers"): ["pipeline", "--target", "h100-128x"],
    ("pipeline", "--hidden"): ["pipeline", "--target", "h100-128x"],
    ("pipeline", "--seq"): ["pipeline", "--target", "h100-128x"],
    ("pipeline", "--micro-batch"): ["pipeline", "--target", "h100-128x"],
    ("pipeline", "--tp"): ["pipeline", "--target", "h100-128x"],
    ("pipeline", "--dp"): ["pipeline", "--target", "h100-128x"],
    ("pipeline", "--virtual"): ["pipeline", "--schedule", "interleaved"],
    ("plan", "--workers"): PLAN[:-2],
}


def numeric_options():
    """(command, option, Bounded) for every numeric option of every parser."""
    from schedcc.cli import COMMANDS, build_parser
    from schedcc.commands.values import Bounded
    for command in [None, *COMMANDS]:
        for action in build_parser(command)._actions:
            if action.option_strings and isinstance(action.type, Bounded):
                yield command, action.option_strings[-1], action.type


def _with_option(argv: list[str], option: str, value: str) -> list[str]:
    argv = list(argv)
    if option in argv:
        i = argv.index(option)
        del argv[i:i + 2]
    return argv + [f"{option}={value}"]


def option_cases() -> list[Case]:
    cases = []
    seen: set = set()
    for command, option, kind in numeric_options():
        base = WITH.get((command, option), BASE.get(command))
        if base is None:
            continue
        # the reader is shared: the rarer words on one option of each command suffice
        extra = MORE_WORDS + ["-1", "1e-400", "0x10", _fmt(kind.hi) + "0"] if command not in seen else []
        seen.add(command)
        for text in bound_values(kind.lo, kind.hi, kind.integer, kind.above) + extra:
            ok = number_valid(text, kind.lo, kind.hi, kind.integer, kind.above)
            cases.append(Case("option", _with_option(base, option, text), invalid=not ok))
    return cases


# -- options that read numbers from text ----------------------------------------------------------------------

CLUSTER_VALUES = ["nan", "inf", "-1", "0", "1e300", "5", "1e400GB/s", "", "abc", "0.5"]


def cluster_cases() -> list[Case]:
    from dataclasses import fields
    from schedcc.training.costs import CLUSTER_RANGES, Cluster
    cases = []
    for f in fields(Cluster):
        if f.name == "name":
            continue
        values = CLUSTER_VALUES if f.name not in ("inter_algorithm", "gemm_tiles") else \
            ["ring", "tree", "star", "", "1e400", "0x0", "128x256,0x1", str(2**70) + "x1", "1x1," * 1000 + "1x1"]
        r = CLUSTER_RANGES.get(f.name)
        for value in values:
            bad = not number_valid(value, r.lo, r.hi, r.integer, r.above) if r else \
                value in ("", "star", "1e400", "0x0", "128x256,0x1", str(2**70) + "x1")
            cases.append(Case("set-cluster", BASE["train"] + ["--set", f"{f.name}={value}"], invalid=bad))
    for key, value, bad in [("contention", "1e400GB/s", True), ("efficiency", "5", True),
                            ("gemm_efficiency", "2", True), ("link_bw", "1e300", True), ("link_bw", "-1", True),
                            ("memory_capacity", "1e400", True), ("memory_capacity", "0", True),
                            ("compute_units", "1e9", True), ("compute_units", "2.5", True),
                            ("gemm_tiles", "1x1", False), ("nodes", "1e9", True), ("memory_reserved", "1e12", True),
                            ("attention_efficiency", "nan", True), ("gemm_k_overhead", "1e300", True),
                            ("devices_per_node", "1e6", True), ("net_latency", "1e9", True),
                            ("gemm_efficiency", "0.7", False), ("peak_flops", "1e300", True)]:
        cases.append(Case("set-cluster", PLAN + ["--set", f"{key}={value}"], invalid=bad))
    for key, value, bad in [("net_bw", "nan", True), ("net_bw", "25GB/s", False), ("link_latency", "-5us", True),
                            ("link_latency", "1e9s", True), ("efficiency", "1e-300", True)]:
        cases.append(Case("set-cluster", ["pipeline", "--target", "h100-128x", "--set", f"{key}={value}"],
                          invalid=bad))
        cases.append(Case("set-cluster", ["step.ir", "--target", "h100-8x", "--set", f"cluster.{key}={value}"],
                          invalid=bad))
        cases.append(Case("set-cluster", GEN + ["--tp", "2", "--tp-comm-overlap", "auto", "--set",
                                                f"{key}={value}"], invalid=bad))
    for item in ["link_bw", "=5", "link_bw==5", "nosuch=5", "link_bw=5=5", "LINK_BW=5", "link_bw=5 GB/s",
                 "link_bw=5GB/ss", "link_bw=[[[[1]]]]", "link_bw=" + "9" * 5000]:
        # a unit after a space is read as written: 5 GB/s
        cases.append(Case("set-cluster", BASE["train"] + ["--set", item], invalid=item != "link_bw=5 GB/s"))
    return cases


def model_ranges() -> dict[str, tuple[float, float, bool, bool]]:
    """(lo, hi, integer, above) of the machine-model values the fuzz changes, by their last key:
    the documented ranges (docs/targets.md, docs/ascend.md, docs/cost-model.md), read from
    the modules that state them, as the option family reads the parsers' ranges."""
    from schedcc.ascend.model import MAX_BUFFER_BYTES, MAX_EVENT_IDS
    from schedcc.target.load import MAX_CYCLES, MAX_NUMBER, MAX_UNITS
    from schedcc.training.costs import CLUSTER_RANGES
    out = {k: (r.lo, r.hi, r.integer, r.above) for k, r in CLUSTER_RANGES.items()}
    out.update({
        "issue_width": (1, MAX_UNITS, True, False), "ALU": (1, MAX_UNITS, True, False),
        "V": (1, 1, True, False),  # an Ascend pipe has one instance
        "latency": (0, MAX_CYCLES, True, False), "occupancy": (1, MAX_CYCLES, True, False),
        "war_latency": (0, MAX_CYCLES, True, False), "waw_latency": (0, MAX_CYCLES, True, False),
        "bandwidth": (0, MAX_NUMBER, False, True),
        "startup": (0, MAX_CYCLES / 2, False, False),  # plus the copy's occupancy, a latency of at most MAX_CYCLES
        "event_ids": (1, MAX_EVENT_IDS, True, False), "capacity": (1, MAX_BUFFER_BYTES, True, False),
    })
    return out


def toml_value_valid(text: str, key: str) -> bool:
    """Whether the TOML value *text* is a number in *key*'s documented range (a bare word is a
    string, not a number: what ``--set`` makes of it)."""
    import tomllib
    lo, hi, integer, above = model_ranges()[key.rsplit(".", 1)[-1]]
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return False
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and (not math.isfinite(value) or integer):
        return False
    return lo <= value <= hi and not (above and value == lo)


MODEL_KEYS = {
    "mips4": ["target.issue_width", "units.ALU", "classes.alu.latency", "classes.alu.occupancy",
              "dependences.war_latency", "dependences.waw_latency"],
    "ascend": ["classes.copy_in.params.bandwidth", "classes.copy_in.params.startup", "ascend.event_ids",
               "ascend.buffers.UB.capacity", "units.V"],
}
MODEL_VALUES = ["nan", "inf", "-1", "0", "1e300", "1e400", str(2**70), "2.5", '"x"', "[[[[[[1]]]]]]",
                "[" * 2000 + "]" * 2000, "{a = 1}", "1"]


def model_set_cases() -> list[Case]:
    cases = []
    for model, keys in MODEL_KEYS.items():
        base = ["p.ir", "--target", "mips4"] if model == "mips4" else ["k.ir", "--target", "ascend"]
        for key in keys:
            for value in MODEL_VALUES:
                cases.append(Case("set-model", base + ["--set", f"{key}={value}"],
                                  invalid=not toml_value_valid(value, key)))
    for item in ["nosuch=1", "classes.nosuch.latency=1", "target=1", "classes.alu.latency", "=",
                 "classes.alu.latency='-1 - 2'", "classes.alu.latency='((((1))))'",
                 "classes.alu.latency='" + "(" * 1000 + "1" + ")" * 1000 + "'",
                 "classes.alu.latency='1' + '+1' * 100000", "a." * 2000 + "b=1"]:
        # a formula of four parentheses is a latency of 1
        cases.append(Case("set-model", ["p.ir", "--target", "mips4", "--set", item],
                          invalid=item != "classes.alu.latency='((((1))))'"))
    cases.append(Case("set-model", ["gap", "dir", "--target", "mips4", "--set", "classes.alu.latency=nan"],
                      invalid=True))
    return cases


TEXT_OPTIONS = [
    # (argv prefix, option, values, valid values)
    (BASE["train"] + ["--timeline", "t.svg"], "--timeline-window",
     ["nan:1", "0:inf", "1:nan", "-1:2", "2:1", "0:1e400", "1e308:1e309", "0:0", ":", "", "a:b", "0:1", "0:1e9",
      "1:2:3", "0x1:2", "-0:1", str(2**70) + ":" + str(2**71)], {"0:1", "-0:1", "0:1e9"}),
    (BASE["compare"] + ["--timeline", "t.svg"], "--timeline-window", ["nan:1", "0:1"], {"0:1"}),
    (["pipeline"], "--memory-limit",
     ["nan", "inf", "-1", "0", "1e400", "1e300", "4", "2.5", "", "abc", "20GiB", "1e-300", str(2**70), "5 GiB",
      "-0"], {"4", "2.5"}),
    (["pipeline", "--target", "h100-128x"], "--memory-limit", ["20GiB", "nan", "1e400GiB", "-1GiB", "0GiB",
                                                              "99999999TiB"], {"20GiB"}),
    (["pipeline", "--schedule", "auto"], "--memory-limit", ["1e300", "nan", "6"], {"6"}),
    (["pipeline"], "--unit-costs",
     ["F=1,F=2", "F=nan", "F=inf", "F=-1", "F=1e400", "F=" + str(2**70), "F=1e9", "F=2.5", "", "F", "=1", "X=1",
      "F=1,B=2,I=1,W=1,C=0", "F=1,,B=2", "f=1", "F=0,B=0", "C=1e18", "FB=1e30", "F=1" + ",F=1" * 1000],
     {"F=1,B=2,I=1,W=1,C=0", "f=1", "F=1,,B=2"}),
    (["pipeline", "--schedule", "dualpipev"], "--unit-costs", ["F=1,I=1,W=1,FB=2", "FB=-1", "FB=nan"],
     {"F=1,I=1,W=1,FB=2"}),
    (BASE["train"], "--group", ["dp=nan", "dp=inf", "dp=-1", "dp=0", "dp=1e400", "dp=" + str(2**70), "dp=1e9",
                                "dp=2.5", "", "dp", "=2", "dp=2", "nosuch=2", "dp=0x10", "dp=１２", "dp=2,tp=2",
                                "dp=999999999999"], {"dp=2", "nosuch=2"}),
    (["gen", "transformer", "--layers", "2", "--hidden", "256", "--heads", "4", "--seq", "128", "--tp", "2",
      "-o", "out.ir"], "--tp-comm-overlap",
     ["nan", "inf", "-1", "0", "1e400", str(2**70), "1e6", "2.5", "", "abc", "auto", "2", "1e0", "-0", "AUTO"],
     {"auto", "2", "1e0"}),
    (BASE["train"], "--tp-comm-overlap", ["nan", "1e6", "2", "auto", "-1"], {"2", "auto"}),
    (["run", "loop.ir"], "--set",
     ["n=nan", "n=inf", "n=-inf", "n=1e400", "n=" + str(2**70), "n=-" + str(2**70), "n=1e308", "n=", "n=abc",
      "=5", "n", "n=5", "n=-0", "n=0x10", "X=1,2,3", "X=" + ",".join(["1"] * 100000), "X=1,,2", "X=nan,1",
      "n=1e-400", "X=1e400,2", "n=5,", "nosuch=5", "n=1_000", "n=" + "9" * 5000], {"n=5", "X=1,2,3", "n=-0",
                                                                                   "n=0x10", "nosuch=5"}),
    (PLAN, "--fix",
     ["tp=nan", "tp=inf", "tp=" + str(2**70), "tp=0", "tp=-1", "pp=1e9", "microbatch=1e9", "zero=5",
      "recompute=foo", "recompute_layers=1e9", "virtual=1e6", "dp=3", "schedule=x", "overlap=1e9", "sp=2",
      "tp=2,tp=2", "", ",", "tp", "=2", "tp=2", "cp=1e9", "tp=1.5", "tp=2," * 500 + "pp=1", "nosuch=1"],
     {"tp=2"}),
    (["targets"], "--show", ["nosuch", "", "mips4.toml", "deep.toml", "/dev/null", ".", "x" * 5000], {"mips4.toml"}),
    (BASE["compare"], "--policies", ["nosuch", "", "fifo,fifo", ",", "fifo," * 1000 + "fifo"], set()),
]


def text_option_cases() -> list[Case]:
    cases = []
    for base, option, values, valid in TEXT_OPTIONS:
        for value in values:
            files = {"deep.toml": b"[target]\nx = " + b"[" * 1000 + b"]" * 1000 + b"\n"} if option == "--show" else {}
            cases.append(Case("text-option", base + [f"{option}={value}"], files, invalid=value not in valid))
    cases.append(Case("text-option", PLAN[:-2] + ["--ray", "10.255.255.1:6379"], invalid=True, slow=True))
    cases.append(Case("text-option", PLAN[:-2] + ["--ray", "nosuch.invalid:1"], invalid=True, slow=True))
    return cases


# -- machine models as files ------------------------------------------------------------------------------

def _replace_value(text: str, key: str, value: str) -> str | None:
    """*text* (TOML) with the value of the bare *key* on its first line replaced."""
    m = re.search(r"(?m)^(\s*" + re.escape(key) + r"\s*=\s*)([^#\n]*?)(\s*(#.*)?)$", text)
    if not m:  # in an inline table: params = { bandwidth = 64, startup = 200 }
        m = re.search(r"([{,]\s*" + re.escape(key) + r"\s*=\s*)([^,}#\n]*?)(\s*[,}])", text)
    if not m:
        return None
    return text[:m.start(2)] + value + text[m.end(2):]


TOML_VALUES = ["nan", "inf", "-inf", "-1", "0", "1e300", "1e400", str(2**70), "2.5", '"x"', "[]", "{}", "true",
               "1_000_000_000", "0x7fffffffffffffff"]


def toml_cases() -> list[Case]:
    cases = []
    s = seeds()
    targets = {"mips4.toml": (["p.ir"], ["issue_width", "latency", "war_latency", "waw_latency"]),
               "ascend.toml": (["k.ir"], ["issue_width", "bandwidth", "event_ids", "capacity", "startup"]),
               "h100.toml": (["step.ir"], ["peak_flops", "efficiency", "link_bw", "nodes", "devices_per_node",
                                           "contention", "launch_overhead", "comm_efficiency"]),
               "dgx.toml": (None, ["memory_capacity", "gemm_efficiency", "compute_units", "gemm_k_overhead",
                                   "memory_reserved", "attention_efficiency"])}
    for name, (prefix, keys) in targets.items():
        text = s[name].decode()
        for key in keys:
            for value in TOML_VALUES:
                new = _replace_value(text, key, value)
                if new is None:
                    continue
                argv = (prefix + ["--target", "m.toml"]) if prefix else (PLAN[:PLAN.index("--target")] + [
                    "--target", "m.toml", "--workers", "1"])
                cases.append(Case("toml", argv, {"m.toml": new.encode()}, invalid=not toml_value_valid(value, key),
                                  note=f"{name}: {key} = {value}"))
    mips = s["mips4.toml"]
    structural = {
        "deep-array": mips + b"\nx = " + b"[" * 1000 + b"1" + b"]" * 1000 + b"\n",
        "deep-array-100k": mips + b"\nx = " + b"[" * 100000 + b"]" * 100000 + b"\n",
        "deep-inline": mips + b"\nx = " + b"{a = " * 1000 + b"1" + b"}" * 1000 + b"\n",
        "deep-dotted": mips + b"\n[" + b".".join([b"a"] * 2000) + b"]\nx = 1\n",
        "deep-dotted-key": mips + b"\n" + b".".join([b"a"] * 2000) + b" = 1\n",
        "unterminated-string-at-end": mips + b'\nx = "abc',
        "unterminated-array-at-end": mips + b"\nx = [1, 2",
        "key-at-end": mips + b"\nx =",
        "bare-key-at-end": mips + b"\nx",
        "table-at-end": mips + b"\n[abc",
        "empty": b"",
        "binary": bytes(range(256)) * 4,
        "bad-utf8": mips.replace(b"lecture", b"lec\xffture", 1),
        "bad-utf8-at-end": mips + b"\n# \xe2\x82",
        "utf16": mips.decode().encode("utf-16"),
        "nul": mips.replace(b"\n", b"\n\x00", 1),
        "truncated-half": mips[:len(mips) // 2],
        "duplicate-key": mips + b"\n[target]\nname = 'x'\n",
        "formula-negative": mips.replace(b"latency = 3", b"latency = '1 - 5'", 1),
        "formula-deep": mips.replace(b"latency = 3", b"latency = '" + b"(" * 1000 + b"1" + b")" * 1000 + b"'", 1),
        "formula-long": mips.replace(b"latency = 3", b"latency = '" + b"+".join([b"1"] * 100000) + b"'", 1),
        "formula-inf": mips.replace(b"latency = 3", b"latency = '1e400'", 1),
        "formula-huge": mips.replace(b"latency = 3", b"latency = '" + b"9" * 5000 + b"'", 1),
        "formula-div0": mips.replace(b"latency = 3", b"latency = '1 / 0'", 1),
        "formula-call": mips.replace(b"latency = 3", b"latency = '__import__(\"os\")'", 1),
        "formula-pow": mips.replace(b"latency = 3", b"latency = '9 ** 9 ** 9'", 1),
        "formula-chain": mips.replace(b"latency = 3", b"latency = '" + b"*".join([b"99999999"] * 3000) + b"'", 1),
        "formula-unary": mips.replace(b"latency = 3", b"latency = '" + b"-" * 5000 + b"1'", 1),
        "units-many": mips.replace(b"[units]", b"[units]\n" + b"".join(b"U%d = 1024\n" % i for i in range(200)), 1),
        "classes-many": mips + b"".join(b"\n[classes.c%d]\nopcodes = ['x%d']\nunits = ['ALU']\nlatency = 1\n"
                                        % (i, i) for i in range(5000)),
        "long-line": mips + b"\n# " + b"x" * 2_000_000 + b"\n",
    }
    asc = s["ascend.toml"]
    structural["ascend-formula-negative"] = asc.replace(b'latency = "startup + occupancy"',
                                                        b'latency = "startup - occupancy * 1000"', 1)
    for name, text in structural.items():
        target = "m.toml"
        prefix = ["k.ir"] if name.startswith("ascend") else ["p.ir"]
        cases.append(Case("toml", prefix + ["--target", target], {target: text},
                          invalid=name not in ("long-line", "classes-many", "units-many"), note=name))
        if name in ("deep-array", "deep-inline", "unterminated-string-at-end", "empty", "bad-utf8", "formula-deep"):
            cases.append(Case("toml", ["targets", "--show", target], {target: text}, invalid=True))
            cases.append(Case("toml", ["deps", "p.ir", "--target", target], {target: text}, invalid=True))
    return cases


# -- front ends ---------------------------------------------------------------------------------------------

def _huge(n: int) -> str:
    return "9" * n


def frontend_texts() -> dict[str, tuple[bytes, bool]]:
    """name -> (file content, clearly invalid)."""
    s = seeds()
    out: dict[str, tuple[bytes, bool]] = {}
    rnd = random.Random(21)
    for name in ("p.ir", "loop.ir", "f.ll", "f.s"):
        text = s[name]
        stem, ext = name.rsplit(".", 1)
        for k in range(1, 10):
            out[f"{stem}-trunc{k}.{ext}"] = (text[:len(text) * k // 10], False)
        out[f"{stem}-empty.{ext}"] = (b"", False)
        out[f"{stem}-binary.{ext}"] = (bytes(rnd.randrange(256) for _ in range(4000)), True)
        out[f"{stem}-badutf8.{ext}"] = (text[:len(text) // 2] + b"\xff\xfe" + text[len(text) // 2:], True)
        out[f"{stem}-overlong.{ext}"] = (text + b"\n\xc0\xaf\n", True)
        out[f"{stem}-cut-char.{ext}"] = (text + b"\xe2\x82", True)
        out[f"{stem}-utf16.{ext}"] = (text.decode().encode("utf-16"), True)
        out[f"{stem}-nul.{ext}"] = (text.replace(b"\n", b"\n\x00", 1), True)
        out[f"{stem}-crlf.{ext}"] = (text.replace(b"\n", b"\r\n"), False)
        out[f"{stem}-cr.{ext}"] = (text.replace(b"\n", b"\r"), False)
        out[f"{stem}-longline.{ext}"] = (text + (b"; " if ext == "ll" else b"# ") + b"x" * 2_000_000 + b"\n", False)
        lines = text.splitlines(keepends=True)
        for k in range(6):
            i = rnd.randrange(len(lines))
            j = rnd.randrange(len(lines))
            mutated = lines[:i] + lines[j:j + 1] + lines[i + 1:]
            out[f"{stem}-swap{k}.{ext}"] = (b"".join(mutated), False)
            d = rnd.randrange(len(text))
            out[f"{stem}-del{k}.{ext}"] = (text[:d] + text[d + rnd.randrange(1, 20):], False)
    # .ir: numbers and nesting
    ir_head, ir_tail = b"func f(a, b) {\nentry:\n", b"  ret t\n}\n"
    for label, line, bad in [
        ("bigconst", f"t = a + {_huge(5000)}", True), ("inf", "t = a + 1e400", True),
        ("hex", "t = a + 0x" + "f" * 1000, True), ("offset", f"t = load A[a + {_huge(30)}]", True),
        ("scale", f"t = load A[{_huge(30)} * a]", True), ("attr", f"t = matmul a {{flops = {_huge(400)}}}", True),
        ("attr-inf", "t = matmul a {flops = 1e400}", True), ("attr-nan", "t = matmul a {flops = nan}", False),
        ("attr-unit", "t = matmul a {bytes = 99999999999TiB}", True), ("neg-zero", "t = a + -0", False),
        ("nested-attrs", "t = add a, b {x = " + "{" * 1000 + "}" * 1000 + "}", True),
        ("nested-brackets", "t = load " + "A[" * 1000 + "a" + "]" * 1000, True),
        ("nested-parens", "t = call g(" + "(" * 1000 + ")" * 1000 + ")", True),
        ("many-terms", "t = load A[" + " + ".join(["a"] * 50000) + "]", False),
        ("many-operands", "t = add " + ", ".join(["a"] * 50000), False),
        ("many-attrs", "t = add a, b {" + ", ".join(f"k{i} = 1" for i in range(20000)) + "}", False),
        ("long-name", "t" + "x" * 1_000_000 + " = a + b", False),
    ]:
        out[f"x-{label}.ir"] = (ir_head + line.encode() + b"\n" + ir_tail, bad)
    body = b"  t = a + b\n" * 100000
    out["x-100k-lines.ir"] = (ir_head + body + ir_tail, False)
    out["x-10k-funcs.ir"] = (b"".join(b"func f%d(a) {\nentry:\n  t = a + 1\n  ret t\n}\n" % i for i in range(10000)),
                             False)
    out["x-10k-blocks.ir"] = (b"func f(a) {\n" + b"".join(b"b%d:\n  t = a + 1\n" % i for i in range(10000))
                              + b"  ret t\n}\n", False)
    # .ll: types and numbers
    def ll(body: str, pre: str = "") -> bytes:
        return (pre + "define i32 @f(i32 %a, ptr %p) {\nentry:\n" + body + "  ret i32 %a\n}\n").encode()
    deep = "".join("[1 x " for _ in range(30000)) + "i32" + "]" * 30000
    for label, content, bad in [
        ("deep-type-30k", ll("", f"%T = type {deep}\n"), True),
        ("deep-type-1k", ll("", "%T = type " + "[1 x " * 1000 + "i32" + "]" * 1000 + "\n"), True),
        ("deep-struct", ll("", "%T = type " + "{ " * 1000 + "i32" + " }" * 1000 + "\n"), True),
        ("deep-alloca", ll("  %x = alloca " + "[1 x " * 5000 + "i32" + "]" * 5000 + "\n"), True),
        ("deep-vector", ll("", "%T = type " + "<1 x " * 1000 + "i32" + ">" * 1000 + "\n"), True),
        ("deep-call", ll("  %x = call i32 @g(" + "(" * 1000 + ")" * 1000 + ")\n"), True),
        ("big-int", ll(f"  %x = add i32 %a, {_huge(5000)}\n"), True),
        ("big-width", ll("  %x = add i4294967296 1, 2\n"), True),
        ("big-array", ll("  %x = alloca [1000000000000000000000 x i64]\n"), True),
        ("big-array-2", ll("  %x = alloca [4294967296 x [4294967296 x i64]]\n"), True),
        ("big-gep", ll("  %x = getelementptr [4 x i32], ptr %p, i64 0, i64 " + _huge(40) + "\n"
                       "  %y = load i32, ptr %x\n"), True),
        ("big-vector", ll("  %x = alloca <4294967296 x i32>\n"), True),
        ("big-align", ll("  %x = alloca i32, align " + _huge(30) + "\n"), True),
        ("float-inf", ll("  %x = fadd double 1.0e400, 1.0\n"), True),
        ("hex-float", ll("  %x = fadd double 0x" + "F" * 100 + ", 1.0\n"), True),
        ("many-phis", ll("  br label %b\nb:\n" + "".join(f"  %v{i} = phi i32 [ %a, %entry ], [ %v{i}, %b ]\n"
                                                          for i in range(2000)) + "  br label %b\n"), False),
        ("many-instrs", ll("".join(f"  %v{i} = add i32 %a, {i}\n" for i in range(30000))), False),
    ]:
        out[f"x-{label}.ll"] = (content, bad)
    # .s: numbers and nesting
    for label, line, bad in [
        ("big-imm", f"\taddi.d $a0, $a0, {_huge(5000)}", True),
        ("big-hex", "\tld.d $a0, $sp, 0x" + "f" * 100, True),
        ("nested-reloc", "\tpcalau12i $a0, " + "%pc_hi20(" * 1000 + "x" + ")" * 1000, True),
        ("many-operands", "\tadd.d $a0, " + ", ".join(["$a1"] * 50000), True),
        ("long-label", "x" * 1_000_000 + ":", False),
        ("directive-long", "\t.ascii \"" + "x" * 1_000_000 + "\"", False),
        ("many-lines", "\n".join(["\tadd.d $a0, $a0, $a1"] * 100000), False),
    ]:
        out[f"x-{label}.s"] = (f"f:\n{line}\n\tjr $ra\n".encode(), bad)
    return out


def frontend_cases() -> list[Case]:
    cases = []
    s = seeds()
    for name, (content, bad) in frontend_texts().items():
        ext = name.rsplit(".", 1)[1]
        target = "la464" if ext in ("ll", "s") else "mips4"
        cases.append(Case("frontend", [name, "--target", target], {name: content}, invalid=bad))
        if "trunc" in name or name.startswith("x-") or "binary" in name or "badutf8" in name:
            cases.append(Case("frontend", [name, "--target", target, "--pipeline"], {name: content}, invalid=bad))
        if name.startswith(("p-", "loop-")) or name.startswith("x-") and ext == "ir":
            cases.append(Case("frontend", ["deps", name, "--target", target], {name: content}, invalid=bad))
        if name.startswith("loop-") or name.startswith("x-") and ext == "ir":
            cases.append(Case("frontend", ["run", name], {name: content}, invalid=bad))
        if name.startswith(("p-", "f-")):
            orig = "p.ir" if ext == "ir" else f"f.{ext}"
            cases.append(Case("frontend", ["check", name, "--against", orig, "--target", target],
                              {name: content, orig: s[orig]}, invalid=bad))
            cases.append(Case("frontend", ["report", name, "--target", target, "-o", "r.html"], {name: content},
                              invalid=bad))
        if "trunc5" in name or "binary" in name:
            cases.append(Case("frontend", ["gap", "d", "--target", target], {f"d/{name}": content}, invalid=False))
    return cases


# -- other readers ---------------------------------------------------------------------------------------------

def import_cases() -> list[Case]:
    texts: dict[str, tuple[str | bytes, bool]] = {
        "ok.txt": ("0F0 0F1 0B0 0B1\n1F0 1B0 1F1 1B1\n", False),
        "ok.json": ('[["0F0", "0B0"], ["1F0", "1B0"]]', False),
        "deep.json": ("[" * 1000 + "]" * 1000, True),
        "deep100k.json": ("[" * 100000 + "]" * 100000, True),
        "deep-obj.json": ('[[{"a": ' * 1000 + "1" + "}" * 1000 + "]]", True),
        "nums.json": ("[[1e400, 2]]", True),
        "bigint.json": (f"[[{_huge(5000)}]]", True),
        "nan.json": ("[[NaN, Infinity]]", True),
        "obj.json": ('{"a": 1}', True),
        "str.json": ('"0F0"', True),
        "empty.json": ("[]", True),
        "empty-rows.json": ("[[]]", True),
        "trunc.json": ('[["0F0", "0B0"], ["1F', True),
        "trunc2.json": ('[["0F0",\n "0B0"],\n', True),
        "bad-action.json": ('[["0F0", "0Z0"]]', True),
        "null.json": ('[["0F0", null, "0B0"]]', False),
        "huge-mb.txt": (f"0F{_huge(30)} 0B{_huge(30)}\n", True),
        "huge-stage.txt": (f"{_huge(30)}F0\n", True),
        "big-mb.txt": ("0F100000000 0B100000000\n", True),
        "big-stage.txt": ("100000000F0 100000000B0\n", True),
        "neg.txt": ("0F-1\n", True),
        "ranks.txt": ("rank 0: 0F0 0B0\nrank 5: 1F0\n", True),
        "rank-huge.txt": (f"rank {_huge(5000)}: 0F0\n", True),
        "many-ranks.txt": ("".join(f"{r}F0 {r}B0\n" for r in range(20000)), False),
        "many-actions.txt": (" ".join(f"0F{m} 0B{m}" for m in range(50000)) + "\n", False),
        "empty.txt": ("", True),
        "comments.txt": ("# nothing\n", True),
        "binary.txt": (bytes(range(256)), True),
        "badutf8.txt": (b"0F0 0B0\xff\n", True),
        "overlap.txt": ("(0F1;1B0)OVERLAP_F_B\n", False),
        "overlap-deep.txt": ("(" * 1000 + "0F0" + ")" * 1000 + "OVERLAP_F_B\n", True),
        "long-token.txt": ("0F" + "0" * 1_000_000 + "\n", True),
    }
    cases = []
    for name, (text, bad) in texts.items():
        data = text.encode() if isinstance(text, str) else text
        cases.append(Case("import", ["pipeline", "--import", name], {name: data}, invalid=bad))
        if name in ("ok.txt", "deep.json", "big-mb.txt", "nums.json"):
            cases.append(Case("import", ["pipeline", "--import", name, "--target", "h100-128x"], {name: data},
                              invalid=bad))
    return cases


def answer_cases() -> list[Case]:
    s = seeds()
    good = s["deps.txt"].decode()
    variants = {
        "empty": ("", True), "comments": ("# nothing\n", True), "ok": (good, False),
        "binary": (bytes(range(256)), True), "badutf8": (good.encode() + b"\xff", True),
        "huge-index": (f"#{_huge(5000)} -> #1 RAW a\n", True), "neg-index": ("#-1 -> #1 RAW a\n", True),
        "nan": ("#0 -> #1 RAW a nan\n", True), "inf-weight": ("#0 -> #1 RAW a (+1e400)\n", True),
        "big-weight": (f"#0 -> #1 RAW a (+{_huge(5000)})\n", True), "garbage": ("hello world\n", True),
        "nested": ("#0 -> #1 RAW " + "(" * 1000 + "a" + ")" * 1000 + "\n", True),
        "long": ("#0 -> #1 RAW a\n" * 100000, True), "trunc": (good[:len(good) // 2], False),
        "crlf": (good.replace("\n", "\r\n"), False), "self": ("#0 -> #0 RAW a\n", True),
        "kind": ("#0 -> #1 XYZ a\n", True), "range": ("#0 -> #99 RAW a\n", True),
    }
    cases = []
    for name, (text, bad) in variants.items():
        data = text.encode() if isinstance(text, str) else text
        cases.append(Case("answer", ["deps", "deps.ir", "--target", "mips4", "--answer", f"{name}.txt"],
                          {f"{name}.txt": data, "deps.ir": s["deps.ir"]}, invalid=bad))
    return cases


def command_cases() -> list[Case]:
    """Each command with missing, wrong or odd arguments."""
    argvs = [
        ([], True), (["--version"], False), (["--help"], False), (["nosuch.ir"], True), (["-"], False),
        (["p.ir"], False), (["p.ir", "--target", "nosuch"], True), (["p.ir", "--target", ""], True),
        (["p.ir", "--target", "h100-8x"], True), (["step.ir", "--target", "mips4"], True),
        (["p.ir", "--target", "mips4", "--nosuch"], True), (["p.ir", "--target", "mips4", "-o", ""], True),
        (["p.ir", "--target", "mips4", "--lang", "ll"], True), (["dir", "--target", "mips4"], True),
        (["targets"], False), (["targets", "--show", "mips4"], False), (["targets", "extra"], True),
        (["gen"], True), (["gen", "nosuch"], True), (["train"], True), (["train", "p.ir", "--target", "h100-8x"], True),
        (["train", "step.ir"], True), (["train", "step.ir", "--target", "mips4"], True), (["compare"], True),
        (["compare", "step.ir", "--target", "h100-8x", "--policies", "fifo,ddp"], False), (["pipeline", "--import"], True),
        (["pipeline", "--import", "nosuch.txt"], True), (["pipeline", "--schedule", "nosuch"], True),
        (["pipeline", "--target", "mips4"], True), (["pipeline", "--target", "h100-8x", "--stages", "16"], True),
        (["plan"], True), (["plan", "nosuch", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"], True),
        (["plan", "transformer", "--gpus", "8", "--global-batch", "8", "--target", "dgx-h100"], True),
        (["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "h100-8x"], True),
        (["plan", "llama3-8b", "--gpus", "8", "--global-batch", "8", "--target", "mips4"], True),
        (["check"], True), (["check", "p.ir"], True), (["check", "p.ir", "--against", "nosuch.ir"], True),
        (["check", "p.ir", "--against", "loop.ir", "--target", "mips4"], True),
        (["check", "p.ir", "--against", "p.ir", "--target", "mips4"], False),
        (["report", "p.ir"], True), (["report", "p.ir", "-o", "r.txt"], False),
        (["report", "p.ir", "-o", "r.html", "--title", "x" * 100000], False),
        (["run"], True), (["run", "p.ir", "--function", "nosuch"], True), (["run", "loop.ir", "--max-steps", "1"], True),
        (["deps"], True), (["deps", "p.ir", "--block", "nosuch"], True), (["deps", "p.ir", "--answer", "nosuch"], True),
        (["gap"], True), (["gap", "nosuch"], True), (["gap", "p.ir"], False), (["gap", "empty"], False),
    ]
    cases = []
    for argv, bad in argvs:
        files = {"empty/.keep": b""} if "empty" in argv else {}
        if "dir" in argv:
            files = {"dir/a.ir": seeds()["p.ir"]}
        cases.append(Case("command", argv, files, invalid=bad))
    return cases


def generate() -> list[Case]:
    """Every case, in a fixed order; each gets the seed files it does not bring itself."""
    cases = (option_cases() + cluster_cases() + model_set_cases() + text_option_cases() + toml_cases()
             + frontend_cases() + import_cases() + answer_cases() + command_cases())
    base = seeds()
    base["dir/a.ir"] = base["p.ir"]
    base["dir/b.ir"] = base["loop.ir"]
    for case in cases:
        for name, data in base.items():
            case.files.setdefault(name, data)
    return cases

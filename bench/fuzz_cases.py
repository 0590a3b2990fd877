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
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_base import CLASSES, CPU_LIMIT, MEMORY_LIMIT, ROOT, Case, seeds  # noqa: E402,F401
from fuzz_files import answer_cases, command_cases, frontend_cases, import_cases  # noqa: E402

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
        "startup": (0, MAX_CYCLES, False, False),  # an Ascend copy's start-up: a fixed latency's bound
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

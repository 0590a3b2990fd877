"""``schedcc run FILE``: interpret a program and print its result."""

from __future__ import annotations

import argparse
import sys

from schedcc.commands.values import whole
from schedcc.errors import SchedccError, located
from schedcc.fileio import read_input
from schedcc.frontends.ir_text import parse, parse_number
from schedcc.sim.interp import format_result, run_program

HELP = "run a program with the IR interpreter and print its result"
DESCRIPTION = """\
Run a function of FILE with the IR interpreter and print the value it returns
and the final contents of every array, in a stable text form: two runs can be
compared with diff (this is how pipelined code is checked against the original).

Arguments not given with --set are filled from the seed: scalars as small
integers, arrays as N random integers (--array-size, default 64).

examples:
  schedcc run examples/loops/lecture_cj.ir --set MAX=10
  schedcc run prog.ir --function dot --set n=5 --set X=1,2,3,4,5 --seed 3"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="program in schedcc IR (.ir); '-' reads standard input")
    parser.add_argument("--function", "-f", metavar="F", help="function to run (default: main, else the first)")
    parser.add_argument("--seed", type=whole(0, 2**32 - 1, "a 32-bit seed"), default=0, help="seed for the arguments not set (default 0)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a parameter (NAME=5, NAME=2.5) or an array (NAME=1,2,3); repeatable")
    parser.add_argument("--array-size", type=whole(1, 1_000_000, "elements per array; every element is printed"),
                        default=64, metavar="N",
                        help="elements of every array not set (default 64)")
    parser.add_argument("--max-steps", type=whole(1, 20_000_000, "about 40 s of interpretation at 2 us a step"),
                        default=10_000_000, metavar="N",
                        help="stop after N instructions (default 10,000,000)")


def _value(text: str, option: str):
    import re
    from schedcc.frontends.ir_structure import NumberOutOfRange
    try:
        value = parse_number(text.strip().lstrip("+")) if not text.strip().startswith("-") \
            else -parse_number(text.strip()[1:])
    except NumberOutOfRange as err:
        raise SchedccError(f"--set {option}: {err}") from None
    except ValueError:
        raise SchedccError(f"--set {option}: '{text}' is not a number") from None
    mantissa = re.fullmatch(r"\s*[+-]?([0-9._]*)[eE].*", text)
    if value == 0 and mantissa and re.search(r"[1-9]", mantissa.group(1)):
        raise SchedccError(f"--set {option}: '{text}' is too small: it rounds to 0 (the smallest number is "
                           "about 5e-324)")
    return value


def parse_settings(items: list[str]) -> dict:
    out: dict = {}
    for item in items:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise SchedccError(f"--set '{item}': expected NAME=VALUE (NAME=5 or NAME=1,2,3)")
        if "," in value:
            out[name.strip()] = [_value(v, item) for v in value.split(",") if v.strip()]
        else:
            out[name.strip()] = _value(value, item)
    return out


def run(args: argparse.Namespace) -> int:
    if args.array_size < 0:
        raise SchedccError(f"--array-size must be at least 0, got {args.array_size}")
    text, name = read_input(args.file)
    with located(text, name):
        program = parse(text, name)
        result = run_program(program, args.function, parse_settings(args.set), seed=args.seed,
                             array_size=args.array_size, max_steps=args.max_steps)
    sys.stdout.write(format_result(result))
    return 0

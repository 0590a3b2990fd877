"""Fuzz: any mutation of real LLVM IR or LoongArch assembly either parses
(and then schedules and writes back) or fails with a located SchedccError;
never another exception."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedcc.driver import schedule_program
from schedcc.errors import SchedccError
from schedcc.frontends import parse_source

ROOT = Path(__file__).resolve().parent.parent
SEEDS = {
    "kernel.ll": (ROOT / "examples" / "frontends" / "kernel.ll").read_text(),
    "kernel.s": (ROOT / "examples" / "frontends" / "kernel.s").read_text(),
    "style.s": (ROOT / "tests" / "data" / "gcc_and_course_style.s").read_text(),
    "lightir.ll": (ROOT / "tests" / "data" / "lightir" / "gcd_array.ll").read_text(),
}
PIECES = [" ", ",", "%", "$", "@", "!", ":", "(", ")", "[", "]", "{", "}", "\n", "i32", "ptr", "0",
          "-1", "label", "ld.w", "$sp", "%x", "add", "store", "x", "\t", "#", ";", '"', ".L1:", "bl"]


@st.composite
def mutated(draw):
    name = draw(st.sampled_from(sorted(SEEDS)))
    text = SEEDS[name]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "dup-line"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.sampled_from(PIECES)) + text[i:]
        elif kind == "replace":
            text = text[:i] + draw(st.sampled_from(PIECES)) + text[j:]
        else:
            lines = text.splitlines(keepends=True)
            k = draw(st.integers(0, max(len(lines) - 1, 0)))
            text = "".join(lines[:k + 1] + lines[k:k + 1] + lines[k + 1:])
    return name, text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mutated())
def test_mutated_inputs_parse_or_fail_cleanly(case):
    name, text = case
    try:
        source = parse_source(text, name)
        result = schedule_program(source.program, "generic")
        out = source.render(result.scheduled_program())
    except SchedccError as err:
        rendered = err.render()
        assert "error:" in rendered
        if err.loc is not None:
            assert rendered.startswith(f"{name}:{err.loc.line}:")
        return
    assert sorted(out.splitlines()) == sorted(text.splitlines()) or name.endswith(".ll")

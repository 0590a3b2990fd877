"""Machine models: loading, validation errors that name file and key, attribute-dependent costs."""

import pytest

from schedcc import parse
from schedcc.errors import SchedccError
from schedcc.target import load_target, parse_target

MINIMAL = """\
[target]
name = "toy"
issue_width = 2

[units]
ALU = 2
MEM = { count = 1 }

[classes.alu]
opcodes = ["add", "sub", "v*"]
units = ["ALU"]
latency = 2

[classes.copy]
opcodes = ["copy"]
units = ["MEM"]
latency = 10
latency_per = { bytes = 64 }
occupancy_per = { bytes = 128 }
"""


def test_minimal_model():
    t = parse_target(MINIMAL, "toy.toml")
    assert t.units == ("ALU0", "ALU1", "MEM") and t.issue_width == 2
    assert t.op_class("vadd").name == "alu" and t.op_class("mul") is None
    instr = parse("x = copy a {bytes = 1KiB}\n").functions[0].blocks[0].instrs[0]
    assert t.class_of(instr).cost_of(instr) == (10 + 16, 1 + 8)


@pytest.mark.parametrize("edit,key,words", [
    (("issue_width = 2", "issue_width = 0"), "target.issue_width", "must be at least 1"),
    (("issue_width = 2", 'issue_width = "two"'), "target.issue_width", "expected an integer"),
    (('name = "toy"\n', ""), "target.name", "missing"),
    (('units = ["ALU"]', 'units = ["ALU9"]'), "classes.alu.units", "unknown unit 'ALU9'"),
    (("latency = 2", "latency = -1"), "classes.alu.latency", "must be from 0 to 1,000,000"),
    (("bytes = 64", "bytes = 0"), "classes.copy.latency_per.bytes", "expected a positive rate"),
    (('opcodes = ["copy"]', "opcodes = []"), "classes.copy.opcodes", "non-empty list"),
    (("ALU = 2", "ALU = 0"), "units.ALU", "count must be from 1 to 1,024"),
    (("ALU = 2", "ALU = 100000000"), "units.ALU", "count must be from 1 to 1,024"),
    (("latency = 2", "latency = 3000000000"), "classes.alu.latency", "must be from 0 to 1,000,000"),
    (("bytes = 64", "bytes = inf"), "classes.copy.latency_per.bytes", "out of range"),
    (("issue_width = 2", "issue_width = 100000"), "target.issue_width", "must be at most 1,024"),
])
def test_validation_errors_name_file_and_key(edit, key, words):
    text = MINIMAL.replace(*edit)
    with pytest.raises(SchedccError) as exc:
        parse_target(text, "toy.toml")
    err = exc.value
    # Issue 10: the error points at the line of the key (or of its table when the key is missing).
    assert err.message.startswith(f"key '{key}'") and words in err.message
    assert err.loc is not None and err.loc.file == "toy.toml"
    line = text.splitlines()[err.loc.line - 1]
    assert key.split(".")[-1] in line or line.startswith("[")


def test_toml_syntax_error_is_located():
    with pytest.raises(SchedccError) as exc:
        parse_target(MINIMAL.replace("issue_width = 2", "issue_width = = 2"), "toy.toml")
    err = exc.value
    assert err.loc is not None and err.loc.line == 3 and "invalid TOML" in err.message
    assert "issue_width = = 2" in err.render()


def test_target_by_path(tmp_path):
    path = tmp_path / "toy.toml"
    path.write_text(MINIMAL)
    assert load_target(str(path)).name == "toy"
    with pytest.raises(SchedccError) as exc:
        load_target(str(tmp_path / "missing.toml"))
    assert "cannot read machine model" in exc.value.message


def test_unknown_target_suggests():
    with pytest.raises(SchedccError) as exc:
        load_target("la46")
    assert "did you mean" in exc.value.notes[0] and "la464" in exc.value.notes[0]


def test_loongarch_numbers_from_the_issue():
    la464 = load_target("la464")
    expect = {"add.d": 1, "mul.w": 4, "div.w": 21, "div.d": 36, "ld.d": 4, "fld.d": 5, "fadd.d": 5,
              "fmul.d": 5, "fmadd.d": 5, "fdiv.s": 14, "fdiv.d": 20, "fsqrt.s": 22, "fsqrt.d": 36,
              "movgr2fr.d": 2}
    assert {op: la464.op_class(op).latency for op in expect} == expect
    assert dict(la464.op_class("div.w").also) == {"IDIV": 11}
    assert dict(la464.op_class("div.d").also) == {"IDIV": 20}
    assert la464.op_class("st.d").units == ("AGU0",)
    assert la464.op_class("ld.d").units == ("AGU0", "AGU1")
    la664 = load_target("la664")
    assert la664.issue_width == 6
    assert {op: la664.op_class(op).latency for op in ("mul.d", "div.w", "div.d", "fadd.d", "fmul.d")} == \
        {"mul.d": 4, "div.w": 19, "div.d": 32, "fadd.d": 3, "fmul.d": 5}
    # the IR's generic opcodes map onto the same classes
    assert la464.op_class("mul") is la464.op_class("mul.d") and la464.op_class("load") is la464.op_class("ld.d")

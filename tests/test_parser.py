"""The IR language: every documented form parses, printing round-trips, errors are located."""

import pytest

from schedcc import parse
from schedcc.errors import SchedccError
from schedcc.ir import Affine, Const, Label, Mem, Reg, Sym

ALL_FORMS = """\
# comments run from '#' or '//' to the end of the line
t0 = t1 + t2            # infix: + - * / % & | ^ << >> < <= > >= == !=
t3 = -t0                # unary minus
t4 = t3                 # copy
t5 = 0x1f               # constants: 42, 0x1f, 2.5, -7
$t2 = add $t0, $t1      # named opcode form: dst = OPCODE op, op, ...   (registers may carry $ or %)
%v = fma %a, %b, %c     # opcodes may contain dots: add.d, vec.add
a = load A[i]           # array access with an affine index: A[i], A[i+1], A[2*i-1], A[k]
b = A[i + 1]            # sugar for load
store B[i], a           # store; B[i] = a is sugar for it
p = load [q + 16]       # pointer form: base register + constant offset
store [q], p
y = mmad a, b, c {unit = cube, flops = 2.1e6}   # attributes: MLIR-style dictionary at line end;
r = allreduce g {bytes = 64MiB, group = dp}     # numbers may carry KiB MiB GiB KB MB GB us ms suffixes
nop                     # an instruction with no destination: OPCODE op, op, ...
"""


def instrs(text):
    return parse(text).functions[0].blocks[0].instrs


def test_all_issue_forms_parse():
    ins = instrs(ALL_FORMS)
    assert [i.opcode for i in ins] == ["add", "neg", "mov", "mov", "add", "fma", "load", "load", "store",
                                       "load", "store", "mmad", "allreduce", "nop"]
    assert ins[3].operands == (Const(31),)
    assert ins[4].dest == Reg("$t2")
    assert ins[7].operands == (Mem("A", Affine((("i", 1),), 1)),)
    assert ins[9].operands == (Mem(None, Affine((("q", 1),), 16)),)
    assert ins[11].attr("flops") == 2.1e6 and ins[11].attr("unit") == "cube"
    assert ins[12].attr("bytes") == 64 * 2**20 and ins[12].attr("group") == "dp"


@pytest.mark.parametrize("op,opcode", [("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"), ("%", "rem"),
                                       ("&", "and"), ("|", "or"), ("^", "xor"), ("<<", "shl"), (">>", "shr"),
                                       ("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge"), ("==", "eq"),
                                       ("!=", "ne")])
def test_every_infix_operator(op, opcode):
    (i,) = instrs(f"d = a {op} b\n")
    assert i.opcode == opcode and str(i) == f"d = a {op} b"


@pytest.mark.parametrize("text,value", [("42", 42), ("0x1f", 31), ("2.5", 2.5), ("-7", -7), ("1e9", 1e9)])
def test_constants(text, value):
    (i,) = instrs(f"d = {text}\n")
    assert i.operands == (Const(value),)


@pytest.mark.parametrize("index,terms,const", [("i", {"i": 1}, 0), ("i+1", {"i": 1}, 1), ("2*i-1", {"i": 2}, -1),
                                               ("k", {"k": 1}, 0), ("i*4 + j - 3", {"i": 4, "j": 1}, -3),
                                               ("-i + 2", {"i": -1}, 2), ("7", {}, 7)])
def test_affine_indices(index, terms, const):
    (i,) = instrs(f"x = load A[{index}]\n")
    assert i.operands[0] == Mem("A", Affine.of(terms, const))


@pytest.mark.parametrize("text,value", [("64MiB", 64 * 2**20), ("1KiB", 1024), ("2GB", 2e9), ("3KB", 3000),
                                        ("1GiB", 2**30), ("5us", 5.0), ("2ms", 2000.0), ("1.5MB", 1.5e6)])
def test_attribute_units(text, value):
    (i,) = instrs(f"x = op a {{v = {text}}}\n")
    assert i.attr("v") == value


def test_functions_blocks_branches_calls():
    prog = parse("""\
func f(a, n) {
entry:
  i = 0
  jmp loop
loop:
  x = load A[i]
  y = call g(x, 3)
  store A[i], y
  i = i + 1
  c = i < n
  br c, loop, done
done:
  ret y
}

func g(u, v) {
  w = u * v
  ret w
}
""")
    f, g = prog.functions
    assert [b.label for b in f.blocks] == ["entry", "loop", "done"]
    assert f.params == (Reg("a"), Reg("n"))
    assert f.block("loop").successors() == ("loop", "done")
    call = f.block("loop").instrs[1]
    assert call.operands[0] == Sym("g") and call.dest == Reg("y")
    assert f.block("loop").instrs[-1].operands[1:] == (Label("loop"), Label("done"))
    assert [b.label for b in g.blocks] == ["entry"]
    assert parse(str(prog)) == prog


def test_implicit_main_with_labels():
    prog = parse("a = 1\nnext:\nb = a + 1\n")
    f = prog.functions[0]
    assert f.name == "main" and [b.label for b in f.blocks] == ["entry", "next"]
    assert parse(str(prog)) == prog


def test_round_trip_all_forms():
    prog = parse(ALL_FORMS)
    assert parse(str(prog)) == prog


def test_fast_path_and_grammar_agree_on_all_forms():
    assert parse(ALL_FORMS, fast=False) == parse(ALL_FORMS)


def error_of(text, name="bad.ir"):
    with pytest.raises(SchedccError) as exc:
        parse(text, name)
    return exc.value


def test_syntax_error_has_location_caret_and_expected():
    err = error_of("t0 = t1 +\n")
    text = err.render()
    assert text.splitlines()[0] == "bad.ir:1:10: error: unexpected end of line"
    assert text.splitlines()[1] == "  t0 = t1 +"
    assert text.splitlines()[2] == "           ^"
    assert "expected one of" in text and "a name" in text


def test_unexpected_character():
    err = error_of("a = b @ c\n")
    assert (err.loc.line, err.loc.col) == (1, 7) and "unexpected character '@'" in err.message


@pytest.mark.parametrize("text,line,col,words", [
    ("func f() {\nentry:\n  br a, L1, L2\n}\n", 3, 9, "branch to undefined label 'L1'"),
    ("l:\nx = 1\nl:\n", 3, 1, "duplicate label 'l'"),
    ("x = load A\n", 1, 1, "malformed 'load'"),
    ("x = op a {k = 1, k = 2}\n", 1, 18, "attribute 'k' given twice"),
    ("func f() {\n  ret\n", 1, 6, "function 'f' is never closed"),
    ("x = 1\n}\n", 2, 1, "'}' without a function to close"),
    ("ret\nx = 1\n", 2, 1, "instruction after 'ret' needs a label"),
    ("func f() {\nx = 1\n}\ny = 2\n", 4, 1, "statement outside a function"),
    ("func f() {\n}\nfunc f() {\n}\n", 3, 6, "function 'f' is defined twice"),
    ("x = load [2*q]\n", 1, 11, "a pointer reference is [base] or [base + offset]"),
    ("x = load A[i + 0.5]\n", 1, 16, "an index or offset must be an integer"),
    ("x = op A[i], B[j]\n", 1, 1, "2 memory operands"),
    ("br c, L1\n", 1, 1, "malformed 'br'"),
])
def test_semantic_errors(text, line, col, words):
    err = error_of(text)
    assert words in err.message
    assert (err.loc.line, err.loc.col) == (line, col)
    assert err.render().startswith(f"bad.ir:{line}:{col}: error: ")


def test_close_label_is_suggested():
    err = error_of("func f() {\nentry:\n  jmp lop\nloop:\n  ret\n}\n")
    assert any("did you mean 'loop'" in n for n in err.notes)

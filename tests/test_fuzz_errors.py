"""Whatever the input, the parser and the scheduler either succeed or raise SchedccError: never a traceback."""

from hypothesis import given, settings
from hypothesis import strategies as st

from schedcc import parse
from schedcc.driver import schedule_program
from schedcc.errors import SchedccError

FRAGMENTS = ["t0", " = ", "+", "-", "*", "%", "%v", "$t1", "load", "store", "A[", "i", "]", "[", "q", "+ 16",
             ", ", "{", "}", "bytes = ", "64MiB", "0x1f", "2.5", "func", "f(", ")", " {", ":", "br", "jmp",
             "ret", "call", "L1", "\n", "\n", "\n", "#c", "//c", "@", "\"s\"", "1e", "-7", "nop", "entry:"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40))
def test_random_fragments_never_crash(parts):
    text = "".join(parts)
    try:
        program = parse(text, "fuzz.ir")
    except SchedccError as err:
        assert err.render().startswith(("fuzz.ir:", "error:"))
        return
    try:
        schedule_program(program, "generic")
    except SchedccError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_never_crashes(text):
    try:
        parse(text, "fuzz.ir")
    except SchedccError as err:
        assert "error:" in err.render()

"""--function and --block (issue 19): the library's selection and the command line's use of it."""

from pathlib import Path

import pytest

from schedcc.cli import main
from schedcc.driver import schedule_program
from schedcc.errors import SchedccError
from schedcc.frontends import parse_source
from schedcc.frontends.select import loop_labels, select

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _source(name: str):
    return parse_source((EXAMPLES / name).read_text(), name)


def test_names_as_the_compiler_wrote_them_with_or_without_llvms_sigils():
    prog = _source("loops/while_form.ll").program
    assert [f.name for f in prog.functions][:1] == ["@saxpy"]
    s = select(prog, ["saxpy"], ["%label_body"])
    assert s.functions == {"@saxpy"} and s.blocks == {"label_body"}
    assert select(prog, ["@saxpy"]).functions == {"@saxpy"}
    asm = _source("loops/while_form.s").program
    assert {b.label for f in asm.functions for b in f.blocks} >= {".saxpy_cond", ".saxpy_body", ".relu_exit"}


def test_an_unknown_name_lists_the_names_and_the_nearest():
    prog = _source("swp/kernels-O2.s").program
    with pytest.raises(SchedccError) as info:
        select(prog, ["horne"])
    assert info.value.message == "no function 'horne' in swp/kernels-O2.s"
    assert info.value.notes[-1] == "did you mean 'horner'?"
    with pytest.raises(SchedccError, match="no block 'zzz' in function dot") as info:
        select(prog, ["dot"], ["zzz"])
    assert not any("did you mean" in n for n in info.value.notes)


def test_a_loop_is_chosen_by_any_of_its_blocks():
    func = _source("loops/while_form.s").program.function("relu")
    labels = loop_labels(func, ".relu_cond")
    assert ".relu_cond" in labels and ".relu_exit" not in labels
    assert loop_labels(func, ".relu_exit") == {".relu_exit"}
    assert labels == loop_labels(func, sorted(labels - {".relu_cond"})[0])


def test_only_the_blocks_chosen_are_scheduled_and_the_rest_kept():
    src = _source("swp/kernels-O2.s")
    res = schedule_program(src.program, "la464", select=select(src.program, blocks=[".LBB1_2"]))
    assert [(r.function.name, r.block.label) for r in res.blocks] == [("dot", ".LBB1_2")]
    assert len(list(res.scheduled_program().blocks())) == len(list(src.program.blocks()))


def test_cli_exit_status_and_domains(tmp_path, capsys):
    s = str(EXAMPLES / "swp" / "kernels-O2.s")
    assert main([s, "--target", "la464", "--block", ".LBB9_2"]) == 2
    assert "no block '.LBB9_2'" in capsys.readouterr().err
    assert main([s, "--target", "la464", "--function", "dot", "--format", "json"]) == 0
    assert '"saxpy"' not in capsys.readouterr().out
    assert main([str(EXAMPLES / "ascend" / "vector_add.ir"), "--target", "ascend", "--function", "f"]) == 2
    assert "--function chooses blocks of an instruction program (a CPU target)" in capsys.readouterr().err
    out = tmp_path / "dot.s"
    assert main([s, "--target", "la464", "--pipeline", "--function", "dot", "-o", str(out)]) == 0
    text = out.read_text()
    assert ".LBB1_2.kernel:" in text
    assert ".LBB0_2.kernel" not in text and ".LBB2_2.kernel" not in text  # saxpy, stencil left as they were

"""The docstring examples of the teaching kit's modules run."""

import doctest
import importlib
import os

import pytest

MODULES = ["schedcc.viz.pipeline_diagram", "schedcc.viz.pipeline_svg", "schedcc.teaching.grading",
           "schedcc.teaching.deps_answer", "schedcc.report.html"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, root):
    os.chdir(root)  # some examples read examples/lecture.ir
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0

"""The examples in docstrings run (networkx-style docs: each algorithm shows a tiny example)."""

import doctest
import importlib
import os

import pytest

MODULES = ["schedcc", "schedcc.ir", "schedcc.target", "schedcc.dag", "schedcc.sched.priority",
           "schedcc.sched.list_scheduler", "schedcc.sched.bounds", "schedcc.verifier.block",
           "schedcc.sim.pipeline", "schedcc.frontends.ir_text", "schedcc.viz.timeline",
           "schedcc.viz.chrome_trace"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, root):
    os.chdir(root)  # some examples read examples/lecture.ir
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

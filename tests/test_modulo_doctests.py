"""The docstring examples of the modulo-scheduling modules run."""

import doctest
import importlib
import os

import pytest

MODULES = ["schedcc.loops", "schedcc.sched.mii", "schedcc.sched.modulo", "schedcc.sched.modulo_verify",
           "schedcc.sched.lifetimes", "schedcc.interp", "schedcc.pipeliner", "schedcc.loopgen"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, root):
    os.chdir(root)
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

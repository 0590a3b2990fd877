"""The docstring examples of the modulo-scheduling modules run."""

import doctest
import importlib
import os

import pytest

MODULES = ["schedcc.swp.loops", "schedcc.sched.mii", "schedcc.sched.modulo", "schedcc.verifier.modulo",
           "schedcc.sched.lifetimes", "schedcc.sim.interp", "schedcc.swp.pipeliner", "schedcc.swp.loopgen"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, root):
    os.chdir(root)
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

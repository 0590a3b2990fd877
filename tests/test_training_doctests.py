"""The examples in the training modules' docstrings run."""

import doctest
import importlib
import os

import pytest

MODULES = ["schedcc.training", "schedcc.training.api", "schedcc.training.costs", "schedcc.training.graph",
           "schedcc.training.policies", "schedcc.training.simulate", "schedcc.training.result",
           "schedcc.training.generator", "schedcc.training.pipeline", "schedcc.training.pipeline_graph",
           "schedcc.training.pipeline_import", "schedcc.viz.training"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, root):
    os.chdir(root)
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

"""schedcc ships its annotations (PEP 561): a type checker reading a program that imports it uses them."""

import importlib.resources
import inspect

import schedcc


def test_the_package_carries_the_py_typed_marker():
    assert (importlib.resources.files("schedcc") / "py.typed").is_file()


def test_the_public_functions_are_annotated():
    functions = [getattr(schedcc, name) for name in schedcc.__all__ if inspect.isfunction(getattr(schedcc, name))]
    assert functions
    for f in functions:
        sig = inspect.signature(f)
        assert sig.return_annotation is not inspect.Signature.empty, f.__name__
        assert all(p.annotation is not inspect.Parameter.empty for p in sig.parameters.values()
                   if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)), f.__name__

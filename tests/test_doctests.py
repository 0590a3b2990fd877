"""Every module's docstring examples run (networkx-style docs: each algorithm shows a tiny example).

One runner over every module of the package, found by walking it, so a new
module is covered without being listed. A module must show at least one
example, except packages (their ``__init__`` only re-exports) and the
command line (``schedcc.cli``, ``schedcc.commands``), which the lit tests
pin instead. Examples read files under the checkout (``examples/``), so each
runs from its root; ``monkeypatch`` restores the working directory.
"""

import doctest
import importlib
import pkgutil

import pytest

import schedcc

EXEMPT_PREFIXES = ("schedcc.commands", "schedcc.cli", "schedcc.__main__")


def _modules() -> list[tuple[str, bool]]:
    out = [("schedcc", True)]
    for info in pkgutil.walk_packages(schedcc.__path__, "schedcc."):
        if not info.name.startswith("schedcc.__main__"):
            out.append((info.name, info.ispkg))
    return sorted(out)


MODULES = _modules()


@pytest.mark.parametrize("name, is_package", MODULES, ids=[m for m, _ in MODULES])
def test_docstring_examples(name, is_package, root, monkeypatch):
    monkeypatch.chdir(root)
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:  # the optional extra schedcc[torch]
        if name.startswith("schedcc.torch.") and err.name == "torch":
            pytest.skip("torch is not installed (pip install 'schedcc[torch]')")
        raise
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    if not is_package and not name.startswith(EXEMPT_PREFIXES):
        assert result.attempted > 0, f"{name} shows no example in its docstrings"


def test_the_runner_sees_every_module(root):
    files = {p.relative_to(root).with_suffix("") for p in (root / "schedcc").rglob("*.py")}
    names = {".".join(p.parts[:-1] if p.name == "__init__" else p.parts) for p in files}
    assert names - {"schedcc.__main__"} == {m for m, _ in MODULES}

"""The layout rules of docs/architecture.md, checked on the code itself."""

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "schedcc"
MODULES = sorted(PACKAGE.rglob("*.py"))

# Bottom to top: a folder may import only folders of its own layer or below
# (docs/architecture.md, "What may import what").
LAYERS = [
    {"ir", "problem", "errors", "fileio", "resources", "_perf"},
    {"target"},
    {"frontends", "dag", "verifier"},
    {"sched", "sim"},
    {"swp", "ascend", "training", "torch"},
    {"driver", "planner"},
    {"emit", "viz", "report", "teaching"},
    {"commands", "cli", "__main__", "__init__"},
]
LAYER_OF = {name: k for k, names in enumerate(LAYERS) for name in names}


def _unit(path: Path) -> str:
    """The folder (or top-level module) a file belongs to."""
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path) -> set[str]:
    """Every schedcc module *path* imports, at the top or inside a function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("schedcc"):
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("schedcc"))
    return out


def _unit_of_module(module: str) -> str | None:
    parts = module.split(".")[1:]
    if not parts:
        return "__init__"
    if (PACKAGE / parts[0]).is_dir() or (PACKAGE / f"{parts[0]}.py").exists():
        return parts[0]
    return "__init__"  # a name from the package itself (schedcc.__version__)


def test_at_most_seven_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 7, top


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_over_500_lines(path):
    assert len(path.read_text().splitlines()) <= 500


def test_only_the_problem_type_touches_networkx_internals():
    users = [str(p.relative_to(ROOT)) for p in MODULES
             if any(f".{name}" in p.read_text() for name in ("_succ", "_pred", "_node", "_adj"))]
    assert users == ["schedcc/problem/graph.py"]


def test_the_target_loader_imports_no_domain_and_loads_no_code_by_name():
    for path in (PACKAGE / "target").glob("*.py"):
        text = path.read_text()
        assert "importlib" not in text and "__import__" not in text, path
        for module in _imports(path):
            assert _unit_of_module(module) in ("ir", "problem", "errors", "fileio", "resources", "target", "_perf"), \
                (path, module)


def test_layers_import_only_downwards_and_folders_form_no_cycle():
    graph = nx.DiGraph()
    wrong = []
    for path in MODULES:
        unit = _unit(path)
        for module in _imports(path):
            other = _unit_of_module(module)
            if other == unit or other is None:
                continue
            graph.add_edge(unit, other)
            if LAYER_OF[other] > LAYER_OF[unit]:
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not wrong, wrong
    cycles = [c for c in nx.simple_cycles(graph) if "__init__" not in c]
    assert not cycles, cycles

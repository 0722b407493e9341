"""The library's layering, read from its source with ast: mathtools/ is a set of modules, one per
concept, that never import the command line (cli.py), never import each other in a circle (an
import inside a function is an edge too: it only hides the circle from Python's start-up), say why
they import inside a function, and stay under 600 lines each."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SCRIPTS

LIBRARY = SCRIPTS / "mathtools"
MAX_LINES = 600


def _modules() -> dict[str, Path]:
    return {path.stem: path for path in sorted(LIBRARY.glob("*.py")) if path.stem != "__init__"}


def _imported_modules(node: ast.AST, known: set[str]) -> list[str]:
    """The library modules one import statement names (`from mathtools import a, b`,
    `from mathtools.a import x`, `from . import a`, `from .a import x`, `import mathtools.a`)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names if alias.name.startswith("mathtools.")]
        return [name.split(".")[1] for name in names if name.split(".")[1] in known]
    if not isinstance(node, ast.ImportFrom):
        return []
    module = node.module or ""
    if node.level == 0 and not (module == "mathtools" or module.startswith("mathtools.")):
        return []
    inside = module.removeprefix("mathtools").lstrip(".")
    if inside:
        head = inside.split(".")[0]
        return [head] if head in known else []
    return [alias.name for alias in node.names if alias.name in known]


def _imports(path: Path, known: set[str]) -> tuple[set[str], list[tuple[str, int]]]:
    """(modules imported at the top level, [(module, line) imported inside a function or class])."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: set[str] = set()
    for node in tree.body:
        top.update(_imported_modules(node, known))
    inner: set[tuple[str, int]] = set()
    for parent in ast.walk(tree):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(parent):
                inner.update((name, node.lineno) for name in _imported_modules(node, known))
    return top, sorted(inner)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        top, inner = _imports(path, known)
        graph[name] = (top | {module for module, _ in inner}) - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def test_no_library_module_imports_the_command_line():
    graph = _graph()
    assert (
        sorted(name for name, targets in graph.items() if "cli" in targets and name != "cli") == []
    )


def test_no_import_cycle_in_the_library():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_sees_a_cycle_through_a_function_level_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_every_import_inside_a_function_says_why():
    """An inner import is there for start-up time only; the comment on its line or the line
    above says so (otherwise it is a hidden cycle or an oversight)."""
    modules = _modules()
    silent = []
    for name, path in modules.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for module, line in _imports(path, set(modules))[1]:
            said = "#" in lines[line - 1] or lines[line - 2].strip().startswith("#")
            if not said:
                silent.append(f"{name}.py:{line} imports {module}")
    assert silent == []


def test_no_library_module_over_600_lines():
    long = {
        name: count
        for name, path in _modules().items()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}

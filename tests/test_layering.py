"""The library's architecture, read from its source with ast.

mathtools/ is a stack of wings (WINGS, bottom first), each a package of modules, one per concept:
- a module imports only its own wing and the wings below it: core imports no wing, a service
  client never imports the gate, nothing imports back up;
- the search phases (PHASES) stand side by side: none imports another, they share the search
  folder model (search/searchfolder.py) and the run store;
- cli.py imports core alone; no library module imports it, nor the package's __init__; no
  modules import each other in a circle (an import inside a function is an edge too: it only
  hides the circle from Python's start-up), every import inside a function says why, and no
  module reaches 600 lines;
- every wing's __init__ names its modules in __all__ and imports nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SCRIPTS

LIBRARY = SCRIPTS / "mathtools"
MAX_LINES = 600
WINGS = ("core", "services", "gate", "papers", "litdoc", "research", "search")
PHASES = ("search.discovery", "search.judging", "search.confirmation", "search.recording")


def _modules() -> dict[str, Path]:
    """Every library module by its dotted name below mathtools ("core.errors", "cli")."""
    modules = {}
    for path in sorted(LIBRARY.rglob("*.py")):
        parts = path.relative_to(LIBRARY).with_suffix("").parts
        if parts[-1] != "__init__":
            modules[".".join(parts)] = path
    return modules


def _package(module: str) -> str:
    return module.rsplit(".", 1)[0] if "." in module else ""


def _resolve(module: str, node: ast.ImportFrom | ast.Import, known: set[str]) -> list[str]:
    """The library modules one import statement in `module` names."""
    if isinstance(node, ast.Import):
        names = [alias.name.removeprefix("mathtools.") for alias in node.names]
        return [name for name in names if name in known]
    if node.level:
        base = _package(module).split(".") if _package(module) else []
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        prefix = ".".join([*base, *([node.module] if node.module else [])])
    elif node.module == "mathtools" or (node.module or "").startswith("mathtools."):
        prefix = (node.module or "").removeprefix("mathtools").lstrip(".")
    else:
        return []
    if prefix in known:
        return [prefix]
    found = []
    for alias in node.names:
        name = f"{prefix}.{alias.name}" if prefix else alias.name
        if name in known:
            found.append(name)
    return found


def _imports(module: str, path: Path, known: set[str]) -> tuple[set[str], list[tuple[str, int]]]:
    """(modules imported at the top level, [(module, line) imported inside a function or class])."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            top.update(_resolve(module, node, known))
    inner: set[tuple[str, int]] = set()
    for parent in ast.walk(tree):
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(parent):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    inner.update((name, node.lineno) for name in _resolve(module, node, known))
    return top, sorted(inner)


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        top, inner = _imports(name, path, known)
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


def _wing(module: str) -> str:
    return module.split(".")[0] if "." in module else ""


def test_every_library_module_lives_in_a_wing():
    loose = [name for name in _modules() if _wing(name) not in WINGS and name != "cli"]
    assert loose == []
    assert sorted(
        path.name for path in LIBRARY.iterdir() if path.is_dir() and path.name[0] != "_"
    ) == sorted(WINGS)


def test_every_wing_names_its_modules_and_imports_nothing():
    for wing in WINGS:
        init = LIBRARY / wing / "__init__.py"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), f"{wing}/__init__.py says nothing of its wing"
        assert not [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
        exported = next(
            ast.literal_eval(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__"
        )
        modules = sorted(path.stem for path in (LIBRARY / wing).glob("*.py"))
        assert sorted(exported) == [name for name in modules if name != "__init__"], wing


def test_a_wing_imports_only_itself_and_the_wings_below_it():
    upward = []
    for name, targets in _graph().items():
        rank = 0 if name == "cli" else WINGS.index(_wing(name))  # cli stands on core alone
        upward += [
            f"{name} -> {target}"
            for target in sorted(targets)
            if target == "cli" or WINGS.index(_wing(target)) > rank
        ]
    assert upward == []


def test_core_imports_no_wing_and_no_client_imports_the_gate():
    graph = _graph()
    assert {
        f"{n} -> {t}"
        for n, ts in graph.items()
        if _wing(n) == "core"
        for t in ts
        if _wing(t) != "core"
    } == set()
    assert {
        f"{n} -> {t}"
        for n, ts in graph.items()
        if _wing(n) == "services"
        for t in ts
        if _wing(t) == "gate"
    } == set()


def test_no_module_imports_the_package_itself():
    """`from .. import __version__` in core hid an import of mathtools/__init__ (and so of
    whatever it imports) from the wing rules: the package's __init__ is above every wing."""
    found = []
    for name, path in _modules().items():
        depth = name.count(".") + 1
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                (node.level == depth and not node.module)
                or (node.level == 0 and node.module == "mathtools")
            ):
                found += [f"{name} imports mathtools.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                found += [f"{name} imports mathtools" for a in node.names if a.name == "mathtools"]
    known = {module.rsplit(".", 1)[-1] for module in _modules()} | set(WINGS)
    assert [line for line in found if line.rsplit(".", 1)[-1] not in known] == []


def test_the_search_phases_stand_side_by_side():
    graph = _graph()
    chained = [
        f"{phase} -> {target}"
        for phase in PHASES
        for target in sorted(graph[phase])
        if target in PHASES
    ]
    assert chained == []


def test_the_layer_rule_sees_an_import_back_up():
    """The rule's own check, on a synthesized module that imports upward."""
    node = ast.parse("from ..search import discovery").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _resolve("core.text", node, set(_modules())) == ["search.discovery"]


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
        for module, line in _imports(name, path, set(modules))[1]:
            said = "#" in lines[line - 1] or lines[line - 2].strip().startswith("#")
            if not said:
                silent.append(f"{name}:{line} imports {module}")
    assert silent == []


def test_no_library_module_over_600_lines():
    long = {
        name: count
        for name, path in _modules().items()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}

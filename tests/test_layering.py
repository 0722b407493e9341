"""The library's architecture, read from its source with ast.

mathtools/ is a stack of wings (WINGS, bottom first), each a package of modules, one per concept:
- a module imports only its own wing and the wings below it: core imports no wing, a service
  client never imports the gate, nothing imports back up;
- the search phases (PHASES) stand side by side: none imports another, they share the search
  folder model (search/searchfolder.py) and the run store;
- cli.py imports core alone; no library module imports it, nor the package's __init__; no
  modules import each other in a circle (an import inside a function is an edge too: it only
  hides the circle from Python's start-up), every import inside a function says why;
- a module over SOFT_LINES lines gets a warning naming the seam to cut it at (seam(): the groups
  of its top-level definitions that do not use each other), and none may pass HARD_LINES;
- every wing's __init__ is its public face: the names other wings may use, declared once in an
  `if TYPE_CHECKING:` block of relative imports (what mypy reads), listed equal in __all__ and
  loaded lazily by core's face_attribute; it imports nothing else at run time, and no name on it
  is also a module's name;
- no two faces carry one name;
- another wing, cli.py, a script (plugin/scripts/*.py) and a hook import a wing only through its
  face (`from ..gate import Verifier`, `from mathtools.gate import Verifier`) and only names in
  its __all__; inside a wing, modules import their siblings directly;
- every name the library defines is used in plugin/ besides its definition (dead_names: vulture's
  check; what only tests, bench/ or tools/ use is dead), or a "# Kept:" comment says why not;
- the gate's front doors (THIN_SCRIPTS) stay thin.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import ROOT, SCRIPTS
from mathtools.core.faces import face_names

LIBRARY = SCRIPTS / "mathtools"
HOOKS = SCRIPTS.parent / "hooks"
# Over SOFT_LINES, a module is split at its seam (CONTRIBUTING.md, "Layout"): the test warns and
# names it. HARD_LINES only stops a module growing without bound while the split waits.
SOFT_LINES = 500
HARD_LINES = 800
WINGS = (
    "core",
    "bibliography",
    "services",
    "gate",
    "papers",
    "litdoc",
    "sandbox",
    "research",
    "search",
)
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
        elif prefix in WINGS and alias.name in _face(prefix):
            found.append(f"{prefix}.{_face(prefix)[alias.name]}")
    return found


def _face(wing: str) -> dict[str, str]:
    """{name: module} of a wing's face, as face_attribute reads it."""
    return face_names(importlib.import_module(f"mathtools.{wing}").__name__)


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


def _init(wing: str) -> ast.Module:
    return ast.parse((LIBRARY / wing / "__init__.py").read_text(encoding="utf-8"))


@pytest.mark.parametrize("wing", WINGS)
def test_every_wing_declares_its_face_once(wing):
    """__all__ lists exactly the TYPE_CHECKING block's names, each a name of one of the wing's
    modules (never a module's own name: the import system would put the module there); at run
    time the face imports face_attribute and nothing else, and answers with it."""
    tree = _init(wing)
    assert ast.get_docstring(tree), f"{wing}/__init__.py says nothing of its wing"
    runtime = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [(node.module, [a.name for a in node.names]) for node in runtime] == [
        ("typing", ["TYPE_CHECKING"]),
        ("faces" if wing == "core" else "core", ["face_attribute"]),
    ]
    declared = [
        line
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
        for line in node.body
    ]
    assert all(
        isinstance(line, ast.ImportFrom) and line.level == 1 and not line.names[0].asname
        for line in declared
    ), f"{wing}'s face: `from .module import name` lines only"
    names = _face(wing)
    exported = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__"
    )
    assert sorted(exported) == sorted([*names, *(["face_attribute"] if wing == "core" else [])])
    modules = {path.stem for path in (LIBRARY / wing).glob("*.py")}
    assert sorted(set(names) & modules) == []
    assert sorted({module for module in names.values()} - modules) == []
    hidden = [
        node.body
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "not TYPE_CHECKING"
    ]
    assert [n for n in tree.body if isinstance(n, ast.FunctionDef)] == [], (
        f"{wing}'s __getattr__ in mypy's sight: a typo'd face import would type-check"
    )
    getter = [n for body in hidden for n in body if isinstance(n, ast.FunctionDef)]
    assert [n.name for n in getter] == ["__getattr__"]
    assert ast.unparse(getter[0].body[-1]) == "return face_attribute(__name__, name)"


@pytest.mark.parametrize("wing", WINGS)
def test_every_name_on_a_face_is_the_object_its_module_defines(wing):
    package = importlib.import_module(f"mathtools.{wing}")
    for name, module in _face(wing).items():
        defined = importlib.import_module(f"mathtools.{wing}.{module}")
        assert getattr(package, name) is getattr(defined, name), f"{wing}.{name}"
    with pytest.raises(AttributeError, match="no_such_name"):
        package.no_such_name  # noqa: B018  # the attribute lookup is the test


def test_no_two_faces_carry_one_name():
    """A name means one thing across the library: a script that imports from two faces never
    meets two `load`s (the glossary's rule; an alias would only hide it)."""
    carriers: dict[str, list[str]] = {}
    for wing in WINGS:
        for name in _face(wing):
            carriers.setdefault(name, []).append(wing)
    assert {name: wings for name, wings in carriers.items() if len(wings) > 1} == {}


def _front_doors() -> list[tuple[str, Path]]:
    """The modules that are no wing's: cli, the scripts and the hooks."""
    doors = [("cli", LIBRARY / "cli.py")]
    return doors + [
        (f"script {p.name}", p) for p in sorted([*SCRIPTS.glob("*.py"), *HOOKS.glob("*.py")])
    ]


def _reaches(owner: str, node: ast.ImportFrom) -> str | None:
    """The dotted name below mathtools an import in `owner` (a library module, or "cli", or a
    front door outside the package) names, or None for an import outside the library."""
    if node.level:
        package = _package(owner).split(".") if owner in _modules() and _package(owner) else []
        package = package[: len(package) - (node.level - 1)] if node.level > 1 else package
        return ".".join([*package, *([node.module] if node.module else [])])
    if node.module and node.module.startswith("mathtools."):
        return node.module.removeprefix("mathtools.")
    return None


def _borrowed(owner: str, wing: str, path: Path) -> list[str]:
    """Each import in the file at `path` (of wing `wing`, "" for a front door) that reaches another
    wing other than through its face, or takes a name the face does not carry."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [
                f"{owner}:{node.lineno} imports {a.name}"
                for a in node.names
                if a.name.startswith("mathtools.") and _wing(a.name.split(".", 1)[1] + ".x") != wing
            ]
        if not isinstance(node, ast.ImportFrom) or (reached := _reaches(owner, node)) is None:
            continue
        target = reached.split(".")[0]
        if target not in WINGS or target == wing:
            continue
        if reached != target:
            found.append(f"{owner}:{node.lineno} imports {reached}, not the face {target}")
            continue
        exported = _face(target)
        found += [
            f"{owner}:{node.lineno} imports {target}.{a.name}, not on its face"
            for a in node.names
            if a.name not in exported or a.asname
        ]
    return found


def test_a_wing_is_imported_only_through_its_face():
    """No exemption: library modules of the other wings, cli, the scripts and the hooks."""
    borrowed = []
    for name, path in _modules().items():
        if name != "cli":
            borrowed += _borrowed(name, _wing(name), path)
    for name, path in _front_doors():
        borrowed += _borrowed(name if name == "cli" else "", "", path)
    assert borrowed == []


def test_the_face_rule_sees_a_module_import_and_a_name_off_the_face(tmp_path):
    """The rule's own check, on a synthesized module of litdoc reaching into the gate, and the
    layer rule's: a face import is an edge to the module that defines the name."""
    path = tmp_path / "synthesized.py"
    path.write_text(
        "from ..gate.verification import Verifier\nfrom ..gate import no_such_name\n",
        encoding="utf-8",
    )
    assert _borrowed("litdoc.synthesized", "litdoc", path) == [
        "litdoc.synthesized:1 imports gate.verification, not the face gate",
        "litdoc.synthesized:2 imports gate.no_such_name, not on its face",
    ]
    node = ast.parse("from ..gate import Verifier").body[0]
    assert isinstance(node, ast.ImportFrom)
    assert _resolve("litdoc.merging", node, set(_modules())) == ["gate.verification"]


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


class ModuleOverSoftBound(UserWarning):
    """A library module over SOFT_LINES lines: split it at the seam the warning names."""


def _definitions(body: list[ast.stmt]) -> dict[str, tuple[ast.stmt, int]]:
    """Each definition (function, class, assigned name) of a module's or a class's body by name:
    (node, lines)."""
    found: dict[str, tuple[ast.stmt, int]] = {}
    for node in body:
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = (node, lines)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = (node, lines)
    return found


def _groups(names: set[str], uses: dict[str, set[str]]) -> list[set[str]]:
    """The connected groups of `names`, two joined when one uses the other."""
    groups: list[set[str]] = []
    seen: set[str] = set()
    for start in sorted(names):
        if start in seen:
            continue
        group: set[str] = set()
        todo = [start]
        while todo:
            name = todo.pop()
            if name not in group:
                group.add(name)
                todo += [n for n in uses[name] if n in names and n not in group]
        seen |= group
        groups.append(group)
    return groups


def _calls(body: list[ast.stmt]) -> dict[str, set[str]]:
    """The definitions each definition of `body` uses: those its body names (a method:
    self.<name>)."""
    definitions = _definitions(body)
    calls: dict[str, set[str]] = {}
    for name, (node, _) in definitions.items():
        named = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        named |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
        calls[name] = (named & set(definitions)) - {name}
    return calls


def lower_part(body: list[ast.stmt]) -> set[str]:
    """The definitions that could move to a module of their own which the rest imports: all a
    definition uses, directly or not, when that uses nothing else here; of those, the one
    nearest half the lines, between a fifth and four fifths of them (else nothing)."""
    calls = _calls(body)
    lines = {name: size for name, (_, size) in _definitions(body).items()}
    total = sum(lines.values())
    best: set[str] = set()
    for start in sorted(calls):
        part, todo = set(), [start]
        while todo:
            name = todo.pop()
            if name not in part:
                part.add(name)
                todo += calls[name]
        size = sum(lines[n] for n in part)
        nearer = abs(size - total / 2) < abs(sum(lines[n] for n in best) - total / 2)
        if total / 5 <= size <= 4 * total / 5 and (not best or nearer):
            best = part
    return best


def seam(body: list[ast.stmt], shared_at_most: float = 0.25) -> tuple[list[set[str]], set[str]]:
    """Where a module (or a class: its body) splits: (the groups of its definitions that do not
    use each other, largest first; the definitions both sides use). Read with ast: a definition
    uses another when its body names it (a method: self.<name>). When everything hangs
    together, the most used small definitions (a helper, a constant) are set aside one by one,
    up to `shared_at_most` of them, until no group holds three quarters of the lines."""
    definitions = _definitions(body)
    uses = {name: set(used) for name, used in _calls(body).items()}
    for name, used in _calls(body).items():
        for other in used:
            uses[other].add(name)
    lines = {name: size for name, (_, size) in definitions.items()}
    total = sum(lines.values())
    small = max(total // 10, 5)  # a helper or a constant, not a part of its own
    names, shared = set(definitions), set()

    def size(group: set[str]) -> int:
        return sum(lines[n] for n in group)

    while True:
        groups = sorted(_groups(names, uses), key=lambda g: (-size(g), sorted(g)))
        if not groups or (len(groups) > 1 and size(groups[0]) <= 0.75 * total):
            return groups, shared
        hubs = [n for n in sorted(groups[0]) if lines[n] <= small]
        if len(groups[0]) < 3 or not hubs or len(shared) >= shared_at_most * len(definitions):
            return groups, shared
        hub = max(hubs, key=lambda n: len(uses[n] & groups[0]))
        names.discard(hub)
        shared.add(hub)


def _named(group: set[str], lines: dict[str, int], most: int = 4) -> str:
    """A part of a module: its biggest definitions, and its lines."""
    biggest = sorted(group, key=lambda n: (-lines[n], n))
    more = f" and {len(group) - most} more" if len(group) > most else ""
    return f"{', '.join(biggest[:most])}{more} ({sum(lines[n] for n in group)} lines)"


def _balanced_sides(body: list[ast.stmt]) -> str | None:
    """seam(body) in a line when its second part holds a fifth of the lines or more (the three
    biggest parts, and what they use in common), else None."""
    groups, shared = seam(body)
    lines = {name: size for name, (_, size) in _definitions(body).items()}
    if len(groups) < 2 or sum(lines[n] for n in groups[1]) < sum(lines.values()) / 5:
        return None
    used = f"; both use {', '.join(sorted(shared))}" if shared else ""
    return " | ".join(_named(g, lines) for g in groups[:3]) + used


def seam_text(source: str) -> str:
    """The seam of a module, in a line: its independent parts and what they share; else a
    lower part the rest could import (lower_part); else, for a class that is most of the
    module, the seam among its methods."""
    body = ast.parse(source).body
    lines = {name: size for name, (_, size) in _definitions(body).items()}
    sides = _balanced_sides(body)
    if sides:
        return sides
    lower = lower_part(body)
    if lower:
        rest = sum(lines.values()) - sum(lines[n] for n in lower)
        return (
            f"move {_named(lower, lines, 6)} out, as they use nothing else here, to a module "
            f"the rest ({rest} lines) imports"
        )
    for name, (node, size) in _definitions(body).items():
        if isinstance(node, ast.ClassDef) and size > sum(lines.values()) / 2:
            cut = f"class {name} holds {size} of its lines; cut it"
            sides = _balanced_sides(node.body)
            if sides:
                return f"{cut}: {sides}"
            lower = lower_part(node.body)
            if lower:
                methods = {n: size for n, (_, size) in _definitions(node.body).items()}
                return f"{cut}: move {_named(lower, methods, 6)} out, as they use no other method"
    return "no seam between its definitions: move a concept out whole"


def test_a_module_over_the_soft_bound_is_warned_with_its_seam():
    """Not a failure: a warning per module over SOFT_LINES, naming where to cut it."""
    for path in _modules().values():
        source = path.read_text(encoding="utf-8")
        count = len(source.splitlines())
        if count > SOFT_LINES:
            warnings.warn(
                ModuleOverSoftBound(
                    f"{path.relative_to(LIBRARY)}: {count} lines, over {SOFT_LINES}; "
                    f"split it at its seam: {seam_text(source)}"
                ),
                stacklevel=1,
            )


def test_the_seam_finder_splits_definitions_that_do_not_use_each_other():
    """The rule's own check, on synthesized modules: two families of functions and a helper
    both use; a function and the one it uses (a lower part); two that use each other."""
    source = (
        "LIMIT = 3\n"
        "def read(x):\n    return parse(x)[:LIMIT]\n"
        "def parse(x):\n    return x.split()\n"
        "def write(y):\n    return render(y)[:LIMIT]\n"
        "def render(y):\n    return ' '.join(y)\n"
    )
    groups, shared = seam(ast.parse(source).body)
    assert (groups, shared) == ([{"parse", "read"}, {"render", "write"}], {"LIMIT"})
    layered = "def top(x):\n    return low(x) + 1\ndef low(x):\n    y = x\n    return y * 2\n"
    assert lower_part(ast.parse(layered).body) == {"low"}
    knot = "def a():\n    return b()\ndef b():\n    return a()\n"
    assert seam(ast.parse(knot).body) == ([{"a", "b"}], set())


def test_no_library_module_over_the_hard_bound():
    long = {
        name: count
        for name, path in _modules().items()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > HARD_LINES
    }
    assert long == {}


def test_a_name_off_a_face_fails_type_checking(tmp_path):
    """A face's run-time __getattr__ is out of mypy's sight (`if not TYPE_CHECKING:`), so a typo
    in a face import is mypy's error, with its suggestion, not a silent `object`."""
    module = tmp_path / "typo_face.py"
    module.write_text("from mathtools.gate import Verifer\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", str(module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(ROOT / "plugin" / "scripts")},
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert 'has no attribute "Verifer"; maybe "Verifier"?' in run.stdout


@pytest.mark.parametrize(
    "hook", sorted(path.name for path in HOOKS.glob("*.py")), ids=lambda name: name
)
def test_faces_are_lazy_because_the_hooks_run_on_a_bare_python3(hook):
    """The reason faces load lazily (core/faces.py): a hook runs on the user's python3 before
    the plugin's environment exists, without filelock or requests, and imports a wing's face.
    Under -S (no site-packages) each hook's face imports work and pull in no dependency, while
    the module an eager core face would load first, core.locks, cannot even be imported."""
    tree = ast.parse((HOOKS / hook).read_text(encoding="utf-8"))
    imports = [
        f"from {node.module} import {', '.join(a.name for a in node.names)}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mathtools")
    ]
    assert imports, f"{hook} imports no wing: this test no longer says why faces are lazy"
    code = "\n".join(
        [
            "import sys",
            f"sys.path.insert(0, {str(SCRIPTS)!r})",
            *imports,
            "loaded = {m.split('.')[0] for m in sys.modules}",
            "print(sorted(loaded & {'filelock', 'requests', 'yaml', 'jsonschema', 'lxml'}))",
        ]
    )
    bare = [sys.executable, "-S", "-c"]
    run = subprocess.run([*bare, code], capture_output=True, text=True, cwd=ROOT)
    assert (run.returncode, run.stdout.strip()) == (0, "[]"), run.stderr
    eager = f"import sys; sys.path.insert(0, {str(SCRIPTS)!r}); import mathtools.core.locks"
    refused = subprocess.run([*bare, eager], capture_output=True, text=True, cwd=ROOT)
    assert "No module named 'filelock'" in refused.stderr


# ----------------------------------------------------------------------------- dead code
# vulture's check, by ast: a library name nothing in plugin/ uses is dead, even when a test, a
# bench or a tool uses it (they compute what they need, or call the library's real entry point).

KEPT = "# Kept:"  # a comment line right above a definition says why it stays unused in plugin/


def _defined(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    """A module's top-level names and its classes' public methods (as Class.method), each with
    the node that defines it."""
    found: list[tuple[str, ast.AST]] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.append((node.name, node))
        elif isinstance(node, ast.Assign):
            found += [(t.id, node) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.target.id, node))
        if isinstance(node, ast.ClassDef):
            found += [
                (f"{node.name}.{item.name}", item)
                for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not item.name.startswith("__")
            ]
    return [(name, node) for name, node in found if not name.startswith("__")]


def _used(node: ast.AST, face: bool) -> list[str]:
    """The names `node` uses: read as a name or an attribute, or imported (a face's imports are
    what it offers, not uses)."""
    used: list[str] = []
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Store):
            used.append(child.id)
        elif isinstance(child, ast.Attribute):
            used.append(child.attr)
        elif isinstance(child, ast.ImportFrom) and not face:
            used += [alias.name for alias in child.names]
    return used


def dead_names(files: dict[str, str], library: set[str]) -> list[str]:
    """`module: name` for each name the `library` files (of `files`: name -> source) define that
    no file uses outside its own definition, unless the comment block right above it opens with
    KEPT."""
    trees = {name: ast.parse(source) for name, source in files.items()}
    uses: dict[str, int] = {}
    for name, tree in trees.items():
        for used in _used(tree, face=name.endswith("__init__.py")):
            uses[used] = uses.get(used, 0) + 1
    dead = []
    for name in sorted(library):
        lines = files[name].splitlines()
        for defined, node in _defined(trees[name]):
            last = defined.rpartition(".")[2]
            own = _used(node, face=False).count(last)
            decorators = getattr(node, "decorator_list", None)
            if uses.get(last, 0) - own <= 0 and not _kept(lines, (decorators or [node])[0].lineno):
                dead.append(f"{name}: {defined}")
    return dead


def _kept(lines: list[str], line: int) -> bool:
    """Whether the comment block right above `line` (1-based) opens with KEPT."""
    block: list[str] = []
    above = line - 1
    while above >= 1 and lines[above - 1].strip().startswith("#"):
        block.insert(0, lines[above - 1].strip())
        above -= 1
    return bool(block) and block[0].startswith(KEPT)


def test_every_library_name_is_used_in_the_plugin():
    """Each top-level name and public method of mathtools/ is used by plugin/ (library, scripts,
    hooks) besides its own definition; names only tests, bench/ or tools/ use are dead."""
    plugin = SCRIPTS.parent
    files = {
        path.relative_to(plugin).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(plugin.rglob("*.py"))
    }
    library = {
        name
        for name in files
        if name.startswith("scripts/mathtools/") and not name.endswith("__init__.py")
    }
    assert dead_names(files, library) == []


def test_the_dead_name_finder_sees_names_only_their_definition_or_a_face_uses():
    """The rule's own check, on synthesized modules."""
    files = {
        "lib/a.py": (
            "LIMIT = 3\nUNUSED = 4\n# Kept: the reason\nKEPT_ONE = 5\n"
            "def loop(n):\n    return loop(n - 1)\n"
            "class Client:\n    def search(self):\n        return LIMIT\n"
            "    def unused(self):\n        return 1\n"
        ),
        "lib/__init__.py": "from .a import UNUSED\n",
        "script.py": "from lib.a import Client\nClient().search()\n",
    }
    assert dead_names(files, {"lib/a.py"}) == [
        "lib/a.py: UNUSED",
        "lib/a.py: loop",
        "lib/a.py: Client.unused",
    ]


THIN_SCRIPTS = ("check_refs.py", "verify_batch.py")  # the gate's front doors
THIN_LINES = 100


def test_the_gates_front_doors_are_thin():
    """check_refs.py and verify_batch.py parse their arguments, call one library function, print
    and exit (the run and its result are gate/refrun.py's and papers/checkrefs.py's): each, its
    --help included, within THIN_LINES lines."""
    long = {
        name: count
        for name in THIN_SCRIPTS
        if (count := len((SCRIPTS / name).read_text(encoding="utf-8").splitlines())) > THIN_LINES
    }
    assert long == {}

"""A wing's public face, loaded lazily: the names another wing may import from it.

Each wing's `__init__.py` declares its face once, as the relative imports of an
`if TYPE_CHECKING:` block (what mypy reads, so every name keeps its type), lists the same names
in `__all__`, and answers a name at run time with face_attribute(): the module that defines it
is imported only when the name is first asked for. The reason is the hooks: they run on the
user's bare `python3`, before the plugin's environment exists, and import faces (the research
wing's, core's); an eager face would import all its wing's modules, core.locks needs filelock, and
the hooks would crash. The face's `__getattr__` sits under `if not TYPE_CHECKING:`, so mypy sees
only the declared names: a typo'd face import is a type error, not an `object`.
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from pathlib import Path


@cache
def face_names(package: str) -> dict[str, str]:
    """{name: module} of a package's face: its `if TYPE_CHECKING:` block's `from .module import
    name` lines, read from its __init__.py."""
    init = Path(sys.modules[package].__file__ or "")
    names: dict[str, str] = {}
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name):
            if node.test.id != "TYPE_CHECKING":
                continue
            for line in node.body:
                if isinstance(line, ast.ImportFrom) and line.level == 1 and line.module:
                    names.update((alias.name, line.module) for alias in line.names)
    return names


def face_attribute(package: str, name: str) -> object:
    """The value of `name` on the face of `package` (a wing's __getattr__): imported from the
    module that defines it, and kept on the package so the next lookup is a plain attribute."""
    module = face_names(package).get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    # __import__, not importlib.import_module: `python -X importtime` sees only the former
    __import__(f"{package}.{module}")
    value = getattr(sys.modules[f"{package}.{module}"], name)
    setattr(sys.modules[package], name, value)
    return value

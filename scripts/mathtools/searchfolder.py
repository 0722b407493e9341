"""Where a literature run's working files live (which problem: problemdir.py).

Each literature search gets its own search folder
`.math/problems/<slug>/literature-runs/<N>/` (1, 2, ...) for the discovery and verification files
(never the plugin folder, which may be read-only and is shared by every workspace).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import BadInput
from .files import dumps, write_file


def new_search_folder(problem_folder: Path) -> Path:
    """Create and return a fresh search folder `problem_folder/literature-runs/<N>/`, N one more
    than the highest there, relative to the working directory when it lies below it. Short names
    on purpose: the model reads and types this path in every call of the search."""
    base = problem_folder / "literature-runs"
    base.mkdir(parents=True, exist_ok=True)
    taken = [int(p.name) for p in base.iterdir() if p.name.isdigit()]
    for number in range(max(taken, default=0) + 1, max(taken, default=0) + 100):
        folder = base / str(number)
        try:
            folder.mkdir()  # a concurrent plan took it: try the next number
            return shorter(folder)
        except FileExistsError:
            continue
    raise BadInput(f"cannot create a search folder under {base}", code="search_folder")


def write_json(path: Path, data: Any) -> None:
    write_file(path, dumps(data))


def shorter(path: Path) -> Path:
    """`path` relative to the working directory if it lies below it, else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path

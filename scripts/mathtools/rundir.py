"""Where a problem's files and a literature run's working files live.

A problem's files are in `.math/problems/<slug>/`. Each literature search gets its own run folder
`.math/problems/<slug>/literature-runs/<N>/` (1, 2, ...) for the discovery and verification files
(never the plugin folder, which may be read-only and is shared by every workspace).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from . import config
from .errors import BadInput
from .files import dumps, write_file

SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,79}")


def problem_dir(slug: str) -> Path:
    """`.math/problems/<slug>/` of the current workspace (the slug must be path-safe)."""
    if not SLUG.fullmatch(slug):
        raise BadInput(f"not a problem slug: {slug!r}", code="bad_slug")
    return config.math_dir() / "problems" / slug


def current_slug() -> str:
    """The current problem named in `.math/config.json`."""
    slug = config.workspace_config().get("current_problem")
    if not slug:
        raise BadInput(
            "no current problem in .math/config.json: name one, or create one with /math:problem",
            code="no_current_problem",
        )
    return str(slug)


def problem_file(problem: str) -> Path:
    """PROBLEM.md from a path (a file or its folder) or a slug of the current workspace."""
    path = Path(problem)
    if path.is_dir():
        path = path / "PROBLEM.md"
    if path.exists() or "/" in problem or problem.endswith(".md"):
        return path
    return problem_dir(problem) / "PROBLEM.md"


def new_run_dir(problem_folder: Path) -> Path:
    """Create and return a fresh run folder `problem_folder/literature-runs/<N>/`, N one more than
    the highest there, relative to the working directory when it lies below it. Short names on
    purpose: the model reads and types this path in every call of the run."""
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
    raise BadInput(f"cannot create a run folder under {base}", code="run_dir")


def write_json(path: Path, data: Any) -> None:
    write_file(path, dumps(data))


def shorter(path: Path) -> Path:
    """`path` relative to the working directory if it lies below it, else as it is."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path

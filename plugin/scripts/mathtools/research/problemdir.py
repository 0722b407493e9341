"""Which problem a script works on: `--problem SLUG`, `--dir PATH`, a PROBLEM.md path, or the
workspace's current problem (the one resolver; the slug rule is slugs.py's).

A problem lives in `<workspace>/.math/problems/<slug>/` with PROBLEM.md, LITERATURE.md, JOURNAL.md,
STATE.md, PROOF.md, COMPUTATION.md, OUTPUT.tex and references.bib.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from ..core import BadInput, check_slug, math_dir, workspace_config
from .workspaceread import Workspace

Parser = TypeVar("Parser", bound=argparse.ArgumentParser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--problem",
        metavar="SLUG",
        help="the problem's slug (default: current_problem in .math/config.json)",
    )
    parser.add_argument(
        "--dir", metavar="PATH", help="the problem folder itself (instead of --problem)"
    )


def parse_problem_command(
    parser: argparse.ArgumentParser,
    commands: argparse._SubParsersAction[Parser],
    argv: Sequence[str] | None,
) -> tuple[argparse.Namespace, str, Path]:
    """Parse a script with subcommands that each work on one problem: (args, slug, folder).

    Gives every subcommand --problem and --dir; make `commands` with `parser.add_commands()`.
    """
    for sub in commands.choices.values():
        add_arguments(sub)
    args = parser.parse_args(argv)
    return (args, *resolve(args.problem, args.dir))


def resolve(problem: str | None = None, directory: str | None = None) -> tuple[str, Path]:
    """(slug, folder) of the problem to work on: `directory` as given, else the workspace's active
    problem `problem` (default: its current problem), by the workspace's slug rules."""
    if directory:
        folder = Path(directory).resolve()
        if not folder.is_dir():
            raise BadInput(f"problem folder not found: {directory}", code="no_problem")
        return folder.name, folder
    if problem is not None:
        check_slug(problem)  # an unsafe slug is refused before anything is read
    space = Workspace.find()
    slug = space.resolve(problem)
    return slug, space.problem_dir(slug)


def problem_dir(slug: str) -> Path:
    """`.math/problems/<slug>/` of the current workspace (the slug must follow the slug rule)."""
    return math_dir() / "problems" / check_slug(slug)


def current_slug() -> str:
    """The current problem named in `.math/config.json`."""
    slug = workspace_config().get("current_problem")
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

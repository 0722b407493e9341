"""Which problem folder a research-loop script works on: `--problem SLUG`, `--dir PATH`, or the
workspace's current problem.

A problem lives in `<workspace>/.math/problems/<slug>/` with PROBLEM.md, LITERATURE.md, JOURNAL.md,
STATE.md, PROOF.md, COMPUTATION.md, OUTPUT.tex and references.bib.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from . import config
from .cli import BadInput

SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]*$")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--problem",
        metavar="SLUG",
        help="the problem's slug (default: current_problem in .math/config.json)",
    )
    parser.add_argument(
        "--dir", metavar="PATH", help="the problem folder itself (instead of --problem)"
    )


def parse(
    parser: argparse.ArgumentParser, commands: argparse._SubParsersAction, argv
) -> tuple[argparse.Namespace, str, Path]:
    """Parse a script with subcommands that each work on one problem: (args, slug, folder).

    Gives every subcommand --problem and --dir. Make `commands` with dest="command" and without
    required=True: argparse would then report a missing subcommand before an unknown option.
    """
    for sub in commands.choices.values():
        add_arguments(sub)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error(f"choose a subcommand: {', '.join(commands.choices)}")
    return (args, *resolve(args.problem, args.dir))


def resolve(problem: str | None = None, directory: str | None = None) -> tuple[str, Path]:
    """(slug, folder) of the problem to work on; the folder must exist."""
    if directory:
        folder = Path(directory).resolve()
        if not folder.is_dir():
            raise BadInput(f"problem folder not found: {directory}", code="no_problem")
        return folder.name, folder
    slug = problem or config.workspace_config().get("current_problem")
    if not slug:
        raise BadInput(
            "no problem given and no current problem in .math/config.json; "
            "pass --problem SLUG or --dir PATH, or start one with /math:problem",
            code="no_problem",
        )
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise BadInput(f"not a problem slug: {slug!r}", code="bad_slug")
    folder = config.math_dir() / "problems" / slug
    if not folder.is_dir():
        raise BadInput(f"problem {slug!r} not found: {folder} does not exist", code="no_problem")
    return slug, folder

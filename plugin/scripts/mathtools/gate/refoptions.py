"""What a /math:check-refs run is asked (RefsOptions: check_refs.py's options, their help and
their parsing) and what it gives (RefsRun). Imports nothing heavy: `check_refs.py --help` reads
no more.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core import CheckDocument

# --strict's level written with `=` (argparse's optional value would swallow the FILE after it)
STRICT_LEVELS = {"--strict=unconfirmed": "--strict", "--strict=corrected": "--strict-corrected"}


@dataclass(frozen=True)
class RefsOptions:
    """What a check-refs run is asked (check_refs.py's options, by the same names)."""

    files: Sequence[str] = ()  # the files, or one arXiv id or PDF
    cited_only: bool = False
    json: bool = False
    out: str | None = None
    report: str | None = None
    fix: str | None = None  # "": --fix alone (NAME.checked.bib beside the one .bib)
    strict: str | None = None  # "unconfirmed" (--strict) or "corrected" (--strict=corrected)
    decisions: bool = False
    adopt: str | None = None  # a corrected copy to adopt: nothing is checked
    use_cache: bool = True


@dataclass
class RefsRun:
    """What a run gives: its document (none for --adopt), what stdout shows, and why --strict
    fails it (exit 1; said on progress too), when it does."""

    document: CheckDocument | None
    output: str
    failure: str | None = None


def parse_refs_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> RefsOptions:
    """check_refs.py's options, added to `parser` and parsed from `argv` (a usage error, through
    the parser, for no FILE and nothing to adopt)."""
    # nargs="*", not "+": an unknown option is then reported before a missing FILE
    parser.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="a .bib, .bbl, .ltb, .tex or .pdf file, or one arXiv id or URL (arXiv:2405.16513)",
    )
    parser.add_argument(
        "--cited-only", action="store_true", help="check only the keys the .tex cites"
    )
    parser.add_argument("--json", action="store_true", help="print the full JSON, not the table")
    parser.add_argument("--out", metavar="FILE", help="write the full JSON to FILE")
    parser.add_argument("--report", metavar="FILE", help="write a Markdown report to FILE")
    parser.add_argument(
        "--fix",
        metavar="OUT.bib",
        nargs="?",
        const="",
        help="write a corrected copy of the .bib to OUT.bib (alone: NAME.checked.bib beside it, "
        "when there is one .bib and something to correct)",
    )
    parser.add_argument(
        "--strict",
        action="store_const",
        const="unconfirmed",
        help="exit 1 when any entry is UNCONFIRMED or pending, a cited key is missing, a cited "
        "statement is not found or nothing was checked (for CI, before submission); "
        "--strict=corrected: also when any entry is CORRECTED",
    )
    parser.add_argument("--strict-corrected", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--decisions",
        action="store_true",
        help="print only the rows that need a decision (UNCONFIRMED, CORRECTED, duplicates, "
        "missing, never cited, statements not found as numbered), each with its next step; "
        "the whole table goes to --report",
    )
    parser.add_argument(
        "--adopt",
        metavar="COPY.bib",
        help="make a corrected copy the .bib it corrects (the original kept as "
        "NAME.before-check-refs.bib; refused when the .bib changed after the copy was "
        "written); nothing is checked",
    )
    parser.add_argument("--no-cache", action="store_true", help="ask the APIs even when cached")
    args = parser.parse_args([STRICT_LEVELS.get(arg, arg) for arg in argv])
    if not args.files and not args.adopt:
        parser.error("give the .bib, .bbl, .ltb, .tex or .pdf file, or the arXiv id, to check")
    return RefsOptions(
        files=args.files,
        cited_only=args.cited_only,
        json=args.json,
        out=args.out,
        report=args.report,
        fix=args.fix,
        strict="corrected" if args.strict_corrected else args.strict,
        decisions=args.decisions,
        adopt=args.adopt,
        use_cache=not args.no_cache,
    )

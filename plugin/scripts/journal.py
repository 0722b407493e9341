#!/usr/bin/env python3
"""Keep a problem's research journal (JOURNAL.md): append entries, detect dead ends, validate.

Subcommands (each prints JSON):
  add       append an entry, numbered next in its category (LIT-001, PROOF-002, ...), and bring
            the frontmatter (total_entries, last_entry, strategies_tried) up to date; several
            in one call, each after `--and` (an option it does not give is the first entry's;
            none is written when one is refused)
  check     dead-end detection before an attempt: earlier FAILED or ABANDONED entries with the
            same strategy or two or more shared tags, and for each whether conditions changed
            since (newer LITERATURE.md references, PROOF.md steps, COMPUTATION.md results)
  validate  check a JOURNAL.md against the journal protocol
  taxonomy  the categories, outcomes and strategy types the journal accepts

Example:
  journal.py add --category LIT --strategy broad-survey --outcome SUCCEEDED \\
      --title "Initial survey of operator norm convergence" --tags operator-norm,banach-space \\
      --tried "5 queries across arXiv and Semantic Scholar" \\
      --reasoning "7 confirmed papers address the question directly" \\
      --artifacts LITERATURE.md --insight "Two schools: spectral methods and Neumann series" \\
      --agent literature-search
  journal.py check --strategy induction --tags spectral-radius,compact-operator

Every text option accepts '-' (read stdin) or '@FILE' (read a file) for long or multi-line text.
--problem defaults to the current problem in .math/config.json.

Exit codes: 0 ok (check: no blind retry), 1 validate found violations / check found a dead end
whose conditions have not changed (verdict "dead-end"), 2 bad input (unknown category, strategy
or outcome, empty insight, a malformed JOURNAL.md, which is then left untouched), 4 environment
(dependencies could not be installed, JOURNAL.md locked by another process), 5 internal error.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.dont_write_bytecode = True  # until ensure() sends it out of plugin/ (core/bootstrap.py)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mathtools.core import EXIT_OK, EXIT_VIOLATIONS, ensure  # noqa: E402

ensure()

from mathtools import cli  # noqa: E402
from mathtools.research import (  # noqa: E402
    ALL_STRATEGIES,
    CATEGORIES,
    DEAD_END_OUTCOMES,
    OUTCOMES,
    STRATEGIES,
    add,
    check_dead_ends,
    check_entry,
    journal_path,
    parse_tags,
    validate_journal,
)


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


TEXT_OPTIONS = ("title", "tried", "reasoning", "insight")  # each also '-' (stdin) or '@FILE'


def _add(entries: list[argparse.Namespace]) -> int:
    """Append each entry, in order, once all have passed the checks `add` makes (none is
    written when one is refused); acknowledge them by number, never echoing them back."""
    checked = [
        (entry, {name: cli.text_arg(getattr(entry, name)) for name in TEXT_OPTIONS})
        for entry in entries
    ]
    for entry, text in checked:
        check_entry(
            entry.category, entry.strategy, entry.outcome, text["title"], text["tried"],
            text["insight"],
        )  # fmt: skip
    acknowledged = []
    for entry, text in checked:
        added = add(
            problem=entry.problem,
            category=entry.category,
            strategy=entry.strategy,
            outcome=entry.outcome,
            tags=parse_tags(entry.tags),
            artifacts=_names(entry.artifacts),
            related=_names(entry.related),
            agent=entry.agent,
            timestamp=entry.timestamp,
            **text,
        )
        acknowledged.append(
            {
                "id": added["id"],
                "problem": added["problem"],
                "timestamp": added["entry"]["timestamp"],
                "total_entries": added["total_entries"],
            }
        )
    cli.acknowledge(acknowledged[0] if len(acknowledged) == 1 else acknowledged)
    return EXIT_OK


def main(argv: Sequence[str]) -> int | None:
    parser = cli.ArgumentParser(description=__doc__)
    sub = parser.add_commands()
    strategies = ", ".join(ALL_STRATEGIES)

    add_command = sub.add_parser(
        "add",
        help="append an entry",
        description="Append a journal entry. --title, --tried, --reasoning and --insight also "
        "take '-' (stdin) or '@FILE'.",
    )
    add_command.add_argument("--problem", metavar="SLUG", help="default: the current problem")
    add_command.add_argument("--category", required=True, help=", ".join(CATEGORIES))
    add_command.add_argument("--strategy", required=True, help=f"one of: {strategies}")
    add_command.add_argument("--outcome", required=True, help=", ".join(OUTCOMES))
    add_command.add_argument("--title", required=True, help="one line: what this attempt was")
    add_command.add_argument(
        "--tags", default="", help="comma-separated: operator-norm,banach-space"
    )
    add_command.add_argument(
        "--tried", required=True, help="what was tried (queries, proof idea, code)"
    )
    add_command.add_argument("--reasoning", default="", help="why the outcome is what it is")
    add_command.add_argument("--artifacts", default="", help="files produced, comma-separated")
    add_command.add_argument("--related", default="", help="files consulted, comma-separated")
    add_command.add_argument(
        "--insight", required=True, help="what this taught (required, non-empty)"
    )
    add_command.add_argument("--agent", default="user", help="who made the attempt (default: user)")
    add_command.add_argument("--timestamp", help="ISO 8601 time of the attempt (default: now)")

    chk = sub.add_parser("check", help="dead-end detection before trying a strategy")
    chk.add_argument("--problem", metavar="SLUG", help="default: the current problem")
    chk.add_argument("--strategy", required=True, help="the strategy about to be tried")
    chk.add_argument("--tags", default="", help="the planned attempt's tags, comma-separated")

    val = sub.add_parser("validate", help="check a JOURNAL.md")
    where = val.add_mutually_exclusive_group()
    where.add_argument("--problem", metavar="SLUG", help="default: the current problem")
    where.add_argument("--file", help="a JOURNAL.md anywhere")

    sub.add_parser("taxonomy", help="categories, outcomes and strategy types")

    if argv[:1] == ["add"] and "--and" in argv:  # several entries, one call
        groups: list[list[str]] = []
        group: list[str] = []
        for word in [*argv[1:], "--and"]:
            if word != "--and":
                group.append(word)
                continue
            first = groups[0] if groups else []  # an option not given again is the first's
            groups.append([*first, *group])
            group = []
        return _add([parser.parse_args(["add", *words]) for words in groups])
    args = parser.parse_args(argv)
    if args.command == "add":
        return _add([args])
    if args.command == "check":
        found = check_dead_ends(args.strategy, parse_tags(args.tags), problem=args.problem)
        cli.emit(found)
        return EXIT_VIOLATIONS if found["verdict"] == "dead-end" else EXIT_OK
    elif args.command == "validate":
        path = Path(args.file) if args.file else journal_path(args.problem)[1]
        validation = validate_journal(path)
        cli.emit(validation)
        return EXIT_OK if validation["valid"] else EXIT_VIOLATIONS
    else:
        result = {
            "categories": CATEGORIES,
            "outcomes": OUTCOMES,
            "dead_end_outcomes": DEAD_END_OUTCOMES,
            "strategies": STRATEGIES,
        }
    cli.emit(result)
    return EXIT_OK


if __name__ == "__main__":
    cli.run(main)

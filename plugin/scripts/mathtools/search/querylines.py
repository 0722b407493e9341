"""The query line: the one-line form of a search script's call (`arxiv --all "fixed
point" --domain analysis`) that the run store records and a later plan compares against (the
incremental rule: never re-run an identical query), and the short Query Summary LITERATURE.md's
Search History shows for it.
"""

from __future__ import annotations

import re
import shlex
from itertools import pairwise
from pathlib import Path

from ..core import QUERY_LINE_WORDS, fold, read_text, split_frontmatter, split_sections, stem

# Options a query line leaves out, and whether each takes a value.
LEFT_OUT = {
    "--max-results": True, "--limit": True, "--rows": True, "--out": True, "--no-cache": False,
    "--relax": False,
}  # fmt: skip


# The options whose values are a query line's search words.
TEXT_OPTIONS = ("--query", "--all", "--title", "--abstract", "--author")


OPTION_WITH_VALUE = re.compile(r"(?<!\S)(--[a-z][a-z-]*)=")  # `--query=` in a query line


SUMMARY_CHARS = 160  # a Search History Query Summary, at most (then "(+N more)")


def query_line(source: str, args: list[str]) -> str:
    """The one-line form of a search script's call recorded in Search History and the run store:
    `arxiv --all "fixed point" --domain analysis` for `arxiv_query.py search --all 'fixed point'
    --domain analysis --max-results 5 --out F`. The `search` subcommand, result counts (the same
    query with more results is the same query), --out and --no-cache are left out, and so is
    '|', so that a query line fits a table cell. `--query=-abc` and `--query -abc` give one
    query line."""
    shown, skip = [], False
    for arg in split_options(args[1:] if args[:1] == ["search"] else args):
        if skip:
            skip = False
        elif arg in LEFT_OUT:
            skip = LEFT_OUT[arg]
        else:
            shown.append(f'"{arg}"' if " " in arg or "'" in arg else arg)  # shlex reads it back
    return f"{QUERY_LINE_WORDS[source]} {' '.join(shown)}".replace("|", "/")


def query_line_terms(line: str) -> list[tuple[str, str]] | None:
    """The (option, search words) pairs of a query line: `arxiv --all "fixed point" --domain
    analysis` -> [("--all", "fixed point")]; None for text that is not a query line (a refined query
    recorded as typed)."""
    words = line.strip().split(maxsplit=1)
    if len(words) != 2 or words[0] not in QUERY_LINE_WORDS.values():
        return None
    try:
        tokens = split_options(shlex.split(words[1]))
    except ValueError:
        return None
    return [(option, value) for option, value in pairwise(tokens) if option in TEXT_OPTIONS]


def readable_query(line: str) -> str:
    """What a query line searched, for a person: `"distribution testing" tolerant` for `arxiv
    --title "distribution testing" --abstract tolerant --domain probability`, `by Canonne` for
    an author search; the query line itself when it has no search words (a category browse)."""
    terms = query_line_terms(line)
    if terms is None:
        return " ".join(line.split())
    shown = [
        ("by " if option == "--author" else "") + (f'"{value}"' if " " in value else value)
        for option, value in terms
    ]
    return " ".join(shown) or " ".join(line.split()[1:]) or line.strip()


def query_summary(
    lines: list[str], notes: dict[str, str] | None = None, width: int = SUMMARY_CHARS
) -> str:
    """A short Search History Query Summary for a search's query lines: each search's words
    once (case ignored), with its note in parentheses (`notes`: query line -> how an empty search
    was relaxed), '; '-joined, cut after `width` characters with "(+N more)". The full query lines
    stay in the run store, which is what later plans compare against."""
    items: list[str] = []
    for line in lines:
        item = readable_query(line)
        if notes and notes.get(line):
            item += f" ({notes[line]})"
        if item and fold(item) not in {fold(known) for known in items}:
            items.append(item)
    summary = ""
    for shown, item in enumerate(items):
        longer = f"{summary}; {item}" if summary else item
        if summary and len(longer) > width:
            return f"{summary}; (+{len(items) - shown} more)"
        summary = longer
    return summary


def normalise_query_line(line: str) -> str:
    """How two recorded queries are compared: case, quotes, whitespace and the spelling of an
    option's value (`--query=x`, as query lines recorded before query_line() split it, or
    `--query x`) do not count."""
    line = OPTION_WITH_VALUE.sub(r"\1 ", fold(line))
    return " ".join(line.replace("'", " ").replace('"', " ").split())


def query_key(line: str) -> str:
    """How a plan tells two of its queries apart: normalise_query_line, with each word's plural
    folded and the words in any order (`--all high --all dimension` and `--all dimensions --all
    high` ask one thing: arXiv ANDs them)."""
    return " ".join(sorted(stem(word) for word in normalise_query_line(line).split()))


def split_options(args: list[str]) -> list[str]:
    """The arguments with every `--name=value` written as `--name`, `value` (option() writes
    either spelling; a query line shows one)."""
    arguments = []
    for arg in args:
        name, equals, value = arg.partition("=")
        arguments += [name, value] if equals and name.startswith("--") else [arg]
    return arguments


def searched_query_lines(literature: Path | None) -> set[str]:
    """Normalised query lines from LITERATURE.md's Search History (empty when there is none).

    A row's Query Summary may hold query lines separated by '; ' (a summary given with
    `lit_update.py merge --query-summary`, or an older file); merges from the run store write a
    readable summary instead, and store.stored_query_lines gives their query lines."""
    if literature is None or not literature.exists():
        return set()
    body = split_frontmatter(read_text(literature, "LITERATURE.md"), str(literature))[1]
    history = split_sections(body).get("search history", "")
    lines: set[str] = set()
    for line in history.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0].lower() == "date":
            continue
        lines.update(normalise_query_line(part) for part in cells[1].split(";") if part.strip())
    return lines

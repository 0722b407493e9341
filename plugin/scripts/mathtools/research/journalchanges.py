"""Adding to JOURNAL.md (its format, entries and validation: journalread.py): `add` appends one
entry, numbered next in its category, under the file's lock, and brings the frontmatter index up
to date; `journal_path` finds a problem's JOURNAL.md."""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from ..core import BadInput, atomic_write, instantiate, locked, stamp, with_frontmatter
from .journalread import (
    CATEGORIES,
    FIELDS,
    OUTCOMES,
    STRATEGIES,
    EntryBrief,
    EntryTime,
    check_strategy,
    parse,
    read_journal,
)
from .workspaceread import Workspace

# The rows of the taxonomy each category's entries take their strategy from.
CATEGORY_KINDS = {
    "PROOF": ("proof", "general"),
    "LIT": ("literature", "general"),
    "COMP": ("computation", "general"),
}

NONE = "(none)"


class Added(TypedDict):
    id: str
    problem: str
    path: str
    total_entries: int
    entry: EntryBrief


def _one_line(name: str, value: str) -> str:
    if "\n" in value.strip():
        raise BadInput(f"{name} must fit on one line", code="bad_entry")
    return " ".join(value.split())


def _value(text: str | None) -> str:
    """A field's text as written into the file: continuation lines indented by two spaces."""
    lines = (text or "").strip().splitlines() or [NONE]
    return "\n".join(
        [lines[0].strip(), *(f"  {line}" if line.strip() else "" for line in lines[1:])]
    )


def _links(names: list[str]) -> str:
    return ", ".join(f"[{name}]({name})" for name in names) if names else NONE


def render_entry(entry_id: str, title: str, values: dict[str, str]) -> str:
    lines = [f"### {entry_id}: {title}"]
    lines += [f"- **{label}:** {_value(values.get(key))}" for key, label in FIELDS]
    return "\n".join(lines) + "\n"


def journal_path(problem: str | None) -> tuple[str, Path]:
    workspace = Workspace.find()
    slug = workspace.resolve(problem)
    return slug, workspace.problem_dir(slug) / "JOURNAL.md"


def check_entry(
    category: str, strategy: str, outcome: str, title: str, tried: str, insight: str
) -> str:
    """BadInput unless these make a journal entry `add` records; the title on one line. A call
    that writes another file with its entry checks it first, so that neither is written alone."""
    if category not in CATEGORIES:
        raise BadInput(
            f"unknown category {category!r}; use one of {', '.join(CATEGORIES)}", "bad_category"
        )
    check_strategy(strategy)
    kinds = CATEGORY_KINDS.get(category)
    if kinds and not any(strategy in STRATEGIES[kind] for kind in kinds):
        allowed = ", ".join(s for kind in kinds for s in STRATEGIES[kind])
        raise BadInput(
            f"a {category} entry's strategy is one of {allowed}; {strategy!r} names another "
            "kind of work",
            "bad_strategy",
        )
    if outcome not in OUTCOMES:
        raise BadInput(
            f"unknown outcome {outcome!r}; use one of {', '.join(OUTCOMES)}", "bad_outcome"
        )
    if not insight or not insight.strip():
        raise BadInput(
            "the insight must not be empty: say what this attempt taught", "empty_insight"
        )
    if not tried or not tried.strip():
        raise BadInput("say what was tried (--tried)", code="bad_entry")
    title = _one_line("the title", title)
    if not title:
        raise BadInput("the entry needs a title", code="bad_entry")
    return title


def add(
    *,
    category: str,
    strategy: str,
    outcome: str,
    title: str,
    tried: str,
    insight: str,
    problem: str | None = None,
    tags: list[str] | None = None,
    reasoning: str = "",
    artifacts: list[str] | None = None,
    related: list[str] | None = None,
    agent: str = "user",
    timestamp: str | None = None,
) -> Added:
    """Append one entry, numbered next in its category, and bring the frontmatter index up to
    date. A journal with problems other than a stale index is left untouched (BadInput)."""
    title = check_entry(category, strategy, outcome, title, tried, insight)
    when = EntryTime.parse(timestamp) if timestamp else None
    if timestamp and (when is None or not when.precise):
        raise BadInput(f"timestamp {timestamp!r} is not an ISO 8601 date and time", "bad_timestamp")
    slug, path = journal_path(problem)
    with locked(path):
        if not path.exists():
            fresh = instantiate(
                "JOURNAL.md", {"title": slug}, {}, {"problem": slug, "created": stamp()}
            )
            atomic_write(path, fresh)
        journal = read_journal(path)
        if journal.violations:
            first = journal.violations[0]
            where = f" (line {first['line']})" if first["line"] else ""
            raise BadInput(
                f"{path} has {len(journal.violations)} problem(s), first{where}: "
                f"{first['message']}; fix it (journal.py validate lists them all); the file was "
                "not changed",
                code="journal_invalid",
            )
        entry_id = journal.next_id(category)
        values = {
            "timestamp": str(when) if when else stamp(),
            "agent": _one_line("the agent", agent) or "user",
            "strategy": strategy,
            "tags": "[" + ", ".join(tags or []) + "]",
            "tried": tried,
            "outcome": outcome,
            "reasoning": reasoning,
            "artifacts": _links(artifacts or []),
            "related": _links(related or []),
            "insight": insight,
        }
        text = render_entry(entry_id, title, values)
        body = journal.body.rstrip("\n") + "\n\n" + text
        updated = parse(with_frontmatter(journal.meta, body), path)
        index = updated.index()
        atomic_write(path, with_frontmatter({**journal.meta, **index}, body))
        added = updated.entries[-1].brief()
    return {
        "id": entry_id,
        "problem": slug,
        "path": str(path),
        "total_entries": index["total_entries"],
        "entry": added,
    }

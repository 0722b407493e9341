"""JOURNAL.md, what was tried on a problem, what came of it and what it taught, as read: the entry
format, the strategy taxonomy, the entries parsed into typed records, and everything wrong with a
file (entries are added by journalchanges.py).

An entry is a `### CATEGORY-NNN: title` heading followed by one bullet per field::

    ### LIT-001: Initial survey of operator norm convergence results
    - **Timestamp:** 2026-02-10T14:30:00Z
    - **Agent:** literature-search
    - **Strategy type:** broad-survey
    - **Tags:** [operator-norm, banach-space]
    - **What was tried:** 5 queries across arXiv and Semantic Scholar
    - **Outcome:** SUCCEEDED
    - **Reasoning:** Found 7 confirmed papers on the question
    - **Artifacts produced:** [LITERATURE.md](LITERATURE.md)
    - **Related files:** [PROBLEM.md](PROBLEM.md)
    - **Insight/Takeaway:** The literature splits into spectral and Neumann-series methods.

A value running over several lines continues on lines indented by two spaces. Entries are
numbered per category and only ever appended; the frontmatter keeps `total_entries`, `last_entry`
and `strategies_tried` (an index of the PROOF entries by strategy), which journalchanges.py's
`add` recomputes from the entries every time. deadends.py reads it for earlier dead ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path
from typing import TypedDict

from ..core import FRONTMATTER_FENCE, BadInput, parse_stamp, read_text, split_frontmatter, stamp

CATEGORIES = {
    "PROOF": "proof attempts",
    "LIT": "literature searches",
    "COMP": "computations",
    "NOTE": "observations and decisions",
}
OUTCOMES = ("SUCCEEDED", "FAILED", "PARTIAL", "ABANDONED", "IN_PROGRESS")
DEAD_END_OUTCOMES = ("FAILED", "ABANDONED")
# The fixed strategy taxonomy, grouped by the kind of work it names.
STRATEGIES: dict[str, tuple[str, ...]] = {
    "literature": ("broad-survey", "targeted-search", "citation-chase"),
    "proof": (
        "direct",
        "contradiction",
        "contrapositive",
        "induction",
        "strong-induction",
        "construction",
        "reduction",
        "case-analysis",
        "counterexample",
        "extremal",
        "probabilistic",
        "pigeonhole",
        "diagonalization",
        "compactness",
        "invariant",
        "generalization",
        "specialization",
        "analogy",
    ),
    "computation": (
        "numerical-experiment",
        "symbolic-computation",
        "exhaustive-search",
        "counterexample-search",
        "simulation",
    ),
    "general": ("observation", "decision", "reformulation"),
}
ALL_STRATEGIES = tuple(s for group in STRATEGIES.values() for s in group)

# (key, label) in the order an entry lists them; the required ones must be present and non-empty.
FIELDS = (
    ("timestamp", "Timestamp"),
    ("agent", "Agent"),
    ("strategy", "Strategy type"),
    ("tags", "Tags"),
    ("tried", "What was tried"),
    ("outcome", "Outcome"),
    ("reasoning", "Reasoning"),
    ("artifacts", "Artifacts produced"),
    ("related", "Related files"),
    ("insight", "Insight/Takeaway"),
)
REQUIRED = ("timestamp", "strategy", "tried", "outcome", "insight")
LABEL_KEYS = {label: key for key, label in FIELDS}

ENTRY_HEADING = re.compile(r"^### (?P<category>[A-Z]+)-(?P<number>\d{3,}): (?P<title>\S.*)$")
FIELD_LINE = re.compile(r"^- \*\*(?P<label>[^*]+?):\*\*[ \t]?(?P<value>.*)$")
ISO_DATE = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
)


def parse_tags(raw: str | list[str] | None) -> list[str]:
    """Tags as the journal and PROBLEM.md keep them: lowercase, hyphenated, unique, in order."""
    items = raw.split(",") if isinstance(raw, str) else list(raw or [])
    tags: list[str] = []
    for item in items:
        tag = re.sub(r"\s+", "-", str(item).strip().lower())
        if tag and tag not in tags:
            tags.append(tag)
    return tags


class Violation(TypedDict):
    """One thing wrong with a JOURNAL.md: where (line, entry id; None: the file), what kind
    (entry, structure, index) and what."""

    line: int | None
    entry: str | None
    kind: str
    message: str


class EntryBrief(TypedDict):
    """An entry as the scripts print it."""

    id: str
    title: str
    strategy: str
    outcome: str
    tags: list[str]
    timestamp: str | None
    insight: str


class StrategyTried(TypedDict):
    entries: list[str]
    last_outcome: str | None


class JournalIndex(TypedDict):
    """The frontmatter fields `add` keeps in sync with the entries."""

    total_entries: int
    last_entry: str | None
    strategies_tried: dict[str, StrategyTried]  # the PROOF entries by strategy


class Validation(TypedDict):
    path: str
    valid: bool
    entries: int
    by_category: dict[str, int]
    violations: list[Violation]


def work_of(strategy: str) -> str:
    """The kind of work a strategy names: its STRATEGIES group ("" for a name outside them)."""
    return next((kind for kind, names in STRATEGIES.items() if strategy in names), "")


def check_strategy(strategy: str) -> str:
    if strategy not in ALL_STRATEGIES:
        groups = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in STRATEGIES.items())
        raise BadInput(f"unknown strategy {strategy!r}; the taxonomy is {groups}", "bad_strategy")
    return strategy


@dataclass(frozen=True)
class EntryTime:
    """A journal entry's timestamp (or an attempt's, a file's date) as written, with or without a
    time: `precise` is False for a bare date, which is compared by day only."""

    moment: datetime
    precise: bool

    @classmethod
    def parse(cls, value: object) -> EntryTime | None:
        if isinstance(value, datetime):
            moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
            return cls(moment, True)
        if isinstance(value, date):
            return cls(datetime.combine(value, time(), timezone.utc), False)
        match = ISO_DATE.search(str(value or ""))
        if match is None:
            return None
        try:
            moment = parse_stamp(match.group(0))
        except ValueError:
            return None
        return cls(moment, len(match.group(0)) > len("2026-01-01"))

    def after(self, other: EntryTime) -> bool:
        if self.precise and other.precise:
            return self.moment > other.moment
        return self.moment.date() > other.moment.date()

    def __str__(self) -> str:
        if not self.precise:
            return self.moment.date().isoformat()
        return stamp(self.moment)


@dataclass
class JournalEntry:
    category: str
    number: int
    title: str
    line: int
    fields: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.category}-{self.number:03d}"

    @property
    def strategy(self) -> str:
        return self.fields.get("strategy", "")

    @property
    def outcome(self) -> str:
        return self.fields.get("outcome", "")

    @property
    def tags(self) -> list[str]:
        return parse_tags(self.fields.get("tags", "").strip().strip("[]"))

    @property
    def when(self) -> EntryTime | None:
        return EntryTime.parse(self.fields.get("timestamp"))

    def brief(self) -> EntryBrief:
        when = self.when
        return {
            "id": self.id,
            "title": self.title,
            "strategy": self.strategy,
            "outcome": self.outcome,
            "tags": self.tags,
            "timestamp": str(when) if when else self.fields.get("timestamp"),
            "insight": self.fields.get("insight", ""),
        }


def is_dead_end(entry: JournalEntry, work: str) -> bool:
    """Whether `entry` is a dead end for an attempt of that kind of `work` (a STRATEGIES group):
    FAILED or ABANDONED, by a strategy of the same work or a general one (or one outside the
    taxonomy, whose work nobody can tell). A literature search that found nothing is no dead end
    of a proof, nor a failed proof one of a computation."""
    done = work_of(entry.strategy)
    return entry.outcome in DEAD_END_OUTCOMES and done in (work, "general", "")


@dataclass
class Journal:
    path: Path
    meta: dict[str, object]
    body: str
    entries: list[JournalEntry]
    violations: list[Violation]

    def index(self) -> JournalIndex:
        """The frontmatter fields `add` keeps in sync with the entries."""
        tried: dict[str, StrategyTried] = {}
        for entry in self.entries:
            if entry.category == "PROOF" and entry.strategy:
                slot = tried.setdefault(entry.strategy, {"entries": [], "last_outcome": None})
                slot["entries"].append(entry.id)
                slot["last_outcome"] = entry.outcome or None
        return {
            "total_entries": len(self.entries),
            "last_entry": self.entries[-1].id if self.entries else None,
            "strategies_tried": tried,
        }

    def index_violations(self) -> list[Violation]:
        return [
            _violation(
                None,
                None,
                f"frontmatter {key} is {self.meta.get(key)!r}, should be {value!r}",
                kind="index",
            )
            for key, value in self.index().items()
            if self.meta.get(key) != value
        ]

    def next_id(self, category: str) -> str:
        numbers = [e.number for e in self.entries if e.category == category]
        return f"{category}-{max(numbers, default=0) + 1:03d}"


def _violation(line: int | None, entry: str | None, message: str, kind: str = "entry") -> Violation:
    return {"line": line, "entry": entry, "kind": kind, "message": message}


def parse(text: str, path: Path) -> Journal:
    """Read a JOURNAL.md into entries and the list of everything wrong with it (never raises)."""
    violations: list[Violation] = []
    try:
        meta, body = split_frontmatter(text, path.name)
    except BadInput as exc:
        return Journal(path, {}, text, [], [_violation(1, None, exc.message, kind="structure")])
    if not text.startswith(FRONTMATTER_FENCE + "\n"):
        violations.append(_violation(1, None, "the journal has no frontmatter", "structure"))
    offset = text[: len(text) - len(body)].count("\n")
    entries: list[JournalEntry] = []
    current: JournalEntry | None = None
    key: str | None = None
    blanks: list[str] = []
    for n, line in enumerate(body.splitlines(), start=offset + 1):
        if line.startswith("### ") or line.startswith("## "):
            current, key = None, None
            if line.startswith("### "):
                current = _entry_heading(line, n, entries, violations)
            continue
        if current is None:
            continue
        if not line.strip():
            blanks.append("")
            continue
        match = FIELD_LINE.match(line)
        if match:
            key = LABEL_KEYS.get(match["label"].strip(), match["label"].strip())
            if key in current.fields:
                violations.append(_violation(n, current.id, f"field {match['label']!r} repeated"))
            current.fields[key] = match["value"].strip()
        elif key is not None and line.startswith("  "):
            current.fields[key] += "\n" + "\n" * len(blanks) + line[2:]
        else:
            key = None  # prose a person wrote into the entry: kept, not a field
        blanks = []
    for entry in entries:
        violations.extend(_entry_violations(entry))
    violations.extend(_numbering_violations(entries))
    return Journal(path, meta, body, entries, violations)


def _entry_heading(
    line: str, n: int, entries: list[JournalEntry], violations: list[Violation]
) -> JournalEntry | None:
    match = ENTRY_HEADING.match(line)
    if match is None:
        violations.append(
            _violation(
                n,
                None,
                f"not an entry heading ('### CATEGORY-NNN: title'): {line!r}",
                kind="structure",
            )
        )
        return None
    entry = JournalEntry(match["category"], int(match["number"]), match["title"].strip(), n)
    if entry.category not in CATEGORIES:
        violations.append(
            _violation(
                n,
                entry.id,
                f"unknown category {entry.category!r}; use one of {', '.join(CATEGORIES)}",
                kind="structure",
            )
        )
    if any(e.id == entry.id for e in entries):
        violations.append(_violation(n, entry.id, f"{entry.id} appears twice", kind="structure"))
    entries.append(entry)
    return entry


def _entry_violations(entry: JournalEntry) -> list[Violation]:
    found = []
    labels = dict(FIELDS)
    for key in REQUIRED:
        if not entry.fields.get(key, "").strip():
            found.append(_violation(entry.line, entry.id, f"missing or empty {labels[key]!r}"))
    if entry.strategy and entry.strategy not in ALL_STRATEGIES:
        found.append(_violation(entry.line, entry.id, f"unknown strategy {entry.strategy!r}"))
    if entry.outcome and entry.outcome not in OUTCOMES:
        found.append(_violation(entry.line, entry.id, f"unknown outcome {entry.outcome!r}"))
    if entry.fields.get("timestamp") and entry.when is None:
        found.append(
            _violation(
                entry.line,
                entry.id,
                f"timestamp {entry.fields['timestamp']!r} is not an ISO 8601 date",
            )
        )
    return found


def _numbering_violations(entries: list[JournalEntry]) -> list[Violation]:
    found = []
    seen: dict[str, int] = {}
    for entry in entries:
        expected = seen.get(entry.category, 0) + 1
        if entry.number != expected and entry.number > seen.get(entry.category, 0):
            found.append(
                _violation(
                    entry.line,
                    entry.id,
                    f"{entry.id} should be "
                    f"{entry.category}-{expected:03d} (entries are numbered without gaps)",
                )
            )
        elif entry.number < expected:
            found.append(_violation(entry.line, entry.id, f"{entry.id} is out of order"))
        seen[entry.category] = max(seen.get(entry.category, 0), entry.number)
    return found


def read_journal(path: Path) -> Journal:
    return parse(read_text(path, path.name), path)


def validate_journal(path: Path) -> Validation:
    journal = read_journal(path)
    violations = journal.violations + journal.index_violations()
    return {
        "path": str(path),
        "valid": not violations,
        "entries": len(journal.entries),
        "by_category": {c: sum(e.category == c for e in journal.entries) for c in CATEGORIES},
        "violations": violations,
    }

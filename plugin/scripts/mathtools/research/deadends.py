"""Dead-end detection before an attempt: the journal's earlier FAILED or ABANDONED entries like
the planned attempt (the same strategy, or two shared tags), and for each the problem's evidence
dated after it (newer LITERATURE.md references, proved PROOF.md lemmas, COMPUTATION.md results):
whether conditions changed since.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypedDict

from ..core import BadInput, read_frontmatter, read_text, split_frontmatter, stamp
from .journalchanges import journal_path
from .journalread import (
    EntryBrief,
    EntryTime,
    Journal,
    check_strategy,
    is_dead_end,
    parse_tags,
    read_journal,
    work_of,
)
from .review import steps as proof_steps


class Evidence(TypedDict):
    """A dated item of a problem's artifacts: its file, its heading and when."""

    file: str
    item: str
    when: EntryTime


class DatedItem(TypedDict):
    """Evidence as printed: `when` as written."""

    file: str
    item: str
    when: str


class DeadEnd(EntryBrief):
    same_strategy: bool
    shared_tags: list[str]
    conditions_changed: bool
    evidence: list[DatedItem]  # dated after the entry


class DeadEndCheck(TypedDict):
    """`check`: the earlier dead ends like a planned attempt, and the verdict."""

    problem: str
    strategy: str
    tags: list[str]
    verdict: str  # clear, conditions-changed or dead-end
    now: str
    dead_ends: list[DeadEnd]
    journal_violations: int


def evidence(folder: Path) -> list[Evidence]:
    """Dated items in the problem's artifacts that are new information: LITERATURE.md references
    (by when they were first verified: `First verified:`, else `Verified:`), PROOF.md lemmas
    proved (a `Lemma N` block at any heading depth, **Status:** complete, a tier other than [~],
    by its `**Updated:**`: a step of a proof in progress, or any other edit, is no new condition)
    and COMPUTATION.md results (by a dated field such as `**Run:**`, else the frontmatter's
    `last_run`)."""
    items: list[Evidence] = []
    for name, heading, fallback in (
        ("LITERATURE.md", re.compile(r"^### (REF-\d+: .*)$"), False),
        ("PROOF.md", re.compile(r"^ {0,3}#{3,6} (Lemma\b.+)$"), False),
        ("COMPUTATION.md", re.compile(r"^#{2,4} (.+)$"), True),
    ):
        path = folder / name
        if not path.exists():
            continue
        text = read_text(path, name)
        try:
            meta, body = split_frontmatter(text, name)
        except BadInput:
            meta, body = {}, text
        found = _dated_sections(name, body, heading)
        if name == "PROOF.md":
            proved = {
                s.name for s in proof_steps(text) if s.status == "complete" and s.tier != "[~]"
            }
            found = [item for item in found if item["item"].split(":")[0].strip() in proved]
        if not found and fallback:
            for key in ("updated", "last_updated", "last_run"):
                when = EntryTime.parse(meta.get(key))
                if when:
                    found.append({"file": name, "item": f"{name} ({key})", "when": when})
                    break
        items.extend(found)
    return items


DATE_LABEL = re.compile(
    r"\*\*(?:First verified|Verified|Updated|Date|Added|Completed|Run|Last run|Timestamp):\*\*"
    r"\s*(?P<value>.*)"
)


def _dated_sections(name: str, body: str, heading: re.Pattern[str]) -> list[Evidence]:
    found: list[Evidence] = []
    title: str | None = None
    for line in body.splitlines():
        match = heading.match(line)
        if match:
            title = match.group(1).strip()
            continue
        if line.startswith("#"):
            title = None
            continue
        dated = DATE_LABEL.search(line) if title else None
        when = EntryTime.parse(dated["value"]) if dated else None
        if title and when:
            found.append({"file": name, "item": title, "when": when})
            title = None  # one date per section: the first one given
    return found


def _problem_tags(folder: Path) -> list[str]:
    path = folder / "PROBLEM.md"
    if not path.exists():
        return []
    try:
        raw = read_frontmatter(read_text(path, path.name), str(path)).get("tags") or []
    except BadInput:
        return []
    values = raw if isinstance(raw, list) else parse_tags(str(raw))
    return [str(tag).strip().lower() for tag in values]


def check_dead_ends(strategy: str, tags: list[str], problem: str | None = None) -> DeadEndCheck:
    """Earlier FAILED or ABANDONED entries of the same kind of work (journalread.is_dead_end)
    with the same strategy or at least two shared tags
    (PROBLEM.md's own tags do not count: every attempt at the problem shares them),
    each with the evidence dated after it. verdict: 'clear' (none), 'conditions-changed' (every
    one has newer evidence) or 'dead-end' (some have none: do not retry them blindly)."""
    check_strategy(strategy)
    slug, path = journal_path(problem)
    journal = read_journal(path) if path.exists() else Journal(path, {}, "", [], [])
    items = evidence(path.parent)
    # PROBLEM.md's own tags name the problem, which every attempt shares: they match nothing.
    own = set(_problem_tags(path.parent))
    dead_ends: list[DeadEnd] = []
    work = work_of(strategy)
    for entry in journal.entries:
        if not is_dead_end(entry, work):
            continue
        shared = [tag for tag in entry.tags if tag in tags and tag not in own]
        if entry.strategy != strategy and len(shared) < 2:
            continue
        when = entry.when
        newer = [i for i in items if when is None or i["when"].after(when)]
        dead_ends.append(
            {
                **entry.brief(),
                "same_strategy": entry.strategy == strategy,
                "shared_tags": shared,
                "conditions_changed": bool(newer),
                "evidence": [
                    {"file": i["file"], "item": i["item"], "when": str(i["when"])} for i in newer
                ],
            }
        )
    if not dead_ends:
        verdict = "clear"
    elif all(d["conditions_changed"] for d in dead_ends):
        verdict = "conditions-changed"
    else:
        verdict = "dead-end"
    return {
        "problem": slug,
        "strategy": strategy,
        "tags": tags,
        "verdict": verdict,
        "now": stamp(),  # for the **Updated:** lines of the pass this check opens
        "dead_ends": dead_ends,
        # Entries the check may have misread: `validate` says which and why.
        "journal_violations": len(journal.violations),
    }

"""Merging a verification result into LITERATURE.md (protocol sections 3, 4 and 8): one
document (merge) and one file (merge_file), and the corrections a person or the model makes by
hand (correct_file).

The merge has three modules, one job each. mergeentries.py holds the rules for the entries, in its
docstring: which entry each result is (CONFIRMED and CORRECTED results REF entries, UNCONFIRMED
ones UREF entries, a UREF a later run confirms moved), and what each field becomes (metadata
carried from the API's record, never retyped; a CORRECTED REF's `Corrected:` line, so the person
sees that the model's memory was off, docs/matching-rules.md; prose already in the document never
overwritten). This module holds the rules for the document: the inputs are checked against their
schemas before anything is written; one Search History row is appended per merge (a failing
service named in it); the frontmatter counts are recomputed from the body, `last_search` is the
latest verification and `sources_queried` gains the sources that answered; the merge's
fingerprint is recorded, so the same merge applied twice changes nothing; a Synthesis line citing
a UREF the merge moved is reported, never rewritten. mergereport.py holds what the merge reports
(MergeReport: every entry added, updated, moved, skipped or whose prose was kept) and its compact
view for the model.

    >>> report, diff = merge_file(Path("LITERATURE.md"), verified, relevance, summary="gap")
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ..core import (
    NAMES,
    SOURCES,
    BadInput,
    VerificationDocument,
    atomic_write,
    locked,
    ordered,
    read_text,
    schema_errors,
)
from .checks import synthesis_citations
from .literature import LiteratureDoc, parse_literature, results_text, template
from .mergeentries import RELEVANCE_FIELDS, Merge, Relevance, later, paper_key, unavailable
from .mergereport import Counts, DocumentMerge, MergeReport, StaleCitation, no_changes
from .refentry import one_line


def fingerprint(*parts: object) -> str:
    """12 hex digits naming one merge's inputs (same inputs, same fingerprint)."""
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def confirmed_by(verified: VerificationDocument) -> dict[str, int]:
    """The Search History's Results when no run store counted the search's results: the
    verified papers each source confirmed (a result's `sources`; a paper several confirmed
    counts for each), in the registry's order."""
    counts = {source: 0 for source in SOURCES}
    for result in verified["results"]:
        for source in result.get("sources") or []:
            counts[source] = counts.get(source, 0) + 1
    return counts


def check_inputs(verified: object, relevance: object) -> None:
    """BadInput listing every schema violation, and relevance keys that match no result."""
    problems = [f"verified: {e}" for e in schema_errors("verification", verified)]
    if relevance is not None:
        problems += [f"relevance: {e}" for e in schema_errors("relevance", relevance)]
    if problems:
        raise BadInput("; ".join(problems[:10]), code="bad_input")
    if relevance:
        results = cast(VerificationDocument, verified)["results"]  # the schema holds
        known: set[str | None] = {r["key"] for r in results}
        known |= {paper_key(r) for r in results} - {None}
        unknown = sorted(set(cast(Relevance, relevance)) - known)
        if unknown:
            raise BadInput(
                "relevance keys match no result in the verification file: " + ", ".join(unknown),
                code="unknown_key",
            )


def merge(
    doc: LiteratureDoc,
    verified: VerificationDocument,
    relevance: Relevance | None = None,
    summary: str | None = None,
    results: Mapping[str, int] | None = None,
) -> DocumentMerge:
    """Merge `verified` into `doc` in place; returns the report (see the module docstring)."""
    check_inputs(verified, relevance)
    doc.check_frontmatter()
    counted = confirmed_by(verified) if results is None else dict(results)
    summary = one_line(summary or "(not given)")
    down = unavailable(verified)
    if down:  # protocol section 10: note the unavailable service in the Search History
        summary += f" ({' and '.join(NAMES.get(s, s) for s in down)} unavailable)"
    merge_id = fingerprint(verified, relevance, summary, results_text(counted))
    if merge_id in doc.merges:
        return {
            "merge_id": merge_id,
            "already_merged": True,
            **no_changes(),
            "stale_citations": [],
            "history_row": None,
        }

    merge = Merge(doc, verified, relevance)
    merge.apply()
    new_confirmed = len(merge.report["added"]) + len(merge.report["promoted"])
    date = verified["verified_at"][:10]
    doc.append_history([date, summary, results_text(counted), str(new_confirmed)])
    doc.set_state([*doc.merges, merge_id], merge.last)

    fm = doc.frontmatter
    fm["confirmed_count"] = len(doc.confirmed)
    fm["unconfirmed_count"] = len(doc.unconfirmed)
    fm["total_papers"] = fm["confirmed_count"] + fm["unconfirmed_count"]
    if later(verified["verified_at"], fm.get("last_search")):  # an old result merged late
        fm["last_search"] = verified["verified_at"]
    # A source that failed was not really queried by this merge; earlier merges' sources stay.
    queried = set(fm.get("sources_queried") or []) | (set(verified["sources_queried"]) - set(down))
    fm["sources_queried"] = ordered(queried)
    moved = {item["from"]: item["to"] for item in merge.report["promoted"]}
    moved |= {item["from"]: item["to"] for item in merge.report["merged"]}
    return {
        "merge_id": merge_id,
        "already_merged": False,
        **merge.report,
        "stale_citations": stale_citations(doc, moved),
        "history_row": {
            "date": date,
            "query_summary": summary,
            "results": results_text(counted),
            "new_confirmed": new_confirmed,
        },
    }


def stale_citations(doc: LiteratureDoc, moved: Mapping[str, str]) -> list[StaleCitation]:
    """The Synthesis lines (numbered as the merged file will have them) that still cite a UREF
    this merge moved (`moved`: its number, the REF's) to Confirmed References, with its new REF
    number. The prose is the model's or the person's: it is reported, never rewritten."""
    if not moved:
        return []
    merged = parse_literature(doc.render(), doc.name)
    return [
        {"line": number, "cites": cited, "now": moved[cited]}
        for number, cited, _ in synthesis_citations(merged)
        if cited in moved
    ]


def merge_file(
    path: Path,
    verified: VerificationDocument,
    relevance: Relevance | None = None,
    *,
    dry_run: bool = False,
    problem: str | None = None,
    title: str | None = None,
    **history: Any,
) -> tuple[MergeReport, str]:
    """Merge into the file at `path` (created from the template when absent) under its lock.

    `history` is merge()'s summary and results; `problem` and `title` name a
    new file's problem (default: the folder's name).

    Returns (report, unified diff); the diff is computed only for `dry_run`, which writes
    nothing. A malformed file raises BadInput naming the line before anything is written.
    """
    path = Path(path)
    check_inputs(verified, relevance)  # before the lock: refused input leaves no folder or lock
    with locked(path):
        created = not path.exists()
        old = (
            template(problem or path.parent.name, title)
            if created
            else read_text(path, "LITERATURE.md")
        )
        doc = parse_literature(old, str(path))
        report = merge(doc, verified, relevance, **history)
        new = doc.render()
        if not dry_run and (created or new != old):
            atomic_write(path, new)
    diff = ""
    if dry_run:
        before = [] if created else old.splitlines(keepends=True)
        diff = "".join(
            difflib.unified_diff(
                before,
                new.splitlines(keepends=True),
                "/dev/null" if created else str(path),
                str(path),
            )
        )
    counts: Counts = {
        "total_papers": len(doc.confirmed) + len(doc.unconfirmed),
        "confirmed_count": len(doc.confirmed),
        "unconfirmed_count": len(doc.unconfirmed),
    }
    return {
        "literature": str(path),
        "created": created,
        "changed": created or new != old,
        "dry_run": dry_run,
        **report,
        "counts": counts,
        "unassessed": [entry.entry_number for entry in doc.confirmed if not entry.assessed],
    }, diff


# relevance.json's words -> the entry fields a correction may set (a UREF keeps only its relevance)
CORRECTABLE = {word: name for name, word in RELEVANCE_FIELDS.items()}


def correct_file(path: Path, corrections: object) -> list[str]:
    """Set the fields `corrections` gives, in relevance.json's words ({"REF-003": {"key_results":
    "..."}}), in LITERATURE.md at `path`, under its lock, written atomically: every other line,
    hand edits included, is kept. One line per entry: what changed, or why it was refused (one bad
    item does not stop the rest)."""
    if not isinstance(corrections, dict) or not corrections:
        raise BadInput(
            'corrections: an object of entries, {"REF-003": {"key_results": "..."}}',
            code="bad_input",
        )
    path = Path(path)
    out: list[str] = []
    with locked(path):
        if not path.exists():
            raise BadInput(f"no {path}: nothing to correct", code="usage")
        old = read_text(path, "LITERATURE.md")
        doc = parse_literature(old, str(path))
        entries = {entry.entry_number: entry for entry in doc.confirmed + doc.unconfirmed}
        for number, fields in corrections.items():
            entry = entries.get(number)
            allowed = {"relevance"} if entry is not None and entry.kind == "UREF" else CORRECTABLE
            # relevance.json's schema checks each item's words and values (its one home)
            errors = (
                schema_errors("relevance", {number: {"relevance": "-", **fields}})
                if (isinstance(fields, dict) and fields)
                else ["not an object of fields"]
            )
            if entry is None:
                out.append(f"{number}: no such entry, not corrected")
            elif errors or set(fields) - set(allowed):
                why = "; ".join(errors) or f"only {', '.join(sorted(allowed))} may be set"
                out.append(f"{number}: not corrected: {why}")
            else:
                changed = [
                    CORRECTABLE[w] for w, v in fields.items() if entry.set_field(CORRECTABLE[w], v)
                ]
                out.append(f"{number} corrected: {', '.join(changed) or 'nothing changed'}")
        new = doc.render()
        if new != old:
            atomic_write(path, new)
    return out

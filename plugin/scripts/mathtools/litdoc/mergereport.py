"""What a merge into LITERATURE.md reports: each entry added, updated, moved, kept or skipped
(EntryChanges, which mergeentries.Merge fills), the document's Search History row and stale
citations (DocumentMerge, merging.merge's), the file's fate and counts (MergeReport,
merging.merge_file's, which `lit_update.py merge --json` prints), and its compact view for the
model (merge_summary_lines)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict, cast


class _Added(TypedDict):
    ref: str
    key: str
    title: str


class Added(_Added, total=False):
    """A new REF (`corrected`: the fields the citation had wrong)."""

    corrected: list[str]


# A UREF the merge confirmed, moved to Confirmed References as a new REF (`to`, also its `ref`);
# "from" is a keyword, hence the functional form.
_Promoted = TypedDict("_Promoted", {"from": str, "to": str, "ref": str, "key": str, "title": str})


class Promoted(_Promoted, total=False):
    corrected: list[str]


# A UREF found to be the paper of an existing REF: moved into it.
MovedInto = TypedDict("MovedInto", {"from": str, "to": str, "key": str})


class Updated(TypedDict):
    """A REF whose `fields` this merge changed; also a REF whose `fields` it kept (`kept`)."""

    ref: str
    key: str
    fields: list[str]


class UnconfirmedAdded(TypedDict):
    uref: str
    key: str
    title: str


class UnconfirmedUpdated(TypedDict):
    uref: str
    key: str
    fields: list[str]


class Skipped(TypedDict):
    key: str
    reason: str


class EntryChanges(TypedDict):
    """What one merge did to the entries, kind by kind (the merge report's lists)."""

    added: list[Added]
    updated: list[Updated]
    promoted: list[Promoted]
    merged: list[MovedInto]
    unconfirmed_added: list[UnconfirmedAdded]
    unconfirmed_updated: list[UnconfirmedUpdated]
    # prose already in an entry that the relevance file would rewrite: never overwritten, said
    kept: list[Updated]
    skipped: list[Skipped]


def no_changes() -> EntryChanges:
    return {
        "added": [],
        "updated": [],
        "promoted": [],
        "merged": [],
        "unconfirmed_added": [],
        "unconfirmed_updated": [],
        "kept": [],
        "skipped": [],
    }


class StaleCitation(TypedDict):
    """A Synthesis line (numbered as the merged file has it) citing a UREF this merge moved."""

    line: int
    cites: str
    now: str


class HistoryRow(TypedDict):
    date: str
    query_summary: str
    results: str  # "arXiv 8, zbMATH Open 2" (literature.results_text)
    new_confirmed: int


class DocumentMerge(EntryChanges):
    """What merge() did to a parsed document: the entries, kind by kind, and the Search History
    row; `already_merged` (the same merge made before): nothing, no row."""

    merge_id: str
    already_merged: bool
    stale_citations: list[StaleCitation]
    history_row: HistoryRow | None


class Counts(TypedDict):
    total_papers: int
    confirmed_count: int
    unconfirmed_count: int


class MergeReport(DocumentMerge):
    """What merge_file() did to LITERATURE.md: the document's merge, the file's fate, its counts
    and the REFs still unassessed (`lit_update.py merge --json` prints it; summary_lines shows
    it to the model)."""

    literature: str
    created: bool
    changed: bool
    dry_run: bool
    counts: Counts
    unassessed: list[str]


KEPT_PROSE = "{ref} kept its {fields}: prose there is never overwritten; edit {ref} in the file"


def merge_summary_lines(report: MergeReport) -> list[str]:
    """The compact view of a merge report for the model: what happened to the file, then one
    line per entry added, updated, moved, kept or skipped, by number and candidate key (titles
    and fields are in the file, which the model reads next for the Synthesis)."""
    name = Path(report["literature"]).name
    if report["already_merged"]:
        return [f"{name} unchanged: this merge was made before (merge {report['merge_id']})"]
    # each kind of item, in this order, and how it shows
    forms: list[tuple[str, Sequence[Mapping[str, object]]]] = [
        ("{ref} added: {key}", report["added"]),
        ("{to} added: {key} (moved from {from})", report["promoted"]),
        ("{from} is {to}: moved into it ({key})", report["merged"]),
        ("{ref} updated ({fields}): {key}", report["updated"]),
        ("{uref} added: {key}", report["unconfirmed_added"]),
        ("{uref} updated ({fields}): {key}", report["unconfirmed_updated"]),
        (KEPT_PROSE, report["kept"]),
        ("skipped {key}: {reason}", report["skipped"]),
        (
            "Synthesis line {line} cites {cites}, now {now}: update the citation",
            report["stale_citations"],
        ),
    ]
    lines = [
        form.format(**{**item, "fields": ", ".join(cast(list[str], item.get("fields", [])))})
        + (
            f" -- CORRECTED ({', '.join(cast(list[str], item['corrected']))})"
            if item.get("corrected")
            else ""
        )
        for form, items in forms
        for item in items
    ]
    counts = report["counts"]
    state = "created" if report["created"] else "updated" if report["changed"] else "unchanged"
    head = (
        f"{name} {state}: {len(report['added']) + len(report['promoted'])} new REF,"
        f" {len(report['unconfirmed_added'])} new UREF; now {counts['confirmed_count']}"
        f" confirmed, {counts['unconfirmed_count']} unconfirmed"
    )
    unassessed = report["unassessed"]
    if unassessed:
        lines.append(
            f"not yet assessed: {', '.join(unassessed)} -- give each a relevance, key results "
            "and a confidence tier in the file before the Synthesis; validate fails until then"
        )
    return [head, *lines]

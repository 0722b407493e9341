"""Merging a verification result into LITERATURE.md (protocol sections 3, 4 and 8).

CONFIRMED and CORRECTED results become REF entries, UNCONFIRMED ones UREF entries; metadata is
carried from the API's record, never retyped. A CORRECTED REF also gets a `Corrected:` line saying
how the citation was wrong (docs/matching-rules.md), so the person sees that the model's
memory was off. A paper already in the document (matched by arXiv id, then DOI, then S2 paperId,
then normalised title + first author's family name + year) is updated in place: its Source becomes
`both` when the other source confirms it too, missing identifiers and abstract are filled in, and
the Verified line keeps every URL it was verified through, with the latest time (the first time
moves to a `First verified:` line). A UREF that a later run confirms (the same paper by an identity
key, and the same title as the record or the citation: a claimed id alone never does) moves to
Confirmed References under the next REF number with a `Moved from:` line. Numbers continue from the
document's high-water marks and are never reused. Relevance, Key Results and Confidence come from
the model's relevance file and only fill fields still unassessed, so prose already in the document
is never overwritten. One Search History row is appended per merge, the frontmatter counts are
recomputed from the body, and the merge's fingerprint is recorded so the same merge applied twice
changes nothing.

    >>> report, diff = merge_file(Path("LITERATURE.md"), verified, relevance, summary="gap")
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, cast

from ..core import clock, files, locks, schemas
from ..core.authors import comma_free
from ..core.errors import BadInput
from ..core.records import (
    IDENTIFIED,
    PaperDict,
    VerificationDocument,
    VerificationResult,
    summary_line,
)
from ..core.sources import NAMES, ordered
from ..gate.matching import normalise_title
from .checks import synthesis_citations
from .identity import Index, Key, cited_fields, id_tags, identity, paper_identity, paper_tags
from .literature import (
    CONFIRMED,
    NOT_ASSESSED,
    UNCONFIRMED,
    UNKNOWN,
    UREF_STATUS,
    LiteratureDoc,
    parse,
    results_text,
    template,
)
from .mergefields import (
    confirmed_by,
    corrected_text,
    degraded_note,
    source_field,
    unavailable,
    venue_text,
)
from .refentry import Entry, one_line, retracted_text

NO_ABSTRACT = "(no abstract from the API)"
RELEVANCE_FIELDS = {
    "Relevance": "relevance",
    "Key Results": "key_results",
    "Confidence": "confidence",
}


# The model's assessment of one paper, by candidate or paper key (schemas/relevance.schema.json).
Relevance = dict[str, dict[str, str]]


def _agreeing(result: VerificationResult, paper: PaperDict) -> set[str]:
    """The services whose records confirmed a result (`sources`; before there were four, the
    one `source`)."""
    return set(result.get("sources") or [result.get("source") or paper.get("source") or ""])


def _later(new: str, old: str | None) -> bool:
    return not old or _time(new) > _time(old)


def _time(stamp: str) -> datetime:
    """An ISO 8601 time as an aware datetime; a hand-written one that does not parse sorts first."""
    try:
        return clock.parse(stamp)
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)


def fingerprint(*parts: object) -> str:
    """12 hex digits naming one merge's inputs (same inputs, same fingerprint)."""
    canonical = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


class Merge:
    """One merge of a verification result into a parsed document (edits `doc` in place)."""

    def __init__(
        self, doc: LiteratureDoc, verified: VerificationDocument, relevance: Relevance | None
    ):
        self.doc = doc
        self.verified = verified
        # schemas/relevance: each key's fields are strings
        self.relevance: Relevance = relevance or {}
        self.index = Index(doc)
        self.note = degraded_note(verified)
        self.last = {kind: doc.high_water(kind) for kind in ("REF", "UREF")}
        self.report: dict[str, list[dict[str, object]]] = {
            "added": [],
            "updated": [],
            "promoted": [],
            "merged": [],
            "unconfirmed_added": [],
            "unconfirmed_updated": [],
            "skipped": [],
        }

    def assessment(self, result: VerificationResult) -> dict[str, str]:
        """The model's relevance for a result, looked up by candidate key, then (CONFIRMED and
        CORRECTED only) by the identified paper's key. An UNCONFIRMED result is not the paper
        any identifier of it points to, so it never takes relevance written for another key."""
        for key in (result["key"], _paper_key(result)):
            if key in self.relevance:
                return self.relevance[key]
        return {}

    def fill_assessment(self, entry: Entry, assessment: dict[str, str]) -> list[str]:
        """Fill the fields still unassessed from the model's assessment; the names filled."""
        names = RELEVANCE_FIELDS if entry.kind == "REF" else {"Relevance": "relevance"}
        changed = []
        for name, key in names.items():
            if assessment.get(key) and entry.field(name) in (None, "", NOT_ASSESSED):
                entry.set_field(name, assessment[key])
                changed.append(name)
        return changed

    def apply(self) -> None:
        for result in self.verified["results"]:
            if result["status"] in IDENTIFIED:
                self.confirmed(result)
            else:
                self.unconfirmed(result)

    def confirmed(self, result: VerificationResult) -> None:
        paper = result.get("paper")
        if not paper:
            raise BadInput(
                f"{result['key']}: {result['status']} without a paper record", code="bad_input"
            )
        if not result.get("verified_via"):
            raise BadInput(
                f"{result['key']}: {result['status']} without a verification URL "
                "(verified_via is empty)",
                code="bad_input",
            )
        keys = paper_identity(paper)
        existing = self.index.find("REF", keys)
        if existing is not None:
            changed = self.update_ref(existing, paper, result, keys)
            was = self.unconfirmed_entry(result, keys)
            if was is not None:  # a UREF the paper of a REF: one entry, the REF
                self.moved(was, existing)
                self.report["merged"].append(
                    {"from": was.entry_number, "to": existing.entry_number, "key": result["key"]}
                )
            elif changed:
                self.report["updated"].append(
                    {"ref": existing.entry_number, "key": result["key"], "fields": changed}
                )
            return
        was = self.unconfirmed_entry(result, keys)
        number = self.last["REF"] = self.last["REF"] + 1
        values: dict[str, object] = {
            "Authors": ", ".join(map(comma_free, paper.get("authors") or []))
            or "(not given by the API)",
            "Year": paper.get("year") or "",
            "Source": source_field(_agreeing(result, paper)),
            "arXiv ID": paper.get("arxiv_id") or "",
            "DOI": paper.get("doi") or "",
            "Zbl": paper.get("zbl") or "",
            "MSC": ", ".join(paper.get("msc") or []),
            "Venue": venue_text(paper),
            "Corrected": corrected_text(result),
            "Retracted": retracted_text(paper),
            "Abstract": paper.get("abstract") or NO_ABSTRACT,
            "Relevance": NOT_ASSESSED,
            "Key Results": NOT_ASSESSED,
            "Confidence": NOT_ASSESSED,
            "Verified": f"{self.verified['verified_at']} via "
            f"{' and '.join(result['verified_via'])}{self.note}",
        }
        if was is not None:
            values["Relevance"] = was.relevance or NOT_ASSESSED
            values["Moved from"] = self.moved_from(was)
        entry = Entry.new("REF", number, paper.get("title", ""), values, paper_tags(paper, keys))
        self.fill_assessment(entry, self.assessment(result))
        self.doc.section(CONFIRMED).add_entry(entry)
        self.index.add(entry, keys)
        item: dict[str, object] = {
            "ref": entry.entry_number,
            "key": result["key"],
            "title": entry.title,
        }
        if result["status"] == "CORRECTED":
            item["corrected"] = [d["field"] for d in result["discrepancies"]]
        if was is not None:
            self.doc.section(UNCONFIRMED).remove_entry(was)
            self.index.drop(was)
            self.report["promoted"].append(
                {"from": was.entry_number, "to": entry.entry_number, **item}
            )
        else:
            self.report["added"].append(item)

    def unconfirmed_entry(self, result: VerificationResult, keys: list[Key]) -> Entry | None:
        """The UREF a confirmed result is: the one its candidate names (a UREF retried in place),
        else one the paper's or the citation's keys find whose title is the record's or the
        citation's (a claimed id alone never makes an unconfirmed reference this paper)."""
        candidate = result.get("candidate") or {}
        named = self.index.by_number.get(str(candidate.get("entry") or ""))
        if named is not None and named.kind == "UREF":
            return named
        was = self.index.find("UREF", keys) or self.index.cited("UREF", candidate)
        cited = cited_fields(candidate)["title"]  # a free-text citation's is the citation whole
        record = (result.get("paper") or {}).get("title")
        titles = {normalise_title(t) for t in (record, cited) if isinstance(t, str) and t}
        return was if was is not None and normalise_title(was.title) in titles else None

    def moved_from(self, was: Entry) -> str:
        return f"{was.entry_number} (unconfirmed until {self.verified['verified_at'][:10]})"

    def moved(self, was: Entry, ref: Entry) -> None:
        """A UREF found to be the paper of an existing REF: removed, its number kept on the
        REF's `Moved from:` line (a number is never used again, nor lost)."""
        earlier = ref.field("Moved from")
        ref.set_field("Moved from", "; ".join(filter(None, [earlier, self.moved_from(was)])))
        self.doc.section(UNCONFIRMED).remove_entry(was)
        self.index.drop(was)

    def update_ref(
        self,
        entry: Entry,
        paper: PaperDict,
        result: VerificationResult,
        keys: list[Key],
    ) -> list[str]:
        changed: list[str] = []
        sources = {entry.source or "", *_agreeing(result, paper)}
        if entry.set_field("Source", source_field(sources)):
            changed.append("Source")
        for name, value in (
            ("arXiv ID", paper.get("arxiv_id")),
            ("DOI", paper.get("doi")),
            ("Zbl", paper.get("zbl")),
            ("MSC", ", ".join(paper.get("msc") or [])),
            ("Retracted", retracted_text(paper)),
            ("Abstract", paper.get("abstract")),
        ):
            if value and entry.field(name) in (None, "", NO_ABSTRACT):
                entry.set_field(name, value)
                changed.append(name)
        tags = entry.ids + [tag for tag in paper_tags(paper, keys) if tag not in entry.ids]
        if entry.set_ids(tags):
            changed.append("ids")
        first = self.first_verified(entry)
        if entry.set_field("Verified", self.verified_value(entry, result)):
            changed.append("Verified")
        if first != entry.verified_at and entry.set_field("First verified", first):
            changed.append("First verified")
        changed += self.fill_assessment(entry, self.assessment(result))
        self.index.add(entry, keys)
        return changed

    def verified_value(self, entry: Entry, result: VerificationResult) -> str:
        """An existing REF's Verified line after this verification: every URL it was ever
        verified through (old first), the latest timestamp, and the latest verification's note
        on an unavailable service."""
        old = entry.field("Verified") or ""
        urls = list(dict.fromkeys([*entry.verified_via, *result["verified_via"]]))
        at: str | None  # the entry's own time only when it has one (_later otherwise)
        if _later(self.verified["verified_at"], entry.verified_at):
            at, note = self.verified["verified_at"], self.note
        else:
            last_url = entry.verified_via[-1] if entry.verified_via else None
            at = entry.verified_at
            note = old[old.rindex(last_url) + len(last_url) :].rstrip() if last_url else ""
        return f"{at} via {' and '.join(urls)}{note}"

    def first_verified(self, entry: Entry) -> str:
        """When this REF was first verified, kept on a `First verified:` line once the Verified
        time moves on: the date a reference entered the document never changes, and journal.py
        check dates that evidence by it (a re-check is not new evidence)."""
        times: list[str | None] = [
            entry.field("First verified"),
            entry.verified_at,
            self.verified["verified_at"],
        ]
        return min((t for t in times if t), key=_time)

    def unconfirmed(self, result: VerificationResult) -> None:
        candidate = result.get("candidate") or {}
        fields = cited_fields(candidate)
        keys = identity(**fields)
        confirmed = self.index.cited("REF", candidate)
        if confirmed is not None:
            self.report["skipped"].append(
                {"key": result["key"], "reason": f"already confirmed as {confirmed.entry_number}"}
            )
            return
        suggestion = result.get("suggestion")
        suggestion_text = (
            f"{summary_line(suggestion)} -- a different paper a title search found; "
            "verify it before citing"
            if suggestion
            else ""
        )
        existing = self.index.cited("UREF", candidate)
        if existing is not None:
            changed = [
                name
                for name, value in (("Reason", result["reason"]), ("Suggestion", suggestion_text))
                if value and existing.set_field(name, value)
            ]
            changed += self.fill_assessment(existing, self.assessment(result))
            if changed:
                self.report["unconfirmed_updated"].append(
                    {"uref": existing.entry_number, "key": result["key"], "fields": changed}
                )
            return
        authors = fields["authors"]
        values: dict[str, object] = {
            "Authors": ", ".join(map(comma_free, authors))
            if isinstance(authors, list)
            else authors or UNKNOWN,
            "Year": fields["year"] or UNKNOWN,
            "Source": candidate.get("source") or result.get("source") or "unknown",
            "Reason": result["reason"],
            "Relevance": NOT_ASSESSED,
            "Suggestion": suggestion_text,
            "Status": UREF_STATUS,
        }
        number = self.last["UREF"] = self.last["UREF"] + 1
        # A blank title would make a heading the parser cannot read back: the key stands in.
        title = one_line(fields["title"] or "") or result["key"]
        entry = Entry.new("UREF", number, title, values, id_tags(keys))
        self.fill_assessment(entry, self.assessment(result))
        self.doc.section(UNCONFIRMED).add_entry(entry)
        self.index.add(entry, keys)
        self.report["unconfirmed_added"].append(
            {"uref": entry.entry_number, "key": result["key"], "title": entry.title}
        )


def _paper_key(result: VerificationResult) -> str | None:
    """The key of the paper a CONFIRMED or CORRECTED result identified; None for an
    UNCONFIRMED one."""
    if result["status"] not in IDENTIFIED:
        return None
    return (result.get("paper") or {}).get("key")


def check_inputs(verified: object, relevance: object) -> None:
    """BadInput listing every schema violation, and relevance keys that match no result."""
    problems = [f"verified: {e}" for e in schemas.errors("verification", verified)]
    if relevance is not None:
        problems += [f"relevance: {e}" for e in schemas.errors("relevance", relevance)]
    if problems:
        raise BadInput("; ".join(problems[:10]), code="bad_input")
    if relevance:
        results = cast(VerificationDocument, verified)["results"]  # the schema holds
        known: set[str | None] = {r["key"] for r in results}
        known |= {_paper_key(r) for r in results} - {None}
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
) -> dict[str, Any]:
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
        return {"merge_id": merge_id, "already_merged": True}

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
    if _later(verified["verified_at"], fm.get("last_search")):  # an old result merged late
        fm["last_search"] = verified["verified_at"]
    # A source that failed was not really queried by this merge; earlier merges' sources stay.
    queried = set(fm.get("sources_queried") or []) | (set(verified["sources_queried"]) - set(down))
    fm["sources_queried"] = ordered(queried)
    return {
        "merge_id": merge_id,
        "already_merged": False,
        **merge.report,
        "stale_citations": stale_citations(doc, merge.report["promoted"] + merge.report["merged"]),
        "history_row": {
            "date": date,
            "query_summary": summary,
            "results": results_text(counted),
            "new_confirmed": new_confirmed,
        },
    }


def stale_citations(
    doc: LiteratureDoc, promoted: list[dict[str, object]]
) -> list[dict[str, object]]:
    """The Synthesis lines (numbered as the merged file will have them) that still cite a UREF
    this merge moved to Confirmed References, with its new REF number. The prose is the model's
    or the person's: it is reported, never rewritten."""
    moved = {item["from"]: item["to"] for item in promoted}
    if not moved:
        return []
    merged = parse(doc.render(), doc.name)
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
) -> tuple[dict[str, Any], str]:
    """Merge into the file at `path` (created from the template when absent) under its lock.

    `history` is merge()'s summary and results; `problem` and `title` name a
    new file's problem (default: the folder's name).

    Returns (report, unified diff); the diff is computed only for `dry_run`, which writes
    nothing. A malformed file raises BadInput naming the line before anything is written.
    """
    path = Path(path)
    check_inputs(verified, relevance)  # before the lock: refused input leaves no folder or lock
    with locks.locked(path):
        created = not path.exists()
        old = (
            template(problem or path.parent.name, title)
            if created
            else files.read_text(path, "LITERATURE.md")
        )
        doc = parse(old, str(path))
        report = merge(doc, verified, relevance, **history)
        new = doc.render()
        if not dry_run and (created or new != old):
            files.atomic_write(path, new)
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
    counts = {
        k: doc.frontmatter[k] for k in ("total_papers", "confirmed_count", "unconfirmed_count")
    }
    report["unassessed"] = [entry.entry_number for entry in doc.confirmed if not entry.assessed]
    return {
        "literature": str(path),
        "created": created,
        "changed": created or new != old,
        "dry_run": dry_run,
        **report,
        "counts": counts,
    }, diff


# How summary_lines shows each kind of report item, in this order.
SUMMARY_FORMS = (
    ("added", "{ref} added: {key}"),
    ("promoted", "{to} added: {key} (moved from {from})"),
    ("merged", "{from} is {to}: moved into it ({key})"),
    ("updated", "{ref} updated ({fields}): {key}"),
    ("unconfirmed_added", "{uref} added: {key}"),
    ("unconfirmed_updated", "{uref} updated ({fields}): {key}"),
    ("skipped", "skipped {key}: {reason}"),
    ("stale_citations", "Synthesis line {line} cites {cites}, now {now}: update the citation"),
)


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The compact view of a merge report for the model: what happened to the file, then one
    line per entry added, updated, moved or skipped, by number and candidate key (titles and
    fields are in the file, which the model reads next for the Synthesis)."""
    name = Path(report["literature"]).name
    if report.get("already_merged"):
        return [f"{name} unchanged: this merge was made before (merge {report['merge_id']})"]
    lines = [
        form.format(**{**item, "fields": ", ".join(item.get("fields", []))})
        + (f" -- CORRECTED ({', '.join(item['corrected'])})" if item.get("corrected") else "")
        for kind, form in SUMMARY_FORMS
        for item in report[kind]
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

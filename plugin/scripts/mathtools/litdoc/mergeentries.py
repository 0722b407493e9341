"""Each result of a verification file into its entry of LITERATURE.md (protocol sections 3, 4
and 8): which entry the result is, whether it is added, updated, moved or skipped (Merge), and
what each field of the entry becomes. merging.merge runs a Merge over a parsed document, then
writes the document's own lines (the Search History row, the counts, the fingerprint); the report
items are mergereport.py's.

Which entry: a CONFIRMED or CORRECTED result is the REF its paper's identity keys find (arXiv id,
DOI, S2 paperId, title + first author + year), else a new REF; the UREF it confirms (the one its
candidate names, or one its keys find whose title is the record's or the citation's: a claimed id
alone never does) moves to it. An UNCONFIRMED result whose citation is a REF is skipped (a UREF of
it moves in); else it is the UREF its citation finds, or a new one. New numbers continue from the
document's high-water marks and are never reused.

Which value wins, field by field:
- a new REF takes every field from the API's record, never from the citation (`new_ref_fields`);
  a CORRECTED one also says how the citation was wrong (`Corrected:`); a UREF it confirms carries
  its relevance, its number and a person's own lines over (`carried_fields`);
- an existing REF (`update_ref_fields`): the record fills the identifiers, subjects, retraction
  and abstract (`_from_record`) only where the entry has none, so what is there stays; the Source
  and the ids grow by what agrees now; the Verified line keeps every URL it was verified through
  and the latest time, the earliest moving to a `First verified:` line;
- a new UREF takes the citation's fields (`new_uref_fields`); an existing one the latest run's
  Reason and Suggestion (`update_uref_fields`);
- the model's assessment (RELEVANCE_FIELDS; a UREF's relevance alone) fills only fields still
  unassessed; prose already there is kept, never overwritten, and reported (`fill_assessment`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timezone

from ..core import (
    IDENTIFIED,
    NAMES,
    BadInput,
    PaperDict,
    VerificationDocument,
    VerificationResult,
    comma_free,
    normalise_title,
    ordered,
    parse_stamp,
    summary_line,
)
from .identity import (
    CitedFields,
    Index,
    Key,
    cited_fields,
    cited_title_authors,
    id_tags,
    identity,
    paper_identity,
    paper_tags,
)
from .literature import CONFIRMED, NOT_ASSESSED, UNCONFIRMED, UNKNOWN, UREF_STATUS, LiteratureDoc
from .mergereport import Added, Promoted, no_changes
from .refentry import Entry, one_line

NO_ABSTRACT = "(no abstract from the API)"
BOTH = "both"  # the Source field of a paper both sources confirmed, when there were two
CODES = {name: code for code, name in NAMES.items()}
# The fields the model's assessment fills (entry field -> relevance.json's word); a UREF's only
# assessed field is its Relevance.
RELEVANCE_FIELDS = {
    "Relevance": "relevance",
    "Key Results": "key_results",
    "Confidence": "confidence",
}
UREF_ASSESSED = {"Relevance": "relevance"}

# The model's assessment of one paper, by candidate or paper key (schemas/relevance.schema.json).
Relevance = dict[str, dict[str, str]]


def source_field(sources: set[str]) -> str:
    """The Source field: the sources' names in the registry's order (`arXiv, Crossref`), for a
    set of source codes, names or earlier Source fields; a field naming no source is kept as it
    is. An earlier field's `both`, written when there were two sources, is arXiv and Semantic
    Scholar."""
    codes: set[str] = set()
    unknown = []
    for given in filter(None, sources):
        for part in filter(None, (p.strip() for p in re.split(r",| and ", given))):
            if part == BOTH:
                codes |= {"arxiv", "semantic_scholar"}
            elif part in NAMES or part in CODES:
                codes.add(CODES.get(part, part))
            else:
                unknown.append(given)
    return ", ".join(NAMES[code] for code in ordered(codes)) or (unknown or ["unknown"])[0]


def agreeing(result: VerificationResult, paper: PaperDict) -> set[str]:
    """The services whose records confirmed a result (`sources`; before there were four, the
    one `source`)."""
    return set(result.get("sources") or [result.get("source") or paper.get("source") or ""])


def venue_text(paper: PaperDict) -> str:
    """`Journal of Number Theory 169, 86-102`: the API's venue, volume and pages ("" when the
    API knows no venue)."""
    venue = paper.get("venue")
    if not venue:
        return ""
    text = venue + (f" {paper['volume']}" if paper.get("volume") else "")
    return text + (f", {paper['pages']}" if paper.get("pages") else "")


def corrected_text(result: VerificationResult) -> str:
    """A CORRECTED result's line: how the citation was wrong, field by field ("" otherwise)."""
    if result["status"] != "CORRECTED":
        return ""
    wrong = "; ".join(f"{d['field']}: {d['note']}" for d in result.get("discrepancies", []))
    return f"cited wrongly as {result['key']} ({wrong}); this entry is the API's record"


def retracted_text(paper: Mapping[str, object]) -> str:
    """A retracted paper's `Retracted:` line: the notice's DOI ("" when not retracted)."""
    notice = paper.get("retraction_notice")
    return f"DOI:{notice} (the retraction notice; never a [V] source)" if notice else ""


def unavailable(verified: VerificationDocument) -> list[str]:
    """The sources that failed during the verification (`source_errors`), in source order."""
    return ordered(verified.get("source_errors") or {})


def degraded_note(verified: VerificationDocument) -> str:
    """What a Verified line adds when a service was down (protocol section 10):
    ` (checked against arXiv only; Semantic Scholar unavailable)`; "" when none was."""
    down = unavailable(verified)
    if not down:
        return ""
    checked = [NAMES.get(s, s) for s in verified["sources_queried"] if s not in down]
    missing = " and ".join(NAMES.get(s, s) for s in down)
    return f" (checked against {' and '.join(checked) or 'no service'} only; {missing} unavailable)"


def later(new: str, old: str | None) -> bool:
    """Whether the time `new` is after `old` (always, when there is no `old`)."""
    return not old or _time(new) > _time(old)


def _time(stamp: str) -> datetime:
    """An ISO 8601 time as an aware datetime; a hand-written one that does not parse sorts first."""
    try:
        return parse_stamp(stamp)
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)


def _from_record(paper: PaperDict) -> dict[str, str]:
    """The fields the record fills on a REF that lacks them, as the record gives them ("" where
    it gives none): the identifiers, subjects, retraction and abstract."""
    return {
        "arXiv ID": paper.get("arxiv_id") or "",
        "DOI": paper.get("doi") or "",
        "Zbl": paper.get("zbl") or "",
        "MSC": ", ".join(paper.get("msc") or []),
        "Retracted": retracted_text(paper),
        "Abstract": paper.get("abstract") or "",
    }


def _verified(at: str | None, urls: list[str], note: str) -> str:
    return f"{at} via {' and '.join(urls)}{note}"


def new_ref_fields(
    paper: PaperDict, result: VerificationResult, verified_at: str, note: str
) -> dict[str, object]:
    """A new REF's fields: the API's record, the sources that agree, how a CORRECTED citation
    was wrong, the assessment still to come, and where and when it was verified (`note`:
    degraded_note)."""
    record = _from_record(paper)
    return {
        **record,
        "Authors": ", ".join(map(comma_free, paper.get("authors") or []))
        or "(not given by the API)",
        "Year": paper.get("year") or "",
        "Source": source_field(agreeing(result, paper)),
        "Venue": venue_text(paper),
        "Corrected": corrected_text(result),
        "Abstract": record["Abstract"] or NO_ABSTRACT,
        **dict.fromkeys(RELEVANCE_FIELDS, NOT_ASSESSED),
        "Verified": _verified(verified_at, result["verified_via"], note),
    }


def moved_from(was: Entry, verified_at: str) -> str:
    """A moved UREF's number on its REF's `Moved from:` line (a number is never used again, nor
    lost)."""
    return f"{was.entry_number} (unconfirmed until {verified_at[:10]})"


def carried_fields(was: Entry, verified_at: str) -> dict[str, object]:
    """What a UREF a run confirms carries into its new REF: its relevance and its number (a
    person's own lines move too: Entry.keep_hand_written)."""
    return {"Relevance": was.relevance or NOT_ASSESSED, "Moved from": moved_from(was, verified_at)}


def update_ref_fields(
    entry: Entry,
    paper: PaperDict,
    result: VerificationResult,
    keys: list[Key],
    verified_at: str,
    note: str,
) -> list[str]:
    """Bring an existing REF up to this verification (see the module docstring); the names of
    the fields changed."""
    changed: list[str] = []
    if entry.set_field("Source", source_field({entry.source or "", *agreeing(result, paper)})):
        changed.append("Source")
    for name, value in _from_record(paper).items():
        if value and entry.field(name) in (None, "", NO_ABSTRACT):
            entry.set_field(name, value)
            changed.append(name)
    tags = entry.ids + [tag for tag in paper_tags(paper, keys) if tag not in entry.ids]
    if entry.set_ids(tags):
        changed.append("ids")
    first = first_verified(entry, verified_at)
    if entry.set_field("Verified", verified_line(entry, result, verified_at, note)):
        changed.append("Verified")
    if first != entry.verified_at and entry.set_field("First verified", first):
        changed.append("First verified")
    return changed


def verified_line(entry: Entry, result: VerificationResult, verified_at: str, note: str) -> str:
    """An existing REF's Verified line after this verification: every URL it was ever
    verified through (old first), the latest timestamp, and the latest verification's note
    on an unavailable service."""
    old = entry.field("Verified") or ""
    urls = list(dict.fromkeys([*entry.verified_via, *result["verified_via"]]))
    at: str | None  # the entry's own time only when it has one (later otherwise)
    if later(verified_at, entry.verified_at):
        at = verified_at
    else:
        last_url = entry.verified_via[-1] if entry.verified_via else None
        at = entry.verified_at
        note = old[old.rindex(last_url) + len(last_url) :].rstrip() if last_url else ""
    return _verified(at, urls, note)


def first_verified(entry: Entry, verified_at: str) -> str:
    """When this REF was first verified, kept on a `First verified:` line once the Verified
    time moves on: the date a reference entered the document never changes, and journal.py
    check dates that evidence by it (a re-check is not new evidence)."""
    times: list[str | None] = [entry.field("First verified"), entry.verified_at, verified_at]
    return min((t for t in times if t), key=_time)


def suggestion_text(result: VerificationResult) -> str:
    """A UREF's Suggestion: the different paper a title search found ("" when none)."""
    suggestion = result.get("suggestion")
    if not suggestion:
        return ""
    return (
        f"{summary_line(suggestion)} -- a different paper a title search found; "
        "verify it before citing"
    )


def new_uref_fields(
    result: VerificationResult, fields: CitedFields, candidate: Mapping[str, object]
) -> dict[str, object]:
    """A new UREF's fields: what the citation gives (`fields`: identity.cited_fields), why it
    is unconfirmed, and the assessment still to come."""
    authors = fields["authors"]
    return {
        "Authors": ", ".join(map(comma_free, authors))
        if isinstance(authors, list)
        else authors or UNKNOWN,
        "Year": fields["year"] or UNKNOWN,
        "Source": candidate.get("source") or result.get("source") or "unknown",
        "Reason": result["reason"],
        "Relevance": NOT_ASSESSED,
        "Suggestion": suggestion_text(result),
        "Status": UREF_STATUS,
    }


def update_uref_fields(entry: Entry, result: VerificationResult) -> list[str]:
    """An existing UREF after this run: its Reason and Suggestion are the latest run's."""
    return [
        name
        for name, value in (("Reason", result["reason"]), ("Suggestion", suggestion_text(result)))
        if value and entry.set_field(name, value)
    ]


def paper_key(result: VerificationResult) -> str | None:
    """The key of the paper a CONFIRMED or CORRECTED result identified; None for an
    UNCONFIRMED one."""
    if result["status"] not in IDENTIFIED:
        return None
    return (result.get("paper") or {}).get("key")


def assessment(relevance: Relevance, result: VerificationResult) -> dict[str, str]:
    """The model's relevance for a result, looked up by candidate key, then (CONFIRMED and
    CORRECTED only) by the identified paper's key. An UNCONFIRMED result is not the paper
    any identifier of it points to, so it never takes relevance written for another key."""
    for key in (result["key"], paper_key(result)):
        if key in relevance:
            return relevance[key]
    return {}


def fill_assessment(entry: Entry, given: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """Fill the fields still unassessed from the model's assessment `given`: the names filled,
    and the names whose prose it would rewrite (kept as they are)."""
    changed, kept = [], []
    for name, word in (RELEVANCE_FIELDS if entry.kind == "REF" else UREF_ASSESSED).items():
        value = " ".join((given.get(word) or "").split())
        if not value:
            continue
        if entry.field(name) in (None, "", NOT_ASSESSED):
            entry.set_field(name, given[word])
            changed.append(name)
        elif value != " ".join((entry.field(name) or "").split()):
            kept.append(name)
    return changed, kept


class Merge:
    """One merge of a verification result into a parsed document (edits `doc` in place)."""

    def __init__(
        self, doc: LiteratureDoc, verified: VerificationDocument, relevance: Relevance | None
    ):
        self.doc = doc
        self.verified = verified
        self.at = verified["verified_at"]
        # schemas/relevance: each key's fields are strings
        self.relevance: Relevance = relevance or {}
        self.index = Index(doc)
        self.note = degraded_note(verified)
        self.last = {kind: doc.high_water(kind) for kind in ("REF", "UREF")}
        self.report = no_changes()

    def apply(self) -> None:
        """The confirmed results first: an unconfirmed one (a reference left pending by a
        failing service, a remembered paper) that is a paper this run confirms is that REF."""
        results = self.verified["results"]
        for result in [r for r in results if r["status"] in IDENTIFIED]:
            self.confirmed(result)
        for result in [r for r in results if r["status"] not in IDENTIFIED]:
            self.unconfirmed(result)

    def assess(self, entry: Entry, result: VerificationResult) -> list[str]:
        """The model's assessment of `result` into `entry`'s unassessed fields; the names
        filled. A REF's prose it would rewrite is kept, and reported (`kept`)."""
        changed, kept = fill_assessment(entry, assessment(self.relevance, result))
        if kept and entry.kind == "REF":
            self.report["kept"].append(
                {"ref": entry.entry_number, "key": result["key"], "fields": kept}
            )
        return changed

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
            changed = update_ref_fields(existing, paper, result, keys, self.at, self.note)
            changed += self.assess(existing, result)
            self.index.add(existing, keys)
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
        values = new_ref_fields(paper, result, self.at, self.note)
        if was is not None:
            values |= carried_fields(was, self.at)
        entry = Entry.new("REF", number, paper.get("title", ""), values, paper_tags(paper, keys))
        if was is not None:
            entry.keep_hand_written(was)  # a person's notes move with the entry
        self.assess(entry, result)
        self.doc.section(CONFIRMED).add_entry(entry)
        self.index.add(entry, keys)
        corrected = result["status"] == "CORRECTED"
        if was is not None:
            self.remove(was)
            promoted: Promoted = {
                "from": was.entry_number,
                "to": entry.entry_number,
                "ref": entry.entry_number,
                "key": result["key"],
                "title": entry.title,
            }
            if corrected:
                promoted["corrected"] = [d["field"] for d in result["discrepancies"]]
            self.report["promoted"].append(promoted)
        else:
            added: Added = {"ref": entry.entry_number, "key": result["key"], "title": entry.title}
            if corrected:
                added["corrected"] = [d["field"] for d in result["discrepancies"]]
            self.report["added"].append(added)

    def unconfirmed_entry(self, result: VerificationResult, keys: list[Key]) -> Entry | None:
        """The UREF a confirmed result is: the one its candidate names (a UREF retried in place),
        else one the paper's or the citation's keys find whose title is the record's or the
        citation's (a claimed id alone never makes an unconfirmed reference this paper)."""
        candidate = result.get("candidate") or {}
        named = self.index.by_number.get(str(candidate.get("entry") or ""))
        if named is not None and named.kind == "UREF":
            return named
        was = self.index.find("UREF", keys) or self.index.cited("UREF", candidate)
        fields = cited_fields(candidate)  # a free-text citation's title is the citation whole
        record = (result.get("paper") or {}).get("title")
        given = (fields["title"], cited_title_authors(fields["title"], fields["authors"])[0])
        titles = {normalise_title(t) for t in (record, *given) if isinstance(t, str) and t}
        if was is None:
            return None
        own = {was.title, cited_title_authors(was.title, was.authors)[0]}
        return was if {normalise_title(str(t)) for t in own} & titles else None

    def moved(self, was: Entry, ref: Entry) -> None:
        """A UREF found to be the paper of an existing REF: removed, its number kept on the
        REF's `Moved from:` line (a number is never used again, nor lost)."""
        earlier = ref.field("Moved from")
        ref.set_field("Moved from", "; ".join(filter(None, [earlier, moved_from(was, self.at)])))
        ref.keep_hand_written(was)
        self.remove(was)

    def remove(self, was: Entry) -> None:
        """A UREF off the document and its index (its REF holds it now)."""
        self.doc.section(UNCONFIRMED).remove_entry(was)
        self.index.drop(was)

    def unconfirmed(self, result: VerificationResult) -> None:
        candidate = result.get("candidate") or {}
        fields = cited_fields(candidate)
        keys = identity(**fields)
        confirmed = self.index.cited("REF", candidate)
        if confirmed is not None:  # the paper is a REF: one entry, and a UREF of it moves in
            was = self.index.cited("UREF", candidate)
            if was is not None:
                self.moved(was, confirmed)
                self.report["merged"].append(
                    {"from": was.entry_number, "to": confirmed.entry_number, "key": result["key"]}
                )
                return
            self.report["skipped"].append(
                {"key": result["key"], "reason": f"already confirmed as {confirmed.entry_number}"}
            )
            return
        existing = self.index.cited("UREF", candidate)
        if existing is not None:
            changed = update_uref_fields(existing, result)
            changed += self.assess(existing, result)
            if changed:
                self.report["unconfirmed_updated"].append(
                    {"uref": existing.entry_number, "key": result["key"], "fields": changed}
                )
            return
        number = self.last["UREF"] = self.last["UREF"] + 1
        # A blank title would make a heading the parser cannot read back: the key stands in.
        title = one_line(fields["title"] or "") or result["key"]
        entry = Entry.new(
            "UREF", number, title, new_uref_fields(result, fields, candidate), id_tags(keys)
        )
        self.assess(entry, result)
        self.doc.section(UNCONFIRMED).add_entry(entry)
        self.index.add(entry, keys)
        self.report["unconfirmed_added"].append(
            {"uref": entry.entry_number, "key": result["key"], "title": entry.title}
        )

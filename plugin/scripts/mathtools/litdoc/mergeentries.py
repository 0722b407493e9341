"""The entries one merge writes into LITERATURE.md (protocol sections 3, 4 and 8): each result of a
verification file made a REF (CONFIRMED, CORRECTED) or a UREF (UNCONFIRMED), or the entry already
there updated, moved or left as it is; and what happened to each, as typed report items.

The rules are in merging.py's docstring (merging.merge runs a Merge over a parsed document, then
writes the Search History row, the counts and the fingerprint). Relevance, Key Results and
Confidence come from the model's relevance file and only fill fields still unassessed; relevance
that would rewrite prose already there is not taken, and the report's `kept` says so.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TypedDict

from ..core import (
    IDENTIFIED,
    BadInput,
    PaperDict,
    VerificationDocument,
    VerificationResult,
    comma_free,
    normalise_title,
    parse_stamp,
    summary_line,
)
from .identity import (
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
from .mergefields import corrected_text, degraded_note, source_field, venue_text
from .refentry import Entry, one_line, retracted_text

NO_ABSTRACT = "(no abstract from the API)"
RELEVANCE_FIELDS = {
    "Relevance": "relevance",
    "Key Results": "key_results",
    "Confidence": "confidence",
}


# The model's assessment of one paper, by candidate or paper key (schemas/relevance.schema.json).
Relevance = dict[str, dict[str, str]]


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


def _agreeing(result: VerificationResult, paper: PaperDict) -> set[str]:
    """The services whose records confirmed a result (`sources`; before there were four, the
    one `source`)."""
    return set(result.get("sources") or [result.get("source") or paper.get("source") or ""])


def later(new: str, old: str | None) -> bool:
    """Whether the time `new` is after `old` (always, when there is no `old`)."""
    return not old or _time(new) > _time(old)


def _time(stamp: str) -> datetime:
    """An ISO 8601 time as an aware datetime; a hand-written one that does not parse sorts first."""
    try:
        return parse_stamp(stamp)
    except ValueError:
        return datetime.min.replace(tzinfo=timezone.utc)


def paper_key(result: VerificationResult) -> str | None:
    """The key of the paper a CONFIRMED or CORRECTED result identified; None for an
    UNCONFIRMED one."""
    if result["status"] not in IDENTIFIED:
        return None
    return (result.get("paper") or {}).get("key")


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
        self.report = no_changes()

    def assessment(self, result: VerificationResult) -> dict[str, str]:
        """The model's relevance for a result, looked up by candidate key, then (CONFIRMED and
        CORRECTED only) by the identified paper's key. An UNCONFIRMED result is not the paper
        any identifier of it points to, so it never takes relevance written for another key."""
        for key in (result["key"], paper_key(result)):
            if key in self.relevance:
                return self.relevance[key]
        return {}

    def fill_assessment(self, entry: Entry, result: VerificationResult) -> list[str]:
        """Fill the fields still unassessed from the model's assessment of `result`; the names
        filled. A REF's prose the assessment would rewrite is kept, and reported (`kept`)."""
        assessment = self.assessment(result)
        names = RELEVANCE_FIELDS if entry.kind == "REF" else {"Relevance": "relevance"}
        changed, kept = [], []
        for name, key in names.items():
            given = " ".join((assessment.get(key) or "").split())
            if not given:
                continue
            if entry.field(name) in (None, "", NOT_ASSESSED):
                entry.set_field(name, assessment[key])
                changed.append(name)
            elif given != " ".join((entry.field(name) or "").split()):
                kept.append(name)
        if kept and entry.kind == "REF":
            self.report["kept"].append(
                {"ref": entry.entry_number, "key": result["key"], "fields": kept}
            )
        return changed

    def apply(self) -> None:
        """The confirmed results first: an unconfirmed one (a reference left pending by a
        failing service, a remembered paper) that is a paper this run confirms is that REF."""
        results = self.verified["results"]
        for result in [r for r in results if r["status"] in IDENTIFIED]:
            self.confirmed(result)
        for result in [r for r in results if r["status"] not in IDENTIFIED]:
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
        if was is not None:
            entry.keep_hand_written(was)  # a person's notes move with the entry
        self.fill_assessment(entry, result)
        self.doc.section(CONFIRMED).add_entry(entry)
        self.index.add(entry, keys)
        corrected = result["status"] == "CORRECTED"
        if was is not None:
            self.doc.section(UNCONFIRMED).remove_entry(was)
            self.index.drop(was)
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

    def moved_from(self, was: Entry) -> str:
        return f"{was.entry_number} (unconfirmed until {self.verified['verified_at'][:10]})"

    def moved(self, was: Entry, ref: Entry) -> None:
        """A UREF found to be the paper of an existing REF: removed, its number kept on the
        REF's `Moved from:` line (a number is never used again, nor lost)."""
        earlier = ref.field("Moved from")
        ref.set_field("Moved from", "; ".join(filter(None, [earlier, self.moved_from(was)])))
        ref.keep_hand_written(was)
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
        changed += self.fill_assessment(entry, result)
        self.index.add(entry, keys)
        return changed

    def verified_value(self, entry: Entry, result: VerificationResult) -> str:
        """An existing REF's Verified line after this verification: every URL it was ever
        verified through (old first), the latest timestamp, and the latest verification's note
        on an unavailable service."""
        old = entry.field("Verified") or ""
        urls = list(dict.fromkeys([*entry.verified_via, *result["verified_via"]]))
        at: str | None  # the entry's own time only when it has one (later otherwise)
        if later(self.verified["verified_at"], entry.verified_at):
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
            changed += self.fill_assessment(existing, result)
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
        self.fill_assessment(entry, result)
        self.doc.section(UNCONFIRMED).add_entry(entry)
        self.index.add(entry, keys)
        self.report["unconfirmed_added"].append(
            {"uref": entry.entry_number, "key": result["key"], "title": entry.title}
        )

"""Does a returned paper record match a cited reference? The one place the matching rules live.

The rules (documented for people in docs/matching-rules.md):

- Title: core/titles.py (title_score, typographic_only, misspelled): the same content words in
  the same order, a subtitle or a place and date the citation leaves out forgiven, never text
  it adds; written differently or misspelled, the title is corrected.
- Authors, all of them: every cited name is paired with its own record author of that family
  name (a maximum matching), after Unicode folding. Names may be "Given Family", "Family,
  Given", initials-only ("Gould, A.", "A. Gould"), with particles ("van der Merwe", "de With"),
  umlauts transliterated ("Goetz"), and truncated ("et al.", "et. al.", "and others"). A record
  author's family name is the last word of the name; an earlier word counts only as part of a
  compound family name (cited whole, hyphenated, or written "Family, Given" in the record), so a
  middle name ("Kumar" in "Mohit Kumar Ahuja") never matches. A cited given name or initial must
  agree (given_agrees). A cited author who is not an author, a given name that disagrees and a
  proper subset cited without "et al." are `authors` discrepancies.
- Year, by version: a citation naming a journal (or a DOI that is not arXiv's) cites the published
  version, and its year is compared with the published version's (published_years: the journal
  reference's, a journal record's year and date), never with the preprint's: a record that knows
  only the preprint leaves it unchecked, and sources that disagree on it leave it uncorrected
  (identification.py); one year off is accepted where the record has an arXiv version (an
  author giving the preprint's year, one off, for the journal version). Any other citation: a
  year the record gives (record_years), or one off where the record shows why (an arXiv
  version and a published venue).
- Venue, volume, pages: venuematch.venue_discrepancies, by venue_agrees (ISO 4 abbreviations,
  acronyms, proceedings variants, a workshop never its host) and translated_venue (a
  translation journal and its original); a journal cited for a preprint-only record, a preprint
  server cited for a published one, a book cited as an article.

- A field the record does not give (no usable title, author list or year) is no evidence:
  neither confirmed nor contradicted, it is left out and the reason names whose record lacked it.

`compare(candidate, paper)` applies them to what the candidate gives and returns a Match: the
checks, the discrepancies (schemas/verification.schema.json) and whether the record identifies
the cited paper at all (Match.identifies); verification.py turns that into the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core import (
    ARXIV_DOI_PREFIX,
    NAMES,
    TITLE_THRESHOLD,
    Checks,
    Discrepancy,
    Paper,
    check_authors,
    is_preprint_venue,
    misspelled,
    split_authors,
    title_score,
    typographic_only,
)
from .venuematch import translated_venue, venue_discrepancies

YEAR_TOLERANCE = 1
# How far a preprint's year may be from the year cited for the paper it became (arXiv's year
# against the journal's), the record an arXiv preprint and every other field agreeing: then the
# year is corrected, not a different paper. Measured: the recorded arXiv entries with a journal
# reference are published 0 to 2 years from their first version (3 of 19 two years off); HALLMARK
# shifts a year by one for its arXiv-versus-venue confusions, which YEAR_TOLERANCE covers.
PREPRINT_YEAR_BOUND = 2
# A translation's title is the translator's, not the original's record's: cited with the
# translation journal of the record's journal (or its original), every author and the year
# agreeing, a title sharing at least this much (title_score) names the record, corrected.
TRANSLATED_TITLE_MIN = 0.5
NOTHING: tuple[object, ...] = (None, "", [])  # a field the candidate does not give


# ----------------------------------------------------------------------------- year


def record_years(paper: Paper) -> set[int]:
    """The years the record itself gives the paper: its year, the first and latest arXiv
    versions', the publication date's and any year in the journal reference."""
    years = {paper.year} if paper.year else set()
    for stamp in (paper.published, paper.updated, paper.publication_date):
        if stamp and re.match(r"\d{4}", stamp):
            years.add(int(stamp[:4]))
    years |= {int(y) for y in re.findall(r"\b(1[5-9]\d\d|20\d\d)\b", paper.journal_ref or "")}
    return years


def cites_published(candidate: Mapping[str, Any]) -> bool:
    """Whether a citation cites the published version: it names a venue that is no preprint
    server, or a DOI that is not arXiv's own."""
    venue = candidate.get("venue")
    doi = str(candidate.get("doi") or "").lower()
    return bool(venue and not is_preprint_venue(venue)) or bool(
        doi and not doi.startswith(ARXIV_DOI_PREFIX)
    )


def published_years(paper: Paper) -> set[int]:
    """The years a record gives the published version: the year in arXiv's journal reference;
    for a record that is not the preprint's (Crossref, zbMATH Open, OpenAlex, Semantic Scholar:
    a venue that is no preprint server, or no arXiv id), its publication date's year and its
    year, except Semantic Scholar's year when it knows an arXiv id (its year is then the first
    version's, often the preprint's)."""
    years = {int(y) for y in re.findall(r"\b(1[5-9]\d\d|20\d\d)\b", paper.journal_ref or "")}
    doi = (paper.doi or "").lower()
    preprint = paper.source == "arxiv" or doi.startswith(ARXIV_DOI_PREFIX)
    if preprint or is_preprint_venue(paper.venue) or (paper.arxiv_id and not paper.venue):
        return years  # a record of the preprint
    stamp = paper.publication_date or ""
    if re.match(r"\d{4}", stamp):
        years.add(int(stamp[:4]))
    if paper.year and not (paper.source == "semantic_scholar" and paper.arxiv_id):
        years.add(paper.year)
    return years


def year_agrees(cited: int, paper: Paper, translated: bool = False) -> bool:
    """A cited year is one the record gives; or within YEAR_TOLERANCE of one when the record
    shows why: it has both an arXiv version and a published venue (the preprint's year against
    the journal's), or the citation names the record's journal's translation (or original),
    which may come out a year later."""
    years = record_years(paper)
    if not years or cited in years:
        return True
    explained = bool(paper.arxiv_id and paper.venue) or translated
    return explained and any(abs(cited - year) <= YEAR_TOLERANCE for year in years)


# ----------------------------------------------------------------------------- the verdict


@dataclass
class Match:
    """The result of comparing one candidate with one returned record.

    `title_ok` says whether the titles match (None: no title cited); the other fields the
    candidate gives are `discrepancies` (schemas/verification.schema.json), each naming the
    field, the cited value, the record's value and a short note. Whether the record is the cited
    paper at all is `identifies()`; the verdict is for verification.py."""

    title_score: float | None = None
    title_ok: bool | None = None
    matched_authors: list[str] = field(default_factory=list)
    authors_contradicted: bool = False  # authors cited, none of them an author of the record
    authors_agree: bool = False  # authors cited, every one an author, the list complete
    misspelled: bool = False  # the title is the record's with typos (identifies by identifier)
    year_diff: int | None = None
    year_ok: bool | None = None
    # the published version's year cited, the record giving only the preprint's: not compared
    year_unpublished: bool = False
    year_disputed: str | None = None  # the sources give the journal different years: why
    year_close: bool = False  # the cited year is within YEAR_TOLERANCE of one the record gives
    # the record is an arXiv preprint whose year is within PREPRINT_YEAR_BOUND of the cited one
    preprint_year: bool = False
    # the title differs, the journal is the translation (or original) of the record's
    translated_title: bool = False
    discrepancies: list[Discrepancy] = field(default_factory=list)
    # fields cited that the record gives nothing usable for ("title", "authors", "year"): no
    # evidence either way, and the reason says whose record lacked them (`lacked_by`)
    unchecked: list[str] = field(default_factory=list)
    lacked_by: str = ""

    @property
    def reason(self) -> str:
        """One line: what differs, else what matched."""
        return _reason(self)

    @property
    def ok(self) -> bool:
        """The record is the paper exactly as cited."""
        return self.title_ok is not False and not self.discrepancies

    def identifies(self, by_identifier: bool) -> bool:
        """Whether the record is the cited paper beyond doubt. Reached through a cited
        identifier: the title agrees (or, no title cited, some cited author is an author).
        Found by a title search: the title agrees after folding (a misspelled one does not) and
        so does the year, or the year is one off and every cited author agrees (or, no year
        cited, some cited author is an author; or, the journal's year cited and the record the
        preprint's, some cited author is an author and the year within PREPRINT_YEAR_BOUND)."""
        if self.title_ok is False:
            return False
        if by_identifier:
            return bool(self.title_ok) or not self.authors_contradicted
        if self.title_ok is None or self.misspelled:
            return False  # a title search identifies only by the title, folded
        if self.translated_title and not self.authors_agree:
            return False
        if self.year_unpublished:  # the journal's year cited, the record the preprint's
            return not self.authors_contradicted and self.preprint_year
        if self.year_ok is not None:
            return self.year_ok or (
                self.authors_agree and (self.year_close or self._published_later())
            )
        return not self.authors_contradicted

    def _published_later(self) -> bool:
        """A preprint published years later: the record is the arXiv preprint, its year within
        PREPRINT_YEAR_BOUND of the cited one, and nothing but the year (and the journal the
        preprint record cannot know) differs. The year is then not corrected when the citation
        names the journal (check_year)."""
        return self.preprint_year and all(
            d["field"] == "year" or (d["field"] == "venue" and d["record"] is None)
            for d in self.discrepancies
        )

    def agreed(self) -> list[str]:
        """The fields this record agrees with as cited: "year", "title", "authors" (every
        cited author an author, the list complete)."""
        fields = {d["field"] for d in self.discrepancies}
        return [
            name
            for name, ok in (
                ("year", self.year_ok),
                ("title", self.title_ok),
                ("authors", self.authors_agree),
            )
            if ok and name not in fields
        ]

    def checks(self) -> Checks:
        return {
            "title_score": self.title_score,
            "matched_authors": list(self.matched_authors),
            "year_diff": self.year_diff,
        }


def compare(candidate: Mapping[str, Any], paper: Paper) -> Match:
    """Check what the candidate gives (title, authors, year, venue, volume, pages) against a
    record the API returned. A title, author list or year the record does not give (an empty
    or malformed field; zbMATH Open's licence sentence) is no evidence: neither confirmed nor
    contradicted, it is left out and named in `unchecked`."""
    match = Match(lacked_by=NAMES.get(paper.source, paper.source))
    lacking = {
        "title": not paper.title,
        "authors": not paper.authors,
        "year": paper.year is None,
    }
    match.unchecked = [
        name for name, absent in lacking.items() if absent and candidate.get(name) not in NOTHING
    ]
    candidate = {k: v for k, v in candidate.items() if k not in match.unchecked}
    title = candidate.get("title")
    translated = bool(candidate.get("venue")) and bool(translated_venue(candidate["venue"], paper))
    if title:
        match.title_score = title_score(title, paper.title or "")
        match.title_ok = match.title_score >= TITLE_THRESHOLD
        if not match.title_ok and misspelled(title, paper.title or ""):
            match.title_ok = match.misspelled = True  # the same words, mistyped: corrected
            note = f"misspelled; the record's title is '{paper.title}'"
            match.discrepancies.append(
                Discrepancy(field="title", cited=title, record=paper.title, note=note)
            )
        elif match.title_ok and not typographic_only(title, paper.title or ""):
            note = f"written differently; the record's title is '{paper.title}'"
            match.discrepancies.append(
                Discrepancy(field="title", cited=title, record=paper.title, note=note)
            )
        elif translated and match.title_score >= TRANSLATED_TITLE_MIN and not match.title_ok:
            match.title_ok = match.translated_title = True  # identifies with every author
            note = f"the translation's title; the record of the original gives '{paper.title}'"
            match.discrepancies.append(
                Discrepancy(field="title", cited=title, record=paper.title, note=note)
            )
    authors = candidate.get("authors")
    cited = split_authors(authors)
    if cited:
        check = check_authors(authors, paper.authors)
        match.matched_authors = check.matched
        match.authors_contradicted = not check.matched
        authors_note = check.note(len(paper.authors), len(cited))
        match.authors_agree = bool(check.matched) and not authors_note
        if authors_note:
            match.discrepancies.append(
                Discrepancy(field="authors", cited=authors, record=paper.authors, note=authors_note)
            )
    if candidate.get("year") is not None:
        check_year(match, int(candidate["year"]), paper, translated, cites_published(candidate))
    match.discrepancies += venue_discrepancies(candidate, paper, translated)
    return match


def check_year(
    match: Match, year: int, paper: Paper, translated: bool = False, published: bool = False
) -> None:
    """The cited year against the record's, into `match`: year_diff, year_ok, year_close,
    preprint_year (an arXiv record within PREPRINT_YEAR_BOUND of the citation) and a `year`
    discrepancy when it disagrees (nothing when the record has no year). A citation of the
    published version (`published`) is compared with the published version's years alone, and
    not at all when the record gives none (year_unpublished); a citation of the translation
    (`translated`) may name a later year."""
    known = published_years(paper) if published else set()
    if paper.year is None and not known:
        return
    gaps = [abs(year - other) for other in record_years(paper)]
    match.preprint_year = bool(paper.arxiv_id) and any(gap <= PREPRINT_YEAR_BOUND for gap in gaps)
    if published and not known:  # the preprint's year says nothing of the journal's
        match.year_unpublished = True
        return
    if known:
        closest = min(sorted(known), key=lambda other: abs(other - year))
        match.year_diff = closest - year
        tolerance = YEAR_TOLERANCE if translated or paper.arxiv_id else 0  # year_agrees' why
        match.year_ok = any(abs(year - other) <= tolerance for other in known)
        match.year_close = abs(year - closest) <= YEAR_TOLERANCE
        recorded = closest
    else:
        assert paper.year is not None  # known is empty only then
        match.year_diff = paper.year - year
        match.year_ok = year_agrees(year, paper, translated)
        match.year_close = any(gap <= YEAR_TOLERANCE for gap in gaps)
        recorded = paper.year
    if not match.year_ok:
        note = f"cited {year}, the record says {recorded}"
        match.discrepancies.append(
            Discrepancy(field="year", cited=year, record=recorded, note=note)
        )


def _reason(match: Match) -> str:
    problems = []
    if match.title_ok is False:
        problems.append(f"title differs (score {match.title_score:.2f})")
    problems += [f"{d['field']}: {d['note']}" for d in match.discrepancies]
    notes = []  # the year by version: said, never a discrepancy
    if match.year_unpublished:
        notes.append("year: the journal's, not compared (the records give only the preprint's)")
    if match.year_disputed:
        notes.append(f"year: as cited, not corrected: {match.year_disputed}")
    unchecked = (
        [f"{' and '.join(match.unchecked)} not checked ({match.lacked_by}'s record gives none)"]
        if match.unchecked
        else []
    )
    if problems:
        return "; ".join([*problems, *notes, *unchecked])
    if unchecked and not (match.title_ok or match.matched_authors or match.year_ok):
        return "; ".join([f"the identifier resolves; {unchecked[0]}", *notes])
    return "; ".join([_agreeing(match), *notes, *unchecked])


def _agreeing(match: Match) -> str:
    """What agreed, when nothing differs."""
    given = [
        what
        for what, present in (
            ("title", match.title_ok is not None),
            ("authors", bool(match.matched_authors)),
            ("year", match.year_ok is not None),
        )
        if present
    ]
    if not given:
        return "the identifier resolves; no title, authors or year were given to compare"
    return f"{', '.join(given)} match"


def describe(paper: Paper, max_authors: int = 3) -> str:
    """`'<title>' by A, B, C et al. (year)`: how a reason names a real paper."""
    names = paper.authors[:max_authors]
    who = ", ".join(names) + (" et al." if len(paper.authors) > max_authors else "")
    year = f" ({paper.year})" if paper.year else ""
    return f"'{paper.title}' by {who or 'unknown authors'}{year}"

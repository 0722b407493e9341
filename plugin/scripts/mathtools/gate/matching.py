"""Does a returned paper record match a cited reference? The one place the matching rules live.

The rules (documented for people in docs/matching-rules.md):

- Title: both titles are normalised (LaTeX unwrapped, Unicode folded with umlauts dropped and,
  in a second comparison, transliterated as ae/oe/ue, Greek letters spelled out, case and
  punctuation dropped, a few function words ignored, English plurals and British spellings
  folded) into content words. The similarity is the Dice coefficient of the two content-word
  sequences taken in order, 2 * LCS / (len(a) + len(b)) with LCS the longest common subsequence.
  The threshold is 1.0: every content word of each title must be accounted for, in the same order
  ("Markov bases with heat-bath random walks" is not "Heat-bath random walks with Markov bases").
  A near-miss title differs in one content word, so any lower threshold would let it through on a
  long enough title (the recordings hold two real papers by one author, arXiv:1106.3680 "... for
  DNA Screening" and arXiv:1306.4664 "... for Genetic Screening"). Titles still match when they
  differ only by case, punctuation, a trailing period, hyphenation ("Heat-bath" / "Heat bath" /
  "Heatbath": the titles are also compared with spaces removed) or by a subtitle the citation left
  out (it equals the record's title before ":" or a spaced dash: " - ", " -- ", " – "). A
  citation that adds text the record lacks does not match: that is what two real titles glued
  together look like.
- Authors, all of them: every cited name is paired with its own record author of that family
  name (a maximum matching), after Unicode folding. Names may be "Given Family", "Family,
  Given", initials-only ("Gould, A.", "A. Gould"), with particles ("van der Merwe", "de With"),
  umlauts transliterated ("Goetz"), and truncated ("et al.", "et. al.", "and others"). A record
  author's family name is the last word of the name; an earlier word counts only as part of a
  compound family name (cited whole, hyphenated, or written "Family, Given" in the record), so a
  middle name ("Kumar" in "Mohit Kumar Ahuja") never matches. A cited given name or initial must
  agree (given_agrees). A cited author who is not an author, a given name that disagrees and a
  proper subset cited without "et al." are `authors` discrepancies.
- Year: one the record gives (record_years), or one off where the record shows why (an arXiv
  version and a published venue).
- Venue, volume, pages: venuematch.venue_agrees (ISO 4 abbreviations, acronyms, proceedings
  variants, a workshop never its host) and translated_venue (a translation journal and its
  original); a journal cited for a preprint-only record, a preprint server cited for a
  published one, a book cited as an article.

`compare(candidate, paper)` applies them to what the candidate gives and returns a Match: the
checks, the discrepancies (schemas/verification.schema.json) and whether the record identifies
the cited paper at all (Match.identifies); verification.py turns that into the verdict.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.authors import check_authors, split_authors
from ..core.records import Checks, Discrepancy, Paper
from ..core.text import FUNCTION_WORDS, fold, stem, strip_latex
from ..core.venues import is_preprint_venue
from .venuematch import numbers, translated_venue, venue_agrees, venue_names

# Document types (Paper.document_type, Crossref's names) of a whole book: cited with a journal,
# volume and pages, it is miscited as an article.
BOOK_TYPES = frozenset({"book", "monograph", "edited-book", "reference-book", "book-set"})
TITLE_THRESHOLD = 1.0
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
MAX_TYPOS = 2  # mistyped words a title may have and still name the record (misspelled())
TYPO_MIN_LETTERS = 5  # shorter words are too close to other words ("DNA", "RNA")


# After strip_latex, so a spaced "--" or "---" is a spaced "-" here.
SUBTITLE_SEPARATOR = re.compile(r"\s*(?::|\s[-–—]\s)\s*")


def title_words(title: str, umlauts: bool = False) -> list[str]:
    """The content words of a title, normalised (see the module docstring; `umlauts` as in
    fold())."""
    plain = fold(strip_latex(title), umlauts)
    words = re.findall(r"[a-z0-9]+", plain)
    return [stem(w) for w in words if w not in FUNCTION_WORDS]


def normalise_title(title: str) -> str:
    """The title folded to lower-case words separated by single spaces (function words kept)."""
    return " ".join(re.findall(r"[a-z0-9]+", fold(strip_latex(title))))


def main_title(title: str) -> str | None:
    """The title before its subtitle separator, or None when it has no subtitle."""
    parts = SUBTITLE_SEPARATOR.split(strip_latex(title).strip(), maxsplit=1)
    return parts[0] if len(parts) == 2 and parts[0] and parts[1] else None


# A trailing note of the paper's language ("(Russian)", "(Russian. English summary)", "(in
# French)"): zbMATH and bibliographies add it; it is not part of the title.
LANGUAGES = (
    "russian|ukrainian|belarusian|bulgarian|serbian|croatian|czech|slovak|polish|hungarian|"
    "romanian|german|french|italian|spanish|portuguese|dutch|swedish|norwegian|danish|"
    "finnish|estonian|latvian|lithuanian|greek|turkish|chinese|japanese|korean|english|"
    "georgian|armenian|hebrew|arabic|persian|latin"
)
LANGUAGE_NOTE = re.compile(
    rf"\s*\((?:in\s+)?(?:{LANGUAGES})(?:\s*[.,;]?\s*(?:with\s+an?\s+)?(?:{LANGUAGES})"
    rf"\s+(?:summary|abstract))?\.?\)\s*\.?\s*$",
    re.IGNORECASE,
)
# A tail of a book's or proceedings' title that is its place and date (", University of
# Wisconsin-Madison, WI, USA, July 16--20, 2018", "..., 1998 : proceedings"), which a citation
# may leave out: words, then a year at its end. A bare span of years (", 1880-1914") is a
# history's subject, part of its title.
DATED_TAIL = re.compile(
    r"[^\W\d_].*\b(?:1[5-9]|20)\d\d\b[\s.:;,]*(?:proceedings)?[\s.]*$", re.IGNORECASE
)


def bare_title(title: str) -> str:
    """The title without a trailing language note."""
    return LANGUAGE_NOTE.sub("", title)


def title_heads(title: str) -> list[str]:
    """What a citation may give of a record's title instead of all of it: the title before its
    subtitle (main_title) and before each comma whose tail holds a year (a place and date)."""
    heads = [main_title(title) or ""]
    for comma in re.finditer(",", title):
        if DATED_TAIL.search(title[comma.end() :]) and title[: comma.start()].strip():
            heads.append(title[: comma.start()])
    return [head for head in heads if head]


def _surface(title: str, umlauts: bool) -> str:
    """A title as written, folded only where a citation's form does not change its words: case,
    braces, LaTeX or Unicode accents and Greek, punctuation (dropped, not read as a space) and
    spacing."""
    text = strip_latex(bare_title(title))
    text = "".join(
        fold(ch).strip() if "\u0370" <= ch <= "\u03ff" else ch
        for ch in unicodedata.normalize("NFC", text)
    )
    text = re.sub(r"[^\w\s]|_", "", fold(text, umlauts))
    return " ".join(text.split())


def typographic_only(cited: str, record: str) -> bool:
    """Whether a cited title is the record's (or a head of it, title_heads) but for case, braces,
    accents, punctuation and spacing: a title that matches only after folding words (a plural,
    a British spelling, a function word, a hyphen read as a space) is corrected, not
    confirmed."""
    return any(
        _surface(cited, umlauts) == _surface(whole, umlauts)
        for whole in (record, *title_heads(bare_title(record)))
        for umlauts in (False, True)
    )


def misspelled(cited: str, record: str) -> bool:
    """Whether a cited title is the record's with typos only: the same content words in the same
    order, at most MAX_TYPOS of them (each of at least TYPO_MIN_LETTERS letters) one edit apart
    (a letter added, dropped, changed, or two swapped). A word dropped, added or replaced by
    another word is a different title (a near miss), never a typo."""
    a, b = title_words(cited), title_words(record)
    if len(a) != len(b):
        return False
    typos = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return 0 < len(typos) <= MAX_TYPOS and all(
        min(len(x), len(y)) >= TYPO_MIN_LETTERS and _one_edit(x, y) for x, y in typos
    )


def _one_edit(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diffs) == 1 or (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and a[diffs[0]] == b[diffs[1]]
            and a[diffs[1]] == b[diffs[0]]
        )
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _similarity(a: list[str], b: list[str]) -> float:
    """Dice coefficient on words in order: 2 * LCS / (len(a) + len(b)), where LCS is the length
    of the longest common subsequence of the two word lists."""
    if not a or not b:
        return 0.0
    if "".join(a) == "".join(b):
        return 1.0  # hyphenation: "heat bath" and "heatbath"
    previous = [0] * (len(b) + 1)
    for word in a:
        row = [0]
        for j, other in enumerate(b):
            row.append(previous[j] + 1 if word == other else max(previous[j + 1], row[j]))
        previous = row
    return 2 * previous[-1] / (len(a) + len(b))


def title_score(cited: str, record: str) -> float:
    """Similarity of a cited title to a record's title, in [0, 1]; 1.0 means they match.

    The best of the whole record title and the record's main title (the citation may leave the
    subtitle out), with umlauts dropped ("Schrodinger") or transliterated ("Schroedinger"). Not
    symmetric on purpose: text the citation adds is never forgiven."""
    cited, record = bare_title(cited), bare_title(record)
    heads = title_heads(record)
    best = 0.0
    for umlauts in (False, True):
        cited_words = title_words(cited, umlauts)
        score = _similarity(cited_words, title_words(record, umlauts))
        if any(_similarity(cited_words, title_words(h, umlauts)) == 1.0 for h in heads):
            score = 1.0
        best = max(best, score)
    return round(best, 4)


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

DISCREPANCY_FIELDS = (
    "title",
    "authors",
    "year",
    "venue",
    "volume",
    "pages",
    "doi",
    "arxiv_id",
    "zbl",
    "version",
)


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
    year_close: bool = False  # the cited year is within YEAR_TOLERANCE of one the record gives
    # the record is an arXiv preprint whose year is within PREPRINT_YEAR_BOUND of the cited one
    preprint_year: bool = False
    # the title differs, the journal is the translation (or original) of the record's
    translated_title: bool = False
    discrepancies: list[Discrepancy] = field(default_factory=list)

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
        cited, some cited author is an author)."""
        if self.title_ok is False:
            return False
        if by_identifier:
            return bool(self.title_ok) or not self.authors_contradicted
        if self.title_ok is None or self.misspelled:
            return False  # a title search identifies only by the title, folded
        if self.translated_title and not self.authors_agree:
            return False
        if self.year_ok is not None:
            return self.year_ok or (
                self.authors_agree and (self.year_close or self._published_later())
            )
        return not self.authors_contradicted

    def _published_later(self) -> bool:
        """A preprint published years later: the record is the arXiv preprint, its year within
        PREPRINT_YEAR_BOUND of the cited one, and nothing but the year (and the journal the
        preprint record cannot know) differs."""
        return self.preprint_year and all(
            d["field"] == "year" or (d["field"] == "venue" and d["record"] is None)
            for d in self.discrepancies
        )

    def agreed(self) -> list[str]:
        """The fields this record agrees with as cited: "year", "title"."""
        fields = {d["field"] for d in self.discrepancies}
        return [
            name
            for name, ok in (("year", self.year_ok), ("title", self.title_ok))
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
    record the API returned."""
    match = Match()
    title = candidate.get("title")
    translated = bool(candidate.get("venue")) and bool(translated_venue(candidate["venue"], paper))
    if title:
        match.title_score = title_score(title, paper.title or "")
        match.title_ok = match.title_score >= TITLE_THRESHOLD
        if not match.title_ok and misspelled(title, paper.title or ""):
            match.title_ok = match.misspelled = True  # the same words, mistyped: corrected
            note = f"misspelled; the record's title is '{paper.title}'"
            match.discrepancies.append(_discrepancy("title", title, paper.title, note))
        elif match.title_ok and not typographic_only(title, paper.title or ""):
            note = f"written differently; the record's title is '{paper.title}'"
            match.discrepancies.append(_discrepancy("title", title, paper.title, note))
        elif translated and match.title_score >= TRANSLATED_TITLE_MIN and not match.title_ok:
            match.title_ok = match.translated_title = True  # identifies with every author
            note = f"the translation's title; the record of the original gives '{paper.title}'"
            match.discrepancies.append(_discrepancy("title", title, paper.title, note))
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
                _discrepancy("authors", authors, paper.authors, authors_note)
            )
    if candidate.get("year") is not None:
        check_year(match, int(candidate["year"]), paper, translated)
    match.discrepancies += _venue_discrepancies(candidate, paper, translated)
    return match


def check_year(match: Match, year: int, paper: Paper, translated: bool = False) -> None:
    """The cited year against the record's, into `match`: year_diff, year_ok, year_close,
    preprint_year (an arXiv record within PREPRINT_YEAR_BOUND of the citation) and a `year`
    discrepancy when it disagrees (nothing when the record has no year). A citation of the
    translation (`translated`) may name a later year."""
    if paper.year is None:
        return
    match.year_diff = paper.year - year
    match.year_ok = year_agrees(year, paper, translated)
    gaps = [abs(year - known) for known in record_years(paper)]
    match.year_close = any(gap <= YEAR_TOLERANCE for gap in gaps)
    match.preprint_year = bool(paper.arxiv_id) and any(gap <= PREPRINT_YEAR_BOUND for gap in gaps)
    if not match.year_ok:
        note = f"cited {year}, the record says {paper.year}"
        match.discrepancies.append(_discrepancy("year", year, paper.year, note))


def _discrepancy(name: str, cited: object, record: object, note: str) -> Discrepancy:
    return {"field": name, "cited": cited, "record": record, "note": note}


def _venue_discrepancies(
    candidate: Mapping[str, Any], paper: Paper, translated: bool = False
) -> list[Discrepancy]:
    """The venue, volume and pages the candidate gives, against the record's. A preprint
    server cited for a published paper is a `version` discrepancy; a journal cited for a paper
    the record knows only as a preprint is a `venue` one. A cited translation journal of the
    record's journal (or its original, `translated`) agrees, its volume and pages another
    journal's."""
    venue = (candidate.get("venue") or "").strip()
    found: list[Discrepancy] = []
    if translated:
        return found
    if venue:
        names = venue_names(paper)
        preprint_only = not paper.venue and bool(paper.arxiv_id or names)
        as_article = bool(candidate.get("volume") or candidate.get("pages"))
        as_article &= paper.document_type in BOOK_TYPES and not is_preprint_venue(venue)
        if as_article and not any(venue_agrees(venue, name) for name in names):  # not its series
            series = f" in {paper.venue}" if paper.venue else ""
            note = f"the record is a book{series}, not an article in {venue}"
            return [_discrepancy("venue", venue, paper.venue, note)]
        if is_preprint_venue(venue):
            if paper.venue:
                found.append(
                    _discrepancy(
                        "version",
                        venue,
                        paper.venue,
                        f"cited as a preprint; published in {paper.venue}",
                    )
                )
        elif preprint_only:
            where = (
                f"arXiv:{paper.arxiv_id}"
                if paper.arxiv_id
                else (names[0] if names else "a preprint")
            )
            found.append(
                _discrepancy(
                    "venue",
                    venue,
                    None,
                    f"cited as published in {venue}; the record knows only the preprint ({where})",
                )
            )
        elif (
            names
            and not any(
                venue_agrees(venue, name, reference=name == paper.journal_ref) for name in names
            )
            and translated_venue(venue, paper) is None
        ):
            found.append(
                _discrepancy(
                    "venue", venue, paper.venue, f"published in {paper.venue}, not {venue}"
                )
            )
    if found or not paper.venue:
        return found
    for name in ("volume", "pages"):
        cited_numbers, record_numbers = (
            numbers(candidate.get(name)),
            numbers(getattr(paper, name)),
        )
        if cited_numbers and record_numbers and cited_numbers[0] != record_numbers[0]:
            value = getattr(paper, name)
            found.append(
                _discrepancy(name, candidate.get(name), value, f"the record's {name}: {value}")
            )
    return found


def _reason(match: Match) -> str:
    problems = []
    if match.title_ok is False:
        problems.append(f"title differs (score {match.title_score:.2f})")
    problems += [f"{d['field']}: {d['note']}" for d in match.discrepancies]
    if problems:
        return "; ".join(problems)
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

"""A free-text citation against a record: the one matcher for a reference given as a mathematician
writes it ("I. Rédei, Ein kombinatorischer Satz, Acta Litt. Sci. Szeged 7 (1934)"), never split
into author and title. The record's fields are looked for in the citation's text:

- title: the record's title (or its main title, before a subtitle: titles.title_heads) is a
  run of the citation's content words, in order (titles.title_words: LaTeX, accents, case,
  plurals and punctuation folded);
- authors: when the citation opens with its authors' names, as a reference list prints them
  ("V. Benci and F. Giannoni, Periodic ...", read by bibliography.free_text_fields), they are
  checked as a structured citation's are (matching: core.authors.check_authors), so a dropped,
  an added or a misspelt name is an `authors` discrepancy; otherwise every record author's
  family name (core.authors.record_families) is looked for among the citation's words, and "et
  al." in the citation lets the first author's alone stand for the list;
- year: only when the citation has one (problemfile reads it only where unambiguous), it is one
  the record gives (matching.year_agrees), else a `year` discrepancy.

Found by a search (Crossref query.bibliographic, Semantic Scholar's match), a record identifies
the citation as it identifies a structured one (matching.Match.identifies), its title being a
run of the citation's words: the title there, some cited author an author, and the year agreeing
(or one off, every author agreeing); what else differs is then corrected. Reached through an
identifier the citation gives, the record is that paper unless the citation names something
else: it has words beyond its identifiers and year, and neither the record's title nor any of
its authors is among them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..bibliography import free_text_fields, split_names
from ..core import (
    Discrepancy,
    Paper,
    check_authors,
    fold,
    record_families,
    split_authors,
    strip_latex,
    title_heads,
    title_words,
    without_identifiers,
)
from .matching import Match, check_year

MAX_CITATION_CHARS = 2000
# What a citation may hold besides a paper's title, authors and year without naming anything:
# identifiers, URLs and the words that introduce them.
IDENTIFIER_WORDS = frozenset({"arxiv", "doi", "https", "http", "org", "abs", "preprint"})
YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d[a-z]?\b")
TRUNCATED = re.compile(r"\bet\.?\s*al\b|\band\s+others\b", re.IGNORECASE)  # "et al."


@dataclass
class CitationMatch(Match):
    """How a record's title, authors and year appear in a free-text citation (module docstring).
    `title_ok` is None when the record has no title to look for (zbMATH withholds it)."""

    names_anything: bool = True  # the citation has words beyond identifiers and a year
    authorless: bool = False  # the record names no authors: nothing to find in the citation
    authors_read: bool = False  # the citation's leading names were read and checked as a list
    partial_authors: bool = False  # some of the record's authors named, not all: a discrepancy
    all_named: bool = False  # every author of the record named by family (an initial may differ)
    title_only: bool = False  # the citation is the record's title (and a year, ids), no names

    def identifies(self, by_identifier: bool) -> bool:
        if by_identifier:  # the identifier names the paper: a wrong year is a discrepancy
            named = self.title_ok or bool(self.matched_authors)
            return named or not self.names_anything
        if self.title_only:  # nothing but the title cited: it names the paper, as a title does
            return bool(self.title_ok) and self.year_ok is not False
        if not self.title_ok or self.authorless or self.authors_contradicted:
            return False  # a record naming no authors confirms no citation
        if self.year_ok is not False:
            return True
        # a year one off: every author named, even with an initial that differs ("I. Rédei")
        named_all = self.authors_agree or self.all_named
        return named_all and (self.year_close or self._published_later())

    @property
    def reason(self) -> str:
        if not self.names_anything:
            notes = [d["note"] for d in self.discrepancies]
            return "; ".join(["the citation gives only identifiers", *notes])
        found = [
            what
            for what, present in (
                ("title", self.title_ok),
                ("authors", self.authors_agree),
                ("year", self.year_ok),
            )
            if present
        ]
        missing = []
        if self.title_ok is False:
            missing.append("its title is not in the citation")
        if self.title_only:
            missing.append("the citation names no authors")
        elif self.authorless:
            missing.append("the record names no authors")
        elif self.authors_read:  # what differs is an `authors` discrepancy, said below
            pass
        elif self.authors_contradicted:
            missing.append("none of its authors is named in the citation")
        elif not self.authors_agree and not self.partial_authors:
            missing.append(
                f"of its authors the citation names only {', '.join(self.matched_authors)}"
            )
        missing += [d["note"] for d in self.discrepancies]
        said = f"{', '.join(found)} in the citation" if found else ""
        return "; ".join(x for x in (said, *missing) if x) or "nothing of the record to compare"


def citation_words(text: str, umlauts: bool = False) -> set[str]:
    """The citation's words as family names are compared: folded, letters only, a hyphenated
    word both whole and in parts ("Makar-Limanov": makarlimanov, makar, limanov)."""
    found: set[str] = set()
    for word in re.findall(r"[a-z]+(?:-[a-z]+)*", fold(strip_latex(text), umlauts)):
        parts = word.split("-")
        found |= {"".join(parts), *parts}
    return found


def _title_in(citation: str, title: str) -> tuple[bool, float]:
    """Whether the title (or a head of it) is a run of the citation's content words, and the
    share of the title's words the citation holds (the suggestion score)."""
    best = 0.0
    for umlauts in (False, True):
        cited = title_words(citation, umlauts)
        for whole in (title, *title_heads(title)):
            wanted = title_words(whole, umlauts)
            if not wanted:
                continue
            n = len(wanted)
            if any(cited[i : i + n] == wanted for i in range(len(cited) - n + 1)):
                return True, 1.0
            best = max(best, sum(w in cited for w in wanted) / n)
    return False, round(best, 4)


def compare_citation(citation: str, year: int | None, paper: Paper) -> CitationMatch:
    """The record's title, authors and year looked for in the citation (module docstring)."""
    match = CitationMatch()
    words = {w for umlauts in (False, True) for w in citation_words(citation, umlauts)}
    bare = YEAR.sub(" ", without_identifiers(citation))  # what is left to name a paper
    match.names_anything = bool(citation_words(bare) - IDENTIFIER_WORDS)
    if paper.title:
        match.title_ok, match.title_score = _title_in(citation, paper.title)
        left = citation_words(bare) - citation_words(paper.title) - IDENTIFIER_WORDS
        match.title_only = bool(match.title_ok) and not left
    match.authorless = not paper.authors
    cited = split_names(free_text_fields(citation).get("author", ""))
    if cited and TRUNCATED.search(citation):
        cited.append("et al.")  # "A. One, B. Two, et al.": the list is cut short
    if paper.authors and cited:
        check = check_authors(cited, paper.authors)
        match.authors_read = True
        match.matched_authors = check.matched
        match.authors_contradicted = not check.matched
        note = check.note(len(paper.authors), len(split_authors(cited)))
        match.authors_agree = bool(check.matched) and not note
        match.all_named = len(check.matched) == len(paper.authors)
        if note:
            match.discrepancies.append(
                Discrepancy(field="authors", cited=cited, record=paper.authors, note=note)
            )
    elif paper.authors:
        match.matched_authors = [
            name
            for name in paper.authors
            if any(record_families(name, umlauts) & words for umlauts in (False, True))
        ]
        truncated = bool(TRUNCATED.search(citation))
        first_named = paper.authors[0] in match.matched_authors
        match.authors_agree = len(match.matched_authors) == len(paper.authors) or (
            truncated and first_named
        )
        match.authors_contradicted = not match.matched_authors and not match.title_only
        if match.matched_authors and not match.authors_agree:
            match.partial_authors = True
            note = f"the citation names only {', '.join(match.matched_authors)} of its authors"
            match.discrepancies.append(
                Discrepancy(field="authors", cited=None, record=paper.authors, note=note)
            )
    if year is not None:
        check_year(match, year, paper)
    return match

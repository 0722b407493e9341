"""Does a cited venue name the record's venue? The venue rules of the gate (matching.py applies
them; docs/matching-rules.md §3a describes them): ISO 4 abbreviations, acronyms, publishers
and proceedings' words on one side only, a workshop never its host conference, a cover-to-cover
translation journal and its original one venue (core/venues.py TRANSLATION_JOURNALS, its names
read in every transliteration's spelling and without a new series' mark), and
whether the identified record can vouch for a cited journal at all (unvouched); and what the
venue, volume and pages a citation gives make of a record (venue_discrepancies: a preprint
server cited for a published paper, a journal for a preprint, a book cited as an article)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core import (
    BY_CODE,
    PROCEEDINGS_WORDS,
    SUBVENUE_WORDS,
    TRANSLATION_JOURNALS,
    VENUE_FUNCTION_WORDS,
    VENUE_OPTIONAL,
    Discrepancy,
    Paper,
    fold,
    is_preprint_venue,
    stem,
    strip_latex,
)

# Document types (Paper.document_type, Crossref's names) of a whole book: cited with a journal,
# volume and pages, it is miscited as an article.
BOOK_TYPES = frozenset({"book", "monograph", "edited-book", "reference-book", "book-set"})
# Every document type that is no article, as a reason names it: a book, a thesis (Crossref's and
# OpenAlex's "dissertation"), a whole proceedings volume.
NOT_ARTICLE_TYPES = {
    **dict.fromkeys(BOOK_TYPES, "book"),
    "dissertation": "thesis",
    "proceedings": "proceedings volume",
}


@dataclass(frozen=True)
class _VenueWord:
    word: str
    marked: bool  # written as an abbreviation: "J.", or a lone capital ("J Number Theory")
    acronym: bool  # "USA", "PNAS", "ICSTW"
    optional: bool  # may be absent on the other side (VENUE_OPTIONAL, function words)
    function: bool


# A journal's new series, which is the same journal: "Mat. Sb. (N.S.)", "Bull. Amer. Math. Soc.
# (N.S.)", "..., New Series".
NEW_SERIES = re.compile(r"\(\s*N\.\s*S\.\s*\)|,?\s*\bNew Ser(?:ies|\.)", re.IGNORECASE)
# The spellings the transliterations of Russian (LC, BGN, ISO 9, the AMS's old and new systems)
# give one letter, as one (applied to both sides, never to a word's first letter): ц ts/c,
# ж zh/ž, х kh/h, я ю й ya/ja yu/ju y/j ("Funktsional." / "Funkcional.", "Teoriya
# Veroyatnostei" / "Teorija Verojatnostej", "Uspekhi" / "Uspehi", "Zh." / "Ž.").
TRANSLITERATIONS = (("ts", "c"), ("zh", "z"), ("kh", "h"), ("y", "j"))


def _transliterated(word: str) -> str:
    head, rest = word[:1], word[1:]
    for spelled, letter in TRANSLITERATIONS:
        rest = rest.replace(spelled, letter)
    return head + rest


def _venue_words(name: str, transliterated: bool = False) -> list[_VenueWord]:
    """The words of a venue's name, as the comparison reads them; `transliterated`: the
    spellings of Russian transliterations folded (TRANSLITERATIONS)."""
    text = re.sub(r"\b\d+(?:st|nd|rd|th)\b", " ", strip_latex(name)).replace("&", " and ")
    text = NEW_SERIES.sub(" ", text)
    words = []
    # A transliteration's soft sign is part of its word: "Funktsional'nyi", "Matematicheskiĭ".
    for match in re.finditer(r"[^\W\d_]+(?:['’ʹ][^\W\d_]+)*\.?", text):
        raw = re.sub(r"['’ʹ]", "", match.group().rstrip("."))
        word = re.sub(r"[^a-z]", "", fold(raw))
        if not word:
            continue
        function = word in VENUE_FUNCTION_WORDS
        words.append(
            _VenueWord(
                word=stem(_transliterated(word) if transliterated else word),
                marked=match.group().endswith(".") or (len(raw) == 1 and raw.isupper()),
                acronym=2 <= len(raw) <= 8 and raw.isupper() and not function,
                optional=function or word in VENUE_OPTIONAL,
                function=function,
            )
        )
    return words


def _abbreviates(short: _VenueWord, long: _VenueWord) -> bool:
    """ISO 4 style: an abbreviation keeps the word's first letter and some of its letters in
    order ("J." Journal, "Natl" National, "Soc." Society, "Commun." Communications)."""
    a, b = short.word, long.word
    if a == b:
        return True
    if short.acronym and long.acronym:
        return False  # "AI" is not "AAAI": an acronym abbreviates no other acronym
    if len(a) >= len(b) or a[0] != b[0] or (len(a) == 1 and not short.marked):
        return False
    letters = iter(b)
    return all(letter in letters for letter in a)


def _spells(acronym: str, words: list[_VenueWord]) -> bool:
    """Whether the initials of `words` spell `acronym`, function words used or skipped."""
    if not words:
        return not acronym
    head, rest = words[0], words[1:]
    if acronym and head.word[0] == acronym[0] and _spells(acronym[1:], rest):
        return True
    return (head.function or head.optional) and _spells(acronym, rest)


def _venue_aligns(
    cited: list[_VenueWord],
    record: list[_VenueWord],
    contained: bool,
    kept: frozenset[str] = frozenset(),
) -> bool:
    """Whether every required word of each side is accounted for by the other, in order:
    equal, one abbreviating the other, or an acronym spelling a run of the other's words.
    With `contained`, the record may have words the citation leaves out (a proceedings'
    full name, a journal reference's extra text), but never its words in `kept`."""

    @functools.cache
    def aligns(i: int, j: int) -> bool:
        if i == len(cited) and j == len(record):
            return True
        if i < len(cited) and cited[i].optional and aligns(i + 1, j):
            return True
        if (
            j < len(record)
            and (record[j].optional or contained)
            and record[j].word not in kept
            and aligns(i, j + 1)
        ):
            return True
        if i == len(cited) or j == len(record):
            return False
        a, b = cited[i], record[j]
        short, long = (a, b) if len(a.word) <= len(b.word) else (b, a)
        if _abbreviates(short, long) and aligns(i + 1, j + 1):
            return True
        for k in range(j + 1, min(len(record), j + 12) + 1):
            if a.acronym and _spells(a.word, record[j:k]) and aligns(i + 1, k):
                return True
        for k in range(i + 1, min(len(cited), i + 12) + 1):
            if b.acronym and _spells(b.word, cited[i:k]) and aligns(k, j + 1):
                return True
        return False

    return aligns(0, 0)


def venue_agrees(cited: str, record: str, reference: bool = False) -> bool:
    """Whether a cited venue names the record's venue: journal abbreviations ("J. Number
    Theory" = "Journal of Number Theory"; "Proc. Natl. Acad. Sci. USA"), acronyms, publishers
    and "Proceedings of the ..." around a conference's name. A proceedings venue, or a record
    that is a whole journal reference (`reference`), may hold words the citation leaves out."""
    cited_words, record_words = _venue_words(cited), _venue_words(record)
    if not any(not w.optional for w in cited_words):
        return True  # nothing but "Proc." or a publisher: nothing to contradict
    proceedings = any(
        w.word in PROCEEDINGS_WORDS or w.word.rstrip("s") in PROCEEDINGS_WORDS
        for w in (*cited_words, *record_words)
    )
    return _venue_aligns(cited_words, record_words, contained=reference or proceedings) or (
        # the citation may give more of a proceedings' name than the record, but a workshop it
        # names is not its host conference
        proceedings and _venue_aligns(record_words, cited_words, True, SUBVENUE_WORDS)
    )


@functools.lru_cache(maxsize=4096)
def journal_sides(name: str) -> tuple[tuple[int, int], ...]:
    """(entry, side) of each TRANSLATION_JOURNALS journal `name` names, every word of each
    accounted for (no proceedings' words left out): side 0 the translation, 1 the original."""
    words = _venue_words(name, transliterated=True)
    if not any(len(w.word) > 1 and not w.optional for w in words):
        return ()  # lone initials ("A&A") are too short to name a journal of the table
    return tuple(
        (entry, side)
        for entry, pair in enumerate(TRANSLATION_JOURNALS)
        for side, names in enumerate(pair)
        if any(_venue_aligns(words, _known_words(known), contained=False) for known in names)
    )


@functools.lru_cache(maxsize=256)
def _known_words(name: str) -> list[_VenueWord]:
    """A TRANSLATION_JOURNALS name's words, read once."""
    return _venue_words(name, transliterated=True)


def translated_venue(cited: str, paper: Paper) -> bool | None:
    """Whether a cited venue names the record's venue through TRANSLATION_JOURNALS: True when it
    is the record's journal's cover-to-cover translation or original (the same paper, its
    volume and pages another journal's), False when it is another name of the same journal,
    None when the table says nothing."""
    cited_sides = journal_sides(cited)
    if not cited_sides:
        return None
    record_sides = {side for name in venue_names(paper) for side in journal_sides(name)}
    same = [entry_side in record_sides for entry_side in cited_sides]
    if any(same):
        return False
    return True if any((entry, 1 - side) in record_sides for entry, side in cited_sides) else None


def counterpart_names(venue: str) -> list[str]:
    """The names of the journal a venue's journal is the translation (or original) of, shortest
    first (the abbreviation, as zbMATH Open's source lines write it)."""
    names = {
        name
        for entry, side in journal_sides(venue)
        for name in TRANSLATION_JOURNALS[entry][1 - side]
    }
    return sorted(names, key=len)


def venue_names(paper: Paper) -> list[str]:
    return [n for n in dict.fromkeys([paper.venue, *paper.venue_aliases]) if n]


def unvouched(cited: Mapping[str, Any], paper: Paper, sources: list[str]) -> bool:
    """Whether a citation names a journal article (a venue that is no preprint server, with a
    volume or pages) that the identified record, merged from `sources`' records, can neither
    vouch for nor contradict: it names no venue, is no preprint (then the journal is a
    discrepancy already), and none of its sources knows a work's document type (those whose row
    says document_types: zbMATH Open's, Crossref's and OpenAlex's records say a book is a book).
    Semantic Scholar's venue, journal and publicationVenue count as its venue, and its record is
    a book when its publicationTypes say Book alone (venue_discrepancies). Such a journal is
    CONFIRMED only once a source that knows types has answered (verification.py)."""
    if any(BY_CODE[source].document_types for source in sources if source in BY_CODE):
        return False
    venue = cited.get("venue")
    as_article = bool(venue and (cited.get("volume") or cited.get("pages")))
    preprint = bool(paper.arxiv_id) or any(map(is_preprint_venue, paper.venue_aliases))
    return as_article and not is_preprint_venue(venue) and not paper.venue and not preprint


def numbers(text: str | None) -> list[int]:
    return sorted(int(n) for n in re.findall(r"\d+", text or ""))


def venue_discrepancies(
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
        kind = NOT_ARTICLE_TYPES.get(paper.document_type or "")
        as_article &= bool(kind) and not is_preprint_venue(venue)
        if as_article and not any(venue_agrees(venue, name) for name in names):  # not its series
            series = f" in {paper.venue}" if paper.venue else ""
            note = f"the record is a {kind}{series}, not an article in {venue}"
            return [Discrepancy(field="venue", cited=venue, record=paper.venue, note=note)]
        if is_preprint_venue(venue):
            if paper.venue:
                found.append(
                    Discrepancy(
                        field="version",
                        cited=venue,
                        record=paper.venue,
                        note=f"cited as a preprint; published in {paper.venue}",
                    )
                )
        elif preprint_only:
            where = (
                f"arXiv:{paper.arxiv_id}"
                if paper.arxiv_id
                else (names[0] if names else "a preprint")
            )
            found.append(
                Discrepancy(
                    field="venue",
                    cited=venue,
                    record=None,
                    note=f"cited as published in {venue}; the record knows only the preprint "
                    f"({where})",
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
                Discrepancy(
                    field="venue",
                    cited=venue,
                    record=paper.venue,
                    note=f"published in {paper.venue}, not {venue}",
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
                Discrepancy(
                    field=name,
                    cited=candidate.get(name),
                    record=value,
                    note=f"the record's {name}: {value}",
                )
            )
    return found

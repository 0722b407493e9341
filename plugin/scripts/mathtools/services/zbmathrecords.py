"""zbMATH Open's records: `to_paper`, one document of the API as a Paper, and `reference_ids`,
the documents a record cites. The API's data is untrusted: a record of the wrong shape is
malformed and stands for no paper (None), never a Paper that could confirm anything.

Traps the recordings show (../shared/recordings/zbmath): "year" and reference positions are strings,
lists hold nulls ("keywords": [null]), a book's people are its editors, strings carry TeX
(`\\(p\\)-adic`), and a licence-restricted record has the sentence LICENCE_SENTENCE in place of its
title, author names, pages and source while its DOI, year, MSC and Zbl number survive. A field
holding that sentence is left empty here, so it can never match a citation; verification falls
back to the identifiers the record still carries.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..core import DOI, NAMES, BadInput, Paper, as_int, normalise_arxiv_id

SOURCE = "zbmath"
SOURCE_NAME = NAMES["zbmath"]  # the source as a person reads it, in messages
LICENCE_SENTENCE = "zbMATH Open Web Interface contents unavailable due to conflicting licenses."
# zbMATH's document types, in the Crossref names Paper.document_type uses.
DOCUMENT_TYPES = {"j": "journal-article", "a": "book-chapter", "b": "book"}


def _text(value: object) -> str | None:
    """A usable string: not empty, not null, not the licence sentence."""
    if not isinstance(value, str):
        return None
    text = " ".join(value.split())
    if not text or LICENCE_SENTENCE.rstrip(".") in text:
        return None
    return text


def _list(value: object) -> list[object]:
    return [item for item in value if item is not None] if isinstance(value, list) else []


def as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


# What a well-formed record's Zbl number and MSC codes look like (ASCII digits only).
ZBL_NUMBER = re.compile(r"[0-9]{4}\.[0-9]{5}|(?:JFM|ERAM) [0-9]{1,3}\.[0-9]{4}\.[0-9]{2}")
MSC_CODE = re.compile(r"[0-9]{2}(?:-XX|-[0-9]{2}|[A-Z](?:xx|[0-9]{2}))")


class Malformed(Exception):
    """A record whose fields have the wrong type or shape: it stands for no paper."""


def _withheld_or_text(value: object) -> str:
    """A title or name field: its text, "" when zbMATH withholds it (the licence sentence only);
    anything else (null, a number, an empty string) is a malformed record, never "withheld"."""
    if not isinstance(value, str) or not value.strip():
        raise Malformed
    return _text(value) or ""


def _names(contributors: object) -> list[str]:
    """The authors' (else the editors') names; a withheld name is left out."""
    if not isinstance(contributors, dict):
        raise Malformed
    people = contributors.get("authors")
    if not isinstance(people, list) or not isinstance(contributors.get("editors", []), list):
        raise Malformed
    # A book (an edited volume) has editors and no authors: a citation names the editors.
    people = _list(people) or _list(contributors.get("editors"))
    if not people:
        raise Malformed  # no one named, and not for the licence: nothing to stand for authors
    names = [_withheld_or_text(as_dict(p).get("name")) for p in people]
    return [given_family(name) for name in names if name]


def to_paper(record: object) -> Paper | None:
    """One zbMATH document as a Paper; None for a malformed record: one without its id or a
    well-formed Zbl number, whose title or people are missing or of the wrong type, or whose MSC
    codes are not MSC codes. A malformed record never stands for a paper: only the licence
    sentence leaves a title or the authors empty (withheld)."""
    record = as_dict(record)
    document_id = record.get("id")
    zbl = _text(record.get("identifier"))
    if not isinstance(document_id, int) or isinstance(document_id, bool) or not zbl:
        return None
    if not ZBL_NUMBER.fullmatch(zbl):
        return None
    try:
        title_field = record.get("title")
        if not isinstance(title_field, dict):
            raise Malformed
        title = _withheld_or_text(title_field.get("title"))
        authors = _names(record.get("contributors"))
        msc = [as_dict(m).get("code") for m in _list(record.get("msc"))]
        if not all(isinstance(c, str) and MSC_CODE.fullmatch(c) for c in msc):
            raise Malformed
    except Malformed:
        return None
    links = [as_dict(link) for link in _list(record.get("links"))]
    doi = next((_text(x.get("identifier")) for x in links if x.get("type") == "doi"), None)
    arxiv_link = next((_text(x.get("identifier")) for x in links if x.get("type") == "arxiv"), None)
    source = as_dict(record.get("source"))
    serials = [as_dict(s) for s in _list(source.get("series"))]
    series = serials[0] if serials else {}
    source_line = _text(source.get("source"))
    year = _text(record.get("year"))
    code = as_dict(record.get("document_type")).get("code")
    summary = next(
        (
            _text(c.get("text"))
            for c in map(as_dict, _list(record.get("editorial_contributions")))
            if c.get("contribution_type") in ("summary", "review") and _text(c.get("text"))
        ),
        None,
    )
    arxiv_id = None
    if arxiv_link:
        try:
            arxiv_id = normalise_arxiv_id(arxiv_link)[0]
        except BadInput:
            arxiv_id = None
    return Paper(
        source=SOURCE,
        title=title,
        authors=authors,
        year=as_int(year),
        arxiv_id=arxiv_id,
        doi=doi.lower() if doi and DOI.fullmatch(doi) else None,
        abstract=summary,
        url=_text(record.get("zbmath_url")),
        journal_ref=_text(source.get("source")),
        external_ids={"zbMATH": document_id},
        # A chapter in a book outside any serial is published in that book, which the source
        # line names ("Scheidler, Renate (ed.) et al., ANTS XIII. Proceedings ..., 311-323
        # (2019)."): never a preprint-only record. A whole book has no venue.
        venue=_text(series.get("title"))
        or (source_line if _list(source.get("book")) and code != "b" else None),
        # Each serial's other names (the abbreviation, "J. Number Theory", as mathematicians
        # cite it; a translation's original journal) and the whole source line: what a cited
        # venue is compared with.
        venue_aliases=list(
            dict.fromkeys(
                alias
                for alias in (
                    *(_text(s.get(name)) for s in serials for name in ("short_title", "title")),
                    source_line,
                )
                if alias and alias != _text(series.get("title"))
            )
        ),
        volume=_text(series.get("volume")),
        pages=_text(source.get("pages")),
        zbl=zbl,
        msc=[c for c in msc if isinstance(c, str)],
        document_type=DOCUMENT_TYPES.get(code) if isinstance(code, str) else None,
    )


def given_family(name: str) -> str:
    """zbMATH's "Family, Given" as "Given Family", as the other sources write names (and as
    LITERATURE.md's comma-separated Authors line needs them)."""
    family, comma, given = name.partition(",")
    return f"{given.strip()} {family.strip()}" if comma and given.strip() else name


def reference_ids(record: object) -> list[int]:
    """zbMATH's internal numbers of the documents a record cites (its reference list), in order;
    a reference zbMATH could not resolve has none."""
    found = []
    for reference in map(as_dict, _list(as_dict(record).get("references"))):
        number = as_dict(reference.get("zbmath")).get("document_id")
        if isinstance(number, int) and not isinstance(number, bool) and number not in found:
            found.append(number)
    return found


def to_papers(records: Iterable[object]) -> list[Paper]:
    return [paper for record in records if (paper := to_paper(record)) is not None]

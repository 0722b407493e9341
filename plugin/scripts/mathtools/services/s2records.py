"""Semantic Scholar's paper ids and records: `s2_id`, what an id a person gives means to the Graph
API, and `to_paper`, one API record as a Paper. The API's data is untrusted: a record of the wrong
shape is a malformed answer (a ServiceError), never a Paper that could confirm anything."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import TypeVar, overload

from ..core import (
    NAMES,
    BadInput,
    Paper,
    ServiceError,
    is_digits,
    is_preprint_venue,
    normalise_arxiv_id,
    unversioned,
)

SOURCE = "semantic_scholar"
SOURCE_NAME = NAMES["semantic_scholar"]  # the source as a person reads it, in messages

# Id prefixes the API understands, by lower-cased spelling -> the API's spelling.
ID_PREFIXES = {
    "arxiv": "ARXIV",
    "doi": "DOI",
    "corpusid": "CorpusId",
    "mag": "MAG",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "acl": "ACL",
    "url": "URL",
}
NUMERIC_PREFIXES = ("CorpusId", "MAG", "PMID")
PAPER_ID = re.compile(r"[0-9a-fA-F]{40}")
DOI = re.compile(r"10\.\d{4,9}/\S+")
DOI_URL = re.compile(r"https?://(?:dx\.)?doi\.org/(10\..+)$", re.I)


def s2_id(text: str) -> str:
    """The API's form of a paper id: `ARXIV:2104.12255`, `DOI:10.1093/...`, `CorpusId:470667`,
    `MAG:...`, `PMID:...`, `URL:https://...` or the 40-hex paperId.

    Every `Paper.key` is an id here: `S2:<paperId>` gives the paperId.
    Prefixes are matched case-insensitively (`arXiv:`, `CorpusID:`); bare arXiv ids, bare DOIs and
    arxiv.org / doi.org links get their prefix inferred; arXiv versions are dropped (S2 tracks
    papers, not versions). Anything else is BadInput with code "bad_id".
    """
    raw = text.strip()
    prefix, sep, value = raw.partition(":")
    canonical = ID_PREFIXES.get(prefix.strip().lower()) if sep else None
    if sep and prefix.strip().lower() == "s2" and PAPER_ID.fullmatch(value.strip()):
        return value.strip().lower()
    if canonical and value.strip():
        value = value.strip()
        if canonical == "ARXIV":
            return f"ARXIV:{normalise_arxiv_id(value)[0]}"
        if canonical == "DOI":
            match = DOI_URL.match(value)
            return f"DOI:{match.group(1) if match else value}"
        if canonical in NUMERIC_PREFIXES and not is_digits(value):
            raise BadInput(f"{canonical} ids are numbers: {text!r}", code="bad_id")
        return f"{canonical}:{value}"
    if PAPER_ID.fullmatch(raw):
        return raw.lower()
    with contextlib.suppress(BadInput):  # a bare id, an arxiv.org link or an arXiv DOI
        return f"ARXIV:{normalise_arxiv_id(raw)[0]}"
    if DOI.fullmatch(raw):
        return f"DOI:{raw}"
    if match := DOI_URL.match(raw):
        return f"DOI:{match.group(1)}"
    if re.match(r"https?://", raw):
        return f"URL:{raw}"
    raise BadInput(
        f"not a paper id: {text!r} (use ARXIV:, DOI:, CorpusId:, MAG:, PMID: or URL:, "
        "a bare arXiv id or DOI, or a 40-hex Semantic Scholar paperId, bare or as S2:)",
        code="bad_id",
    )


def to_paper(record: object, unresolved: bool = False) -> Paper:
    """One Graph API paper object as a Paper; only the fields the API returned are filled.

    The API's data is untrusted: a record that is not an object, lacks its 40-hex paperId (what
    identifies it) or holds a field of the wrong type is a malformed answer, a ServiceError, so
    the caller treats the service as failing; it never becomes a Paper that could confirm. Only
    a citation graph's neighbour S2 could not resolve (`unresolved`: its paperId is null) is
    taken without one, for its title: a lead for discovery, never a verified record."""
    if not isinstance(record, dict):
        raise malformed(f"a record that is a {type(record).__name__}, not an object")
    paper_id = record.get("paperId")
    if not (unresolved and paper_id is None) and not (
        isinstance(paper_id, str) and PAPER_ID.fullmatch(paper_id)
    ):
        raise malformed("a record without its paperId")
    external = typed(record, "externalIds", dict) or {}
    arxiv_id = typed(external, "ArXiv", str)
    doi = typed(external, "DOI", str)
    corpus_id = typed(record, "corpusId", int) or typed(external, "CorpusId", (int, str))
    if isinstance(corpus_id, str) and not is_digits(corpus_id):
        raise malformed("a CorpusId that is not a number")
    published = typed(record, "publicationDate", str)
    authors = typed(record, "authors", list) or []
    if not all(isinstance(a, dict) and isinstance(a.get("name"), str | None) for a in authors):
        raise malformed("authors that are not objects with a name")
    journal = typed(record, "journal", dict) or {}
    where = typed(record, "publicationVenue", dict) or {}
    alternate = where.get("alternate_names")
    aliases = [
        name.strip()
        for name in (
            typed(record, "venue", str),
            journal.get("name"),
            where.get("name"),
            *(alternate if isinstance(alternate, list) else []),
        )
        if isinstance(name, str) and name.strip()
    ]
    published_in = next((name for name in aliases if not is_preprint_venue(name)), None)
    in_journal = bool(published_in and journal.get("name")) and not is_preprint_venue(
        journal["name"]
    )
    return Paper(
        source=SOURCE,
        title=" ".join((typed(record, "title", str) or "").split()),
        # an author without a name leaves the list unknown, not shorter (no evidence: the gate)
        authors=[a["name"] for a in authors] if all(a.get("name") for a in authors) else [],
        year=typed(record, "year", int),
        arxiv_id=unversioned(arxiv_id) if arxiv_id else None,
        doi=doi.lower() if doi else None,
        abstract=typed(record, "abstract", str),
        url=typed(record, "url", str),
        published=published,
        s2_paper_id=paper_id,
        corpus_id=int(corpus_id) if corpus_id not in (None, "") else None,
        external_ids=dict(external),
        venue=published_in,
        # A preprint's "volume" is its arXiv id ("abs/2503.23674"), not a volume.
        volume=_text(journal.get("volume")) if in_journal else None,
        pages=_text(journal.get("pages")) if in_journal else None,
        venue_aliases=list(dict.fromkeys(aliases)),
        journal=journal or None,
        publication_date=published,
        citation_count=typed(record, "citationCount", int),
        fields_of_study=[
            f for f in typed(record, "fieldsOfStudy", list) or [] if isinstance(f, str)
        ],
        open_access_pdf=typed(typed(record, "openAccessPdf", dict) or {}, "url", str) or None,
        document_type=_document_type(typed(record, "publicationTypes", list) or []),
    )


# Semantic Scholar's publicationTypes in the Crossref names Paper.document_type uses, the first
# that a record lists in this order: an article is often also typed "Book" ("Java generics are
# turing complete": Book, JournalArticle, Conference), so a book is one typed nothing else.
PUBLICATION_TYPES = {
    "JournalArticle": "journal-article",
    "Conference": "proceedings-article",
    "BookSection": "book-chapter",
    "Book": "book",
}


def _document_type(types: list[object]) -> str | None:
    return next((name for kind, name in PUBLICATION_TYPES.items() if kind in types), None)


def _text(value: object) -> str | None:
    return (" ".join(value.split()) or None) if isinstance(value, str) else None


def malformed(what: str) -> ServiceError:
    """Semantic Scholar's malformed answer (ServiceError.malformed)."""
    return ServiceError.malformed(SOURCE_NAME, what)


Value = TypeVar("Value")
Other = TypeVar("Other")


@overload
def typed(record: Mapping[str, object], name: str, kind: type[Value]) -> Value | None: ...


@overload
def typed(
    record: Mapping[str, object], name: str, kind: tuple[type[Value], type[Other]]
) -> Value | Other | None: ...


def typed(record: Mapping[str, object], name: str, kind: type | tuple[type, ...]) -> object | None:
    """`record[name]` if it is of `kind` (never a bool for int), None if absent or null."""
    value = record.get(name)
    if value is None:
        return None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise malformed(f"{name} is a {type(value).__name__}")
    return value

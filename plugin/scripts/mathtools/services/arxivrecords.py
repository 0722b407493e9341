"""arXiv's records: `parse_feed`, one Atom answer of the API as its total and its papers, one
`<entry>` a Paper. The answer is untrusted: bytes that are not an Atom feed, an entry without an
arXiv id or with a published date that is no date are MalformedFeed, never a Paper; arXiv's own
"Error" entry (a malformed id or parameter) is RequestRejected, naming what arXiv named.

Since late 2025 entry links may come without `rel`/`title`; the abs and pdf URLs are then
recognised by their path, or built from the id.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..core import Paper, arxiv_id_text, is_arxiv_id, is_digits, venue_parts
from .http import RequestRejected

if TYPE_CHECKING:  # lxml loads only when a call reaches arXiv
    from lxml import etree


ABS_URL = "https://arxiv.org/abs/"
PDF_URL = "https://arxiv.org/pdf/"
ERROR_ID_PREFIX = "https://arxiv.org/api/errors"

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
_FEED = _ATOM + "feed"
_ENTRY = _ATOM + "entry"
_AUTHOR = _ATOM + "author"
_LINK = _ATOM + "link"
_CATEGORY = _ATOM + "category"
_NAME = _ATOM + "name"
_AFFILIATION = _ARXIV + "affiliation"
_PRIMARY = _ARXIV + "primary_category"
_TOTAL = _OPENSEARCH + "totalResults"
_TEXT_FIELDS = {
    _ATOM + name: name for name in ("id", "title", "summary", "published", "updated")
} | {_ARXIV + name: name for name in ("doi", "journal_ref", "comment")}

# A date as arXiv writes it (published, updated) and as --submitted bounds take it.
DATE = re.compile(r"(\d{4})(?:-?(\d{2}))?(?:-?(\d{2}))?(?:[T ]?(\d{2}):?(\d{2}))?")
_BAD_ID_MESSAGE = re.compile(r"incorrect id format for (\S+)")


class MalformedFeed(ValueError):
    """The bytes are not an arXiv Atom feed (truncated XML, an HTML error page, ...)."""


def parse_feed(content: bytes) -> tuple[int | None, list[Paper]]:
    """`opensearch:totalResults` and the papers of one arXiv Atom answer.

    Raises MalformedFeed when `content` is not an Atom feed, and BadInput when arXiv answered
    with its "Error" entry (a malformed id or parameter), naming what arXiv named.
    """
    from lxml import etree

    try:
        root = etree.fromstring(content, _parser())
    except etree.XMLSyntaxError as exc:
        raise MalformedFeed(f"not XML: {exc}") from None
    if root is None or root.tag != _FEED:
        raise MalformedFeed(f"not an Atom feed (root element {getattr(root, 'tag', None)!r})")
    total = None
    papers = []
    for child in root:
        tag = child.tag
        if tag == _ENTRY:
            papers.append(_paper(child))
        elif tag == _TOTAL:
            try:
                total = int(child.text or "")  # None, like "", is no number
            except (TypeError, ValueError):
                raise MalformedFeed(f"totalResults is not a number: {child.text!r}") from None
    return total, papers


_PARSER: etree.XMLParser | None = None


def _parser() -> etree.XMLParser:
    global _PARSER
    if _PARSER is None:
        from lxml import etree

        # No network, no entities: an answer can never make us fetch or expand anything.
        _PARSER = etree.XMLParser(
            resolve_entities=False, no_network=True, remove_blank_text=True, collect_ids=False
        )
    return _PARSER


def _paper(entry: etree._Element) -> Paper:
    """One `<entry>` as a Paper, in a single pass over its children (the hot loop: a dict look-up
    per child beats a chain of comparisons between long namespaced tags)."""
    text: dict[str, str | None] = {}
    abs_url = pdf_url = primary = None
    authors: list[str] = []
    affiliations: list[list[str]] = []
    cats: list[str] = []
    for child in entry:
        tag = child.tag
        if tag == _AUTHOR:
            where = []
            if len(child) == 1:  # just <name>: the common case, read without a tag test
                name = child[0].text
            else:
                name = None
                for part in child:
                    if part.tag == _NAME:
                        name = part.text
                    elif part.tag == _AFFILIATION and part.text:
                        where.append(_squash(part.text))
            authors.append(_squash(name or ""))
            affiliations.append(where)
            continue
        field = _TEXT_FIELDS.get(tag)
        if field is not None:
            text[field] = child.text
        elif tag == _CATEGORY and (term := child.get("term")):
            cats.append(term)
        elif tag == _LINK:
            href = child.get("href") or ""
            if "/pdf/" in href:
                pdf_url = pdf_url or href
            elif "/abs/" in href:
                abs_url = abs_url or href
        elif tag == _PRIMARY:
            primary = child.get("term")
    entry_id = (text.get("id") or "").strip()
    if entry_id.startswith(ERROR_ID_PREFIX):
        _raise_error_entry(text.get("summary") or entry_id)
    arxiv_id, version = _split_entry_id(entry_id)
    if not is_arxiv_id(arxiv_id):
        # what identifies the record is missing: it may never confirm anything
        raise MalformedFeed(f"an entry without an arXiv id ({entry_id[:80]!r})")
    versioned = arxiv_id_text(arxiv_id, version)
    published = _squash(text.get("published") or "") or None
    if published and not DATE.match(published):
        raise MalformedFeed(f"an entry's published date is not a date ({published[:40]!r})")
    doi, journal_ref, comment = text.get("doi"), text.get("journal_ref"), text.get("comment")
    journal_ref = _squash(journal_ref) if journal_ref else None
    venue, volume, pages = venue_parts(journal_ref) if journal_ref else (None, None, None)
    return Paper(
        source="arxiv",
        title=_squash(text.get("title") or ""),
        authors=authors,
        year=int(published[:4]) if published else None,
        arxiv_id=arxiv_id,
        arxiv_version=version,
        doi=doi.strip().lower() if doi else None,
        abstract=_squash(text.get("summary") or "") or None,
        url=abs_url or ABS_URL + versioned,
        pdf_url=pdf_url or PDF_URL + versioned,
        categories=cats,
        primary_category=primary or (cats[0] if cats else None),
        published=published,
        updated=_squash(text.get("updated") or "") or None,
        journal_ref=journal_ref,
        venue=venue,
        volume=volume,
        pages=pages,
        venue_aliases=[journal_ref] if journal_ref else [],
        comment=_squash(comment) if comment else None,
        affiliations=affiliations,
    )


def _squash(text: str) -> str:
    """Runs of whitespace as one space, ends trimmed (most texts need only the trim: fast path)."""
    text = text.strip()
    if "\n" in text or "  " in text or "\t" in text or "\r" in text:
        return " ".join(text.split())
    return text


def _split_entry_id(entry_id: str) -> tuple[str, int | None]:
    """`http://arxiv.org/abs/2104.12255v1` -> ("2104.12255", 1)."""
    short = entry_id.rpartition("/abs/")[2]
    base, sep, version = short.rpartition("v")
    if sep and is_digits(version) and is_digits(base[-1:]):
        return base, int(version)
    return short, None


def _raise_error_entry(message: str) -> None:
    message = " ".join(message.split())
    bad = _BAD_ID_MESSAGE.search(message)
    if bad:
        raise RequestRejected(f"arXiv rejected the id {bad.group(1)!r}: {message}", code="bad_id")
    raise RequestRejected(f"arXiv rejected the request: {message}", code="arxiv_rejected")

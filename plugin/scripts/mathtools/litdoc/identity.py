"""How a reference is recognised across runs: the identity keys of a paper (a verification
record) and of a LITERATURE.md entry (arXiv id, then DOI, then S2 paperId, then normalised title +
first author's family name + year), the `<!-- ids: ... -->` tags that keep them, and an index of a
document's entries by every key.

A reference cited without a year or identifier (a PROBLEM.md line, a remembered paper, a UREF
retried) has one more, weaker key, its cited key: the normalised title with the first author's
family name when it gives one. It finds the entry such a citation already is, so that a search
repeated any number of times keeps one entry per paper; it never merges two confirmed records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypedDict

from ..bibliography import cited_parts
from ..core import as_int, cited_family, normalise_title, split_authors, unversioned
from .literature import AS_CITED, UNKNOWN, LiteratureDoc
from .refentry import Entry

ID_KINDS = ("arXiv", "DOI", "S2")  # the de-duplication order; then title + first author + year
ARXIV_CLASS_TAG = "arXivClass"
TYPE_TAG = "Type"  # the document type (journal-article, book, ...) BibTeX's entry type follows

# One identity key: ("arXiv", id), ("DOI", doi), ("S2", paperId) or ("title", normalised title,
# first author's family name or None, year).
Key = tuple[str | int | None, ...]


def identity(
    *,
    arxiv_id: object = None,
    doi: object = None,
    s2_paper_id: object = None,
    title: object = None,
    authors: list[str] | str | None = None,
    year: object = None,
) -> list[Key]:
    """The keys a paper is recognised by, in de-duplication order (values as a record or an
    entry holds them: a year may be a number or its digits)."""
    keys: list[Key] = []
    if arxiv_id:
        keys.append(("arXiv", unversioned(str(arxiv_id).strip().lower())))
    if doi:
        keys.append(("DOI", str(doi).lower()))
    if s2_paper_id:
        keys.append(("S2", str(s2_paper_id)))
    authors = split_authors(authors)
    number = as_int(year if isinstance(year, int) else str(year or ""))
    if title and authors and number:
        keys.append(("title", normalise_title(str(title)), cited_family(authors[0]), number))
    return keys


class CitedFields(TypedDict):
    """What a candidate cites that identifies it (identity's arguments)."""

    arxiv_id: object
    doi: object
    s2_paper_id: object
    title: object
    authors: list[str] | str | None
    year: object


def _authors(value: object) -> list[str] | str | None:
    """An authors value as records and citations give it (a list of names, or one string)."""
    if isinstance(value, str):
        return value
    return [str(name) for name in value] if isinstance(value, list) else None


def cited_fields(candidate: Mapping[str, object]) -> CitedFields:
    """What a candidate cites; a free-text citation (no title) is its title whole, its authors
    AS_CITED: the UREF keeps it as written."""
    whole = None if candidate.get("title") else candidate.get("citation")
    return {
        "arxiv_id": candidate.get("arxiv_id"),
        "doi": candidate.get("doi"),
        "s2_paper_id": candidate.get("s2_paper_id"),
        "title": candidate.get("title") or whole,
        "authors": _authors(candidate.get("authors")) or (AS_CITED if whole else None),
        "year": candidate.get("year"),
    }


def as_cited(authors: list[str] | str | None) -> bool:
    """Whether an authors value is AS_CITED: its title is a free-text citation, whole."""
    names = [authors] if isinstance(authors, str) else authors or []
    return [name.strip().lower() for name in names] == [AS_CITED]


def cited_title_authors(
    title: object, authors: list[str] | str | None
) -> tuple[object, list[str] | str | None]:
    """A reference's title and authors to recognise it by: a free-text citation's (authors
    AS_CITED) as the free-text reader splits them (the citation whole when it cannot)."""
    if not as_cited(authors) or not title:
        return title, authors
    parted_title, parted_authors = cited_parts(str(title))
    return parted_title or title, parted_authors


def cited_key(title: object, authors: list[str] | str | None = None) -> Key | None:
    """The cited key of a reference: ("cited", its normalised title, its first author's family
    name or None); None without a title. An author `unknown` (a UREF's stand-in) is none; a
    free-text citation's title and authors are the parts the free-text reader finds in it."""
    title, authors = cited_title_authors(title, authors)
    text = normalise_title(str(title)) if title else ""
    if not text:
        return None
    names = [name for name in split_authors(authors) if name.strip().lower() != UNKNOWN]
    return ("cited", text, cited_family(names[0]) if names else None)


def entry_identity(entry: Entry) -> list[Key]:
    ids = dict(tag.split(":", 1) for tag in entry.ids if ":" in tag)
    return identity(
        arxiv_id=entry.field("arXiv ID") or ids.get("arXiv"),
        doi=entry.field("DOI") or ids.get("DOI"),
        s2_paper_id=ids.get("S2"),
        title=entry.title,
        authors=entry.authors,
        year=entry.year,
    )


def id_tags(keys: list[Key]) -> list[str]:
    """The `<!-- ids: ... -->` tags for these keys (titles are visible; they need no tag)."""
    return [f"{key[0]}:{key[1]}" for key in keys if key[0] in ID_KINDS]


def paper_tags(paper: Mapping[str, object], keys: list[Key]) -> list[str]:
    """A confirmed paper's tags: its ids, and its arXiv primary category (for BibTeX's
    primaryClass, which the protocol's visible fields do not carry)."""
    tags = id_tags(keys)
    if paper.get("arxiv_id") and paper.get("primary_category"):
        tags.append(f"{ARXIV_CLASS_TAG}:{paper['primary_category']}")
    if paper.get("document_type"):
        tags.append(f"{TYPE_TAG}:{paper['document_type']}")
    return tags


class Index:
    """Lookup of REF and UREF entries by every identity key; updated as the merge edits."""

    def __init__(self, doc: LiteratureDoc):
        self.by_kind: dict[str, dict[Key, Entry]] = {"REF": {}, "UREF": {}}
        self.by_number: dict[str, Entry] = {}
        for entry in doc.confirmed + doc.unconfirmed:
            self.add(entry)

    def add(self, entry: Entry, keys: list[Key] | None = None) -> None:
        """Index the entry by `keys` (default: its own identity) and by its cited key."""
        table = self.by_kind[entry.kind]
        cited = cited_key(entry.title, entry.authors)
        for key in [*(keys if keys is not None else entry_identity(entry)), cited]:
            if key is not None:
                table.setdefault(key, entry)
        self.by_number.setdefault(entry.entry_number, entry)

    def drop(self, entry: Entry) -> None:
        table = self.by_kind[entry.kind]
        for key in [key for key, found in table.items() if found is entry]:
            del table[key]
        if self.by_number.get(entry.entry_number) is entry:
            del self.by_number[entry.entry_number]

    def find(self, kind: str, keys: Sequence[Key | None]) -> Entry | None:
        table = self.by_kind[kind]
        for key in keys:  # already in de-duplication order
            if key is not None and key in table:
                return table[key]
        return None

    def cited(self, kind: str, citation: Mapping[str, object]) -> Entry | None:
        """The entry of `kind` a citation (a candidate as given) already is: the entry number it
        names (`entry`), else its identity keys, else its cited key."""
        named = self.by_number.get(str(citation.get("entry") or ""))
        if named is not None and named.kind == kind:
            return named
        fields = cited_fields(citation)  # a citation names the same fields as a record
        keys = identity(**fields)
        return self.find(kind, [*keys, cited_key(fields["title"], fields["authors"])])


def paper_identity(paper: Mapping[str, object]) -> list[Key]:
    return identity(
        arxiv_id=paper.get("arxiv_id"),
        doi=paper.get("doi"),
        s2_paper_id=paper.get("s2_paper_id"),
        title=paper.get("title"),
        authors=_authors(paper.get("authors")),
        year=paper.get("year"),
    )

"""The amsrefs entries of a `.ltb` database or a `.tex` (`\\bib{key}{type}{...}`), read as
references.
"""

from __future__ import annotations

import re
from pathlib import Path

from .bibentry import BibliographyEntry, group_end, keyed_entry, without_comments

# amsrefs: \bib{key}{type}{field={value}, ...}, \bib*{key}{type}{...} (in a .ltb or a .tex)
_AMSREFS_ENTRY = re.compile(r"\\bib\*?\s*\{([^{}]+)\}\s*\{([^{}]+)\}\s*\{")
_AMSREFS_FIELDS = {
    "title": "title",
    "subtitle": "subtitle",
    "journal": "journal",
    "volume": "volume",
    "number": "number",
    "pages": "pages",
    "date": "year",
    "year": "year",
    "doi": "doi",
    "eprint": "eprint",
    "arxiv": "arxiv",
    "booktitle": "booktitle",
    "publisher": "publisher",
    "series": "series",
    "note": "note",
    "url": "url",
    "review": "review",
}


def read_amsrefs(path: str | Path, text: str) -> list[BibliographyEntry]:
    """The amsrefs entries of a .ltb database or a .tex: `\\bib{key}{type}{title={...},
    author={Family, Given}, author={...}, journal={...}, date={1999}, ...}`; an inner
    `book={title={...}, ...}` or `conference={...}` gives the booktitle."""
    body = without_comments(text)
    references = []
    for found in _AMSREFS_ENTRY.finditer(body):
        start = found.end() - 1
        inner = body[start + 1 : group_end(body, start) - 1]
        fields: dict[str, str] = {}
        authors: list[str] = []
        for name, value in _amsrefs_pairs(inner):
            if name == "author":
                authors.append(value)
            elif name in ("book", "conference") and "booktitle" not in fields:
                book = dict(_amsrefs_pairs(value))
                if book.get("title"):
                    fields["booktitle"] = book["title"]
            elif name in _AMSREFS_FIELDS:
                fields.setdefault(_AMSREFS_FIELDS[name], value)
        if authors:
            fields["author"] = " and ".join(authors)
        references.append(keyed_entry(found, text, path, fields))
    return references


def _amsrefs_pairs(text: str) -> list[tuple[str, str]]:
    """The `name={value}` pairs of an amsrefs entry's body, in order, names in lower case."""
    pairs: list[tuple[str, str]] = []
    position = 0
    pattern = re.compile(r"([A-Za-z]+)\s*=\s*")
    while True:
        found = pattern.search(text, position)
        if not found:
            return pairs
        start = found.end()
        if text.startswith("{", start):
            position = group_end(text, start)
            value = text[start + 1 : position - 1]
        else:
            end = text.find(",", start)
            position = len(text) if end < 0 else end
            value = text[start:position]
        value = re.sub(r"\\ndash\b\s*", "--", re.sub(r"\\mdash\b\s*", "---", value))
        pairs.append((found.group(1).lower(), " ".join(value.split())))

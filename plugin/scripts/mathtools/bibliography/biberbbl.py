"""The `\\entry`s of a `.bbl` that biber wrote for biblatex, read as references."""

from __future__ import annotations

import re
from pathlib import Path

from .bibentry import BibliographyEntry, group_end, keyed_entry, without_comments

# biblatex/biber .bbl: \entry{key}{type}{options} ... \endentry
_BBL_ENTRY = re.compile(r"\\entry\s*\{([^{}]+)\}\s*\{([^{}]+)\}")
_BBL_FIELDS = {
    "journaltitle": "journal",
    "journal": "journal",
    "booktitle": "booktitle",
    "title": "title",
    "subtitle": "subtitle",
    "year": "year",
    "date": "date",
    "volume": "volume",
    "number": "number",
    "pages": "pages",
    "eprint": "eprint",
    "eprinttype": "eprinttype",
    "eprintclass": "primaryclass",
    "doi": "doi",
    "url": "url",
    "note": "note",
    "howpublished": "howpublished",
}


def read_biblatex_bbl(path: str | Path, text: str) -> list[BibliographyEntry]:
    """The `\\entry`s of a .bbl biber wrote for biblatex: `\\field{title}{...}`,
    `\\name{author}{n}{}{{{hash=...}{family={...}, given={...}}}...}`, `\\list{publisher}`,
    `\\range{pages}`, `\\verb{doi} \\verb ... \\endverb`."""
    body = without_comments(text)
    references = []
    for found in _BBL_ENTRY.finditer(body):
        stop = body.find("\\endentry", found.end())
        if stop < 0:  # not biber's: every entry it writes ends so
            continue
        chunk = body[found.end() : stop]
        fields: dict[str, str] = {}
        for command in re.finditer(r"\\(field|range|name|list|verb)\s*\{([^{}]+)\}", chunk):
            kind, name = command.group(1), command.group(2).lower()
            cursor = command.end()
            if kind == "verb":
                value = chunk[cursor:].split("\\endverb", 1)[0]
                value = " ".join(re.sub(r"\\verb\b", " ", value).split())
            else:
                if kind in ("name", "list"):  # {count}{options} before the value
                    for _ in range(2):
                        cursor = _skip_group(chunk, cursor)
                start = chunk.find("{", cursor)
                if start < 0:
                    continue
                value = chunk[start + 1 : group_end(chunk, start) - 1]
            if kind == "name" and name == "author":
                fields["author"] = " and ".join(_biber_names(value))
            elif kind == "list" and name in ("publisher", "location", "institution"):
                fields[name] = "; ".join(_top_groups(value))
            elif kind in ("field", "range", "verb") and name in _BBL_FIELDS:
                value = re.sub(r"\\bibrangedash\b\s*", "--", value)
                value = re.sub(r"\\bibrangessep\b\s*", ", ", value)
                fields.setdefault(_BBL_FIELDS[name], " ".join(value.split()))
        references.append(keyed_entry(found, text, path, fields))
    return references


def _skip_group(text: str, cursor: int) -> int:
    """The position after the `{...}` that follows `cursor` (whitespace and `%` skipped)."""
    start = cursor
    while start < len(text) and text[start] in " \t\r\n%":
        start += 1
    return group_end(text, start) if text.startswith("{", start) else cursor


def _top_groups(text: str) -> list[str]:
    """The contents of the top-level `{...}` groups of `text`."""
    groups: list[str] = []
    position = 0
    while True:
        start = text.find("{", position)
        if start < 0:
            return groups
        position = group_end(text, start)
        groups.append(" ".join(text[start + 1 : position - 1].split()))


def _biber_names(value: str) -> list[str]:
    names = []
    for person in re.split(r"\{\s*hash=", value)[1:]:
        parts = {}
        for part in re.finditer(r"\b(family|given|prefix|suffix)=\{", person):
            start = part.end() - 1
            parts[part.group(1)] = person[start + 1 : group_end(person, start) - 1]
        family = " ".join(p for p in (parts.get("prefix"), parts.get("family")) if p)
        name = ", ".join(p for p in (family, parts.get("suffix"), parts.get("given")) if p)
        name = re.sub(r"\\bibnamedelim[a-z]?|\\bibinitdelim", " ", name)
        name = re.sub(r"\\bibinitperiod", ".", name).replace("\\bibinithyphendelim", "-")
        if name.strip():
            names.append(" ".join(name.split()))
    return names

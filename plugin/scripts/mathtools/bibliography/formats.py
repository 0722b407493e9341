"""The bibliography formats the plugin reads, one row each in FORMATS: its name, the files it is
read from (their suffixes), the pattern that recognises one of its entries in a text, and its
reader. `read_entries` reads a file through every row that claims its suffix and whose entries
its text holds, so a new format is one reader module and one row here (a new suffix is also a
file kind of schemas/check_refs.schema.json, which tests/test_bibliography.py holds equal).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .amsrefs import read_amsrefs
from .bibentry import BibliographyEntry, read_file
from .biberbbl import read_biblatex_bbl
from .bibitems import read_bibitems
from .bibtexfile import BibFile, read_bib_text


@dataclass
class FileEntries:
    """What one bibliography file holds, as its formats' readers read it."""

    references: list[BibliographyEntry] = field(default_factory=list)  # in file order
    repeated: list[BibliographyEntry] = field(
        default_factory=list
    )  # a second entry with a used key
    warnings: list[str] = field(default_factory=list)  # read anyway, as BibTeX warns
    bib: BibFile | None = None  # a .bib, which a corrected copy rewrites


@dataclass(frozen=True)
class Format:
    """One bibliography format: how it is recognised and how it is read."""

    name: str
    suffixes: frozenset[str]  # the files it is read from
    entry: re.Pattern[str]  # finds one of its entries: a text without one is not read as it
    written: str  # how one of its entries is written, for messages
    read: Callable[[Path, str], FileEntries]


def _bibtex(path: Path, text: str) -> FileEntries:
    bib = read_bib_text(text, path)
    known = {reference.key for reference in bib.references}
    repeated = [
        BibliographyEntry(key, str(path), line, "duplicate")
        for key, line in bib.repeated_keys
        if key in known
    ]
    return FileEntries(bib.references, repeated, bib.warnings, bib)


def _listed(
    reader: Callable[[Path, str], list[BibliographyEntry]],
) -> Callable[[Path, str], FileEntries]:
    """A reader that gives the entries alone, as a row's reader."""
    return lambda path, text: FileEntries(reader(path, text))


FORMATS = (
    Format(
        "BibTeX",
        frozenset({".bib"}),
        re.compile(r"@\s*[A-Za-z]+\s*[{(]"),
        "@article{key, ...}",
        _bibtex,
    ),
    Format(
        "thebibliography",  # a .tex's list, or a .bbl of amsalpha, plain or an author-year style
        frozenset({".bbl", ".tex"}),
        re.compile(r"\\bibitem\b"),
        "\\bibitem{key}",
        _listed(read_bibitems),
    ),
    Format(
        "biblatex .bbl",  # written by biber
        frozenset({".bbl"}),
        re.compile(r"\\entry\s*\{"),
        "biblatex's \\entry{key}{type}",
        _listed(read_biblatex_bbl),
    ),
    Format(
        "amsrefs",  # a .ltb database, a .bbl amsrefs wrote, or entries inside a .tex
        frozenset({".ltb", ".bbl", ".tex"}),
        re.compile(r"\\bib\*?\s*\{"),
        "amsrefs' \\bib{key}{type}{...}",
        _listed(read_amsrefs),
    ),
)
SUFFIXES = sorted({suffix for row in FORMATS for suffix in row.suffixes})


def formats_of(path: str | Path) -> list[Format]:
    """The formats a file of this name may be written in (none: not a bibliography we read)."""
    suffix = Path(path).suffix.lower()
    return [row for row in FORMATS if suffix in row.suffixes]


def read_entries(path: str | Path, text: str | None = None) -> FileEntries:
    """The entries of the bibliography at `path` (its `text` when already read), in file order,
    read by every format its name allows whose entries the text holds; none found is an empty
    FileEntries (BadInput, from read_file, for a file that cannot be read)."""
    path = Path(path)
    text = read_file(path, "bibliography") if text is None else text
    found = FileEntries()
    for row in formats_of(path):
        if row.entry.search(text):
            read = row.read(path, text)
            found.references += read.references
            found.repeated += read.repeated
            found.warnings += read.warnings
            found.bib = found.bib or read.bib
    found.references.sort(key=lambda reference: reference.line)
    return found


def no_entry_message(path: str | Path) -> str:
    """What a file that holds none of its formats' entries is told."""
    names = [row.name for row in formats_of(path)]
    either = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    written = ", ".join(row.written for row in formats_of(path))
    return f"{path} holds no {either} entry ({written})"

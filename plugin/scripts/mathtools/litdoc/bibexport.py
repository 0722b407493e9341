"""references.bib from the CONFIRMED references of LITERATURE.md, and nothing else.

Keys are built from the entry alone (first author's family name, year, first significant title
word: `lovelace2021spectral`), so they do not change between runs; when two confirmed entries would
share a key, the one with the higher REF number gets a letter (`lovelace2021spectralb`). REF
numbers are never reused, so adding references later never renames an existing key.

arXiv papers carry `eprint`, `archivePrefix = {arXiv}` and `primaryClass` (the primary category
lit_update.py keeps in the entry's ids comment); every entry carries its DOI, zbMATH's Zbl number
(`zbl`) and MSC codes (`msc2020`) when known. A book (the document type lit_update.py keeps in the
ids comment, `Type:book`) is a `@book`; everything else stays `@misc`.
The file has no timestamp: the same confirmed references give the same bytes.

    >>> doc = literature.load_literature("LITERATURE.md")
    >>> [(e.key, e.entry_number) for e in bib_entries(doc)]
    [('lovelace2021spectral', 'REF-001')]
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..bibliography import bibtex_identifier, bibtex_names, bibtex_text, parse_bibtex
from ..core import BadInput, write_file
from . import literature, refentry
from .identity import ARXIV_CLASS_TAG, TYPE_TAG

# Title words a key skips (the first other word of three letters or more names the paper).
STOPWORDS = frozenset(
    "the and for with from into some about via its are new note notes remark remarks".split()  # noqa: SIM905
)
HEADER = (
    "% references.bib -- written by scripts/bib_export.py from the CONFIRMED references of\n"
    "% LITERATURE.md only. Do not edit by hand: run bib_export.py again when the literature\n"
    "% changes.\n"
)
HAND_ADDED = "% Added by hand: kept as written (a cited one must be a confirmed reference)."
_MATH = re.compile(r"(\$[^$]*\$)")


def _ascii_word(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return re.sub(r"[^a-z0-9]", "", decomposed.encode("ascii", "ignore").decode().lower())


def base_key(entry: refentry.Entry) -> str:
    """`family` + `year` + `word`, ASCII lower case: the key before disambiguation."""
    authors = entry.authors
    family = _ascii_word(authors[0].split()[-1]) if authors and authors[0].split() else ""
    title = _MATH.sub(" ", entry.title)
    words = [_ascii_word(w) for w in re.split(r"[\s\-/:,.;()]+", title)]
    word = next((w for w in words if len(w) > 2 and w not in STOPWORDS), "")
    return f"{family or 'anon'}{entry.year or 'nd'}{word}"


@dataclass
class BibEntry:
    key: str
    entry_number: str  # REF-NNN
    title: str
    authors: list[str]
    year: int | None
    arxiv_id: str | None
    doi: str | None
    primary_class: str | None = None
    zbl: str | None = None
    msc: list[str] = field(default_factory=list)
    entry_type: str = "misc"
    fields: dict[str, str] = field(default_factory=dict)

    def render(self) -> str:
        values = {
            "title": "{" + bibtex_text(self.title) + "}",  # inner braces keep its capitals
            "author": bibtex_names(self.authors) or None,
            "year": str(self.year) if self.year else None,
            "eprint": bibtex_identifier(self.arxiv_id or ""),
            "archivePrefix": "arXiv" if self.arxiv_id else None,
            "primaryClass": bibtex_identifier(self.primary_class or "") if self.arxiv_id else None,
            "doi": bibtex_identifier(self.doi or ""),
            "zbl": bibtex_identifier(self.zbl or ""),
            "msc2020": bibtex_text("; ".join(self.msc)) or None,
            "url": bibtex_identifier(
                f"https://arxiv.org/abs/{self.arxiv_id}"
                if self.arxiv_id
                else (f"https://doi.org/{self.doi}" if self.doi else "")
            ),
        }
        lines = [f"% {self.entry_number}", f"@{self.entry_type}{{{self.key},"]
        lines += [f"  {name} = {{{value}}}," for name, value in values.items() if value]
        return "\n".join(lines) + "\n}\n"

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "ref": self.entry_number,
            "title": self.title,
            "arxiv_id": self.arxiv_id,
            "doi": self.doi,
            "zbl": self.zbl,
            "entry_type": self.entry_type,
            "primary_class": self.primary_class,
        }


def verified(doc: literature.LiteratureDoc) -> list[refentry.Entry]:
    """The confirmed entries that carry their verification stamp (a REF entry typed in by hand
    without one has not been through verify_batch.py, and is never cited)."""
    return [entry for entry in doc.confirmed if entry.verified_at]


def bib_entries(doc: literature.LiteratureDoc) -> list[BibEntry]:
    """One BibEntry per confirmed reference, in REF order, with stable unique keys."""
    taken: dict[str, int] = {}
    result = []
    for entry in sorted(verified(doc), key=lambda e: e.number):
        base = base_key(entry)
        seen = taken.get(base, 0)
        taken[base] = seen + 1
        # a, b, ... after the first; past z, a number (never expected in practice)
        suffix = "" if not seen else (chr(ord("a") + seen) if seen < 26 else str(seen))
        result.append(
            BibEntry(
                key=base + suffix,
                entry_number=entry.entry_number,
                title=entry.title,
                authors=entry.authors,
                year=entry.year,
                arxiv_id=entry.arxiv_id,
                doi=entry.doi,
                primary_class=arxiv_class(entry) if entry.arxiv_id else None,
                zbl=entry.zbl,
                msc=entry.msc,
                entry_type="book" if f"{TYPE_TAG}:book" in entry.ids else "misc",
            )
        )
    return result


def render(entries: list[BibEntry]) -> str:
    return HEADER + "".join("\n" + entry.render() for entry in entries)


def arxiv_class(entry: refentry.Entry) -> str | None:
    """The arXiv primary category lit_update.py recorded in the entry's ids comment."""
    prefix = f"{ARXIV_CLASS_TAG}:"
    return next((tag[len(prefix) :] for tag in entry.ids if tag.startswith(prefix)), None)


def kept_by_hand(path: Path, ours: dict[str, str]) -> tuple[str, list[str]]:
    """What a person added to an existing references.bib, to be kept: the text of every block
    bib_export.py did not write (entries, @string, @preamble, @comment, comment lines), in
    order, and the keys of the entries among them. An entry is ours when the line before it is
    its `% REF-NNN` entry number. BadInput (the file is left alone) when the file cannot be
    parsed, or when an entry added by hand has a key the export now gives a confirmed reference
    (`ours`: key -> REF entry number), or sits in a file that is not UTF-8."""
    from bibtexparser.model import (
        DuplicateBlockKeyBlock,
        Entry,
        ImplicitComment,
        ParsingFailedBlock,
    )

    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return "", []
    try:
        text, utf8 = data.decode("utf-8"), True
    except UnicodeDecodeError:
        text, utf8 = data.decode("latin-1"), False  # only to see whether entries would be lost
    library = parse_bibtex(text)
    pieces, keys, labelled = [], [], False
    for block in library.blocks:
        if isinstance(block, ImplicitComment):
            lines = [line for line in block.comment.splitlines() if not _written_by_us(line)]
            labelled = bool(re.fullmatch(r"%\s*REF-\d+", block.comment.splitlines()[-1].strip()))
            if any(line.strip() for line in lines):
                pieces.append("\n".join(lines).strip("\n"))
            continue
        if isinstance(block, DuplicateBlockKeyBlock | Entry):
            if not labelled and block.raw is not None:  # parsed blocks always carry their text
                pieces.append(block.raw)
                keys.append(block.key)
        elif isinstance(block, ParsingFailedBlock):
            raise BadInput(
                f"{path} line {(block.start_line or 0) + 1} cannot be parsed, and bib_export.py "
                "keeps what was added to the file by hand: fix that entry, then export again",
                code="bad_bib",
            )
        else:  # @string, @preamble, @comment: never ours
            pieces.append(block.raw)
        labelled = False
    clashes = [f"{key} ({ours[key]})" for key in keys if key in ours]
    if clashes:
        raise BadInput(
            f"{path} holds entries added by hand whose keys now name confirmed references: "
            f"{', '.join(clashes)}; rename or remove them, then export again",
            code="hand_added_key_clash",
        )
    if keys and not utf8:
        raise BadInput(
            f"{path} is not UTF-8 and holds entries added by hand ({', '.join(keys)}); "
            "convert it to UTF-8 so that they can be kept, then export again",
            code="not_utf8",
        )
    return ("\n".join(pieces), keys) if utf8 else ("", [])


def _written_by_us(line: str) -> bool:
    return (
        line in HEADER.splitlines()
        or line == HAND_ADDED.strip()
        or bool(re.fullmatch(r"%\s*REF-\d+", line.strip()))
    )


def export(folder: Path) -> dict[str, object]:
    """Write folder/references.bib from folder/LITERATURE.md; returns what was written."""
    doc = literature.load_literature(folder / "LITERATURE.md")
    entries = bib_entries(doc)
    path = folder / "references.bib"
    kept, kept_keys = kept_by_hand(path, {entry.key: entry.entry_number for entry in entries})
    text = render(entries) + (f"\n{HAND_ADDED}\n{kept}\n" if kept else "")
    # Compared as bytes: a damaged file (not UTF-8) is simply replaced, as any stale one is.
    changed = not path.is_file() or path.read_bytes() != text.encode("utf-8")
    if changed:
        write_file(path, text)  # a folder in its place is bad input naming it
    return {
        "file": str(path),
        "changed": changed,
        "entries": [e.to_dict() for e in entries],
        "count": len(entries),
        "kept_by_hand": kept_keys,
        "left_out_unconfirmed": [e.entry_number for e in doc.unconfirmed],
        "left_out_unverified": [e.entry_number for e in doc.confirmed if not e.verified_at],
        "arxiv_without_primary_class": [
            e.key for e in entries if e.arxiv_id and not e.primary_class
        ],
    }

"""A `.bib` file, read as BibTeX reads it: parsed with bibtexparser 2 (which keeps every block,
comments, `@string` and `@preamble` included, with its raw text and line), `@string` macros and
`#` concatenation evaluated here. A `.bib` that does not parse is refused naming the line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import BadInput
from .bibentry import BibliographyEntry

MONTHS = {
    name: str(number)
    for number, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)  # noqa: SIM905
}


@dataclass
class BibFile:
    """A parsed .bib file: its text, its blocks (bibtexparser, raw values) and its entries."""

    path: Path
    text: str
    library: Any  # bibtexparser.Library, parsed without middlewares: values as written
    references: list[BibliographyEntry]
    repeated_keys: list[tuple[str, int]]  # (key, 1-based line) of a second entry with a used key
    warnings: list[str] = field(default_factory=list)  # what BibTeX would warn about, read anyway


def parse_bibtex(text: str) -> Any:
    """bibtexparser's blocks for `text`, values as written (no middleware: `@string` references,
    braces and quotes kept, so that a block can be written back as it was)."""
    from bibtexparser.entrypoint import parse_string

    logging.getLogger("bibtexparser").setLevel(logging.ERROR)  # the caller says what failed
    return parse_string(text, parse_stack=[])


def entry_blocks(library: Any) -> list[tuple[Any, Any]]:
    """(block, entry) for every entry of `library` in file order: an entry repeating a field
    (BibTeX and biber only warn) is a failed block of bibtexparser's whose entry is kept."""
    from bibtexparser.model import DuplicateFieldKeyBlock, Entry

    found: list[tuple[Any, Any]] = []
    for block in library.blocks:
        if isinstance(block, Entry):
            found.append((block, block))
        elif isinstance(block, DuplicateFieldKeyBlock) and isinstance(
            block.ignore_error_block, Entry
        ):
            found.append((block, block.ignore_error_block))
    return found


def read_bib_text(text: str, path: Path) -> BibFile:
    """Parse the text of the .bib file `path` as BibTeX reads it; BadInput naming the line of the
    first block that does not parse, or when the file holds no entry. A field given twice in one
    entry keeps its first value, as BibTeX does, with a warning."""
    from bibtexparser.model import (
        DuplicateBlockKeyBlock,
        DuplicateFieldKeyBlock,
        Entry,
        String,
    )

    library = parse_bibtex(text)
    failed = [
        b
        for b in library.failed_blocks
        if not isinstance(b, (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock))
    ]
    if failed:
        block = failed[0]
        detail = " ".join(
            (getattr(block.error, "abort_reason", None) or str(block.error) or "syntax").split()
        )
        raise BadInput(
            f"{path}: line {(block.start_line or 0) + 1}: this entry cannot be parsed ({detail})",
            code="bad_bib",
        )
    strings: dict[str, str] = dict(MONTHS)
    references, repeated, warnings = [], [], []
    for block in library.blocks:
        if isinstance(block, String):
            strings[block.key.lower()] = evaluate(block.value, strings)
        elif isinstance(block, DuplicateBlockKeyBlock):
            repeated.append((block.key, (block.start_line or 0) + 1))
        elif isinstance(block, (Entry, DuplicateFieldKeyBlock)):
            entry: Any = block if isinstance(block, Entry) else block.ignore_error_block
            if not isinstance(entry, Entry):
                continue
            line = (block.start_line or 0) + 1
            raw: dict[str, str] = {}
            for item in entry.fields:
                name = item.key.lower()
                if name in raw:
                    warnings.append(
                        f"{path.name} line {line}: {entry.key} gives the field {name} twice; "
                        "the first is used, as BibTeX does"
                    )
                else:
                    raw[name] = item.value
            fields = {name: evaluate(value, strings) for name, value in raw.items()}
            references.append(
                BibliographyEntry(entry.key, str(path), line, entry.entry_type, fields, raw)
            )
    if not references:
        raise BadInput(f"{path} holds no BibTeX entry (@article{{...}}, ...)", code="no_entries")
    return BibFile(path, text, library, references, repeated, warnings)


# The longest value an @string macro or a field may expand to: `@string{s1 = s0 # s0}`, doubled
# thirty times, would fill the memory ("billion laughs").
MAX_EXPANDED_CHARS = 1 << 20


def check_expansion(parts: list[str]) -> None:
    """BadInput when the parts of one value, joined, would outgrow MAX_EXPANDED_CHARS."""
    if sum(map(len, parts)) > MAX_EXPANDED_CHARS:
        raise BadInput(
            f"an @string macro or field expands to over {MAX_EXPANDED_CHARS >> 20} MB "
            "(macros concatenating themselves?)",
            code="bad_bib",
        )


def evaluate(raw: str, strings: dict[str, str]) -> str:
    """A field's value as BibTeX reads it: `{...}` and `"..."` unwrapped, numbers as they are,
    `@string` macros (and the month names) replaced, `#` concatenations joined."""
    parts, depth, quoted, start = [], 0, False, 0
    for position, ch in enumerate(raw):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            quoted = not quoted
        elif ch == "#" and depth == 0 and not quoted:
            parts.append(raw[start:position])
            start = position + 1
    parts.append(raw[start:])
    values = []
    for part in (p.strip() for p in parts):
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            values.append(part[1:-1])
        else:
            values.append(strings.get(part.lower(), part))
    check_expansion(values)
    return " ".join("".join(values).split())

"""A citation written as free text (a reference of a PDF, a line of prose), read into the fields
the verification gate matches: `free_text_fields` is the gate's single entry point for it.

A plain line as a PDF prints it, "V. Benci and F. Giannoni,
Periodic bounce trajectories ..., Ann. Inst. ... 6(1) (1989), 73-93." or "Albers, P.,
Mazzucchelli, M.: Periodic bounce orbits ..., Int. Math. Res. Notices (2010)", is split first
into its authors (the leading names), its title (what follows, to the next comma) and the rest,
then read as a \\bibitem is (bibitems.bibitem_fields: names, year, volume, pages, venue); any
other text is read as a \\bibitem directly (an emphasised title, an author-year sentence).
The text is always kept, as written, in the field `text`.
"""

from __future__ import annotations

import re

from .bibitems import bibitem_fields

_NAME = re.compile(
    r"(?:(?:[A-Z][a-z]?\.\s?-?)+\s?[A-Z][\w'’`\-]+(?:\s[A-Z][\w'’`\-]+)?"  # A. B. Family
    r"|[A-Z][\w'’`\-]+(?:\s[A-Z][\w'’`\-]+)?,\s?(?:[A-Z][a-z]?\.\s?-?)+"  # Family, A. B.
    r"|[A-Z][a-z]+\s[A-Z][\w'’`\-]+)$"  # Given Family
)


def free_text_fields(text: str) -> dict[str, str]:
    """The fields (author, title, journal, volume, pages, year, text, ...) of a citation written
    as free text; only `text` when nothing else can be told apart."""
    text = " ".join(text.split())
    authors, title, rest = _split(text)
    if not authors or not title or "\\newblock" in text:
        return bibitem_fields(text)
    found = bibitem_fields(f"{authors} \\newblock {title} \\newblock {rest}")
    found["text"] = text
    return found


def _split(text: str) -> tuple[str, str, str]:
    """(authors, title, rest) of a plain citation; empty strings when its start is no names."""
    head, colon, tail = text.partition(": ")
    if colon and _names(head):
        title, _, rest = tail.partition(", ")
        return head, title, rest
    parts = text.split(", ")
    names = 0
    while names < len(parts) and _names(parts[names]):
        names += 1
    if names == 0 or names >= len(parts):
        return "", "", ""
    return ", ".join(parts[:names]), parts[names], ", ".join(parts[names + 1 :])


def _names(part: str) -> bool:
    """Whether `part` is one name or names joined by "and" ("K. Bezdek and R. Connelly")."""
    pieces = re.split(r"\s+(?:and|&)\s+|,\s*(?=[A-Z]\.\s?[A-Z])", part.strip())
    return all(_NAME.match(piece.strip()) for piece in pieces if piece.strip())

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

from .bibitems import bibitem_fields, plain_citation_parts


def free_text_fields(text: str) -> dict[str, str]:
    """The fields (author, title, journal, volume, pages, year, text, ...) of a citation written
    as free text; only `text` when nothing else can be told apart."""
    text = " ".join(text.split())
    authors, title, rest = plain_citation_parts(text)
    if not authors or not title or "\\newblock" in text:
        return bibitem_fields(text)
    found = bibitem_fields(f"{authors} \\newblock {title} \\newblock {rest}")
    found["text"] = text
    return found


def cited_parts(text: str) -> tuple[str | None, str | None]:
    """(title, authors) a free-text citation gives, as free_text_fields reads them (its quotes
    and closing full stop left out); None for what cannot be told apart. How a whole citation is
    asked for by title (the gate) and recognised as a paper already recorded (litdoc)."""
    found = free_text_fields(text)
    title = (found.get("title") or "").strip(" \"\u201c\u201d'").rstrip(".").strip()
    return title or None, found.get("author") or None

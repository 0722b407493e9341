"""Journal macros in a thebibliography: `\\input mrabbrev` then `\\ANNMAone\\ 72 (1960)`, the AMS
abbreviation macros (`\\ANNMAone` is "Ann. of Math."), or a paper's own (`\\def\\jams{J. Amer.
Math. Soc.}`). The venue is the macro; read as written it is empty.

The definitions are read where LaTeX reads them: the paper's own source (texmacros.py's macro
reader), that is the .tex and the files it inputs (localpaper.py), or the arXiv source's files. With
them each item is read again, its macros expanded. Without them (the AMS file, mrabbrev.tex, is
not in TeX Live, and its licence, "all rights reserved" but for unchanged or renamed copies,
does not let us ship a table made from it) the venue is reported as the unexpanded macro, never
compared with a record's venue, rather than left empty.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..bibliography import MATH, BibliographyEntry, bibitem_fields
from ..core import UnexpandedVenue
from . import texmacros, texsource

_CONTROL_WORD = re.compile(r"\\([A-Za-z]+)(?:\\ |\{\}|(?![A-Za-z]))")
# used as a journal macro is: with no argument (`\\ANNMAone\\ 72`, `\\jams{} 3`), unlike \\href{...}
_WITHOUT_ARGUMENT = re.compile(r"\\([A-Za-z]+)(?:\\ |\{\}|(?![A-Za-z{\[*]))")
_SENTINEL = "journalmacro"


def definitions(document: texsource.Document) -> dict[str, str]:
    """The argument-less macros `document` defines, by name without its backslash: {"jams":
    "J. Amer. Math. Soc."}."""
    return {
        found.macro["name"].lstrip("\\"): found.macro["body"]
        for found in texmacros.definitions(document)
        if found.macro["arguments"] == 0 and found.macro["kind"] != "let"
    }


def expand_venues(
    references: list[BibliographyEntry], macros: Mapping[str, str], missing: list[str]
) -> list[UnexpandedVenue]:
    """Read again, its macros expanded, each `\\bibitem` without a venue whose text uses a macro
    `macros` defines, keeping the new reading when it finds the venue; return the items whose
    venue is still a macro (defined nowhere in the source), which are left without a venue.
    `missing`: the inputs the source names and does not hold."""
    unexpanded: list[UnexpandedVenue] = []
    for reference in references:
        text = reference.fields.get("text", "")
        if reference.entry_type != "bibitem" or "journal" in reference.fields or "\\" not in text:
            continue  # only a venue that vanished is read again
        # a journal macro: used with no argument, outside math ($\\R^4$ in a title is not one)
        alone = {m.group(1) for m in _WITHOUT_ARGUMENT.finditer(MATH.sub(" ", text))}
        known = {name: macros[name] for name in alone if name in macros}
        if known:
            fields = bibitem_fields(_replaced(text, known))
            if "journal" in fields:  # the venue was a macro: the item read with it expanded
                kept = {k: v for k, v in reference.fields.items() if k == "mrnumber"}
                reference.fields = {**fields, **kept, "text": text}
                continue
        venue = _macro_venue(text, alone - set(known))
        if venue:
            unexpanded.append(
                UnexpandedVenue(
                    key=reference.key,
                    file=reference.file,
                    line=reference.line,
                    venue=venue,
                    missing_inputs=missing,
                )
            )
    return unexpanded


def _macro_venue(text: str, names: set[str]) -> str | None:
    """The venue as written when it is an undefined macro (`\\ANNMAone`), else None: the item is
    read with one macro at a time written as a word, until the venue is that word."""
    for name in sorted(names):
        marked = _replaced(text, {name: _SENTINEL + name})
        venue = bibitem_fields(marked).get("journal", "")
        if _SENTINEL in venue:
            return venue.replace(_SENTINEL, "\\")
    return None


def _replaced(text: str, replacements: Mapping[str, str]) -> str:
    """`text` with each control word `replacements` names (`\\jams`, `\\jams\\ `, `\\jams{}`)
    replaced by its text and a space."""

    def replace(found: re.Match[str]) -> str:
        name = found.group(1)
        return f"{replacements[name]} " if name in replacements else found.group()

    return _CONTROL_WORD.sub(replace, text)

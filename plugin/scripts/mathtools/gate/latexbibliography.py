"""A bibliography written in LaTeX rather than BibTeX (a `.bbl`, a `.ltb`, a `.tex`): `read_items`
reads its entries whichever of the three forms they take (`\\bibitem`, biber's `\\entry`,
amsrefs' `\\bib`).
"""

from __future__ import annotations

from pathlib import Path

from .amsrefs import read_amsrefs
from .bibentry import Reference, read_file
from .biberbbl import read_biblatex_bbl
from .bibitems import read_bibitems


def read_items(path: str | Path, text: str | None = None) -> list[Reference]:
    """The entries of a bibliography that is not a .bib, whichever way it is written, in file
    order: `\\bibitem`s (a .bbl of amsalpha, plain or an author-year style, a .tex's
    thebibliography), biblatex/biber's `\\entry{key}{type}` (.bbl), amsrefs' `\\bib{key}{type}{...}`
    (a .ltb database, or inside a .tex)."""
    path = Path(path)
    text = read_file(path, "bibliography") if text is None else text
    found = read_bibitems(path, text) + read_biblatex_bbl(path, text) + read_amsrefs(path, text)
    return sorted(found, key=lambda reference: reference.line)

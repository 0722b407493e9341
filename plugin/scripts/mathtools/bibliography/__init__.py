"""Bibliographies as people write them: the formats read (formats.py, one row each: BibTeX,
thebibliography's \\bibitems, biblatex's .bbl, amsrefs), a paper's bibliography loaded from its
files or its arXiv source, a free-text citation read into fields, and BibTeX written back (values
that break nothing, a corrected copy). Imports core only; the gate checks what it reads."""

__all__ = [
    "amsrefs",
    "bibcopy",
    "bibentry",
    "biberbbl",
    "bibitems",
    "bibtexfile",
    "bibvalues",
    "formats",
    "freetext",
    "loading",
]

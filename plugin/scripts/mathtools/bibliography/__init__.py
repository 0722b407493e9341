"""Bibliographies as people write them: the formats read (formats.py, one row each: BibTeX,
thebibliography's \\bibitems, biblatex's .bbl, amsrefs), a paper's bibliography loaded from its
files or its arXiv source, a free-text citation read into fields, and BibTeX written back (values
that break nothing, a corrected copy). Imports core only; the gate checks what it reads.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .bibcopy import corrected_copy
    from .bibentry import BibliographyEntry, group_end, plain_text, read_file, split_names
    from .bibitems import bibitem_fields
    from .bibtexfile import BibFile, parse_bibtex
    from .bibvalues import MATH, bibtex_identifier, bibtex_names, bibtex_text, unsafe_commands
    from .freetext import cited_parts, free_text_fields
    from .loading import Bibliography, keep_cited, load_bibliography, load_source

__all__ = [
    "MATH",
    "BibFile",
    "Bibliography",
    "BibliographyEntry",
    "bibitem_fields",
    "bibtex_identifier",
    "bibtex_names",
    "bibtex_text",
    "cited_parts",
    "corrected_copy",
    "free_text_fields",
    "group_end",
    "keep_cited",
    "load_bibliography",
    "load_source",
    "parse_bibtex",
    "plain_text",
    "read_file",
    "split_names",
    "unsafe_commands",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)

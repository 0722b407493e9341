"""LITERATURE.md: the document, its REF/UREF entries, their checks, the merge of a verification
into it, and its BibTeX export. Imports core to papers.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .bibexport import bib_entries, export
    from .checks import REPLACES, extended_synthesis, validate, with_warning
    from .identity import Index, Key, entry_identity, paper_identity
    from .literature import (
        AS_CITED,
        SYNTHESIS,
        UNKNOWN,
        LiteratureDoc,
        load_literature,
        parse_literature,
        template,
    )
    from .mergereport import merge_summary_lines
    from .merging import correct_file, merge_file
    from .quotes import LatexSourceText, keep_quoted, proof_violations, tex_violations

__all__ = [
    "AS_CITED",
    "REPLACES",
    "SYNTHESIS",
    "UNKNOWN",
    "Index",
    "Key",
    "LatexSourceText",
    "LiteratureDoc",
    "bib_entries",
    "correct_file",
    "entry_identity",
    "export",
    "extended_synthesis",
    "keep_quoted",
    "load_literature",
    "merge_file",
    "merge_summary_lines",
    "paper_identity",
    "parse_literature",
    "proof_violations",
    "template",
    "tex_violations",
    "validate",
    "with_warning",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)

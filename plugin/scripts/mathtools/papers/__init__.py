"""What a paper says in its own words: its arXiv LaTeX source read into the statements LaTeX
numbers (Theorem 2.3), with their notes, labels and text; and, for /math:check-refs, a paper as
a referee gets it (an arXiv id, a PDF) read into its bibliography, with the statements it cites
by number checked against the cited papers' sources. Imports core, bibliography, services and
gate.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .checkrefs import check_refs
    from .paperinput import read_paper_input
    from .papertheorems import paper_theorems, theorems_summary_lines

__all__ = ["check_refs", "paper_theorems", "read_paper_input", "theorems_summary_lines"]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)

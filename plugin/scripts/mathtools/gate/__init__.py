"""The citation gate: compares a citation with what the services hold and gives the verdict
(CONFIRMED, CORRECTED, UNCONFIRMED); checks a bibliography the bibliography wing read, for
/math:check-refs. Imports core, services and bibliography.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .candidates import load_candidates
    from .refoptions import RefsOptions, RefsRun, parse_refs_options
    from .refrun import adopt_run, run_check
    from .verdicts import PENDING, verification_summary_lines
    from .verification import Verifier

__all__ = [
    "PENDING",
    "RefsOptions",
    "RefsRun",
    "Verifier",
    "adopt_run",
    "load_candidates",
    "parse_refs_options",
    "run_check",
    "verification_summary_lines",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)

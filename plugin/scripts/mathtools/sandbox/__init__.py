"""The sandbox: runs a Python snippet in a separate, confined process (its writes kept in its
folder, its reads to what it needs, no network, its processes ended with it, its time, memory and
processes capped) and says what happened and what confined it. Imports core alone; the research
wing's computation and its LaTeX build stand on it.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .probes import needs_allowance
    from .run import (
        DEFAULT_MEMORY_MB,
        DEFAULT_TIMEOUT_S,
        REPORTED_PACKAGES,
        check_limits,
        check_timeout,
        environment_without_secrets,
        interpreter,
        run_sandboxed,
        with_allowed_environment,
        without_secrets,
    )
    from .runresult import RunResult

__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT_S",
    "REPORTED_PACKAGES",
    "RunResult",
    "check_limits",
    "check_timeout",
    "environment_without_secrets",
    "interpreter",
    "needs_allowance",
    "run_sandboxed",
    "with_allowed_environment",
    "without_secrets",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)

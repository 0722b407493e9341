"""The citation gate: compares a citation with what the services hold and gives the verdict
(CONFIRMED, CORRECTED, UNCONFIRMED); checks a bibliography the bibliography wing read, for
/math:check-refs. Imports core, services and bibliography."""

__all__ = [
    "candidates",
    "citations",
    "lookups",
    "matching",
    "merged",
    "refcheck",
    "refreport",
    "venuematch",
    "verdicts",
    "verification",
]

"""The citation gate: compares a citation with what the services hold and gives the verdict
(CONFIRMED, CORRECTED, UNCONFIRMED); reads bibliographies for /math:check-refs. Imports core and
services."""

__all__ = [
    "amsrefs",
    "bibcopy",
    "bibentry",
    "biberbbl",
    "bibitems",
    "bibtexfile",
    "bibvalues",
    "candidates",
    "citations",
    "freetext",
    "latexbibliography",
    "lookups",
    "matching",
    "merged",
    "refcheck",
    "refreport",
    "venuematch",
    "verdicts",
    "verification",
]

"""LITERATURE.md: the document, its REF/UREF entries, their checks, the merge of a verification
into it, and its BibTeX export. Imports core to papers."""

__all__ = [
    "bibexport",
    "checks",
    "identity",
    "literature",
    "mergeentries",
    "mergefields",
    "merging",
    "quotes",
    "refentry",
]

"""The bibliographic sources: their ids, and how each is named where people read it.

One table per use: NAMES in sentences ("zbMATH Open unavailable: ..."), TAGS in the short
progress lines of a discovery run, QUERY_LINE_WORDS in a query line and in a results file's name
("s2 ...", "i1-s2-1.json"). SOURCES is also the order findings are reported in.
"""

from __future__ import annotations

from collections.abc import Iterable

SOURCES = ("arxiv", "semantic_scholar", "zbmath", "crossref")
DISCOVERY = ("arxiv", "semantic_scholar")  # the discovery sources; every search of theirs relaxes
# What a query plan searches: the discovery sources, and zbMATH Open restricted to the domain's
# MSC class (classics, books, journal-only work).
PLANNED = (*DISCOVERY, "zbmath")
NAMES = {
    "arxiv": "arXiv",
    "semantic_scholar": "Semantic Scholar",
    "zbmath": "zbMATH Open",
    "crossref": "Crossref",
}
TAGS = {"arxiv": "arXiv", "semantic_scholar": "S2", "zbmath": "zbMATH", "crossref": "Crossref"}
QUERY_LINE_WORDS = {
    "arxiv": "arxiv",
    "semantic_scholar": "s2",
    "zbmath": "zbmath",
    "crossref": "crossref",
}


def named(sources: Iterable[str], conjunction: str = "and") -> str:
    """Sources named in a sentence, in SOURCES order: "arXiv and Semantic Scholar", "arXiv,
    Semantic Scholar and zbMATH Open" (or "or")."""
    given = set(sources)
    names = [NAMES[s] for s in SOURCES if s in given]
    if len(names) < 3:
        return f" {conjunction} ".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"

"""The bibliographic sources, one row each (REGISTRY): every fact the library keeps about a source
is in its row, and every other table of sources is read from the rows.

A row names the source's code name (the `source` value in JSON, the run store and the schemas:
schemas/source.schema.json holds the same list, tests/test_sources.py keeps them equal), the name
people read ("zbMATH Open unavailable: ..."), the tag of the short progress lines of a discovery
run, its word in a query line and a results file's name ("s2 ...", "i1-s2-1.json") when a search
plan queries it, the service's base URL and the environment variables that move it and space its
requests, and what the gate may ask of it and believe of it. Its client is one file in services/;
a source the gate has no calls of its own for is reached through the client its row names
(record_client, gate/lookups.py's RECORD_CLIENTS). REGISTRY's order is the order findings
are reported in and records are merged in (merged.canonical: the first with a title wins).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Source:
    """One source: how it is named, reached and believed."""

    code: str  # the `source` value in JSON: "semantic_scholar"
    name: str  # in sentences: "Semantic Scholar"
    tag: str  # in a discovery run's progress lines: "S2"
    api_url: str  # the service's base URL, unless url_variable says otherwise
    url_variable: str  # MATH_<X>_API_URL
    interval_variable: str  # MATH_<X>_MIN_INTERVAL: seconds between its requests, across processes
    min_interval: float  # that interval when the variable is not set
    query_word: str | None = None  # a query line's first word when a search plan queries it
    discovery: bool = False  # discovery searches it, and every search of its relaxes
    planned: bool = False  # a query plan searches it
    runs: bool = False  # the run store keeps runs of it (its searches' results)
    document_types: bool = False  # its records say a work's type (a book is a book): venuematch
    # The identifier kinds (Candidate.identifiers(): "arxiv", "DOI", "ZBL", "S2") its look-up is
    # asked for, and those whose absence from it, when it answered, says the identifier does not
    # exist (with every other source ruling on that kind).
    looked_up: frozenset[str] = frozenset()
    rules_out: frozenset[str] = frozenset()
    last_resort: bool = False  # asked only for what the other sources did not identify
    # The gate searches it by title for a candidate no identifier identified (gate/titlesearches:
    # S2's, arXiv's and zbMATH Open's searches are their own; a RecordClient source's, one call
    # each, come after zbMATH Open's).
    title_search: bool = False
    # Its client's class on the services face, when the gate asks it as a RecordClient
    # (gate/lookups.py): a source with no calls of the gate's own is its row and its client.
    record_client: str | None = None

    @property
    def host(self) -> str:
        """The host its default URL names (plugin.json's network.hosts lists it)."""
        return urlsplit(self.api_url).hostname or ""


REGISTRY = (
    Source(
        code="arxiv",
        name="arXiv",
        tag="arXiv",
        api_url="https://export.arxiv.org/api/query",
        url_variable="MATH_ARXIV_API_URL",
        interval_variable="MATH_ARXIV_MIN_INTERVAL",
        min_interval=3.0,
        query_word="arxiv",
        discovery=True,
        planned=True,
        runs=True,
        looked_up=frozenset({"arxiv"}),
        rules_out=frozenset({"arxiv"}),
        title_search=True,
    ),
    Source(
        code="semantic_scholar",
        name="Semantic Scholar",
        tag="S2",
        api_url="https://api.semanticscholar.org/graph/v1",
        url_variable="MATH_S2_API_URL",
        interval_variable="MATH_S2_MIN_INTERVAL",
        min_interval=1.0,
        query_word="s2",
        discovery=True,
        planned=True,
        runs=True,
        looked_up=frozenset({"arxiv", "DOI", "S2"}),
        rules_out=frozenset({"DOI", "S2"}),
        title_search=True,
    ),
    Source(
        code="zbmath",
        name="zbMATH Open",
        tag="zbMATH",
        api_url="https://api.zbmath.org/v1",
        url_variable="MATH_ZBMATH_API_URL",
        interval_variable="MATH_ZBMATH_MIN_INTERVAL",
        # zbMATH Open publishes no rate limit; one request a second is what we ask of S2 too.
        min_interval=1.0,
        query_word="zbmath",
        planned=True,
        runs=True,
        document_types=True,
        looked_up=frozenset({"arxiv", "DOI", "ZBL"}),
        rules_out=frozenset({"ZBL"}),
        last_resort=True,
        title_search=True,
    ),
    Source(
        code="crossref",
        name="Crossref",
        tag="Crossref",
        api_url="https://api.crossref.org",
        url_variable="MATH_CROSSREF_API_URL",
        interval_variable="MATH_CROSSREF_MIN_INTERVAL",
        # Unless the variable is set: by Crossref's pool and request kind (crossref_intervals).
        min_interval=1.0,
        query_word="crossref",
        runs=True,
        document_types=True,
        looked_up=frozenset({"DOI"}),
        rules_out=frozenset({"DOI"}),
        title_search=True,
        record_client="CrossrefClient",
    ),
    Source(
        code="openalex",
        name="OpenAlex",
        tag="OpenAlex",
        api_url="https://api.openalex.org",
        url_variable="MATH_OPENALEX_API_URL",
        interval_variable="MATH_OPENALEX_MIN_INTERVAL",
        min_interval=0.1,  # OpenAlex allows 10 requests a second
        document_types=True,
        looked_up=frozenset({"DOI"}),
        rules_out=frozenset({"DOI"}),  # it holds DataCite's DOIs, which Crossref lacks
        last_resort=True,
        record_client="OpenalexClient",
    ),
)

BY_CODE = {source.code: source for source in REGISTRY}
SOURCES = tuple(BY_CODE)
# What a query plan searches: the discovery sources, and zbMATH Open restricted to the domain's
# MSC class (classics, books, journal-only work).
PLANNED = tuple(s.code for s in REGISTRY if s.planned)
RUNS = tuple(s.code for s in REGISTRY if s.runs)  # the run store's CHECK (search/store.py)
NAMES = {s.code: s.name for s in REGISTRY}
TAGS = {s.code: s.tag for s in REGISTRY}
QUERY_LINE_WORDS = {s.code: s.query_word for s in REGISTRY if s.query_word}


def named(sources: Iterable[str], conjunction: str = "and") -> str:
    """Sources named in a sentence, in REGISTRY order (or joined by "or"): the discovery ones
    "arXiv and Semantic Scholar", the planned ones "arXiv, Semantic Scholar and zbMATH Open"."""
    given = set(sources)
    names = [NAMES[s] for s in SOURCES if s in given]
    if len(names) < 3:
        return f" {conjunction} ".join(names)
    return f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


# A service error's message ends with the request's address (for a person reading a log).
REQUEST_ADDRESS = re.compile(r"(?::| \()\s*https?://\S+?\)?$")


def unavailable_line(source: str, message: str) -> str:
    """The line that names a failing source to the model: its name and why, without the
    request's address (the model never builds or reads one)."""
    return f"{NAMES.get(source, source)} unavailable: {REQUEST_ADDRESS.sub('', message.strip())}"


def ordered(sources: Iterable[str]) -> list[str]:
    """Source codes in REGISTRY order, then any other (an old file's, by hand) sorted."""
    given = set(sources)
    return [s for s in SOURCES if s in given] + sorted(given - set(SOURCES))

"""The gate's title searches (lookups.py's steps 3, 5 for titles, and 7): for the candidates no
identifier identified, the records a search by title (or by the whole free-text citation, or by
the original journal of a translation) found, as leads verification.py judges. They go through
lookups.Sources, whose `call` skips a source once it has failed."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..bibliography import cited_parts
from ..core import BY_CODE, SearchResult, cited_family, split_authors
from ..services import MAX_PER_PAGE, audit_url
from .candidates import Candidate
from .lookups import TITLE_SEARCH_CHUNK, ComparedRecord, Sources, compared, title_phrase
from .venuematch import counterpart_names

TITLE_SEARCH_RESULTS = 100  # entries asked per arXiv title-search call
SUGGESTION_MIN_SCORE = 0.5  # a title-search hit less similar than this is no suggestion
CITATION_ROWS = 5  # Crossref records asked per whole citation
CITATION_SOURCES = ("crossref", "semantic_scholar")  # the services a whole citation goes to


def title_leads(
    sources: Sources, candidates: list[Candidate], positions: list[int]
) -> dict[int, list[ComparedRecord]]:
    """The records a title search found for each candidate at `positions`: S2 title match
    for each, then arXiv `ti:` searches for those it did not identify, then zbMATH Open `ti:`
    searches and Crossref bibliographic searches for those still unidentified (the classic
    papers and books the first two lack)."""
    leads: dict[int, list[ComparedRecord]] = {p: [] for p in positions}
    _citation_searches(
        sources, candidates, [p for p in positions if not candidates[p].title], leads
    )
    unmatched = []
    for position in [p for p in positions if candidates[p].title]:
        candidate = candidates[position]
        result = sources.call("semantic_scholar", sources.s2.match, candidate.title)
        if result is not None:
            sources.title_searched.add("semantic_scholar")
            for paper in result.papers:
                leads[position].append(
                    ComparedRecord(
                        "semantic_scholar",
                        paper,
                        compared(candidate, paper),
                        [audit_url(url) for url in result.request_urls],
                    )
                )
        if not _identifying(leads[position]):
            unmatched.append(position)
    arxiv = partial(sources.arxiv.search, max_results=TITLE_SEARCH_RESULTS)
    _search_titles(sources, "arxiv", arxiv, " OR ", candidates, unmatched, leads)
    unmatched = [p for p in unmatched if not _identifying(leads[p])]
    zbmath = partial(sources.zbmath.search, limit=MAX_PER_PAGE)
    _search_titles(sources, "zbmath", zbmath, " | ", candidates, unmatched, leads)
    for source in [code for code in sources.records if BY_CODE[code].title_search]:
        unmatched = [p for p in unmatched if not _identifying(leads[p])]
        _record_titles(sources, source, candidates, unmatched, leads)
    unmatched = [p for p in unmatched if not _identifying(leads[p])]
    _original_journals(sources, candidates, unmatched, leads)
    return leads


def _citation_searches(
    sources: Sources,
    candidates: list[Candidate],
    positions: list[int],
    leads: dict[int, list[ComparedRecord]],
) -> None:
    """Each free-text citation to the services that read one: whole to Crossref's
    query.bibliographic (CITATION_ROWS records), then, unless a Crossref record identifies it,
    its title (the free-text reader's, else the citation whole) to Semantic Scholar's match,
    which matches titles and finds nothing for a whole citation. Records are compared with the
    citation whole either way."""
    searches: dict[str, Callable[[str], SearchResult]] = {
        "crossref": partial(sources.crossref.search, rows=CITATION_ROWS),
        "semantic_scholar": sources.s2.match,
    }
    for position in positions:
        citation = candidates[position].citation or ""
        asked = {"crossref": citation, "semantic_scholar": cited_parts(citation)[0] or citation}
        for source in CITATION_SOURCES:
            if _identifying(leads[position]):
                break
            result = sources.call(source, searches[source], asked[source])
            if result is not None:
                sources.title_searched.add(source)
                _add_leads(source, candidates, [position], result, leads)


def _original_journals(
    sources: Sources,
    candidates: list[Candidate],
    positions: list[int],
    leads: dict[int, list[ComparedRecord]],
) -> None:
    """A citation of a translation journal (or of its original) whose title found nothing:
    zbMATH Open's records in the other journal of the pair, by the first cited author, the
    cited year or one off, one search each; matching.compare judges them by the pair."""
    for position in positions:
        candidate = candidates[position]
        names = counterpart_names(str(candidate.given.get("venue") or ""))
        cited = split_authors(candidate.given.get("authors"))
        family = cited_family(cited[0]) if cited else None
        if not names or not family or not candidate.year:
            continue
        year = candidate.year
        query = f'so:"{names[0]}" & au:{family} & py:{year - 1}-{year + 1}'
        result = sources.call("zbmath", sources.zbmath.search, query, MAX_PER_PAGE)
        if result is not None:
            sources.title_searched.add("zbmath")
            _add_leads("zbmath", candidates, [position], result, leads)


def _search_titles(
    sources: Sources,
    source: str,
    search: Callable[[str], SearchResult],
    joiner: str,
    candidates: list[Candidate],
    positions: list[int],
    leads: dict[int, list[ComparedRecord]],
) -> None:
    """One search of `source` per TITLE_SEARCH_CHUNK titles: their `ti:"..."` phrases joined
    with `joiner` (the service's OR)."""
    for first in range(0, len(positions), TITLE_SEARCH_CHUNK):
        chunk = positions[first : first + TITLE_SEARCH_CHUNK]
        phrases = [title_phrase(candidates[p].title or "") for p in chunk]
        query = joiner.join(f'ti:"{phrase}"' for phrase in phrases if phrase)
        if not query:
            continue
        result = sources.call(source, search, query)
        if result is None:
            continue
        sources.title_searched.add(source)
        _add_leads(source, candidates, chunk, result, leads)


def _record_titles(
    sources: Sources,
    source: str,
    candidates: list[Candidate],
    positions: list[int],
    leads: dict[int, list[ComparedRecord]],
) -> None:
    """A RecordClient's title search (title, first author, year) per title (Crossref's
    query.bibliographic)."""
    for position in positions:
        candidate = candidates[position]
        names = split_authors(candidate.given.get("authors"))
        author = names[0] if names else None
        search = sources.records[source].search_title
        result = sources.call(source, search, candidate.title or "", author, candidate.year)
        if result is None:
            continue
        sources.title_searched.add(source)
        _add_leads(source, candidates, [position], result, leads)


def _identifying(leads: list[ComparedRecord]) -> bool:
    return any(f.match.identifies(by_identifier=False) for f in leads)


def _add_leads(
    source: str,
    candidates: list[Candidate],
    positions: list[int],
    result: SearchResult,
    leads: dict[int, list[ComparedRecord]],
) -> None:
    """Title-search hits similar enough to identify the paper or be a suggestion, as leads."""
    for position in positions:
        for paper in result.papers:
            match = compared(candidates[position], paper)
            if match.title_score and match.title_score >= SUGGESTION_MIN_SCORE:
                leads[position].append(
                    ComparedRecord(source, paper, match, list(result.request_urls))
                )

"""OpenAlex (https://api.openalex.org): a free, keyless index of 250M works, as `Paper`s; the gate
reaches it as a RecordClient (gate/lookups.py), for the DOIs no other source identified. It holds
Crossref's and DataCite's DOIs, arXiv and repositories.

Endpoints: GET /works?filter=doi:A|B (a list: {"meta": {"count": N, ...}, "results": [...]};
values OR-ed with `|`, at most 100) and GET /works?search=TEXT (title, abstract and full text,
by relevance), both with select= (the fields read here) and per_page. A work carries its DOI as
"https://doi.org/10...", its authors in `authorships`, its venue in `primary_location.source`,
volume and pages in `biblio`, its abstract as `abstract_inverted_index` (word -> positions).

Limits: no key; the polite pool is asked for with a mailto, which OpenAlex reads in the
User-Agent as well as in a parameter: config.user_agent carries the user's address
(MATH_CONTACT_EMAIL or .math/config.json contact_email), so it stays out of request URLs, hence
out of our output, LITERATURE.md's Verified lines and the cache keys. Requests are spaced by
MATH_OPENALEX_MIN_INTERVAL (core/sources.py's row). A work that stands for no paper (no title,
authorships that are not a list of objects) where an asked DOI is missing, or a search whose
every work is such, makes the answer malformed: a failing source (ServiceError), never "not
found".
"""

from __future__ import annotations

import re
from typing import Any

from ..core import (
    ARXIV_DOI_PREFIX,
    DOI,
    NAMES,
    BadInput,
    Paper,
    SearchResult,
    ServiceError,
    api_url,
    min_interval,
    normalise_arxiv_id,
    normalise_doi,
)
from .crossref import plain_text
from .http import Response, ServiceClient, build_url, json_holding

SOURCE = "openalex"
SOURCE_NAME = NAMES[SOURCE]
DOI_FILTER_CHUNK = 50  # DOIs per filter=doi:A|B request (OpenAlex takes at most 100)
TITLE_RESULTS = 5  # works asked per title search
SELECT = (
    "id,doi,title,display_name,publication_year,publication_date,authorships,type,"
    "primary_location,locations,biblio,abstract_inverted_index,cited_by_count,is_retracted"
)
ARXIV_PAGE = re.compile(r"arxiv\.org/abs/(.+?)/?$", re.IGNORECASE)
# OpenAlex's work types, as the other sources name them (core/records.Paper.document_type)
TYPES = {"book": "book", "book-chapter": "book-chapter", "preprint": "posted-content"}


# ----------------------------------------------------------------------------- parsing


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def abstract(index: object) -> str | None:
    """The abstract from OpenAlex's inverted index (word -> the positions it stands at)."""
    if not isinstance(index, dict):
        return None
    placed = {
        position: word
        for word, positions in index.items()
        if isinstance(positions, list)
        for position in positions
        if isinstance(position, int) and not isinstance(position, bool)
    }
    return " ".join(placed[p] for p in sorted(placed)) or None


def _arxiv_id(work: dict[str, Any], doi: str | None) -> str | None:
    """The arXiv id of a work: its arXiv DOI (10.48550/arXiv.<id>), else an arXiv location."""
    if doi and doi.startswith(ARXIV_DOI_PREFIX):
        return normalise_arxiv_id(doi[len(ARXIV_DOI_PREFIX) :])[0]
    locations = work.get("locations")
    for location in locations if isinstance(locations, list) else []:
        page = plain_text(location.get("landing_page_url")) if isinstance(location, dict) else None
        found = ARXIV_PAGE.search(page or "")
        if found:
            try:
                return normalise_arxiv_id(found.group(1))[0]
            except BadInput:
                continue
    return None


def to_paper(work: object) -> Paper | None:
    """One OpenAlex work as a Paper; None when it stands for no paper: not an object, no title,
    or authorships that are not a list of objects."""
    if not isinstance(work, dict):
        return None
    title = plain_text(work.get("title")) or plain_text(work.get("display_name"))
    authorships = work.get("authorships", [])
    if not title or not isinstance(authorships, list):
        return None
    if any(not isinstance(a, dict) or not isinstance(a.get("author"), dict) for a in authorships):
        return None
    raw_doi = work.get("doi")
    doi = normalise_doi(raw_doi) if isinstance(raw_doi, str) and DOI.fullmatch(raw_doi) else None
    host = _object(_object(work.get("primary_location")).get("source"))
    host_name, host_type = plain_text(host.get("display_name")), plain_text(host.get("type"))
    biblio = _object(work.get("biblio"))
    first, last = plain_text(biblio.get("first_page")), plain_text(biblio.get("last_page"))
    kind = plain_text(work.get("type"))
    year = work.get("publication_year")
    count = work.get("cited_by_count")
    names = [plain_text(a["author"].get("display_name")) for a in authorships]
    return Paper(
        source=SOURCE,
        title=title,
        # an author without a usable name leaves the list unknown, not shorter (the gate then
        # neither confirms nor corrects the cited authors with it)
        authors=[n for n in names if n] if all(names) else [],
        year=year if isinstance(year, int) and not isinstance(year, bool) else None,
        arxiv_id=_arxiv_id(work, doi),
        doi=doi,
        abstract=abstract(work.get("abstract_inverted_index")),
        url=plain_text(work.get("id")),
        published=plain_text(work.get("publication_date")),
        publication_date=plain_text(work.get("publication_date")),
        venue=host_name if host_type != "repository" else None,  # a repository: a preprint
        venue_aliases=[host_name] if host_name else [],
        volume=plain_text(biblio.get("volume")),
        pages="-".join(p for p in (first, last) if p) if first and last != first else first,
        document_type=("journal-article" if kind == "article" and host_type == "journal" else None)
        or TYPES.get(kind or "", kind),
        citation_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
    )


# ----------------------------------------------------------------------------- the client


class OpenalexClient:
    """The works API over the shared HTTP layer. `network_calls` counts real HTTP requests."""

    def __init__(self, use_cache: bool = True):
        self.base = api_url(SOURCE)
        interval = min_interval(SOURCE)
        self.http = ServiceClient(SOURCE, SOURCE_NAME, interval, use_cache=use_cache)

    @property
    def network_calls(self) -> int:
        return self.http.network_calls

    def look_up(self, kind: str, values: list[str]) -> tuple[dict[str, Paper], list[str]]:
        """The gate's identifier look-up (gate/lookups.RecordClient): DOIs, DOI_FILTER_CHUNK a
        filter=doi:A|B request: ({doi: Paper} for the works OpenAlex holds, the URLs)."""
        if kind != "DOI":
            raise BadInput(f"{SOURCE_NAME} looks up DOIs, not {kind}", code="bad_request")
        asked = list(dict.fromkeys(normalise_doi(v) for v in values if "|" not in v))
        found: dict[str, Paper] = {}
        urls = []
        for start in range(0, len(asked), DOI_FILTER_CHUNK):
            chunk = asked[start : start + DOI_FILTER_CHUNK]
            url = self._url({"filter": "doi:" + "|".join(chunk), "per_page": len(chunk)})
            urls.append(url)
            papers, unread = self._works(url)
            found.update((p.doi, p) for p in papers if p.doi in chunk)
            missing = [doi for doi in chunk if doi not in found]
            if unread and missing:  # a DOI not found may be one of the works we cannot read
                what = f"{unread} works that stand for no paper where DOI:{missing[0]} was asked"
                raise ServiceError.malformed(SOURCE_NAME, what, url)
        return found, urls

    def search_title(self, title: str, author: str | None, year: int | None) -> SearchResult:
        """The gate's title search (gate/lookups.RecordClient): search=TITLE, TITLE_RESULTS
        works (OpenAlex's search reads titles and abstracts; the first author and year are left
        to the comparison)."""
        return self.search(title, TITLE_RESULTS)

    def search(self, query: str, per_page: int = 10) -> SearchResult:
        """GET /works?search=QUERY: the works OpenAlex ranks first."""
        text = " ".join(query.split())
        if not text:
            raise BadInput("the query is empty", code="bad_query")
        url = self._url({"search": text, "per_page": per_page})
        papers, unread = self._works(url)
        if unread and not papers:  # a failing service, never "nothing found"
            raise ServiceError.malformed(SOURCE_NAME, f"{unread} works, none well-formed", url)
        return SearchResult(
            source=SOURCE,
            command="search",
            query=text,
            request_urls=[url],
            papers=papers,
            total_results=len(papers),
        )

    def _url(self, params: dict[str, str | int]) -> str:
        return build_url(f"{self.base}/works", {**params, "select": SELECT}, safe=":,|")

    def _works(self, url: str) -> tuple[list[Paper], int]:
        """A list answer's works as Papers, and how many stand for no paper (OpenAlex holds
        works without a title: the caller decides whether they leave an answer unread)."""
        response = self.http.get(url, check=_json_answer)
        if response.status != 200:
            raise ServiceError(
                f"{SOURCE_NAME} answered HTTP {response.status}: "
                f"{response.text.strip()[:200] or '(empty body)'} ({url})",
                code="service_error",
            )
        papers = [to_paper(work) for work in response.json()["results"]]  # a list: _json_answer
        return [paper for paper in papers if paper is not None], papers.count(None)


def _json_answer(response: Response) -> None:
    json_holding(response, "results", list, "OpenAlex's results list")

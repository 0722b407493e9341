"""The arXiv API: identifiers, query building and a paging, polite client (arxivrecords.py
reads its Atom answers).

Facts this module relies on (the arXiv API user manual, and recordings of what arXiv really sent):

- `search_query` combines `field:term` with AND/OR/ANDNOT; a phrase is quoted (`%22`), groups
  use parentheses (`%28`, `%29`), a space is `+`; `submittedDate:[YYYYMMDDHHMM TO YYYYMMDDHHMM]`
  (GMT) filters by submission date.
- One call returns at most 2,000 entries and a query at most 30,000; `start` is 0-based.
- `id_list` returns the latest version of a bare id and the asked version of `<id>v<n>`. Ids that
  do not exist are dropped silently (HTTP 200, fewer entries); a malformed id makes the whole call
  an HTTP 400 whose single entry is titled "Error" and names the id. Without `max_results` an
  `id_list` call returns at most 10 entries, so we always send it. 642 ids in one URL got HTTP 414.
- Deep pages are sometimes empty although more results exist; such a page is asked again.

Old-style ids with a subject class (`math.AG/0601001`) are mapped to the archive form arXiv
itself uses in its answers (`math/0601001`): the number is unique within the archive, and only the
archive form matches the `<id>` arXiv returns.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import NoReturn

from ..core import (
    BadInput,
    Paper,
    SearchResult,
    ServiceError,
    acronym_number,
    american_spelling,
    api_url,
    arxiv_id_text,
    min_interval,
    normalise_arxiv_id,
)
from .arxivrecords import DATE, MalformedFeed, parse_feed
from .http import DO_NOT_CACHE, RequestRejected, Response, ServiceClient, UnusableBody, build_url

MAX_PAGE = 2000  # entries one call may return
MAX_RESULTS = 30000  # entries one query may return in all
# Ids per id_list call: at most ~20 characters each, so a URL stays near 2 kB, far below the
# ~8 kB at which arXiv answered 642 ids with HTTP 414.
ID_CHUNK = 100
# An empty page where results should be is asked again this many times (apart from the HTTP
# retries, so that MATH_HTTP_RETRIES=0 still believes a genuinely empty page).
EMPTY_PAGE_RETRIES = 2
SORT_BY = ("relevance", "lastUpdatedDate", "submittedDate")
SORT_ORDER = ("ascending", "descending")
FIELD_PREFIX = {"title": "ti", "abstract": "abs", "author": "au", "all_terms": "all"}
# Left unencoded in our URLs, as the manual writes them: `au:del_maestro`, `id_list=a,b`,
# `cond-mat/0207270`, `submittedDate:[... TO ...]`. Quotes, parentheses and spaces are encoded.
URL_SAFE = ":,/[]"
_CATEGORY_NAME = re.compile(r"[a-z]+(?:-[a-z]+)?(?:\.[A-Za-z-]{2,})?")


# --- queries -------------------------------------------------------------------------------------


def build_query(
    *,
    raw: str | None = None,
    title: Iterable[str] = (),
    abstract: Iterable[str] = (),
    author: Iterable[str] = (),
    all_terms: Iterable[str] = (),
    categories: Iterable[str] = (),
    submitted: str | tuple[str, str] | None = None,
) -> str:
    """A `search_query`: every part AND-ed, categories OR-ed in parentheses.

    A term with a space becomes a quoted phrase (`ti:"quantum criticality"`); `raw` arXiv syntax
    is passed through (in parentheses when other parts join it). `submitted` is `FROM..TO` (or a
    pair) of `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or `YYYYMMDDHHMM`, inclusive, either side may be
    empty; it becomes `submittedDate:[FROM TO TO]`. The result is plain text: the URL encoding
    happens when the request is built.

    >>> build_query(title=["quantum criticality"], author=["del_maestro"])
    'ti:"quantum criticality" AND au:del_maestro'
    """
    parts = []
    fields = {"title": title, "abstract": abstract, "author": author, "all_terms": all_terms}
    for name, terms in fields.items():
        if name == "author":
            parts += [f"{FIELD_PREFIX[name]}:{_term(term, name)}" for term in terms]
        else:
            parts += [field_term(FIELD_PREFIX[name], term, name) for term in terms]
    cats = list(dict.fromkeys(categories))
    for cat in cats:
        if not _CATEGORY_NAME.fullmatch(cat):
            raise BadInput(f"not an arXiv category: {cat!r}", code="bad_category")
    if len(cats) == 1:
        parts.append(f"cat:{cats[0]}")
    elif cats:
        parts.append("(" + " OR ".join(f"cat:{cat}" for cat in cats) + ")")
    if submitted:
        parts.append(_submitted(submitted))
    raw = (raw or "").strip()
    if raw:
        parts.insert(0, f"({raw})" if parts else raw)
    if not parts:
        raise BadInput("nothing to search for: give a query, a term or a category", code="no_query")
    return " AND ".join(parts)


def field_term(prefix: str, term: str, field: str = "all_terms") -> str:
    """`prefix:term`, or, when the term holds a British spelling or an acronym, its other form
    OR-ed: `(all:colouring OR all:coloring)`, `(all:ODEs OR all:ODE)`. arXiv's search folds no
    spelling, and most of its papers spell the American way ("Colourings of ordinals" finds
    "Coloring ordinals by reals"); its manual documents no stemming, so an acronym's other
    number (core.acronym_number) is asked too, which costs nothing where the engine stems."""
    text = _term(term, field)
    words = term.replace('"', " ").split()
    other = " ".join(acronym_number(word) or american_spelling(word.lower()) for word in words)
    if other.lower() == " ".join(words).lower():
        return f"{prefix}:{text}"
    return f"({prefix}:{text} OR {prefix}:{_term(other, field)})"


def _term(term: str, field: str) -> str:
    # arXiv has no escape for a quote inside a phrase; drop quotes and re-quote the phrase.
    words = term.replace('"', " ").split()
    if not words:
        raise BadInput(f"empty {field.replace('_terms', '')} term", code="bad_query")
    return words[0] if len(words) == 1 else '"' + " ".join(words) + '"'


def _submitted(spec: str | tuple[str, str]) -> str:
    if isinstance(spec, str):
        if ".." not in spec:
            raise BadInput(f"--submitted wants FROM..TO, got {spec!r}", code="bad_date")
        start, end = spec.split("..", 1)
    else:
        start, end = spec
    low = _date_bound(start, end=False) if start.strip() else "199101010000"
    high = _date_bound(end, end=True) if end.strip() else "299912312359"
    if low > high:
        raise BadInput(f"submitted range is empty: {low} > {high}", code="bad_date")
    return f"submittedDate:[{low} TO {high}]"


def _date_bound(text: str, end: bool) -> str:
    """YYYYMMDDHHMM for the first (or, with `end`, the last) minute the date text covers."""
    import calendar
    import datetime

    match = DATE.fullmatch(text.strip())
    if not match:
        raise BadInput(f"not a date: {text!r} (use YYYY, YYYY-MM, YYYY-MM-DD)", code="bad_date")
    year, month, day, hour, minute = match.groups()
    if month is None:
        month = "12" if end else "01"
    if not 1 <= int(month) <= 12:
        raise BadInput(f"not a date: {text!r} (no month {month})", code="bad_date")
    if day is None:
        day = f"{calendar.monthrange(int(year), int(month))[1]:02d}" if end else "01"
    if hour is None:
        hour, minute = ("23", "59") if end else ("00", "00")
    try:
        datetime.datetime(int(year), int(month), int(day), int(hour), int(minute))
    except ValueError as exc:  # 2024-02-31, hour 25, ...
        raise BadInput(f"not a date: {text!r} ({exc})", code="bad_date") from None
    return f"{year}{month}{day}{hour}{minute}"


# --- the client ----------------------------------------------------------------------------------


class ArxivClient:
    """Search and look-ups against the arXiv API through the shared, rate-limited HTTP layer.

    `network_calls` counts the real HTTP requests made (cache hits are free).
    """

    page_size = MAX_PAGE  # entries asked per call when paging a search

    def __init__(self, use_cache: bool = True):
        self.base_url = api_url("arxiv")
        self.http = ServiceClient("arxiv", "arXiv", min_interval("arxiv"), use_cache=use_cache)

    @property
    def network_calls(self) -> int:
        return self.http.network_calls

    def search(
        self,
        query: str,
        start: int = 0,
        max_results: int = 10,
        sort: str = "relevance",
        order: str = "descending",
    ) -> SearchResult:
        """Up to `max_results` papers matching `query` from `start`, paging `page_size` a call.

        A page that comes back empty although the first page's total says more results exist is
        asked again (EMPTY_PAGE_RETRIES times) before it is believed to end the results.
        """
        if sort not in SORT_BY:
            raise BadInput(f"sort must be one of {', '.join(SORT_BY)}", code="bad_sort")
        if order not in SORT_ORDER:
            raise BadInput(f"order must be one of {', '.join(SORT_ORDER)}", code="bad_sort")
        if start < 0 or max_results < 1 or start + max_results > MAX_RESULTS:
            raise BadInput(
                f"need start >= 0, max_results >= 1 and start + max_results <= {MAX_RESULTS:,}"
                f" (arXiv's cap on one query); got start {start}, max_results {max_results}",
                code="bad_range",
            )
        result = SearchResult(source="arxiv", command="search", query=query)
        seen: set[str | None] = set()
        offset, wanted = start, max_results
        while wanted > 0:
            size = min(self.page_size, wanted)
            params = {"search_query": query, "start": offset, "max_results": size}
            params.update(sortBy=sort, sortOrder=order)
            known = result.total_results

            def results_expected(
                total: int | None, offset: int = offset, known: int | None = known
            ) -> bool:
                total = known if known is not None else total
                return total is None or offset < total

            total, papers = self._feed(params, result, results_expected)
            if result.total_results is None:
                result.total_results = total
            for paper in papers:
                # Pages can overlap when the index changes while we page; keep the first copy.
                if paper.arxiv_id not in seen:
                    seen.add(paper.arxiv_id)
                    result.papers.append(paper)
            if not papers:
                break
            offset += len(papers)
            wanted -= len(papers)
            if total is not None and offset >= total:
                break
        return result

    def fetch_ids(self, ids: Sequence[str]) -> SearchResult:
        """The papers with these ids, ID_CHUNK ids a call; asked ids arXiv dropped are `not_found`.

        Ids are normalised first (BadInput names the first bad one) and de-duplicated; a bare id
        matches any version, `<id>v<n>` only that version. `not_found` lists normalised ids.
        """
        asked = list(dict.fromkeys(normalise_arxiv_id(text) for text in ids))
        if not asked:
            raise BadInput("no arXiv ids given", code="no_ids")
        result = SearchResult(source="arxiv", command="get", total_results=0)
        for first in range(0, len(asked), ID_CHUNK):
            pairs = asked[first : first + ID_CHUNK]
            chunk = [arxiv_id_text(*pair) for pair in pairs]
            params = {"id_list": ",".join(chunk), "max_results": len(chunk)}
            total, papers = self._feed(params, result)
            # started at 0: only the type checker cannot know it is never None here
            result.total_results = (result.total_results or 0) + (total or 0)
            # id_list answers only the ids asked: an entry for another id is a misbehaving arXiv,
            # whose answer confirms nothing (not even by a title search) in this run.
            if stray := [p.arxiv_id for p in papers if p.arxiv_id not in {i for i, _ in pairs}]:
                raise ServiceError(
                    f"arXiv answered id_list={params['id_list']} with an entry for another id "
                    f"({stray[0]}): {result.request_urls[-1]}",
                    code="malformed_answer",
                )
            result.papers += papers
        returned = {(p.arxiv_id, p.arxiv_version) for p in result.papers}
        returned_bare = {arxiv_id for arxiv_id, _ in returned}
        result.not_found = [
            arxiv_id_text(arxiv_id, version)
            for arxiv_id, version in asked
            if not (
                arxiv_id in returned_bare if version is None else (arxiv_id, version) in returned
            )
        ]
        return result

    def _feed(
        self,
        params: Mapping[str, object],
        result: SearchResult,
        results_expected: Callable[[int | None], bool] | None = None,
    ) -> tuple[int | None, list[Paper]]:
        """GET one page, parsed. Unusable answers are retried by the HTTP layer; an empty page where
        results were expected is never cached and is asked again EMPTY_PAGE_RETRIES times (a budget
        of its own, apart from the HTTP retries) before it is believed."""
        url = build_url(self.base_url, params, safe=URL_SAFE)
        result.request_urls.append(url)
        parsed: list[tuple[int | None, list[Paper]]] = []

        def suspect(feed: tuple[int | None, list[Paper]]) -> bool:
            total, papers = feed
            return not papers and results_expected is not None and results_expected(total)

        def check(response: Response) -> object:
            try:
                parsed.append(parse_feed(response.content))
            except MalformedFeed as exc:
                raise UnusableBody(f"unusable answer ({exc})") from None
            return DO_NOT_CACHE if suspect(parsed[-1]) else None

        for retry in range(EMPTY_PAGE_RETRIES + 1):
            if retry:
                self.http.back_off(
                    retry, "an empty page where results were expected", budget=EMPTY_PAGE_RETRIES
                )
            parsed.clear()
            response = self.http.get(url, check=check)
            if response.status != 200:
                _refuse(response, url)
            feed = parsed[-1] if parsed else parse_feed(response.content)
            if not suspect(feed):
                break
        return feed


def _refuse(response: Response, url: str) -> NoReturn:
    """The error for an arXiv answer other than 200: RequestRejected for a 400 (bad input at the
    command line, a failing source for the gate), else ServiceError."""
    if response.status == 400:
        with contextlib.suppress(MalformedFeed):
            parse_feed(response.content)  # raises RequestRejected when arXiv sent its Error entry
        raise RequestRejected(f"arXiv rejected the request (HTTP 400): {url}", "arxiv_rejected")
    raise ServiceError(f"arXiv answered HTTP {response.status}: {url}", code="service_unavailable")

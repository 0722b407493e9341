"""The Semantic Scholar Graph API: relevance search, bulk search, title match, look-ups, batch
look-ups and the citation graph, mapped to `Paper` records (s2records.py reads them; s2limits.py
refuses, before anything is sent, a request the API would reject).

Every call goes through the shared HTTP layer (services/http.py): the cross-process rate limit
(MATH_S2_MIN_INTERVAL, 1 s), bounded retries with backoff on 429 (this API's 429s carry no
Retry-After) and on 5xx and timeouts, and the persistent cache. The base URL is MATH_S2_API_URL.

The API key (SEMANTIC_SCHOLAR_API_KEY, or `semantic_scholar_api_key` in .math/config.json) is sent
as the `x-api-key` header and nowhere else: not in URLs, so neither in output nor in the cache.
Without a key everything works on the shared unauthenticated pool. A key the API rejects (403) is
reported on stderr and the call is retried once without it.

    >>> client = S2Client()
    >>> result = client.search("Kakeya conjecture finite fields", limit=5)
    >>> [paper.key for paper in result.papers]
    >>> client.batch(["arXiv:2104.12255", "10.1093/mind/lix.236.433"]).papers  # None if unknown
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from ..core import (
    BadInput,
    Paper,
    SearchResult,
    ServiceError,
    api_url,
    atomic_write,
    cache_dir,
    keep_secret,
    min_interval,
    s2_api_key,
)
from .http import RequestRejected, Response, ServiceClient, UnusableBody, build_url, say
from .s2limits import check_bulk_max, check_graph_window, check_search_filters, check_search_window
from .s2records import SOURCE, SOURCE_NAME, malformed, s2_id, to_paper, typed

DEFAULT_FIELDS = (
    "paperId,corpusId,externalIds,title,abstract,authors,year,venue,journal,publicationVenue,"
    "publicationDate,publicationTypes,citationCount,fieldsOfStudy,openAccessPdf,url"
)
BATCH_MAX_IDS = 500  # /paper/batch: at most 500 ids a call

_told_no_key = False
NO_KEY_MARKER = "s2-no-key-noted"  # in the cache folder: the day the note was last shown


@dataclass
class BatchResult:
    """What POST /paper/batch returned: `papers[i]` answers `ids[i]`, None where the API had no
    paper (it answers null)."""

    ids: list[str]
    papers: list[Paper | None]
    request_urls: list[str] = field(default_factory=list)

    @property
    def not_found(self) -> list[str]:
        return [asked for asked, paper in zip(self.ids, self.papers, strict=True) if paper is None]

    def to_search_result(self) -> SearchResult:
        return SearchResult(
            source=SOURCE,
            command="batch",
            request_urls=list(self.request_urls),
            papers=[paper for paper in self.papers if paper is not None],
            not_found=self.not_found,
        )


class S2Client:
    """The Graph API over the shared HTTP layer. `network_calls` counts real HTTP requests."""

    def __init__(self, use_cache: bool = True):
        key = s2_api_key()
        if key:
            keep_secret(key)  # whatever a service echoes back, errors never show it
        self.base = api_url("semantic_scholar")
        self._http = ServiceClient(
            "semantic_scholar",
            SOURCE_NAME,
            min_interval("semantic_scholar"),
            headers={"x-api-key": key} if key else None,
            use_cache=use_cache,
        )
        if not key:
            _note_no_key()

    @property
    def has_key(self) -> bool:
        return "x-api-key" in self._http.headers

    @property
    def network_calls(self) -> int:
        return self._http.network_calls

    # -- searches -------------------------------------------------------------------------

    def search(
        self,
        query: str,
        limit: int = 10,
        offset: int = 0,
        fields: str | Sequence[str] | None = None,
        fields_of_study: str | None = "Mathematics",
        year: str | None = None,
        venue: str | None = None,
        publication_types: str | None = None,
        min_citations: int | None = None,
        open_access: bool = False,
        publication_date: str | None = None,
    ) -> SearchResult:
        """One page of GET /paper/search (relevance order). The API refuses limit > 100 and
        offset + limit > 1000; so do we, before sending anything, and a year range that runs
        backwards or a negative citation count."""
        check_search_window(limit, offset)
        check_search_filters(year, min_citations)
        url = build_url(
            f"{self.base}/paper/search",
            {
                "query": _query(query),
                "fieldsOfStudy": fields_of_study or None,
                "year": year,
                "venue": venue,
                "publicationTypes": publication_types,
                "minCitationCount": min_citations,
                "openAccessPdf": "" if open_access else None,
                "publicationDateOrYear": publication_date,
                "fields": _fields(fields),
                "offset": offset,
                "limit": limit,
            },
            safe=",",
        )
        page = self._get_json(url)
        return SearchResult(
            source=SOURCE,
            command="search",
            query=query,
            request_urls=[url],
            papers=_papers(_list(page, "data")),
            total_results=typed(page, "total", int),
        )

    def bulk(
        self,
        query: str,
        sort: str | None = None,
        max_results: int = 1000,
        fields: str | Sequence[str] | None = None,
    ) -> SearchResult:
        """GET /paper/search/bulk (1000 a page), following the continuation token until it is
        null or `max_results` papers are in hand."""
        check_bulk_max(max_results)
        params = {"query": _query(query), "sort": sort, "fields": _fields(fields)}
        urls: list[str] = []
        papers: list[Paper] = []
        total = None
        token = None
        while True:
            url = build_url(f"{self.base}/paper/search/bulk", {**params, "token": token}, ",")
            urls.append(url)
            page = self._get_json(url)
            total = typed(page, "total", int) if total is None else total
            data = _list(page, "data")
            papers += _papers(data)
            token = typed(page, "token", str)
            if not token or not data or len(papers) >= max_results:
                break
        return SearchResult(
            source=SOURCE,
            command="bulk",
            query=query,
            request_urls=urls,
            papers=papers[:max_results],
            total_results=total,
        )

    def match(self, title: str, fields: str | Sequence[str] | None = None) -> SearchResult:
        """GET /paper/search/match: the paper whose title matches best. The API's 404 "Title
        match not found" is an answer, not an error: no papers, the title in `not_found`."""
        url = build_url(
            f"{self.base}/paper/search/match",
            {"query": _query(title), "fields": _fields(fields)},
            safe=",",
        )
        page = self._get_json(url, not_found_ok=True)
        papers = _papers(_list(page, "data")) if page is not None else []
        return SearchResult(
            source=SOURCE,
            command="match",
            query=title,
            request_urls=[url],
            papers=papers,
            total_results=len(papers),
            not_found=[] if papers else [title],
        )

    # -- look-ups -------------------------------------------------------------------------

    def get(
        self, ids: str | Iterable[str], fields: str | Sequence[str] | None = None
    ) -> SearchResult:
        """GET /paper/{id} for each id, one by one; ids the API does not know go to not_found
        as they were asked."""
        asked = _asked(ids)
        result = SearchResult(source=SOURCE, command="get")
        for original, paper_id in asked:
            url = build_url(
                f"{self.base}/paper/{_path_id(paper_id)}", {"fields": _fields(fields)}, ","
            )
            result.request_urls.append(url)
            record = self._get_json(url, not_found_ok=True)
            if record is None:
                result.not_found.append(original)
            else:
                result.papers.append(to_paper(record))
        return result

    def paper_url(self, paper_id: str) -> str:
        """The GET URL that looks up one paper (`DOI:...`, `ARXIV:...`, a paperId) with the
        API's default fields: what a Verified line keeps of a batch look-up, which is a POST."""
        return f"{self.base}/paper/{_path_id(paper_id)}"

    def batch(
        self, ids: str | Iterable[str], fields: str | Sequence[str] | None = None
    ) -> BatchResult:
        """POST /paper/batch in chunks of at most 500 ids; the answer stays aligned with `ids`."""
        asked = _asked(ids)
        url = build_url(f"{self.base}/paper/batch", {"fields": _fields(fields)}, safe=",")
        result = BatchResult(ids=[original for original, _ in asked], papers=[])
        for start in range(0, len(asked), BATCH_MAX_IDS):
            chunk = [paper_id for _, paper_id in asked[start : start + BATCH_MAX_IDS]]
            result.request_urls.append(url)
            records = self._call("POST", url, {"ids": chunk}, _json_list_of(len(chunk)))
            result.papers += [None if r is None else to_paper(r) for r in records]
        return result

    def references(
        self,
        paper_id: str,
        limit: int = 100,
        fields: str | Sequence[str] | None = None,
        page_size: int = 100,
    ) -> SearchResult:
        """The papers `paper_id` cites (GET /paper/{id}/references), paged, up to `limit`."""
        return self._graph("references", "citedPaper", paper_id, limit, fields, page_size)

    def citations(
        self,
        paper_id: str,
        limit: int = 100,
        fields: str | Sequence[str] | None = None,
        page_size: int = 100,
    ) -> SearchResult:
        """The papers citing `paper_id` (GET /paper/{id}/citations), paged, up to `limit`."""
        return self._graph("citations", "citingPaper", paper_id, limit, fields, page_size)

    def _graph(
        self,
        edge: str,
        side: str,
        paper_id: str,
        limit: int,
        fields: str | Sequence[str] | None,
        page_size: int,
    ) -> SearchResult:
        check_graph_window(limit, page_size)
        result = SearchResult(source=SOURCE, command=edge, query=paper_id)
        base = f"{self.base}/paper/{_path_id(s2_id(paper_id))}/{edge}"
        offset: int | None = 0
        while offset is not None and len(result.papers) < limit:
            size = min(page_size, limit - len(result.papers))
            url = build_url(base, {"fields": _fields(fields), "offset": offset, "limit": size}, ",")
            result.request_urls.append(url)
            page = self._get_json(url, not_found_ok=True)
            if page is None:
                result.not_found.append(paper_id)
                break
            listed = _list(page, "data")
            items = [item for item in listed if isinstance(item, dict)]
            if len(items) < len(listed):
                raise malformed(f"{edge} that are not objects")
            # A cited work S2 could not resolve may come with neither id nor title: nothing to use.
            records = [item.get(side) or {} for item in items]
            result.papers += [
                to_paper(r, unresolved=True) for r in records if r.get("paperId") or r.get("title")
            ]
            offset = typed(page, "next", int) if records else None  # an empty page ends it
        return result

    # -- HTTP -----------------------------------------------------------------------------

    def _get_json(self, url: str, not_found_ok: bool = False) -> Any:
        return self._call("GET", url, None, _json_object, not_found_ok)

    def _call(
        self,
        method: str,
        url: str,
        json_body: object,
        check: Callable[[Response], None],
        not_found_ok: bool = False,
    ) -> Any:
        """Send one request; interpret what is not a 200. Returns the parsed JSON, or None for a
        404 when `not_found_ok`."""
        while True:
            if method == "POST":
                response = self._http.post(url, json_body, check=check)
            else:
                response = self._http.get(
                    url, check=check, cache_not_found=not_found_ok and _says_not_found
                )
            if response.status == 403 and self.has_key:
                say(
                    f"{SOURCE_NAME} rejected the API key (HTTP 403: {_api_message(response)}); "
                    "check SEMANTIC_SCHOLAR_API_KEY or .math/config.json. "
                    "Retrying without the key."
                )
                del self._http.headers["x-api-key"]
                continue
            break
        if response.status == 200:
            return response.json()
        message = _api_message(response)
        if response.status == 404 and not_found_ok and _says_not_found(response):
            return None
        if response.status == 404 and not _says_not_found(response):
            # a wrong MATH_S2_API_URL or a proxy's page, not Semantic Scholar: a failing service
            raise ServiceError(
                f"{SOURCE_NAME} answered HTTP 404 with a page of its own: {message} ({url})",
                code="service_error",
            )
        if response.status in (400, 404):
            raise RequestRejected(
                f"{SOURCE_NAME} rejected the request: {message} ({url})", "bad_request"
            )
        raise ServiceError(
            f"{SOURCE_NAME} answered HTTP {response.status}: {message} ({url})",
            code="service_error",
        )


def _says_not_found(response: Response) -> bool:
    """Semantic Scholar's own 404: JSON with an `error` ("Title match not found", "Paper with id
    X not found"); any other 404 is not the service answering."""
    try:
        data = response.json()
    except ValueError:
        return False
    return isinstance(data, dict) and isinstance(data.get("error"), str)


def _note_no_key() -> None:
    """Say there is no key once per cache folder per day: the model reads stderr, and the same
    line after every call of a search would cost it tokens and tell it nothing new."""
    global _told_no_key
    if _told_no_key:
        return
    _told_no_key = True
    marker = cache_dir() / NO_KEY_MARKER
    today = datetime.date.today().isoformat()
    with contextlib.suppress(OSError):
        if marker.read_text(encoding="utf-8").strip() == today:
            return
    say(
        f"no {SOURCE_NAME} API key (SEMANTIC_SCHOLAR_API_KEY or .math/config.json "
        "semantic_scholar_api_key); using the shared unauthenticated rate limit"
    )
    with contextlib.suppress(OSError):  # unwritable: the note is just said again next time
        atomic_write(marker, today + "\n")


def _query(text: str) -> str:
    query = " ".join(text.split())
    if not query:
        raise BadInput("the query is empty", code="bad_query")
    return query


def _fields(fields: str | Sequence[str] | None) -> str:
    if fields is None:
        return DEFAULT_FIELDS
    names = fields.split(",") if isinstance(fields, str) else list(fields)
    names = [name.strip() for name in names if name.strip()]
    if not names:
        raise BadInput("--fields is empty", code="bad_fields")
    return ",".join(names)


def _asked(ids: str | Iterable[str]) -> list[tuple[str, str]]:
    """(as asked, as the API wants it) for each id; none at all is BadInput."""
    if isinstance(ids, str):  # one id, not its characters
        ids = [ids]
    asked = [(text.strip(), s2_id(text)) for text in ids if text.strip()]
    if not asked:
        raise BadInput("no paper ids given", code="bad_id")
    return asked


def audit_url(url: str) -> str:
    """A request URL as a Verified line keeps it: the same request without its `fields` list
    (the API then answers with its default fields, the paper's id and title: enough to see
    which paper it is, in a line of readable length)."""
    parts = urlsplit(url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "fields"]
    return urlunsplit(parts._replace(query=urlencode(kept, quote_via=quote_plus)))


def _path_id(paper_id: str) -> str:
    # Keep the DOI's and URL's slashes and the prefix colon readable; escape the rest ('?', '#').
    return quote(paper_id, safe="/:")


def _papers(records: Iterable[object]) -> list[Paper]:
    return [to_paper(record) for record in records]


def _list(page: Mapping[str, object], name: str) -> list[object]:
    return typed(page, name, list) or []


def _json_object(response: Response) -> None:
    try:
        data = response.json()
    except ValueError:
        raise UnusableBody("an answer that is not JSON") from None
    if not isinstance(data, dict):
        raise UnusableBody("an answer that is not a JSON object")


def _json_list_of(length: int) -> Callable[[Response], None]:
    def check(response: Response) -> None:
        try:
            data = response.json()
        except ValueError:
            raise UnusableBody("a batch answer that is not JSON") from None
        if not isinstance(data, list) or len(data) != length:
            raise UnusableBody(f"a batch answer that is not a list of {length} entries")

    return check


def _api_message(response: Response) -> str:
    """The API's own explanation: application errors carry "error", gateway errors "message"."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:200] or "(empty body)"
    if isinstance(data, dict):
        return str(data.get("error") or data.get("message") or data)[:300]
    return str(data)[:300]

"""Crossref's REST API (https://api.crossref.org): the registry behind every DOI, as `Paper`s.

Endpoints: GET /works/{doi} (a single record: {"status": "ok", "message": {...}}; an unknown DOI
is HTTP 404 with the plain-text body "Resource not found.", not JSON), GET /works?filter=doi:A,
doi:B (a list request: the same filter given several times is OR-ed, so one call checks many
DOIs) and GET /works?query.bibliographic=... (a list request; a real-word query matches millions
of works and the top item can be another paper, so callers always compare titles). Errors are
{"status": "failed", "message-type": "validation-failure", "message": [{"message": ...}]}.

Limits (config.crossref_intervals): single-record and list requests share one limiter (one
request at a time across processes) with an interval per kind, for the public pool or, when the
user gave an address (MATH_CONTACT_EMAIL or .math/config.json contact_email), the polite pool.
The address goes in the User-Agent (config.user_agent), which Crossref reads as well as a `mailto`
parameter: that way it stays out of request URLs, so out of our output, the cache keys and logs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import TypedDict
from urllib.parse import quote

from ..core import (
    DOI,
    NAMES,
    BadInput,
    Paper,
    SearchResult,
    ServiceError,
    api_url,
    contact_email,
    crossref_intervals,
    normalise_doi,
)
from .http import Response, ServiceClient, build_url, json_holding

CROSSREF_SOURCE = "crossref"
SOURCE_NAME = NAMES["crossref"]  # the source as a person reads it, in messages
MAX_ROWS = 1000  # /works: rows <= 1000
DOI_FILTER_CHUNK = 50  # DOIs per filter=doi:... list request: keeps the URL short
TAG = re.compile(r"<[^>]+>")


# ----------------------------------------------------------------------------- parsing


def plain_text(value: object) -> str | None:
    """Text without the JATS/HTML markup Crossref titles and abstracts carry (<i>, <jats:p>)."""
    if not isinstance(value, str):
        return None
    text = " ".join(html.unescape(TAG.sub(" ", value)).split())
    return re.sub(r"\s+([,.:;)])", r"\1", text) or None


def _first(value: object) -> str | None:
    items = value if isinstance(value, list) else [value]
    return next((text for item in items if (text := plain_text(item))), None)


class Envelope(TypedDict):
    """A Crossref answer as _json_answer lets it through: an object with a message object."""

    message: dict[str, object]


def _year(item: Mapping[str, object]) -> int | None:
    for name in ("issued", "published", "published-print", "published-online", "created"):
        issued = item.get(name)
        parts = issued.get("date-parts") if isinstance(issued, dict) else None
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = parts[0][0]
            if isinstance(year, int) and not isinstance(year, bool):
                return year
    return None


def _name(person: object) -> str | None:
    if not isinstance(person, dict):
        return None
    given, family = plain_text(person.get("given")), plain_text(person.get("family"))
    if family:
        return f"{given} {family}" if given else family
    return plain_text(person.get("name"))


def to_paper(item: object) -> Paper | None:
    """One Crossref work as a Paper; None when it has no DOI or no title, or its authors or
    editors are not a list of objects (a malformed record never stands for a paper)."""
    if not isinstance(item, dict):
        return None
    doi, title = item.get("DOI"), _first(item.get("title"))
    if not isinstance(doi, str) or not DOI.fullmatch(doi) or not title:
        return None
    subtitle = _first(item.get("subtitle"))
    if subtitle and subtitle.lower() not in title.lower():
        title = f"{title}: {subtitle}"
    if any(key in item and not isinstance(item[key], list) for key in ("author", "editor")):
        return None  # `author: null`, a string: malformed, never a paper without authors
    people = item.get("author") or item.get("editor") or []  # an edited book: its editors
    if any(not isinstance(person, dict) for person in people):
        return None
    return Paper(
        source=CROSSREF_SOURCE,
        title=title,
        authors=[name for person in people if (name := _name(person))],
        year=_year(item),
        doi=normalise_doi(doi),
        abstract=plain_text(item.get("abstract")),
        url=item["URL"] if isinstance(item.get("URL"), str) else None,
        venue=_first(item.get("container-title")),
        venue_aliases=[
            name
            for key in ("container-title", "short-container-title")
            for value in (item[key] if isinstance(item.get(key), list) else [])
            if (name := plain_text(value))
        ],
        volume=plain_text(item.get("volume")),
        pages=plain_text(item.get("page")),
        document_type=plain_text(item.get("type")),
        citation_count=_count(item.get("is-referenced-by-count")),
        retraction_notice=_retraction_notice(item, normalise_doi(doi)),
    )


def _retraction_notice(item: dict[str, object], doi: str) -> str | None:
    """The DOI of the notice retracting this work: an `updated-by` relation of type
    "retraction" names it; an `update-to` one makes this record the notice itself."""
    for relation, own in (("updated-by", False), ("update-to", True)):
        updates = item.get(relation)
        for update in updates if isinstance(updates, list) else []:
            if not isinstance(update, dict) or plain_text(update.get("type")) != "retraction":
                continue
            notice = doi if own else update.get("DOI")
            if isinstance(notice, str) and DOI.fullmatch(notice):
                return normalise_doi(notice)
    return None


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


# ----------------------------------------------------------------------------- the client


class CrossrefClient:
    """The REST API over the shared HTTP layer. `network_calls` counts real HTTP requests."""

    def __init__(self, use_cache: bool = True):
        self.base = api_url("crossref")
        # The shared User-Agent carries the contact address (config.user_agent), which is what
        # puts a request in the polite pool.
        self.polite = contact_email() is not None
        single, listing = crossref_intervals(polite=self.polite)
        # Two clients named alike share one limiter: each request holds the next start of either
        # kind back by its own kind's interval.
        self._single = ServiceClient("crossref", SOURCE_NAME, single, use_cache=use_cache)
        self._list = ServiceClient("crossref", SOURCE_NAME, listing, use_cache=use_cache)

    @property
    def network_calls(self) -> int:
        return self._single.network_calls + self._list.network_calls

    def work(self, doi: str) -> tuple[Paper | None, str]:
        """GET /works/{doi}: (the Paper, the URL); None for a DOI Crossref does not know. A
        record that stands for no paper is a malformed answer (ServiceError)."""
        url = f"{self.base}/works/{quote(normalise_doi(doi), safe='/:()')}"
        data = self._get(self._single, url)
        if data is None:
            return None, url
        paper = to_paper(data["message"])  # _json_answer checked "message" is an object
        if paper is None:
            raise ServiceError.malformed(SOURCE_NAME, "a work that stands for no paper", url)
        return paper, url

    def works(self, dois: Iterable[str]) -> tuple[dict[str, Paper], list[str]]:
        """Many DOIs in as few list requests as possible (filter=doi:A,doi:B, DOI_FILTER_CHUNK a
        call): ({doi: Paper} for those Crossref knows, the URLs). A DOI with a comma, which the
        filter syntax cannot hold, is asked alone. A DOI no item carries while the answer held
        malformed items is not "unknown" but unread: the service is failing (ServiceError)."""
        asked = list(dict.fromkeys(normalise_doi(d) for d in dois))
        found: dict[str, Paper] = {}
        urls: list[str] = []
        joinable = [d for d in asked if "," not in d]
        for start in range(0, len(joinable), DOI_FILTER_CHUNK):
            chunk = joinable[start : start + DOI_FILTER_CHUNK]
            url = build_url(
                f"{self.base}/works",
                {"filter": ",".join(f"doi:{d}" for d in chunk), "rows": len(chunk)},
                safe=":/,",
            )
            urls.append(url)
            items = _items(self._get(self._list, url), url)
            for item in items:
                paper = to_paper(item)
                if paper is not None and paper.doi in chunk:
                    found[paper.doi] = paper
            unread = sum(to_paper(item) is None for item in items)
            missing = [d for d in chunk if d not in found]
            if unread and missing:
                raise ServiceError.malformed(
                    SOURCE_NAME,
                    f"{unread} items that stand for no paper where DOI:{', DOI:'.join(missing)} "
                    f"was asked",
                    url,
                )
        for doi in asked:
            if doi not in joinable:
                paper, url = self.work(doi)
                urls.append(url)
                if paper is not None:
                    found[doi] = paper
        return found, urls

    def look_up(self, kind: str, values: list[str]) -> tuple[dict[str, Paper], list[str]]:
        """The gate's identifier look-up (gate/lookups.RecordClient): DOIs, through works()."""
        if kind != "DOI":
            raise BadInput(f"{SOURCE_NAME} looks up DOIs, not {kind}", code="bad_request")
        return self.works(values)

    def search_title(self, title: str, author: str | None, year: int | None) -> SearchResult:
        """The gate's title search (gate/lookups.RecordClient): one query.bibliographic search
        of the title, first author and year, five records."""
        words = [title, author or "", str(year or "")]
        return self.search(" ".join(word for word in words if word), rows=5)

    def search(
        self,
        query: str,
        rows: int = 10,
        offset: int = 0,
        author: str | None = None,
        year: str | None = None,
        work_type: str | None = None,
    ) -> SearchResult:
        """GET /works?query.bibliographic=QUERY (title, authors, venue, year words), optionally
        with query.author, a year or range (from-pub-date/until-pub-date) and a type filter."""
        check_window(rows, offset)
        text = " ".join(query.split())
        if not text:
            raise BadInput("the query is empty", code="bad_query")
        filters = []
        if year:
            first, _, last = year.partition("-") if "-" in year else (year, "", year)
            for name, value in (("from-pub-date", first), ("until-pub-date", last)):
                if value and not re.fullmatch(r"\d{4}", value):
                    raise BadInput(
                        f"--year must look like 2019, 2010-2020, 2010- or -2015 (got {year!r})",
                        "bad_year",
                    )
                if value:
                    filters.append(f"{name}:{value}")
        if work_type:
            filters.append(f"type:{work_type}")
        url = build_url(
            f"{self.base}/works",
            {
                "query.bibliographic": text,
                "query.author": author,
                "filter": ",".join(filters) or None,
                "rows": rows,
                "offset": offset or None,
            },
            safe=":,",
        )
        data = self._get(self._list, url)
        items = _items(data, url)
        papers = [paper for item in items if (paper := to_paper(item)) is not None]
        if items and not papers:  # a failing service, never "nothing found"
            raise ServiceError.malformed(SOURCE_NAME, f"{len(items)} items, none well-formed", url)
        total = data["message"].get("total-results") if data else None
        return SearchResult(
            source=CROSSREF_SOURCE,
            command="search",
            query=text,
            request_urls=[url],
            papers=papers,
            total_results=total if isinstance(total, int) else len(papers),
        )

    def _get(self, http: ServiceClient, url: str) -> Envelope | None:
        """The parsed answer, or None for a single record's 404 ("Resource not found."). A list
        request (/works?...) always exists: its 404, like a 404 page of any other wording, is a
        wrong base URL or a proxy, so a failing service (nothing of it cached)."""
        single = http is self._single
        response = http.get(url, check=_json_answer, cache_not_found=single and _not_found)
        if response.status == 200:
            answer: Envelope = response.json()  # _json_answer checked its shape
            return answer
        if response.status == 404 and single and _not_found(response):
            return None
        message = _api_message(response)
        if response.status == 400:
            raise BadInput(f"{SOURCE_NAME} rejected the request: {message} ({url})", "bad_request")
        raise ServiceError(
            f"{SOURCE_NAME} answered HTTP {response.status}: {message} ({url})",
            code="service_error",
        )


def _items(data: Envelope | None, url: str) -> list[object]:
    """A list answer's items ([] for a 404); an answer whose items are not a list, or that does
    not say how many there are (total-results), is malformed: the service's failure
    (ServiceError), never a TypeError nor "nothing found"."""
    if data is None:
        return []
    message = data["message"]  # _json_answer checked it is an object
    items, total = message.get("items", []), message.get("total-results")
    if not isinstance(items, list):
        raise ServiceError.malformed(SOURCE_NAME, "items that are not a list", url)
    if not isinstance(total, int) or isinstance(total, bool):
        raise ServiceError.malformed(SOURCE_NAME, "a total-results that is not a number", url)
    return items


def _not_found(response: Response) -> bool:
    """Crossref's own 404 for a DOI it does not know: the plain text "Resource not found."."""
    return response.text.strip().startswith("Resource not found")


def check_window(rows: int, offset: int) -> None:
    """Refuse a search page Crossref would reject: `rows` (the script's --limit) and `offset`."""
    if not 1 <= rows <= MAX_ROWS:
        raise BadInput(f"--limit must be 1..{MAX_ROWS} (got {rows})", code="bad_limit")
    if offset < 0:
        raise BadInput(f"--offset must be 0 or more (got {offset})", code="bad_limit")


def _json_answer(response: Response) -> None:
    json_holding(response, "message", dict, "Crossref's message object")


def _api_message(response: Response) -> str:
    """Crossref's own explanation: the messages of a failed answer, else the body's text."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:200] or "(empty body)"
    messages = data.get("message") if isinstance(data, dict) else None
    if isinstance(messages, list):
        return "; ".join(str(m.get("message", m)) for m in messages if isinstance(m, dict))[:300]
    return str(data)[:300]

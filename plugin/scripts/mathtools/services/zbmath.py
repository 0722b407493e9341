"""zbMATH Open (https://api.zbmath.org/v1): mathematics' own index, mapped to `Paper` records.

Endpoints: GET /document/{id} (zbMATH's internal number; the answer's "result" is one object),
GET /document/_search?search_string=... (the web search's syntax: `ti:`, `au:`, `py:`, `so:`,
`cc:` MSC, `dt:` j/a/b, `an:` Zbl number, `doi:`, `arxiv:`, combined with `&`, `|`, `!` and
parentheses) and GET /document/_structured_search (one parameter per field: `Title`, `DOI`, ...).
Every answer is the envelope {"result": ..., "status": {"nr_total_results", ...}}; a query with
no result is HTTP 404 with "result" null and a status whose internal_code reads "successful
access. No results found." (_zero_results), which is an answer, not an error.

zbmathrecords.py reads the records (and the traps the recordings show in them).

Every call goes through the shared HTTP layer (cache, MATH_ZBMATH_MIN_INTERVAL across processes,
bounded retries); the base URL is MATH_ZBMATH_API_URL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..core import (
    ARXIV_DOI_PREFIX,
    DOI,
    ZBL,
    BadInput,
    Paper,
    SearchResult,
    ServiceError,
    api_url,
    is_digits,
    min_interval,
    normalise_arxiv_id,
)
from .http import Response, ServiceClient, UnusableBody, build_url
from .zbmathrecords import SOURCE, SOURCE_NAME, as_dict, reference_ids, to_paper, to_papers

MAX_PER_PAGE = 100
LOOKUP_CHUNK = 20  # identifiers per `|`-joined search: keeps the URL short
# Characters that would end a `doi:` term in a search string: such DOIs go to _structured_search.
QUERY_SYNTAX = re.compile(r"[\s()|&!\"]")


@dataclass(frozen=True)
class Identifier:
    """One identifier as zbMATH can be asked for it: kind "zbl", "doi", "arxiv" or "document"."""

    kind: str
    value: str

    @property
    def label(self) -> str:
        return {"zbl": "Zbl", "doi": "DOI", "arxiv": "arXiv", "document": "zbMATH"}[
            self.kind
        ] + f":{self.value}"

    def term(self) -> str:
        field_name = {"zbl": "an", "doi": "doi", "arxiv": "arxiv"}[self.kind]
        return f"{field_name}:{self.value}"

    def carried_by(self, paper: Paper) -> bool:
        if self.kind == "document":
            return str(paper.external_ids.get("zbMATH")) == self.value
        carried: object = getattr(
            paper, {"zbl": "zbl", "doi": "doi", "arxiv": "arxiv_id"}[self.kind]
        )
        return carried == self.value


def zbmath_identifier(text: str) -> Identifier:
    """`Zbl 1409.11141` / `Zbl:1409.11141`, `zbMATH:6617923` (the internal number), `DOI:...` or a
    bare DOI, `arXiv:...` or a bare arXiv id. A bare `1409.11141` is an arXiv id, as everywhere
    else: a Zbl number needs its prefix. Anything else is BadInput (code bad_id)."""
    raw = text.strip()
    prefix, sep, value = raw.partition(":")
    if sep and prefix.strip().lower() == "zbmath" and is_digits(value.strip()):
        return Identifier("document", value.strip())
    if raw.lower().startswith("zbl") and (match := ZBL.fullmatch(raw)):
        return Identifier("zbl", match.group(1))
    if match := DOI.fullmatch(raw):
        doi = match.group(1).lower()
        if not doi.startswith(ARXIV_DOI_PREFIX):
            return Identifier("doi", doi)
        raw = doi.removeprefix(ARXIV_DOI_PREFIX)
    if sep and prefix.strip().lower() == "arxiv":
        raw = value
    try:
        return Identifier("arxiv", normalise_arxiv_id(raw)[0])
    except BadInput:
        pass
    raise BadInput(
        f"not a zbMATH identifier: {text!r} (use Zbl:NNNN.NNNNN, zbMATH:<document number>, "
        "DOI:..., arXiv:... or a bare DOI or arXiv id)",
        code="bad_id",
    )


def _usable(page: SearchResult, unread: int) -> SearchResult:
    """A search's page, unless it held records and none of them could be read (`unread` of them
    malformed): then the service is failing, never "nothing found"."""
    if unread and not page.papers:
        raise ServiceError.malformed(
            SOURCE_NAME, f"{unread} records, none well-formed", page.request_urls[0]
        )
    return page


# ----------------------------------------------------------------------------- the client


@dataclass
class LookupResult:
    """What a look-up of identifiers found: `papers[i]` answers `ids[i]`, None where no record
    zbMATH returned carries it."""

    ids: list[Identifier]
    papers: list[Paper | None]
    request_urls: list[str] = field(default_factory=list)

    def to_search_result(self, asked: list[str]) -> SearchResult:
        found = [p for p in self.papers if p is not None]
        return SearchResult(
            source=SOURCE,
            command="lookup",
            request_urls=list(self.request_urls),
            papers=list({p.zbl: p for p in found}.values()),
            not_found=[a for a, p in zip(asked, self.papers, strict=True) if p is None],
        )


class ZbmathClient:
    """The zbMATH Open API over the shared HTTP layer. `network_calls` counts real requests."""

    def __init__(self, use_cache: bool = True):
        self.base = api_url("zbmath")
        self._http = ServiceClient(
            "zbmath",
            SOURCE_NAME,
            min_interval("zbmath"),
            headers={"Accept": "application/json"},
            use_cache=use_cache,
        )

    @property
    def network_calls(self) -> int:
        return self._http.network_calls

    def search(self, query: str, limit: int = 10, page: int = 0) -> SearchResult:
        """One page of GET /document/_search for `query` in zbMATH's search syntax."""
        return _usable(*self._search(query, limit, page))

    def _search(self, query: str, limit: int, page: int) -> tuple[SearchResult, int]:
        """search(), and how many records of the page were malformed."""
        check_page(limit, page)
        text = " ".join(query.split())
        if not text:
            raise BadInput("the query is empty", code="bad_query")
        url = build_url(
            f"{self.base}/document/_search",
            {"search_string": text, "page": page, "results_per_page": limit},
        )
        return self._list("search", text, url)

    def _structured_search(
        self, fields: dict[str, str], limit: int, page: int
    ) -> tuple[SearchResult, int]:
        """One page of GET /document/_structured_search (`fields` as the API names them: "Title",
        "Contributor name", "MSC", "Year", "Source", "DOI", ...), and how many records of the page
        were malformed."""
        check_page(limit, page)
        asked = {name: value for name, value in fields.items() if value and value.strip()}
        if not asked:
            raise BadInput("give at least one field to search", code="bad_query")
        url = build_url(
            f"{self.base}/document/_structured_search",
            {**asked, "page": page, "results_per_page": limit},
        )
        query = " & ".join(f"{name}: {value}" for name, value in asked.items())
        return self._list("structured", query, url)

    def document(self, number: int | str) -> tuple[Paper | None, dict[str, object] | None, str]:
        """GET /document/{number}: (the Paper, the raw record, the URL); (None, None, url) when
        zbMATH has no such document. A record that stands for no paper is a malformed answer."""
        url = self._document_url(number)
        data = self._get(url, any_404=True)
        result = as_dict(data).get("result") if data is not None else None
        if isinstance(result, list):  # the list envelope, should the API answer with it
            result = result[0] if result else None
        paper = to_paper(result) if result is not None else None
        if result is not None and paper is None:
            raise ServiceError.malformed(
                SOURCE_NAME, "a document record that stands for no paper", url
            )
        return paper, (as_dict(result) if paper is not None else None), url

    def lookup(self, ids: Iterable[Identifier]) -> LookupResult:
        """Look identifiers up with as few calls as the API allows: one `|`-joined search per
        LOOKUP_CHUNK identifiers; internal numbers and DOIs that the search syntax cannot hold go
        one by one. Records are matched to the identifiers they carry (zbMATH does not say which
        term a hit answered). An identifier no record carries while the answer held malformed
        records is not "not found" but unread: the service is failing (ServiceError)."""
        asked = list(ids)
        result = LookupResult(ids=asked, papers=[None] * len(asked))
        found: list[Paper] = []
        unread = 0  # malformed records in the answers
        joinable = [i for i in asked if i.kind != "document" and not QUERY_SYNTAX.search(i.value)]
        for start in range(0, len(joinable), LOOKUP_CHUNK):
            chunk = joinable[start : start + LOOKUP_CHUNK]
            query = " | ".join(i.term() for i in chunk)
            page, bad = self._search(query, min(MAX_PER_PAGE, 2 * len(chunk)), 0)
            result.request_urls += page.request_urls
            found += page.papers
            unread += bad
        for ident in asked:
            if ident in joinable:
                continue
            if ident.kind == "document":
                paper, _, url = self.document(ident.value)
                result.request_urls.append(url)
                found += [paper] if paper else []
            else:
                page, bad = self._structured_search({"DOI": ident.value}, 5, 0)
                result.request_urls += page.request_urls
                found += page.papers
                unread += bad
        for position, ident in enumerate(asked):
            result.papers[position] = next((p for p in found if ident.carried_by(p)), None)
        missing = [i.label for i, p in zip(asked, result.papers, strict=True) if p is None]
        if unread and missing:
            raise ServiceError.malformed(
                SOURCE_NAME,
                f"{unread} records that stand for no paper where {', '.join(missing)} was asked",
                result.request_urls[-1],
            )
        return result

    def references(self, asked: str, limit: int = 20) -> SearchResult:
        """The documents `asked` cites, from its zbMATH reference list: the document, then each
        resolved reference by its number, up to `limit`."""
        if limit < 1:
            raise BadInput(f"--limit must be at least 1 (got {limit})", code="bad_limit")
        ident = zbmath_identifier(asked)
        result = SearchResult(source=SOURCE, command="references", query=asked)
        number: int | str | None
        if ident.kind == "document":
            number = int(ident.value)
        else:
            found = self.lookup([ident])
            result.request_urls += found.request_urls
            paper = found.papers[0]
            number = paper.external_ids.get("zbMATH") if paper else None
        record = None
        if number is not None:
            _, record, url = self.document(number)
            result.request_urls.append(url)
        if record is None:
            result.not_found.append(asked)
            return result
        cited = reference_ids(record)
        result.total_results = len(cited)
        for reference in cited[:limit]:
            result.request_urls.append(self._document_url(reference))
            try:
                paper, _, _ = self.document(reference)
            except ServiceError as exc:
                if exc.code != "malformed_answer":
                    raise
                continue  # a cited work zbMATH cannot give, like a reference it did not resolve
            if paper is not None:
                result.papers.append(paper)
        return result

    # -- HTTP -----------------------------------------------------------------------------

    def _document_url(self, number: int | str) -> str:
        return f"{self.base}/document/{int(number)}"

    def _list(self, command: str, query: str, url: str) -> tuple[SearchResult, int]:
        """One page of a search, and how many of its records were malformed (to_paper)."""
        data = self._get(url)
        records = as_dict(data).get("result") if data is not None else []
        if not isinstance(records, list):
            raise ServiceError.malformed(SOURCE_NAME, "a result that is not a list of records", url)
        papers = to_papers(records)
        total = as_dict(as_dict(data).get("status")).get("nr_total_results") if data else 0
        page = SearchResult(
            source=SOURCE,
            command=command,
            query=query,
            request_urls=[url],
            papers=papers,
            total_results=total if isinstance(total, int) else len(papers),
        )
        return page, len(records) - len(papers)

    def _get(self, url: str, any_404: bool = False) -> dict[str, object] | None:
        """The parsed envelope, or None for the 404 that means "no result": a search's carries
        the envelope's status; a 404 of /document/{id} in JSON means no such document. Another
        404 (a wrong MATH_ZBMATH_API_URL, a proxy's page) is a failing service, never cached."""

        def no_result(response: Response) -> bool:
            return _zero_results(response) or (any_404 and _is_json(response))

        response = self._http.get(url, check=_envelope, cache_not_found=no_result)
        if response.status == 200:
            envelope: dict[str, object] = response.json()  # _envelope checked it is an object
            return envelope
        if response.status == 404 and no_result(response):
            return None
        message = response.text.strip()[:200] or "(empty body)"
        if response.status == 400:
            raise BadInput(f"{SOURCE_NAME} rejected the request: {message} ({url})", "bad_request")
        raise ServiceError(
            f"{SOURCE_NAME} answered HTTP {response.status}: {message} ({url})",
            code="service_error",
        )


DOCUMENT_TYPE_CODES = {
    "j": "j",
    "journal-article": "j",
    "a": "a",
    "book-chapter": "a",
    "b": "b",
    "book": "b",
}


def search_query(
    query: str | None = None,
    title: str | None = None,
    author: str | None = None,
    msc: list[str] | None = None,
    year: str | None = None,
    document_type: str | None = None,
) -> str:
    """A raw query and field values as one search string in zbMATH's syntax, joined with `&`."""
    parts = [f"({query.strip()})"] if query and query.strip() else []
    for prefix, value in (("ti", title), ("au", author), ("py", year)):
        if value and value.strip():
            parts.append(f"{prefix}:{quoted(value)}")
    codes = [code.strip() for code in msc or [] if code.strip()]
    if codes:
        parts.append("cc:" + (codes[0] if len(codes) == 1 else f"({' | '.join(codes)})"))
    if document_type:
        parts.append(f"dt:{DOCUMENT_TYPE_CODES[document_type]}")
    if not parts:
        raise BadInput(
            "search needs --query or at least one of --title, --author, --msc, --year, --type",
            code="bad_query",
        )
    return " & ".join(parts) if len(parts) > 1 else parts[0].removeprefix("(").removesuffix(")")


def quoted(value: str) -> str:
    """A value as one search term: several words become a phrase."""
    words = " ".join(value.replace('"', " ").split())
    return f'"{words}"' if " " in words else words


def check_page(limit: int, page: int) -> None:
    if not 1 <= limit <= MAX_PER_PAGE:
        raise BadInput(f"--limit must be 1..{MAX_PER_PAGE} (got {limit})", code="bad_limit")
    if page < 0:
        raise BadInput(f"--page must be 0 or more (got {page})", code="bad_limit")


def _is_json(response: Response) -> bool:
    try:
        response.json()
    except ValueError:
        return False
    return True


# What the status of zbMATH's zero-result answer says in its `internal_code`, folded: the live
# service's "successful access. No results found." (third-party clients record it, with "result"
# null and no counts), and the "Zero results" wording other clients record.
NO_RESULTS_CODES = ("no results found", "zero results")


def _zero_results(response: Response) -> bool:
    """Whether a 404 is zbMATH's own "nothing found": its envelope, no records ("result" null or
    []) and a status that says none, by a count of 0 or an internal_code saying no results were
    found. A status of the wrong types (a count that is no integer, a code that is no string)
    or a 404 that says neither is a failing service."""
    try:
        data = response.json()
    except ValueError:
        return False
    if not isinstance(data, dict) or not isinstance(data.get("status"), dict):
        return False
    status: dict[str, object] = data["status"]
    total, code = status.get("nr_total_results"), status.get("internal_code")
    if "result" not in data or data["result"] not in (None, []):
        return False
    if total is not None and (not isinstance(total, int) or isinstance(total, bool) or total):
        return False
    if code is not None and not isinstance(code, str):
        return False
    says_none = isinstance(code, str) and any(c in code.lower() for c in NO_RESULTS_CODES)
    return total == 0 or says_none


def _envelope(response: Response) -> None:
    try:
        data = response.json()
    except ValueError:
        raise UnusableBody("an answer that is not JSON") from None
    if not isinstance(data, dict) or "result" not in data:
        raise UnusableBody("an answer without zbMATH's result envelope")

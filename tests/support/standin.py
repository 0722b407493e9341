#!/usr/bin/env python3
"""A local stand-in for arXiv, Semantic Scholar, zbMATH Open, Crossref and OpenAlex, answering
from the real recordings (the RECORDED world; `StandIn(world="invented")` answers from the
repository's invented papers instead: support/worlds.py says what each world holds).

It indexes every arXiv entry recorded in ../shared/recordings/arxiv/ (found by support/shared.py;
bodies recovered with .encode("latin-1")) and every Semantic Scholar paper record in
recordings/s2/ (both vcrpy YAML flavours; the richest record of each paperId wins), then answers:

arXiv, `<url>/api/query`:
  - `id_list`: a feed of the recorded entries for the asked ids, in the asked order, cut to
    `start`/`max_results` like arXiv; unknown ids are silently dropped, as arXiv does; a malformed
    id gets the recorded HTTP 400 "Error" entry, with the bad id put in its text.
  - `search_query`: the recorded page when the query, start and max_results match a recording;
    otherwise the query (`ti:`, `au:`, `abs:`, `all:`, `cat:`, `id:` terms, quoted phrases, AND/OR/
    ANDNOT, parentheses) is evaluated over the indexed entries.
arXiv LaTeX sources, `<url>/src/<id>[vN]` and `<url>/e-print/<id>` (tests/support/arxiv_src.py): the
  recorded answers of ../shared/recordings/arxiv-src (papers' sources, a PDF-only answer, error
  pages, the /e-print redirect), any other id arXiv's 404 "No document" page; counted as
  "arxiv src", failed with `fail("arxiv", ...)`, or alone with `fail("arxiv src", ...)`.
Semantic Scholar, `<url>/graph/v1`:
  - POST `/paper/batch`: records aligned with the asked ids, null for unknown ones.
  - GET `/paper/{id}`: the record, else 404 `{"error": "Paper with id X not found"}` as recorded.
  - GET `/paper/search/match`: the indexed record whose normalised title is closest (difflib ratio
    at least 0.8), else the record whose whole title is in the query (a whole citation; SYNTHESIZED:
    no recording asks with more than a title), else 404 `{"error": "Title match not found"}`
    (synthesized: no recording has it).
  - GET `/paper/search`: the recorded response when the URL matches a recording, else the indexed
    records whose title holds every query word.
  - any other GET: the recorded response for that exact URL (bulk pages, citations, ...).
Records are filtered to the requested `fields` (plus paperId), as the API does.
zbMATH Open, `<url>/zbmath/v1` (every record in recordings/zbmath/, by internal number):
  - GET `/document/_search?search_string=`: the records the query selects (`ti: au: py: so: cc:
    dt: an: doi: arxiv:` terms, bare words, quoted phrases, `&`, `|`, `!`, parentheses), in the
    recorded list envelope with its counts replaced; GET `/document/_structured_search`: the same
    for Title, Contributor name, MSC, Year, Source, DOI, Zbl parameters.
  - GET `/document/{id}`: {"result": <record>, "status": ...} (SYNTHESIZED: no recording holds a
    single-document answer; shape from the API documentation).
  - no result: HTTP 404, "result" null and a status whose internal_code reads "successful
    access. No results found." (ZBMATH_NO_RESULTS: the live form as third-party code records it,
    SYNTHESIZED).
Crossref, `<url>/crossref` (every work in CROSSREF_CASSETTES and in
recordings/crossref/refchecker-items/: /works/{doi} messages, list items, refchecker's cached
items; the record with most fields wins):
  - GET `/works/{doi}`: the recorded answer for that URL, else the work in a recorded envelope,
    else HTTP 404 "Resource not found." as recorded.
  - GET `/works?filter=doi:A,doi:B`: the known works in a recorded list envelope.
  - GET `/works?query.bibliographic=` (or query.title): works whose title words all occur in the
    query, then those sharing most of them; none -> 200 with total-results 0, as recorded.

OpenAlex, `<url>/openalex` (every work in recordings/openalex/refchecker/api_cache/):
  - GET `/works?filter=doi:A|B`: the known works, in a list envelope {"meta": {"count", ...},
    "results"} (ASSEMBLED: refchecker kept only the results; the envelope's shape is the API
    documentation's), each cut to the `select`ed fields.
  - GET `/works?search=`: works whose title words all occur in the query, then those sharing
    most of them, `per_page` of them.
  - GET `/works/doi:<doi>`: the work, else HTTP 404 with an HTML page, as paper-qa recorded.

Feeds and JSON answers built from several recorded entries are ASSEMBLED from real recorded
records (the feed header is a recorded one with its counts replaced); nothing is invented except
the 404 title-match body and the failure bodies below. The server counts requests per endpoint
(`counts`) and can be told to fail a service (`fail("arxiv", 503)`): every request to it then gets
that status (Semantic Scholar's 500 body is the recorded one; other failure bodies are synthesized).

    with StandIn() as standin:
        env = standin.env()  # MATH_ARXIV_API_URL, MATH_S2_API_URL, MATH_ZBMATH_API_URL, ...
        ...
        standin.counts["arxiv id_list"]

Command line (for demos and the Claude Code end-to-end tests):
    python3 tests/support/standin.py --port 8765 [--fail-arxiv 503] [--fail-s2 500]
        [--fail-zbmath 503] [--fail-crossref 503] [--world invented]
prints the base URLs as JSON and serves until interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import re
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "plugin"
if __name__ == "__main__":  # run as a script: make `support` and `mathtools` importable
    sys.path[:0] = [str(PLUGIN / "scripts"), str(ROOT / "tests")]

from support import corpus_search, shared, zbmath_query  # noqa: E402
from support.scripted_server import Received, Reply, ScriptedServer  # noqa: E402
from support.worlds import (  # noqa: E402
    INVENTED,
    RECORDED,
    ArxivEntry,
    Index,
    arxiv_page_key,
    load_index,
    query_key,
    reply_of,
    words,
)

NEW_ID = re.compile(r"^\d{4}\.\d{4,5}$")
OLD_ID = re.compile(r"^[a-z-]+(\.[A-Z]{2})?/\d{7}$")
S2_BATCH_LIMIT = 500
MATCH_MIN_RATIO = 0.8
TITLE_NOT_FOUND = {"error": "Title match not found"}  # synthesized: no recording holds this 404
# OpenAlex's 404 is an HTML page (paper-qa's recording); its text, shortened
OPENALEX_NOT_FOUND = b"<!DOCTYPE html><html><head><title>404</title></head><body></body></html>"


# ----------------------------------------------------------------------------- arXiv


def _entry_field(entry: ArxivEntry, name: str) -> list[str]:
    texts = {
        "ti": entry.title,
        "au": entry.authors,
        "abs": entry.summary,
        "all": f"{entry.title} {entry.authors} {entry.summary}",
    }
    return words(texts.get(name, texts["all"]))


def _term_matches(entry: ArxivEntry, name: str, value: str) -> bool:
    if name == "cat":
        return value in entry.categories
    if name == "id":
        return re.sub(r"v\d+$", "", value) == entry.arxiv_id
    wanted, text = words(value), _entry_field(entry, name)
    n = len(wanted)
    return bool(wanted) and any(text[i : i + n] == wanted for i in range(len(text) - n + 1))


def _evaluate(query: str, entry: ArxivEntry) -> bool:
    """arXiv's boolean query syntax (the corpus stand-in's reading of it)."""
    return corpus_search.evaluate(
        corpus_search.parse(query), lambda name, value: _term_matches(entry, name, value)
    )


def _feed(index: Index, entries: list[ArxivEntry], total: int, start: int, per_page: int) -> bytes:
    head = index.arxiv_feed_head
    for tag, value in (
        ("opensearch:itemsPerPage", per_page),
        ("opensearch:totalResults", total),
        ("opensearch:startIndex", start),
    ):
        head = re.sub(rf"<{tag}>\d+</{tag}>", f"<{tag}>{value}</{tag}>", head)
    body = head + "".join(f"{entry.xml}\n  " for entry in entries) + "</feed>\n"
    return body.encode("utf-8")


def _arxiv_id_list(index: Index, ids: list[str], start: int, per_page: int) -> Reply:
    found = []
    for asked in ids:
        bare = re.sub(r"v\d+$", "", asked.strip())
        if not (NEW_ID.match(bare) or OLD_ID.match(bare)):
            error = index.arxiv_error
            if error is None:  # the invented world: a bare 400 (SYNTHESIZED)
                return reply_of(400, f"incorrect id format for {asked}\n".encode(), "text/plain")
            pattern = rb"(?<=for[ _])" + re.escape(index.arxiv_error_id.encode())
            body = re.sub(pattern, escape(asked).encode(), error.body)
            return Reply(error.status, body, dict(error.headers))
        if bare in index.arxiv and index.arxiv[bare] not in found:
            found.append(index.arxiv[bare])
    return reply_of(
        200,
        _feed(index, found[start : start + per_page], len(found), start, per_page),
        "application/atom+xml",
    )


def _arxiv_search(index: Index, params: dict[str, str], start: int, per_page: int) -> Reply:
    recorded = index.arxiv_pages.get(arxiv_page_key(params))
    if recorded is not None:
        return recorded
    query = params["search_query"]
    hits = [entry for entry in index.arxiv.values() if _evaluate(query, entry)]
    sort_by = params.get("sortBy", "relevance")
    if sort_by in ("submittedDate", "lastUpdatedDate"):
        attribute = "published" if sort_by == "submittedDate" else "updated"
        hits.sort(
            key=lambda e: getattr(e, attribute), reverse=params.get("sortOrder") != "ascending"
        )
    page = hits[start : start + per_page]
    return reply_of(200, _feed(index, page, len(hits), start, per_page), "application/atom+xml")


# ----------------------------------------------------------------------------- Semantic Scholar


def _s2_resolve(index: Index, asked: str) -> dict | None:
    asked = unquote(asked.strip())
    key = asked.lower()
    if key.startswith("arxiv:"):
        key = re.sub(r"v\d+$", "", key)
    elif key.startswith("corpusid:"):
        key = "corpusid:" + key.split(":", 1)[1]
    elif key.startswith("10."):
        key = "doi:" + key
    paper_id = index.s2_ids.get(key)
    return index.s2_papers[paper_id] if paper_id else None


def _select(record: dict, fields: str | None) -> dict:
    if not fields:
        return {"paperId": record["paperId"], "title": record.get("title")}
    wanted = {name.split(".", 1)[0] for name in fields.split(",")} | {"paperId"}
    return {k: v for k, v in record.items() if k in wanted}


def _json(status: int, payload) -> Reply:
    return reply_of(status, json.dumps(payload).encode("utf-8"), "application/json")


def _s2_batch(index: Index, body: bytes, fields: str | None) -> Reply:
    try:
        ids = json.loads(body or b"{}").get("ids")
    except (ValueError, AttributeError):
        ids = None
    if not isinstance(ids, list):
        return _json(400, {"error": "Requested object not valid JSON with an 'ids' list"})
    if len(ids) > S2_BATCH_LIMIT:
        return _json(400, {"error": f"Cannot process more than {S2_BATCH_LIMIT} ids"})
    records = [_s2_resolve(index, str(asked)) for asked in ids]
    return _json(200, [_select(r, fields) if r else None for r in records])


def _s2_match(index: Index, query: str, fields: str | None) -> Reply:
    matcher = difflib.SequenceMatcher(None, "", " ".join(words(query)))
    best, best_ratio = None, MATCH_MIN_RATIO
    for title, record in index.s2_titles:
        matcher.set_seq1(title)
        if matcher.real_quick_ratio() < best_ratio or matcher.quick_ratio() < best_ratio:
            continue
        ratio = matcher.ratio()
        # On a tie, prefer the record with more fields: it carries authors and year.
        if (ratio, len(record)) > (best_ratio, len(best or {})):
            best, best_ratio = record, ratio
    if best is None:
        best = _s2_title_in(index, query)
        best_ratio = MATCH_MIN_RATIO if best else 0.0
    if best is None:
        return _json(404, TITLE_NOT_FOUND)
    return _json(
        200, {"data": [{**_select(best, fields), "matchScore": round(best_ratio * 100, 4)}]}
    )


def _s2_title_in(index: Index, query: str) -> dict | None:
    """SYNTHESIZED (no recording asks the match endpoint with more than a title): for a query
    that is a whole citation, the record whose whole title (of three words or more) is a run of
    the query's words; the longest such title, then the record with more fields."""
    asked = words(query)
    found = []
    for title, record in index.s2_titles:
        wanted = title.split()
        n = len(wanted)
        if n >= 3 and any(asked[i : i + n] == wanted for i in range(len(asked) - n + 1)):
            found.append((n, len(record), record))
    return max(found, key=lambda item: item[:2])[2] if found else None


def _s2_search(index: Index, params: dict[str, str]) -> Reply:
    wanted = set(words(params.get("query", "")))
    hits = [r for r in index.s2_papers.values() if wanted <= set(words(r["title"]))]
    offset, limit = int(params.get("offset") or 0), int(params.get("limit") or 100)
    payload = {
        "total": len(hits),
        "offset": offset,
        "data": [_select(r, params.get("fields")) for r in hits[offset : offset + limit]],
    }
    if offset + limit < len(hits):
        payload["next"] = offset + limit
    return _json(200, payload)


# ----------------------------------------------------------------------------- zbMATH Open

STRUCTURED_FIELDS = {
    "title": "ti",
    "contributor name": "au",
    "msc": "cc",
    "year": "py",
    "source": "so",
    "doi": "doi",
    "zbl": "an",
    "document type": "dt",
}


# SYNTHESIZED: the live API's answer to a query without results, exactly as third-party code
# written against it records it (lrspeiser/Invariant, tests/test_claim_specific_prior_art_zbmath.py,
# commit 30b7e2024170): HTTP 404, "result" null, a status with no counts.
ZBMATH_NO_RESULTS = {
    "result": None,
    "status": {
        "execution_bool": False,
        "internal_code": "successful access. No results found.",
        "status_code": 404,
    },
}


def _zbmath_list(index: Index, records: list[dict], page: int, per_page: int) -> Reply:
    status = dict(index.zbmath_status)
    if not records:
        return _json(404, ZBMATH_NO_RESULTS)
    shown = records[page * per_page : (page + 1) * per_page]
    status.update(nr_total_results=len(records), nr_request_results=len(shown))
    return _json(200, {"result": shown, "status": status})


def _zbmath(index: Index, route: str, params: dict[str, str]) -> Reply:
    page, per_page = int(params.get("page") or 0), int(params.get("results_per_page") or 100)
    if route == "/document/_search":
        return _zbmath_list(
            index,
            zbmath_query.select(index.zbmath.values(), params.get("search_string", "")),
            page,
            per_page,
        )
    if route == "/document/_structured_search":
        terms = [
            f'{STRUCTURED_FIELDS[name.lower()]}:"{value}"'
            for name, value in params.items()
            if name.lower() in STRUCTURED_FIELDS and value
        ]
        return _zbmath_list(
            index,
            zbmath_query.select(index.zbmath.values(), " & ".join(terms)) if terms else [],
            page,
            per_page,
        )
    number = route.removeprefix("/document/")
    record = index.zbmath.get(int(number)) if number.isdigit() else None
    if record is None:
        return _zbmath_list(index, [], 0, 1)
    # SYNTHESIZED: a single-document answer (no recording holds one), per the documentation.
    status = {**index.zbmath_status, "nr_total_results": 1, "nr_request_results": 1}
    return _json(200, {"result": record, "status": status})


# ----------------------------------------------------------------------------- Crossref

CROSSREF_NOT_FOUND = b"Resource not found."  # as recorded for an unknown DOI


def _crossref_list(index: Index, works: list[dict], rows: int, offset: int = 0) -> Reply:
    envelope = json.loads(json.dumps(index.crossref_list_envelope))
    message = envelope["message"]
    message.update(
        {
            "total-results": len(works),
            "items": works[offset : offset + rows],
            "items-per-page": rows,
        }
    )
    return _json(200, envelope)


def _crossref_search(index: Index, text: str, rows: int, offset: int) -> Reply:
    asked = set(words(text))
    ranked = []
    for work in index.crossref.values():
        title = words(" ".join(work.get("title") or []))
        if not title:
            continue
        share = sum(w in asked for w in title) / len(title)
        if share >= 0.5:
            ranked.append((-share, work["DOI"].lower(), work))
    ranked.sort(key=lambda item: item[:2])
    return _crossref_list(index, [work for _, _, work in ranked], rows, offset)


def _crossref(index: Index, route: str, params: dict[str, str], target: str) -> Reply:
    query = tuple(sorted((k, v) for k, v in params.items() if k != "mailto"))
    path = unquote(route).lower().removeprefix("/v1")
    recorded = index.crossref_replies.get((path, query))
    if recorded is not None:
        return recorded
    rows, offset = int(params.get("rows") or 20), int(params.get("offset") or 0)
    if path == "/works":
        filters = [f.split(":", 1) for f in params.get("filter", "").split(",") if ":" in f]
        dois = [value.lower() for name, value in filters if name == "doi"]
        if dois:
            return _crossref_list(
                index, [index.crossref[d] for d in dois if d in index.crossref], rows
            )
        text = (
            params.get("query.bibliographic")
            or params.get("query.title")
            or params.get("query", "")
        )
        return _crossref_search(index, text, rows, offset)
    if path.startswith("/works/"):
        work = index.crossref.get(path.removeprefix("/works/"))
        if work is None:
            return reply_of(404, CROSSREF_NOT_FOUND, "text/plain")
        return _json(200, {**index.crossref_work_envelope, "message": work})
    return reply_of(404, CROSSREF_NOT_FOUND, "text/plain")


def _openalex_list(works: list[dict], params: dict[str, str]) -> Reply:
    per_page = int(params.get("per_page") or 25)
    fields = [f for f in params.get("select", "").split(",") if f]
    chosen = [{k: v for k, v in w.items() if not fields or k in fields} for w in works[:per_page]]
    meta = {"count": len(works), "db_response_time_ms": 1, "page": 1, "per_page": per_page}
    return _json(200, {"meta": meta, "results": chosen, "group_by": []})


def _openalex(index: Index, route: str, params: dict[str, str]) -> Reply:
    if route == "/works":
        filters = dict(f.split(":", 1) for f in params.get("filter", "").split(",") if ":" in f)
        if "doi" in filters:
            asked = [d.lower().removeprefix("https://doi.org/") for d in filters["doi"].split("|")]
            return _openalex_list([index.openalex[d] for d in asked if d in index.openalex], params)
        asked_words = set(words(params.get("search", "")))
        ranked = []
        for position, work in enumerate(index.openalex_works):
            title = words(str(work.get("title") or ""))
            share = sum(w in asked_words for w in title) / len(title) if title else 0
            if share >= 0.5:
                ranked.append((-share, position, work))
        ranked.sort(key=lambda item: item[:2])
        return _openalex_list([work for _, _, work in ranked], params)
    if route.startswith("/works/doi:"):
        work = index.openalex.get(unquote(route.removeprefix("/works/doi:")).lower())
        if work is not None:
            return _json(200, work)
    return reply_of(404, OPENALEX_NOT_FOUND, "text/html")


# ----------------------------------------------------------------------------- the server


class StandIn(ScriptedServer):
    """`with StandIn() as standin:` serves every source's service on 127.0.0.1 at a random port,
    from the recorded world (`world="invented"`: the repository's invented one, worlds.py)."""

    def __init__(self, port: int = 0, world: str = RECORDED):
        self.world = world
        self.index = load_index(world)
        super().__init__(port=port)
        self.counts: Counter[str] = Counter()
        self.zbmath_no_results = 0  # zbMATH Open's "no results" answers (ZBMATH_NO_RESULTS)
        self.failing: dict[str, int] = {}
        self.faults: dict[str, Callable[[Reply], Reply]] = {}
        self.arxiv_url = f"{self.url}/api/query"
        self.s2_url = f"{self.url}/graph/v1"
        self.zbmath_url = f"{self.url}/zbmath/v1"
        self.crossref_url = f"{self.url}/crossref"
        self.openalex_url = f"{self.url}/openalex"
        self.arxiv_src_url = f"{self.url}/src"

    def env(self) -> dict[str, str]:
        return {
            "MATH_ARXIV_API_URL": self.arxiv_url,
            "MATH_S2_API_URL": self.s2_url,
            "MATH_ZBMATH_API_URL": self.zbmath_url,
            "MATH_CROSSREF_API_URL": self.crossref_url,
            "MATH_OPENALEX_API_URL": self.openalex_url,
            "MATH_ARXIV_SRC_URL": self.arxiv_src_url,
        }

    def fail(self, service: str, status: int = 503) -> None:
        """Answer every request to `service` ("arxiv", "s2", "zbmath" or "crossref") with
        `status` from now on."""
        self.failing[service] = status

    def recover(self, service: str) -> None:
        self.failing.pop(service, None)
        self.faults.pop(service, None)

    def corrupt(self, service: str, fault: Callable[[Reply], Reply]) -> None:
        """Pass every answer of `service` ("arxiv", "s2", "zbmath", "crossref") through `fault`: a
        synthesized fault (tests/support/faults.py) applied to what the stand-in would send."""
        self.faults[service] = fault

    def calls(self, service: str) -> int:
        """Requests that reached `service` ("arxiv", "s2", "zbmath", "crossref") so far."""
        return sum(n for name, n in self.counts.items() if name.split()[0] == service)

    def reply_to(self, received: Received) -> Reply:
        reply = self.answer(received.method, received.path, received.body)
        path = urlsplit(received.path).path
        service = next(
            (
                name
                for name, prefix in (
                    ("s2", "/graph/v1/"),
                    ("zbmath", "/zbmath/"),
                    ("openalex", "/openalex/"),
                )
                if prefix in path
            ),
            "crossref" if path.startswith("/crossref/") else "arxiv",
        )
        fault = self.faults.get(service)
        return fault(reply) if fault else reply

    def answer(self, method: str, target: str, body: bytes) -> Reply:
        parts = urlsplit(target)
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        path = parts.path.rstrip("/")
        if path.endswith("/api/query"):
            return self._arxiv(params)
        if path.startswith(("/src/", "/e-print/")):
            return self._arxiv_src(path)
        if "/graph/v1/" in path + "/":
            return self._s2(method, path, params, body, target)
        for service, prefix in (
            ("zbmath", "/zbmath/v1"),
            ("crossref", "/crossref"),
            ("openalex", "/openalex"),
        ):
            if path.startswith(prefix + "/"):
                route = path[len(prefix) :]
                kind = (
                    "list"
                    if route in ("/works", "/document/_search", "/document/_structured_search")
                    else "record"
                )
                self._count(f"{service} {kind}")
                if service in self.failing:
                    status = self.failing[service]
                    return reply_of(
                        status, f"{service} stand-in failing with {status}\n".encode(), "text/plain"
                    )
                if service == "zbmath":
                    reply = _zbmath(self.index, route, params)
                    self.zbmath_no_results += reply.status == 404
                    return reply
                if service == "openalex":
                    return _openalex(self.index, route, params)
                return _crossref(self.index, route, params, target)
        self._count("other")
        return _json(404, {"error": f"the stand-in serves /api/query and /graph/v1, not {path}"})

    def _count(self, endpoint: str) -> None:
        self.counts[endpoint] += 1  # reply_to runs under the server's lock

    def _arxiv(self, params: dict[str, str]) -> Reply:
        endpoint = "arxiv id_list" if params.get("id_list") else "arxiv search"
        self._count(endpoint)
        if "arxiv" in self.failing:
            status = self.failing["arxiv"]
            return reply_of(
                status, f"arXiv stand-in failing with {status}\n".encode(), "text/plain"
            )
        start = int(params.get("start") or 0)
        per_page = int(params.get("max_results") or 10)
        if params.get("id_list"):
            return _arxiv_id_list(self.index, params["id_list"].split(","), start, per_page)
        return _arxiv_search(self.index, params, start, per_page)

    def _arxiv_src(self, path: str) -> Reply:
        from support import arxiv_src

        self._count("arxiv src")
        failing = self.failing.get("arxiv") or self.failing.get("arxiv src")
        if failing:
            status = failing
            return reply_of(
                status, f"arXiv stand-in failing with {status}\n".encode(), "text/plain"
            )
        if self.world == INVENTED:  # a single-file source, gzipped, as arXiv serves one
            asked = re.sub(r"v\d+$", "", path.split("/", 2)[-1])
            source = self.index.latex_sources.get(asked)
            if source is None:
                return reply_of(404, f"No document for '{asked}'\n".encode(), "text/html")
            return reply_of(200, source, "application/gzip")
        return arxiv_src.answer(path)

    def _s2(self, method: str, path: str, params: dict, body: bytes, target: str) -> Reply:
        route = path.split("/graph/v1", 1)[1]
        if method == "POST" and route == "/paper/batch":
            endpoint = "s2 batch"
        elif route in ("/paper/search/match", "/paper/search"):
            endpoint = "s2 " + route.rsplit("/", 1)[1]
        elif route.startswith("/paper/") and not route.endswith(("/citations", "/references")):
            endpoint = "s2 paper"
        else:
            endpoint = "s2 other"
        self._count(endpoint)
        if "s2" in self.failing:
            status = self.failing["s2"]
            failure = self.index.s2_failure_500 if status == 500 else b""
            return reply_of(status, failure or b'{"message": "Service Unavailable"}', "text/json")
        fields = params.get("fields")
        if endpoint == "s2 batch":
            return _s2_batch(self.index, body, fields)
        if endpoint == "s2 match":
            return _s2_match(self.index, params.get("query", ""), fields)
        recorded = self.index.s2_replies.get(("GET", *query_key(target)))
        if recorded is not None:
            return recorded
        if endpoint == "s2 search":
            return _s2_search(self.index, params)
        if endpoint == "s2 paper":
            asked = route[len("/paper/") :]
            record = _s2_resolve(self.index, asked)
            if record is None:
                return _json(404, {"error": f"Paper with id {unquote(asked)} not found"})
            return _json(200, _select(record, fields))
        return _json(404, {"error": "Not found"})


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--port", type=int, default=0, help="port to listen on (0: any free one)")
    parser.add_argument("--fail-arxiv", type=int, metavar="STATUS", help="fail arXiv with STATUS")
    parser.add_argument("--fail-s2", type=int, metavar="STATUS", help="fail S2 with STATUS")
    parser.add_argument("--fail-zbmath", type=int, metavar="STATUS", help="fail zbMATH")
    parser.add_argument("--fail-crossref", type=int, metavar="STATUS", help="fail Crossref")
    parser.add_argument("--fail-openalex", type=int, metavar="STATUS", help="fail OpenAlex")
    parser.add_argument(
        "--world",
        choices=(RECORDED, INVENTED),
        default=RECORDED,
        help="answer from the recordings (../shared) or from the invented world (examples/)",
    )
    args = parser.parse_args(argv)
    try:
        standin = StandIn(args.port, world=args.world)
    except shared.SharedMissing as exc:
        raise SystemExit(f"standin.py: {exc}") from None
    except OSError as exc:  # most often the port is taken (an earlier stand-in still running)
        message = f"standin.py: cannot listen on 127.0.0.1:{args.port}: {exc.strerror}"
        raise SystemExit(message) from None
    for service in ("arxiv", "s2", "zbmath", "crossref", "openalex"):
        if getattr(args, f"fail_{service}"):
            standin.fail(service, getattr(args, f"fail_{service}"))
    index = standin.index
    counts = {
        "arxiv_entries": len(index.arxiv),
        "s2_records": len(index.s2_papers),
        "zbmath_records": len(index.zbmath),
        "crossref_works": len(index.crossref),
        "openalex_works": len(index.openalex_works),
    }
    print(json.dumps({**standin.env(), **counts}), flush=True)
    with standin, contextlib.suppress(KeyboardInterrupt):
        threading.Event().wait()


if __name__ == "__main__":
    from mathtools.core import bootstrap

    bootstrap.ensure()  # pyyaml, for the Semantic Scholar cassettes
    main()

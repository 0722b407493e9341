"""The worlds the stand-in server (standin.py) answers from, each indexed once per process.

- RECORDED, "recorded": the real answers of arXiv, Semantic Scholar, zbMATH Open and Crossref in
  ../shared/recordings (found by support/shared.py, never copied into the repository), with the
  Viterbo sample's arXiv records (examples/viterbo/arxiv-records.xml: facts about five real
  papers, their abstracts read from their recorded sources).
- INVENTED, "invented": examples/invented-world/, papers this repository invented for the demo
  (marked INVENTED in every abstract), so that the demo runs where ../shared is not; the feed
  header and the envelopes around its records are SYNTHESIZED in the shapes the recorded ones
  have.

`load_index(world)` returns a world's `Index`; `world_available(world)` says whether it can load.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit
from xml.sax.saxutils import escape

from support import shared
from support.scripted_server import Reply

ROOT = Path(__file__).resolve().parents[2]
RECORDED = "recorded"
INVENTED = "invented"
RECORDINGS = shared.RECORDINGS  # ../shared/recordings, never copied into the repository
SAMPLE_RECORDS = ROOT / "examples" / "viterbo" / "arxiv-records.xml"
INVENTED_WORLD = ROOT / "examples" / "invented-world"
# The Crossref cassettes indexed: the works the tests were written against (the shared folder
# holds more, whose works would change what a title search returns).
CROSSREF_CASSETTES = (
    "crossref/habanero/test-works/*.yaml",
    "crossref/paper-qa/test_bad_titles.yaml",
    "crossref/paper-qa/test_bulk_doi_search.yaml",
)
ATOM = "{http://www.w3.org/2005/Atom}"
NAMESPACES = (
    'xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"'
)
# SYNTHESIZED shells for the invented world, in the shapes of the recorded ones.
INVENTED_FEED_HEAD = (
    "<?xml version='1.0' encoding='UTF-8'?>\n"
    '<feed xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    'xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns="http://www.w3.org/2005/Atom">\n'
    "  <id>https://arxiv.org/api/invented-world</id>\n"
    "  <title>arXiv Query: the demo's invented world</title>\n"
    "  <updated>2026-04-12T00:00:00Z</updated>\n"
    "  <opensearch:itemsPerPage>10</opensearch:itemsPerPage>\n"
    "  <opensearch:totalResults>0</opensearch:totalResults>\n"
    "  <opensearch:startIndex>0</opensearch:startIndex>\n  "
)
INVENTED_ZBMATH_STATUS = {
    "execution": "successful request",
    "execution_bool": True,
    "internal_code": "ok",
    "last_id": None,
    "nr_total_results": 0,
    "nr_request_results": 0,
    "status_code": 200,
}
INVENTED_CROSSREF_WORK = {"status": "ok", "message-type": "work", "message-version": "1.0.0"}
INVENTED_CROSSREF_LIST = {
    "status": "ok",
    "message-type": "work-list",
    "message-version": "1.0.0",
    "message": {"facets": {}, "total-results": 0, "items": [], "items-per-page": 20},
}


def words(text: str) -> list[str]:
    """Lower-case ASCII words (diacritics dropped): how the stand-in compares text."""
    text = unicodedata.normalize("NFKD", text or "")
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).lower()
    return re.findall(r"[a-z0-9]+", text)


@dataclass
class ArxivEntry:
    arxiv_id: str  # without version
    xml: str  # the <entry> element exactly as recorded
    title: str
    authors: str
    summary: str
    categories: list[str]
    published: str
    updated: str
    synthesized: bool = False  # not recorded: a sample's record or an invented paper


@dataclass
class Index:
    arxiv: dict[str, ArxivEntry] = field(default_factory=dict)
    arxiv_pages: dict[tuple, Reply] = field(default_factory=dict)
    arxiv_feed_head: str = ""  # a recorded feed header, up to the first entry
    arxiv_error: Reply | None = None  # the recorded 400 for a malformed id
    arxiv_error_id: str = ""
    s2_papers: dict[str, dict] = field(default_factory=dict)  # by paperId
    s2_ids: dict[str, str] = field(default_factory=dict)  # "arxiv:x", "doi:x", ... -> paperId
    s2_titles: list[tuple[str, dict]] = field(default_factory=list)  # (folded title, record)
    s2_replies: dict[tuple, Reply] = field(default_factory=dict)  # (method, path, query)
    s2_failure_500: bytes = b""
    zbmath: dict[int, dict] = field(default_factory=dict)  # by internal number
    zbmath_status: dict = field(default_factory=dict)  # a recorded status object
    crossref: dict[str, dict] = field(default_factory=dict)  # works by lower-case DOI
    crossref_replies: dict[tuple, Reply] = field(default_factory=dict)  # (path, query)
    crossref_work_envelope: dict = field(default_factory=dict)  # a recorded /works/{doi} answer
    crossref_list_envelope: dict = field(default_factory=dict)  # a recorded /works list answer
    latex_sources: dict[str, bytes] = field(default_factory=dict)  # invented: id -> gzipped .tex
    # OpenAlex works as refchecker's cache keeps them (whole bodies, transport stripped): by
    # lower-case DOI, and every work in file order (those without a DOI too), for searches
    openalex: dict[str, dict] = field(default_factory=dict)
    openalex_works: list[dict] = field(default_factory=list)


def query_key(url: str) -> tuple:
    """A URL's path and parameters, order-insensitive: how requests are matched to recordings."""
    parts = urlsplit(url)
    return parts.path.rstrip("/"), tuple(sorted(parse_qsl(parts.query, keep_blank_values=True)))


def arxiv_page_key(params: dict[str, str]) -> tuple:
    return (
        params.get("search_query", ""),
        params.get("id_list", ""),
        params.get("start", "0") or "0",
        params.get("max_results", "10") or "10",
    )


def arxiv_entry(raw: str) -> ArxivEntry:
    """One recorded (or synthesized) <entry> element, indexed."""
    entry = ET.fromstring(raw.replace("<entry>", f"<entry {NAMESPACES}>", 1))
    abs_id = entry.findtext(f"{ATOM}id", "")
    return ArxivEntry(
        arxiv_id=re.sub(r"v\d+$", "", abs_id.split("/abs/", 1)[-1]),
        xml=raw,
        title=" ".join(entry.findtext(f"{ATOM}title", "").split()),
        authors=" ".join(a.findtext(f"{ATOM}name", "") for a in entry.iter(f"{ATOM}author")),
        summary=entry.findtext(f"{ATOM}summary", ""),
        categories=[c.get("term", "") for c in entry.iter(f"{ATOM}category")],
        published=entry.findtext(f"{ATOM}published", ""),
        updated=entry.findtext(f"{ATOM}updated", ""),
    )


def _load_arxiv(index: Index) -> None:
    from support.arxiv_recordings import all_recordings, body_of

    # earlier-2026/ first, so that the newer capture of the same page wins.
    for path in sorted(all_recordings(), key=lambda p: (p.parent.name == "arxiv", p)):
        recorded = json.loads(path.read_text(encoding="utf-8"))
        body = body_of(path)
        text = body.decode("utf-8")
        params = dict(parse_qsl(urlsplit(recorded["url"]).query, keep_blank_values=True))
        if recorded["status_code"] != 200:
            index.arxiv_error = reply_of(recorded["status_code"], body, "application/atom+xml")
            index.arxiv_error_id = params.get("id_list", "")
            continue
        if params.get("search_query"):
            index.arxiv_pages[arxiv_page_key(params)] = reply_of(200, body, "application/atom+xml")
        if params.get("id_list") and not index.arxiv_feed_head:
            index.arxiv_feed_head = text.split("<entry>", 1)[0].split("</feed>", 1)[0]
        for raw in re.findall(r"<entry>.*?</entry>", text, flags=re.S):
            entry = arxiv_entry(raw)
            index.arxiv[entry.arxiv_id] = entry


def _load_sample_arxiv(index: Index) -> None:
    """The Viterbo sample's arXiv records (examples/viterbo/arxiv-records.xml): the ids, titles,
    authors and categories of the five papers whose sources ../shared/recordings/arxiv-src holds
    (facts about them), no recording holding their metadata. Their abstracts are not in the
    repository: each is read here from the paper's own recorded source."""
    from support import arxiv_src

    text = SAMPLE_RECORDS.read_text(encoding="utf-8")
    for raw in re.findall(r"<entry>.*?</entry>", text, flags=re.S):
        arxiv_id = re.search(r"/abs/([\d.]+)", raw)
        abstract = arxiv_src.abstract(arxiv_id.group(1)) if arxiv_id else ""
        raw = raw.replace("<summary/>", f"<summary>{escape(abstract)}</summary>")
        entry = arxiv_entry(raw)
        entry.synthesized = True
        index.arxiv.setdefault(entry.arxiv_id, entry)


def _collect_records(value, found: list[dict]) -> None:
    if isinstance(value, dict):
        if "paperId" in value and "title" in value and value["paperId"]:
            found.append({k: v for k, v in value.items() if k != "matchScore"})
        for child in value.values():
            _collect_records(child, found)
    elif isinstance(value, list):
        for child in value:
            _collect_records(child, found)


def _load_s2(index: Index) -> None:
    from support.cassettes import load as load_cassette

    for path in sorted(RECORDINGS.glob("s2/**/*.yaml")):
        for interaction in load_cassette(path):
            status, body = interaction.status, interaction.body
            if interaction.method == "GET":
                content_type = interaction.headers.get("Content-Type", "application/json")
                key = ("GET", *query_key(interaction.uri))
                index.s2_replies.setdefault(key, reply_of(status, body, content_type))
            if status == 500 and not index.s2_failure_500:
                index.s2_failure_500 = body
            if status != 200:
                continue
            try:
                payload = json.loads(body)
            except ValueError:
                continue
            records: list[dict] = []
            _collect_records(payload, records)
            for record in records:
                known = index.s2_papers.get(record["paperId"])
                if known is None or len(record) > len(known):
                    index.s2_papers[record["paperId"]] = record
    _index_s2(index, index.s2_papers)


def _index_s2(index: Index, papers: dict[str, dict]) -> None:
    """Index Semantic Scholar records (by paperId) by title and by every external id."""
    index.s2_papers = papers
    add_s2(index, list(papers.values()))


def add_s2(index: Index, records: list[dict]) -> None:
    """Semantic Scholar records (synthesized ones a bench or test adds) indexed by paperId, by
    title and by every external id."""
    for record in records:
        paper_id = record["paperId"]
        index.s2_papers[paper_id] = record
        index.s2_titles.append((" ".join(words(record["title"])), record))
        index.s2_ids[paper_id.lower()] = paper_id
        for name, value in (record.get("externalIds") or {}).items():
            if value is not None:
                index.s2_ids[f"{name.lower()}:{str(value).lower()}"] = paper_id


def _load_zbmath(index: Index) -> None:
    for path in sorted(RECORDINGS.glob("zbmath/**/*.json")):
        payload = json.loads(json.loads(path.read_text(encoding="utf-8"))["body"])
        if "status" in payload and not index.zbmath_status:
            index.zbmath_status = payload["status"]
        for record in payload["result"]:
            known = index.zbmath.get(record["id"])
            if known is None or len(json.dumps(record)) > len(json.dumps(known)):
                index.zbmath[record["id"]] = record


def _crossref_work(index: Index, work: dict) -> None:
    doi = str(work.get("DOI", "")).lower()
    known = index.crossref.get(doi)
    if doi and (known is None or len(work) > len(known)):
        index.crossref[doi] = work


def _load_crossref(index: Index) -> None:
    from support.cassettes import load as load_cassette

    for path in sorted(p for pattern in CROSSREF_CASSETTES for p in RECORDINGS.glob(pattern)):
        for interaction in load_cassette(path):
            if "api.crossref.org" not in interaction.uri:
                continue
            body = interaction.body
            if body[:2] == b"\x1f\x8b":  # `!!binary` gzip (content-encoding: gzip)
                body = gzip.decompress(body)
            parts = urlsplit(interaction.uri)
            path_key = unquote(parts.path).lower().removeprefix("/v1")
            query = tuple(sorted((k, v) for k, v in parse_qsl(parts.query) if k != "mailto"))
            content_type = "application/json" if body[:1] == b"{" else "text/plain"
            if interaction.status != 200 or path_key.startswith("/works"):
                index.crossref_replies.setdefault(
                    (path_key, query), reply_of(interaction.status, body, content_type)
                )
            if interaction.status != 200 or body[:1] != b"{":
                continue
            payload = json.loads(body)
            message = payload.get("message")
            if payload.get("message-type") == "work" and isinstance(message, dict):
                index.crossref_work_envelope = index.crossref_work_envelope or payload
                _crossref_work(index, message)
            elif payload.get("message-type") == "work-list" and isinstance(message, dict):
                index.crossref_list_envelope = index.crossref_list_envelope or payload
                for item in message.get("items") or []:
                    _crossref_work(index, item)
    for path in sorted(RECORDINGS.glob("crossref/refchecker-items/*.json")):
        if path.name == "index.json":
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        for work in data if isinstance(data, list) else [data]:
            _crossref_work(index, work)


def _load_openalex(index: Index) -> None:
    """Every work of recordings/openalex/refchecker/api_cache/ (a search's `results` list, or one
    work of a /works/doi: answer); the richest record of a DOI (most fields) wins."""
    for path in sorted(RECORDINGS.glob("openalex/refchecker/api_cache/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        for work in data if isinstance(data, list) else [data]:
            if not isinstance(work, dict):
                continue
            index.openalex_works.append(work)
            doi = str(work.get("doi") or "").lower().removeprefix("https://doi.org/")
            if doi and len(work) > len(index.openalex.get(doi, {})):
                index.openalex[doi] = work


@functools.cache
def load_index(world: str = RECORDED) -> Index:
    """The world's index, built once per process. RECORDED: every recorded arXiv entry, S2,
    zbMATH and Crossref record; without ../shared/recordings a test skips (anything else gets
    SharedMissing). INVENTED: examples/invented-world/ alone."""
    if world == INVENTED:
        return _invented_index()
    if world != RECORDED:
        raise ValueError(f"no world {world!r}: {RECORDED} or {INVENTED}")
    shared.require("recordings")
    index = Index()
    _load_arxiv(index)
    _load_sample_arxiv(index)
    _load_s2(index)
    _load_zbmath(index)
    _load_crossref(index)
    _load_openalex(index)
    return index


def reply_of(status: int, body: bytes, content_type: str) -> Reply:
    return Reply(status, body, {"Content-Type": content_type})


def world_available(world: str) -> bool:
    """Can `world` load here? The recorded one needs ../shared/recordings."""
    return world == INVENTED or shared.present("recordings")


def _invented_index() -> Index:
    """examples/invented-world/: its arXiv entries, Semantic Scholar records and sources."""
    index = Index(
        arxiv_feed_head=INVENTED_FEED_HEAD,
        zbmath_status=dict(INVENTED_ZBMATH_STATUS),
        crossref_work_envelope=dict(INVENTED_CROSSREF_WORK),
        crossref_list_envelope=json.loads(json.dumps(INVENTED_CROSSREF_LIST)),
    )
    text = (INVENTED_WORLD / "arxiv.xml").read_text(encoding="utf-8")
    for raw in re.findall(r"<entry>.*?</entry>", text, flags=re.S):
        entry = arxiv_entry(raw)
        entry.synthesized = True
        index.arxiv[entry.arxiv_id] = entry
    records = json.loads((INVENTED_WORLD / "semantic-scholar.json").read_text(encoding="utf-8"))
    _index_s2(index, {record["paperId"]: record for record in records})
    for path in sorted((INVENTED_WORLD / "sources").glob("*.tex")):
        index.latex_sources[path.stem] = gzip.compress(path.read_bytes(), mtime=0)
    return index

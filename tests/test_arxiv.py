"""The arXiv client: ids, queries, parsing every real recording, paging, look-ups and retries.

Recorded answers are served by a local ScriptedServer; cases no recording covers (a 2,000-entry
page, links without rel/title, truncated or HTML answers) are synthesized and say so.
"""

from __future__ import annotations

import re

import pytest
from conftest import PLUGIN
from mathtools.core import domains, schemas
from mathtools.core.errors import BadInput, ServiceError
from mathtools.core.identifiers import normalise_arxiv_id
from mathtools.services.arxiv import ID_CHUNK, URL_SAFE, ArxivClient, build_query
from mathtools.services.arxivrecords import MalformedFeed, parse_feed
from mathtools.services.http import RequestRejected, build_url
from support.arxiv_recordings import (
    ATOM_TYPE,
    all_recordings,
    body,
    body_of,
    load,
    query_params,
    reply,
)
from support.scripted_server import Reply, ScriptedServer

EMPTY = "id_0808.05394_s0"  # a real answer with no entries (totalResults 0)


@pytest.fixture
def arxiv_server(monkeypatch):
    """Start a ScriptedServer with the given replies and point MATH_ARXIV_API_URL at it."""
    servers = []

    def start(*replies, default=None):
        server = ScriptedServer(replies, default=default).__enter__()
        servers.append(server)
        monkeypatch.setenv("MATH_ARXIV_API_URL", f"{server.url}/api/query")
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


# --- ids -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2104.12255", ("2104.12255", None)),
        ("2104.12255v1", ("2104.12255", 1)),
        ("  arXiv:2104.12255v12 ", ("2104.12255", 12)),
        ("ARXIV:1605.08386", ("1605.08386", None)),
        ("0808.0539", ("0808.0539", None)),
        ("https://arxiv.org/abs/2104.12255v1", ("2104.12255", 1)),
        ("http://export.arxiv.org/abs/2104.12255/", ("2104.12255", None)),
        ("https://arxiv.org/pdf/2104.12255v2.pdf", ("2104.12255", 2)),
        ("arxiv.org/pdf/2104.12255", ("2104.12255", None)),
        ("10.48550/arXiv.2104.12255", ("2104.12255", None)),
        ("https://doi.org/10.48550/arXiv.2104.12255", ("2104.12255", None)),
        ("math/0601001", ("math/0601001", None)),
        ("math.AG/0601001", ("math/0601001", None)),
        ("arXiv:math.AG/0601001v2", ("math/0601001", 2)),
        ("cond-mat/0207270v1", ("cond-mat/0207270", 1)),
        ("https://arxiv.org/abs/hep-th/9901001", ("hep-th/9901001", None)),
    ],
)
def test_normalise_arxiv_id_accepts_every_common_form(text, expected):
    assert normalise_arxiv_id(text) == expected


@pytest.mark.parametrize(
    "text",
    ["abc", "", "2104.123", "2104.123456", "math/060100", "10.1000/xyz.2104.12255",
     "https://example.org/abs/2104.12255", "2104.12255v", "math.AG.0601001"],
)  # fmt: skip
def test_normalise_arxiv_id_rejects_and_names_the_bad_id(text):
    with pytest.raises(BadInput) as caught:
        normalise_arxiv_id(text)
    assert caught.value.code == "bad_id"
    assert repr(text.strip()) in caught.value.message


# --- queries -------------------------------------------------------------------------------------


def encoded(query: str) -> str:
    """The search_query exactly as it appears in our request URL."""
    return build_url("", {"search_query": query}, safe=URL_SAFE).removeprefix("?search_query=")


@pytest.mark.parametrize(
    ("query", "manual_url"),
    [  # the manual's own examples (section 5.1), compared character for character
        (build_query(author=["del_maestro"]), "au:del_maestro"),
        (
            build_query(author=["del_maestro"], title=["checkerboard"]),
            "ti:checkerboard+AND+au:del_maestro",
        ),
        (
            build_query(raw="au:del_maestro ANDNOT (ti:checkerboard OR ti:Pyrochlore)"),
            "au:del_maestro+ANDNOT+%28ti:checkerboard+OR+ti:Pyrochlore%29",
        ),
        (
            build_query(author=["del_maestro"], title=["quantum criticality"]),
            "ti:%22quantum+criticality%22+AND+au:del_maestro",
        ),
        (
            build_query(author=["del_maestro"], submitted="202301010600..202401010600"),
            "au:del_maestro+AND+submittedDate:[202301010600+TO+202401010600]",
        ),
    ],
)
def test_queries_are_encoded_as_the_manual_writes_them(query, manual_url):
    assert encoded(query) == manual_url


# The literature protocol's section 5 table (seeds/001_*.txt), written out by hand so that a wrong
# category in domains.py fails here: domain -> (primary, secondary).
PROTOCOL_DOMAINS = {
    "algebra": ("math.RA, math.GR, math.AC", "math.RT, math.CT"),
    "analysis": ("math.FA, math.CA, math.CV", "math.AP, math.SP, math.OA"),
    "topology": ("math.AT, math.GN, math.GT", "math.DG, math.KT"),
    "number-theory": ("math.NT", "math.AG, math.CO"),
    "combinatorics": ("math.CO", "math.PR, math.RT"),
    "algebraic-geometry": ("math.AG", "math.AC, math.CT, math.KT"),
    "differential-geometry": ("math.DG", "math.AP, math.SG, math.MG"),
    "probability": ("math.PR", "math.FA, math.ST, math.DS"),
    "logic": ("math.LO", "math.CT, math.GN"),
    # Issue 19: where much of mathematics now lives.
    "theoretical-computer-science": ("cs.DS, cs.CC, cs.DM, cs.IT", "cs.LO, cs.GT, math.CO"),
    "statistics": ("math.ST, stat.TH", "stat.ME, stat.ML, math.PR"),
    "mathematical-physics": ("math-ph, math.MP", "math.AP, math.SP, quant-ph"),
    "numerical-analysis": ("math.NA, cs.NA", "math.AP, math.OC"),
    "optimization-control": ("math.OC", "math.NA, cs.SY, math.AP"),
    "dynamical-systems": ("math.DS", "nlin.CD, math.CA, math.PR"),
    "information-theory": ("cs.IT, math.IT", "math.PR, math.ST, math.CO"),
    # Issue 55: analysis of PDEs.
    "partial-differential-equations": ("math.AP", "math.FA, math.CA, math.DG, math-ph"),
}


def test_the_domain_map_is_the_protocols_table():
    assert list(domains.DOMAINS) == list(PROTOCOL_DOMAINS)
    for domain, (primary, secondary) in PROTOCOL_DOMAINS.items():
        assert domains.DOMAINS[domain] == (tuple(primary.split(", ")), tuple(secondary.split(", ")))
    doc = (PLUGIN / "protocols" / "literature-protocol.md").read_text(encoding="utf-8")
    for domain, (primary, secondary) in PROTOCOL_DOMAINS.items():
        assert f"| `{domain}` | {primary} | {secondary} |" in doc


@pytest.mark.parametrize("domain", list(PROTOCOL_DOMAINS))
@pytest.mark.parametrize("secondary", [False, True])
def test_every_domain_becomes_its_categories_ored_in_parentheses(domain, secondary):
    primary, extra = PROTOCOL_DOMAINS[domain]
    cats = primary.split(", ") + (extra.split(", ") if secondary else [])
    query = build_query(title=["graph"], categories=domains.categories(domain, secondary))
    if len(cats) == 1:
        assert query == f"ti:graph AND cat:{cats[0]}"
    else:
        assert query == "ti:graph AND (" + " OR ".join(f"cat:{c}" for c in cats) + ")"
        assert encoded(query) == "ti:graph+AND+%28" + "+OR+".join(f"cat:{c}" for c in cats) + "%29"


def test_number_theory_with_secondary_is_the_protocol_map():
    query = build_query(categories=domains.categories("number-theory", secondary=True))
    assert query == "(cat:math.NT OR cat:math.AG OR cat:math.CO)"
    assert encoded(query) == "%28cat:math.NT+OR+cat:math.AG+OR+cat:math.CO%29"


def test_phrases_are_quoted_terms_anded_and_raw_syntax_grouped():
    query = build_query(
        raw="ti:graph OR ti:tree",
        title=['heat-bath  "random walk"'],
        abstract=["Markov bases"],
        author=["Windisch"],
        all_terms=["expander"],
        categories=["math.CO", "math.ST", "math.CO"],
    )
    assert query == (
        '(ti:graph OR ti:tree) AND ti:"heat-bath random walk" AND abs:"Markov bases" AND '
        "au:Windisch AND all:expander AND (cat:math.CO OR cat:math.ST)"
    )
    assert "%22heat-bath+random+walk%22" in encoded(query)


def test_characters_with_meaning_in_a_url_are_percent_encoded():
    assert encoded(build_query(all_terms=["R&D #1 50%"])) == "all:%22R%26D+%231+50%25%22"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("2020..2024-06", "submittedDate:[202001010000 TO 202406302359]"),
        ("..2019-12-31", "submittedDate:[199101010000 TO 201912312359]"),
        ("2024-02..2024-02", "submittedDate:[202402010000 TO 202402292359]"),
        ("20230101..", "submittedDate:[202301010000 TO 299912312359]"),
        (("2023-05-06", "2023-05-07"), "submittedDate:[202305060000 TO 202305072359]"),
    ],
)
def test_submitted_ranges_are_inclusive(spec, expected):
    assert build_query(submitted=spec) == expected


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({}, "no_query"),
        ({"title": ["  "]}, "bad_query"),
        ({"categories": ["math AG"]}, "bad_category"),
        ({"submitted": "2020"}, "bad_date"),
        ({"submitted": "2020-13..2021"}, "bad_date"),
        ({"submitted": "yesterday..today"}, "bad_date"),
        ({"submitted": "2024..2020"}, "bad_date"),
        ({"submitted": "2024-02-31..2024-03"}, "bad_date"),
        ({"submitted": "2023-02-29.."}, "bad_date"),
        ({"submitted": "..2024-04-31"}, "bad_date"),
        ({"submitted": "202401012561..202402"}, "bad_date"),
    ],
)
def test_bad_query_parts_are_bad_input(kwargs, code):
    with pytest.raises(BadInput) as caught:
        build_query(**kwargs)
    assert caught.value.code == code


# --- parsing every recording ---------------------------------------------------------------------


@pytest.mark.needs_shared("recordings")  # else pytest's "empty parameter set" skip, uncounted
@pytest.mark.parametrize(
    "path", all_recordings(), ids=lambda p: p.relative_to(p.parents[1]).as_posix()
)
def test_every_recording_parses_like_the_arxiv_package_does(path):
    """Cross-check against an independent parser (arxiv 4.x) on the very same bytes."""
    arxiv_feed = pytest.importorskip("arxiv._feed")
    content = body_of(path)
    if b"<title>Error</title>" in content:
        with pytest.raises(RequestRejected):
            parse_feed(content)
        return
    total, papers = parse_feed(content)
    theirs = arxiv_feed.parse(content)
    assert total == theirs.header.total_results
    assert len(papers) == len(theirs.results)
    for ours, their in zip(papers, theirs.results, strict=True):
        version = f"v{ours.arxiv_version}" if ours.arxiv_version else ""
        assert their.get_short_id() == ours.arxiv_id + version
        assert ours.title == " ".join(their.title.split())
        assert ours.abstract == " ".join(their.summary.split())
        assert ours.authors == [a.name for a in their.authors]
        assert ours.affiliations == [a.affiliation for a in their.authors]
        assert ours.categories == their.categories
        assert ours.primary_category == their.primary_category
        assert ours.doi == (their.doi.lower() if their.doi else None)
        assert ours.journal_ref == their.journal_ref
        assert ours.comment == (" ".join(their.comment.split()) if their.comment else None)
        assert ours.published[:19] == their.published.isoformat()[:19]
        assert ours.year == their.published.year
        assert ours.pdf_url == their.pdf_url
        assert not schemas.schema_errors("paper", ours.to_dict())


def test_recordings_are_read_as_utf8_not_latin1_mojibake():
    _, [paper] = parse_feed(body("id_1707.08567_"))
    assert "Dirk Wübben" in paper.authors
    assert not any("Ã" in name for name in paper.authors)


def test_the_34_author_entry_keeps_every_author_in_order():
    _, [paper] = parse_feed(body("id_1707.08567_"))
    assert len(paper.authors) == 34
    assert paper.authors[:2] == ["Kees A. Schouhamer Immink", "Stan Baggen"]
    assert paper.authors[-1] == "Hirosuke Yamamoto"
    assert paper.affiliations == [[] for _ in range(34)]


def test_old_style_id_with_affiliations_and_journal_ref():
    total, [paper] = parse_feed(body("id_astro-ph_0601001_"))
    assert total == 1
    assert (paper.arxiv_id, paper.arxiv_version, paper.key) == (
        "astro-ph/0601001",
        1,
        "arXiv:astro-ph/0601001",
    )
    assert paper.authors == ["Andrew Gould", "Susan Dorsher", "B. Scott Gaudi", "Andrzej Udalski"]
    assert paper.affiliations == [
        ["Ohio State"],
        ["Ohio State"],
        ["CfA"],
        ["Warsaw University Observatory"],
    ]
    assert paper.journal_ref == "ActaAstron.56:1-50,2006"
    # the journal reference read as venue, volume and pages (mathtools.core.venues.venue_parts)
    assert (paper.venue, paper.volume, paper.pages) == ("ActaAstron.", "56", "1-50")
    assert paper.venue_aliases == ["ActaAstron.56:1-50,2006"]
    assert paper.comment.startswith("62 pages including 16 figures")
    assert (paper.primary_category, paper.categories) == ("astro-ph", ["astro-ph"])
    assert (paper.published, paper.updated, paper.year) == (
        "2006-01-02T14:57:58Z",
        "2006-01-02T14:57:58Z",
        2006,
    )
    assert paper.url == "https://arxiv.org/abs/astro-ph/0601001v1"
    assert paper.pdf_url == "https://arxiv.org/pdf/astro-ph/0601001v1"


def test_whitespace_is_normalised_and_latex_kept():
    _, papers = parse_feed(body("q_testing_s0_m100_"))
    breaks = re.findall(rb"<summary>[^<]*\n[^<]*</summary>", body("q_testing_s0_m100_"))
    assert breaks, "the recording has summaries with line breaks"
    for paper in papers:
        assert "\n" not in paper.abstract and "  " not in paper.abstract
        assert paper.abstract == paper.abstract.strip()
    latex = next(p for p in papers if p.arxiv_id == "2403.16981")
    assert "$p$ and $q$" in latex.abstract
    assert r"i.i.d.\ samples" in latex.abstract
    with_doi = next(p for p in papers if p.arxiv_id == "2202.12139")
    assert with_doi.doi == "10.1109/icstw55395.2022.00035"


def test_links_without_rel_or_title_still_give_abs_and_pdf_urls():
    """Synthesized from a recording: links as arXiv sent them in late 2025 (no rel, no title)."""
    stripped = re.sub(rb' (rel|title|type)="[^"]*"', b"", body("id_1605.08386_"))
    assert b'rel="' not in stripped
    _, [paper] = parse_feed(stripped)
    assert paper.url == "https://arxiv.org/abs/1605.08386v1"
    assert paper.pdf_url == "https://arxiv.org/pdf/1605.08386v1"


def test_urls_are_built_from_the_id_when_links_are_missing():
    """Synthesized from a recording: every <link> removed."""
    stripped = re.sub(rb"<link [^>]*/>", b"", body("id_quant-ph_0201082v1_"))
    _, [paper] = parse_feed(stripped)
    assert paper.url == "https://arxiv.org/abs/quant-ph/0201082v1"
    assert paper.pdf_url == "https://arxiv.org/pdf/quant-ph/0201082v1"


def test_error_entry_is_bad_input_naming_the_id():
    with pytest.raises(RequestRejected) as caught:
        parse_feed(body("id_abc_"))
    assert caught.value.code == "bad_id" and caught.value.exit_code == 2
    assert "'abc'" in caught.value.message


@pytest.mark.parametrize(
    "content",
    [
        lambda: body("id_1605.08386_")[:700],  # read when the test runs: it may skip
        lambda: b"<html><body><h1>503 Service Unavailable</h1></body></html>",
        lambda: b"",
        lambda: b'<?xml version="1.0"?><rss/>',
    ],
    ids=["truncated", "html", "empty", "not-atom"],
)
def test_what_is_not_a_feed_is_malformed(content):
    """Synthesized: bodies arXiv's proxies send when things go wrong."""
    with pytest.raises(MalformedFeed):
        parse_feed(content())


# --- look-ups by id ----------------------------------------------------------------------------

ONE_ID_RECORDINGS = [
    ("1605.08386", "id_1605.08386_", []),
    ("arXiv:1707.08567", "id_1707.08567_", []),
    ("https://arxiv.org/abs/2104.12255v1", "id_2104.12255v1_", []),
    ("astro-ph/0601001", "id_astro-ph_0601001_", []),
    ("quant-ph/0201082v1", "id_quant-ph_0201082v1_", []),
    ("hep-ex/0406020v1", "earlier-2026/id_hep-ex_0406020v1_", []),
    ("0000.0000", "id_0000.0000_", ["0000.0000"]),
    ("10.48550/arXiv.0808.05394", "id_0808.05394_s0", ["0808.05394"]),
]


@pytest.mark.parametrize(("asked", "recording", "not_found"), ONE_ID_RECORDINGS)
def test_fetch_ids_replays_each_recorded_look_up(arxiv_server, asked, recording, not_found):
    server = arxiv_server(reply(recording))
    client = ArxivClient()
    result = client.fetch_ids([asked])
    [request] = server.received
    sent = query_params(request.path)
    assert sent["id_list"] == query_params(load(recording)["url"])["id_list"]
    assert sent["max_results"] == "1"  # without it arXiv returns at most 10
    assert result.not_found == not_found
    assert len(result.papers) == 1 - len(not_found)
    assert client.network_calls == 1
    data = result.to_dict()
    assert not schemas.schema_errors("search_result", data)
    assert data["request_url"].endswith(request.path)


def test_an_id_arxiv_silently_dropped_is_not_found(arxiv_server):
    server = arxiv_server(reply("id_0808.05394_1707.08567_"))
    result = ArxivClient().fetch_ids(["0808.05394", "arXiv:1707.08567v1"])
    assert query_params(server.received[0].path)["id_list"] == "0808.05394,1707.08567v1"
    assert [p.key for p in result.papers] == ["arXiv:1707.08567"]
    assert result.not_found == ["0808.05394"]
    assert result.summary_lines()[-1] == "not found: 0808.05394"


def test_a_version_is_found_only_when_that_version_came_back(arxiv_server):
    """The recorded 2104.12255v1 answer served for a request of v2 and of the bare id."""
    arxiv_server(reply("id_2104.12255v1_"))
    assert ArxivClient().fetch_ids(["2104.12255v2"]).not_found == ["2104.12255v2"]
    arxiv_server(reply("id_2104.12255v1_"))
    assert ArxivClient(use_cache=False).fetch_ids(["2104.12255"]).not_found == []


def test_ids_are_normalised_and_deduplicated_before_asking(arxiv_server):
    server = arxiv_server(reply("id_2104.12255v1_"))
    same = ["2104.12255v1", "arXiv:2104.12255v1", "https://arxiv.org/pdf/2104.12255v1.pdf"]
    result = ArxivClient().fetch_ids(same)
    assert query_params(server.received[0].path)["id_list"] == "2104.12255v1"
    assert len(result.papers) == 1


def test_a_bad_id_is_refused_before_any_request(arxiv_server):
    server = arxiv_server()
    client = ArxivClient()
    with pytest.raises(BadInput) as caught:
        client.fetch_ids(["1605.08386", "abc"])
    assert caught.value.code == "bad_id" and "'abc'" in caught.value.message
    assert server.received == [] and client.network_calls == 0


def test_http_400_error_entry_is_bad_input_naming_the_id(arxiv_server):
    """The recorded 400 answer for id_list=abc, served for an id our normaliser lets through."""
    server = arxiv_server(reply("id_abc_"))
    with pytest.raises(RequestRejected) as caught:
        ArxivClient().fetch_ids(["1234.12345"])
    assert caught.value.code == "bad_id" and caught.value.exit_code == 2
    assert "'abc'" in caught.value.message
    assert len(server.received) == 1  # a 400 is not retried


def test_long_id_lists_are_split_into_short_urls(arxiv_server):
    """250 synthesized ids, each answered by the real empty feed: three calls of <= ID_CHUNK."""
    server = arxiv_server(default=reply(EMPTY))
    ids = [f"2101.{n:05d}" for n in range(250)]
    result = ArxivClient().fetch_ids(ids)
    sizes = [len(query_params(r.path)["id_list"].split(",")) for r in server.received]
    assert sizes == [ID_CHUNK, ID_CHUNK, 250 - 2 * ID_CHUNK]
    assert [query_params(r.path)["max_results"] for r in server.received] == ["100", "100", "50"]
    assert max(len(url) for url in result.request_urls) < 2500
    assert result.not_found == ids


# --- search and paging ---------------------------------------------------------------------------


def test_search_request_matches_the_recorded_request(arxiv_server):
    server = arxiv_server(reply("q_testing_s5_m10_"))
    result = ArxivClient().search("testing", start=5, max_results=10)
    sent = query_params(server.received[0].path)
    recorded = query_params(load("q_testing_s5_m10_")["url"])
    for name in ("search_query", "start", "max_results", "sortBy", "sortOrder"):
        assert sent[name] == recorded[name]
    assert result.total_results == 214881
    assert len(result.papers) == 10
    assert not schemas.schema_errors("search_result", result.to_dict())


def test_paging_over_recorded_pages_gives_the_same_papers_as_one_big_page(arxiv_server):
    pages = [reply(f"q_testing_s{start}_m10_") for start in (0, 10, 20, 30, 40, 50)]
    server = arxiv_server(*pages)
    client = ArxivClient()
    client.page_size = 10
    result = client.search("testing", max_results=60)
    _, big_page = parse_feed(body("q_testing_s0_m100_"))
    assert [p.arxiv_id for p in result.papers] == [p.arxiv_id for p in big_page[:60]]
    starts = [query_params(r.path)["start"] for r in server.received]
    assert starts == ["0", "10", "20", "30", "40", "50"]
    assert len(result.request_urls) == 6 and client.network_calls == 6


def test_overlapping_recorded_pages_agree(arxiv_server):
    arxiv_server(reply("q_testing_s5_m15_"), reply("q_testing_s9_m15_"))
    client = ArxivClient()
    first = client.search("testing", start=5, max_results=15)
    second = client.search("testing", start=9, max_results=15)
    assert [p.arxiv_id for p in first.papers[4:]] == [p.arxiv_id for p in second.papers[:11]]


def test_a_transiently_empty_page_is_asked_again(arxiv_server, capsys, monkeypatch):
    """The real empty feed stands in for arXiv's known empty deep page."""
    monkeypatch.setenv("MATH_HTTP_BACKOFF", "0.1")  # long enough to be announced
    pages = reply("q_testing_s0_m10_"), reply(EMPTY), reply("q_testing_s10_m10_")
    server = arxiv_server(*pages)
    client = ArxivClient()
    client.page_size = 10
    result = client.search("testing", max_results=20)
    assert len(result.papers) == 20
    assert [query_params(r.path)["start"] for r in server.received] == ["0", "10", "10"]
    assert "empty page" in capsys.readouterr().err


def test_an_empty_page_is_believed_after_the_retries(arxiv_server):
    server = arxiv_server(reply("q_testing_s0_m10_"), default=reply(EMPTY))
    client = ArxivClient()
    client.page_size = 10
    result = client.search("testing", max_results=30)
    assert len(result.papers) == 10
    assert len(server.received) == 4  # the first page, then the empty one three times


def test_an_empty_page_believed_after_the_retries_is_not_cached(arxiv_server):
    """A later search asks the deep page again instead of being served the empty one for a day."""
    empty = [reply(EMPTY)] * 3
    server = arxiv_server(reply("q_testing_s0_m10_"), *empty, reply("q_testing_s10_m10_"))
    client = ArxivClient()
    client.page_size = 10
    assert len(client.search("testing", max_results=20).papers) == 10
    again = ArxivClient()
    again.page_size = 10
    assert len(again.search("testing", max_results=20).papers) == 20
    starts = [query_params(r.path)["start"] for r in server.received]
    assert starts == ["0", "10", "10", "10", "10"]  # the later search found page 0 in the cache


def test_empty_page_retries_do_not_spend_the_http_retries(arxiv_server, monkeypatch):
    """With MATH_HTTP_RETRIES=0 a genuinely empty deep page is still asked again, then believed."""
    monkeypatch.setenv("MATH_HTTP_RETRIES", "0")
    server = arxiv_server(reply("q_testing_s0_m10_"), default=reply(EMPTY))
    client = ArxivClient()
    client.page_size = 10
    result = client.search("testing", max_results=30)
    assert len(result.papers) == 10
    assert len(server.received) == 4


def synthesized_feed(start: int, count: int, total: int) -> bytes:
    """A feed of `count` distinct entries cloned from a real one (for pages no recording has)."""
    real = body("id_1605.08386_").decode()
    head, rest = real.split("<entry>", 1)
    entry, tail = rest.split("</entry>", 1)
    head = head.replace("<opensearch:totalResults>1<", f"<opensearch:totalResults>{total}<")
    entries = "".join(
        "<entry>" + entry.replace("1605.08386", f"2001.{start + n:05d}") + "</entry>"
        for n in range(count)
    )
    return (head + entries + tail).encode()


def test_search_pages_2000_a_call_past_2000_results(arxiv_server):
    """Synthesized pages of 2,000 and 500 entries: no recording is that large."""
    server = arxiv_server(
        Reply(200, synthesized_feed(0, 2000, 9000), ATOM_TYPE),
        Reply(200, synthesized_feed(2000, 500, 9000), ATOM_TYPE),
    )
    result = ArxivClient().search("cat:math.CO", max_results=2500)
    sent = [query_params(r.path) for r in server.received]
    assert [(s["start"], s["max_results"]) for s in sent] == [("0", "2000"), ("2000", "500")]
    assert len(result.papers) == 2500 and result.total_results == 9000
    assert len({p.arxiv_id for p in result.papers}) == 2500


def test_paging_stops_at_the_total(arxiv_server):
    server = arxiv_server(Reply(200, synthesized_feed(0, 3, 3), ATOM_TYPE))
    result = ArxivClient().search("ti:rare", max_results=50)
    assert len(result.papers) == 3 and len(server.received) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_results": 30001},
        {"max_results": 0},
        {"start": -1},
        {"start": 29995, "max_results": 10},
        {"start": 30000, "max_results": 1},
        {"sort": "date"},
        {"order": "up"},
    ],
)
def test_search_arguments_outside_arxivs_limits_are_bad_input(arxiv_server, kwargs):
    server = arxiv_server()
    with pytest.raises(BadInput):
        ArxivClient().search("all:testing", **kwargs)
    assert server.received == []


# --- what goes wrong on the wire (synthesized) ---------------------------------------------------

HTML_TYPE = {"Content-Type": "text/html"}


@pytest.mark.parametrize(
    "bad",
    [
        lambda: Reply(200, "<html><body>Rate exceeded.</body></html>", HTML_TYPE),
        lambda: Reply(503, "<html><body>Service Unavailable</body></html>", HTML_TYPE),
        lambda: Reply(200, body("id_1605.08386_"), ATOM_TYPE, truncate_to=900),
        lambda: Reply(200, body("id_1605.08386_")[:900], ATOM_TYPE),
        lambda: Reply(429, "Too Many Requests"),
    ],
    ids=["html-200", "html-503", "cut-connection", "truncated-xml", "429"],
)
def test_unusable_answers_are_retried_then_the_real_one_is_used(arxiv_server, bad):
    """Synthesized failures, each followed by the recorded good answer (read when the test
    runs, so that it skips without the shared recordings)."""
    server = arxiv_server(bad(), reply("id_1605.08386_"))
    client = ArxivClient()
    result = client.fetch_ids(["1605.08386"])
    assert [p.key for p in result.papers] == ["arXiv:1605.08386"]
    assert len(server.received) == 2 and client.network_calls == 2


def test_persistent_failure_is_a_service_error(arxiv_server, monkeypatch):
    """Synthesized: arXiv answers 503 every time."""
    monkeypatch.setenv("MATH_HTTP_RETRIES", "2")
    server = arxiv_server(default=Reply(503, "down"))
    with pytest.raises(ServiceError) as caught:
        ArxivClient().fetch_ids(["1605.08386"])
    assert caught.value.code == "service_unavailable"
    assert len(server.received) == 3


def test_a_404_is_a_service_error_without_retries(arxiv_server):
    """Synthesized: a wrong MATH_ARXIV_API_URL path."""
    server = arxiv_server(default=Reply(404, "not here"))
    with pytest.raises(ServiceError):
        ArxivClient().search("all:testing")
    assert len(server.received) == 1


def test_a_cached_answer_costs_no_request(arxiv_server):
    server = arxiv_server(reply("q_testing_s0_m10_"))
    first = ArxivClient().search("testing")
    again = ArxivClient()
    second = again.search("testing")
    assert len(server.received) == 1 and again.network_calls == 0
    assert second.to_dict() == first.to_dict()
    arxiv_server(reply("q_testing_s0_m10_"))
    fresh = ArxivClient(use_cache=False)
    fresh.search("testing")
    assert fresh.network_calls == 1

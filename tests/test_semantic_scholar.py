"""mathtools.services.semantic_scholar against every recorded Semantic Scholar interaction.

Each replay serves a cassette from ../shared/recordings/s2/ through a local server, checks that the
client sent the recorded request (tests/support/cassettes.py: `mismatches`) and asserts on the
mapped result. Tests whose answers are not from a recording say "synthesized".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RECORDINGS
from mathtools.core import schemas
from mathtools.core.errors import BadInput, ServiceError
from mathtools.services.http import RequestRejected
from mathtools.services.s2records import s2_id, to_paper
from mathtools.services.semantic_scholar import DEFAULT_FIELDS, S2Client

from tests.support.cassettes import BASE_PATH, load, mismatches, serving_s2
from tests.support.scripted_server import Reply

S2 = RECORDINGS / "s2"
BULK_IGNORED = ("fields", "offset", "limit")  # the recording client sent offset/limit to bulk
# search and dropped fields after the first page; neither changes the answer.


@pytest.fixture
def serve(monkeypatch):
    """serve(interactions or replies) -> a running server the S2 client and scripts reach."""
    return lambda items: serving_s2(items, monkeypatch)


def valid(result) -> dict:
    data = result.to_dict()
    assert schemas.schema_errors("search_result", data) == []
    return data


@pytest.mark.needs_shared("recordings")
def test_every_recording_is_replayed_here():
    """A cassette in ../shared/recordings/s2/ must get a replay test here or in the script's."""
    here = Path(__file__).parent
    source = "".join(
        (here / n).read_text() for n in ("test_semantic_scholar.py", "test_s2_lookup.py")
    )
    for path in sorted(S2.rglob("*.yaml")):
        name = path.relative_to(S2).as_posix()
        assert f'"{name}"' in source, f"{name} is not replayed"
        assert all(i.status >= 200 for i in load(path))


# -- ids ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("ARXIV:2104.12255", "ARXIV:2104.12255"),
        ("arXiv:2104.12255v1", "ARXIV:2104.12255"),
        ("2104.12255", "ARXIV:2104.12255"),
        ("2104.12255v3", "ARXIV:2104.12255"),
        ("math/0601001", "ARXIV:math/0601001"),
        ("astro-ph/0601001v2", "ARXIV:astro-ph/0601001"),
        ("https://arxiv.org/abs/1707.08567v2", "ARXIV:1707.08567"),
        ("10.1093/mind/lix.236.433", "DOI:10.1093/mind/lix.236.433"),
        ("doi:10.2139/ssrn.2250500", "DOI:10.2139/ssrn.2250500"),
        ("https://doi.org/10.1093/mind/LIX.236.433", "DOI:10.1093/mind/LIX.236.433"),
        ("CorpusID:14514057", "CorpusId:14514057"),
        ("corpusid:470667", "CorpusId:470667"),
        ("MAG:2096684396", "MAG:2096684396"),
        ("PMID:19872477", "PMID:19872477"),
        (
            "URL:https://www.semanticscholar.org/paper/x",
            "URL:https://www.semanticscholar.org/paper/x",
        ),
        ("  0F40B1F08821E22E859C6050916CEC3667778613 ", "0f40b1f08821e22e859c6050916cec3667778613"),
        # Paper.key of a paper only S2 knows: the runbook passes keys to `references`
        ("S2:0F40B1F08821E22E859C6050916CEC3667778613", "0f40b1f08821e22e859c6050916cec3667778613"),
    ],
)
def test_s2_id_normalises(given, expected):
    assert s2_id(given) == expected


@pytest.mark.parametrize(
    "bad", ["0", "", "hello world", "CorpusId:abc", "DOI:", "12345", "PMID:x1", "S2:12345"]
)
def test_s2_id_refuses_what_is_no_id(bad):
    with pytest.raises(BadInput) as caught:
        s2_id(bad)
    assert caught.value.code == "bad_id"


# -- mapping --------------------------------------------------------------------------------


def test_to_paper_maps_a_recorded_full_record():
    records = json.loads(load(S2 / "test_get_papers_return_not_found.yaml")[0].body)
    paper = to_paper(records[1])
    assert paper.source == "semantic_scholar"
    assert paper.title == "How Much Should We Trust Differences-in-Differences Estimates?"
    assert paper.authors == ["Marianne Bertrand", "E. Duflo", "S. Mullainathan"]
    assert paper.doi == "10.2139/ssrn.288970"
    assert paper.corpus_id == 470667
    assert paper.s2_paper_id == "c31c87c591a25c64fbaa82e8ac6a81831b6ac7ce"
    assert paper.external_ids["MAG"] == "2096684396"
    assert paper.open_access_pdf == "http://papers.nber.org/papers/w8841.pdf"
    assert paper.journal == {"name": "Experimental & Empirical Studies eJournal"}
    assert paper.publication_date == paper.published == "2001-10-01"
    assert paper.year == 2001 and paper.citation_count == 10670
    assert paper.fields_of_study == ["Psychology", "Economics", "Mathematics"]
    # The API's venue is "": the journal's name is where it was published (no volume given).
    assert paper.venue == "Experimental & Empirical Studies eJournal"
    assert paper.volume is None and paper.pages is None
    assert paper.venue_aliases == ["Experimental & Empirical Studies eJournal"]
    assert paper.key == "DOI:10.2139/ssrn.288970"


def test_to_paper_reads_the_venue_volume_and_pages():
    """Recorded records (the S2 search cassette with the 429s): a journal paper's venue from its
    journal, with volume and pages; a preprint's venue is none (arXiv is no venue, and its
    "volume" is the arXiv id), its names kept as aliases."""
    records = {}
    for interaction in load(S2 / "errors" / "429-then-200_search_paper.yaml"):
        if interaction.status == 200:
            for record in json.loads(interaction.body)["data"]:
                records[record["paperId"]] = record
    papers = {paper.doi or paper.arxiv_id: paper for paper in map(to_paper, records.values())}
    deutsch = papers["10.1098/rspa.1985.0070"]
    assert deutsch.venue == (
        "Proceedings of the Royal Society of London. A. Mathematical and Physical Sciences"
    )
    assert (deutsch.volume, deutsch.pages) == ("400", "117 - 97")  # as the API wrote them
    ntm = papers["1410.5401"]
    assert (ntm.venue, ntm.volume, ntm.pages) == (None, None, None)
    assert ntm.venue_aliases == ["arXiv.org", "ArXiv"]


def test_to_paper_takes_arxiv_id_and_lower_cased_doi_from_external_ids():
    """Synthesized record (no recording has an ArXiv external id with a mixed-case DOI)."""
    paper = to_paper(
        {
            "paperId": "a" * 40,
            "title": "Kakeya sets",
            "externalIds": {"ArXiv": "0803.2336", "DOI": "10.1090/S0894-0347-08-00607-3"},
        }
    )
    assert paper.arxiv_id == "0803.2336"
    assert paper.doi == "10.1090/s0894-0347-08-00607-3"
    assert paper.key == "arXiv:0803.2336"


# -- relevance search -----------------------------------------------------------------------

SEARCH_CASES = [
    # cassette, search keyword arguments for each recorded request
    ("test_search_paper.yaml", [{}]),
    ("test_search_paper_sync_from_running_loop.yaml", [{}]),
    ("test_search_paper_with_relevance_and_sort.yaml", [{}]),
    ("test_search_paper_traversing_results.yaml", [{}]),
    ("test_empty_paginated_results.yaml", [{}]),
    ("test_search_paper_next_page.yaml", [{"offset": 0}, {"offset": 100}]),
    ("test_search_paper_fields_of_study.yaml", [{"fields_of_study": "Mathematics"}]),
    ("test_search_paper_min_citation_count.yaml", [{"min_citations": 1000}]),
    ("test_search_paper_open_access_pdf.yaml", [{"open_access": True}]),
    ("test_search_paper_venue.yaml", [{"venue": "ArXiv"}]),
    ("test_search_paper_year.yaml", [{"year": "1936"}]),
    ("test_search_paper_year_range.yaml", [{"year": "1936-1937"}]),
    (
        "test_search_paper_publication_types.yaml",
        [{"publication_types": "JournalArticle"}, {"publication_types": "Book,Conference"}],
    ),
    (
        "test_search_paper_publication_date_or_year.yaml",
        [
            {"publication_date": value}
            for value in (
                "2024-01-01",
                "2024-01",
                "2024",
                "2024-01-01:2024-12-31",
                "2024-01-01:",
                ":2024-12-31",
                "2023:2024",
                "2023:",
                ":2024",
            )
        ],
    ),
]


@pytest.mark.parametrize(("name", "calls"), SEARCH_CASES, ids=[c[0] for c in SEARCH_CASES])
def test_search_replays(serve, name, calls):
    recorded = load(S2 / name)
    assert len(recorded) == len(calls)
    with serve(recorded) as server:
        client = S2Client()
        results = [
            client.search(
                want.param("query"),
                limit=int(want.param("limit")),
                fields=want.param("fields"),
                **{"fields_of_study": None, **call},
            )
            for want, call in zip(recorded, calls, strict=True)
        ]
    assert mismatches(server.received, recorded) == []
    for want, result in zip(recorded, results, strict=True):
        page = json.loads(want.body)
        data = valid(result)
        assert data["total_results"] == page["total"]
        assert [p["s2_paper_id"] for p in data["papers"]] == [
            r["paperId"] for r in page.get("data", [])
        ]
    assert client.network_calls == len(recorded)


def test_search_filters_reach_the_papers(serve):
    recorded = {
        n: load(S2 / n)
        for n in (
            "test_search_paper_year.yaml",
            "test_search_paper_min_citation_count.yaml",
            "test_search_paper_open_access_pdf.yaml",
        )
    }
    with serve(recorded["test_search_paper_year.yaml"]):
        years = S2Client().search(
            "turing", limit=100, fields="year", fields_of_study=None, year="1936"
        )
    assert years.total_results == 21 and {p.year for p in years.papers} == {1936}
    with serve(recorded["test_search_paper_min_citation_count.yaml"]):
        cited = S2Client().search(
            "turing", limit=100, fields="citationCount", fields_of_study=None, min_citations=1000
        )
    assert len(cited.papers) == 70 and min(p.citation_count for p in cited.papers) >= 1000
    with serve(recorded["test_search_paper_open_access_pdf.yaml"]):
        free = S2Client().search(
            "turing", limit=100, fields="openAccessPdf", fields_of_study=None, open_access=True
        )
    assert all(p.open_access_pdf and p.open_access_pdf.startswith("http") for p in free.papers)


def test_search_pages_do_not_overlap(serve):
    recorded = load(S2 / "test_search_paper_next_page.yaml")
    with serve(recorded):
        client = S2Client()
        first = client.search("turing", limit=100, fields="title", fields_of_study=None)
        second = client.search(
            "turing", limit=100, offset=100, fields="title", fields_of_study=None
        )
    ids = [p.s2_paper_id for p in first.papers + second.papers]
    assert len(ids) == len(set(ids)) == 200


def test_search_sends_the_default_fields_and_mathematics(serve):
    """Synthesized answer: only what we send is under test here."""
    with serve([Reply(200, '{"total": 0, "offset": 0}')]) as server:
        S2Client().search("Kakeya conjecture")
    sent = server.received[0].path
    assert "fieldsOfStudy=Mathematics" in sent
    assert f"fields={DEFAULT_FIELDS}" in sent
    assert "limit=10" in sent and "offset=0" in sent


@pytest.mark.parametrize(
    ("limit", "offset", "fragment"),
    [(101, 0, "1..100"), (0, 0, "1..100"), (100, 901, "at most 1000"), (10, -1, "0 or more")],
)
def test_search_window_guards_refuse_before_sending(limit, offset, fragment):
    client = S2Client()
    with pytest.raises(BadInput) as caught:
        client.search("turing", limit=limit, offset=offset)
    assert caught.value.code == "bad_limit" and fragment in caught.value.message
    assert client.network_calls == 0


def test_search_window_edge_is_allowed(serve):
    """Synthesized answer: offset 900 + limit 100 = 1000 is the largest window the API serves."""
    with serve([Reply(200, '{"total": 5000, "offset": 900, "data": []}')]) as server:
        S2Client().search("turing", limit=100, offset=900)
    assert "offset=900" in server.received[0].path


# -- bulk search ----------------------------------------------------------------------------

BULK_CASES = [
    ("test_search_paper_bulk_retrieval.yaml", None, 1000),
    ("test_search_paper_bulk_retrieval_next_page.yaml", None, 2000),
    ("test_search_paper_bulk_retrieval_traversing_results.yaml", None, 10_000),
    ("test_search_paper_bulk_retrieval_sorted_results_asc.yaml", "citationCount:asc", 10_000),
    ("test_search_paper_bulk_retrieval_sorted_results_desc.yaml", "citationCount:desc", 10_000),
    ("test_search_paper_bulk_retrieval_sorted_results_default_order.yaml", "citationCount", 10_000),
]


@pytest.mark.parametrize(
    ("name", "sort", "max_results"), BULK_CASES, ids=[c[0] for c in BULK_CASES]
)
def test_bulk_follows_the_token(serve, name, sort, max_results):
    recorded = load(S2 / name)
    pages = [json.loads(i.body) for i in recorded]
    with serve(recorded) as server:
        result = S2Client().bulk(
            "kubernetes", sort=sort, max_results=max_results, fields=recorded[0].param("fields")
        )
    assert mismatches(server.received, recorded, ignore_params=BULK_IGNORED) == []
    for got, page in zip(server.received[1:], pages[:-1], strict=True):  # page n names token n+1
        assert f"token={page['token']}" in got.path
    data = valid(result)
    expected = [r["paperId"] for page in pages for r in page["data"]][:max_results]
    assert [p["s2_paper_id"] for p in data["papers"]] == expected
    assert data["total_results"] == pages[0]["total"]
    assert len(data["request_urls"]) == len(recorded)
    if pages[-1]["token"] is None:  # traversed to the end: every match is here
        assert len(expected) == pages[0]["total"]
    if sort and sort.endswith("desc"):
        counts = [p["citation_count"] for p in data["papers"]]
        assert counts == sorted(counts, reverse=True)
    elif sort:
        counts = [p["citation_count"] for p in data["papers"]]
        assert counts == sorted(counts)


def test_bulk_stops_at_max_without_following_the_token(serve):
    recorded = load(S2 / "test_search_paper_bulk_retrieval_next_page.yaml")
    with serve(recorded[:1]) as server:
        result = S2Client().bulk("kubernetes", max_results=250, fields="title")
    assert len(server.received) == 1 and len(result.papers) == 250


# -- title match ----------------------------------------------------------------------------


def test_match_replay(serve):
    recorded = load(S2 / "test_search_paper_match_title.yaml")
    with serve(recorded) as server:
        result = S2Client().match("mining association rules between", fields="title")
    assert mismatches(server.received, recorded, ignore_params=("offset", "limit")) == []
    data = valid(result)
    assert [p["title"] for p in data["papers"]] == [
        "Mining association rules between sets of items in large databases"
    ]
    assert data["not_found"] == []


def test_match_404_is_not_found(serve):
    """Synthesized 404 in the API's application-error shape ("error")."""
    with serve([Reply(404, '{"error": "Title match not found"}')]):
        result = S2Client().match("A title nobody wrote")
    assert result.papers == [] and result.not_found == ["A title nobody wrote"]
    valid(result)


# -- look-ups -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["test_get_paper.yaml", "errors/get_paper_2026-03.yaml"])
def test_get_replay(serve, name):
    recorded = load(S2 / name)
    with serve(recorded) as server:
        result = S2Client().get(["10.1093/mind/lix.236.433"], fields="title")
    assert mismatches(server.received, recorded) == []
    data = valid(result)
    assert data["papers"][0]["title"] == "Computing Machinery and Intelligence"
    assert data["papers"][0]["key"] == "S2:2d5673caa9e6af3a7b82a43f19ee920992db07ad"
    assert server.received[0].path.startswith(f"{BASE_PATH}/paper/DOI:10.1093/mind/lix.236.433?")


def test_get_unknown_id_is_not_found(serve):
    """The recorded 404 for paper id "0". Our client refuses the bare "0" (no id form), so the
    answer is served to CorpusId:0; the recording's second interaction (/author/0) is for an
    endpoint we do not use."""
    recorded = load(S2 / "test_not_found.yaml")
    assert recorded[0].status == 404 and b"Paper with id 0 not found" in recorded[0].body
    with serve([recorded[0].reply()]) as server:
        result = S2Client().get(["CorpusId:0"], fields="title")
    assert result.papers == [] and result.not_found == ["CorpusId:0"]
    assert len(server.received) == 1  # a 404 is an answer: not retried
    valid(result)


def test_get_bad_field_is_a_clean_bad_input(serve):
    """A 400 is RequestRejected: exit 2 at the command line, a failing source for the gate."""
    recorded = load(S2 / "test_bad_query_parameters.yaml")
    with serve(recorded) as server, pytest.raises(RequestRejected) as caught:
        S2Client().get(["10.1093/mind/lix.236.433"], fields="unknown")
    assert mismatches(server.received, recorded) == []
    assert caught.value.code == "bad_request"
    assert "Unrecognized or unsupported fields: [unknown]" in caught.value.message


# -- batch ----------------------------------------------------------------------------------


def test_a_single_id_string_is_one_id(serve):
    """Synthesized answer: batch("CorpusId:1") asks for one paper, not for each character."""
    with serve([Reply(200, json.dumps([None]))]) as server:
        result = S2Client().batch("CorpusId:1")
    assert json.loads(server.received[0].body) == {"ids": ["CorpusId:1"]}
    assert result.not_found == ["CorpusId:1"]


def test_batch_replay(serve):
    recorded = load(S2 / "test_get_papers.yaml")
    asked = recorded[0].json_body["ids"]
    with serve(recorded) as server:
        result = S2Client().batch(asked, fields="authors")
    assert mismatches(server.received, recorded) == []
    assert result.ids == asked and len(result.papers) == 3 and None not in result.papers
    assert result.papers[0].authors == ["Marianne Bertrand", "E. Duflo", "S. Mullainathan"]
    valid(result.to_search_result())


@pytest.mark.parametrize(
    "name", ["test_get_papers_not_found_warning.yaml", "test_get_papers_return_not_found.yaml"]
)
def test_batch_nulls_stay_aligned(serve, name):
    recorded = load(S2 / name)
    asked = recorded[0].json_body["ids"]
    answer = json.loads(recorded[0].body)
    with serve(recorded) as server:
        result = S2Client().batch(asked, fields=recorded[0].param("fields"))
    assert mismatches(server.received, recorded) == []
    assert [p.s2_paper_id if p else None for p in result.papers] == [
        r["paperId"] if r else None for r in answer
    ]
    assert result.papers[0] is None and result.not_found == ["CorpusId:211530585"]
    data = valid(result.to_search_result())
    assert data["not_found"] == ["CorpusId:211530585"] and len(data["papers"]) == 3


def test_batch_chunks_at_500(serve):
    """Synthesized answers (all ids unknown): 501 ids go as 500 + 1, still aligned."""
    asked = [f"CorpusId:{n}" for n in range(1, 502)]
    with serve([Reply(200, json.dumps([None] * 500)), Reply(200, "[null]")]) as server:
        result = S2Client().batch(asked)
    bodies = [json.loads(r.body)["ids"] for r in server.received]
    assert [len(b) for b in bodies] == [500, 1] and bodies[0] + bodies[1] == asked
    assert result.not_found == asked and len(result.request_urls) == 2


def test_batch_answer_of_the_wrong_length_is_retried(serve):
    """Synthesized: a short list cannot be aligned, so it is treated as unusable and retried."""
    with serve([Reply(200, "[null]"), Reply(200, "[null, null]")]) as server:
        result = S2Client().batch(["CorpusId:1", "CorpusId:2"])
    assert len(server.received) == 2 and result.not_found == ["CorpusId:1", "CorpusId:2"]


# -- errors that are retried ----------------------------------------------------------------


def test_two_429s_then_200_end_in_success(serve):
    recorded = load(S2 / "errors/429-then-200_search_paper.yaml")
    assert [i.status for i in recorded] == [429, 429, 200]
    assert all("retry-after" not in {k.lower() for k in i.headers} for i in recorded)
    want = recorded[0]
    with serve(recorded) as server:
        client = S2Client()
        result = client.search(
            "turing", limit=100, fields=want.param("fields"), fields_of_study=None
        )
    assert mismatches(server.received, recorded) == []
    assert client.network_calls == 3
    assert result.total_results == 75689 and len(result.papers) == 100
    valid(result)


def test_500_on_batch_is_retried_then_reported(serve, monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "2")
    _ok, failure = load(S2 / "errors/500_batch.yaml")
    assert failure.status == 500
    with serve([failure] * 3) as server, pytest.raises(ServiceError) as caught:
        S2Client().batch(failure.json_body["ids"], fields=failure.param("fields"))
    assert mismatches(server.received, [failure] * 3) == []
    assert "HTTP 500" in caught.value.message and "3 attempts" in caught.value.message


def test_500_on_batch_then_the_recorded_200_succeeds(serve):
    ok, failure = load(S2 / "errors/500_batch.yaml")
    with serve([failure, ok]) as server:
        result = S2Client().batch(failure.json_body["ids"], fields=failure.param("fields"))
    assert len(server.received) == 2
    assert [p.s2_paper_id for p in result.papers] == [r["paperId"] for r in json.loads(ok.body)]


def test_504_on_citations_is_retried_then_reported(serve, monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    recorded = load(S2 / "errors/504_citations.yaml")
    want = recorded[0]
    with serve(recorded) as server, pytest.raises(ServiceError) as caught:
        S2Client().citations(
            "CorpusID:49313245", limit=1000, fields=want.param("fields"), page_size=1000
        )
    assert len(server.received) == 2
    assert "HTTP 504" in caught.value.message


# -- citation graph -------------------------------------------------------------------------


def test_references_replay(serve):
    recorded = load(S2 / "test_get_paper_references.yaml")
    with serve(recorded) as server:
        result = S2Client().references(
            "10.2139/ssrn.2250500", limit=500, fields="title", page_size=50
        )
    assert mismatches(server.received, recorded) == []
    expected = [i["citedPaper"] for r in recorded for i in json.loads(r.body)["data"]]
    data = valid(result)
    assert [p["title"] for p in data["papers"]] == [" ".join(e["title"].split()) for e in expected]
    assert any(p["s2_paper_id"] is None for p in data["papers"])  # unresolved references stay


def test_citations_replay_pages_to_the_end(serve):
    recorded = load(S2 / "test_get_paper_citations.yaml")
    with serve(recorded) as server:
        result = S2Client().citations("CorpusID:14514057", limit=5000, fields="title")
    assert mismatches(server.received, recorded) == []
    expected = [i["citingPaper"]["paperId"] for r in recorded for i in json.loads(r.body)["data"]]
    assert [p.s2_paper_id for p in result.papers] == expected
    assert len(result.request_urls) == 19
    valid(result)


def test_citations_limit_shrinks_the_last_page(serve):
    """Synthesized answers: only the requested page sizes are under test."""
    citing = [{"citingPaper": {"paperId": f"{n:040x}", "title": f"t{n}"}} for n in range(101)]
    pages = [
        {"offset": 0, "next": 100, "data": citing[:100]},
        {"offset": 100, "next": 101, "data": citing[100:]},
    ]
    with serve([Reply(200, json.dumps(page)) for page in pages]) as server:
        result = S2Client().citations("CorpusId:1", limit=101, fields="title")
    assert server.received[0].path.endswith("&limit=100")
    assert server.received[1].path.endswith("&limit=1")
    assert len(result.papers) == 101


# -- cache ----------------------------------------------------------------------------------


def test_second_identical_call_comes_from_the_cache(serve):
    recorded = load(S2 / "test_get_paper.yaml")
    with serve(recorded) as server:
        first = S2Client().get(["10.1093/mind/lix.236.433"], fields="title")
        again = S2Client()
        second = again.get(["10.1093/mind/lix.236.433"], fields="title")
    assert len(server.received) == 1 and again.network_calls == 0
    assert second.to_dict() == first.to_dict()

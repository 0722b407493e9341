"""mathtools.services.zbmath, zbmathrecords and crossref: the parsers on the real recorded
answers, the clients against local servers replaying them, and the scripts' front doors."""

from __future__ import annotations

import gzip
import json

import pytest
from conftest import RECORDINGS
from mathtools.core import config, schemas
from mathtools.core.errors import BadInput, EnvironmentProblem, ServiceError
from mathtools.services import crossref, zbmath, zbmathrecords
from support import shared
from support.cassettes import load as load_cassette
from support.scripted_server import Reply, ScriptedServer

ZBMATH = RECORDINGS / "zbmath"
CROSSREF = RECORDINGS / "crossref"


def zbmath_records(name: str) -> list[dict]:
    recording = shared.need(ZBMATH / name).read_text(encoding="utf-8")
    return json.loads(json.loads(recording)["body"])["result"]


def crossref_body(cassette: str, number: int = 0) -> tuple[int, bytes]:
    interaction = load_cassette(CROSSREF / cassette)[number]
    body = interaction.body
    return interaction.status, gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body


# ----------------------------------------------------------------------------- zbMATH parsing


def test_a_journal_article_keeps_its_zbl_number_msc_codes_and_links():
    paper = zbmathrecords.to_paper(zbmath_records("bibi_list_6617923_7721132.json")[0])
    assert paper.zbl == "1409.11141" and paper.key == "arXiv:1701.00340"
    assert paper.doi == "10.1016/j.jnt.2016.05.016" and paper.arxiv_id == "1701.00340"
    assert paper.msc == ["11Y40", "11R16", "11R27"]
    assert paper.authors == ["Tommy Hofmann", "Yinan Zhang"]  # "Hofmann, Tommy" as Given Family
    assert paper.year == 2016  # a string in the record
    assert paper.title == r"Valuations of \(p\)-adic regulators of cyclic cubic fields"
    assert paper.abstract is None  # the summary is licence-restricted
    assert paper.external_ids == {"zbMATH": 6617923}
    assert paper.url == "https://zbmath.org/6617923"


def test_a_book_names_its_editors_and_keeps_null_lists_out():
    book = zbmathrecords.to_paper(zbmath_records("bibi_list_7721132_7083365.json")[1])
    assert book.document_type == "book" and book.zbl == "1416.11009"
    assert book.authors == ["Renate Scheidler", "Jonathan Sorenson"]
    assert (book.venue, book.volume, book.pages) == ("The Open Book Series", "2", "x, 478~p.")


def test_the_licence_sentence_never_stands_for_a_field():
    (record,) = zbmath_records("bibi_list_restricted_3077854.json")
    paper = zbmathrecords.to_paper(record)
    assert (paper.title, paper.authors, paper.pages, paper.journal_ref) == ("", [], None, None)
    assert (paper.doi, paper.year, paper.zbl, paper.msc) == (
        "10.2307/2306804",
        1952,
        "0049.31002",
        ["11-XX"],
    )
    assert paper.venue == "American Mathematical Monthly"
    for name in ("bibi_list_6617923_7721132.json", "bibi_list_7721132_7083365.json"):
        for item in zbmath_records(name):
            assert "conflicting licenses" not in json.dumps(zbmathrecords.to_paper(item).to_dict())


def test_a_partial_record_with_a_real_summary_parses():
    (record,) = zbmath_records("partial/bibi_list_6340507_trimmed.json")
    paper = zbmathrecords.to_paper(record)
    assert paper.abstract.startswith("Summary: We describe how to compute")
    assert zbmathrecords.reference_ids(record) == [5793682]


@pytest.mark.parametrize(
    "record",
    [
        None,
        [],
        {"id": "6617923", "identifier": "1409.11141"},
        {"id": 1},
        {"id": True, "identifier": "x"},
    ],
)
def test_a_malformed_record_is_no_paper(record):
    """Synthesized: records missing or mistyping the id or Zbl number."""
    assert zbmathrecords.to_paper(record) is None


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("Zbl 1409.11141", "zbl", "1409.11141"),
        ("zbl:0049.31002", "zbl", "0049.31002"),
        ("zbMATH:6617923", "document", "6617923"),
        ("https://doi.org/10.2307/2306804", "doi", "10.2307/2306804"),
        ("10.48550/arXiv.1701.00340", "arxiv", "1701.00340"),
        ("1409.11141", "arxiv", "1409.11141"),  # bare: an arXiv id; a Zbl number needs Zbl
    ],
)
def test_identifiers(text, kind, value):
    assert zbmath.zbmath_identifier(text) == zbmath.Identifier(kind, value)


def test_a_bad_identifier_is_bad_input():
    with pytest.raises(BadInput, match="not a zbMATH identifier"):
        zbmath.zbmath_identifier("Zbl 14.1")


# ----------------------------------------------------------------------------- zbMATH client


def test_identifiers_of_every_kind_cost_one_search(standin):
    asked = [
        zbmath.zbmath_identifier(t) for t in ("DOI:10.2307/2306804", "Zbl 1416.11009", "1701.00340")
    ]
    found = zbmath.ZbmathClient().lookup([*asked, zbmath.zbmath_identifier("10.1234/none")])
    assert [p.zbl if p else None for p in found.papers] == [
        "0049.31002",
        "1416.11009",
        "1409.11141",
        None,
    ]
    assert standin.counts["zbmath list"] == 1


def test_no_result_is_an_empty_answer_not_an_error(standin):
    """The stand-in's 404 "No results found." answer (support/standin.ZBMATH_NO_RESULTS) is
    synthesized (no recording holds one)."""
    result = zbmath.ZbmathClient().search("ti:nonexistentword & cc:11")
    assert (result.papers, result.total_results) == ([], 0)


# SYNTHESIZED: zbMATH Open's answer to a search that finds nothing, exactly as third-party code
# written against the live API records it: lrspeiser/Invariant,
# tests/test_claim_specific_prior_art_zbmath.py (commit 30b7e2024170), _no_results_transport.
# Other clients test for the same internal_code on a 404 ("successful access. No results found.").
LIVE_NO_RESULTS = {
    "result": None,
    "status": {
        "execution_bool": False,
        "internal_code": "successful access. No results found.",
        "status_code": 404,
    },
}


@pytest.mark.parametrize("use", ["search", "lookup", "structured"])
def test_the_live_no_results_answer_is_nothing_found_not_a_failing_service(monkeypatch, use):
    """Synthesized (LIVE_NO_RESULTS): "result" null and no counts, the live service's form."""
    body = json.dumps(LIVE_NO_RESULTS).encode()
    with ScriptedServer([Reply(404, body, {"Content-Type": "application/json"})]) as server:
        monkeypatch.setenv("MATH_ZBMATH_API_URL", server.url)
        client = zbmath.ZbmathClient(use_cache=False)
        if use == "search":
            result = client.search("ti:nonexistentword")
            assert (result.papers, result.total_results) == ([], 0)
        elif use == "structured":  # a DOI is looked up through /document/_structured_search
            found = client.lookup([zbmath.zbmath_identifier("10.1000/a-b")])
            assert found.papers == [None]
        else:
            found = client.lookup([zbmath.zbmath_identifier("Zbl 1234.56789")])
            assert found.papers == [None]


@pytest.mark.parametrize(
    "status",
    [
        {**LIVE_NO_RESULTS["status"], "internal_code": "an internal error occurred"},
        {**LIVE_NO_RESULTS["status"], "internal_code": 404},
        {**LIVE_NO_RESULTS["status"], "nr_total_results": "0"},
        {**LIVE_NO_RESULTS["status"], "nr_total_results": 3},
        {"execution_bool": False, "status_code": 404},
    ],
    ids=["another code", "a code of numbers", "a count of text", "a count of 3", "says nothing"],
)
def test_another_404_or_a_status_of_the_wrong_types_is_a_failing_service(monkeypatch, status):
    """Synthesized: LIVE_NO_RESULTS changed so it no longer says "nothing found"."""
    body = json.dumps({"result": None, "status": status}).encode()
    with ScriptedServer([Reply(404, body, {"Content-Type": "application/json"})]) as server:
        monkeypatch.setenv("MATH_ZBMATH_API_URL", server.url)
        with pytest.raises(ServiceError, match="HTTP 404"):
            zbmath.ZbmathClient(use_cache=False).search("ti:x")


def test_references_follow_the_reference_list(standin):
    result = zbmath.ZbmathClient().references("zbMATH:7721132", limit=3)
    assert result.total_results == 15
    assert [u.rsplit("/", 1)[1] for u in result.request_urls] == [
        "7721132",
        "1077111",
        "3272326",
        "4200333",
    ]


def test_an_answer_without_the_envelope_is_retried_then_a_service_error(monkeypatch):
    """Synthesized: a 200 whose body is not zbMATH's envelope, twice."""
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    with ScriptedServer([Reply(200, b"<html>maintenance</html>")] * 2) as server:
        monkeypatch.setenv("MATH_ZBMATH_API_URL", server.url)
        with pytest.raises(ServiceError, match="zbMATH Open still failing"):
            zbmath.ZbmathClient().search("ti:x")
        assert len(server.received) == 2


# ----------------------------------------------------------------------------- Crossref


def test_a_recorded_work_parses():
    status, body = crossref_body("habanero/test-works/test_works_with_one_id.yaml")
    paper = crossref.to_paper(json.loads(body)["message"])
    assert status == 200 and paper.doi == "10.1371/journal.pone.0033693"
    assert paper.document_type == "journal-article" and paper.venue == "PLoS ONE"
    assert paper.year == 2012 and paper.authors[:2] == ["Shankar Sadasivan", "Brooks B. Pond"]
    assert (paper.volume, paper.pages) == ("7", "e33693")


def test_an_unknown_doi_is_none_from_the_plain_text_404(monkeypatch):
    interaction = load_cassette(CROSSREF / "habanero/test-works/test_works_bad_id_warn.yaml")[0]
    assert interaction.body == b"Resource not found."
    with ScriptedServer([interaction.reply()]) as server:
        monkeypatch.setenv("MATH_CROSSREF_API_URL", server.url)
        paper, url = crossref.CrossrefClient().work("10.1371/notarealdoi")
        assert paper is None and url.endswith("/works/10.1371/notarealdoi")


def test_a_validation_failure_is_bad_input_with_crossrefs_message(monkeypatch):
    name = "habanero/test-works/test_works_query_filters_not_allowed_with_dois.yaml"
    interaction = load_cassette(CROSSREF / name)[0]
    with ScriptedServer([interaction.reply()]) as server:
        monkeypatch.setenv("MATH_CROSSREF_API_URL", server.url)
        with pytest.raises(BadInput, match="Crossref rejected the request"):
            crossref.CrossrefClient().search("ecology")


def test_many_dois_cost_one_list_request(standin):
    found, urls = crossref.CrossrefClient().works(
        ["10.1007/BF02551274", "10.1063/1.4938384", "10.9999/x"]
    )
    assert sorted(found) == ["10.1007/bf02551274", "10.1063/1.4938384"]
    assert len(urls) == 1 and "filter=doi:10.1007/bf02551274,doi:10.1063/1.4938384" in urls[0]
    assert standin.counts["crossref list"] == 1


def test_the_polite_pool_address_goes_in_the_user_agent_only(monkeypatch, tmp_path):
    monkeypatch.setenv("MATH_CONTACT_EMAIL", "someone@example.org")
    status, body = crossref_body("habanero/test-works/test_works_with_one_id.yaml")
    with ScriptedServer([Reply(status, body, {"Content-Type": "application/json"})]) as server:
        monkeypatch.setenv("MATH_CROSSREF_API_URL", server.url)
        client = crossref.CrossrefClient()
        paper, url = client.work("10.1371/journal.pone.0033693")
        (received,) = server.received
    assert client.polite and paper is not None
    assert "mailto:someone@example.org" in received.headers["User-Agent"]
    assert "example.org" not in received.path and "example.org" not in url


def test_crossref_intervals_follow_the_published_limits(monkeypatch):
    monkeypatch.delenv("MATH_CROSSREF_MIN_INTERVAL")
    assert config.crossref_intervals(polite=False) == (0.2, 1.0)  # 5 single, 1 list a second
    assert config.crossref_intervals(polite=True) == (0.1, 1 / 3)  # 10 and 3
    monkeypatch.setenv("MATH_CROSSREF_MIN_INTERVAL", "2")
    assert config.crossref_intervals(polite=True) == (2.0, 2.0)


def test_the_contact_email_comes_from_the_environment_then_the_workspace(monkeypatch, tmp_path):
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text('{"contact_email": "me@uni.example"}')
    monkeypatch.setenv("MATH_WORKSPACE", str(tmp_path))
    assert config.contact_email() == "me@uni.example"
    monkeypatch.setenv("MATH_CONTACT_EMAIL", "env@uni.example")
    assert config.contact_email() == "env@uni.example"
    monkeypatch.setenv("MATH_CONTACT_EMAIL", "not an address")
    with pytest.raises(EnvironmentProblem, match="MATH_CONTACT_EMAIL"):
        config.contact_email()


# ----------------------------------------------------------------------------- the scripts


def test_zbmath_lookup_builds_the_search_string_and_the_query_line(script, standin):
    run = script(
        "zbmath_lookup.py",
        "search",
        "--title",
        "cubic fields",
        "--msc",
        "11R",
        "--year",
        "2010-2020",
    )
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert result["query"] == 'ti:"cubic fields" & py:2010-2020 & cc:11R'
    assert result["query_line"] == 'zbmath --title "cubic fields" --msc 11R --year 2010-2020'
    assert [p["zbl"] for p in result["papers"]] == ["1409.11141"]
    assert schemas.schema_errors("search_result", result) == []


def test_zbmath_lookup_get_prints_what_was_not_found(script, standin, tmp_path):
    out = tmp_path / "found.json"
    run = script("zbmath_lookup.py", "get", "Zbl 0049.31002", "Zbl 9999.99999", "--out", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "not found: Zbl 9999.99999"
    assert json.loads(out.read_text())["papers"][0]["doi"] == "10.2307/2306804"


def test_crossref_lookup_get(script, standin):
    run = script("crossref_lookup.py", "get", "10.1007/BF02551274", "10.1371/notarealdoi")
    assert run.returncode == 0, run.stdout + run.stderr
    result = run.json()
    assert [p["key"] for p in result["papers"]] == ["DOI:10.1007/bf02551274"]
    assert result["not_found"] == ["10.1371/notarealdoi"]
    assert schemas.schema_errors("search_result", result) == []


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["zbmath_lookup.py", "get", "Zbl 1"], "bad_id"),
        (["zbmath_lookup.py", "search"], "bad_query"),
        (["zbmath_lookup.py", "search", "--query", "x", "--limit", "101"], "bad_limit"),
        (["crossref_lookup.py", "get", "nonsense"], "bad_id"),
        (["crossref_lookup.py", "search", "--query", "x", "--limit", "0"], "bad_limit"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(script, args, code):
    run = script(*args)
    assert run.returncode == 2 and run.json()["error"]["code"] == code


@pytest.mark.parametrize("flag", ["--limit", "--rows"])
def test_crossref_rows_is_a_deprecated_alias_of_limit(script, flag):
    """--rows (the former name) lands where --limit does: the same check reads its value."""
    run = script("crossref_lookup.py", "search", "--query", "x", flag, "1001")
    assert run.returncode == 2
    assert run.json()["error"]["message"] == "--limit must be 1..1000 (got 1001)"
    help_text = " ".join(script("crossref_lookup.py", "search", "--help").stdout.split())
    assert "--limit LIMIT, --rows LIMIT" in help_text and "--rows: deprecated alias" in help_text


@pytest.mark.parametrize("service", ["zbmath", "crossref"])
def test_a_failing_service_is_exit_3(script, standin, service):
    """Synthesized: the stand-in answers 503 to every request."""
    standin.fail(service, 503)
    args = ["search", "--query", "x"] if service == "zbmath" else ["get", "10.1007/BF02551274"]
    run = script(f"{service}_lookup.py", *args)
    assert run.returncode == 3 and run.json()["error"]["code"] == "service_unavailable"


def test_a_404_without_the_envelope_is_an_error_not_an_empty_answer(monkeypatch):
    """Synthesized: a wrong base URL's 404 page must not read as "zbMATH has nothing"."""
    with ScriptedServer([Reply(404, b"<html>Not Found</html>")]) as server:
        monkeypatch.setenv("MATH_ZBMATH_API_URL", server.url + "/wrong")
        with pytest.raises(ServiceError, match="HTTP 404"):
            zbmath.ZbmathClient().search("ti:x")


def test_list_and_single_record_requests_share_one_limiter_with_their_own_intervals(monkeypatch):
    """The public pool: 1 list request a second, 5 single-record ones. The two kinds share one
    limiter: after a list request the next start waits a second, after a single-record one
    0.2 s, so list requests stay a second apart whatever comes between."""
    monkeypatch.delenv("MATH_CROSSREF_MIN_INTERVAL")
    status, body = crossref_body("habanero/test-works/test_works_with_one_id.yaml")
    _, listing = crossref_body("habanero/test-works/test_works_query.yaml")
    replies = [Reply(200, listing), Reply(status, body), Reply(200, listing)]
    with ScriptedServer(replies) as server:
        monkeypatch.setenv("MATH_CROSSREF_API_URL", server.url)
        client = crossref.CrossrefClient(use_cache=False)
        client.search("ecology", rows=2)
        client.work("10.1371/journal.pone.0033693")
        client.search("ecology", rows=3)
        first, second, third = (r.arrived for r in server.received)
    assert second - first >= 0.95
    assert 0.15 <= third - second < 0.9

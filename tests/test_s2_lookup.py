"""scripts/s2_lookup.py as a user runs it: recorded answers served locally, exit codes, --out,
stdin ids, the search window guards, and the API key (sent, never leaked). Tests whose answers
are not from a recording say "synthesized"."""

from __future__ import annotations

import itertools
import json
import os

import pytest
from conftest import RECORDINGS
from mathtools.core import schemas

from tests.support.cassettes import load, mismatches, serving_s2
from tests.support.scripted_server import Reply

S2 = RECORDINGS / "s2"
KEY = "sk-test-5e3f9a1c-never-print-me"
NO_KEY_NOTE = "no Semantic Scholar API key"


@pytest.fixture
def serve(monkeypatch):
    """serve(interactions or replies) -> a running server the S2 client and scripts reach."""
    return lambda items: serving_s2(items, monkeypatch)


def one_error(run) -> dict:
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout
    assert "Traceback" not in run.stderr
    return json.loads(lines[0])["error"]


def test_search_prints_a_valid_search_result(serve, script):
    recorded = load(S2 / "test_search_paper_year_range.yaml")
    with serve(recorded) as server:
        run = script(
            "s2_lookup.py", "search", "--query", "turing", "--year", "1936-1937",
            "--limit", "100", "--fields", "year", "--any-field",
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    data = run.json()
    assert schemas.schema_errors("search_result", data) == []
    assert data["total_results"] == 47 and {p["year"] for p in data["papers"]} <= {1936, 1937}
    assert "fieldsOfStudy" not in server.received[0].path


def test_out_writes_the_file_and_prints_a_summary(serve, script, tmp_path):
    recorded = load(S2 / "test_get_papers_return_not_found.yaml")
    out = tmp_path / "found.json"
    with serve(recorded):
        run = script(
            "s2_lookup.py", "batch", *recorded[0].json_body["ids"],
            "--fields", recorded[0].param("fields"), "--out", str(out),
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(out.read_text())
    assert schemas.schema_errors("search_result", data) == []
    lines = run.stdout.splitlines()
    assert lines[0] == "semantic_scholar batch: 3 papers"
    assert "not found: CorpusId:211530585" in lines
    assert str(out) not in run.stdout  # the caller named the file
    assert data["query_line"].startswith("s2 batch " + " ".join(recorded[0].json_body["ids"]))
    assert "--out" not in data["query_line"]
    assert "DOI:10.2139/ssrn.288970 | 2001 | Bertrand et al. |" in run.stdout


def test_batch_reads_ids_from_stdin_and_from_a_file(serve, script, tmp_path):
    recorded = load(S2 / "test_get_papers.yaml")
    ids = recorded[0].json_body["ids"]
    (tmp_path / "ids.txt").write_text("# asked\n" + "\n".join(ids[1:]) + "\n")
    with serve(list(recorded) * 2) as server:
        from_stdin = script("s2_lookup.py", "batch", "-", "--fields", "authors", "--no-cache",
                            input="\n".join(ids) + "\n")  # fmt: skip
        from_file = script("s2_lookup.py", "batch", ids[0], "--ids-file", "ids.txt",
                           "--fields", "authors", "--no-cache")  # fmt: skip
    for run in (from_stdin, from_file):
        assert run.returncode == 0, run.stdout + run.stderr
        assert len(run.json()["papers"]) == 3
    assert [json.loads(r.body)["ids"] for r in server.received] == [
        ["CorpusId:470667", "DOI:10.2139/ssrn.2250500", ids[2]]
    ] * 2


def test_batch_without_ids_is_bad_input(script):
    run = script("s2_lookup.py", "batch")
    assert run.returncode == 2 and one_error(run)["code"] == "bad_id"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--limit", "101"], "--limit must be 1..100"),
        (["--limit", "100", "--offset", "901"], "--offset + --limit must be at most 1000"),
        (["--year", "1936-37"], "--year must look like"),
        (["--year", "2020-2010"], "--year 2020-2010 runs backwards"),
        (["--min-citations", "-5"], "--min-citations must be 0 or more"),
    ],
)
def test_search_guards_refuse_before_any_request(serve, script, args, fragment):
    with serve([Reply(200, "{}")]) as server:
        run = script("s2_lookup.py", "search", "--query", "turing", *args)
    assert run.returncode == 2
    assert fragment in one_error(run)["message"]
    assert server.received == []
    assert NO_KEY_NOTE not in run.stderr  # refused before the client said anything


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["get", "10.1093/mind/lix.236.433", "0"], "bad_id"),
        (["batch", "--ids-file", "no-such-ids.txt"], "file_not_found"),
        (["batch", "-"], "bad_id"),  # stdin holds a non-id
        (["references", "not an id"], "bad_id"),
        (["citations", "CorpusId:1", "--page-size", "0"], "bad_limit"),
        (["bulk", "--query", "turing", "--max", "0"], "bad_limit"),
    ],
)
def test_bad_input_is_refused_before_the_client_speaks(serve, script, args, code):
    with serve([Reply(200, "{}")]) as server:
        run = script("s2_lookup.py", *args, input="CorpusId:1\nnonsense\n")
    assert run.returncode == 2
    assert one_error(run)["code"] == code
    assert run.stderr == ""  # no "no API key" note before the error
    assert server.received == []


def test_bulk_follows_the_token_from_the_command_line(serve, script):
    recorded = load(S2 / "test_search_paper_bulk_retrieval_sorted_results_desc.yaml")
    with serve(recorded) as server:
        run = script("s2_lookup.py", "bulk", "--query", "kubernetes", "--max", "10000",
                     "--sort", "citationCount:desc", "--fields", "citationCount")  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    # The recording client also sent offset/limit, which bulk search ignores.
    assert mismatches(server.received, recorded, ignore_params=("offset", "limit")) == []
    data = run.json()
    assert schemas.schema_errors("search_result", data) == []
    pages = [json.loads(i.body) for i in recorded]
    assert [p["s2_paper_id"] for p in data["papers"]] == [
        r["paperId"] for page in pages for r in page["data"]
    ]
    counts = [p["citation_count"] for p in data["papers"]]
    assert counts == sorted(counts, reverse=True)
    assert data["total_results"] == pages[0]["total"]
    assert data["query_line"].startswith("s2 bulk --query kubernetes")


FILTER_CASES = [
    ("test_search_paper_venue.yaml", ["--venue", "ArXiv"], "venue"),
    ("test_search_paper_publication_types.yaml", ["--publication-types", "JournalArticle"], None),
    ("test_search_paper_min_citation_count.yaml", ["--min-citations", "1000"], "citationCount"),
    ("test_search_paper_open_access_pdf.yaml", ["--open-access"], "openAccessPdf"),
]


@pytest.mark.parametrize(("name", "args", "field"), FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
def test_search_filters_from_the_command_line(serve, script, name, args, field):
    recorded = load(S2 / name)[:1]
    with serve(recorded) as server:
        run = script("s2_lookup.py", "search", "--query", "turing", "--any-field", "--limit",
                     "100", "--fields", recorded[0].param("fields"), *args)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert mismatches(server.received, recorded) == []
    data = run.json()
    assert schemas.schema_errors("search_result", data) == []
    page = json.loads(recorded[0].body)
    assert [p["s2_paper_id"] for p in data["papers"]] == [r["paperId"] for r in page["data"]]
    papers = data["papers"]
    if field == "venue":
        # arXiv is where they are, not where they were published: a preprint has no venue.
        assert all("arXiv.org" in p["venue_aliases"] for p in papers)
        assert {p["venue"] for p in papers} == {None}
    elif field == "citationCount":
        assert min(p["citation_count"] for p in papers) >= 1000
    elif field == "openAccessPdf":
        assert all(p["open_access_pdf"].startswith("http") for p in papers)


def test_get_a_non_id_is_bad_input(script):
    run = script("s2_lookup.py", "get", "0")
    assert run.returncode == 2
    error = one_error(run)
    assert error["code"] == "bad_id" and "'0'" in error["message"]


def test_an_empty_relaxed_query_is_bad_input(script):
    """`--relax` has no form of an empty query to ask (it was an internal error, exit 5)."""
    run = script("s2_lookup.py", "search", "--query", "", "--relax")
    assert run.returncode == 2
    error = one_error(run)
    assert error["code"] == "bad_query" and "empty" in error["message"]


def test_recorded_400_bad_field_exits_2(serve, script):
    with serve(load(S2 / "test_bad_query_parameters.yaml")):
        run = script("s2_lookup.py", "get", "10.1093/mind/lix.236.433", "--fields", "unknown")
    assert run.returncode == 2
    error = one_error(run)
    assert error["code"] == "bad_request"
    assert "Unrecognized or unsupported fields: [unknown]" in error["message"]


def test_recorded_504_on_citations_exits_3(serve, script, monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    recorded = load(S2 / "errors/504_citations.yaml")
    with serve(recorded) as server:
        run = script("s2_lookup.py", "citations", "CorpusID:49313245", "--limit", "1000",
                     "--page-size", "1000", "--fields", recorded[0].param("fields"))  # fmt: skip
    assert run.returncode == 3 and len(server.received) == 2
    error = one_error(run)
    assert error["code"] == "service_unavailable" and "HTTP 504" in error["message"]


def test_recorded_500_on_batch_exits_3(serve, script, monkeypatch):
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    _, failure = load(S2 / "errors/500_batch.yaml")
    with serve([failure, failure]) as server:
        run = script("s2_lookup.py", "batch", *failure.json_body["ids"],
                     "--fields", failure.param("fields"))  # fmt: skip
    assert run.returncode == 3 and len(server.received) == 2
    assert "HTTP 500" in one_error(run)["message"]


def test_match_not_found_exits_0(serve, script):
    """Synthesized 404 "Title match not found"."""
    with serve([Reply(404, '{"error": "Title match not found"}')]):
        run = script("s2_lookup.py", "match", "--title", "No Such Paper At All")
    assert run.returncode == 0
    assert run.json()["not_found"] == ["No Such Paper At All"]


def test_references_and_citations_page(serve, script):
    recorded = load(S2 / "test_get_paper_references.yaml")
    with serve(recorded) as server:
        run = script("s2_lookup.py", "references", "10.2139/ssrn.2250500",
                     "--page-size", "50", "--fields", "title")  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(server.received) == 2 and len(run.json()["papers"]) == 67


def test_no_cache_sends_again(serve, script):
    recorded = load(S2 / "test_get_paper.yaml")
    with serve(list(recorded) * 2) as server:
        args = ("s2_lookup.py", "get", "10.1093/mind/lix.236.433", "--fields", "title")
        runs = [script(*args), script(*args), script(*args, "--no-cache")]
    assert [r.returncode for r in runs] == [0, 0, 0]
    assert len(server.received) == 2
    assert runs[0].json() == runs[1].json() == runs[2].json()


def test_rate_limit_interval_is_kept(serve, script, monkeypatch):
    """Synthesized answers; MATH_S2_MIN_INTERVAL spaces the requests of one run."""
    monkeypatch.setenv("MATH_S2_MIN_INTERVAL", "0.4")
    with serve([Reply(404, '{"error": "Paper with id x not found"}')] * 3) as server:
        run = script("s2_lookup.py", "get", "CorpusId:1", "CorpusId:2", "CorpusId:3")
    assert run.returncode == 0 and len(run.json()["not_found"]) == 3
    times = [r.arrived for r in server.received]
    assert min(b - a for a, b in itertools.pairwise(times)) >= 0.38


# -- the API key ----------------------------------------------------------------------------


def test_without_a_key_one_line_says_so(serve, script):
    """Synthesized answers: two requests in one run, one note."""
    with serve([Reply(404, '{"error": "Paper with id x not found"}')] * 2) as server:
        run = script("s2_lookup.py", "get", "CorpusId:1", "CorpusId:2")
    assert run.returncode == 0
    assert run.stderr.count(NO_KEY_NOTE) == 1
    assert all("x-api-key" not in {k.lower() for k in r.headers} for r in server.received)


def test_without_a_key_the_note_is_said_once_a_day_per_cache_folder(serve, script, tmp_path):
    """Synthesized answers. The model reads stderr: one note a day is enough."""
    with serve([Reply(404, '{"error": "Paper with id x not found"}')] * 4):
        first = script("s2_lookup.py", "get", "CorpusId:1")
        second = script("s2_lookup.py", "get", "CorpusId:2")
        marker = next((tmp_path / "cache").glob("s2-no-key-noted"))
        marker.write_text("2001-01-01\n")  # a day that is over
        next_day = script("s2_lookup.py", "get", "CorpusId:3")
        elsewhere = {**os.environ, "MATH_CACHE_DIR": str(tmp_path / "c2")}
        other_cache = script("s2_lookup.py", "get", "CorpusId:4", env=elsewhere)
    assert [run.returncode for run in (first, second, next_day, other_cache)] == [0, 0, 0, 0]
    assert first.stderr.count(NO_KEY_NOTE) == 1
    assert NO_KEY_NOTE not in second.stderr
    assert next_day.stderr.count(NO_KEY_NOTE) == 1
    assert other_cache.stderr.count(NO_KEY_NOTE) == 1


def test_key_is_sent_and_never_leaks(serve, script, monkeypatch, tmp_path):
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", KEY)
    recorded = load(S2 / "test_get_papers.yaml")
    out = tmp_path / "out.json"
    with serve(list(recorded) * 2) as server:
        printed = script("s2_lookup.py", "batch", *recorded[0].json_body["ids"],
                         "--fields", "authors")  # fmt: skip
        written = script("s2_lookup.py", "batch", *recorded[0].json_body["ids"],
                         "--fields", "authors", "--out", str(out), "--no-cache")  # fmt: skip
    assert printed.returncode == written.returncode == 0
    assert [r.headers.get("x-api-key") for r in server.received] == [KEY, KEY]
    assert NO_KEY_NOTE not in printed.stderr
    cache_files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert any(p.name.endswith(".sqlite") for p in cache_files)
    assert len(json.loads(out.read_text())["papers"]) == 3
    for text in (printed.stdout, printed.stderr, written.stdout, written.stderr):
        assert KEY not in text
    for path in [out, *cache_files]:
        assert KEY.encode() not in path.read_bytes(), path


def test_key_from_workspace_config(serve, script, tmp_path):
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text(json.dumps({"semantic_scholar_api_key": KEY}))
    with serve(load(S2 / "test_get_paper.yaml")) as server:
        run = script("s2_lookup.py", "get", "10.1093/mind/lix.236.433", "--fields", "title")
    assert run.returncode == 0
    assert server.received[0].headers.get("x-api-key") == KEY
    assert KEY not in run.stdout + run.stderr


def test_rejected_key_is_reported_and_dropped(serve, script, monkeypatch):
    """The recorded 403 for a bad key on /paper/batch, then the recorded batch answer for the
    same ids (from test_get_papers.yaml) to the retry without the key."""
    forbidden = load(S2 / "test_debug.yaml")[0]
    answer = load(S2 / "test_get_papers.yaml")[0]
    assert forbidden.status == 403 and forbidden.json_body == answer.json_body
    monkeypatch.setenv("SEMANTIC_SCHOLAR_API_KEY", "F@k3K3y")
    with serve([forbidden.reply(), answer.reply()]) as server:
        run = script("s2_lookup.py", "batch", *answer.json_body["ids"], "--fields", "authors")
    assert run.returncode == 0, run.stdout + run.stderr
    assert [r.headers.get("x-api-key") for r in server.received] == ["F@k3K3y", None]
    assert "rejected the API key" in run.stderr and "Forbidden" in run.stderr
    assert "F@k3K3y" not in run.stdout + run.stderr
    assert len(run.json()["papers"]) == 3

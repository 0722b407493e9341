"""scripts/arxiv_query.py as a user runs it: a subprocess against a local server of recordings."""

from __future__ import annotations

import json
import os

import pytest
from mathtools.core import schemas
from support.arxiv_recordings import query_params, reply
from support.scripted_server import ScriptedServer


@pytest.fixture
def run_against(script):
    """Run arxiv_query.py with MATH_ARXIV_API_URL pointing at `server`."""

    def run(server, *args, input=None):
        env = {**os.environ, "MATH_ARXIV_API_URL": f"{server.url}/api/query"}
        return script("arxiv_query.py", *args, input=input, env=env)

    return run


def test_get_with_out_writes_the_json_and_prints_a_short_summary(run_against, tmp_path):
    with ScriptedServer([reply("id_0808.05394_1707.08567_")]) as server:
        run = run_against(server, "get", "0808.05394", "arXiv:1707.08567", "--out", "found.json")
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads((tmp_path / "found.json").read_text(encoding="utf-8"))
    assert not schemas.schema_errors("search_result", data)
    assert data["not_found"] == ["0808.05394"]
    lines = run.stdout.splitlines()
    assert lines[0] == "arxiv get: 1 papers of 1 matches"
    assert lines[1].startswith("arXiv:1707.08567 | 2017 | Immink et al. | ")
    assert lines[2:] == ["not found: 0808.05394"]  # the file is the one --out named
    assert data["query_line"] == "arxiv get 0808.05394 arXiv:1707.08567"  # the call, for record-run
    assert len(run.stdout) < 400  # the abstracts and 34 authors stay in the file


def test_get_without_out_prints_the_full_json(run_against):
    with ScriptedServer([reply("id_astro-ph_0601001_")]) as server:
        run = run_against(server, "get", "https://arxiv.org/abs/astro-ph/0601001")
    assert run.returncode == 0
    data = run.json()
    assert not schemas.schema_errors("search_result", data)
    [paper] = data["papers"]
    assert paper["key"] == "arXiv:astro-ph/0601001"
    assert paper["journal_ref"] == "ActaAstron.56:1-50,2006"


def test_get_from_stdin_and_from_a_file(run_against, tmp_path):
    (tmp_path / "ids.txt").write_text("# candidates\n1605.08386, 0808.05394\n", encoding="utf-8")
    with ScriptedServer([reply("id_0808.05394_1707.08567_")]) as server:
        run = run_against(server, "get", "--ids-file", "ids.txt", "-", input="1707.08567\n")
    assert run.returncode == 0, run.stdout
    sent = query_params(server.received[0].path)["id_list"]
    assert sent == "1605.08386,0808.05394,1707.08567"
    assert run.json()["not_found"] == ["1605.08386", "0808.05394"]


def test_search_builds_the_query_from_options(run_against):
    with ScriptedServer([reply("q_testing_s0_m10_")]) as server:
        run = run_against(
            server, "search", "--title", "random walk", "--author", "Windisch",
            "--domain", "combinatorics", "--secondary", "--submitted", "2016..2017",
            "--limit", "10", "--sort", "submittedDate", "--order", "ascending",
        )  # fmt: skip
    assert run.returncode == 0, run.stdout
    sent = query_params(server.received[0].path)
    assert sent["search_query"] == (
        'ti:"random walk" AND au:Windisch AND (cat:math.CO OR cat:math.PR OR cat:math.RT)'
        " AND submittedDate:[201601010000 TO 201712312359]"
    )
    assert (sent["sortBy"], sent["sortOrder"], sent["max_results"]) == (
        "submittedDate",
        "ascending",
        "10",
    )
    data = run.json()
    assert data["query"] == sent["search_query"]
    assert len(data["papers"]) == 10 and data["total_results"] == 214881
    assert not schemas.schema_errors("search_result", data)


def test_a_cached_search_sends_nothing_and_no_cache_asks_again(run_against):
    with ScriptedServer([reply("q_testing_s0_m10_"), reply("q_testing_s0_m10_")]) as server:
        first = run_against(server, "search", "--query", "testing")
        cached = run_against(server, "search", "--query", "testing")
        assert len(server.received) == 1
        fresh = run_against(server, "search", "--query", "testing", "--no-cache")
    assert len(server.received) == 2
    assert first.stdout == cached.stdout == fresh.stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["get", "1605.08386", "not-an-id"], "bad_id"),
        (["get"], "no_ids"),
        (["search"], "no_query"),
        (["search", "--domain", "astrology"], "usage"),
        (["search", "--secondary", "--title", "x"], "usage"),
        (["search", "--all", "x", "--limit", "40000"], "bad_range"),
        (["search", "--all", "x", "--submitted", "2020"], "bad_date"),
        (["search", "--all", "x", "--submitted", "2024-02-31..2024-12"], "bad_date"),
        (["search", "--all", "x", "--offset", "29990", "--limit", "20"], "bad_range"),
        (["get", "--ids-file", "missing.txt"], "file_not_found"),
    ],
)
def test_bad_input_is_one_json_line_and_exit_2_with_nothing_sent(run_against, args, code):
    with ScriptedServer() as server:
        run = run_against(server, *args)
    assert run.returncode == 2, run.stdout + run.stderr
    [line] = run.stdout.splitlines()
    assert json.loads(line)["error"]["code"] == code
    assert "Traceback" not in run.stderr
    assert server.received == []


@pytest.mark.parametrize("out", [".", "notes.txt/found.json"], ids=["a-folder", "under-a-file"])
def test_an_out_that_cannot_be_written_is_bad_input_naming_it_before_asking(
    run_against, tmp_path, out
):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    with ScriptedServer([reply("id_1605.08386_")]) as server:
        run = run_against(server, "get", "1605.08386", "--out", out)
    assert run.returncode == 2, run.stdout + run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "cannot_write" and out in error["message"]
    assert server.received == []  # refused before the work whose result would be lost


@pytest.mark.parametrize("kind", ["a-note", "a-fifo"])
def test_an_out_that_would_replace_what_is_not_an_earlier_output_is_refused(
    run_against, tmp_path, kind
):
    """Replacing a person's file (or a device or pipe) with JSON would lose it."""
    out = tmp_path / "notes.md"
    if kind == "a-fifo":
        os.mkfifo(out)
    else:
        out.write_text("# my notes\n")
    with ScriptedServer([reply("id_1605.08386_")]) as server:
        run = run_against(server, "get", "1605.08386", "--out", str(out))
    assert run.returncode == 2, run.stdout + run.stderr
    assert json.loads(run.stdout)["error"]["code"] == "cannot_write"
    assert server.received == []
    if kind == "a-note":
        assert out.read_text() == "# my notes\n"
    (tmp_path / "earlier.json").write_text('{"written_by": "math", "source": "arxiv"}')
    with ScriptedServer([reply("id_1605.08386_")]) as server:
        again = run_against(server, "get", "1605.08386", "--out", str(tmp_path / "earlier.json"))
    assert again.returncode == 0, again.stdout  # an earlier output is replaced


@pytest.mark.parametrize("kind", ["under-a-file", "cache-file-is-a-folder"])
def test_an_unusable_cache_dir_is_an_environment_problem_naming_it(
    run_against, tmp_path, monkeypatch, kind
):
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    cache = tmp_path / "notes.txt" / "cache"
    if kind == "cache-file-is-a-folder":
        cache = tmp_path / "cache"
        (cache / "http-cache.sqlite").mkdir(parents=True)
    monkeypatch.setenv("MATH_CACHE_DIR", str(cache))
    with ScriptedServer([reply("id_1605.08386_")]) as server:
        run = run_against(server, "get", "1605.08386")
    assert run.returncode == 4, run.stdout + run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "cache_unusable"
    assert str(cache) in error["message"] and "MATH_CACHE_DIR" in error["message"]


def test_arxivs_400_is_exit_2_naming_the_bad_id(run_against):
    """The recorded 400 answer (id_list=abc) served for an id our own check accepts."""
    with ScriptedServer([reply("id_abc_")]) as server:
        run = run_against(server, "get", "1234.12345")
    assert run.returncode == 2
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "bad_id" and "'abc'" in error["message"]


def test_the_deprecated_names_ids_max_results_and_start_still_work(run_against):
    """`ids` (now `get`), --max-results (now --limit) and --start (now --offset) are aliases:
    the same requests and the same JSON as the new names."""
    with ScriptedServer([reply("id_astro-ph_0601001_")] * 2) as server:
        old = run_against(server, "ids", "astro-ph/0601001", "--no-cache")
        new = run_against(server, "get", "astro-ph/0601001", "--no-cache")
        assert server.received[0].path == server.received[1].path
    assert old.returncode == new.returncode == 0, old.stdout + new.stdout
    assert old.json()["command"] == new.json()["command"] == "get"
    assert old.json()["papers"] == new.json()["papers"]
    with ScriptedServer() as server:
        for args in (
            ["--max-results", "7", "--start", "29995"],
            ["--limit", "7", "--offset", "29995"],
        ):
            run = run_against(server, "search", "--all", "x", *args)
            assert run.returncode == 2  # offset + limit past arXiv's 30,000 cap: both were read
            assert "start 29995, max_results 7" in json.loads(run.stdout)["error"]["message"]


def test_help_names_the_new_names_and_marks_the_old_ones_deprecated(run_against):
    with ScriptedServer() as server:
        top = run_against(server, "--help").stdout
        search = run_against(server, "search", "--help").stdout
    assert "get (ids)" in top and "ids: deprecated alias" in top
    usage = search.split("\n\n")[0]
    assert "--limit N" in usage and "--offset N" in usage
    assert "--max-results" not in usage and "--start" not in usage
    assert "--max-results: deprecated alias" in search and "--start: deprecated" in search

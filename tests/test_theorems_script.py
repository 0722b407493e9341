"""`arxiv_query.py theorems` as a user runs it: a subprocess against the stand-in, which replays
../shared/recordings/arxiv-src (the papers, a PDF-only answer, arXiv's error pages); the JSON is
checked against schemas/theorems.schema.json. The hostile archives are SYNTHESIZED
(tests/support/hostile_archives.py) and served by a scripted local server.
"""

from __future__ import annotations

import json
import os

import pytest
from mathtools.core import schemas
from support import arxiv_src
from support.hostile_archives import HOSTILE
from support.scripted_server import Reply, ScriptedServer


def theorems(script, *args: str, env=None):
    return script("arxiv_query.py", "theorems", *args, env=env)


def one_error_line(run) -> dict:
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout
    assert "Traceback" not in run.stderr
    return json.loads(lines[0])["error"]


@pytest.mark.parametrize("arxiv_id", arxiv_src.PAPERS)
def test_the_five_papers_end_to_end(script, standin, arxiv_id):
    arxiv_src.require()
    run = theorems(script, arxiv_id)
    assert run.returncode == 0, run.stdout + run.stderr
    data = run.json()
    assert not schemas.schema_errors("theorems", data)
    truth = arxiv_src.expected(arxiv_id)
    assert (data["id"], data["version"], data["status"]) == (arxiv_id, None, "ok")
    assert data["src_url"] == f"{standin.arxiv_src_url}/{arxiv_id}"
    assert data["main_file"] == truth["main_tex"]
    assert sorted(data["files"]) == sorted(f["name"] for f in arxiv_src.load(arxiv_id)["files"])
    got = [(s["env"], s["printed"], s["note"]) for s in data["statements"]]
    assert got == [(s["env"], s["printed"], s["note"]) for s in truth["statements"]]
    assert data["macros"] and data["environments"]


def test_version_out_and_cache(script, standin, tmp_path):
    """A version in the id or by --version is asked for; --out writes the JSON (with the marker)
    and prints one line per statement; the second call is answered from the cache."""
    arxiv_src.require()
    run = theorems(script, "arXiv:1707.08567v1")
    assert run.json()["src_url"].endswith("/src/1707.08567v1")
    run = theorems(script, "2405.16513", "--out", "hk.json")
    assert run.returncode == 0, run.stdout
    assert run.stdout.splitlines() == [
        "arxiv theorems 2405.16513: 4 statements from HK2024-counterexample.tex (files: 1)",
        "Conjecture 1.1 (Viterbo, 2000) | HK2024-counterexample.tex:78",
        "Theorem 1.2 | HK2024-counterexample.tex:98",
        "Proposition 1.3 | HK2024-counterexample.tex:114",
        "Remark 1.4 | HK2024-counterexample.tex:137",
    ]
    written = json.loads((tmp_path / "hk.json").read_text(encoding="utf-8"))
    assert written["written_by"] == "math" and not schemas.schema_errors("theorems", written)
    calls = standin.calls("arxiv")
    assert theorems(script, "2405.16513").returncode == 0
    assert standin.calls("arxiv") == calls  # from the cache
    asked = theorems(script, "2405.16513", "--version", "3").json()
    assert (asked["version"], asked["status"], asked["reason"]) == (
        3,
        "no_latex_source",
        "unknown_id",
    )


@pytest.mark.parametrize(
    ("asked", "reason"),
    [
        ("1707.08567v1", "pdf_only"),
        ("2501.99999", "unknown_id"),
        ("2101.10016", "withdrawn"),
    ],
)
def test_a_paper_without_source_is_a_status_not_an_error(script, standin, asked, reason):
    arxiv_src.require()
    run = theorems(script, asked)
    assert run.returncode == 0, run.stdout
    data = run.json()
    assert not schemas.schema_errors("theorems", data)
    assert (data["status"], data["reason"], data["statements"]) == ("no_latex_source", reason, [])
    assert data["message"]


def test_a_failing_service_is_an_error_not_a_missing_source(script, standin):
    standin.fail("arxiv", 503)
    run = theorems(script, "2008.10111")
    assert run.returncode == 3
    error = one_error_line(run)
    assert error["code"] == "service_unavailable" and "still failing" in error["message"]


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_archive_is_one_error_line(script, case, tmp_path):
    """Synthesized: each hostile archive, served as arXiv's 200 answer, ends the call in one JSON
    line naming the paper, exit 3."""
    build, code = HOSTILE[case]
    with ScriptedServer([Reply(200, build(), {"Content-Type": "application/gzip"})]) as server:
        env = {**os.environ, "MATH_ARXIV_SRC_URL": f"{server.url}/src", "MATH_HTTP_RETRIES": "0"}
        run = theorems(script, "2101.00001", env=env)
    assert run.returncode == 3, run.stdout + run.stderr
    error = one_error_line(run)
    assert error["code"] == code and "arXiv:2101.00001" in error["message"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["abc"], "bad_id"),
        (["2101.00001v2", "--version", "3"], "bad_version"),
        (["2101.00001", "--version", "0"], "bad_version"),
        (["2101.00001v0"], "bad_version"),
        ([], "usage"),
    ],
)
def test_bad_input_is_one_line_exit_2(script, args, code):
    run = theorems(script, *args)
    assert run.returncode == 2
    assert one_error_line(run)["code"] == code


def test_a_malformed_source_url_is_the_environments_fault(script):
    env = {**os.environ, "MATH_ARXIV_SRC_URL": "export.arxiv.org/src"}
    run = theorems(script, "2101.00001", env=env)
    assert run.returncode == 4
    error = one_error_line(run)
    assert error["code"] == "bad_environment" and "MATH_ARXIV_SRC_URL" in error["message"]

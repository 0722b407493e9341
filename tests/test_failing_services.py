"""A service whose base URL answers 404 or an HTML page to everything is failing: its scripts end
with exit 3, nothing of it is cached, and what it did not answer is named nowhere as checked.

Synthesized: a local server (tests/support/scripted_server.py) stands for a wrong base URL, a proxy
or a maintenance page; no recording holds these answers.
"""

from __future__ import annotations

import os
import sqlite3

import pytest
from conftest import run_script
from support.scripted_server import Reply, ScriptedServer

NOT_FOUND_PAGE = Reply(404, "<html><body>Not Found</body></html>", {"Content-Type": "text/html"})
PLAIN_404 = Reply(404, "404 page not found", {"Content-Type": "text/plain"})


def cached_rows(tmp_path) -> int:
    path = tmp_path / "cache" / "http-cache.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return db.execute("SELECT count(*) FROM responses").fetchone()[0]


@pytest.mark.parametrize("reply", [NOT_FOUND_PAGE, PLAIN_404], ids=["html", "plain"])
@pytest.mark.parametrize(
    ("variable", "path", "call"),
    [
        ("MATH_CROSSREF_API_URL", "/crossref", ("crossref_lookup.py", "search", "--query", "x")),
        ("MATH_CROSSREF_API_URL", "/crossref", ("crossref_lookup.py", "get", "10.1007/bf02551274")),
        ("MATH_ZBMATH_API_URL", "/zbmath", ("zbmath_lookup.py", "search", "--query", "x")),
        ("MATH_ZBMATH_API_URL", "/zbmath", ("zbmath_lookup.py", "get", "Zbl 0049.31002")),
        ("MATH_S2_API_URL", "/s2", ("s2_lookup.py", "match", "--title", "Some title")),
    ],
)
def test_a_service_answering_404_to_everything_is_failing_and_nothing_is_cached(
    tmp_path, variable, path, call, reply
):
    with ScriptedServer(default=reply) as server:
        env = {**os.environ, variable: server.url + path, "MATH_HTTP_RETRIES": "0"}
        run = run_script(*call, env=env)
    assert run.returncode == 3, run.stdout + run.stderr
    assert run.json()["error"]["code"] in ("service_unavailable", "service_error")
    assert cached_rows(tmp_path) == 0

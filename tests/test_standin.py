"""The stand-in server (tests/support/standin.py) answers as the recordings show the services do."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import requests
from support.arxiv_recordings import body
from support.standin import ROOT, StandIn, load_index


@pytest.fixture(scope="module")
def standin():
    with StandIn() as server:
        yield server


def entry_ids(feed: str) -> list[str]:
    return re.findall(r"<id>https?://arxiv\.org/abs/([^<]+)</id>", feed)


def test_index_holds_every_recorded_record():
    index = load_index()
    # every distinct recorded entry (the error entry apart), and the Viterbo sample's 5
    # (examples/viterbo/arxiv-records.xml), each abstract read from the paper's own source
    assert len(index.arxiv) == 106 + 5
    assert index.arxiv["2405.16513"].summary.startswith("We provide a counterexample to Viterbo")
    assert "2405.16513" in index.arxiv and "Haim-Kislev" in index.arxiv["2405.16513"].authors
    assert "1707.08567" in index.arxiv and "hep-ex/0406020" in index.arxiv
    assert "Ramírez" in index.arxiv["2405.13786"].xml  # bytes recovered with latin-1
    full = [r for r in index.s2_papers.values() if "authors" in r]
    assert len(full) >= 100


def test_id_list_drops_unknown_ids_and_keeps_the_asked_order(standin):
    reply = requests.get(
        standin.arxiv_url, params={"id_list": "1707.08567,0808.05394,1605.08386v1"}, timeout=5
    )
    assert reply.status_code == 200
    assert entry_ids(reply.text) == ["1707.08567v1", "1605.08386v1"]
    assert "<opensearch:totalResults>2</opensearch:totalResults>" in reply.text
    cut = requests.get(
        standin.arxiv_url, params={"id_list": "1707.08567,1605.08386", "max_results": 1}, timeout=5
    )
    assert entry_ids(cut.text) == ["1707.08567v1"]  # max_results applies, as on arXiv


def test_a_malformed_id_gets_the_recorded_error_entry(standin):
    reply = requests.get(standin.arxiv_url, params={"id_list": "1605.08386,bad<id"}, timeout=5)
    assert reply.status_code == 400
    assert "<title>Error</title>" in reply.text
    assert "incorrect id format for bad&lt;id" in reply.text


def test_a_recorded_search_page_is_served_byte_for_byte(standin):
    params = {"search_query": "testing", "start": 10, "max_results": 10, "sortBy": "relevance"}
    reply = requests.get(standin.arxiv_url, params=params, timeout=5)
    assert reply.content == body("q_testing_s10_m10_")


def test_title_queries_are_evaluated_over_the_index(standin):
    query = 'ti:"group testing" AND (cat:cs.IT OR cat:math.CO) ANDNOT ti:dilution'
    reply = requests.get(standin.arxiv_url, params={"search_query": query}, timeout=5)
    ids = entry_ids(reply.text)
    assert "1009.3186v2" in ids
    assert "2008.01944v1" not in ids  # "... Group Testing with Dilution ..."
    titles = [load_index().arxiv[i.rsplit("v", 1)[0]].title.lower() for i in ids]
    assert all("group testing" in title for title in titles)


def test_s2_batch_is_aligned_with_nulls(standin):
    reply = requests.post(
        f"{standin.s2_url}/paper/batch",
        params={"fields": "title,year"},
        json={"ids": ["ARXIV:1410.5401", "DOI:10.0000/nothing", "CorpusId:1438116"]},
        timeout=5,
    )
    records = reply.json()
    assert [r and r["title"] for r in records] == [
        "Neural Turing Machines",
        None,
        "Quantum theory, the Church–Turing principle and the universal quantum computer",
    ]
    assert set(records[0]) == {"paperId", "title", "year"}  # only the fields asked


def test_s2_look_ups_and_title_match(standin):
    missing = requests.get(f"{standin.s2_url}/paper/0", params={"fields": "title"}, timeout=5)
    assert (missing.status_code, missing.json()) == (404, {"error": "Paper with id 0 not found"})
    match = requests.get(
        f"{standin.s2_url}/paper/search/match", params={"query": "neural turing machine"}, timeout=5
    )
    assert match.json()["data"][0]["title"] == "Neural Turing Machines"
    none = requests.get(
        f"{standin.s2_url}/paper/search/match", params={"query": "zebra stripes"}, timeout=5
    )
    assert (none.status_code, none.json()) == (404, {"error": "Title match not found"})


def test_failing_a_service_and_counting_requests():
    with StandIn() as server:
        server.fail("s2", 500)
        failed = requests.post(f"{server.s2_url}/paper/batch", json={"ids": []}, timeout=5)
        assert (failed.status_code, failed.json()) == (500, {"message": "Internal Server Error"})
        server.recover("s2")
        assert requests.post(f"{server.s2_url}/paper/batch", json={"ids": []}, timeout=5).ok
        requests.get(server.arxiv_url, params={"id_list": "1605.08386"}, timeout=5)
        assert server.counts == {"s2 batch": 2, "arxiv id_list": 1}
        assert (server.calls("s2"), server.calls("arxiv")) == (2, 1)


@pytest.mark.needs_shared("recordings")
def test_command_line_mode_prints_its_urls():
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "support" / "standin.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        urls = json.loads(process.stdout.readline())
        reply = requests.get(
            urls["MATH_ARXIV_API_URL"], params={"id_list": "1605.08386"}, timeout=5
        )
        assert entry_ids(reply.text) == ["1605.08386v1"]
        assert urls["MATH_S2_API_URL"].endswith("/graph/v1")
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.needs_shared("recordings")
def test_command_line_mode_on_a_busy_port_says_so_in_one_line():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run(
            [sys.executable, str(ROOT / "tests" / "support" / "standin.py"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == f"standin.py: cannot listen on 127.0.0.1:{port}: Address already in use\n"


def test_the_invented_world_serves_the_repositorys_papers_alone(monkeypatch):
    """StandIn(world="invented") needs no ../shared: its arXiv answers hold the invented entries
    only, Semantic Scholar its two records, and /src the invented source, gzipped."""
    import gzip

    from support.worlds import INVENTED

    with StandIn(world=INVENTED) as invented:
        feed = requests.get(
            invented.arxiv_url, params={"id_list": "2699.00001,2405.16513"}, timeout=5
        ).text
        assert entry_ids(feed) == ["2699.00001v1"]
        batch = requests.post(
            f"{invented.s2_url}/paper/batch",
            params={"fields": "title"},
            json={"ids": ["arXiv:2699.00002", "arXiv:2405.16513"]},
            timeout=5,
        ).json()
        assert batch[0]["title"].startswith("Invented example: ") and batch[1] is None
        source = requests.get(f"{invented.arxiv_src_url}/2699.00001v1", timeout=5)
        assert source.status_code == 200
        assert b"\\begin{theorem}" in gzip.decompress(source.content)
        assert requests.get(f"{invented.arxiv_src_url}/2405.16513", timeout=5).status_code == 404

"""arXiv LaTeX sources (mathtools/services/latex_source.py): reading answers from their bytes,
unpacking safely, and the client against the stand-in replaying ../shared/recordings/arxiv-src.

The recorded answers are real papers' files in rebuilt wrappers plus synthesized error pages (see
that folder's README). Every hostile archive here is SYNTHESIZED in the test (a gzip bomb, paths
leaving the archive, links, devices, 10,000 members, broken gzip and tar, a name that is not
UTF-8), as are the answers no recording holds (a 403, "File unavailable", a foreign 404, a 400,
a truncated body, legacy Content-Encoding headers).
"""

from __future__ import annotations

import gzip
import hashlib
import tarfile
import time

import pytest
from mathtools.core import config
from mathtools.core.errors import EXIT_SERVICE, ServiceError
from mathtools.services import latex_source
from mathtools.services.arxiv import ArxivClient
from mathtools.services.http import RequestRejected
from mathtools.services.latex_source import (
    LatexSourceClient,
    NoLatexSource,
    Unpacked,
    UnusableLatexSource,
)
from support import arxiv_src
from support.hostile_archives import HOSTILE, special, tar_of
from support.scripted_server import Reply, ScriptedServer


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_archive_is_refused_in_one_typed_error(case):
    """Synthesized: each hostile archive raises UnusableLatexSource (a ServiceError: exit 3) naming
    the paper and why, in one line."""
    build, code = HOSTILE[case]
    with pytest.raises(UnusableLatexSource) as raised:
        latex_source.read_body(build(), "arXiv:2101.00001")
    error = raised.value
    assert error.code == code
    assert error.exit_code == EXIT_SERVICE
    assert "arXiv:2101.00001" in error.message and "\n" not in error.message


def test_a_truncated_gzip_is_its_own_error(monkeypatch):
    """Synthesized: half a gzip body (the client retries it as an unusable answer)."""
    whole = gzip.compress(b"\\documentclass{article}" * 1000)
    with pytest.raises(latex_source.TruncatedGzip):
        latex_source.read_body(whole[: len(whole) // 2])


def test_the_size_limits_per_file_and_in_all(monkeypatch):
    """Synthesized: a file over MAX_FILE_BYTES, and files together over MAX_UNPACKED_BYTES in a
    bare tar (limits lowered here so that the test stays small)."""
    monkeypatch.setattr(latex_source, "MAX_FILE_BYTES", 1000)
    with pytest.raises(UnusableLatexSource, match="larger than"):
        latex_source.read_body(tar_of(("big.tex", b"x" * 1001)))
    monkeypatch.setattr(latex_source, "MAX_UNPACKED_BYTES", 2500)
    with pytest.raises(UnusableLatexSource, match="hold more than"):
        latex_source.read_body(tar_of(*[(f"{n}.tex", b"x" * 900) for n in range(3)]))


def test_safe_names_are_normalised_and_folders_skipped():
    """Synthesized: `./a.tex` is a.tex, a folder entry is no file, `a/../b.tex` stays inside."""
    folder = special("sub", tarfile.DIRTYPE)
    unpacked = latex_source.read_body(
        gzip.compress(tar_of(folder, ("./a.tex", b"A"), ("sub/../b.tex", b"B")))
    )
    assert unpacked == Unpacked("tar.gz", {"a.tex": b"A", "b.tex": b"B"})
    with pytest.raises(UnusableLatexSource, match="empty"):
        latex_source.read_body(b"")


# --- the recorded answers ------------------------------------------------------------------------


@pytest.mark.parametrize("name", arxiv_src.PAPERS)
def test_the_recorded_sources_unpack_to_their_files(name):
    recorded = arxiv_src.load(name)
    unpacked = latex_source.read_body(arxiv_src.body(name), name)
    assert isinstance(unpacked, Unpacked)
    assert unpacked.archive == ("gz" if recorded["archive"].startswith("gzip") else "tar.gz")
    digests = {n: hashlib.sha256(data).hexdigest() for n, data in unpacked.members.items()}
    assert digests == {f["name"]: f["sha256"] for f in recorded["files"]}


def test_the_legacy_answers_a_bare_tar_and_plain_tex_are_read_too():
    """What a client gets when it undid the pre-2024 `Content-Encoding: x-gzip`."""
    tar = latex_source.gunzip(arxiv_src.body("2405.16513"))
    assert latex_source.read_body(tar).archive == "tar"
    tex = latex_source.gunzip(arxiv_src.body("1010.3170"))
    assert latex_source.read_body(tex) == Unpacked("tex", {"paper.tex": tex})


def test_a_pdf_only_submission_has_no_source():
    outcome = latex_source.read_body(arxiv_src.body("1707.08567v1"), "arXiv:1707.08567v1")
    assert isinstance(outcome, NoLatexSource) and outcome.reason == "pdf_only"


@pytest.mark.parametrize(
    ("name", "reason"),
    [("2501.99999", "unknown_id"), ("abc", "invalid_id"), ("2101.10016", "withdrawn")],
)
def test_the_recorded_error_pages_name_their_reason(name, reason):
    recorded = arxiv_src.load(name)
    page = latex_source.no_latex_source_page(recorded["status_code"], arxiv_src.body(name), name)
    assert page is not None and page.reason == reason


def test_pages_no_recording_holds():
    """Synthesized from arxiv-browse's texts: File unavailable, a 403 (named or not); a 404
    that is not arXiv's is not read as a missing paper."""
    unavailable = b"<html><h1>File unavailable for 2101.00001</h1></html>"
    assert latex_source.no_latex_source_page(404, unavailable, "x").reason == "unavailable"
    assert latex_source.no_latex_source_page(403, b"<h1>Access denied</h1>", "x").reason == (
        "access_denied"
    )
    assert latex_source.no_latex_source_page(403, b"Forbidden", "x").reason == "access_denied"
    assert latex_source.no_latex_source_page(404, b"<h1>Not Found</h1>", "x") is None


# --- the client ----------------------------------------------------------------------------------


def test_the_client_fetches_sources_and_answers_a_second_time_from_the_cache(standin):
    arxiv_src.require()
    client = LatexSourceClient()
    answer = client.fetch("2008.10111")
    assert answer.url == f"{standin.url}/src/2008.10111"
    assert isinstance(answer.outcome, Unpacked) and len(answer.outcome.members) == 8
    again = client.fetch("2008.10111")
    assert again.from_cache and again.outcome == answer.outcome
    assert client.network_calls == 1
    pdf = client.fetch("1707.08567", 1)
    assert pdf.url.endswith("/src/1707.08567v1") and pdf.outcome.reason == "pdf_only"
    for arxiv_id, reason in (("2501.99999", "unknown_id"), ("2101.10016", "withdrawn")):
        outcome = client.fetch(arxiv_id).outcome
        assert isinstance(outcome, NoLatexSource) and outcome.reason == reason
    assert client.fetch("2405.16513", 7).outcome.reason == "unknown_id"  # no such version


def test_the_e_print_redirect_is_followed(standin, monkeypatch):
    """The recorded 301 from /e-print/<id> to a relative /src/<id>."""
    arxiv_src.require()
    monkeypatch.setenv("MATH_ARXIV_SRC_URL", f"{standin.url}/e-print")
    answer = LatexSourceClient().fetch("2008.10111")
    assert isinstance(answer.outcome, Unpacked) and answer.outcome.archive == "tar.gz"
    assert standin.counts["arxiv src"] == 2


def test_a_failing_service_is_named_failing_never_not_found(standin):
    standin.fail("arxiv", 503)
    with pytest.raises(ServiceError) as raised:
        LatexSourceClient().fetch("2008.10111")
    assert raised.value.code == "service_unavailable" and "still failing" in raised.value.message


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        (Reply(404, "<h1>Not Found</h1>"), ServiceError),
        (Reply(400, "bad"), RequestRejected),
        (Reply(410, "gone"), ServiceError),
    ],
)
def test_answers_that_are_not_arxivs_pages_are_errors(reply, error, monkeypatch):
    """Synthesized: a foreign 404 (a wrong MATH_ARXIV_SRC_URL), a 400, an unexpected status."""
    with ScriptedServer([reply]) as server:
        monkeypatch.setenv("MATH_ARXIV_SRC_URL", f"{server.url}/src")
        with pytest.raises(error):
            LatexSourceClient().fetch("2101.00001")


def test_headers_are_not_trusted(monkeypatch):
    """Synthesized: the recorded tar.gz sent with the legacy `Content-Encoding: x-gzip` (the HTTP
    layer undoes it: a bare tar arrives) and a misleading Content-Type; a truncated gzip answer
    is asked again."""
    arxiv_src.require()
    body = arxiv_src.body("2405.16513")
    legacy = {"Content-Type": "application/x-eprint-tar", "Content-Encoding": "x-gzip"}
    replies = [Reply(200, body, legacy), Reply(200, body[:100]), Reply(200, body, {})]
    monkeypatch.setenv("MATH_HTTP_RETRIES", "1")
    with ScriptedServer(replies) as server:
        monkeypatch.setenv("MATH_ARXIV_SRC_URL", f"{server.url}/src")
        client = LatexSourceClient(use_cache=False)
        assert client.fetch("2405.16513").outcome.archive == "tar"
        retried = client.fetch("2405.16513")
    assert retried.outcome.archive == "tar.gz" and len(server.received) == 3


def test_the_source_client_shares_the_arxiv_api_rate_limit(standin, monkeypatch):
    """One limiter for the API and the sources: a source request after an API request waits
    MATH_ARXIV_MIN_INTERVAL, across clients (and processes: it is the same stamp file)."""
    arxiv_src.require()
    monkeypatch.setenv("MATH_ARXIV_MIN_INTERVAL", "0.6")
    api, source = ArxivClient(), LatexSourceClient()
    assert source.http.limiter.stamp == api.http.limiter.stamp
    assert source.http.limiter.interval == config.min_interval("arxiv") == 0.6
    started = time.monotonic()
    api.fetch_ids(["1605.08386"])
    source.fetch("2405.16513")
    assert time.monotonic() - started >= 0.6
    first, second = standin.received[-2:]
    assert second.arrived - first.arrived >= 0.6


def test_the_source_url_is_checked_like_the_others(monkeypatch):
    from mathtools.core.errors import EnvironmentProblem

    monkeypatch.setenv("MATH_ARXIV_SRC_URL", "export.arxiv.org/src")
    with pytest.raises(EnvironmentProblem, match="MATH_ARXIV_SRC_URL"):
        config.arxiv_src_url()
    monkeypatch.setenv("MATH_ARXIV_SRC_URL", "https://example.org/src/")
    assert LatexSourceClient().url("math/0601001", 2) == "https://example.org/src/math/0601001v2"

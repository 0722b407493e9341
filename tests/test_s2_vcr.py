"""Semantic Scholar replayed by vcrpy itself, at the client's default base URL.

vcrpy intercepts the HTTP layer's requests (record_mode "none": it never records and never lets a
request through), so these tests show that the client, aimed at the real
https://api.semanticscholar.org, sends the recorded requests and reads the recorded answers.
Only the vcrpy-flavoured cassettes can be played this way; tests/test_semantic_scholar.py
replays every cassette through a local server.

Requests match on method, scheme, host and port (vcrpy's own matchers) and on path, query and
JSON body through support.cassettes.mismatches, which knows that our client writes a DOI as
`DOI:...` where the recording client wrote it bare.
"""

from __future__ import annotations

import pytest
import vcr
from conftest import RECORDINGS
from mathtools.services.semantic_scholar import S2Client
from support.cassettes import Interaction, mismatches
from support.scripted_server import Received
from vcr.errors import CannotOverwriteExistingCassetteException

S2 = RECORDINGS / "s2"
pytestmark = pytest.mark.needs_shared("recordings")


def replaying(cassette: str, ignore_params: tuple[str, ...] = ()):
    """vcrpy playing `cassette` and refusing every request it does not hold."""

    def same_s2_request(live, recorded):
        assert live.method == recorded.method  # vcrpy runs every matcher: a GET has no JSON body
        got = Received(live.method, live.uri, {}, live.body or b"", 0.0)
        want = Interaction(recorded.method, recorded.uri, recorded.body or b"", 0, {}, b"")
        assert not mismatches([got], [want], ignore_params)

    player = vcr.VCR(record_mode="none")
    player.register_matcher("s2_request", same_s2_request)
    match_on = ("method", "scheme", "host", "port", "s2_request")
    return player.use_cassette(str(S2 / cassette), match_on=match_on)


@pytest.fixture(autouse=True)
def default_base_url(monkeypatch):
    monkeypatch.delenv("MATH_S2_API_URL")  # the real https://api.semanticscholar.org/graph/v1


def test_search_replays_with_vcrpy():
    with replaying("test_search_paper.yaml") as cassette:
        result = S2Client().search("turing", limit=100, fields="title", fields_of_study=None)
    assert cassette.all_played and cassette.play_count == 1
    assert result.total_results == 70499 and len(result.papers) == 100
    assert result.papers[0].s2_paper_id == "7cbc2a7843411a1768ab762930707af0a3c33a19"
    assert result.request_urls[0].startswith("https://api.semanticscholar.org/graph/v1/")


def test_get_replays_with_vcrpy():
    with replaying("test_get_paper.yaml") as cassette:
        result = S2Client().get(["10.1093/mind/lix.236.433"], fields="title")
    assert cassette.all_played
    [paper] = result.papers
    assert paper.title == "Computing Machinery and Intelligence"
    assert paper.key == "S2:2d5673caa9e6af3a7b82a43f19ee920992db07ad"


def test_batch_replays_with_vcrpy():
    asked = ["CorpusId:470667", "10.2139/ssrn.2250500", "0f40b1f08821e22e859c6050916cec3667778613"]
    with replaying("test_get_papers.yaml") as cassette:
        result = S2Client().batch(asked, fields="authors")
    assert cassette.all_played
    assert result.ids == asked and None not in result.papers
    assert result.papers[0].authors == ["Marianne Bertrand", "E. Duflo", "S. Mullainathan"]


def test_match_replays_with_vcrpy():
    # The recording client also sent offset and limit, which /paper/search/match ignores.
    with replaying("test_search_paper_match_title.yaml", ("offset", "limit")) as cassette:
        result = S2Client().match("mining association rules between", fields="title")
    assert cassette.all_played
    assert [p.title for p in result.papers] == [
        "Mining association rules between sets of items in large databases"
    ]


@pytest.mark.parametrize(
    "call",
    [
        lambda client: client.get(["10.1093/mind/lix.236.433"], fields="abstract"),
        lambda client: client.batch(["CorpusId:470667"], fields="authors"),
    ],
    ids=["other-fields", "other-ids"],
)
def test_a_request_the_cassette_does_not_hold_never_reaches_the_network(call):
    with replaying("test_get_papers.yaml"), pytest.raises(CannotOverwriteExistingCassetteException):
        call(S2Client())

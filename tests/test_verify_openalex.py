"""OpenAlex inside the verification gate, through the registry (core/sources.py's row, the
client services/openalex.py, gate/lookups.py's RECORD_CLIENTS): verify_batch.py end to end
against the stand-in, which answers OpenAlex's requests from the 442 real answers refchecker
cached (../shared/recordings/openalex/refchecker/api_cache). The works cited here are in no other
recording, so only OpenAlex can confirm them; it is asked last, for the DOIs no other source
identified."""

from __future__ import annotations

import pytest
from mathtools.services.openalex import OpenalexClient, abstract, to_paper
from support.faults import _json_body, _with_json
from support.verified import verify_batch

PENDING = "API error - verification pending"

ALPHAFOLD = {
    "key": "jumper2021",
    "title": "Highly accurate protein structure prediction with AlphaFold",
    "authors": "John Jumper, Richard Evans, Alexander Pritzel et al.",
    "year": 2021,
    "doi": "10.1038/s41586-021-03819-2",
}
# A book OpenAlex records with no venue (type "book", no primary source), cited as an article
BOOK_AS_ARTICLE = {
    "key": "chumash",
    "title": "Foundations of Chumash Complexity",
    "year": 2005,
    "doi": "10.2307/j.ctvdjrq4w",
    "venue": "American Antiquity",
    "volume": "70",
    "pages": "1-20",
}


@pytest.mark.needs_shared("recordings")
def test_openalex_confirms_a_real_paper_by_its_doi(script, standin):
    document, results = verify_batch(script, [ALPHAFOLD])
    result = results["jumper2021"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["source"] == "openalex" and result["sources"] == ["openalex"]
    assert "(via OpenAlex)" in result["reason"]
    assert result["paper"]["venue"] == "Nature"
    assert result["verified_via"][0].startswith(standin.openalex_url + "/works?filter=doi")
    assert "openalex" in document["sources_queried"]
    assert standin.calls("openalex") == 1


@pytest.mark.needs_shared("recordings")
def test_openalex_is_not_asked_for_what_another_source_identified(script, standin):
    cybenko = {
        "key": "cybenko",
        "title": "Approximation by superpositions of a sigmoidal function",
        "authors": "G. Cybenko",
        "year": 1989,
        "doi": "10.1007/BF02551274",
    }
    _, results = verify_batch(script, [cybenko])
    assert results["cybenko"]["status"] == "CONFIRMED"
    assert "openalex" not in results["cybenko"]["sources"]
    assert standin.calls("openalex") == 0


@pytest.mark.needs_shared("recordings")
def test_an_openalex_book_vouches_that_a_citation_as_an_article_is_wrong(script, standin):
    """OpenAlex's type "book" says what the work is, as zbMATH Open's and Crossref's do: the
    journal the citation names is a discrepancy, and no other source is asked for the type."""
    _, results = verify_batch(script, [BOOK_AS_ARTICLE])
    result = results["chumash"]
    assert result["status"] != "CONFIRMED", result["reason"]
    assert result["paper"]["document_type"] == "book"
    assert "book" in result["reason"]
    assert standin.calls("zbmath") == 1  # the DOI look-up; no search of the work's type


@pytest.mark.needs_shared("recordings")
def test_a_doi_is_said_not_to_exist_only_once_openalex_answered(script, standin):
    cited = {"key": "ghost", "title": "A paper nobody wrote", "doi": "10.1038/s41586-099-99999-9"}
    _, answered = verify_batch(script, [cited])
    assert (
        "not found in Semantic Scholar, zbMATH Open, Crossref and OpenAlex"
        in (answered["ghost"]["reason"])
    )
    standin.fail("openalex", 503)
    _, failed = verify_batch(
        script, [{**cited, "key": "ghost2", "doi": "10.1038/s41586-099-99999-8"}]
    )
    assert failed["ghost2"]["reason"].startswith(PENDING), failed["ghost2"]["reason"]
    assert "OpenAlex unavailable" in failed["ghost2"]["reason"]


def _untitled(reply):
    """SYNTHESIZED: every work of an OpenAlex list answer without its title and display name
    (a malformed answer; no recording holds one)."""
    data = _json_body(reply)
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return reply
    works = [{**work, "title": None, "display_name": None} for work in data["results"]]
    return _with_json(reply, {**data, "results": works})


@pytest.mark.needs_shared("recordings")
def test_synthesized_malformed_works_make_openalex_a_failing_source_not_a_missing_paper(
    script, standin
):
    standin.corrupt("openalex", _untitled)
    document, results = verify_batch(script, [ALPHAFOLD])
    result = results["jumper2021"]
    assert result["status"] == "UNCONFIRMED"
    assert result["reason"].startswith(PENDING) and "OpenAlex unavailable" in result["reason"]
    assert "malformed" in document["source_errors"]["openalex"]


@pytest.mark.needs_shared("recordings")
def test_the_client_reads_every_recorded_work_that_has_a_title(standin):
    """Each recorded work with a title is a Paper; the recorded works without one stand for no
    paper."""
    works = standin.index.openalex_works
    titled = [w for w in works if (w.get("title") or w.get("display_name") or "").strip()]
    assert 0 < len(works) - len(titled) < 10
    assert sum(to_paper(work) is not None for work in works) == len(titled)


def test_a_synthesized_inverted_index_reads_back_in_the_words_order():
    """SYNTHESIZED: the recorded works carry no abstract_inverted_index (refchecker's cache
    dropped it); this one is made in OpenAlex's shape, a word at each of its positions."""
    assert abstract({"A": [0], "bound": [2, 5], "sharp": [1], "is": [3, 4]}) == (
        "A sharp bound is is bound"
    )
    assert abstract({"A": [0], "junk": ["x", True]}) == "A"
    assert abstract(["not", "an", "index"]) is None


@pytest.mark.needs_shared("recordings")
def test_the_client_searches_and_looks_up_through_the_stand_in(standin):
    client = OpenalexClient(use_cache=False)
    found, urls = client.look_up("DOI", [ALPHAFOLD["doi"].upper(), "10.1000/none"])
    assert list(found) == [ALPHAFOLD["doi"]] and len(urls) == 1
    result = client.search(ALPHAFOLD["title"], 5)
    assert result.papers[0].title == ALPHAFOLD["title"]

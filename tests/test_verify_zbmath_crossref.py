"""zbMATH Open and Crossref inside the verification gate: verify_batch.py end to end against the
stand-in, which answers from the real zbMATH and Crossref recordings (../shared/recordings/zbmath,
../shared/recordings/crossref). None of these papers is in the arXiv or Semantic Scholar recordings,
so only the new sources can confirm them."""

from __future__ import annotations

import json

import pytest
from support.verified import verify_batch

PENDING = "API error - verification pending"

# The J. Number Theory article only zbMATH holds (Zbl 1409.11141), cited by title.
ZBMATH_ARTICLE = {
    "key": "hofmann-zhang",
    "title": "Valuations of $p$-adic regulators of cyclic cubic fields",
    "authors": ["Hofmann, T.", "Zhang, Y."],
    "year": 2016,
}
# A book (an edited proceedings volume: editors, no authors), cited by title.
BOOK = {
    "key": "ants-xiii",
    "title": "ANTS XIII. Proceedings of the thirteenth algorithmic number theory symposium, "
    "University of Wisconsin-Madison, WI, USA, July 16--20, 2018",
    "authors": ["Scheidler, R.", "Sorenson, J."],
    "year": 2019,
}
# Cybenko 1989, known to Crossref only: a DOI-only article.
CROSSREF_ARTICLE = {
    "key": "cybenko",
    "title": "Approximation by superpositions of a sigmoidal function",
    "authors": "G. Cybenko",
    "year": 1989,
    "doi": "10.1007/BF02551274",
}
# The licence-restricted record (Ore, Am. Math. Mon. 59, 1952): zbMATH withholds its title and
# author name, so only its DOI and year can be compared.
RESTRICTED = {
    "key": "ore-1952",
    "title": "A title zbMATH does not show",
    "authors": ["Ore, O."],
    "year": 1952,
    "doi": "10.2307/2306804",
}


def test_a_journal_article_only_zbmath_knows_is_confirmed_by_title(script, standin):
    _, results = verify_batch(script, [ZBMATH_ARTICLE])
    result = results["hofmann-zhang"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["sources"] == ["zbmath"]
    assert "zbMATH Open" in result["reason"]
    paper = result["paper"]
    assert paper["zbl"] == "1409.11141"
    assert paper["msc"] == ["11Y40", "11R16", "11R27"]
    assert paper["document_type"] == "journal-article"
    assert (paper["venue"], paper["volume"], paper["pages"]) == (
        "Journal of Number Theory",
        "169",
        "86-102",
    )
    assert standin.counts["zbmath list"] == 1  # one |-joined ti: search


def test_a_journal_article_only_zbmath_knows_is_confirmed_by_its_doi(script, standin):
    cited = {**ZBMATH_ARTICLE, "doi": "10.1016/j.jnt.2016.05.016"}
    _, results = verify_batch(script, [cited])
    result = results["hofmann-zhang"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["sources"] == ["zbmath"]
    assert result["paper"]["zbl"] == "1409.11141"


def test_a_book_is_confirmed_through_zbmath(script, standin):
    _, results = verify_batch(script, [BOOK])
    result = results["ants-xiii"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["sources"] == ["zbmath"]
    assert result["paper"]["document_type"] == "book"
    assert result["paper"]["zbl"] == "1416.11009"
    assert result["checks"]["matched_authors"]  # the editors are the book's people


def test_a_doi_only_article_is_confirmed_through_crossref(script, standin):
    _, results = verify_batch(script, [CROSSREF_ARTICLE])
    result = results["cybenko"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["sources"] == ["crossref"]
    assert result["paper"]["venue"] == "Mathematics of Control, Signals, and Systems"
    assert standin.counts["crossref list"] == 1  # one filter=doi: call


def test_the_licence_restricted_record_is_confirmed_by_its_doi(script, standin):
    _, results = verify_batch(script, [RESTRICTED])
    result = results["ore-1952"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["sources"] == ["zbmath"]
    # The withheld title and author name were not compared; the year was.
    assert result["checks"]["title_score"] is None
    assert result["checks"]["year_diff"] == 0
    assert "zbMATH Open Web Interface" not in json.dumps(result["paper"])
    # LITERATURE.md needs a title: the cited one is kept, and the reason says so.
    assert result["paper"]["title"] == RESTRICTED["title"]
    assert result["paper"]["authors"] == ["Ore, O."]
    assert result["reason"].endswith("the title and authors as cited (zbMATH Open withholds them)")


def test_a_licence_restricted_record_never_matches_a_title_search(script, standin):
    """Without its DOI the restricted record cannot stand for the citation: its title is
    withheld, and a title search compares titles."""
    cited = {k: v for k, v in RESTRICTED.items() if k != "doi"}
    _, results = verify_batch(script, [cited])
    assert results["ore-1952"]["status"] == "UNCONFIRMED"


def test_a_zbl_number_alone_confirms(script, standin):
    _, results = verify_batch(script, [{"key": "zbl", "zbl": "Zbl 0049.31002", "year": 1952}])
    assert results["zbl"]["status"] == "CONFIRMED", results["zbl"]["reason"]
    assert results["zbl"]["paper"]["key"] == "DOI:10.2307/2306804"


def test_a_zbl_number_zbmath_lacks_does_not_exist(script, standin):
    _, results = verify_batch(script, [{"key": "zbl", "zbl": "9999.99999"}])
    assert results["zbl"]["status"] == "UNCONFIRMED"
    assert results["zbl"]["reason"] == "Zbl:9999.99999 not found in zbMATH Open"


def test_every_agreeing_service_is_named(script, standin):
    """The serial article is in zbMATH; cited with its DOI and a Zbl number, the DOI goes to
    Semantic Scholar and Crossref (neither knows it), the Zbl number to zbMATH."""
    cited = {
        "key": "obs",
        "title": "Cyclic extensions of prime degree and their $p$-adic regulators",
        "authors": "Hofmann, Tommy and Zhang, Yinan",
        "year": 2019,
        "doi": "10.2140/obs.2019.2.311",
        "zbl": "1531.11123",
    }
    document, results = verify_batch(script, [cited, CROSSREF_ARTICLE])
    assert results["obs"]["status"] == "CONFIRMED", results["obs"]["reason"]
    assert results["obs"]["sources"] == ["zbmath"]
    assert document["sources_queried"] == ["semantic_scholar", "zbmath", "crossref"]
    assert standin.counts["zbmath list"] == 1  # both identifiers in one |-joined search


MIXED = [
    {  # arXiv and Semantic Scholar both hold it
        "key": "arxiv-paper",
        "title": "Heat-bath random walks with Markov bases",
        "authors": "Stanley, C. and Windisch, T.",
        "year": 2016,
        "arxiv_id": "1605.08386",
    },
    ZBMATH_ARTICLE,
    CROSSREF_ARTICLE,
]
# The candidates each service's failure leaves pending: only arXiv can rule on an arXiv id, and
# the J. Number Theory paper is in zbMATH Open only; Cybenko's, in Crossref, is in OpenAlex too,
# which confirms it when Crossref fails.
ONLY = {
    "arxiv": {"arxiv-paper"},
    "s2": set(),
    "zbmath": {"hofmann-zhang"},
    "crossref": set(),
}
LABELS = {
    "arxiv": "arXiv",
    "s2": "Semantic Scholar",
    "zbmath": "zbMATH Open",
    "crossref": "Crossref",
}


@pytest.mark.parametrize("failing", ["arxiv", "s2", "zbmath", "crossref"])
def test_with_any_one_service_failing_the_others_verify(script, standin, failing):
    """Synthesized failure: the stand-in answers every request to one service with 503."""
    standin.fail(failing, 503)
    document, results = verify_batch(script, MIXED)
    name = {"s2": "semantic_scholar"}.get(failing, failing)
    assert set(document["source_errors"]) == {name}
    for key, result in results.items():
        if key in ONLY[failing]:
            assert result["status"] == "UNCONFIRMED"
            assert result["reason"].startswith(f"{PENDING} ({LABELS[failing]} unavailable")
        else:
            assert result["status"] == "CONFIRMED", (key, result["reason"])
            assert name not in result["sources"]
            assert f"{LABELS[failing]} unavailable, so checked without it" in result["reason"]


def test_a_journal_cited_by_its_abbreviation_is_zbmaths_venue(script, standin):
    """zbMATH gives the journal's abbreviation as mathematicians cite it ("J. Number Theory")."""
    cited = {**ZBMATH_ARTICLE, "venue": "J. Number Theory", "volume": "169", "pages": "86-102"}
    _, results = verify_batch(script, [cited])
    assert results["hofmann-zhang"]["status"] == "CONFIRMED", results["hofmann-zhang"]


def test_a_wrong_volume_is_corrected_from_zbmaths_record(script, standin):
    cited = {**ZBMATH_ARTICLE, "venue": "J. Number Theory", "volume": "196"}
    _, results = verify_batch(script, [cited])
    result = results["hofmann-zhang"]
    assert result["status"] == "CORRECTED" and result["sources"] == ["zbmath"]
    assert [(d["field"], d["record"]) for d in result["discrepancies"]] == [("volume", "169")]


def test_an_exact_title_one_year_off_is_corrected_through_crossref(script, standin):
    """Cybenko's paper is 1989 in Crossref's record, which has no arXiv version to explain 1988."""
    cited = {k: v for k, v in CROSSREF_ARTICLE.items() if k != "doi"} | {"year": 1988}
    _, results = verify_batch(script, [cited])
    result = results["cybenko"]
    assert result["status"] == "CORRECTED", result["reason"]
    assert result["sources"] == ["crossref"]
    assert [(d["field"], d["cited"], d["record"]) for d in result["discrepancies"]] == [
        ("year", 1988, 1989)
    ]
    assert "no paper matches" not in result["reason"]


def test_an_exact_title_years_off_is_no_match_but_says_what_differs(script, standin):
    cited = {k: v for k, v in CROSSREF_ARTICLE.items() if k != "doi"} | {"year": 1985}
    _, results = verify_batch(script, [cited])
    result = results["cybenko"]
    assert result["status"] == "UNCONFIRMED"
    assert result["reason"].startswith("a paper with this title differs:")
    assert "cited 1985, the record says 1989" in result["reason"]


def test_a_book_cited_without_its_place_and_date_is_confirmed(script, standin):
    cited = {**BOOK, "title": BOOK["title"].split(", University")[0]}
    _, results = verify_batch(script, [cited])
    result = results["ants-xiii"]
    assert result["status"] == "CONFIRMED", result["reason"]
    assert result["paper"]["zbl"] == "1416.11009"


def test_a_zbl_number_goes_to_zbmath_and_one_that_does_not_exist_is_corrected(script, standin):
    """The candidate's Zbl number is asked of zbMATH Open; one zbMATH lacks, beside the title
    that identifies the paper, is a `zbl` discrepancy giving the paper's own."""
    cited = {**ZBMATH_ARTICLE, "zbl": "Zbl 1234.11141"}
    _, results = verify_batch(script, [cited])
    result = results["hofmann-zhang"]
    assert result["status"] == "CORRECTED", result["reason"]
    [zbl] = result["discrepancies"]
    assert (zbl["field"], zbl["cited"], zbl["record"]) == ("zbl", "1234.11141", "1409.11141")
    assert zbl["note"].startswith("Zbl:1234.11141 does not exist (zbMATH Open returned nothing")
    cited = {**ZBMATH_ARTICLE, "zbl": "1409.11141"}
    _, results = verify_batch(script, [cited])
    assert results["hofmann-zhang"]["status"] == "CONFIRMED"
    assert results["hofmann-zhang"]["reason"].startswith("Zbl:1409.11141: ")

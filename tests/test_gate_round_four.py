"""The gate, round four (issue 48): a journal cited for a paper no record places is CONFIRMED
only once a source that knows a work's type has answered (else the venue could not be checked),
and translation journals are matched however sources and citations abbreviate them."""

from __future__ import annotations

import json
import os

import pytest
from conftest import ROOT, run_script
from mathtools.core.records import Paper
from mathtools.gate.matching import compare
from mathtools.gate.venuematch import counterpart_names, journal_sides, translated_venue
from mathtools.services.zbmathrecords import to_paper as zbmath_paper
from support.scripted_server import Reply, ScriptedServer
from support.standin import load_index

JSON = {"Content-Type": "application/json"}


def _book() -> Paper:
    """zbMATH Open's recorded book (Zbl 1416.11009, DOI 10.2140/obs.2019.2-1)."""
    paper = zbmath_paper(load_index().zbmath[7083365])
    assert paper is not None
    return paper


def _s2_match(paper: Paper, venue: str = "") -> Reply:
    """SYNTHESIZED: Semantic Scholar's title match for `paper` (no recording holds a record of
    it): the record's own fields in Semantic Scholar's shape, `venue` as given."""
    record = {
        "paperId": "0" * 39 + "1",
        "title": paper.title,
        "authors": [{"authorId": None, "name": name} for name in paper.authors],
        "year": paper.year,
        "venue": venue,
        "externalIds": {"DOI": paper.doi},
        "matchScore": 100.0,
    }
    return Reply(200, json.dumps({"data": [record]}), JSON)


def _as_article(paper: Paper) -> dict:
    return {
        "key": "ants-book",
        "title": paper.title,
        "authors": ["Scheidler, R.", "Sorenson, J."],
        "year": 2019,
        "venue": "J. Pure Appl. Algebra",
        "volume": "2",
        "pages": "1--478",
    }


def _verify(tmp_path, standin, cited: dict, s2: Reply, openalex: Reply | None = None) -> dict:
    env = {**os.environ, "MATH_CACHE_DIR": str(tmp_path / "cache"), "MATH_HTTP_RETRIES": "0"}
    with ScriptedServer(default=s2) as s2_server, ScriptedServer(default=openalex) as oa:
        env["MATH_S2_API_URL"] = s2_server.url
        if openalex is not None:
            env["MATH_OPENALEX_API_URL"] = oa.url
        run = run_script("verify_batch.py", "-", input=json.dumps([cited]), env=env)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    [result] = json.loads(run.stdout)["results"]
    return result


# -- 2. a journal no record places --------------------------------------------------------------


@pytest.mark.needs_shared("recordings")
def test_a_journal_no_source_that_knows_types_could_check_is_pending_never_confirmed(
    tmp_path, standin
):
    """The campaign's case: a book found by title through Semantic Scholar (no venue), cited as
    an article in a journal, while zbMATH Open, Crossref and OpenAlex all fail (synthesized:
    the stand-in answers each with 503)."""
    for service in ("zbmath", "crossref", "openalex"):
        standin.fail(service, 503)
    book = _book()
    result = _verify(tmp_path, standin, _as_article(book), _s2_match(book))
    assert result["status"] == "UNCONFIRMED", result["reason"]
    assert result["reason"].startswith(
        "API error - verification pending (zbMATH Open, Crossref and OpenAlex unavailable; "
        "the venue J. Pure Appl. Algebra 2 pp. 1--478 could not be checked: the paper "
        "(found by title) is 'ANTS XIII"
    )
    assert result["paper"] is None and result["suggestion"]["doi"] == book.doi


@pytest.mark.needs_shared("recordings")
def test_openalex_says_what_the_others_could_not(tmp_path, standin):
    """zbMATH Open and Crossref fail; OpenAlex, the third source that knows a work's type, is
    asked and its record says book. SYNTHESIZED: OpenAlex's work is the zbMATH book's fields in
    OpenAlex's shape (its list envelope as the stand-in assembles it)."""
    for service in ("zbmath", "crossref"):
        standin.fail(service, 503)
    book = _book()
    work = {
        "id": "https://openalex.org/W2",
        "doi": f"https://doi.org/{book.doi}",
        "title": book.title,
        "publication_year": 2019,
        "type": "book",
        "authorships": [],
    }
    openalex = Reply(200, json.dumps({"meta": {"count": 1}, "results": [work]}), JSON)
    result = _verify(tmp_path, standin, _as_article(book), _s2_match(book), openalex)
    assert result["status"] == "CORRECTED", result["reason"]
    [venue] = result["discrepancies"]
    assert venue["field"] == "venue" and venue["note"].startswith("the record is a book")


@pytest.mark.needs_shared("recordings")
def test_a_type_source_that_answered_without_a_record_lets_the_journal_stand(tmp_path, standin):
    """zbMATH Open answers its live "no results" (the stand-in's form) and Crossref holds no
    record: a source that knows types answered and said no book, so the article is CONFIRMED.
    SYNTHESIZED: the Semantic Scholar record, a paper no other source holds."""
    paper = Paper(
        source="semantic_scholar",
        title="Moduli of quasi-periodic tilings of the hyperbolic plane",
        authors=["Ada Nother", "Ben Tiling"],
        year=2011,
        doi="10.9999/tilings.2011",
    )
    cited = {**_as_article(paper), "key": "tilings", "authors": paper.authors, "year": 2011}
    result = _verify(tmp_path, standin, cited, _s2_match(paper))
    assert result["status"] == "CONFIRMED", result["reason"]
    assert standin.counts["zbmath list"] >= 1 and standin.counts["crossref list"] >= 1


def test_a_thesis_or_a_proceedings_volume_cited_as_an_article_is_a_venue_discrepancy():
    for kind, word in (("dissertation", "thesis"), ("proceedings", "proceedings volume")):
        record = Paper(source="crossref", title="T", year=2001, document_type=kind)
        cited = {"title": "T", "venue": "J. Algebra", "volume": "3", "pages": "1--20"}
        [venue] = compare(cited, record).discrepancies
        assert venue["note"] == f"the record is a {word}, not an article in J. Algebra"


# -- 3. translation journals however they are abbreviated ---------------------------------------

# (original, translation): every spelling of each pair (tests/data/translation_spellings.json).
SPELLINGS = json.loads(
    (ROOT / "tests" / "data" / "translation_spellings.json").read_text(encoding="utf-8")
)
PAIRS = [(pair["original"], pair["translation"]) for pair in SPELLINGS["pairs"]]


@pytest.mark.parametrize(("originals", "translations"), PAIRS, ids=[p[1][0] for p in PAIRS])
def test_each_spelling_of_a_translation_pair_names_the_other_journal(originals, translations):
    for original in originals:
        for translation in translations:
            record = Paper(source="zbmath", title="T", year=1967, venue=original)
            assert translated_venue(translation, record) is True, (translation, original)
            record = Paper(source="crossref", title="T", year=1967, venue=translation)
            assert translated_venue(original, record) is True, (original, translation)
    for names in (originals, translations):
        sides = {journal_sides(name) for name in names}
        assert len(sides) == 1 and () not in sides, names  # every spelling: one journal, one side


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Soviet Math. Dokl.", "Doklady"),  # the campaign's: the record's short name
        ("Moscow Univ. Math. Bull.", "Vestnik Moskovskogo Universiteta, Seriya I"),
        ("Math. Notes", "Mat. Zametki"),
    ],
)
def test_a_translation_cited_for_the_originals_record_is_confirmed(cited, record):
    """Cited with the translation's volume and year (one later), the original's record agrees."""
    paper = Paper(source="semantic_scholar", title="T", year=1990, venue=record, volume="40")
    match = compare({"title": "T", "venue": cited, "volume": "41", "year": 1991}, paper)
    assert match.ok, match.reason


def test_the_counterpart_of_an_abbreviation_is_the_other_journal_of_its_pair():
    assert "Dokl. Akad. Nauk SSSR" in counterpart_names("Soviet Math. Dokl.")
    assert "Moscow Univ. Math. Bull." in counterpart_names(
        "Vestnik Moskov. Univ. Ser. I Mat. Mekh."
    )


def test_a_journal_of_another_pair_or_none_is_still_another_journal():
    doklady = Paper(source="zbmath", title="T", year=1967, venue="Doklady")
    for cited in ("Math. Notes", "Moscow Univ. Math. Bull.", "Doklady Chemistry", "J. Algebra"):
        assert translated_venue(cited, doklady) is not True, cited

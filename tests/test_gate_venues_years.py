"""The gate, round three (issue 39): workshops and acronyms, a macro before a space, a chapter's
book as its venue, a record's "others", a preprint published years later, translation journals,
and a book cited as a journal article checked with the sources that know document types."""

from __future__ import annotations

import json
import os

import pytest
from conftest import run_script
from mathtools.core.authors import check_authors
from mathtools.core.records import Paper
from mathtools.core.titles import typographic_only
from mathtools.gate.matching import compare
from mathtools.gate.venuematch import venue_agrees
from mathtools.services.zbmathrecords import to_paper as zbmath_paper
from support.standin import load_index
from support.verified import verify_batch


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Workshop on Trustworthy AI and Robustness", "AAAI"),  # a workshop is not its host
        ("AI", "AAAI"),  # an acronym is no ISO 4 abbreviation of another
    ],
)
def test_a_workshop_or_another_acronym_is_not_the_venue(cited, record):
    assert not venue_agrees(cited, record)


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("AAAI", "AAAI Conference on Artificial Intelligence"),
        ("Proc. AAAI", "AAAI"),
        ("ICML Workshop on Theoretical Foundations", "ICML Workshop on Theoretical Foundations"),
        ("ISSTA 2020", "ACM SIGSOFT International Symposium on Software Testing and Analysis"),
    ],
)
def test_a_conference_still_agrees_with_its_names(cited, record):
    assert venue_agrees(cited, record)


def test_a_macro_before_a_space_folds_as_its_unicode_letter():
    r"""TeX eats the space after a control word: `\theta (x)` is θ(x)."""
    record = "On the sign changes of ψ(x)−θ(x)"
    assert typographic_only(r"On the sign changes of $\psi(x)-\theta (x)$", record)
    assert typographic_only(r"On the sign changes of $\psi (x)-\theta(x)$", record)


def test_a_record_list_ending_in_others_leaves_further_cited_authors_unknown():
    record = ["Kees A. Schouhamer Immink", "Stan Baggen", "others"]
    check = check_authors(["K. A. S. Immink", "S. Baggen", "P. H. N. de With"], record)
    assert check.not_authors == []
    assert check.matched == ["Kees A. Schouhamer Immink", "Stan Baggen"]
    assert not check.incomplete


def _zbmath(number: int) -> Paper:
    paper = zbmath_paper(load_index().zbmath[number])
    assert paper is not None
    return paper


@pytest.mark.needs_shared("recordings")
def test_a_chapter_cited_with_its_books_title_is_not_preprint_only():
    """zbMATH's source line for a chapter (document type "a", no serial) names its book."""
    chapter = _zbmath(7721132)
    cited = {
        "title": chapter.title,
        "authors": ["Hofmann, T.", "Zhang, Y."],
        "year": 2019,
        "venue": "ANTS XIII. Proceedings of the thirteenth algorithmic number theory symposium",
        "pages": "311--323",
    }
    match = compare(cited, chapter)
    assert match.discrepancies == [], match.reason


@pytest.mark.needs_shared("recordings")
def test_a_chapter_cited_as_a_journal_article_is_a_venue_discrepancy():
    chapter = _zbmath(7721132)
    cited = {"title": chapter.title, "year": 2019, "venue": "J. Number Theory", "volume": "12"}
    [venue] = compare(cited, chapter).discrepancies
    assert venue["field"] == "venue" and "ANTS XIII" in venue["record"]


def test_a_preprint_published_two_years_later_is_identified_and_corrected():
    record = Paper(
        source="arxiv",
        title="Moduli spaces of stable maps for surfaces",
        authors=["Ann Author"],
        year=1996,
        arxiv_id="alg-geom/9601001",
    )
    cited = {"title": record.title, "authors": ["A. Author"], "year": 1994}
    match = compare(cited, record)
    assert match.identifies(by_identifier=False)
    assert [d["field"] for d in match.discrepancies] == ["year"]
    far = compare({**cited, "year": 1992}, record)
    assert not far.identifies(by_identifier=False)  # beyond the bound: a suggestion
    other = compare({**cited, "authors": ["B. Other"]}, record)
    assert not other.identifies(by_identifier=False)  # every other field must agree
    published = Paper(**{**record.__dict__, "arxiv_id": None})
    assert not compare(cited, published).identifies(by_identifier=False)  # no preprint


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Math. Notes", "Matematicheskie Zametki"),
        ("Mathematical Notes of the Academy of Sciences of the USSR", "Mat. Zametki"),
        ("Sb. Math.", "Matematicheskii Sbornik"),
        ("Russian Math. Surveys", "Uspekhi Matematicheskikh Nauk"),
        ("Izv. Akad. Nauk SSSR Ser. Mat.", "Izvestiya: Mathematics"),
        ("Theory Probab. Appl.", "Teoriya Veroyatnostei i ee Primeneniya"),
    ],
)
def test_a_translation_journal_and_its_original_are_one_venue(cited, record):
    paper = Paper(source="zbmath", title="T", venue=record, volume="2", pages="69-76", year=1967)
    match = compare({"title": "T", "venue": cited, "volume": "2", "pages": "498--502"}, paper)
    assert match.discrepancies == [], match.reason
    later = compare({"title": "T", "venue": cited, "year": 1968}, paper)
    assert later.discrepancies == [], later.reason  # the translation a year later


# arXiv 0704.0130's journal reference, as its author wrote it (real metadata, April 2007 corpus).
FUNCT_ANAL_REF = (
    "Funktsional. Anal. i Prilozhen 42, no. 3, (2008), 1-9; English transl.: Funct. Anal. and its"
    " Appl., 42, no. 3, (2008), 161-168."
)


@pytest.mark.parametrize(
    "written",
    [
        "Funktsional. Anal. i Prilozhen",
        "Funktsional. Anal. i Prilozhen.",
        "Funktsional'nyi Analiz i ego Prilozheniya",
    ],
)
def test_a_transliterated_original_is_named_however_it_is_abbreviated(written):
    """A transliteration's soft sign (Funktsional'nyi) and its function words (i, ego: "and",
    "its") are read as such, so an abbreviation of the original names the translation pair."""
    paper = Paper(source="arxiv", title="T", venue=written, volume="42", pages="1-9", year=2008)
    cited = {"title": "T", "venue": "Funct. Anal. Appl.", "volume": "42", "pages": "161--168"}
    assert compare(cited, paper).discrepancies == []


@pytest.mark.parametrize("initials", ["A&A", "A & A", "A. and A."])
def test_initials_name_no_translation_journal(initials):
    """ "A&A" (Astronomy & Astrophysics, four corpus papers) is not "Algebra i Analiz", so not
    the original of the St. Petersburg Mathematical Journal."""
    from mathtools.gate.venuematch import journal_sides, translated_venue

    assert journal_sides(initials) == ()
    paper = Paper(source="arxiv", title="T", venue="St. Petersburg Math. J.", year=2007)
    assert translated_venue(initials, paper) is None


def test_an_arxiv_journal_reference_naming_the_translation_vouches_for_it():
    from mathtools.core import venue_parts

    venue, volume, pages = venue_parts(FUNCT_ANAL_REF)
    paper = Paper(
        source="arxiv",
        title="T",
        venue=venue,
        volume=volume,
        pages=pages,
        year=2008,
        venue_aliases=[FUNCT_ANAL_REF],
    )
    for cited in ("Funct. Anal. Appl.", "Functional Analysis and its Applications"):
        match = compare({"title": "T", "venue": cited, "volume": "42", "pages": "161--168"}, paper)
        assert match.discrepancies == [], match.reason


def test_a_journal_under_another_of_its_names_is_compared_as_itself():
    paper = Paper(source="s2", title="T", venue="Math. Notes", volume="2", pages="498-502")
    old_name = "Mathematical Notes of the Academy of Sciences of the USSR"
    assert compare({"title": "T", "venue": old_name, "pages": "498--502"}, paper).ok
    [pages] = compare({"title": "T", "venue": old_name, "pages": "69--76"}, paper).discrepancies
    assert pages["field"] == "pages"


def test_a_translation_journal_is_not_another_journal():
    paper = Paper(source="zbmath", title="T", venue="Matematicheskie Zametki", year=1967)
    match = compare({"title": "T", "venue": "Siberian Math. J.", "volume": "2"}, paper)
    assert [d["field"] for d in match.discrepancies] == ["venue"]


def book_as_article(book: Paper) -> dict:
    """zbMATH Open's recorded book (Zbl 1416.11009) cited as an article in a journal."""
    return {
        "key": "ants-book",
        "title": book.title,
        "authors": ["Scheidler, R.", "Sorenson, J."],
        "year": 2019,
        "venue": "J. Pure Appl. Algebra",
        "volume": "2",
        "pages": "1--478",
    }


@pytest.mark.needs_shared("recordings")
def test_a_book_cited_as_a_journal_article_is_corrected_from_zbmaths_document_type(script, standin):
    """The zbMATH book (Zbl 1416.11009) cited as an article in a journal, by its DOI: Crossref
    has no record of it, Semantic Scholar neither, zbMATH Open's says it is a book."""
    book = _zbmath(7083365)
    cited = book_as_article(book)
    _, results = verify_batch(script, [cited])
    result = results["ants-book"]
    assert result["status"] == "CORRECTED", result["reason"]
    [venue] = result["discrepancies"]
    assert venue["field"] == "venue" and "book" in venue["note"]


@pytest.mark.needs_shared("recordings")
def test_a_book_semantic_scholar_knows_without_a_venue_is_checked_with_zbmath(tmp_path, standin):
    """Semantic Scholar's record of a book names no journal, so it cannot vouch for the one cited:
    the gate asks zbMATH Open, whose record says it is a book. SYNTHESIZED: the Semantic Scholar
    title match (no recording holds a record of this book) is the zbMATH book's own fields
    (Zbl 1416.11009, DOI 10.2140/obs.2019.2-1) in Semantic Scholar's shape, venue empty; zbMATH
    Open answers from its recording through the stand-in."""
    from support.scripted_server import Reply, ScriptedServer

    book = _zbmath(7083365)
    record = {
        "paperId": "0" * 39 + "1",
        "title": book.title,
        "authors": [{"authorId": None, "name": name} for name in book.authors],
        "year": 2019,
        "venue": "",
        "externalIds": {"DOI": "10.2140/obs.2019.2-1"},
        "matchScore": 100.0,
    }
    cited = book_as_article(book)
    answer = Reply(200, json.dumps({"data": [record]}), {"Content-Type": "application/json"})
    env = {**os.environ, "MATH_CACHE_DIR": str(tmp_path / "cache")}
    with ScriptedServer(default=answer) as s2:
        env["MATH_S2_API_URL"] = s2.url
        run = run_script("verify_batch.py", "-", input=json.dumps([cited]), env=env)
        uncited = {**cited, "key": "ants-uncited", "venue": None, "volume": None, "pages": None}
        plain = run_script("verify_batch.py", "-", input=json.dumps([uncited]), env=env)
    assert run.returncode == 0, run.stderr
    [result] = json.loads(run.stdout)["results"]
    assert result["status"] == "CORRECTED", result["reason"]
    assert result["sources"] == ["semantic_scholar", "zbmath"]
    [venue] = result["discrepancies"]
    assert venue["field"] == "venue" and "book" in venue["note"], venue
    [result] = json.loads(plain.stdout)["results"]  # no journal cited: nothing more asked
    assert result["status"] == "CONFIRMED" and result["sources"] == ["semantic_scholar"]


def test_a_translations_title_names_the_originals_record_with_every_author():
    """The translator's title is not the original's record's: with the pair's journal, every
    author and the year agreeing, a title sharing most words names the record (CORRECTED)."""
    record = Paper(
        source="zbmath",
        title="On sums of primes in short intervals",
        authors=["Tommy Hofmann"],
        year=1967,
        venue="Matematicheskie Zametki",
    )
    cited = {
        "title": "Sums of prime numbers in short intervals",
        "authors": ["T. Hofmann"],
        "year": 1968,
        "venue": "Math. Notes",
    }
    match = compare(cited, record)
    assert match.identifies(by_identifier=False)
    assert [d["field"] for d in match.discrepancies] == ["title"]
    assert not compare({**cited, "authors": ["B. Other"]}, record).identifies(False)
    assert not compare({**cited, "venue": "Siberian Math. J."}, record).identifies(False)
    assert not compare({**cited, "venue": None}, record).identifies(False)


class _OriginalJournal:
    """zbMATH Open answering a search in the original journal (`so:`) with one record, every
    other search with its "no result". SYNTHESIZED: the record is the recorded J. Number Theory
    record (Zbl 1409.11141) moved to Mat. Zametki 2 (1967) under another title; no recording
    holds a paper of a translated journal."""

    @staticmethod
    def record() -> dict:
        record = json.loads(json.dumps(load_index().zbmath[6617923]))
        record["title"]["title"] = "On sums of primes in short intervals"
        record["year"] = "1967"
        record["links"] = []
        series = record["source"]["series"][0]
        series |= {"title": "Matematicheskie Zametki", "short_title": "Mat. Zametki"}
        series |= {"volume": "2", "year": "1967"}
        record["source"]["source"] = "Mat. Zametki 2, 69-76 (1967)."
        record["source"]["pages"] = "69-76"
        return record


@pytest.mark.needs_shared("recordings")
def test_a_translation_cited_under_its_own_title_is_found_in_the_original_journal(
    tmp_path, standin
):
    from support.scripted_server import Reply, ScriptedServer

    found = json.dumps({"result": [_OriginalJournal.record()], "status": {"nr_total_results": 1}})
    none = json.dumps({"result": [], "status": {"nr_total_results": 0, "status_code": 404}})

    class Zbmath(ScriptedServer):
        def reply_to(self, received):
            hit = "so%3A" in received.path or "so:" in received.path
            return Reply(200 if hit else 404, found if hit else none, JSON)

    JSON = {"Content-Type": "application/json"}
    cited = {
        "key": "translation",
        "title": "Sums of prime numbers in short intervals",
        "authors": ["T. Hofmann", "Y. Zhang"],
        "year": 1968,
        "venue": "Math. Notes",
        "volume": "2",
        "pages": "498--502",
    }
    other = {**cited, "key": "another", "authors": ["T. Hofmann", "A. Nother"]}
    env = {**os.environ, "MATH_CACHE_DIR": str(tmp_path / "cache")}
    with Zbmath() as zbmath:
        env["MATH_ZBMATH_API_URL"] = zbmath.url
        run = run_script("verify_batch.py", "-", input=json.dumps([cited, other]), env=env)
    assert run.returncode == 0, run.stderr
    results = {r["key"]: r for r in json.loads(run.stdout)["results"]}
    result = results["translation"]
    assert result["status"] == "CORRECTED", result["reason"]
    assert result["sources"] == ["zbmath"]
    assert [d["field"] for d in result["discrepancies"]] == ["title"]
    assert results["another"]["status"] == "UNCONFIRMED"  # not every author: a suggestion

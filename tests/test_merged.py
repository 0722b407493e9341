"""The sources' records of one cited identifier, weighed when they disagree (gate/merged.py): the
sources that agree with each other decide, and the reason names the one outvoted. The records are
built as the services' clients build them; the comparison is the gate's own."""

from __future__ import annotations

from mathtools.core.records import Paper
from mathtools.gate.lookups import ComparedRecord
from mathtools.gate.matching import compare
from mathtools.gate.merged import outvoted, weigh

CITED = {"title": "Number theory and its history", "authors": "Ore, Oystein", "year": 1952}
DOI = "10.2307/2306804"


def _record(source: str, title: str, authors: str, year: int) -> ComparedRecord:
    paper = Paper(source=source, title=title, authors=[authors], year=year, doi=DOI)
    return ComparedRecord(source, paper, compare(CITED, paper), [])


def _cited(source: str) -> ComparedRecord:
    return _record(source, CITED["title"], "Oystein Ore", 1952)


def _another(source: str) -> ComparedRecord:
    return _record(source, "A survey of something else entirely", "Somebody Else", 1901)


def test_one_source_answering_another_paper_is_outvoted_by_as_many_that_confirm():
    wrong, right = _another("semantic_scholar"), _cited("zbmath")
    assert weigh([wrong, right]) == ([right], [wrong], True)
    assert weigh([wrong, right, _cited("crossref")])[2] is True


def test_more_sources_holding_another_paper_contradict_the_citation():
    """Two sources say the identifier is another paper, one that it is the cited one: the
    identifier contradicts the citation, whatever the one says."""
    right, wrong = _cited("zbmath"), [_another("semantic_scholar"), _another("crossref")]
    assert weigh([*wrong, right]) == ([right], wrong, False)
    assert weigh(wrong) == ([], wrong, False)


def test_the_outvoted_record_is_named_with_those_that_outvoted_it():
    wrong, right = _another("semantic_scholar"), [_cited("zbmath"), _cited("crossref")]
    assert outvoted(f"DOI:{DOI}", [wrong], right) == (
        f"Semantic Scholar says DOI:{DOI} is 'A survey of something else entirely' by "
        "Somebody Else (1901), outvoted by zbMATH Open and Crossref"
    )

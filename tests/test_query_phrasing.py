"""The plan reaches a paper that words the problem otherwise (issue 38, its second set): rules of
query construction found from the searches that never returned a target, each a rule of how a
mathematician phrases a search, never a word list.

The problems are the second labelled set's (bench/data/discovery-second/problems); searches go to
the stand-in engine over the real arXiv corpus (tests/support/corpus_search.py, ../shared/corpus).
"""

from __future__ import annotations

import pytest
from conftest import ROOT
from mathtools.search import keyterms, planning, problemfile, problemterms, querylines
from support import corpus_search
from support.searchplans import run_entry

SECOND = ROOT / "bench" / "data" / "discovery-second" / "problems"


@pytest.fixture(scope="module")
def corpus():
    corpus_search.load()  # skips, naming the folder, without ../shared/corpus


def queries_of(problem: problemfile.Problem, api: str = "arxiv") -> list[dict]:
    return list(planning.plan(problem)["queries"][api])


def values(entry: dict) -> list[str]:
    return [value for _, value in querylines.query_line_terms(entry["query_line"])]


STANDINS = {"arxiv": corpus_search.ArxivStandin, "semantic_scholar": corpus_search.S2Standin}


def found(entry: dict, api: str = "arxiv") -> list[str]:
    result = run_entry(api, entry, STANDINS[api]())
    return [paper.arxiv_id or "" for paper in result.papers]


def test_a_capitalised_part_of_a_hyphenated_word_is_a_proper_name(corpus):
    """The statement asks for a "Thompson-like" monoid; the tag "thompson-groups" is then a named
    object, searched in every category: Birget's paper on one-way permutations and Thompson
    groups is filed in math.GR, outside the problem's domain (theoretical computer science)."""
    problem = problemfile.read_problem(SECOND / "thompson-monoid-circuits.md")
    assert "thompson" in problemterms.proper_names(problem)
    entry = next(q for q in queries_of(problem) if values(q) == ["thompson", "groups"])
    assert "--domain" not in entry["args"]
    assert "0704.1569" in found(entry)
    # A lower-case hyphenated word names nobody, nor does a word's lower-case part.
    assert "like" not in problemterms.proper_names(problem)


def test_the_browse_search_asks_the_titles_setting_in_wider_categories(corpus):
    """ "Recovering the initial pressure in photoacoustic imaging": the keywords query searches
    the subject (initial pressure) in the domain; the search across the wider categories asks the
    setting, and finds Kuchment and Kunyansky's survey of thermoacoustic and photoacoustic
    tomography, which never says "initial pressure"."""
    problem = problemfile.read_problem(SECOND / "photoacoustic-inversion.md")
    queries = queries_of(problem)
    browse = next(q for q in queries if q["origin"] == "browse")
    assert "--secondary" in browse["args"] and "photoacoustic" in values(browse)
    assert "0704.0286" in found(browse)
    assert any(values(q) == ["initial", "pressure"] for q in queries if q["origin"] == "keywords")


def test_a_title_without_a_setting_browses_its_core_term():
    """ "Amphicheiral knots with odd crossing number" has no setting word: the wider search is
    the core term's, as before."""
    path = ROOT / "bench" / "data" / "discovery" / "problems" / "amphicheiral-odd-crossing.md"
    problem = problemfile.read_problem(path)
    browse = next(q for q in queries_of(problem) if q["origin"] == "browse")
    keywords = next(q for q in queries_of(problem) if q["origin"] == "keywords")
    assert "--secondary" in browse["args"]
    assert set(values(browse)) <= set(values(keywords))


def test_a_common_word_left_alone_is_no_term(corpus):
    """ "Surfaces of general type with p_g = q = 1 that are quotients of products of curves":
    the title leaves "type" (its "general" a filler word) and "products" alone, common words
    that no query asks alone. They are no key terms, so the statement's phrase "finite group
    acting freely" takes their place, and each half finds Carnovale and Polizzi's paper, which
    says "isogenous to a product" and never "quotients"."""
    problem = problemfile.read_problem(SECOND / "pg-q-one-isogenous-product.md")
    terms = planning.plan(problem)["terms"]
    assert "type" not in terms and "products" not in terms
    assert "finite group acting freely" in terms
    for api in STANDINS:
        assert "0704.0446" in [i for q in queries_of(problem, api) for i in found(q, api)], api


def test_a_fallback_asks_a_phrase_before_a_lone_word():
    """The terms after the core one are asked phrases first: a phrase's words together say
    what it is about, a lone word ("quotients") finds whatever uses it. On arXiv the phrase's
    generic words go ("finite", "group"), its specific ones stay."""
    problem = problemfile.read_problem(SECOND / "pg-q-one-isogenous-product.md")
    fallbacks = [values(q) for q in queries_of(problem) if q["origin"] == "keywords"][1:]
    assert fallbacks[0] == ["acting", "freely"]
    assert ["quotients"] not in fallbacks[:1]


def test_a_statement_verb_ends_a_phrase():
    """ "a closed symplectic manifold cannot be displaced", "the configuration space carries an
    action", "the density conjecture predicts": a verb is no search word."""
    for text, phrase in [
        ("Some subsets of a closed symplectic manifold cannot be displaced.",
         "closed symplectic manifold"),
        ("The configuration space carries an action of the dihedral group.",
         "configuration space"),
        ("The density conjecture predicts the lower-order terms.", "density conjecture"),
    ]:  # fmt: skip
        assert phrase in keyterms.problem_terms(text, 8), text

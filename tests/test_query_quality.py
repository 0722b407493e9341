"""Queries a mathematician would type (issue 27, item 6): no word twice, no filler, no common
word alone, relaxation that drops the most generic word, a screen that sets aside the papers
lacking the query's words, and slugs that end where a phrase does.

The Kakeya and stochastic-resetting problems are synthesized here (they are the issue's own
examples); the searches run against the real arXiv records of ../shared/corpus."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from hypothesis import given
from hypothesis import strategies as st
from mathtools.core.slugs import (
    DERIVED_SLUG_LENGTH,
    LEADING_WORDS,
    RESERVED_SLUGS,
    is_slug,
    slugify,
)
from mathtools.core.text import FUNCTION_WORDS
from mathtools.search import keyterms, planning, problemfile, querylines, ranking, relaxation
from support import corpus_search
from support.searchplans import run_entry

BENCH = ROOT / "bench" / "data" / "discovery"

KAKEYA = """---
title: "Kakeya sets whose segment midpoints lie in a hyperplane of the plane"
slug: kakeya-sets
status: active
domain: analysis
type: exploration
tags: [geometric-measure-theory]
---

# Problem Statement

Let $K \\subset \\mathbb{R}^n$ be a Kakeya set, containing a unit segment in every direction,
and suppose the midpoints of the segments lie in a hyperplane. What is the least Hausdorff
dimension of $K$? How does the answer relate to the corresponding maximal estimates?

## Known Results

- Kakeya conjecture: every Kakeya set in $\\mathbb{R}^n$ has Hausdorff dimension $n$.
"""

RESETTING = """---
title: "First passage under stochastic resetting"
slug: resetting
status: active
domain: probability
type: exploration
tags: [complexity]
---

# Problem Statement

A Brownian motion on the line is reset to its starting point at the times of a Poisson process
of rate $r$. Find the mean first passage time to a target at distance $L$.
"""


def plan_of(tmp_path, text: str, focus: str | None = None):
    path = tmp_path / "PROBLEM.md"
    path.write_text(text, encoding="utf-8")
    return planning.plan(problemfile.read_problem(path), focus=focus)


def every_query(plan) -> list[tuple[str, list[str]]]:
    """(query line, its search values) of every arXiv and Semantic Scholar query."""
    return [
        (q["query_line"], [v for _, v in querylines.query_line_terms(q["query_line"])])
        for api in ("arxiv", "semantic_scholar")
        for q in plan["queries"][api]
    ]


def words_of(values: list[str]) -> list[str]:
    return [keyterms.same_stem(w) for value in values for w in value.split()]


def test_no_query_holds_a_word_twice(tmp_path):
    """The issue's "arxiv --all Kakeya --all Kakeya": the named result "Kakeya conjecture" on
    a problem about Kakeya sets is searched as the named result, not as its person twice."""
    for focus in (None, "Kakeya maximal function"):
        for line, values in every_query(plan_of(tmp_path, KAKEYA, focus)):
            words = words_of(values)
            assert len(words) == len(set(words)), line
    lines = [line for line, _ in every_query(plan_of(tmp_path, KAKEYA))]
    assert 'arxiv --all "Kakeya conjecture"' in lines


def test_no_filler_word_reaches_a_query(tmp_path):
    """ "the corresponding maximal estimates": "corresponding" is no search word, nor
    "containing" (a unit segment)."""
    plan = plan_of(tmp_path, KAKEYA)
    fillers = {"corresponding", "containing"}
    assert not fillers & {word.lower() for term in plan["terms"] for word in term.split()}
    for line, values in every_query(plan):
        assert not {"corresponding", "containing"} & set(words_of(values)), line


def test_no_query_is_one_common_word(tmp_path):
    """A tag "complexity" and the words of "first passage" are not queries alone; "first
    passage" stays one phrase (a first passage time is the subject, not "passage")."""
    for focus in (None, "first passage of Brownian motion"):
        for line, values in every_query(plan_of(tmp_path, RESETTING, focus)):
            words = words_of(values)
            assert not (len(words) == 1 and keyterms.generality(words[0]) > 0), line
            assert words != ["passage"], line
    terms = plan_of(tmp_path, RESETTING)["terms"]
    assert any("first passage" in term.lower() for term in terms)


def test_generality_ranks_generic_above_common_above_specific():
    assert keyterms.generality("bounds") == 2  # GENERIC: no search term alone
    assert keyterms.generality("stochastic") == keyterms.generality("families") == 1
    assert keyterms.generality("resetting") == keyterms.generality("Kakeya") == 0


def test_relaxation_drops_the_most_generic_word_not_the_last():
    """The issue's "stochastic resetting" relaxed to `all:stochastic`: the common word goes,
    the specific one stays, whichever comes first; of equals, the last goes, but never one of
    two."""
    request = relaxation.ArxivRequest(terms=[("all_terms", "stochastic resetting")])
    dropped = {f.step: f for f in relaxation.arxiv_forms(request)}["dropped"]
    assert dropped.dropped == "stochastic" and dropped.query == "all:resetting"
    s2 = {f.step: f for f in relaxation.s2_forms("resetting stochastic")}["dropped"]
    assert s2.dropped == "stochastic" and s2.query == "resetting"
    three = relaxation.ArxivRequest(terms=[("all_terms", "Kripke modal frames")])
    assert {f.step: f for f in relaxation.arxiv_forms(three)}["dropped"].dropped == "frames"
    # Two words as generic as each other name one subject: "Markov bases" is not "bases".
    for pair in ("Kripke frames", "Markov bases", "arithmetic progressions"):
        request = relaxation.ArxivRequest(terms=[("all_terms", pair)])
        assert "dropped" not in {f.step for f in relaxation.arxiv_forms(request)}, pair
        assert "dropped" not in {f.step for f in relaxation.s2_forms(pair)}, pair


def test_a_relaxed_semantic_scholar_query_is_never_a_function_word_with_one_word():
    """Issue 37: a relaxed Semantic Scholar query came out as "of Hamiltonian"."""
    for text in ("existence of Hamiltonian cycles", "the theorem of Redei", "Redei's theorem"):
        for form in relaxation.s2_forms(text)[2:]:  # the looser forms
            words = form.query.split()
            assert not {w.lower() for w in words} & keyterms.STOPWORDS, (text, form.query)
            assert all(len(w) > 1 for w in words), (text, form.query)


def test_a_relaxed_search_over_the_corpus_keeps_the_specific_word():
    corpus_search.load()  # skips, naming the folder, without ../shared/corpus
    entry = {"args": ["search", "--all", "stochastic", "--all", "sandpile", "--relax"]}
    result = run_entry("arxiv", entry, corpus_search.ArxivStandin())
    assert result.relaxation == {
        "step": "dropped", "query": "all:sandpile", "dropped": "stochastic",
    }  # fmt: skip
    assert [p.arxiv_id for p in result.papers] == ["0704.0688"]


def test_a_relevance_search_keeps_its_partial_matches_and_the_listing_ranks_them():
    """Issue 38: S2 "hilbert transform" over the corpus returns Hilbert-space and Hilbert-Siegel
    papers beside the one on the Hilbert transform; every one is kept (the screen that set them
    aside emptied searches whose target said the subject in other words), and ranked against
    the whole problem the paper on the Hilbert transform comes first."""
    corpus_search.load()
    entry = {"args": ["search", "--query", "hilbert transform", "--limit", "5"]}
    result = run_entry("semantic_scholar", entry, corpus_search.S2Standin())
    assert len(result.papers) == 5 and "0704.0808" in [p.arxiv_id for p in result.papers]
    problem = problemfile.read_problem(BENCH / "problems" / "hilbert-transform-vector-field.md")
    words = ranking.problem_words(problem)
    order = ranking.ranked(words, [(p.title, p.abstract) for p in result.papers])
    assert result.papers[order[0]].arxiv_id == "0704.0808"


def test_a_name_of_the_statement_raises_a_paper_that_has_it_and_is_never_required():
    """A person's name, a hyphenated coinage or a symbol is one more word: a paper on the
    subject without it still outranks one that merely shares generic words."""
    words = ranking.problem_words(
        problemfile.Problem(
            slug="s", title="Sharp Bourgain-Brezis-Mironescu formulae", domain=None,
            subdomain=None, tags=["sobolev-spaces"], known_results=[], references=[],
            statement="Find sharp limits of nonlocal Sobolev seminorms $W^{s,p}$ as s tends to 1.",
        )
    )  # fmt: skip
    papers = [
        ("Sharp formulae for nonlocal seminorms", "Limits of fractional Sobolev seminorms."),
        ("Modular forms of half integral weight", "We find sharp limits of coefficients."),
        ("A Bourgain-Brezis-Mironescu formula", "Limits of fractional Sobolev seminorms."),
    ]
    scores = ranking.scores(words, papers)
    assert scores[2] > scores[0] > scores[1]
    assert ranking.ranked(words, papers) == [2, 0, 1]


def test_the_cut_keeps_the_papers_close_to_the_best_within_bounds():
    assert ranking.read_first([]) == 0
    assert ranking.read_first([9.0]) == 1  # fewer papers than the least cut: all
    assert ranking.read_first([9.0, 1.0, 1.0, 1.0, 1.0]) == ranking.READ_FIRST_MIN
    assert ranking.read_first([9.0] * 20) == ranking.READ_FIRST_MAX
    assert ranking.read_first([9.0, 8.0, 7.0, 6.0, 5.0, 1.0]) == 5  # at least half the best


@pytest.mark.parametrize(
    "title",
    [
        "Kakeya sets whose segment midpoints lie in a hyperplane of the plane",
        "Sharp constants in the inequality of the corresponding maximal operator for a",
        "Counting lattice points in dilated polytopes with vertices in a lattice of rank two",
    ],
)
def test_a_derived_slug_ends_where_a_phrase_may_end(title):
    slug = slugify(title)
    assert is_slug(slug) and len(slug) <= DERIVED_SLUG_LENGTH
    last = slug.rsplit("-", 1)[-1]
    assert last not in FUNCTION_WORDS and last not in {"whose", "lie", "which", "that"}
    assert title.lower().replace(" ", "-").startswith(slug)  # whole words, in order
    assert slugify("Kakeya sets whose segment midpoints lie in a hyperplane") == (
        "kakeya-sets-whose-segment-midpoints"
    )


def test_a_possessive_or_an_apostrophe_leaves_no_word_of_its_own_in_a_slug():
    """Issue 37: slugs ended in "-redei-s" for "Rédei's"."""
    assert slugify("Rédei's theorem on tournaments") == "redei-theorem-on-tournaments"
    assert slugify("Hamiltonian paths: Rédei’s") == "hamiltonian-paths-redei"
    assert (
        slugify("O'Neil's curvature and Noether's theorem") == "oneil-curvature-and-noether-theorem"
    )


@given(st.text(max_size=200))
def test_any_title_gives_a_safe_slug_that_ends_on_a_whole_word(title):
    slug = slugify(title)
    # a device name ("lpt1") is a slug the workspace takes as taken, and numbers ("lpt1-2")
    assert (is_slug(slug) or slug in RESERVED_SLUGS) and len(slug) <= DERIVED_SLUG_LENGTH
    assert slugify(slug) == slug  # whole words: a slug is its own slug


VOCABULARY = ["kakeya", "sets", "whose", "midpoints", "lie", "in", "a", "hyperplane", "of", "the"]


@given(st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=30))
def test_a_cut_slug_is_the_titles_first_words_ending_where_a_phrase_may(words):
    slug = slugify(" ".join(words)).split("-")
    assert slug == words[: len(slug)]  # the first words, whole
    if len(slug) < len(words) and len(slug) > 1:  # cut
        assert slug[-1] not in FUNCTION_WORDS | LEADING_WORDS


def test_the_discovery_benchmark_labels_every_target_on_topic():
    """bench_discovery's precision counts a candidate on topic when it is a target or a paper
    labelled on topic; each set's labels cover its targets, and name only corpus papers. (The
    bench reads every folder bench/data/discovery*/ that holds a targets.json.)"""
    sets = sorted((ROOT / "bench" / "data").glob("discovery*/targets.json"))
    assert sets
    for data in (path.parent for path in sets):
        targets = json.loads((data / "targets.json").read_text(encoding="utf-8"))["targets"]
        labels = json.loads((data / "on-topic.json").read_text(encoding="utf-8"))["problems"]
        assert set(labels) == set(targets)
        for slug, wanted in targets.items():
            assert set(wanted) <= set(labels[slug]["on_topic"]) <= set(labels[slug]["judged"])

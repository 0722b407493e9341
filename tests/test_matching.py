"""The matching rules (scripts/mathtools/matching.py) on titles and names from the recordings."""

from __future__ import annotations

import pytest
from mathtools.matching import (
    TITLE_THRESHOLD,
    cited_family,
    compare,
    describe,
    main_title,
    matched_authors,
    normalise_title,
    split_authors,
    strip_latex,
    title_score,
)
from mathtools.paper import Paper

MARKOV = "Heat-bath random walks with Markov bases"
REST = "Automated Test Generation for REST APIs: No Time to Rest Yet"
AEW10_AUTHORS = [
    "Kees A. Schouhamer Immink",
    "Stan Baggen",
    "Peter H. N. de With",
    "A. J. Han Vinck",
]


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        (MARKOV, MARKOV),
        ("heat-bath random walks with markov bases.", MARKOV),  # case, trailing period
        ("Heat bath random walks with Markov bases", MARKOV),  # hyphenation
        ("Heatbath random walks with Markov bases", MARKOV),
        ("Heat-bath random walk with Markov bases", MARKOV),  # plural folded
        ("Automated Test Generation for REST APIs", REST),  # subtitle left out
        ("Automated Test Generation for REST APIs -- No Time to Rest Yet", REST),
        (
            r"$\omega$Test: WebView-Oriented Testing for Android Applications",
            "$ω$Test: WebView-Oriented Testing for Android Applications",
        ),
        (
            "ωTest: WebView-Oriented Testing for Android Applications",
            "$ω$Test: WebView-Oriented Testing for Android Applications",
        ),
        (
            r"Principles of Equivalence: Their R\^{o}le in Gravitation Physics",
            "Principles of Equivalence: Their Rôle in Gravitation Physics",
        ),
        (
            "Towards Explainable Test Case Prioritization with Learning-to-Rank Models",
            "Towards Explainable Test Case Prioritisation with Learning-to-Rank Models",
        ),
        (
            r"\emph{Fairness Testing}: Testing Software for Discrimination",
            "Fairness Testing: Testing Software for Discrimination",
        ),
        (
            "The Price of Tolerance in Distribution Testing",
            "Price of Tolerance in Distribution Testing",
        ),
    ],
)
def test_titles_that_still_match(cited, record):
    assert title_score(cited, record) == TITLE_THRESHOLD


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        # Two real papers by one author (arXiv:1306.4664, arXiv:1106.3680): one word apart.
        (
            "Efficient Two-Stage Group Testing Algorithms for Genetic Screening",
            "Efficient Two-Stage Group Testing Algorithms for DNA Screening",
        ),
        ("Heat-bath random walks with Gröbner bases", MARKOV),  # near miss
        ("Heat-bath random walks with Markov bases", "Heat-bath random walks with Markov chains"),
        (MARKOV + " Neural Turing Machines", MARKOV),  # glued
        (MARKOV + ": Neural Turing Machines", MARKOV),  # glued with a colon
        ("Automated Test Generation for REST APIs: Fairness Testing", REST),  # wrong subtitle
        ("Neural Turing Machines", MARKOV),
        ("", MARKOV),
        ("Markov bases with heat-bath random walks", MARKOV),  # the same words reordered
        ("Random heat-bath walks with Markov bases", MARKOV),
    ],
)
def test_titles_that_must_not_match(cited, record):
    assert title_score(cited, record) < TITLE_THRESHOLD


def test_score_is_graded_for_near_misses():
    near = title_score(
        "Efficient Two-Stage Group Testing Algorithms for Genetic Screening",
        "Efficient Two-Stage Group Testing Algorithms for DNA Screening",
    )
    far = title_score("Neural Turing Machines", MARKOV)
    assert 0.8 < near < 1.0
    assert far == 0.0
    # In order: the longest run of words the titles share in the same order counts, 4 of 6.
    assert title_score("Markov bases with heat-bath random walks", MARKOV) == 0.6667


def test_latex_and_unicode_normalisation():
    assert strip_latex(r"G\"{o}tz \v{S}koda \emph{fast} $L^2$ --- x") == "Götz Skoda fast L2 - x"
    assert normalise_title(r"Sur les $\alpha$-stables de M\"obius") == normalise_title(
        "Sur les α-stables de Möbius"
    )
    assert normalise_title("Straße, Łódź and Ærø") == "strasse lodz and aero"
    assert normalise_title("Θ-functions and ϕ") == "theta functions and phi"
    assert main_title(REST) == "Automated Test Generation for REST APIs"
    assert main_title(MARKOV) is None  # a hyphen inside a word is no separator
    assert main_title("Graphs -- a survey") == main_title("Graphs --- a survey") == "Graphs"
    assert main_title("Graphs – a survey") == "Graphs"
    assert main_title("Graph--theoretic methods") is None  # an unspaced -- is a hyphen


@pytest.mark.parametrize(
    ("cited", "family"),
    [
        ("Immink, K. A. S.", "immink"),
        ("K. A. Schouhamer Immink", "immink"),
        ("van der Merwe, Sean", "merwe"),
        ("Sean van der Merwe", "merwe"),
        ("de With, P.", "with"),
        ("Le, Thai", "le"),  # a particle-like word that is the family name
        ("Thai Le", "le"),
        ("Smith JP", "smith"),  # Vancouver style
        ("Gould A.", "gould"),
        ("Ramírez, Aurora", "ramirez"),
        ("Taylor‐Sakyi, K.", "taylorsakyi"),  # Unicode hyphen
        (r"G\"{o}tz, Katharina", "gotz"),
    ],
)
def test_cited_family_names(cited, family):
    assert cited_family(cited) == family


def test_author_matching_against_record_names():
    record = ["Aurora Ramírez", "Mario Berrios", "José Raúl Romero", "Sean van der Merwe"]
    assert matched_authors(["Ramirez, A.", "Nobody, X."], record) == ["Aurora Ramírez"]
    assert matched_authors(["van der Merwe, S."], record) == ["Sean van der Merwe"]
    assert matched_authors(["Romero, J. R."], record) == ["José Raúl Romero"]
    assert matched_authors(["Raúl, J."], record) == []  # a middle name is no family name
    assert matched_authors(["Aurora, R."], record) == []  # a given name is no family name
    assert matched_authors(["Mario"], record) == []
    assert matched_authors(["de With, Peter"], AEW10_AUTHORS) == ["Peter H. N. de With"]
    assert matched_authors(["Vinck, A. J. H."], AEW10_AUTHORS) == ["A. J. Han Vinck"]


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Helali Moghadam, M.", "Mahshid Helali Moghadam"),  # compound family name, cited whole
        ("Moghadam, M. H.", "Mahshid Helali Moghadam"),
        ("Helali Moghadam, M.", "Mahshid Helali"),  # the record gives one part of it
        ("Helali-Moghadam, M.", "Mahshid Helali Moghadam"),
        ("Taylor Sakyi, K.", "Kwabena Taylor-Sakyi"),
        ("Taylor, K.", "Kwabena Taylor-Sakyi"),  # a hyphenated record name is compound
        ("Helali, M.", "Helali Moghadam, Mahshid"),  # the record says where the family name is
        ("King, M. L.", "Martin Luther King Jr."),
        ("Castro Neto, A. H.", "A. H. Castro Neto"),
    ],
)
def test_compound_family_names(cited, record):
    assert matched_authors([cited], [record]) == [record]


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Kumar, R.", "Mohit Kumar Ahuja"),  # a middle name
        ("Helali, M.", "Mahshid Helali Moghadam"),  # not known to be compound from "Helali"
        ("Luther, M.", "Martin Luther King Jr."),
        ("Tobias, W.", "Tobias Windisch"),
    ],
)
def test_given_and_middle_names_are_not_family_names(cited, record):
    assert matched_authors([cited], [record]) == []


def test_split_authors_forms():
    assert split_authors("Stanley, Caprice and Windisch, Tobias") == [
        "Stanley, Caprice",
        "Windisch, Tobias",
    ]
    assert split_authors("Immink, K. and others") == ["Immink, K."]
    assert split_authors(["Kees A. Schouhamer Immink", "et al."]) == ["Kees A. Schouhamer Immink"]
    assert split_authors("Immink et al.") == ["Immink"]
    assert split_authors("Gould, A.; Dorsher, S.") == ["Gould, A.", "Dorsher, S."]
    assert split_authors("Gould, Andrew") == ["Gould, Andrew"]
    assert split_authors(None) == []
    assert split_authors("Graves et. al.") == ["Graves"]
    assert split_authors("A. Graves, G. Wayne") == ["A. Graves", "G. Wayne"]
    assert split_authors("Stanley C, Windisch T") == ["Stanley C", "Windisch T"]
    assert split_authors("Helali Moghadam, M. H.") == ["Helali Moghadam, M. H."]
    assert split_authors("van der Merwe, Sean") == ["van der Merwe, Sean"]


def test_umlauts_dropped_or_transliterated():
    assert title_score("Die Schroedinger-Gleichung", "Die Schrödinger-Gleichung") == 1.0
    assert title_score(r"Die Schr\"odinger-Gleichung", "Die Schroedinger-Gleichung") == 1.0
    assert title_score("Die Schrodinger-Gleichung", "Die Schrödinger-Gleichung") == 1.0
    assert title_score("Die Schroedinger-Gleichung", "Die Schrodinger-Gleichung") < 1.0
    record = ["Erwin Schrödinger", "Kurt Gödel"]
    assert matched_authors(["Schroedinger, E.", "Goedel, K."], record) == record
    assert matched_authors([r"G{\"o}del, K."], ["Kurt Goedel"]) == ["Kurt Goedel"]
    assert matched_authors(["Schrodinger, E."], record) == ["Erwin Schrödinger"]


def _paper(**fields):
    base = {
        "source": "arxiv",
        "title": MARKOV,
        "authors": ["Caprice Stanley", "Tobias Windisch"],
        "year": 2016,
        "arxiv_id": "1605.08386",
    }
    return Paper(**{**base, **fields})


def test_compare_confirms_a_half_remembered_reference():
    match = compare(
        {
            "title": "Heat-bath random walks with Markov bases.",
            "authors": "Windisch et al.",
            "year": 2017,
        },
        _paper(),
    )
    assert match.ok, match.reason
    assert match.checks() == {
        "title_score": 1.0,
        "matched_authors": ["Tobias Windisch"],
        "year_diff": -1,
    }
    assert match.reason == "title, authors, year match"


@pytest.mark.parametrize(
    ("candidate", "failed"),
    [
        ({"title": MARKOV, "authors": ["Terence Tao"]}, ["authors"]),
        ({"title": "Heat-bath random walks with toric ideals", "authors": ["Stanley"]}, ["title"]),
        ({"title": MARKOV, "year": 2012}, ["year"]),
        (
            {"title": "Neural Turing Machines", "authors": ["Graves"], "year": 2014},
            ["title", "authors", "year"],
        ),
    ],
)
def test_compare_names_what_failed(candidate, failed):
    match = compare(candidate, _paper())
    assert not match.ok
    assert match.failed == failed
    assert match.reason


def test_compare_with_nothing_to_compare_accepts_the_identifier():
    match = compare({"arxiv_id": "1605.08386"}, _paper())
    assert match.ok
    assert "no title, authors or year" in match.reason


def test_describe_names_the_real_paper():
    paper = _paper(authors=AEW10_AUTHORS)
    assert describe(paper) == (
        f"'{MARKOV}' by Kees A. Schouhamer Immink, Stan Baggen, Peter H. N. de With et al. (2016)"
    )

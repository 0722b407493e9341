"""The matching rules (gate/matching.py, core/titles.py, gate/venuematch.py) on titles and names
from the recordings."""

from __future__ import annotations

import pytest
from mathtools.core.authors import check_authors, cited_family, given_agrees, split_authors
from mathtools.core.records import Paper
from mathtools.core.text import latex_to_unicode, strip_latex
from mathtools.core.titles import (
    TITLE_THRESHOLD,
    main_title,
    misspelled,
    normalise_title,
    title_score,
)
from mathtools.core.venues import venue_parts
from mathtools.gate.matching import compare, describe
from mathtools.gate.venuematch import venue_agrees
from mathtools.services.s2records import to_paper as s2_paper
from support.standin import load_index


def matched_authors(cited, record) -> list[str]:
    """The record's names (as written) that a cited name was paired with."""
    return check_authors(cited, record).matched


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
    assert strip_latex(r"G\"{o}tz \v{S}koda \emph{fast} $L^2$ --- x") == "Götz Škoda fast L2 - x"
    assert latex_to_unicode(r"Erd{\H{o}}s, {\o}ksendal, \'{\i}, \c c, $\tau$ {W}") == (
        "Erdős, øksendal, í, ç, $\\tau$ {W}"  # commands that write no letter are left alone
    )
    assert normalise_title(r"Erd{\H{o}}s and \v{S}koda") == normalise_title("Erdős and Škoda")
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
            "year": 2016,
        },
        _paper(),
    )
    assert match.ok, match.reason
    assert match.checks() == {
        "title_score": 1.0,
        "matched_authors": ["Tobias Windisch"],
        "year_diff": 0,
    }
    assert match.reason == "title, authors, year match"


@pytest.mark.parametrize(
    ("candidate", "title_ok", "fields"),
    [
        ({"title": MARKOV, "authors": ["Terence Tao"]}, True, ["authors"]),
        (
            {"title": "Heat-bath random walks with toric ideals", "authors": ["Stanley"]},
            False,
            ["authors"],
        ),
        ({"title": MARKOV, "year": 2012}, True, ["year"]),
        (
            {"title": "Neural Turing Machines", "authors": ["Graves"], "year": 2014},
            False,
            ["authors", "year"],
        ),
    ],
)
def test_compare_names_what_differs(candidate, title_ok, fields):
    match = compare(candidate, _paper())
    assert not match.ok
    assert match.title_ok is title_ok
    assert [d["field"] for d in match.discrepancies] == fields
    assert match.reason


@pytest.mark.parametrize(
    ("cited", "note"),
    [
        (["Caprice Stanley", "Tobias Windisch"], None),
        ("Stanley, C. and Windisch, T.", None),
        ("Windisch et al.", None),
        ("Windisch, Tobias and others", None),
        (["Windisch, T."], "incomplete author list: 1 of 2 cited, without 'et al.'"),
        (["C. Stanley", "T. Windisch", "L. Chen"], "L. Chen is not an author"),
        (
            ["Candice Stanley", "Tobias Windisch"],
            "cited Candice Stanley, the author is Caprice Stanley",
        ),
        (["P. Stanley", "T. Windisch"], "cited P. Stanley, the author is Caprice Stanley"),
        (["Tobias, W.", "Stanley, C."], "Tobias, W. is not an author"),
        (["Stanley, C.", "Stanley, C."], "Stanley, C. is not an author"),  # one Stanley
    ],
)
def test_every_cited_author_must_be_an_author(cited, note):
    match = compare({"title": MARKOV, "authors": cited, "year": 2016}, _paper())
    notes = [d["note"] for d in match.discrepancies]
    assert notes == ([note] if note else [])
    if note:
        assert match.discrepancies[0]["record"] == ["Caprice Stanley", "Tobias Windisch"]


def test_placeholder_authors_on_one_shared_family_name_are_not_enough():
    record = _paper(authors=["Ling Chen", "Wei Wang"])
    match = compare({"title": MARKOV, "authors": "Ling Chen; Amara Diallo; Viktor Horvat"}, record)
    assert match.discrepancies[0]["note"] == "Amara Diallo and Viktor Horvat are not authors"
    assert not match.authors_contradicted  # Chen is: found by title, the paper is identified


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Aviral Sharma", "Archit Sharma"),
        ("Wen Li", "Wei Li"),
    ],
)
def test_a_cited_given_name_must_agree(cited, record):
    assert not given_agrees(cited, record)


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("A. Sharma", "Archit Sharma"),
        ("Sharma, Archit", "Archit Sharma"),
        ("Alex Graves", "Alexander Graves"),
        ("Yuri Manin", "Yurii Manin"),
        ("Aleksandr Grothendieck", "Alexander Grothendieck"),
        ("J.-P. Serre", "Jean-Pierre Serre"),
        ("Serre JP", "Jean-Pierre Serre"),
        ("Mostofa Patwary", "M. Patwary"),
        ("Michael Steele", "J. Michael Steele"),
        ("Goedel, Kurt", "Kurt Gödel"),
    ],
)
def test_given_names_agree_across_forms(cited, record):
    assert given_agrees(cited, record)


def test_year_tolerance_only_where_the_record_shows_why():
    preprint = _paper()  # arXiv only, 2016
    assert compare({"title": MARKOV, "year": 2017}, preprint).year_ok is False
    published = _paper(venue="Bernoulli", journal_ref="Bernoulli 25 (2019) 1-20")
    assert compare({"title": MARKOV, "year": 2019}, published).year_ok  # the journal year
    assert compare({"title": MARKOV, "year": 2017}, published).year_ok  # arXiv + journal: ±1
    assert compare({"title": MARKOV, "year": 2021}, published).year_ok is False
    revised = _paper(updated="2018-03-01T00:00:00Z")
    assert compare({"title": MARKOV, "year": 2018}, revised).year_ok  # a later version's year


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("J. Number Theory", "Journal of Number Theory"),
        ("J Number Theory", "Journal of Number Theory"),
        (
            "Proc. Natl. Acad. Sci. USA",
            "Proceedings of the National Academy of Sciences of the United States of America",
        ),
        ("PNAS", "PNAS"),
        ("Physics Letters B", "Phys.Lett.B"),
        ("IEEE Trans. Inf. Theory", "IEEE Transactions on Information Theory"),
        ("Nat. Commun.", "Nature Communications"),
        ("J. Amer. Math. Soc.", "Journal of the American Mathematical Society"),
        ("Comm. Math. Phys.", "Communications in Mathematical Physics"),
        ("Ann. of Math.", "Annals of Mathematics"),
        ("ISSTA 2020", "ACM SIGSOFT International Symposium on Software Testing and Analysis"),
        ("Proc. ISSTA", "International Symposium on Software Testing and Analysis"),
        (
            "ICSTW",
            "2023 IEEE International Conference on Software Testing, Verification and Validation"
            " Workshops (ICSTW)",
        ),
    ],
)
def test_venue_abbreviations_and_proceedings_variants_agree(cited, record):
    assert venue_agrees(cited, record)


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("J. Algebra", "Journal of Number Theory"),
        ("Journal of Algebra", "Journal of Algebraic Combinatorics"),
        ("Math. Ann.", "Annals of Mathematics"),
        ("Nature", "Nature Communications"),
        ("Physical Review Letters", "Physics Reports"),
        ("Journal of Quantum Topology and Computation", "Journal of the American Chemical Society"),
    ],
)
def test_other_venues_do_not_agree(cited, record):
    assert not venue_agrees(cited, record)


def test_venue_version_volume_and_pages():
    preprint = _paper()
    [venue] = compare({"title": MARKOV, "venue": "Ann. of Math."}, preprint).discrepancies
    assert (
        venue["field"] == "venue" and "knows only the preprint (arXiv:1605.08386)" in venue["note"]
    )
    assert compare({"title": MARKOV, "venue": "arXiv preprint"}, preprint).ok
    published = _paper(venue="Bernoulli", volume="25", pages="1-20")
    [version] = compare({"title": MARKOV, "venue": "arXiv"}, published).discrepancies
    assert version["field"] == "version" and version["record"] == "Bernoulli"
    assert compare(
        {"title": MARKOV, "venue": "Bernoulli", "volume": "25", "pages": "1--20"}, published
    ).ok
    wrong = compare(
        {"title": MARKOV, "venue": "Bernoulli", "volume": "24", "pages": "3-20"}, published
    )
    assert [d["field"] for d in wrong.discrepancies] == ["volume", "pages"]


@pytest.mark.parametrize(
    ("ref", "parts"),
    [
        ("Phys.Lett.B573:94-100,2003", ("Phys.Lett.B", "573", "94-100")),
        ("ActaAstron.56:1-50,2006", ("ActaAstron.", "56", "1-50")),
        ("Lect.Notes Phys.562:195-212,2001", ("Lect.Notes Phys.", "562", "195-212")),
        (
            "IEEE Transactions on Information Theory ( Volume: 65 , Issue: 4 , April 2019 )",
            ("IEEE Transactions on Information Theory", "65", None),
        ),
        (
            "Software Testing, Verification and Reliability, 35(2):e1914, 2025",
            ("Software Testing, Verification and Reliability", "35", None),
        ),
        (
            "InProceedings of the 31st ACM SIGSOFT International Symposium on Software Testing and"
            " Analysis 2022 Jul 18 (pp. 289-301)",
            (
                "Proceedings of the 31st ACM SIGSOFT International Symposium on Software Testing"
                " and Analysis",
                None,
                "289-301",
            ),
        ),
        (
            "2022 IEEE International Conference on Cloud Engineering (IC2E 2022)",
            ("IEEE International Conference on Cloud Engineering", None, None),
        ),
    ],
)
def test_venue_parts_of_recorded_journal_refs(ref, parts):
    assert venue_parts(ref) == parts


def test_compare_with_nothing_to_compare_accepts_the_identifier():
    match = compare({"arxiv_id": "1605.08386"}, _paper())
    assert match.ok
    assert "no title, authors or year" in match.reason


def test_describe_names_the_real_paper():
    paper = _paper(authors=AEW10_AUTHORS)
    assert describe(paper) == (
        f"'{MARKOV}' by Kees A. Schouhamer Immink, Stan Baggen, Peter H. N. de With et al. (2016)"
    )


@pytest.mark.parametrize(
    ("cited", "record", "typo"),
    [
        ("Nueral Turing Machines", "Neural Turing Machines", True),  # two letters swapped
        ("Neural Turring Machines", "Neural Turing Machines", True),  # a letter added
        ("Heat-bath random walks with Markov bsaes", MARKOV, False),  # "base": too short a word
        (
            "Efficient Two-Stage Group Testing Algorithms for Genetic Screening",
            "Efficient Two-Stage Group Testing Algorithms for DNA Screening",
            False,
        ),  # a near miss
        ("Neural Turing", "Neural Turing Machines", False),  # a word dropped
        ("Neural Turing Machines", "Neural Turing Machines", False),  # nothing to correct
    ],
)
def test_misspelled_titles_are_typos_only(cited, record, typo):
    assert misspelled(cited, record) is typo


def test_a_misspelled_title_is_corrected_through_an_identifier_only():
    record = _paper(title="Neural Turing Machines", authors=["Alex Graves"], year=2014)
    match = compare(
        {"title": "Nueral Turing Machines", "authors": "Graves, A.", "year": 2014}, record
    )
    assert match.title_ok and [d["field"] for d in match.discrepancies] == ["title"]
    assert match.discrepancies[0]["record"] == "Neural Turing Machines"
    assert match.identifies(by_identifier=True)
    assert not match.identifies(by_identifier=False)  # a title search needs the exact title


# Synthesized records (Paper objects written here, titles as real papers write them): the
# typographic rules of a title that identifies the paper.
@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("Subspace Differential Privacys", "Subspace Differential Privacy"),
        ("Generative Model for Graphs", "Generative Models for Graphs"),
        ("Characterizing risk of fairwashing", "Characterizing the risk of fairwashing"),
        ("Schema Variable Types", "Schema-Variable Types"),
        ("Convex Minimization", "Convex Minimisation"),
    ],
)
def test_a_title_that_differs_in_its_words_is_corrected(cited, record):
    match = compare({"title": cited}, Paper(source="crossref", title=record))
    assert match.title_ok
    assert [(d["field"], d["record"]) for d in match.discrepancies] == [("title", record)]
    assert match.identifies(by_identifier=False)  # a title search still identifies it


@pytest.mark.parametrize(
    ("cited", "record"),
    [
        ("HEAT-BATH RANDOM WALKS WITH MARKOV BASES", MARKOV),  # case
        ("{H}eat-bath random walks with {M}arkov bases", MARKOV),  # braces
        (r"Sur les fonctions de M\"obius", "Sur les fonctions de Möbius"),  # LaTeX accents
        ("Heat-bath random walks with Markov bases.", MARKOV),  # punctuation
        ("Automated Test Generation for REST APIs - No Time to Rest Yet", REST),
        ("Heat-bath  random walks with Markov  bases", MARKOV),  # spacing
        ("Automated Test Generation for REST APIs", REST),  # the subtitle left out
        (r"$\omega$Test", "ωTest"),
    ],
)
def test_a_title_that_differs_only_typographically_is_confirmed(cited, record):
    match = compare({"title": cited}, Paper(source="crossref", title=record))
    assert match.title_ok and match.discrepancies == []


def test_a_year_one_off_identifies_by_title_only_with_every_author_agreeing():
    """Synthesized record: the exact title, one year off, no arXiv version to explain it."""
    paper = Paper(
        source="crossref",
        title="Approximation by superpositions of a sigmoidal function",
        authors=["G. Cybenko"],
        year=1989,
    )
    cited = {"title": paper.title, "authors": "Cybenko", "year": 1988}
    match = compare(cited, paper)
    assert match.identifies(by_identifier=False)
    assert [d["note"] for d in match.discrepancies] == ["cited 1988, the record says 1989"]
    assert not compare({**cited, "authors": "Hornik"}, paper).identifies(by_identifier=False)
    assert not compare({**cited, "year": 1987}, paper).identifies(by_identifier=False)
    assert not compare({**cited, "authors": None}, paper).identifies(by_identifier=False)


ANTS = (
    "ANTS XIII. Proceedings of the thirteenth algorithmic number theory symposium, "
    "University of Wisconsin-Madison, WI, USA, July 16--20, 2018"
)


def test_a_title_cut_before_its_place_and_date_is_the_record_s():
    cited = "ANTS XIII. Proceedings of the thirteenth algorithmic number theory symposium"
    assert title_score(cited, ANTS) == TITLE_THRESHOLD
    assert compare({"title": cited}, Paper(source="zbmath", title=ANTS)).discrepancies == []
    # a comma whose tail holds no year is no place and date: the words are the title's; nor is
    # a span of years a history is about (titles of recorded Semantic Scholar records)
    assert title_score("Sparse", "Sparse, dense and random graphs") < TITLE_THRESHOLD
    for cited, record in [
        (
            "Sewers' diffusion and the decline of mortality: The case of Paris",
            "Sewers’ diffusion and the decline of mortality: The case of Paris, 1880–1914",
        ),
        (
            "Labor Market Institutions and the Distribution of Wages",
            "Labor Market Institutions and the Distribution of Wages, 1973-1992: A Semiparametric "
            "Approach",
        ),
    ]:
        assert title_score(cited, record) < TITLE_THRESHOLD
    esa = "Algorithms - ESA 2002 : 10th Annual European Symposium, Rome, Italy, September 17-21, "
    assert (
        title_score(
            "Algorithms - ESA 2002: 10th Annual European Symposium", esa + "2002 : proceedings"
        )
        == 1
    )


def test_mathematics_own_forms_of_a_title():
    """Synthesized titles: a language note, \\ell and \\Lambda against their Unicode letters."""
    record = Paper(source="zbmath", title="On the stability of Λ-modules in ℓ_p spaces (Russian)")
    cited = r"On the stability of $\Lambda$-modules in $\ell_p$ spaces"
    match = compare({"title": cited}, record)
    assert match.title_ok and match.discrepancies == []
    assert title_score("Lamda-modules", "Λ-modules") < TITLE_THRESHOLD  # not a misspelling
    assert title_score("Sur un probleme (in French)", "Sur un problème") == TITLE_THRESHOLD


def test_a_book_cited_as_a_journal_article_is_corrected():
    """Synthesized book records (zbMATH Open and Crossref give document types)."""
    book = Paper(source="crossref", title="Ergodic theory", document_type="book", year=1982)
    cited = {"title": "Ergodic theory", "venue": "Ann. of Math.", "volume": "12", "pages": "1-20"}
    [venue] = compare(cited, book).discrepancies
    assert venue["field"] == "venue" and "the record is a book" in venue["note"]
    # a book in a series, cited by its series and volume, is cited as it is
    series = Paper(
        source="zbmath",
        title="Ergodic theory",
        document_type="book",
        venue="Lecture Notes in Mathematics",
        volume="729",
    )
    cited = {"title": "Ergodic theory", "venue": "Lect. Notes Math.", "volume": "729"}
    assert compare(cited, series).discrepancies == []


def test_a_latex_escaped_doi_is_looked_up_unescaped():
    from mathtools.gate.candidates import candidate

    cited = candidate({"key": "k", "doi": r"10.1007/978-1-4612-2966-7\_17"}, 1, "test")
    assert cited.doi == "10.1007/978-1-4612-2966-7_17"
    assert candidate({"key": "k", "doi": r"10.1000/a{\_}b"}, 1, "t").doi == "10.1000/a_b"


def test_semantic_scholars_publication_types_say_book_only_for_a_book(standin):
    """The recorded record of "Java generics are turing complete" is typed Book, JournalArticle
    and Conference: an article. A record typed Book alone (synthesized) is a book, and cited as a
    journal article it is corrected."""
    recorded = load_index().s2_papers["751e5ff25e8186a8fd26ee05c4e29a286f650f1b"]
    assert s2_paper(recorded).document_type == "journal-article"
    book = s2_paper({"paperId": "b" * 40, "title": "Ergodic theory", "publicationTypes": ["Book"]})
    assert book.document_type == "book"
    cited = {"title": "Ergodic theory", "venue": "Ann. of Math.", "volume": "12", "pages": "1-20"}
    assert [d["field"] for d in compare(cited, book).discrepancies] == ["venue"]

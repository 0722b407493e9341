"""Discovery that finds (issue 21, and issue 19's query defects): the rules a plan's queries
follow, the relaxation of an empty search, and where the relaxation is recorded.

The problems are the benchmark's (bench/data/discovery/problems: real problems, written the way
a mathematician states them) and the repository's sample problem; searches go to the stand-in
engine over the real arXiv corpus (tests/support/corpus_search.py, ../shared/corpus).
"""

from __future__ import annotations

import json
import os
import re

import pytest
from conftest import ROOT
from mathtools.core import domains, schemas
from mathtools.core.text import fold, strip_latex
from mathtools.search import (
    commandlines,
    keyterms,
    planning,
    problemfile,
    problemterms,
    querylines,
    relaxation,
)
from mathtools.search.store import RunStore
from support import corpus_search
from support.searchplans import DISCOVERY, run_entry
from support.standin import StandIn

BENCH = ROOT / "bench" / "data" / "discovery"
PROBLEMS = sorted((BENCH / "problems").glob("*.md"))
SAMPLE = ROOT / "examples" / "sample-problem" / "PROBLEM.md"


@pytest.fixture(scope="module")
def plans():
    return {path.stem: planning.plan(problemfile.read_problem(path)) for path in PROBLEMS}


@pytest.fixture(scope="module")
def corpus():
    corpus_search.load()  # skips, naming the folder, without ../shared/corpus


def queries(plan, api):
    return plan["queries"][api]


def values(query) -> list[str]:
    return [value for _, value in querylines.query_line_terms(query["query_line"])]


# --- queries an expert would type ---------------------------------------------------------------


def test_the_benchmark_covers_the_new_domains_and_twenty_problems():
    targets = json.loads((BENCH / "targets.json").read_text(encoding="utf-8"))["targets"]
    assert len(PROBLEMS) >= 20 and {p.stem for p in PROBLEMS} == set(targets)
    used = {problemfile.read_problem(p).domain for p in PROBLEMS}
    assert {"theoretical-computer-science", "statistics", "mathematical-physics"} <= used
    assert {"numerical-analysis", "optimization-control", "dynamical-systems"} <= used
    assert "information-theory" in used


def test_no_query_is_a_sentence_fragment_with_a_verb(plans):
    """Known Results such as "Iwaniec, Luo and Sarnak computed the 1-level density" or "The
    Lemke-Howson algorithm finds an equilibrium" gave "Sarnak computed" and "Lemke-Howson
    algorithm finds"; a query holds the named objects only."""
    verbs = {"computed", "finds", "constructed", "proved", "showed", "gives", "depends", "whose"}
    for name, plan in plans.items():
        for api in DISCOVERY:
            for query in queries(plan, api):
                words = {w.lower() for v in values(query) for w in re.findall(r"[\w'-]+", v)}
                assert not words & verbs, (name, query["query_line"])


def test_a_negated_known_result_is_no_query():
    """The sample problem's "Non-tolerant uniformity testing needs ..." is what the problem sets
    itself against, not a search (issue 19)."""
    plan = planning.plan(problemfile.read_problem(SAMPLE))
    labels = [q["query_line"] for api in DISCOVERY for q in queries(plan, api)]
    assert not [label for label in labels if "non-tolerant" in label.lower()]
    assert any("Good-Turing estimation" in label for label in labels)  # a named result stays


def test_semantic_scholar_queries_get_no_domain_word(plans):
    """`... tester probability`: the domain's name only diluted the S2 query (issue 19)."""
    sample = planning.plan(problemfile.read_problem(SAMPLE))
    assert not [q for q in queries(sample, "semantic_scholar") if "probability" in q["query_line"]]
    for plan in plans.values():
        domain = plan["domain"].replace("-", " ")
        for query in queries(plan, "semantic_scholar"):
            assert " " not in domain or domain not in values(query)[0].lower(), query["query_line"]


def test_arxiv_queries_have_at_most_three_and_ed_words_and_quote_only_named_results(plans):
    for name, plan in plans.items():
        problem = problemfile.read_problem(BENCH / "problems" / f"{name}.md")
        named = {fold(n) for n in problemterms.query_names(problem)}
        for query in queries(plan, "arxiv"):
            terms = [
                v for o, v in querylines.query_line_terms(query["query_line"]) if o != "--author"
            ]
            phrases = [v for v in terms if " " in v]
            assert all(fold(p) in named for p in phrases), (name, query["query_line"])
            if not phrases:
                assert len(terms) <= planning.MAX_ARXIV_WORDS, (name, query["query_line"])


def test_an_author_query_always_carries_a_topic_word(plans):
    sample = planning.plan(problemfile.read_problem(SAMPLE))
    for plan in [sample, *plans.values()]:
        for api in DISCOVERY:
            for query in [q for q in queries(plan, api) if q["origin"] == "authors"]:
                if api == "arxiv":
                    options = [o for o, _ in querylines.query_line_terms(query["query_line"])]
                    assert "--author" in options and "--all" in options, query["query_line"]
                else:
                    assert len(values(query)[0].split()) >= 2, query["query_line"]
    for plan in [sample, *plans.values()]:  # zbMATH: the author with the core term as --query
        for query in [q for q in queries(plan, "zbmath") if q["origin"] == "authors"]:
            assert {"--author", "--query"} <= set(query["args"]), query["query_line"]


def test_a_common_surname_on_arxiv_comes_with_the_topic(plans):
    """ "Li" (X.-D. Li, 2005, no arXiv id): no arXiv author query; S2 has "Li" with the topic."""
    plan = plans["shrinking-solitons-fundamental-group"]
    assert not [q for q in queries(plan, "arxiv") if q["origin"] == "authors"]
    (author,) = [q for q in queries(plan, "semantic_scholar") if q["origin"] == "authors"]
    assert values(author)[0].startswith("Li ") and "Ricci" in values(author)[0]


def test_latex_becomes_words_and_the_named_object(tmp_path):
    """`Primes of the form $\\lfloor n^c \\rfloor$`: "form floor" was a quoted fragment; the
    plan searches "floor" and "Piatetski-Shapiro", which the problem names."""
    (tmp_path / "PROBLEM.md").write_text(
        "---\ntitle: 'Primes of the form $\\lfloor n^c \\rfloor$'\nslug: piatetski-shapiro\n"
        "domain: number-theory\ntags: [primes, exponential-sums]\n---\n\n# Problem Statement\n\n"
        "Piatetski-Shapiro proved that for $1 < c < 12/11$ the sequence $\\lfloor n^c \\rfloor$ "
        "contains infinitely many primes. What is the largest range of $c$ for which the "
        "Piatetski-Shapiro prime number theorem holds?\n\n## Known Results\n\n"
        "- **Piatetski-Shapiro prime number theorem** for $c < 12/11$ (1953).\n",
        encoding="utf-8",
    )
    plan = planning.plan(problemfile.read_problem(tmp_path / "PROBLEM.md"))
    searched = [v for api in DISCOVERY for q in queries(plan, api) for v in values(q)]
    assert not [v for v in searched if "form floor" in v.lower() or "\\" in v or "$" in v]
    assert any(v == "floor" for v in searched)
    assert any("Piatetski-Shapiro" in v for v in searched)


def test_a_reference_keeps_its_closing_year_and_venue_in_its_text():
    """Issue 19: "(2008)" stayed at the end of a reference's title. No title is read out of a
    reference any more: it is verified whole, and its year is the one in parentheses."""
    text = "R. Baker, The Piatetski-Shapiro prime number theorem (2008)"
    ref = problemfile.parse_reference(text)
    assert (ref.text, ref.year) == (text, 2008)


# --- domains and categories ---------------------------------------------------------------------


def test_new_domains_give_their_categories(plans):
    assert plans["oracle-property-risk"]["categories"] == ["math.ST", "stat.TH"]
    tcs = plans["bimatrix-nash-complexity"]["categories"]
    assert tcs == ["cs.DS", "cs.CC", "cs.DM", "cs.IT"]
    assert plans["six-vertex-arctic-curve"]["categories"] == ["math-ph", "math.MP"]
    for path in PROBLEMS:
        names = problemterms.proper_names(problemfile.read_problem(path))
        for query in queries(plans[path.stem], "arxiv"):
            # Only a named object ("Jones polynomial", "Hartree equation") leaves the domain's
            # categories; a person beside a topic word keeps them (namesakes).
            words = values(query)
            named = any(fold(w) in names for v in words for w in v.split())
            person = query["origin"] == "authors" or (
                query["origin"] == "known" and len(words) == 2 and " " not in words[0]
            )
            if "--domain" not in query["args"]:
                assert named and not person, query["query_line"]


def test_a_named_object_is_searched_in_every_category(plans, corpus):
    """The Hartree equation is studied in math.AP and math-ph, neither an analysis category of
    the domain table: a named object is specific enough anywhere (held-out problem)."""
    path = ROOT / "bench" / "data" / "discovery-held-out" / "problems"
    plan = planning.plan(problemfile.read_problem(path / "hartree-energy-critical-scattering.md"))
    labels = [q["query_line"] for q in queries(plan, "arxiv")]
    assert "arxiv --all critical --all Hartree --all equation" in labels
    assert "arxiv --all Hartree --author Kenig --domain analysis" in labels  # its rarest word
    entry = queries(plan, "arxiv")[
        labels.index("arxiv --all critical --all Hartree --all equation")
    ]
    found = run_entry("arxiv", entry, corpus_search.ArxivStandin())
    assert found.relaxation is None and "0704.0665" in [p.arxiv_id for p in found.papers]


def test_problem_md_names_extra_categories(plans, tmp_path):
    """`arxiv_categories: [math.SG]`: every arXiv search adds it; with a domain outside the
    table, those categories are the only filter."""
    plan = plans["toric-ball-packing"]
    assert plan["categories"] == ["math.DG", "math.SG"]
    for query in queries(plan, "arxiv"):
        assert query["args"][query["args"].index("--category") + 1] == "math.SG"
    text = (BENCH / "problems" / "toric-ball-packing.md").read_text(encoding="utf-8")
    (tmp_path / "PROBLEM.md").write_text(
        text.replace("domain: differential-geometry", "domain: symplectic-geometry"),
        encoding="utf-8",
    )
    custom = planning.plan(problemfile.read_problem(tmp_path / "PROBLEM.md"))
    assert custom["domain"] is None and custom["categories"] == ["math.SG"]
    arxiv = queries(custom, "arxiv")
    assert arxiv and all("--category" in q["args"] and "--domain" not in q["args"] for q in arxiv)


def test_arxiv_query_script_knows_the_new_domains(script):
    run = script("arxiv_query.py", "search", "--all", "x", "--domain", "nope")
    assert run.returncode == 2
    for domain in ("statistics", "theoretical-computer-science", "information-theory"):
        assert domain in domains.DOMAINS and domain in run.stderr + run.stdout


# --- relaxation ---------------------------------------------------------------------------------


def test_a_british_spelling_is_searched_in_both_spellings(corpus):
    """The held-out problem "Colourings of ordinals by reals" writes "colouring"; its paper is
    Brendle and Fuchino's "Coloring ordinals by reals" (math.LO). arXiv folds neither spelling,
    so each planned query ORs the two, and finds it without relaxation."""
    path = ROOT / "bench" / "data" / "discovery-held-out" / "problems"
    plan = planning.plan(problemfile.read_problem(path / "ordinal-colorings-reals.md"))
    entries = [q for q in queries(plan, "arxiv") if "colouring" in q["query_line"]]
    assert entries  # the plan keeps the problem's own spelling in its query lines
    for entry in entries:
        client = corpus_search.ArxivStandin()
        found = run_entry("arxiv", entry, client)
        assert "(all:colouring OR all:coloring)" in client.queries[0], entry["query_line"]
        assert found.relaxation is None and "0704.1884" in [p.arxiv_id for p in found.papers]


def test_only_a_british_spelling_gets_a_second_spelling_and_never_a_name():
    from mathtools.services.arxiv import build_query

    assert build_query(all_terms=["graph colouring"], categories=["math.CO"]) == (
        '(all:"graph colouring" OR all:"graph coloring") AND cat:math.CO'
    )
    assert build_query(title=["Normalised Ricci flow"]) == (
        '(ti:"Normalised Ricci flow" OR ti:"normalized ricci flow")'
    )
    assert build_query(all_terms=["coloring", "four"], author=["Colour"]) == (
        "au:Colour AND all:coloring AND all:four"
    )


def test_an_empty_phrase_is_asked_again_without_quotes(corpus):
    """ "normalized Ricci flow on surfaces" is no phrase of Hao Yin's "Normalized Ricci flow on
    nonparabolic surfaces"; its words are all there."""
    entry = {"args": ["search", "--all", "normalized Ricci flow on surfaces", "--domain",
                      "differential-geometry", "--limit", "5", "--relax"]}  # fmt: skip
    client = corpus_search.ArxivStandin()
    result = run_entry("arxiv", entry, client)
    assert result.relaxation["step"] == "unquoted"
    assert "0704.0853" in [p.arxiv_id for p in result.papers]
    assert client.queries[0] == 'all:"normalized Ricci flow on surfaces" AND cat:math.DG'
    assert result.query_line == 'arxiv --all "normalized Ricci flow on surfaces" --domain ' + (
        "differential-geometry"
    )
    assert schemas.schema_errors("search_result", result.to_dict()) == []


def test_then_the_weakest_word_goes_then_the_words_are_or_ed(corpus):
    client = corpus_search.ArxivStandin()
    dropped = run_entry(
        "arxiv", {"args": ["search", "--all", "stochastic", "--all", "sandpile", "--relax"]}, client
    )
    assert dropped.relaxation == {
        "step": "dropped", "query": "all:sandpile", "dropped": "stochastic",
    }  # fmt: skip
    assert dropped.papers  # the rotor-router and sandpile paper
    # Two words as specific as each other: neither is dropped, the OR keeps what holds Kripke.
    equal = run_entry(
        "arxiv", {"args": ["search", "--all", "Kripke", "--all", "frames", "--relax"]}, client
    )
    assert equal.relaxation == {"step": "any", "query": "all:Kripke OR all:frames"}
    assert equal.papers  # "An algebraic generalization of Kripke structures"
    either = run_entry("arxiv", {"args": ["search", "--all", "zzzz", "--all", "sandpile"]}, client)
    assert either.relaxation["step"] == "any"
    assert either.relaxation["query"] == "all:zzzz OR all:sandpile"
    assert either.papers


def test_an_author_searchs_weakest_term_is_the_name(corpus):
    """Namesakes and spellings: an author query that finds nothing keeps its topic."""
    entry = {"args": ["search", "--all", "sandpile", "--author", "Nobody", "--relax"]}
    result = run_entry("arxiv", entry, corpus_search.ArxivStandin())
    assert result.relaxation == {"step": "dropped", "query": "all:sandpile", "dropped": "Nobody"}
    assert "0704.0688" in [p.arxiv_id for p in result.papers]


def test_a_search_that_finds_something_is_not_relaxed_and_a_raw_query_never(corpus):
    client = corpus_search.ArxivStandin()
    found = run_entry("arxiv", {"args": ["search", "--all", "sandpile"]}, client)
    assert found.relaxation is None and len(client.queries) == 1
    raw = run_entry("arxiv", {"args": ["search", "--query", "ti:zzzz"]}, client)
    assert raw.papers == [] and raw.relaxation is None and client.queries[-1] == "ti:zzzz"


def test_every_form_empty_says_so(corpus):
    entry = {"args": ["search", "--all", "zzzz qqqq"]}
    result = run_entry("arxiv", entry, corpus_search.ArxivStandin())
    assert result.papers == [] and result.relaxation["step"] == "exhausted"


def test_a_greek_letter_a_user_typed_is_a_word_not_a_rejected_query(corpus):
    """A title a user wrote in Unicode ("for real α > 1") plans `--all α`: the arXiv stand-in
    reads it as a word (a search engine indexes it), relaxes the search, and answers; it once
    rejected the whole plan ("empty term in all:")."""
    entry = {"args": ["search", "--all", "sandpile", "--all", "α", "--relax"]}
    result = run_entry("arxiv", entry, corpus_search.ArxivStandin())
    assert result.relaxation is not None
    assert "0704.0688" in [p.arxiv_id for p in result.papers]


def test_semantic_scholar_relaxes_by_words(corpus):
    """No operators on S2: the most generic word goes (the last of equals), then the two rarest
    words stand alone, and a paper must hold the first of them that the results hold."""
    client = corpus_search.S2Standin()
    entry = {"args": ["search", "--query", "sandpile rotor zzzz qqqq yyyy", "--limit", "5"]}
    result = run_entry("semantic_scholar", entry, client)
    assert result.relaxation == {
        "step": "dropped", "query": "sandpile rotor zzzz qqqq", "dropped": "yyyy",
    }  # fmt: skip
    entry = {"args": ["search", "--query", "sandpile zzzz qqqq yyyy xxxx", "--limit", "5"]}
    result = run_entry("semantic_scholar", entry, client)
    assert result.relaxation == {"step": "any", "query": "sandpile zzzz"}
    assert "0704.0688" in [p.arxiv_id for p in result.papers]


@pytest.mark.slow  # every query of the benchmark: CI runs it (CONTRIBUTING.md "Run the tests")
def test_every_planned_search_of_the_benchmark_finds_something_after_relaxation(plans, corpus):
    clients = {"arxiv": corpus_search.ArxivStandin(), "semantic_scholar": corpus_search.S2Standin()}
    for name, plan in plans.items():
        for api in DISCOVERY:
            for entry in queries(plan, api):
                result = run_entry(api, entry, clients[api])
                # Answered with papers, every one the service returned listed (issue 38).
                assert result.papers, (name, entry["query_line"])


# --- recorded in the run, shown in the Search History ------------------------------------------


def test_the_relaxation_is_recorded_in_the_run_and_shown_in_the_search_history(tmp_path, corpus):
    entry = {"args": ["search", "--all", "stochastic", "--all", "sandpile", "--relax"]}
    result = run_entry("arxiv", entry, corpus_search.ArxivStandin())
    plain = run_entry(
        "arxiv", {"args": ["search", "--all", "sandpile"]}, corpus_search.ArxivStandin()
    )
    with RunStore(tmp_path / "runs.db") as store:
        run = store.record_run(
            "sandpile", f"{result.query_line}; {plain.query_line}", "arxiv", 1,
            results=[result.to_dict(), plain.to_dict()],
        )  # fmt: skip
        assert run["relaxations"] == [{"query_line": result.query_line, **result.relaxation}]
        summary = store.history_row([run["run_id"]])["summary"]
    assert summary == "stochastic sandpile (relaxed: weakest word left out (stochastic)); sandpile"


def test_the_search_scripts_relax_as_the_plan_prints_them(script, tmp_path):
    """arxiv_query.py / s2_lookup.py search --relax through the recordings stand-in: the JSON
    names the form that answered, record-run stores it, the run store's history row shows it."""
    with StandIn() as server:
        env = {**os.environ, **server.env()}
        out = tmp_path / "i1-arxiv-1.json"
        run = script(
            "arxiv_query.py", "search", "--all", "Heat-bath random walks infinitely",
            "--relax", "--limit", "5", "--out", str(out), env=env,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        data = json.loads(out.read_text(encoding="utf-8"))
        assert data["relaxation"] == {  # of two generic words, the last
            "step": "dropped", "query": data["relaxation"]["query"], "dropped": "infinitely",
        }  # fmt: skip
        assert [p["arxiv_id"] for p in data["papers"]] == ["1605.08386"]
        assert data["query_line"] == 'arxiv --all "Heat-bath random walks infinitely"'
        assert schemas.schema_errors("search_result", data) == []
        words = "Heat-bath random walks infinitely"
        plain = script("arxiv_query.py", "search", "--all", words, env=env)
        assert json.loads(plain.stdout)["papers"] == []  # without --relax: as asked
    recorded = script(
        "lit_update.py", "record-run", "--problem", "heat-bath", "--iteration", "1",
        "--results", str(out),
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    (run_id,) = [r["run_id"] for r in json.loads(recorded.stdout)["runs"]]
    with RunStore(os.environ["MATH_LITERATURE_DB"]) as store:
        summary = store.history_row([run_id])["summary"]
    assert summary == (
        '"Heat-bath random walks infinitely" (relaxed: weakest word left out (infinitely))'
    )


def test_relaxed_forms_stay_valid_arxiv_syntax(corpus):
    """A term with brackets, "(k,l)-sparse graphs" (Streinu and Theran's subject), relaxes into
    words arXiv can read: no bracket of the term reaches the query."""
    term = "(k,l)-sparse graphs infinitely"
    entry = {"args": ["search", "--all", term, "--domain", "combinatorics"]}
    client = corpus_search.ArxivStandin()
    result = run_entry("arxiv", entry, client)
    assert (result.relaxation["step"], result.relaxation["dropped"]) == ("dropped", "infinitely")
    assert "0704.0002" in [p.arxiv_id for p in result.papers]
    for query in client.queries[1:]:
        corpus_search.parse(query)  # raises on a syntax arXiv would reject
        assert "(k" not in query


def test_a_tag_naming_a_field_is_left_to_the_category_on_arxiv(plans):
    """ "knot theory" is what math.GT says; an amphicheiral-knot paper does not write it. On
    Semantic Scholar, whose search ranks rather than filters, the tag stays."""
    plan = plans["amphicheiral-odd-crossing"]
    assert not any("theory" in values(q) for q in queries(plan, "arxiv"))
    assert any("knot theory" in q["query_line"] for q in queries(plan, "semantic_scholar"))


def test_a_long_phrase_keeps_its_head_noun():
    """RAKE cuts a long run of content words: the cut keeps the end, where an English noun
    phrase has its head ("... fully residually free groups", not "finitely generated fully
    residually")."""
    terms = keyterms.key_terms("Limit groups (finitely generated fully residually free groups).")
    assert "fully residually free groups" in terms


def test_an_empty_search_in_the_domain_is_widened_to_every_category(corpus):
    """The last looser form leaves the categories out: Onsager's conjecture is studied in
    math.AP, no primary category of analysis."""
    entry = {"args": ["search", "--all", "Onsager", "--all", "zzzz", "--domain", "analysis"]}
    client = corpus_search.ArxivStandin()
    result = run_entry("arxiv", entry, client)
    assert result.relaxation == {"step": "widened", "query": "all:Onsager OR all:zzzz"}
    assert "0704.0759" in [p.arxiv_id for p in result.papers]
    assert relaxation.describe(result.relaxation) == "relaxed: in every category"
    assert schemas.schema_errors("search_result", result.to_dict()) == []


def test_a_symbol_of_several_meanings_is_no_word():
    """$\\nabla_L(z)$ is the Conway polynomial of a pretzel link, not a gradient."""
    assert "gradient" not in strip_latex(r"the Conway polynomial $\nabla_L(z)$", for_search=True)
    assert strip_latex(r"$\lfloor n^c \rfloor$", for_search=True) == "floor n^c"


@pytest.mark.parametrize("flag", ["--limit", "--max-results"])
def test_a_planned_arxiv_search_reads_limit_and_its_former_name(flag):
    """--limit is arxiv_query.py's name; plans written with --max-results keep working."""
    search, _ = commandlines.migrated_query("arxiv", ["search", "--all", "x", flag, "7"])
    assert relaxation.arxiv_request(search).max_results == 7

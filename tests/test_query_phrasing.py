"""The plan reaches a paper that words the problem otherwise (issue 38, its second set): rules of
query construction found from the searches that never returned a target, each a rule of how a
mathematician phrases a search, never a word list.

The problems are the second labelled set's (bench/data/discovery-second/problems); searches go to
the stand-in engine over the real arXiv corpus (tests/support/corpus_search.py, ../shared/corpus).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT
from mathtools.core import domains, fold
from mathtools.search import (
    commandlines,
    keyterms,
    planning,
    problemfile,
    problemterms,
    querylines,
    relaxation,
)
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


def test_a_greek_letter_and_a_parenthesis_aside_are_no_key_term():
    """A Greek letter a user types is a variable, as its LaTeX command is: the sixth blind set's
    "(φ,Γ)-modules" planned `--all φ` and an S2 search "φ Γ", both empty. And an aside
    ("the empty set included": issue 51's play searched it) is no phrase of the problem."""
    assert keyterms.problem_terms("Galois-side description of all (φ,Γ)-modules", 8) == [
        "Galois-side description", "modules",
    ]  # fmt: skip
    latex = keyterms.problem_terms(r"Galois-side description of all $(\varphi,\Gamma)$-modules", 8)
    assert latex == keyterms.problem_terms("Galois-side description of all (φ,Γ)-modules", 8)
    text = ("Let a(n) be the number of subsets of {1,...,n} (the empty set included) that "
            "contain no two consecutive integers.")  # fmt: skip
    assert keyterms.problem_terms(text, 8) == ["consecutive integers", "subsets"]


# --- issue 55: every key term searched, the domain table's common names, tolerant names --------

BENCH_PROBLEMS = sorted((ROOT / "bench" / "data").glob("discovery*/problems/*.md"))

# The issue's optimal-control problem, synthesized from its description: its key terms were in
# none of the ten planned queries.
SQP_PROBLEM = """---
title: "Local convergence of SQP for the optimal control of a Robin coefficient"
domain: optimization
tags: [sequential-quadratic-programming, optimal-control, robin-coefficient, newton-method]
---

# Problem Statement

Consider the identification of a Robin coefficient in an elliptic boundary value problem,
posed as an optimal control problem with the coefficient as the control. Does sequential
quadratic programming (SQP) converge locally superlinearly, as a Newton method does, under a
second-order sufficient condition and strict complementarity?

## Known Results

- Local convergence of Lagrange-Newton methods for optimal control of semilinear equations.
"""


def write_problem(tmp_path, text: str) -> problemfile.Problem:
    path = tmp_path / "PROBLEM.md"
    path.write_text(text, encoding="utf-8")
    return problemfile.read_problem(path)


def planned_words(problem: problemfile.Problem) -> list[set[str]]:
    plan = planning.plan(problem)
    return [
        {keyterms.same_stem(w) for _, v in querylines.query_line_terms(q["query_line"]) or []
         for w in re.findall(r"[^\W\d_]+", fold(v))}
        for api in ("arxiv", "semantic_scholar") for q in plan["queries"][api]
    ]  # fmt: skip


def test_every_key_term_of_the_issues_problem_is_in_a_planned_query(tmp_path):
    """ "sequential quadratic programming", "SQP" and "Robin coefficient": each in a planned
    query of arXiv or Semantic Scholar, the budget of five queries a source kept."""
    problem = write_problem(tmp_path, SQP_PROBLEM)
    plan = planning.plan(problem)
    assert all(len(plan["queries"][api]) <= planning.MAX_QUERIES for api in plan["queries"])
    words = planned_words(problem)
    for term in ["sequential quadratic programming", "SQP", "Robin coefficient"]:
        wanted = {keyterms.same_stem(w) for w in fold(term).split()}
        assert any(wanted <= query for query in words), term
    # The abbreviation and its expansion are one key term, searched together.
    assert ("sequential quadratic programming", "SQP") in problemterms.abbreviations(problem)


def test_every_key_term_and_tag_of_the_benchmark_problems_is_in_a_planned_query():
    """Every set's problems: each title phrase, tag and defined abbreviation is in a query."""
    for path in BENCH_PROBLEMS:
        problem = problemfile.read_problem(path)
        given = problemterms.read_search_terms(problem)
        words = planned_words(problem)
        for term in given.key:
            assert any(problemterms.term_words(term) <= query for query in words), (path, term)


@pytest.mark.parametrize(
    ("name", "row"),
    [
        ("optimization", "optimization-control"), ("PDE", "partial-differential-equations"),
        ("partial-differential-equations", "partial-differential-equations"),
        ("Partial differential equations", "partial-differential-equations"),
        ("geometric-topology", "topology"), ("mathematical-physics", "mathematical-physics"),
        ("Dynamical systems", "dynamical-systems"), ("numerical_analysis", "numerical-analysis"),
        ("statistics", "statistics"), ("Optimization and control", "optimization-control"),
        ("basket-weaving", None),
    ],
)  # fmt: skip
def test_a_domain_is_accepted_by_its_fields_common_name(name, row):
    assert domains.domain_name(name) == row


def test_a_problem_of_a_common_domain_name_is_searched_in_its_categories(tmp_path):
    """ "optimization" was refused, and the problem searched without a category; a PDE problem
    is searched in math.AP."""
    problem = write_problem(tmp_path, SQP_PROBLEM)
    assert problem.domain == "optimization-control"
    assert planning.plan(problem)["categories"] == ["math.OC"]
    pde = write_problem(tmp_path, SQP_PROBLEM.replace("domain: optimization", "domain: PDE"))
    assert planning.plan(pde)["categories"] == ["math.AP"]


def test_the_protocols_table_lists_every_common_name_of_the_domain_map():
    """literature-protocol.md section 5 is written from core/domains.py (tools/make_reference.py):
    each row lists the names it is accepted by."""
    text = (ROOT / "plugin" / "protocols" / "literature-protocol.md").read_text(encoding="utf-8")
    for row in domains.DOMAINS:
        line = next(line for line in text.splitlines() if line.startswith(f"| `{row}` |"))
        aliases = [alias for alias, target in domains.ALIASES.items() if target == row]
        assert line.rstrip(" |").endswith(", ".join(aliases)) if aliases else True, row


def test_a_field_the_domain_leaves_out_is_searched_in_every_category_once_per_source(tmp_path):
    """A problem filed under analysis (math.FA, math.CA, math.CV) that names partial
    differential equations: one arXiv search in every category, one Semantic Scholar search in
    every field of study; the other searches keep the domain's filter."""
    text = SQP_PROBLEM.replace("domain: optimization", "domain: analysis").replace(
        "an elliptic boundary value problem", "an elliptic partial differential equation"
    )
    plan = planning.plan(write_problem(tmp_path, text))
    wide = [q for q in plan["queries"]["arxiv"] if "--domain" not in q["args"]
            and "--category" not in q["args"] and q["origin"] == "browse"]  # fmt: skip
    assert len(wide) == 1
    assert [q for q in plan["queries"]["semantic_scholar"] if "--any-field" in q["args"]]
    assert any("--domain" in q["args"] for q in plan["queries"]["arxiv"])
    # Filed under its own field, the problem browses the domain's wider categories.
    plain = planning.plan(write_problem(tmp_path, SQP_PROBLEM))
    assert not any("--any-field" in q["args"] for q in plain["queries"]["semantic_scholar"])
    assert all(
        "--domain" in q["args"] for q in plain["queries"]["arxiv"] if q["origin"] == "browse"
    )


def test_a_result_named_after_several_people_finds_a_title_that_adds_one():
    """ "Brezis–Van Schaftingen–Yung formula" (en dashes) against a title "Brezis–Seeger–Van
    Schaftingen–Yung Formulae" (a synthesized record): the people are AND-ed one by one, and
    the relaxation drops the noun (whose plural the title writes) before it ORs anything."""
    problem = problemfile.Problem(
        slug="bsvy", title="Limits of Gagliardo seminorms", domain="analysis", subdomain=None,
        tags=[], statement="Does the limit of the rescaled seminorms exist for every $p$?",
        known_results=["The Brezis\u2013Van Schaftingen\u2013Yung formula holds for smooth f."],
        references=[],
    )  # fmt: skip
    known = next(q for q in queries_of(problem) if q["origin"] == "known")
    assert values(known)[:3] == ["Brezis", "Van Schaftingen", "Yung"]
    title = "Brezis\u2013Seeger\u2013Van Schaftingen\u2013Yung Formulae for Sobolev spaces"
    record = corpus_search.Record("2401.00001", title, "", "", ["math.FA"], "", "", "", "")
    record.tokens = {name: corpus_search.words(getattr(record, name))
                     for name in corpus_search.ALL_FIELDS}  # fmt: skip
    typed = commandlines.planned_query("arxiv", known).typed
    forms = relaxation.arxiv_forms(relaxation.arxiv_request(typed))
    answered = [form.step for form in forms if corpus_search.matches(record, form.query)[0]]
    assert answered and answered[0] in (None, "unquoted", "dropped")
    assert keyterms.same_stem("Formulae") == keyterms.same_stem("formula")
    assert keyterms.same_stem("Brezis\u2013Yung") == keyterms.same_stem("Brezis-Yung")


def test_no_query_is_planned_twice():
    """ "symplectic manifold" and "symplectic manifolds" (a plural) were two arXiv searches of one
    plan; `--all high --all dimension` and `--all dimensions --all high` ask one thing."""
    assert querylines.query_key("arxiv --all high --all dimension") == querylines.query_key(
        "arxiv --all dimensions --all high"
    )
    for path in BENCH_PROBLEMS:
        plan = planning.plan(problemfile.read_problem(path))
        for api, entries in plan["queries"].items():
            keys = [querylines.query_key(q["query_line"]) for q in entries]
            assert len(keys) == len(set(keys)), (path.stem, api)


def test_a_letter_and_a_common_noun_is_no_query_alone(tmp_path):
    """ "k-graphs" alone stayed empty in every relaxed form: it says less than the problem's
    rarest term, which goes with it."""
    text = """---
title: "Simplicity of Kumjian-Pask algebras of higher-rank graphs"
domain: algebra
tags: [k-graphs, kumjian-pask-algebras, leavitt-path-algebras]
---

# Problem Statement

Let $\\Lambda$ be a row-finite $k$-graph without sources. When is the Kumjian-Pask algebra of
$\\Lambda$ over a field simple?
"""
    plan = planning.plan(write_problem(tmp_path, text))
    for api, entries in plan["queries"].items():
        for entry in entries:
            words = [v for _, v in querylines.query_line_terms(entry["query_line"]) or []]
            assert words != ["k-graphs"], (api, entry["query_line"])
    assert any("k-graphs" in entry["query_line"] for entry in plan["queries"]["arxiv"])


def test_a_new_problem_given_a_fields_common_name_is_filed_under_its_row(script):
    """`workspace.py new-problem --domain PDE` files the problem under
    partial-differential-equations, with that row's notation preset."""
    script("workspace.py", "init")
    run = script("workspace.py", "new-problem", "--title", "Heat flow", "--domain", "PDE")
    out = run.json()
    meta = problemfile.read_problem(Path(out["path"]) / "PROBLEM.md")
    assert meta.domain == "partial-differential-equations"
    refused = script(
        "workspace.py", "new-problem", "--title", "Other", "--domain", "basket-weaving"
    )
    assert refused.returncode != 0 and "Traceback" not in refused.stderr


def test_a_semantic_scholar_search_of_a_name_no_paper_writes_answers_by_its_subject(corpus):
    """ "Chapman-Robbins and Hammersley bound", a Known Results name no paper of the corpus
    writes, stayed empty in every relaxed form; last, its words that are no name answer."""
    problem = problemfile.read_problem(SECOND / "cramer-rao-uninformative.md")
    known = next(q for q in queries_of(problem, "semantic_scholar") if q["origin"] == "known")
    assert "Chapman-Robbins" in values(known)[0]
    assert found(known, "semantic_scholar")


# --- issue 55, item 3, after the fourth set: acronyms in either number, a field left last -----


ACRONYM_PROBLEM = """---
title: "Comparison theorems for reflected BSDEs with jumps"
domain: probability
tags: [bsde, comparison-theorem]
---

# Problem Statement

Do reflected BSDEs driven by a Poisson random measure satisfy a strict comparison theorem when
the obstacle is only right-continuous? An MCMC scheme approximating them is a second question.
"""


def test_an_acronym_is_searched_on_arxiv_in_both_numbers():
    """A problem writes "BSDEs", a paper "BSDE" (or the other way): arXiv's manual documents no
    stemming, so an acronym is asked in both numbers, in the relaxed OR form too; an English
    word's plural is left to the engine ("graphs", whose singular no rule of a bare s gives)."""
    from mathtools.services import build_query

    assert build_query(all_terms=["BSDEs"]) == "(all:BSDEs OR all:BSDE)"
    assert build_query(title=["MCMC"]) == "(ti:MCMC OR ti:MCMCs)"
    assert build_query(all_terms=["reflected BSDEs"]) == (
        '(all:"reflected BSDEs" OR all:"reflected BSDE")'
    )
    assert build_query(all_terms=["graphs", "Kakeya"]) == "all:graphs AND all:Kakeya"
    request = relaxation.ArxivRequest(terms=[("all_terms", "BSDEs"), ("all_terms", "zzzz")])
    either = {form.step: form for form in relaxation.arxiv_forms(request)}["any"]
    assert "all:BSDE)" in either.query and "all:zzzz" in either.query


def test_a_tag_asks_an_acronym_as_the_problem_writes_it(tmp_path):
    """The tag "bsde" is the statement's "BSDEs": searched in capitals, so that arXiv asks both
    numbers; and an acronym's plural is no proper name (which would search it in every
    category), as its singular is not."""
    problem = write_problem(tmp_path, ACRONYM_PROBLEM)
    assert problemterms.read_search_terms(problem).tags[0] == "BSDE"
    assert "bsdes" not in problemterms.proper_names(problem)
    assert "mcmc" not in problemterms.proper_names(problem)
    tag = next(q for q in queries_of(problem) if q["origin"] == "tags")
    assert values(tag) == ["BSDE"] and "--domain probability" in tag["query_line"]
    request = relaxation.arxiv_request(commandlines.planned_query("arxiv", tag).typed)
    assert "(all:BSDE OR all:BSDEs)" in request.query()


def test_a_semantic_scholar_search_kept_to_mathematics_is_widened_last(corpus):
    """A search whose every form is empty in Mathematics is asked last as planned, then in its
    loosest form, in every field of study, as arXiv's last form leaves its categories: a subject
    of mathematical physics may be filed under physics. A search in every field already is not
    asked again."""
    entry = {"args": ["search", "--query", "quark gluon plasma", "--limit", "5"]}
    result = run_entry("semantic_scholar", entry, corpus_search.S2Standin())
    assert result.relaxation == {"step": "widened", "query": "quark gluon plasma"}
    assert result.papers
    assert relaxation.describe(result.relaxation) == "relaxed: in every category"
    forms = relaxation.s2_forms("quark gluon plasma", in_field=True)
    assert [(f.query, f.any_field) for f in forms if f.step == "widened"] == [
        ("quark gluon plasma", True), ("quark gluon", True),
    ]  # fmt: skip
    assert not [f for f in relaxation.s2_forms("quark gluon plasma") if f.any_field]
    client = corpus_search.S2Standin()
    wide = relaxation.search_s2(client, "zzzz qqqq yyyy", limit=5, fields_of_study=None)
    assert wide.relaxation and wide.relaxation["step"] == "exhausted"
    assert len(client.queries) == len(set(client.queries))

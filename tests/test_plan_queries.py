"""plan_queries.py and mathtools.search.planning: queries from PROBLEM.md, the incremental rule."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import PLUGIN, RECORDINGS, ROOT
from mathtools.core import domains, schemas
from mathtools.core.sources import QUERY_LINE_WORDS
from mathtools.core.text import fold, strip_latex
from mathtools.search import commandlines, keyterms, planning, problemfile, problemterms, querylines
from support.arxiv_recordings import reply as arxiv_reply
from support.cassettes import BASE_PATH
from support.cassettes import load as load_cassette
from support.scripted_server import ScriptedServer
from support.searchplans import DISCOVERY

PROBLEMS = ROOT / "tests" / "data" / "problems"
SAMPLE = ROOT / "examples" / "sample-problem" / "PROBLEM.md"


def plan_for(name: str, *extra: str, script):
    run = script("plan_queries.py", "--problem", str(PROBLEMS / name), *extra)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.json()


def literature_with_history(path: Path, summaries: list[str]) -> Path:
    rows = "".join(f"| 2026-02-10 | {summary} | 5 | 5 | 2 |\n" for summary in summaries)
    path.write_text(
        "---\nproblem: fixed-points\ntotal_papers: 0\nconfirmed_count: 0\nunconfirmed_count: 0\n"
        'last_search: ""\nsources_queried: []\n---\n\n## Search History\n\n'
        "| Date | Query Summary | arXiv Results | S2 Results | New Confirmed |\n"
        "|------|---------------|---------------|------------|---------------|\n"
        f"{rows}\n## Confirmed References\n\n## Synthesis\n\n## Unconfirmed References\n",
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(
    ("latex", "plain"),
    [
        (r"$\mathbb{R}^n$", "R^n"),
        (r"$\|Tx - Ty\| \le \|x-y\|$", "norm Tx - Ty norm x-y"),
        (r"$\alpha$-stable \emph{Lévy} process", "alpha -stable Lévy process"),
        (r"$\operatorname{rank}(A) \to \infty$", "rank (A) infinity"),
        (r"Schr\"odinger operators -- a survey", "Schrodinger operators - a survey"),
        (r"the $\ell^\infty$ norm", "the l^infinity norm"),
    ],
)
def test_strip_latex_leaves_searchable_words(latex, plain):
    assert strip_latex(latex, for_search=True) == plain


@pytest.mark.parametrize(
    ("text", "names", "year", "arxiv_id", "doi"),
    [
        (
            "F. E. Browder (1965). Nonexpansive nonlinear operators in a Banach space. PNAS 54, "
            "1041-1044. doi:10.1073/pnas.54.4.1041",
            ["Browder"],
            1965,
            None,
            "10.1073/pnas.54.4.1041",
        ),
        (
            'W. A. Kirk and B. Sims, "Handbook of Metric Fixed Point Theory", Kluwer (2001).',
            ["Kirk", "Sims"],
            2001,
            None,
            None,
        ),
        ("S. Reich, arXiv:1605.08386.", ["Reich"], None, "1605.08386", None),
        (
            "J.-P. Serre and W. van der Kallen, On the fixed points of maps, Ann. Math. 12 (1990).",
            ["Serre", "van der Kallen"],
            1990,
            None,
            None,
        ),
        (
            "Goldreich, O., Goldwasser, S., and Ron, D. (1998). Property testing and its "
            "connection to learning. J. ACM.",
            ["Goldreich", "Goldwasser", "Ron"],
            1998,
            None,
            None,
        ),
        (
            "https://doi.org/10.48550/arXiv.2104.12255",
            [],
            None,
            "2104.12255",
            "10.48550/arxiv.2104.12255",
        ),
        ("A. Grothendieck, math/0601001v2", ["Grothendieck"], None, "math/0601001", None),
    ],
)
def test_references_are_read_from_common_citation_shapes(text, names, year, arxiv_id, doi):
    """A reference is kept whole (verification reads it as a citation); what is read out of it
    is its identifiers, its year and the names it opens with (author-query hints)."""
    ref = problemfile.parse_reference(text)
    assert ref.text == text
    assert ref.names == names
    assert ref.year == year
    assert ref.arxiv_id == arxiv_id
    assert ref.doi == doi


def test_key_terms_merge_plurals_and_skip_stopwords():
    terms = keyterms.key_terms("Fixed points of maps. Every fixed point is a fixed point.")
    assert [keyterms.same_stem(t) for t in terms].count("fixed point") == 1
    assert not {"of", "every", "is"} & {t.lower() for t in terms}


def test_plan_draws_three_to_five_queries_per_api_from_the_five_sources(script):
    plan = plan_for("fixed-points.md", script=script)
    for api in ("arxiv", "semantic_scholar"):
        assert 3 <= len(plan["queries"][api]) <= 5
    origins = {q["origin"] for q in plan["queries"]["arxiv"]}
    assert {"keywords", "tags", "known", "authors"} <= origins
    assert plan["categories"] == ["math.FA", "math.CA", "math.CV"]
    assert "Banach fixed point theorem" in plan["known_results"]
    assert plan["reference_authors"][:2] == ["Browder", "Kirk"]
    arxiv_args = [q["args"] for q in plan["queries"]["arxiv"]]
    # Every query keeps to the domain's categories but the named theorem, which is specific in
    # any category (a person's name beside a topic word keeps them: namesakes).
    unfiltered = [args for args in arxiv_args if "--domain" not in args]
    assert unfiltered == [["search", "--all", "Banach fixed point theorem", "--limit", "5",
                           "--relax"]]  # fmt: skip
    assert all(args[0] == "search" for args in arxiv_args)
    # The author query names the author of the reference on arXiv (Reich's paper), with a topic
    # word: Browder (1965) predates arXiv, where his name finds only namesakes.
    (author,) = [args for args in arxiv_args if "--author" in args]
    assert author[1:5] == ["--all", "points", "--author", "Reich"]
    assert not any("Browder" in args for args in arxiv_args if "--author" in args)
    # Every planned query relaxes itself when it comes back empty.
    assert all("--relax" in args for args in arxiv_args)
    s2_args = [q["args"] for q in plan["queries"]["semantic_scholar"]]
    assert all(args[:2] == ["search", "--query"] and "--limit" in args for args in s2_args)
    # No LaTeX reaches a query.
    assert not any("\\" in arg or "$" in arg for args in arxiv_args + s2_args for arg in args)


def test_plan_follows_its_schema_and_needs_no_notes_when_rich(script):
    plan = plan_for("fixed-points.md", script=script)
    assert schemas.schema_errors("plan", plan) == []
    assert plan["notes"] == []


def test_too_little_to_search_on_is_said_with_what_would_help(script, tmp_path):
    (tmp_path / "PROBLEM.md").write_text(
        "---\ntitle: Mixing\ndomain: other\n---\n# Problem Statement\nBound the mixing time.\n"
    )
    run = script("plan_queries.py", "--problem", str(tmp_path / "PROBLEM.md"), "--out", "p.json")
    plan = json.loads(Path("p.json").read_text())
    assert schemas.schema_errors("plan", plan) == []
    thin = [api for api in ("arxiv", "semantic_scholar") if len(plan["queries"][api]) < 3]
    assert thin and len(plan["notes"]) == len(thin)
    assert all("PROBLEM.md gives few search terms" in note for note in plan["notes"])
    assert plan["notes"][0] in run.stdout.splitlines()  # the model reads it in the summary


def test_plan_is_deterministic(script):
    assert plan_for("fixed-points.md", script=script) == plan_for("fixed-points.md", script=script)


def test_references_become_whole_citations_to_verify(script):
    """Each reference goes to verification whole, as PROBLEM.md writes it, with the identifiers
    and the year it states; never split into a guessed title and authors."""
    candidates = plan_for("fixed-points.md", script=script)["reference_candidates"]
    by_key = {c["key"]: c for c in candidates}
    assert by_key["problem-ref-1"]["doi"] == "10.1073/pnas.54.4.1041"
    assert by_key["problem-ref-2"] == {
        "key": "problem-ref-2",
        "source": "PROBLEM.md",
        "citation": 'W. A. Kirk and B. Sims, "Handbook of Metric Fixed Point Theory", Kluwer '
        "(2001).",
        "year": 2001,
    }
    assert by_key["problem-ref-3"] == {
        "key": "problem-ref-3",
        "source": "PROBLEM.md",
        "citation": "S. Reich, arXiv:1605.08386.",
        "arxiv_id": "1605.08386",
    }
    assert not any("title" in c or "authors" in c for c in candidates)


def test_a_sparse_problem_still_gets_three_queries_per_api(script):
    plan = plan_for("sparse.md", script=script)
    assert plan["reference_candidates"] == []
    for api in ("arxiv", "semantic_scholar"):
        assert len(plan["queries"][api]) >= 3


def test_queries_in_search_history_are_not_repeated(script, tmp_path):
    first = plan_for("fixed-points.md", script=script)
    literature = literature_with_history(tmp_path / "LITERATURE.md", [first["query_summary"]])
    second = plan_for("fixed-points.md", "--literature", str(literature), script=script)
    before = {q["query_line"] for api in first["queries"] for q in first["queries"][api]}
    after = {q["query_line"] for api in second["queries"] for q in second["queries"][api]}
    assert not before & after
    skipped = {s["query_line"] for s in second["skipped"]}
    # Every proposal searched before is skipped; a Semantic Scholar query that merged a key term
    # into a proposal (planning._covering) is no proposal of the second plan.
    assert skipped <= before
    assert {line for line in before if line.startswith("arxiv")} <= skipped
    assert second["first_search"] is False
    assert after, "a follow-up search still has new angles to try"


def test_queries_in_the_run_store_are_not_repeated(script, tmp_path):
    """The Search History shows a short summary; the run store keeps the labels it compares."""
    first = plan_for("fixed-points.md", script=script)
    labels = [
        q["query_line"] for api in ("arxiv", "semantic_scholar") for q in first["queries"][api]
    ]
    for source, prefix in (("arxiv", "arxiv "), ("semantic_scholar", "s2 ")):
        query = "; ".join(label for label in labels if label.startswith(prefix))
        recorded = script(
            "lit_update.py", "record-run", "--problem", "fixed-points", "--source", source,
            "--iteration", "1", "--query", query,
        )  # fmt: skip
        assert recorded.returncode == 0, recorded.stdout
    summary = querylines.query_summary(labels)
    literature = literature_with_history(tmp_path / "LITERATURE.md", [summary])
    second = plan_for("fixed-points.md", "--literature", str(literature), script=script)
    skipped = {s["query_line"] for s in second["skipped"]}
    assert skipped <= set(labels)  # a merged query is no proposal again: see the test above
    assert {label for label in labels if label.startswith("arxiv")} <= skipped
    after = {q["query_line"] for api in second["queries"] for q in second["queries"][api]}
    assert not after & set(labels)
    assert second["first_search"] is False


def test_the_query_summary_is_short_and_readable():
    labels = [
        'arxiv --title "distribution testing" --abstract tolerant --domain probability',
        "arxiv --author Canonne --domain probability",
        's2 --query "Tolerant distribution testing"',
        "arxiv --category math.PR",
        "conditional sampling",  # a refined query recorded as typed
    ]
    assert querylines.query_summary(labels) == (
        '"distribution testing" tolerant; by Canonne; "Tolerant distribution testing"; '
        "--category math.PR; conditional sampling"
    )
    many = [f's2 --query "topic number {n}"' for n in range(30)]
    cut = querylines.query_summary(many)
    assert len(cut) <= querylines.SUMMARY_CHARS + len("; (+30 more)")
    assert cut.startswith('"topic number 0"; "topic number 1"') and cut.endswith(" more)")


def test_history_matching_ignores_case_and_quoting(script, tmp_path):
    first = plan_for("fixed-points.md", script=script)
    label = first["queries"]["semantic_scholar"][0]["query_line"]
    altered = label.upper().replace('"', "'")
    literature = literature_with_history(tmp_path / "LITERATURE.md", [f"{altered}; other"])
    second = plan_for("fixed-points.md", "--literature", str(literature), script=script)
    assert label in {s["query_line"] for s in second["skipped"]}


def test_focus_words_lead_the_plan(script):
    plan = plan_for("fixed-points.md", "--focus", "Opial", "condition", script=script)
    for api in ("arxiv", "semantic_scholar"):
        assert plan["queries"][api][0]["origin"] == "focus"
    assert plan["queries"]["arxiv"][0]["args"][1:3] == ["--all", "Opial"]
    assert "Opial condition" in plan["queries"]["semantic_scholar"][0]["args"]


def test_a_focus_plans_from_the_focus_alone(script):
    """A focus (or a gap's) search plans the focus's queries, not the problem's generic ones:
    those the first search made; zbMATH Open's are the problem's classics, so it has none."""
    plan = plan_for("fixed-points.md", "--focus", "Opial", "condition", script=script)
    for api in ("arxiv", "semantic_scholar"):
        assert plan["queries"][api] and {q["origin"] for q in plan["queries"][api]} == {"focus"}
    assert plan["queries"]["zbmath"] == []
    # Issue 37: "PROBLEM.md gives few search terms" was said of a rich PROBLEM.md: a focus
    # gives its 2-3 queries by design.
    assert not any("few search terms" in note for note in plan["notes"]), plan["notes"]


def test_focus_words_become_two_or_three_queries_of_and_ed_key_terms(script, tmp_path):
    """Issue 19: `uniformity testing lower bound sqrt n over epsilon squared` was one exact
    phrase, which found nothing. Now: a few queries of at most three AND-ed words each; and a
    focus whose queries were all made before says so."""
    focus = "uniformity testing lower bound sqrt n over epsilon squared"
    plan = plan_for(str(SAMPLE), "--focus", focus, script=script)
    for api in ("arxiv", "semantic_scholar"):
        focused = [q for q in plan["queries"][api] if q["origin"] == "focus"]
        assert 2 <= len(focused) <= 3
        assert not any(focus in q["args"] for q in focused)
    for query in [q for q in plan["queries"]["arxiv"] if q["origin"] == "focus"]:
        values = search_values(query)
        assert all(" " not in v for v in values) and len(values) <= planning.MAX_ARXIV_WORDS
        assert {"uniformity", "testing", "epsilon", "squared"} & set(values)
    labels = [q["query_line"] for api in DISCOVERY for q in plan["queries"][api]]
    again = plan_for(
        str(SAMPLE), "--focus", focus, "--literature",
        str(literature_with_history(tmp_path / "LITERATURE.md", ["; ".join(labels)])),
        script=script,
    )  # fmt: skip
    assert not [q for api in DISCOVERY for q in again["queries"][api] if q["origin"] == "focus"]
    assert any("no new query for the focus" in note for note in again["notes"])


def new_run_plan(script, tmp_path):
    """plan_queries.py --new-run on the fixed-points problem of a workspace in tmp_path (the
    current directory of `script`): the run, and the plan it wrote to plan.json."""
    problem_dir = tmp_path / ".math" / "problems" / "fixed-points"
    problem_dir.mkdir(parents=True)
    shutil.copy(PROBLEMS / "fixed-points.md", problem_dir / "PROBLEM.md")
    run = script("plan_queries.py", "--problem", "fixed-points", "--new-run", "--out", "plan.json")
    assert run.returncode == 0, run.stdout + run.stderr
    return run, json.loads((tmp_path / "plan.json").read_text())


def test_a_plan_stores_typed_queries_and_an_old_plan_still_loads(script, tmp_path):
    """plan.json keeps each query typed; args, query line and command line are generated from it.
    A plan written before (only `args`) reads as the same typed queries, same command lines."""
    _, plan = new_run_plan(script, tmp_path)
    typed = commandlines.planned_queries(plan)
    for api, queries in typed.items():
        for query, entry in zip(queries, plan["queries"][api], strict=True):
            assert query.source == entry["query"]["source"] == api
            assert query.args == entry["args"] and query.query_line == entry["query_line"]
    old = {
        **plan,
        "queries": {
            api: [{k: q[k] for k in ("origin", "query_line", "args")} for q in queries]
            for api, queries in plan["queries"].items()
        },
    }
    assert commandlines.planned_queries(old) == typed
    assert commandlines.command_lines(old) == commandlines.command_lines(plan)
    zbmath = [q.typed for q in typed["zbmath"] if q.origin == "known"]
    assert all(isinstance(s, commandlines.ZbmathQuery) and s.query for s in zbmath)


def test_new_run_folder_and_out_files_live_under_the_problem(script, tmp_path):
    run, plan = new_run_plan(script, tmp_path)
    search_folder = Path(plan["search_folder"])
    assert search_folder == Path(".math/problems/fixed-points/literature-runs/1")
    assert search_folder.is_dir()
    outs = [q["args"][q["args"].index("--out") + 1] for q in plan["queries"]["arxiv"]]
    assert outs[0] == str(search_folder / "i1-arxiv-1.json")
    # What the search scripts write as their call's label is the plan's label: record-run
    # stores it, and Search History compares it with the next plan's.
    for api, queries in plan["queries"].items():
        assert all(querylines.query_line(api, q["args"]) == q["query_line"] for q in queries)
    refs = json.loads(Path(plan["reference_candidates_file"]).read_text())
    assert refs == plan["reference_candidates"]
    # The compact summary names the search folder and gives each command line once; one record-run
    # stores every search of the iteration (the pattern names their --out files).
    lines = run.stdout.splitlines()
    assert f"search folder: {search_folder}" in lines
    assert run.stdout.count("arxiv_query.py search") == len(plan["queries"]["arxiv"])
    assert [line for line in lines if "record-run" in line] == [
        "lit_update.py record-run --problem fixed-points --iteration 1 --results"
        f" '{search_folder}/i1-*.json'"
    ]
    assert len(run.stdout) < 2600  # ten searches, one record, one header: ~650 tokens
    # The next search of the problem gets the next number.
    again = script("plan_queries.py", "--problem", "fixed-points", "--new-run")
    folder = "search folder: .math/problems/fixed-points/literature-runs/2"
    assert folder in again.stdout.splitlines()
    assert (search_folder.parent / "2" / "plan.json").exists()


def test_a_problem_without_a_known_domain_gets_no_categories(script, tmp_path):
    text = (PROBLEMS / "fixed-points.md").read_text().replace("domain: analysis", "domain: music")
    (tmp_path / "PROBLEM.md").write_text(text)
    plan = plan_for(str(tmp_path / "PROBLEM.md"), script=script)
    assert plan["categories"] == []
    assert not any("--domain" in q["args"] for q in plan["queries"]["arxiv"])


def test_missing_problem_is_one_json_error(script, tmp_path):
    run = script("plan_queries.py", "--problem", str(tmp_path / "nope" / "PROBLEM.md"))
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"]["code"] == "file_not_found"


def test_unsafe_slug_is_refused(script):
    run = script("plan_queries.py", "--problem", "..")
    assert run.returncode == 2


@pytest.mark.parametrize("slug", ["x--y", "nul", "a" * 65])
def test_the_literature_scripts_follow_the_workspace_slug_rule(script, slug):
    """One slug rule (mathtools/slugs.py): a slug the workspace refuses (a double hyphen, a
    device name, over 64 characters) is refused here too, before any file is looked for."""
    run = script("plan_queries.py", "--problem", slug)
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"]["code"] == "bad_slug"


def test_placeholders_of_the_template_and_the_intake_are_not_read_as_content(script, tmp_path):
    """The template's (guidance) paragraphs and the intake agent's "None given" lines, as
    agents/math-intake.md writes them, give no known results, queries or references."""
    template = (PLUGIN / "templates" / "PROBLEM.md").read_text(encoding="utf-8")
    from_template = template.replace('title: ""', "title: Diagonal Ramsey numbers").replace(
        "{{statement}}", "Bound $R(k,k)$ from above."
    )
    from_intake = (
        "---\ntitle: Diagonal Ramsey numbers\nslug: ramsey\nstatus: defined\n"
        "domain: combinatorics\ntags: [ramsey-theory]\n---\n\n# Problem Statement\n\n"
        "Bound $R(k,k)$ from above.\n\n## Known Results\n\nNone given.\n\n## References\n\n"
        "None given: the literature search starts from the tags.\n\n## Constraints\n\n"
        "None given.\n\n## Goals\n\n- [ ] Write the formal LaTeX output\n"
    )
    for name, text in (("template", from_template), ("intake", from_intake)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "PROBLEM.md").write_text(text, encoding="utf-8")
        plan = plan_for(str(tmp_path / name / "PROBLEM.md"), script=script)
        assert plan["known_results"] == [], name
        assert plan["reference_candidates"] == [], name
        labels = [q["query_line"] for api in plan["queries"] for q in plan["queries"][api]]
        assert not any("None" in label or "relatives" in label for label in labels), labels


@pytest.mark.parametrize(
    "item", ["None of the classical bounds is tight for k = 5.", "Nonetheless R(4,4) = 18."]
)
def test_a_result_that_starts_with_none_is_kept(item):
    assert problemfile.list_items(f"- {item}") == [item]


def test_a_list_that_opens_and_ends_with_parentheses_is_kept():
    text = "(1) Erdős proved the lower bound (1947)."
    assert problemfile.list_items(text) == [text]


@pytest.mark.parametrize("damage", ["folder", "latin-1"])
def test_an_unreadable_literature_md_is_one_json_error(script, tmp_path, damage):
    literature = tmp_path / "LITERATURE.md"
    if damage == "folder":
        literature.mkdir()
    else:
        literature_with_history(literature, ["arxiv --all Gödel"])
        literature.write_bytes(literature.read_bytes().replace("ö".encode(), b"\xf6"))
    run = script(
        "plan_queries.py", "--problem", str(PROBLEMS / "fixed-points.md"),
        "--literature", str(literature),
    )  # fmt: skip
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "unreadable"


def test_an_out_naming_the_problem_md_is_refused_and_it_is_kept(script, tmp_path):
    problem = tmp_path / "PROBLEM.md"
    problem.write_bytes((PROBLEMS / "fixed-points.md").read_bytes())
    run = script("plan_queries.py", "--problem", str(problem), "--out", str(problem))
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "cannot_write"
    assert problem.read_bytes() == (PROBLEMS / "fixed-points.md").read_bytes()


# --- query quality: what an expert would type -------------------------------------------------

ALL_PROBLEMS = [*sorted(PROBLEMS.glob("*.md")), ROOT / "examples" / "sample-problem" / "PROBLEM.md"]
# Words of these problems' statements that find everything when searched on their own.
TOO_GENERIC_ALONE = {
    "bound", "prove", "show", "determine", "decide", "relate", "groups", "group", "norm",
    "metrics", "operators", "counting", "samples", "algorithm", "probability", "large", "smooth",
    "flat", "rational", "decidable", "infinity", "random", "index", "alone",
}  # fmt: skip


STATEMENT_VERBS = {"prove", "show", "determine", "decide", "relate", "computed", "finds"}


def words_of(text: str) -> list[str]:
    return keyterms.same_stem(text.replace("'s ", " ")).split()


def search_values(query) -> list[str]:
    return [value for _, value in querylines.query_line_terms(query["query_line"])]


@pytest.fixture(scope="module")
def plans():
    """Every test problem's plan, computed once (the planner in process: the script's own
    tests above run it as a subprocess)."""
    return {
        path.stem if path.stem != "PROBLEM" else path.parent.name: planning.plan(
            problemfile.read_problem(path)
        )
        for path in ALL_PROBLEMS
    }


def all_queries(plans):
    for name, plan in plans.items():
        for api, queries in plan["queries"].items():
            for query in queries:
                yield name, api, query


def test_the_test_problems_cover_the_protocol_domains(plans):
    domains = {plan["domain"] for plan in plans.values()}
    assert len(plans) >= 12
    assert len(domains - {None}) >= 8


def test_no_query_is_a_generic_word_or_a_statement_verb(plans):
    """No query searches a generic word alone, and none holds a verb of the statement."""
    for name, _, query in all_queries(plans):
        values = [fold(v) for v in search_values(query) if " " not in v]
        if values and len(values) == len(search_values(query)):
            assert not set(values) <= TOO_GENERIC_ALONE, (name, query["query_line"])
        words = set(words_of(" ".join(search_values(query))))
        assert not words & STATEMENT_VERBS, (name, query["query_line"])


def test_no_query_repeats_a_term(plans):
    """Within one query no search phrase holds another ("--title Mixing --abstract 'mixing
    time'"), and a Semantic Scholar query says each word once ("Turing Turing patterns")."""
    for name, api, query in all_queries(plans):
        values = [set(words_of(v)) for v in search_values(query)]
        for i, one in enumerate(values):
            for other in values[i + 1 :]:
                assert not (one <= other or other <= one), (name, query["query_line"])
        if api == "semantic_scholar":
            words = words_of(search_values(query)[0])
            assert len(words) == len(set(words)), (name, query["query_line"])


def test_every_query_has_a_term_of_the_problem(plans):
    """Each query carries a word of the problem's title, tags, known results or references
    (its field's own terms), not only words the planner brought."""
    for name, _, query in all_queries(plans):
        plan = plans[name]
        problem_words = set()
        for text in [*plan["terms"], *plan["tags"], *plan["known_results"]]:
            problem_words.update(words_of(text.replace("-", " ")))
        problem_words.update(words_of(" ".join(plan["reference_authors"])))
        query_words = set(words_of(" ".join(search_values(query)).replace("-", " ")))
        assert query_words & problem_words, (name, query["query_line"])


def test_no_query_holds_latex_or_bare_notation(plans):
    for name, _, query in all_queries(plans):
        for value in search_values(query):
            assert not set(value) & set("\\${}_"), (name, query["query_line"])
            assert re.search(r"[^\W\d_]{3}", value), (name, query["query_line"])  # a word, not T^n
    for name, plan in plans.items():
        assert not {"varepsilon", "gamma", "R^n", "T^n", "P^5"} & set(plan["terms"]), name


def test_a_one_word_title_is_searched_as_the_statement_phrase_that_holds_it(plans):
    """The brief's example: title "Mixing", statement "Bound the mixing time."."""
    labels = [
        q["query_line"]
        for api in ("arxiv", "semantic_scholar")
        for q in plans["mixing"]["queries"][api]
    ]
    assert labels[0] == "arxiv --all mixing --all time"
    assert 's2 --query "mixing time"' in labels
    assert not any("Bound" in label or "--title Mixing" in label for label in labels)
    assert plans["mixing"]["notes"], "too little to search on is still said"


def test_the_title_subject_leads_and_its_setting_follows(plans):
    """ "Fixed points of nonexpansive maps on uniformly convex Banach spaces" is about fixed
    points: the core query is theirs, not the setting's ("Banach spaces")."""
    core = plans["fixed-points"]["queries"]["arxiv"][0]["args"]
    assert core[1:5] == ["--all", "Fixed", "--all", "points"]
    sparse = [q["args"][1:5] for q in plans["sparse"]["queries"]["arxiv"]]
    assert sparse[0] == ["--all", "lattice", "--all", "points"]  # "Counting lattice points in"
    assert ["--all", "dilated", "--all", "polytopes"] in sparse[1:]


def test_the_sample_problems_core_query_keeps_its_loose_form(plans):
    """The title phrase's words AND-ed, not quoted: Canonne et al.'s "The Price of Tolerance in
    Distribution Testing" has no "tolerant distribution testing"."""
    core = plans["sample-problem"]["queries"]["arxiv"][0]["query_line"]
    assert core == "arxiv --all tolerant --all distribution --all testing --domain probability"


def test_a_companion_term_is_one_the_problem_repeats(plans):
    """Groups of polynomial growth: "virtually nilpotent" (the tags and the statement repeat
    nilpotent), not the statement's longest phrase "finite symmetric set"."""
    problem = problemfile.read_problem(PROBLEMS / "polynomial-growth.md")
    terms = problemterms.search_terms(problem)
    title_terms = problemterms.title_terms(problem)
    companion = problemterms.companion_terms(problem, title_terms[0], title_terms, terms)
    assert companion == ["virtually nilpotent"]


def test_a_theorem_named_only_by_a_person_gets_the_problems_term(plans):
    labels = [q["query_line"] for q in plans["polynomial-growth"]["queries"]["semantic_scholar"]]
    assert 's2 --query "Gromov\'s theorem polynomial growth"' in labels
    known = [
        q["query_line"] for q in plans["fixed-points"]["queries"]["arxiv"] if q["origin"] == "known"
    ]
    assert 'arxiv --all "Banach fixed point theorem"' in known  # named enough, in any category
    assert "arxiv --all Browder --all points --domain analysis" in known  # a person: namesakes


def test_a_known_result_already_searched_as_a_tag_is_not_searched_again(plans):
    queries = plans["random-walk-cutoff"]["queries"]["arxiv"]
    assert [q for q in queries if "cutoff phenomenon" in q["args"]] == [queries[1]]


def test_tags_keep_a_hyphen_after_a_single_letter(plans):
    tags = [q["args"][1:3] for q in plans["real-exponential-field"]["queries"]["arxiv"]]
    assert tags[1] == ["--all", "o-minimality"]


def test_arxiv_author_queries_skip_authors_older_than_arxiv(plans):
    """Schoen-Yau (1979) and Gromov-Lawson (1980): no arXiv author query (only a reference on
    arXiv says its authors' work is there); S2 keeps one. An author query carries a topic."""
    torus = plans["torus-scalar-curvature"]["queries"]
    assert not [q for q in torus["arxiv"] if q["origin"] == "authors"]
    assert [q for q in torus["semantic_scholar"] if q["origin"] == "authors"]
    ramsey = [q["args"] for q in plans["diagonal-ramsey"]["queries"]["arxiv"]]
    (author,) = [args for args in ramsey if "--author" in args]  # 2023, not Erdős (1947)
    assert author[1:5] == ["--all", "Ramsey", "--author", "Campos"]


def test_statement_verbs_end_a_known_result_phrase():
    assert keyterms.result_names("Enflo and Read built operators on Banach spaces.") == [
        "Banach spaces"
    ]
    assert keyterms.result_names("Erdős's random colouring gives a lower bound.") == [
        "Erdős's random colouring"
    ]


def test_a_value_starting_with_a_dash_is_joined_to_its_option_and_labels_alike():
    assert commandlines.option("--all", "fixed point", "-abc") == [
        "--all",
        "fixed point",
        "--all=-abc",
    ]
    ordinary = ["search", "--all", "fixed point", "--domain", "analysis", "--max-results", "5"]
    assert querylines.query_line("arxiv", ordinary) == 'arxiv --all "fixed point" --domain analysis'
    for spelling in (["--query=-abc"], ["--query", "-abc"]):
        assert querylines.query_line("semantic_scholar", ["search", *spelling, "--limit=5"]) == (
            "s2 --query -abc"
        )
    # A label recorded as `--query=x` (before labels split it) is the same query as `--query x`.
    assert querylines.normalise_query_line("s2 --query=-abc") == querylines.normalise_query_line(
        "s2 --query -abc"
    )
    assert querylines.query_line_terms("s2 --query=-abc") == [("--query", "-abc")]


def test_focus_starting_with_a_dash_prints_commands_that_run_as_printed(script, tmp_path):
    """The focus searches' command lines run as printed (arXiv and S2 answer from recordings),
    and the label each writes is the plan's label for it."""
    folder = tmp_path / "fixed-points"  # a search folder lies under literature-runs/
    folder.mkdir()
    (folder / "PROBLEM.md").write_bytes((PROBLEMS / "fixed-points.md").read_bytes())
    runs = str(folder / "literature-runs" / "R")
    run = script("plan_queries.py", "--problem", str(folder / "PROBLEM.md"), "--focus=-abc",
                 "--search-folder", runs)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    plan = run.json()
    lines = commandlines.command_lines(plan)
    s2_search = load_cassette(RECORDINGS / "s2" / "test_search_paper.yaml")[0]
    for line, api, answer, url in (
        (lines[0], "arxiv", arxiv_reply("q_testing_s0_m10_"), "MATH_ARXIV_API_URL"),
        (
            lines[len(plan["queries"]["arxiv"])],
            "semantic_scholar",
            s2_search.reply(),
            "MATH_S2_API_URL",
        ),
    ):
        focus = plan["queries"][api][0]
        assert focus["origin"] == "focus"
        with ScriptedServer([answer]) as server:
            env = {**os.environ, url: server.url + ("/api/query" if api == "arxiv" else BASE_PATH)}
            run = script(*shlex.split(line), env=env)
        assert run.returncode == 0, run.stdout + run.stderr
        written = Path(runs) / f"i1-{QUERY_LINE_WORDS[api]}-1.json"
        assert json.loads(written.read_text(encoding="utf-8"))["query_line"] == focus["query_line"]


def test_a_number_theory_plan_searches_zbmath_in_msc_class_11(script):
    plan = plan_for("prime-gaps.md", script=script)
    assert plan["msc_classes"] == ["11"]
    zbmath = plan["queries"]["zbmath"]
    assert 1 <= len(zbmath) <= 3
    for query in zbmath:
        args = query["args"]
        assert args[0] == "search" and args[args.index("--msc") + 1] == "11"
        assert query["query_line"].startswith("zbmath ") and "--msc 11" in query["query_line"]
    assert any(
        line.startswith("zbmath_lookup.py search ") for line in commandlines.command_lines(plan)
    )


def test_every_domain_has_msc_classes():
    assert set(domains.MSC) == set(domains.DOMAINS)
    assert all(len(code) == 2 and code.isdigit() for c in domains.MSC.values() for code in c)

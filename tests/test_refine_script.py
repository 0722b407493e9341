"""refine.py against the real run store, fed through lit_update.py as the runbook does.

The search-result files are synthesized from the Paper type (small, readable records), not
recorded: the loop's rules depend only on keys, labels and queries.
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest
from conftest import RECORDINGS
from mathtools.core.records import Paper, SearchResult
from support.cassettes import BASE_PATH
from support.cassettes import load as load_cassette
from support.scripted_server import ScriptedServer

PROBLEM = "fixed-points"


def result_file(
    path: Path, source: str, titles: dict[str, str], query_line: str | None = None
) -> str:
    papers = [
        Paper(source=source, title=title, authors=["A. Author"], year=2020, arxiv_id=key)
        for key, title in titles.items()
    ]
    result = SearchResult(
        source=source,
        command="search",
        papers=papers,
        total_results=len(papers),
        query_line=query_line,
    )
    path.write_text(json.dumps(result.to_dict()), encoding="utf-8")
    return str(path)


def record(script, tmp_path, source, iteration, query, titles, labels, feedback=None):
    """lit_update.py record-run and judge, as the runbook calls them; returns the run id."""
    name = f"{source}-{iteration}-{len(list(tmp_path.iterdir()))}"
    results = result_file(tmp_path / f"{name}.json", source, titles)
    args = ["record-run", "--problem", PROBLEM, "--source", source, "--iteration", str(iteration)]
    args += ["--query", query, "--results", results]
    if feedback:
        args += ["--feedback", feedback]
    run = script("lit_update.py", *args)
    assert run.returncode == 0, run.stdout
    (recorded,) = run.json()["runs"]
    run_id = recorded["run_id"]
    judgements = [
        {"key": f"arXiv:{key}", "label": label, "confidence": conf, "rationale": why}
        for key, (label, conf, why) in labels.items()
    ]
    path = tmp_path / f"judged-{name}.json"
    path.write_text(json.dumps(judgements), encoding="utf-8")
    judged = script("lit_update.py", "judge", "--run", str(run_id), "--judgements", str(path))
    assert judged.returncode == 0, judged.stdout
    return run_id


def first_iteration(script, tmp_path, arxiv_label="partial", s2_label="irrelevant"):
    a = record(
        script, tmp_path, "arxiv", 1, 'arxiv --all "fixed point" --domain analysis',
        {"2001.00001": "Fixed points in Hilbert spaces"},
        {"2001.00001": (arxiv_label, 0.6, "Hilbert spaces only, not uniformly convex ones")},
    )  # fmt: skip
    s = record(
        script, tmp_path, "semantic_scholar", 1, 's2 --query "nonexpansive maps"',
        {"2001.00002": "Neural networks"},
        {"2001.00002": (s2_label, 0.9, "about machine learning")},
    )  # fmt: skip
    return a, s


def refine(script, *args):
    run = script("refine.py", *args)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.json()


def test_feedback_without_a_strong_hit_gives_the_memo_of_the_partial_judgements(script, tmp_path):
    a, s = first_iteration(script, tmp_path)
    decision = refine(script, "feedback", "--runs", str(a), str(s))
    assert decision["decision"] == "refine"
    assert decision["iteration"] == 1
    assert decision["reason"] == "no strong hit yet: propose a refined query"
    assert "- arXiv:2001.00001 (0.60): Hilbert spaces only" in decision["memo"]
    assert "machine learning" not in decision["memo"]


def test_stop_rule_strong_hit(script, tmp_path):
    a, s = first_iteration(script, tmp_path, s2_label="strong")
    decision = refine(script, "feedback", "--runs", str(a), str(s))
    assert decision["decision"] == "stop"
    assert decision["reason"] == "strong hit: arXiv:2001.00002"
    # `next` obeys the same rule: no refined query is searched after a strong hit.
    step = refine(script, "next", "--runs", str(a), str(s), "--query", "anything new")
    assert step["decision"] == "stop" and "queries" not in step


def test_a_strong_hit_problem_md_already_cites_does_not_stop(script, tmp_path, monkeypatch):
    """Issue 19: the loop stopped on a strong hit that was one of the problem's own REFs."""
    folder = tmp_path / "ws" / ".math" / "problems" / PROBLEM
    folder.mkdir(parents=True)
    (folder / "PROBLEM.md").write_text(
        "---\ntitle: Fixed points\nslug: fixed-points\ndomain: analysis\n---\n\n"
        "# Problem Statement\n\nFixed points of nonexpansive maps.\n\n## References\n\n"
        "- A. Author (2020). Neural networks. arXiv:2001.00002\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("MATH_WORKSPACE", str(tmp_path / "ws"))
    a, s = first_iteration(script, tmp_path, s2_label="strong")
    decision = refine(script, "feedback", "--runs", str(a), str(s))
    assert decision["decision"] == "refine"
    assert "PROBLEM.md's own references (arXiv:2001.00002)" in decision["reason"]


@pytest.mark.parametrize("refined", ["", "   "])
def test_stop_rule_empty_refined_query(script, tmp_path, refined):
    a, s = first_iteration(script, tmp_path)
    step = refine(script, "next", "--runs", str(a), str(s), "--query", refined)
    assert step["decision"] == "stop"
    assert step["reason"] == "the refined query is empty"


@pytest.mark.parametrize("refined", ["Fixed  POINT", '"nonexpansive maps"'])
def test_stop_rule_refined_query_repeats_an_earlier_one(script, tmp_path, refined):
    a, s = first_iteration(script, tmp_path)
    step = refine(script, "next", "--runs", str(a), str(s), "--query", refined)
    assert step["decision"] == "stop"
    assert step["reason"].startswith("the refined query repeats an earlier one")


def test_a_new_refined_query_gives_the_next_iteration_and_its_record_commands(script, tmp_path):
    a, s = first_iteration(script, tmp_path)
    memo = refine(script, "feedback", "--runs", str(a), str(s))["memo"]
    step = refine(
        script, "next", "--runs", str(a), str(s), "--query", "Opial property",
        "--search-folder", "R",
    )  # fmt: skip
    assert step["decision"] == "search" and step["next_iteration"] == 2
    assert "memo" not in step  # the model read it from `feedback`
    search_arxiv, search_s2, record_line = step["commands"]
    assert search_arxiv.startswith("arxiv_query.py search --all 'Opial property'")
    assert search_arxiv.endswith("--limit 5 --relax --out R/i2-arxiv-1.json")
    assert (
        search_s2
        == "s2_lookup.py search --query 'Opial property' --limit 5 --relax --out R/i2-s2-1.json"
    )
    assert record_line == (
        f"lit_update.py record-run --problem {PROBLEM} --iteration 2"
        " --feedback @R/feedback-i2.md --results 'R/i2-*.json'"
    )
    assert (tmp_path / "R" / "feedback-i2.md").read_text(encoding="utf-8") == memo
    # The record-run line as printed stores one run per source, each with the memo and the
    # query lines its files carry (what the searches would have written).
    for api, key in (("arxiv", "2002.00001"), ("semantic_scholar", "2002.00002")):
        tag = "s2" if api == "semantic_scholar" else "arxiv"
        line = f"{tag} Opial property"
        result_file(tmp_path / "R" / f"i2-{tag}-1.json", api, {key: "Opial's condition"}, line)
    run = script("lit_update.py", *shlex.split(record_line)[1:])
    assert run.returncode == 0, run.stdout
    runs = run.json()["runs"]
    assert [(r["source"], r["result_count"]) for r in runs] == [
        ("arxiv", 1), ("semantic_scholar", 1)
    ]  # fmt: skip
    stored = script("lit_update.py", "runs", "--problem", PROBLEM).json()[-2:]
    assert [(r["query"], r["iteration"], r["feedback"]) for r in stored] == [
        ("arxiv Opial property", 2, memo),
        ("s2 Opial property", 2, memo),
    ]


@pytest.mark.parametrize("per_query", ["0", "-3", "101"])
def test_next_refuses_a_per_query_the_search_scripts_would_refuse(script, tmp_path, per_query):
    """The printed command lines must run: s2_lookup.py search takes --limit 1..100."""
    a, s = first_iteration(script, tmp_path)
    run = script(
        "refine.py", "next", "--runs", str(a), str(s), "--query", "Opial property",
        "--per-query", per_query, "--run-dir", str(tmp_path / "R"),
    )  # fmt: skip
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "usage" and "--per-query" in run.stdout
    assert not (tmp_path / "R").exists()


def test_stop_rule_three_iterations(script, tmp_path):
    a, _ = first_iteration(script, tmp_path)
    for iteration, query in ((2, "Opial property"), (3, "demiclosedness principle")):
        a = record(
            script, tmp_path, "arxiv", iteration, query, {f"200{iteration}.00001": "x"},
            {f"200{iteration}.00001": ("partial", 0.5, "close")}, feedback="memo",
        )  # fmt: skip
        decision = refine(script, "feedback", "--runs", str(a))
    assert decision["decision"] == "stop"
    assert decision["reason"] == "3 iterations reached without a strong hit"
    step = refine(script, "next", "--runs", str(a), "--query", "a fourth idea")
    assert step["decision"] == "stop"


def test_runs_must_be_judged_before_deciding(script, tmp_path):
    results = result_file(tmp_path / "r.json", "arxiv", {"2001.00009": "Unjudged"})
    run = script(
        "lit_update.py", "record-run", "--problem", PROBLEM, "--source", "arxiv",
        "--iteration", "1", "--query", "q", "--results", results,
    )  # fmt: skip
    answer = script("refine.py", "feedback", "--runs", str(run.json()["runs"][0]["run_id"]))
    assert answer.returncode == 2
    assert json.loads(answer.stdout)["error"]["code"] == "not_judged"


def test_a_run_with_one_paper_unjudged_is_refused_and_judge_says_how_many_are_left(
    script, tmp_path
):
    titles = {f"2001.0000{n}": f"Paper {n}" for n in range(1, 9)}
    results = result_file(tmp_path / "r.json", "arxiv", titles)
    run = script(
        "lit_update.py", "record-run", "--problem", PROBLEM, "--source", "arxiv",
        "--iteration", "1", "--query", "q", "--results", results,
    )  # fmt: skip
    run_id = str(run.json()["runs"][0]["run_id"])
    judged = [
        {"key": f"arXiv:{key}", "label": "partial", "confidence": 0.5, "rationale": "x"}
        for key in list(titles)[:5]
    ]
    path = tmp_path / "judged.json"
    path.write_text(json.dumps(judged), encoding="utf-8")
    answer = script("lit_update.py", "judge", "--run", run_id, "--judgements", str(path))
    assert answer.returncode == 0, answer.stdout
    assert answer.json()["judged"] == "5 of 8"
    assert answer.json()["unjudged"] == [f"arXiv:{key}" for key in list(titles)[5:]]

    refused = script("refine.py", "feedback", "--runs", run_id)
    assert refused.returncode == 2, refused.stdout
    error = refused.json()["error"]
    assert error["code"] == "not_judged"
    assert "3 of its 8 papers are not judged (arXiv:2001.00006," in error["message"]

    path.write_text(json.dumps([{**judged[0], "key": f"arXiv:{key}"} for key in titles]))
    answer = script("lit_update.py", "judge", "--run", run_id, "--judgements", str(path))
    assert answer.json()["judged"] == "8 of 8" and "unjudged" not in answer.json()
    assert script("refine.py", "feedback", "--runs", run_id).json()["decision"] == "refine"


def test_runs_of_different_iterations_are_refused(script, tmp_path):
    a, _ = first_iteration(script, tmp_path)
    b = record(script, tmp_path, "arxiv", 2, "q2", {"2009.1": "x"}, {"2009.1": ("partial", 1, "y")})
    answer = script("refine.py", "feedback", "--runs", str(a), str(b))
    assert answer.returncode == 2
    assert json.loads(answer.stdout)["error"]["code"] == "mixed_runs"


def test_keep_writes_the_strong_and_partial_papers_as_candidates(script, tmp_path):
    a, s = first_iteration(script, tmp_path, s2_label="strong")
    out = tmp_path / "candidates.json"
    kept = refine(script, "keep", "--runs", str(a), str(s), "--out", str(out))
    assert kept == {"kept": 2, "strong": 1, "partial": 1, "judged": 2}
    candidates = json.loads(out.read_text())
    assert [c["key"] for c in candidates] == ["arXiv:2001.00002", "arXiv:2001.00001"]
    assert candidates[0]["arxiv_id"] == "2001.00002" and candidates[0]["title"] == "Neural networks"
    verify_input = script("verify_batch.py", str(out), "--out", str(tmp_path / "v.json"))
    assert verify_input.returncode in (0, 3), verify_input.stdout  # the input is accepted


def test_merge_takes_the_search_history_row_from_the_runs(script, tmp_path):
    """lit_update.py merge --runs: the row's queries and per-source counts come from the run
    store (the verification is synthesized: tests/support/verified.py)."""
    from support.verified import confirmed, paper, verification

    a, s = first_iteration(script, tmp_path, s2_label="strong")
    verified = tmp_path / "verified.json"
    verified.write_text(json.dumps(verification([confirmed(paper(1))])), encoding="utf-8")
    literature = tmp_path / "p" / "LITERATURE.md"
    args = ["merge", "--literature", str(literature), "--verified", str(verified)]
    run = script("lit_update.py", *args, "--runs", str(a), str(s))
    assert run.returncode == 0, run.stdout
    # a short readable summary: the search words of each query (the query lines stay in the store)
    row = '| "fixed point"; "nonexpansive maps" | arXiv 1, Semantic Scholar 1 | 1 |'
    assert row in literature.read_text(encoding="utf-8")
    unknown = script("lit_update.py", *args, "--runs", "99")
    assert unknown.returncode == 2 and unknown.json()["error"]["code"] == "unknown_run"


def test_without_a_command_every_command_is_named_and_db_goes_after_it(script, tmp_path):
    answer = script("refine.py")
    assert answer.returncode == 2
    assert "feedback, next, keep" in answer.json()["error"]["message"]
    a, s = first_iteration(script, tmp_path, s2_label="strong")
    store = os.environ["MATH_LITERATURE_DB"]
    decided = script("refine.py", "feedback", "--db", store, "--runs", str(a), str(s))
    assert decided.json()["decision"] == "stop", decided.stdout
    elsewhere = script("refine.py", "feedback", "--db", str(tmp_path / "x.db"), "--runs", str(a))
    assert elsewhere.returncode == 2 and elsewhere.json()["error"]["code"] == "no_store"


def test_a_refined_query_starting_with_a_dash_prints_a_search_that_runs(script, tmp_path):
    """`--query=-abc`: the printed S2 search runs as printed (answered from a recording) and
    writes the query line the plan gives it."""
    a, s = first_iteration(script, tmp_path)
    step = refine(script, "next", "--runs", str(a), str(s), "--query=-abc", "--run-dir", "R")
    search_s2 = step["commands"][1]
    assert search_s2 == "s2_lookup.py search --query=-abc --limit 5 --relax --out R/i2-s2-1.json"
    recorded = load_cassette(RECORDINGS / "s2" / "test_search_paper.yaml")[0]
    with ScriptedServer([recorded.reply()]) as server:
        env = {**os.environ, "MATH_S2_API_URL": server.url + BASE_PATH}
        run = script(*shlex.split(search_s2), env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    written = json.loads((tmp_path / "R" / "i2-s2-1.json").read_text(encoding="utf-8"))
    assert written["query_line"] == "s2 --query -abc"

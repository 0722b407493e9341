"""literature.py: /math:literature's search phases, one call each, on the sample problem: discover,
more, judge, refine and verify (merge and finish: test_literature_recording.py).

arXiv and Semantic Scholar are tests/support/standin.py, answering from the real recordings; the
judgements the model would write are written by the tests (tests/support/literature_session.py).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys

import pytest
from conftest import ROOT
from mathtools.search.abstracts import words
from mathtools.search.searchfolder import MANIFEST, Search
from support.literature_session import LINE, SLUG, listed, open_session

sys.path.insert(0, str(ROOT / "tools"))
from demo_pipeline import PLANTED


@pytest.fixture
def session(tmp_path, monkeypatch):
    yield from open_session(tmp_path, monkeypatch)


def test_discover_plans_searches_records_and_lists_each_paper_once_with_a_gist(session):
    listing = session.discover(SLUG)
    head = listing.splitlines()[0]
    assert head.startswith(f"{SLUG}, first search, iteration 1: ")
    lines = [LINE.match(line) for line in listing.splitlines() if " | " in line]
    assert lines and all(lines), listing
    keys = [m.group(1) for m in lines]
    assert len(keys) == len(set(keys))
    # Ranked against the problem, the best first down to the cut; the rest counted, never dropped.
    below = re.search(r"^(\d+) more below, ranked lower: `literature.py more (\S+)`", listing, re.M)
    assert below and below.group(2) == session.search_folder
    assert f"{len(keys) + int(below.group(1))} distinct papers" in head
    for match in lines:
        gist = match.group(6)
        assert len(words(gist.rstrip("…"))) <= 25
        assert gist.count("$") % 2 == 0  # LaTeX kept, and a formula never cut
    price = next(m for m in lines if m.group(1) == "arXiv:2106.13414")
    assert price.group(6).startswith("We revisit the problem of tolerant distribution testing.")
    # The problem, so that the agent reads no PROBLEM.md (a first search's Read was a call of
    # its own): title and statement, and the Known Results the agent recalls papers from.
    problem = re.search(r"^problem: (.+) — (.+)$", listing, re.M)
    assert problem and problem.group(1) == "Sample complexity of tolerant distribution testing"
    known = re.search(r"^known results: (.+)$", listing, re.M)
    assert known and "**Good-Turing estimation** is competitive" in known.group(1)
    # Progress went to stderr, one line per planned query; the per-query files stay on disk.
    shown = r"^\[(\d+)/(\d+)\] (arXiv|S2|zbMATH) \d+$"
    progress = re.findall(shown, session.stderr, re.M)
    assert progress and progress[-1][0] == progress[-1][1]
    files = sorted(p.name for p in session.runs.glob("i1-*.json"))
    assert len(files) == len(progress) and "i1-arxiv-1.json" in files and "i1-s2-1.json" in files
    search = json.loads((session.runs / "search.json").read_text())
    assert search["problem"] == SLUG and search["first_search"] is True
    assert (session.runs / "problem-references.json").exists()
    with sqlite3.connect(os.environ["MATH_LITERATURE_DB"]) as db:
        runs = db.execute("SELECT run_id, source, iteration FROM runs").fetchall()
    # The first iteration runs every planned source: zbMATH Open's MSC-restricted queries too.
    assert [(source, it) for _, source, it in runs] == [
        ("arxiv", 1),
        ("semantic_scholar", 1),
        ("zbmath", 1),
    ]
    assert search["iterations"] == [
        {"number": 1, "runs": [run_id for run_id, _, _ in runs], "failed": {}}
    ]


def test_more_lists_the_papers_below_the_cut_and_judge_records_the_unread_ones(session):
    """Issue 38: the listing stops at its cut; `more` prints the rest, best first, and they are
    then to judge; a paper never listed is recorded as unread (never dropped, never labelled)."""
    listing = session.discover(SLUG)
    below = int(re.search(r"^(\d+) more below", listing, re.M).group(1))
    first = listed(listing)
    result = session.judge_all(listing)
    assert result["unread"] == below and result["papers"] == len(first) + below
    with sqlite3.connect(os.environ["MATH_LITERATURE_DB"]) as db:
        unread = {key for (key,) in db.execute("SELECT key FROM unread")}
        judged = {key for (key,) in db.execute("SELECT key FROM judgements")}
    assert len(unread) >= below and not unread & judged  # never read, so never labelled
    # A new search: `more` lists the rest; judge takes the ones the model judged and records
    # the others as unread (issue 50: it demanded a label for each of 16 extra papers).
    listing = session.discover(SLUG, "tolerant testing")
    rest = session.run("more", session.search_folder)
    assert rest.returncode == 0, rest.stderr
    more = listed(rest.stdout)
    assert more and not set(more) & set(listed(listing))
    session.write("judgements-i1.json", [
        {"key": key, "label": "partial", "confidence": 0.5, "rationale": "t"}
        for key in [*listed(listing), more[0]]
    ])  # fmt: skip
    done = session.run("judge", session.search_folder)
    assert done.returncode == 0, done.stdout
    assert done.json()["unread"] == len(more) - 1


def test_a_paper_both_services_returned_is_one_line_naming_both():
    from mathtools.search.searchfolder import distinct

    arxiv = {
        "title": "Testing uniformity",
        "authors": ["A. Ba"],
        "year": 2020,
        "arxiv_id": "2001.1",
    }
    s2_same_id = {**arxiv, "doi": "10.1/x", "key": "arXiv:2001.1"}
    s2_same_title = {
        "title": "Testing Uniformity.",
        "authors": ["Ba, A."],
        "year": 2020,
        "abstract": "We test $p$.",
    }
    other = {"title": "Another paper", "authors": ["C. De"], "year": 2020}
    papers = distinct(
        [
            (1, "arxiv", {"arXiv:2001.1": arxiv}),
            (2, "semantic_scholar", {"arXiv:2001.1": s2_same_id, "S2:abc": s2_same_title}),
            (2, "semantic_scholar", {"S2:def": other}),
        ]
    )
    assert [p.key for p in papers] == ["arXiv:2001.1", "S2:def"]
    assert papers[0].sources == ["arxiv", "semantic_scholar"]
    assert papers[0].members == [(1, "arXiv:2001.1"), (2, "arXiv:2001.1"), (2, "S2:abc")]
    assert papers[0].line().endswith("[arXiv+S2] — We test $p$.")  # the S2 record's abstract
    assert papers[1].line().endswith("[S2] — (no abstract)")


def test_judge_stores_one_file_for_every_run_and_answers_the_loop(session):
    listing = session.discover(SLUG)
    decided = session.judge_all(listing, remembered=[PLANTED[0]])
    assert decided["decision"] == "stop" and decided["strong"] == 1
    assert decided["reason"].startswith(f"strong hit: {listed(listing)[0]}")
    assert decided["remembered"] == 1
    memory = json.loads((session.runs / "memory.json").read_text())
    assert memory[0]["key"] == "memory-1" and memory[0]["source"].startswith("memory")
    with sqlite3.connect(os.environ["MATH_LITERATURE_DB"]) as db:
        both = "SELECT run_id, key FROM judgements UNION ALL SELECT run_id, key FROM unread"
        judged = db.execute(f"SELECT run_id, COUNT(*) FROM ({both}) GROUP BY run_id").fetchall()
        papers = db.execute("SELECT run_id, COUNT(*) FROM run_papers GROUP BY run_id").fetchall()
    assert judged == papers  # every paper of every run judged or left unread, from one file


def test_judge_refuses_a_key_not_listed_and_a_paper_left_unjudged(session):
    keys = listed(session.discover(SLUG))
    entry = {"label": "partial", "confidence": 0.5, "rationale": "x"}
    session.write("judgements-i1.json", [{"key": k, **entry} for k in keys[1:]])
    done = session.run("judge", session.search_folder)
    assert done.returncode == 2 and f"not judged: {keys[0]}" in done.stdout
    session.write("judgements-i1.json", [{"key": k, **entry} for k in [*keys, "arXiv:9999.99999"]])
    done = session.run("judge", session.search_folder)
    assert done.returncode == 2 and "arXiv:9999.99999" in done.json()["error"]["message"]
    with sqlite3.connect(os.environ["MATH_LITERATURE_DB"]) as db:
        assert db.execute("SELECT COUNT(*) FROM judgements").fetchone() == (0,)


def test_refine_searches_the_query_as_the_next_iteration_and_stops_on_a_repeat(session):
    listing = session.discover(SLUG)
    decided = session.judge_all(listing, label=lambda n: "partial")
    assert decided["decision"] == "refine" and "Partial matches" in decided["memo"]
    # The model is pointed to the rationales it wrote, not shown them again; the run store keeps
    # them in the memo it records with the next iteration.
    count = len(listed(listing))
    assert decided["memo"].endswith(
        f"your rationales for these {count} papers, in R/judgements-i1.json"
    )
    assert ": test" not in decided["memo"]  # the rationale each judgement gave
    done = session.run("refine", session.search_folder, "--query", "tolerant testing")
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith(f"{SLUG}, first search, iteration 2: ")
    new = listed(done.stdout)
    assert new and not set(new) & set(listed(listing))  # papers judged before are not listed
    assert (session.runs / "i2-arxiv-1.json").exists() and (session.runs / "i2-s2-1.json").exists()
    with sqlite3.connect(os.environ["MATH_LITERATURE_DB"]) as db:
        memos = db.execute("SELECT feedback FROM runs WHERE iteration = 2").fetchall()
    assert memos and all(memo.startswith("Iteration 1 (") for (memo,) in memos)
    assert all(": test" in memo for (memo,) in memos)  # each partial match's rationale
    again = session.judge_all(done.stdout, label=lambda n: "partial", iteration=2)
    assert again["iteration"] == 2 and again["decision"] == "refine"
    repeat = session.run("refine", session.search_folder, "--query", "Tolerant  Testing")
    decision = json.loads(repeat.stdout.splitlines()[0])  # verify's lines follow a stop
    assert decision["decision"] == "stop" and "repeats" in decision["reason"]
    assert re.search(r"^(CONFIRMED|UNCONFIRMED|nothing to verify)", repeat.stdout, re.M)


def test_two_iterations_near_nothing_stop_the_loop_at_the_second(session):
    """Issue 51's play: every paper irrelevant, the loop ran to its third iteration. At the
    second barren one judge says stop (partial papers keep it refining: the test above)."""
    decided = session.judge_all(session.discover(SLUG), label=lambda n: "irrelevant")
    assert decided["decision"] == "refine", decided
    done = session.run("refine", session.search_folder, "--query", "tolerant testing")
    again = session.judge_all(done.stdout, label=lambda n: "irrelevant", iteration=2)
    assert again["decision"] == "stop", again
    assert again["reason"].startswith("2 iterations found no paper even partially relevant")


def test_an_iteration_with_no_new_paper_is_decided_at_once(session):
    session.judge_all(session.discover(SLUG), label=lambda n: "partial")
    done = session.run("refine", session.search_folder, "--query", "uniformity testing")
    assert done.returncode == 0, done.stdout
    assert "judged in an earlier iteration" in done.stdout
    decided = json.loads(done.stdout.splitlines()[-1])
    assert decided["iteration"] == 2 and decided["decision"] == "refine"
    # Issue 37: the header said "0 distinct papers" beside judge's "papers": 1.
    assert f"{decided['papers']} distinct papers, 0 to judge" in done.stdout, done.stdout
    assert not (session.runs / "judgements-i2.json").exists()


def test_verify_prints_titles_and_excerpts_and_why_a_candidate_is_unconfirmed(session):
    listing = session.discover(SLUG)
    session.judge_all(listing, remembered=list(PLANTED))
    done = session.run("verify", session.search_folder)
    assert done.returncode == 0, done.stdout
    out = done.stdout
    assert re.match(r"verified \d+ \(\d+ kept from the search\): \d+ CONFIRMED, 2 UNCONFIRMED", out)
    block = re.search(r"^CONFIRMED arXiv:2106\.13414 \| 2021 \| .*\n((?:  .*\n)+)", out, re.M)
    assert block and "The Price of Tolerance in Distribution Testing" in block.group(0)
    # judged strong: its whole abstract, LaTeX as the source gives it, then its statements
    shown = block.group(1).splitlines()
    verified = json.loads((session.runs / "verified.json").read_text())
    (price,) = [r for r in verified["results"] if r["key"] == "arXiv:2106.13414"]
    whole = " ".join(price["paper"]["abstract"].split())
    assert " ".join(line.strip() for line in shown[:-1]) == f"abstract: {whole}" and "$" in whole
    assert shown[-1] == "  no LaTeX source statements: unknown_id"  # no arXiv LaTeX source recorded
    # PROBLEM.md's reference to the same paper is named, not printed again.
    assert re.search(r"^CONFIRMED problem-ref-1 = arXiv:2106\.13414$", out, re.M)
    for planted in PLANTED:
        assert f'UNCONFIRMED {planted["key"]} "{planted["title"]}": ' in out
    assert "is 'Heat-bath random walks with Markov bases'" in out
    verified = json.loads((session.runs / "verified.json").read_text())
    assert verified["summary"]["unconfirmed"] == 2


def test_problem_md_references_are_read_in_full_though_no_search_kept_them(session):
    """Issue 27: PROBLEM.md's references were left "(not yet assessed)": verify showed them an
    excerpt only. What the problem builds on is printed whole, abstract and statements, like a
    paper judged strong, so that its relevance is written from it."""
    session.judge_all(session.discover(SLUG), label=lambda n: "irrelevant")
    out = session.run("verify", session.search_folder).stdout
    assert re.match(r"verified 2 \(0 kept from the search\): 2 CONFIRMED", out), out
    for number in (1, 2):
        block = re.search(rf"^CONFIRMED problem-ref-{number} = .*\n((?:  .*\n)+)", out, re.M)
        assert block and block.group(1).startswith("  abstract: "), out
        assert "…" not in block.group(1).split("\n")[0]


def test_a_corrected_result_prints_what_the_record_corrects():
    """Synthesized verification document: issue-16's CORRECTED outcome (paper + discrepancies)."""
    from mathtools.search.confirmation import lines

    paper = {"key": "arXiv:2001.1", "title": "Testing uniformity", "authors": ["A. Ba"],
             "year": 2020, "abstract": "We prove that n samples suffice. Then more."}  # fmt: skip
    document = {
        "summary": {"total": 1, "confirmed": 0, "corrected": 1, "unconfirmed": 0},
        "results": [
            {
                "key": "memory-1",
                "status": "CORRECTED",
                "paper": paper,
                "candidate": {"title": "Testing uniformity", "year": 2018},
                "discrepancies": [
                    {"field": "year", "cited": 2018, "record": 2020, "note": "cited 2018, 2020"}
                ],
            }
        ],
    }
    out = lines(document, set(), 0)
    assert out[0] == "verified 1 (0 kept from the search): 0 CONFIRMED, 1 CORRECTED, 0 UNCONFIRMED"
    assert out[1] == "CORRECTED memory-1 = arXiv:2001.1 | 2020 | Ba | Testing uniformity"
    assert out[2] == "  corrected year: cited 2018, 2020"
    assert out[3] == "  We prove that n samples suffice."  # its result sentence


def test_a_failing_service_is_named_and_the_other_goes_on(session):
    session.standin.fail("s2", 500)
    listing = session.discover(SLUG)
    assert "Semantic Scholar unavailable:" in listing
    assert "arXiv run 1" in listing.splitlines()[0] and "Semantic Scholar run" not in listing
    assert "S2 skipped: failing" in session.stderr
    search = json.loads((session.runs / "search.json").read_text())
    assert list(search["iterations"][0]["failed"]) == ["semantic_scholar"]


def test_every_service_failing_is_exit_3(session):
    session.standin.fail("s2", 500)
    session.standin.fail("arxiv", 503)
    session.standin.fail("zbmath", 502)
    done = session.run("discover", SLUG)
    assert done.returncode == 3 and '"all_failed"' in done.stdout


def test_without_a_slug_the_words_are_focus_on_the_current_problem(session):
    listing = session.discover("uniformity")
    plan = json.loads((session.runs / "plan.json").read_text())
    assert listing.startswith(f"{SLUG}, first search")
    assert plan["queries"]["arxiv"][0]["origin"] == "focus"


def test_judge_and_verify_refuse_a_folder_that_is_no_search(session, tmp_path):
    done = session.run("judge", str(tmp_path))
    assert done.returncode == 2 and done.json()["error"]["code"] == "not_a_search"


def test_a_gist_starts_where_the_paper_says_what_it_does():
    from mathtools.search.abstracts import excerpt, gist

    abstract = (
        "Testing is central to statistics and has a long history. "
        r"We prove that $\Theta(\sqrt{n}/\varepsilon^2)$ samples suffice for \emph{tolerant} "
        + "testing, and many more words follow here to make the abstract long enough to cut. "
        * 3
    )
    said = gist(abstract)
    # LaTeX as the source gives it: the formula whole, one word of the 25
    assert said.startswith(r"We prove that $\Theta(\sqrt{n}/\varepsilon^2)$ samples suffice")
    assert said.endswith("…") and len(words(said.rstrip("…"))) == 25
    assert gist(None) == "" and gist("Short abstract.") == "Short abstract."
    rest = excerpt(abstract, after_gist=True)
    assert 1 <= len(rest) <= 3 and not rest[0].startswith("We prove")  # no result sentence left
    assert sum(len(line) for line in rest) <= 220
    results = excerpt("Background here. We also show that X holds. Filler. Our main result is Y.")
    assert results == ["We also show that X holds. Our main result is Y."]


@pytest.mark.parametrize("phase", [("verify",), ("refine", "--query", "uniformity testing")])
def test_a_phase_after_judging_waits_for_the_judgements(session, phase):
    session.discover(SLUG)
    done = session.run(phase[0], session.search_folder, *phase[1:])
    assert done.returncode == 2 and done.json()["error"]["code"] == "not_judged"
    assert "judgements-i1.json" in done.json()["error"]["message"]


def test_a_damaged_search_json_is_bad_input(session):
    session.discover(SLUG)
    session.write("search.json", {"problem": SLUG})
    done = session.run("verify", session.search_folder)
    assert done.returncode == 2 and done.json()["error"]["code"] == "bad_search"
    session.write("search.json", "{not json")
    assert session.run("merge", session.search_folder).json()["error"]["code"] == "bad_search"


def test_a_query_a_service_refuses_is_noted_and_the_others_run(session):
    """Synthesized refusal: the stand-in answers every arXiv query with HTTP 400."""
    session.standin.fail("arxiv", 400)
    listing = session.discover(SLUG)
    refused = [line for line in listing.splitlines() if line.startswith("arXiv refused arxiv ")]
    assert refused, listing
    assert "Semantic Scholar run 1" in listing.splitlines()[0]


def test_a_remembered_paper_the_gate_corrects_is_printed_with_what_was_wrong(session):
    listing = session.discover(SLUG)
    miscited = {
        "title": "On Distribution Testing in the Conditional Sampling Model",
        "authors": ["Narayanan", "Canonne"],
        "year": 2020,
        "arxiv_id": "2007.09895",
    }
    session.judge_all(listing, label=lambda n: "irrelevant", remembered=[miscited])
    out = session.run("verify", session.search_folder).stdout
    corrected = re.search(r"^CORRECTED memory-1 = arXiv:2007\.09895 \| 2020 \| Narayanan \| .*\n"
                          r"((?:  .*\n)+)", out, re.M)  # fmt: skip
    assert corrected, out
    assert re.search(r"^  corrected authors: ", corrected.group(1), re.M), out
    assert ", 1 CORRECTED, " in out.splitlines()[0]


def test_a_search_json_written_before_the_search_folder_rename_still_loads(tmp_path):
    """search.json named its folder `run_dir` before the glossary's word: a search begun then is
    finished with today's scripts."""
    search = Search("p", str(tmp_path), "LITERATURE.md", None, True, 5)
    search.save()
    data = json.loads((tmp_path / MANIFEST).read_text())
    data = {"run_dir" if key == "search_folder" else key: value for key, value in data.items()}
    (tmp_path / MANIFEST).write_text(json.dumps(data))
    assert Search.load(str(tmp_path)) == search

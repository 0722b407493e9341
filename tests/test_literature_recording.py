"""literature.py: /math:literature's last phases, merge and finish, on the sample problem
searched, judged and verified (those phases: test_literature_phases.py); and the searches that
follow a recorded one.

arXiv and Semantic Scholar are tests/support/standin.py, answering from the real recordings; the
judgements, relevance and Synthesis the model would write are written by the tests.
"""

from __future__ import annotations

import json
import re
import sys

import pytest
from conftest import ROOT, run_script
from mathtools.core import frontmatter
from mathtools.litdoc.checks import SPECULATIVE_WARNING
from support.literature_session import SLUG, listed, open_session

sys.path.insert(0, str(ROOT / "tools"))
from demo_pipeline import PLANTED


@pytest.fixture
def session(tmp_path, monkeypatch):
    yield from open_session(tmp_path, monkeypatch)


def finished(session, synthesis: str):
    listing = session.discover(SLUG)
    session.judge_all(listing, remembered=list(PLANTED))
    assert session.run("verify", session.search_folder).returncode == 0
    session.assess_all()
    merged = session.run("merge", session.search_folder)
    assert merged.returncode == 0, merged.stdout
    assert merged.stdout.splitlines()[-1] == (
        f"to write: the Synthesis, in {session.search_folder}/synthesis.md"
    )
    assert "not yet assessed" not in merged.stdout
    session.write("synthesis.md", synthesis)
    return session.run(
        "finish", session.search_folder, "--outcome", "SUCCEEDED", "--title", "Survey",
        "--reasoning", "what", "--insight", "one observation", "--tags", "testing",
    )  # fmt: skip


def test_merge_then_finish_records_the_search_in_the_journal_and_the_state(session):
    done = finished(session, "### Applicable Theorems\n- [S] REF-001 gives the bound.\n")
    assert done.returncode == 0, done.stdout
    assert done.json() == {
        "valid": True,
        "journal": "LIT-001",
        "confirmed": done.json()["confirmed"],
        "unconfirmed": 2,
        "state": "LITERATURE_SEARCH",
    }
    problem = session.folder / ".math" / "problems" / SLUG
    literature = (problem / "LITERATURE.md").read_text()
    assert (
        "## Synthesis\n\n### Applicable Theorems\n- [S] REF-001 gives the bound.\n\n" in literature
    )
    journal = (problem / "JOURNAL.md").read_text()
    assert "broad-survey" in journal
    assert "3 runs on arXiv, Semantic Scholar and zbMATH Open, 1 iteration" in journal
    history = frontmatter.read_frontmatter((problem / "STATE.md").read_text(), "STATE.md")[
        "history"
    ]
    assert (
        "INTAKE -> LITERATURE_SEARCH (literature searched by /math:literature: LIT-001"
        in (history[-1])
    )
    again = session.run("finish", session.search_folder, "--outcome", "SUCCEEDED", "--title", "x",
                        "--reasoning", "r", "--insight", "i")  # fmt: skip
    assert again.json() == {"valid": True, "journal": "LIT-001", "already_recorded": True}
    assert (problem / "JOURNAL.md").read_text() == journal
    # /math:research then spends no move on the search: one call reaches the proof agent.
    step = run_script("state.py", "advance", "--problem", SLUG, cwd=session.folder).json()
    assert step["action"] == "spawn" and step["spawn"] == "math:proof"
    assert [move["to"] for move in step["applied"]] == ["PROOF_DEVELOPMENT"]
    assert step["task"] == "Develop a proof of the problem in PROOF.md."


def test_finish_records_nothing_while_literature_md_is_invalid(session):
    done = finished(session, "- [V] UREF-001 proves everything.\n")
    assert done.returncode == 1
    assert any("UREF-001 is unconfirmed and cited as [V]" in v for v in done.json()["violations"])
    problem = session.folder / ".math" / "problems" / SLUG
    assert "LIT-001" not in (problem / "JOURNAL.md").read_text()
    assert "literature searched" not in (problem / "STATE.md").read_text()


def test_a_follow_up_search_extends_the_synthesis_and_is_a_targeted_search(session):
    assert finished(session, "### Gaps in Literature\n- [~] The first gap.\n").returncode == 0
    listing = session.discover(SLUG, "uniformity", "testing")
    assert listing.startswith(f"{SLUG}, follow-up search, iteration 1: ")
    session.judge_all(listing)
    assert session.run("verify", session.search_folder).returncode == 0
    session.assess_all()
    merged = session.run("merge", session.search_folder).stdout.splitlines()
    at = merged.index(
        f"to extend: the Synthesis below; write in {session.search_folder}/synthesis.md only its"
        " new lines, under the headings they extend (a heading ending '(replaces)' replaces that"
        " section); nothing new: write nothing. Now:"
    )
    # the first finish put the speculative-steps warning atop it, numbering the [~] claim
    warning = SPECULATIVE_WARNING.format(steps="claim 1").splitlines()
    assert merged[at + 1 :] == [*warning, "", "### Gaps in Literature", "- [~] The first gap."]
    session.write("synthesis.md", "### Gaps in Literature\n- [~] The first gap.\n- [~] Another.\n")
    done = session.run(
        "finish", session.search_folder, "--outcome", "PARTIAL", "--title", "Follow-up",
        "--reasoning", "what", "--insight", "one more observation",
    )  # fmt: skip
    assert done.returncode == 0 and done.json()["journal"] == "LIT-002", done.stdout
    problem = session.folder / ".math" / "problems" / SLUG
    journal = (problem / "JOURNAL.md").read_text()
    assert "targeted-search" in journal.split("LIT-002", 1)[1]
    assert "- [~] Another." in (problem / "LITERATURE.md").read_text()
    history = frontmatter.read_frontmatter((problem / "STATE.md").read_text(), "STATE.md")[
        "history"
    ]
    assert history[-1].endswith(
        "LITERATURE_SEARCH: literature search (LIT-002: "
        + (f"{done.json()['confirmed']} confirmed references)")
    )


@pytest.mark.parametrize(
    "phase",
    [("judge",), ("refine", "--query", "sharp sample bounds"), ("chase", "arXiv:2106.13414")],
)
def test_a_finished_search_takes_no_more_iterations(session, phase):
    assert (
        finished(session, "### Applicable Theorems\n- [S] REF-001 gives the bound.\n").returncode
        == 0
    )
    before = json.loads((session.runs / "search.json").read_text())
    done = session.run(phase[0], session.search_folder, *phase[1:])
    assert done.returncode == 2, done.stdout
    error = done.json()["error"]
    assert error["code"] == "finished" and "\n" not in error["message"]
    assert "LIT-001" in error["message"] and "literature.py discover" in error["message"]
    assert json.loads((session.runs / "search.json").read_text()) == before


def test_services_failing_at_verification_are_named_and_never_as_checked(session):
    """Synthesized: zbMATH Open and Crossref answer 503 to everything once discovery is done."""
    listing = session.discover(SLUG)
    session.standin.fail("zbmath", 503)
    session.standin.fail("crossref", 503)
    session.judge_all(listing, remembered=list(PLANTED))  # its stop verifies at once
    verified = session.assess_all()
    assert set(verified["source_errors"]) == {"zbmath", "crossref"}
    done = session.record_survey()
    assert done.returncode == 0, done.stdout
    problem = session.folder / ".math" / "problems" / SLUG
    literature = (problem / "LITERATURE.md").read_text()
    meta = frontmatter.read_frontmatter(literature, "LITERATURE.md")
    assert "zbmath" not in meta["sources_queried"] and "crossref" not in meta["sources_queried"]
    checked = re.findall(r"checked against ([^;]*) only", literature)
    assert checked and not any("zbMATH" in c or "Crossref" in c for c in checked)
    journal = (problem / "JOURNAL.md").read_text()
    assert "unavailable: zbMATH Open, Crossref" in journal


def test_a_focus_search_judges_only_new_papers_and_a_recorded_strong_hit_stops_it(session):
    """A recorded strong hit found again stops a follow-up (issue 50: it was told to refine
    until the iteration cap); `refine` still searches when the model asks for more."""
    assert (
        finished(session, "### Applicable Theorems\n- [S] REF-001 gives the bound.\n").returncode
        == 0
    )
    listing = session.discover(SLUG, "tolerant", "testing")
    assert "focus: tolerant testing (judge each paper against it" in listing
    recorded = [line for line in listing.splitlines() if re.match(r"REF-\d{3} \(recorded\) ", line)]
    assert recorded, listing
    new = listed(listing)
    assert new, listing
    for line in recorded:  # a recorded paper is not listed for judgement
        assert line.split(" ", 3)[2] not in new
    answer = session.judge_all(listing, label=lambda n: "partial")  # the new papers only
    assert answer["decision"] == "stop", answer
    assert answer["reason"].startswith("strong hit recorded by an earlier search: "), answer
    refined = session.run(
        "refine", session.search_folder, "--query", "sample complexity lower bound"
    )
    assert refined.returncode == 0, refined.stdout + refined.stderr
    if listed(refined.stdout):
        session.judge_all(refined.stdout, label=lambda n: "irrelevant", iteration=2)
    verified = session.run("verify", session.search_folder).stdout
    marked = re.findall(r"^(?:CONFIRMED|CORRECTED) \S+ = (REF-\d{3}) \(recorded\)$", verified, re.M)
    assert marked, verified  # known already: no abstract printed again
    # A rewrite of a recorded REF's prose is not taken, and the merge says so.
    results = json.loads((session.runs / "verified.json").read_text())["results"]
    tier = {"relevance": "a new reading", "key_results": "Theorem 1", "confidence": "[S]"}
    session.write("relevance.json", {r["key"]: tier for r in results})
    merged = session.run("merge", session.search_folder).stdout
    assert re.search(
        rf"^{marked[0]} kept its Relevance: .* edit {marked[0]} in the file", merged, re.M
    ), merged


def test_a_reference_left_pending_is_retried_by_the_next_search_and_promoted(session):
    """Synthesized: Crossref and OpenAlex answer 503 at the first search's verification, so the
    classic only they hold stays a UREF pending verification; the next search's verify retries
    it."""
    from demo_pipeline import CLASSICS

    listing = session.discover(SLUG)
    for service in ("crossref", "openalex"):
        session.standin.fail(service, 503)
    session.judge_all(listing, remembered=[CLASSICS[0]])  # its stop verifies at once
    for service in ("crossref", "openalex"):
        session.standin.recover(service)
    session.assess_all()
    first = session.record_survey()
    assert first.returncode == 0, first.stdout
    literature = session.folder / ".math" / "problems" / SLUG / "LITERATURE.md"
    pending = re.search(
        r"### (UREF-\d{3}): Approximation by superpositions", literature.read_text()
    )
    assert pending and "verification pending" in literature.read_text()
    listing = session.discover(SLUG, "tolerant", "testing")
    session.judge_all(listing, label=lambda n: "irrelevant")
    out = "\n".join(session.verified)  # judge's stop verified
    assert re.search(r"^CONFIRMED \S+ = DOI:10\.1007/bf02551274 ", out, re.M), out
    assert f"retried in place: {pending.group(1)} (confirmed" in out
    session.write("relevance.json", {})
    merged = session.run("merge", session.search_folder).stdout
    assert f"(moved from {pending.group(1)})" in merged, merged


def test_a_search_that_finds_nothing_is_recorded_and_the_loop_goes_on(session):
    """The dead end: with no paper judged strong or partial and no PROBLEM.md reference, verify
    printed "nothing to verify", merge was refused ("no verified.json") and `advance` spawned the
    search agent again, up to the cap. Now verify merges at once (the play of issue 51 spent a
    call on a merge that had nothing to add) and writes a "no prior work found" LITERATURE.md,
    finish records it, and the loop moves to the proof."""
    problem = session.folder / ".math" / "problems" / SLUG
    text = (problem / "PROBLEM.md").read_text()
    (problem / "PROBLEM.md").write_text(
        re.sub(r"## References\n.*?(?=\n## )", "## References\n", text, flags=re.S)
    )
    step = run_script("state.py", "advance", "--problem", SLUG, cwd=session.folder).json()
    assert (step["state"], step["spawn"]) == ("LITERATURE_SEARCH", "math:literature-search")
    session.judge_all(session.discover(SLUG), label=lambda n: "irrelevant")
    verified = session.run("verify", session.search_folder)
    assert verified.returncode == 0 and "nothing to verify" in verified.stdout
    assert "no prior work found" in verified.stdout, verified.stdout
    assert "No prior work found" in (problem / "LITERATURE.md").read_text()
    merged = session.run("merge", session.search_folder)  # a merge the model runs anyway: a no-op
    assert merged.returncode == 0 and "no prior work found" not in merged.stdout, merged.stdout
    done = session.run("finish", session.search_folder, "--outcome", "FAILED", "--title", "None",
                       "--reasoning", "nothing relevant", "--insight", "new ground")  # fmt: skip
    assert done.returncode == 0, done.stdout
    assert (done.json()["confirmed"], done.json()["state"]) == (0, "LITERATURE_SEARCH")
    literature = (problem / "LITERATURE.md").read_text()
    assert "confirmed_count: 0" in literature and "No prior work found" in literature
    step = run_script("state.py", "advance", "--problem", SLUG, cwd=session.folder).json()
    assert step["spawn"] == "math:proof", step
    assert step["applied"] == [
        {"to": "PROOF_DEVELOPMENT", "reason": "literature search done: no prior work found"}
    ]

"""journal.py: entries, per-category numbering, the frontmatter index, dead ends, validation."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCRIPTS
from mathtools.core import frontmatter
from mathtools.litdoc import merging
from mathtools.research import journalchanges as jr
from mathtools.research import journalread
from mathtools.research import workspacechanges as ws
from support.verified import confirmed, paper, verification

SEED_EXAMPLE = """
### LIT-001: Initial survey of operator norm convergence results
- **Timestamp:** 2026-02-10T14:30:00Z
- **Agent:** literature-search
- **Strategy type:** broad-survey
- **Tags:** [operator-norm, banach-space, convergence, spectral-radius]
- **What was tried:** 5 queries across arXiv and Semantic Scholar targeting operator norm
- **Outcome:** SUCCEEDED
- **Reasoning:** Found 7 confirmed papers directly addressing operator norm convergence criteria
- **Artifacts produced:** [LITERATURE.md](LITERATURE.md)
- **Related files:** [PROBLEM.md](PROBLEM.md)
- **Insight/Takeaway:** The literature clusters around two approaches.
"""


@pytest.fixture
def problem(tmp_path):
    """An initialised workspace with one current problem; returns its folder."""
    ws.init()
    return Path(ws.new_problem("Operator norms")["path"])


def add_args(category="PROOF", strategy="induction", outcome="FAILED") -> list[str]:
    return ["add", "--category", category, "--strategy", strategy, "--outcome", outcome]


def add(script, *args, input=None, **kind):
    return script("journal.py", *add_args(**kind), *args, input=input)


def entry(title="An attempt", tags="", insight="It taught something", **kind):
    """Add an entry in-process (the CLI itself is exercised by the tests that say so)."""
    options = {"category": "PROOF", "strategy": "induction", "outcome": "FAILED", **kind}
    return jr.add(
        title=title,
        tried="something",
        insight=insight,
        tags=journalread.parse_tags(tags),
        **options,
    )


def test_add_writes_the_protocol_entry_and_prints_its_id(problem, script):
    run = add(
        script,
        "--title",
        "Initial survey of operator norm convergence results",
        "--tags",
        "operator-norm,Banach space",
        "--tried",
        "5 queries across arXiv and Semantic Scholar",
        "--reasoning",
        "Found 7 confirmed papers",
        "--artifacts",
        "LITERATURE.md",
        "--related",
        "PROBLEM.md",
        "--insight",
        "Two approaches: spectral radius and Neumann series.",
        "--agent",
        "literature-search",
        category="LIT",
        strategy="broad-survey",
        outcome="SUCCEEDED",
    )
    assert run.returncode == 0, run.stdout
    out = run.json()
    assert out["id"] == "LIT-001" and out["problem"] == "operator-norms"
    assert out["total_entries"] == 1
    assert len(run.stdout.splitlines()) == 1  # an acknowledgement: the entry is not echoed back
    assert set(out) == {"id", "problem", "timestamp", "total_entries"}
    text = (problem / "JOURNAL.md").read_text()
    timestamp = out["timestamp"]
    assert text.endswith(
        "## Entries\n\n"
        "### LIT-001: Initial survey of operator norm convergence results\n"
        f"- **Timestamp:** {timestamp}\n"
        "- **Agent:** literature-search\n"
        "- **Strategy type:** broad-survey\n"
        "- **Tags:** [operator-norm, banach-space]\n"
        "- **What was tried:** 5 queries across arXiv and Semantic Scholar\n"
        "- **Outcome:** SUCCEEDED\n"
        "- **Reasoning:** Found 7 confirmed papers\n"
        "- **Artifacts produced:** [LITERATURE.md](LITERATURE.md)\n"
        "- **Related files:** [PROBLEM.md](PROBLEM.md)\n"
        "- **Insight/Takeaway:** Two approaches: spectral radius and Neumann series.\n"
    )
    meta = frontmatter.read_frontmatter(text)
    assert (meta["total_entries"], meta["last_entry"], meta["strategies_tried"]) == (
        1,
        "LIT-001",
        {},
    )


def test_entries_are_numbered_per_category(problem, script):
    ids = [
        entry(category="LIT", strategy="broad-survey", outcome="SUCCEEDED")["id"],
        entry(category="PROOF", strategy="induction")["id"],
        entry(category="LIT", strategy="targeted-search", outcome="PARTIAL")["id"],
        entry(category="COMP", strategy="numerical-experiment", outcome="SUCCEEDED")["id"],
        entry(category="NOTE", strategy="observation", outcome="SUCCEEDED")["id"],
        entry(category="PROOF", strategy="contradiction", outcome="IN_PROGRESS")["id"],
    ]
    assert ids == ["LIT-001", "PROOF-001", "LIT-002", "COMP-001", "NOTE-001", "PROOF-002"]
    result = script("journal.py", "validate")
    assert result.returncode == 0, result.stdout
    assert result.json()["by_category"] == {"PROOF": 2, "LIT": 2, "COMP": 1, "NOTE": 1}


def test_strategies_tried_indexes_the_proof_entries(problem, script):
    entry(category="PROOF", strategy="induction", outcome="FAILED")
    entry(category="LIT", strategy="targeted-search", outcome="SUCCEEDED")
    entry(category="PROOF", strategy="direct", outcome="IN_PROGRESS")
    entry(category="PROOF", strategy="induction", outcome="PARTIAL")
    meta = frontmatter.read_frontmatter((problem / "JOURNAL.md").read_text())
    assert meta["strategies_tried"] == {
        "induction": {"entries": ["PROOF-001", "PROOF-003"], "last_outcome": "PARTIAL"},
        "direct": {"entries": ["PROOF-002"], "last_outcome": "IN_PROGRESS"},
    }
    assert meta["total_entries"] == 4 and meta["last_entry"] == "PROOF-003"


def test_a_hand_edited_outcome_is_flagged_then_resynced_by_the_next_add(problem, script):
    entry(category="PROOF", strategy="direct", outcome="IN_PROGRESS")
    path = problem / "JOURNAL.md"
    path.write_text(path.read_text().replace("- **Outcome:** IN_PROGRESS", "- **Outcome:** FAILED"))
    stale = script("journal.py", "validate")
    assert stale.returncode == 1
    assert [v["kind"] for v in stale.json()["violations"]] == ["index"]
    entry(category="NOTE", strategy="decision", outcome="SUCCEEDED")
    meta = frontmatter.read_frontmatter(path.read_text())
    assert meta["strategies_tried"]["direct"]["last_outcome"] == "FAILED"
    assert script("journal.py", "validate").returncode == 0


def test_multiline_text_round_trips(problem, script):
    tried = "Induct on $n$.\n\nBase case: $n = 1$ is $\\|T\\| \\le 1$.\n  indented line"
    run = add(
        script,
        "--title",
        "Induction",
        "--tried",
        "-",
        "--insight",
        "fails at $n=2$",
        input=tried,
    )
    assert run.returncode == 0, run.stdout
    (parsed,) = journalread.read_journal(problem / "JOURNAL.md").entries
    assert parsed.fields["tried"] == tried
    assert parsed.fields["insight"] == "fails at $n=2$"
    assert script("journal.py", "validate").returncode == 0


def test_the_seed_protocol_example_is_a_valid_entry(tmp_path, script):
    path = tmp_path / "JOURNAL.md"
    path.write_text(
        "---\ntotal_entries: 1\nlast_entry: LIT-001\nstrategies_tried: {}\n---\n" + SEED_EXAMPLE
    )
    run = script("journal.py", "validate", "--file", str(path))
    assert run.returncode == 0, run.stdout
    (parsed,) = journalread.read_journal(path).entries
    assert parsed.tags == ["operator-norm", "banach-space", "convergence", "spectral-radius"]


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ({"category": "PROOFS"}, "bad_category"),
        ({"category": "lit"}, "bad_category"),
        ({"strategy": "brute-force"}, "bad_strategy"),
        ({"outcome": "DONE"}, "bad_outcome"),
        ({"insight": ""}, "empty_insight"),
        ({"insight": "   \n "}, "empty_insight"),
        ({"title": "two\nlines"}, "bad_entry"),
        ({"timestamp": "yesterday"}, "bad_timestamp"),
    ],
)
def test_bad_entries_are_refused_and_the_journal_is_unchanged(problem, script, options, code):
    before = (problem / "JOURNAL.md").read_bytes()
    title = options.pop("title", "T")
    insight = options.pop("insight", "i")
    timestamp = options.pop("timestamp", None)
    extra = ("--timestamp", timestamp) if timestamp else ()
    run = add(script, "--title", title, "--tried", "t", "--insight", insight, *extra, **options)
    assert run.returncode == 2
    assert run.json()["error"]["code"] == code
    assert (problem / "JOURNAL.md").read_bytes() == before


def test_a_missing_insight_option_is_a_usage_error(problem, script):
    run = add(script, "--title", "T", "--tried", "t")
    assert run.returncode == 2 and run.json()["error"]["code"] == "usage"
    assert "--insight" in run.json()["error"]["message"]


MALFORMED = {
    "unclosed frontmatter": lambda t: t.replace("\n---\n\n# Research", "\n\n# Research", 1),
    "frontmatter not YAML": lambda t: t.replace("total_entries: 1", "total_entries: [1", 1),
    "bad heading": lambda t: t.replace("### PROOF-001:", "### PROOF-1:"),
    "unknown category": lambda t: t.replace("### PROOF-001:", "### IDEA-001:"),
    "duplicate id": lambda t: t + "\n" + t[t.index("### PROOF-001") :],
    "missing insight": lambda t: t.replace("- **Insight/Takeaway:** It taught something\n", ""),
    "numbering gap": lambda t: t.replace("### PROOF-001:", "### PROOF-002:"),
}


@pytest.mark.parametrize("damage", MALFORMED, ids=list(MALFORMED))
def test_a_malformed_journal_is_left_untouched(problem, script, damage):
    entry()
    path = problem / "JOURNAL.md"
    path.write_text(MALFORMED[damage](path.read_text()))
    before = path.read_bytes()
    run = add(script, "--title", "Next", "--tried", "t", "--insight", "i")
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "journal_invalid"
    assert "not changed" in run.json()["error"]["message"]
    assert path.read_bytes() == before
    checked = script("journal.py", "validate")
    assert checked.returncode == 1
    assert checked.json()["valid"] is False and checked.json()["violations"]


def test_validate_names_each_problem(tmp_path, script):
    path = tmp_path / "JOURNAL.md"
    path.write_text(
        "---\ntotal_entries: 3\nlast_entry: PROOF-002\nstrategies_tried: {}\n---\n\n"
        "### PROOF-001: A\n- **Timestamp:** 2026-01-01T00:00:00Z\n- **Strategy type:** magic\n"
        "- **What was tried:** x\n- **Outcome:** MAYBE\n- **Insight/Takeaway:** y\n\n"
        "### PROOF-003: B\n- **Timestamp:** soon\n- **Strategy type:** direct\n"
        "- **What was tried:** x\n- **Outcome:** FAILED\n"
    )
    run = script("journal.py", "validate", "--file", str(path))
    assert run.returncode == 1
    messages = [v["message"] for v in run.json()["violations"]]
    assert any("unknown strategy 'magic'" in m for m in messages)
    assert any("unknown outcome 'MAYBE'" in m for m in messages)
    assert any("'soon' is not an ISO 8601 date" in m for m in messages)
    assert any("missing or empty 'Insight/Takeaway'" in m for m in messages)
    assert any("PROOF-003 should be PROOF-002" in m for m in messages)
    assert any(m.startswith("frontmatter total_entries is 3") for m in messages)
    lines = {v["line"] for v in run.json()["violations"] if v["entry"] == "PROOF-003"}
    assert lines == {14}


def test_concurrent_writers_get_distinct_consecutive_numbers(problem):
    def writer(category, strategy, n):
        args = [*add_args(category, strategy, "PARTIAL"), "--title", f"writer {n}"]
        return subprocess.Popen(
            [sys.executable, str(SCRIPTS / "journal.py"), *args, "--tried", "t", "--insight", "i"],
            stdout=subprocess.PIPE,
            text=True,
        )

    procs = [writer("LIT", "targeted-search", n) for n in range(8)]
    procs += [writer("PROOF", "direct", n) for n in range(4)]
    ids = [json.loads(p.communicate(timeout=120)[0])["id"] for p in procs]
    assert sorted(i for i in ids if i.startswith("LIT")) == [f"LIT-{n:03d}" for n in range(1, 9)]
    assert sorted(i for i in ids if i.startswith("PROOF")) == [
        f"PROOF-{n:03d}" for n in range(1, 5)
    ]
    journal = journalread.read_journal(problem / "JOURNAL.md")
    assert journal.violations == [] and journal.index_violations() == []
    assert journal.meta["total_entries"] == 12
    assert journal.meta["strategies_tried"]["direct"]["entries"] == [
        f"PROOF-{n:03d}" for n in range(1, 5)
    ]


def test_add_uses_the_current_problem_or_the_one_named(problem, script):
    other = script("workspace.py", "new-problem", "--title", "Other", "--no-switch").json()
    entry()
    assert (
        add(script, "--problem", "other", "--title", "T", "--tried", "t", "--insight", "i").json()[
            "id"
        ]
        == "PROOF-001"
    )
    assert journalread.read_journal(Path(other["path"]) / "JOURNAL.md").entries[0].title == "T"
    assert len(journalread.read_journal(problem / "JOURNAL.md").entries) == 1
    unsafe = add(script, "--problem=../other", "--title", "T", "--tried", "t", "--insight", "i")
    assert unsafe.json()["error"]["code"] == "bad_slug"


def test_add_recreates_a_missing_journal(problem, script):
    (problem / "JOURNAL.md").unlink()
    assert entry()["id"] == "PROOF-001"
    assert (
        frontmatter.read_frontmatter((problem / "JOURNAL.md").read_text())["problem"]
        == "operator-norms"
    )


def test_without_a_current_problem_add_explains(tmp_path, script):
    script("workspace.py", "init")
    run = add(script, "--title", "T", "--tried", "t", "--insight", "i")
    assert run.returncode == 2 and run.json()["error"]["code"] == "no_current_problem"


# -- dead-end detection ----------------------------------------------------------------------


def check(script, strategy, tags=""):
    run = script("journal.py", "check", "--strategy", strategy, "--tags", tags)
    assert run.returncode in (0, 1), run.stdout
    return run.returncode, run.json()


def test_check_is_clear_without_prior_dead_ends(problem, script):
    entry(strategy="induction", outcome="SUCCEEDED", tags="a,b")
    entry(strategy="induction", outcome="PARTIAL", tags="a,b")
    expected = {
        "problem": "operator-norms",
        "strategy": "induction",
        "tags": ["a", "b"],
        "verdict": "clear",
        "dead_ends": [],
        "journal_violations": 0,
    }
    status, out = check(script, "induction", "a,b")
    assert (status, {k: v for k, v in out.items() if k != "now"}) == (0, expected)
    # the time for the pass's **Updated:** lines
    assert journalread.EntryTime.parse(out["now"]).precise
    (problem / "JOURNAL.md").unlink()
    status, out = check(script, "induction", "a,b")
    assert (status, {k: v for k, v in out.items() if k != "now"}) == (0, expected)


def test_check_matches_same_strategy_or_two_shared_tags(problem, script):
    entry(title="same strategy", strategy="induction", tags="x", outcome="FAILED")
    entry(title="two tags", strategy="direct", tags="a,b,c", outcome="ABANDONED")
    entry(title="one tag", strategy="direct", tags="a,z", outcome="FAILED")
    status, out = check(script, "induction", "a,B")
    assert status == 1 and out["verdict"] == "dead-end"
    found = {d["title"]: d for d in out["dead_ends"]}
    assert set(found) == {"same strategy", "two tags"}
    assert found["same strategy"]["same_strategy"] is True
    assert found["two tags"]["shared_tags"] == ["a", "b"]
    assert all(d["conditions_changed"] is False for d in found.values())


def test_a_dead_end_of_other_work_matches_nothing(problem, script):
    """Issue 51's play: a literature search that found nothing (LIT, FAILED) was a dead end of
    every proof attempt sharing two tags, which cost the proof agent a check. A dead end is one
    of the same kind of work, or a general one."""
    entry(title="no prior work", category="LIT", strategy="broad-survey", tags="fibonacci,subsets")
    entry(title="a failed experiment", category="COMP", strategy="exhaustive-search",
          tags="fibonacci,subsets")  # fmt: skip
    assert check(script, "induction", "fibonacci,subsets")[1]["verdict"] == "clear"
    assert check(script, "reformulation", "fibonacci,subsets")[1]["verdict"] == "clear"
    assert check(script, "targeted-search", "fibonacci,subsets")[1]["verdict"] == "dead-end"
    entry(title="a failed reformulation", strategy="reformulation", tags="fibonacci,subsets")
    out = check(script, "induction", "fibonacci,subsets")[1]
    assert [d["title"] for d in out["dead_ends"]] == ["a failed reformulation"], out


def test_the_problems_own_tags_match_nothing(problem, script):
    """D8: a failed induction tagged with the problem's own tag and one more is no dead end of a
    direct proof that shares those two."""
    path = problem / "PROBLEM.md"
    data, body = frontmatter.split_frontmatter(path.read_text())
    path.write_text(frontmatter.with_frontmatter({**data, "tags": ["derangements"]}, body))
    entry(strategy="induction", tags="derangements,inclusion-exclusion", outcome="FAILED")
    tags = "derangements,inclusion-exclusion,alternating-series,error-term"
    assert check(script, "direct", tags)[1]["verdict"] == "clear"
    assert check(script, "induction", tags)[1]["verdict"] == "dead-end"


def test_a_proof_entry_takes_a_proof_strategy(problem, script):
    run = add(script, "--category", "PROOF", "--strategy", "exhaustive-search", "--title", "T",
              "--tried", "t", "--insight", "i")  # fmt: skip
    assert run.returncode == 2 and run.json()["error"]["code"] == "bad_strategy"
    assert "direct" in run.json()["error"]["message"]


def test_unknown_strategy_in_check_is_bad_input(problem, script):
    run = script("journal.py", "check", "--strategy", "guessing")
    assert run.returncode == 2 and run.json()["error"]["code"] == "bad_strategy"


LITERATURE = """---
problem: operator-norms
total_papers: 2
confirmed_count: 2
unconfirmed_count: 0
---

## Confirmed References

### REF-001: An old paper
- **Verified:** 2026-01-05T09:00:00Z via https://export.arxiv.org/api/query?id_list=1
### REF-002: A new paper
- **Year:** 2024
- **Verified:** 2026-03-01T12:00:00Z via https://api.semanticscholar.org/graph/v1/paper/X
"""


def test_newer_references_mean_conditions_changed(problem, script):
    entry(strategy="induction", timestamp="2026-02-01T00:00:00Z")
    (problem / "LITERATURE.md").write_text(LITERATURE)
    status, out = check(script, "induction")
    assert status == 0 and out["verdict"] == "conditions-changed"
    (dead_end,) = out["dead_ends"]
    assert dead_end["conditions_changed"] is True
    assert dead_end["evidence"] == [
        {"file": "LITERATURE.md", "item": "REF-002: A new paper", "when": "2026-03-01T12:00:00Z"}
    ]


def test_only_evidence_after_the_attempt_counts(problem, script):
    entry(strategy="induction", timestamp="2026-04-01T00:00:00Z")
    (problem / "LITERATURE.md").write_text(LITERATURE)
    status, out = check(script, "induction")
    assert status == 1 and out["dead_ends"][0]["evidence"] == []


def test_a_reference_checked_again_is_not_newer_evidence(problem, script):
    """A later search that re-verifies a known REF moves its Verified time; the journal still
    dates that reference by when it entered LITERATURE.md (the merge keeps `First verified:`)."""
    lit = problem / "LITERATURE.md"
    record = paper(1)
    for when in ("2026-01-05T09:00:00Z", "2026-03-01T12:00:00Z"):
        verified = verification([confirmed(record)], when)
        merging.merge_file(lit, verified, {record["key"]: {"relevance": "r", "confidence": "[S]"}})
    entry(strategy="induction", timestamp="2026-02-01T00:00:00Z")
    status, out = check(script, "induction")
    assert status == 1 and out["verdict"] == "dead-end"
    assert out["dead_ends"][0]["evidence"] == []
    # A reference first verified after the attempt is new evidence.
    merging.merge_file(
        lit, verification([confirmed(paper(2))], "2026-03-02T00:00:00Z"), {}, summary="more"
    )
    status, out = check(script, "induction")
    assert status == 0 and out["verdict"] == "conditions-changed"
    assert [e["item"] for e in out["dead_ends"][0]["evidence"]] == [f"REF-002: {paper(2)['title']}"]


def test_proved_lemmas_and_computations_are_dated_evidence(problem, script):
    """D8: a later step of a proof in progress is no changed condition; a lemma proved is."""
    entry(strategy="contradiction", timestamp="2026-02-01T10:00:00Z")
    (problem / "PROOF.md").write_text(
        "---\nstatus: in-progress\n---\n# Proof Development\n\n## Proof Structure\n\n"
        "### Step 1: Reduce to the compact case\n**Status:** complete\n**Updated:** 2026-03-20\n\n"
        "### Lemma 1: Bound the tail\n**Status:** complete\n**Confidence:** [S]\n"
        "**Updated:** 2026-02-02\n\n"
        "### Lemma 2: Guess\n**Status:** in-progress\n**Confidence:** [~]\n"
        "**Updated:** 2026-02-03\n"
    )
    (problem / "COMPUTATION.md").write_text(
        "---\nstatus: complete\nlast_run: 2026-02-01T11:30:00Z\n---\n# Computation Results\n"
    )
    _, out = check(script, "contradiction")
    assert out["dead_ends"][0]["evidence"] == [
        {"file": "PROOF.md", "item": "Lemma 1: Bound the tail", "when": "2026-02-02"},
        {
            "file": "COMPUTATION.md",
            "item": "COMPUTATION.md (last_run)",
            "when": "2026-02-01T11:30:00Z",
        },
    ]


def test_a_bare_date_on_the_same_day_is_not_newer():
    attempt = journalread.EntryTime.parse("2026-02-01T10:00:00Z")
    assert not journalread.EntryTime.parse("2026-02-01").after(attempt)
    assert journalread.EntryTime.parse("2026-02-02").after(attempt)
    assert journalread.EntryTime.parse("2026-02-01T10:00:01+00:00").after(attempt)
    assert not journalread.EntryTime.parse("2026-02-01T11:00:00+02:00").after(attempt)


def test_taxonomy_lists_what_add_accepts(script):
    out = script("journal.py", "taxonomy").json()
    assert list(out["categories"]) == ["PROOF", "LIT", "COMP", "NOTE"]
    assert out["outcomes"] == ["SUCCEEDED", "FAILED", "PARTIAL", "ABANDONED", "IN_PROGRESS"]
    assert {"broad-survey", "targeted-search"} <= set(out["strategies"]["literature"])
    proof = set(out["strategies"]["proof"])
    assert {"direct", "contradiction", "induction", "construction", "reduction"} <= proof


def test_check_with_a_literature_md_in_another_encoding_is_bad_input(problem, script):
    entry(strategy="induction", timestamp="2026-02-01T00:00:00Z")
    (problem / "LITERATURE.md").write_bytes(
        LITERATURE.replace("A new", "Gödel's").encode("latin-1")
    )
    run = script("journal.py", "check", "--strategy", "induction")
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "unreadable" and "LITERATURE.md" in run.stdout


def test_a_journal_with_a_byte_order_mark_takes_new_entries(problem, script):
    entry()
    path = problem / "JOURNAL.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    run = add(script, "--title", "Next", "--tried", "t", "--insight", "i")
    assert run.returncode == 0, run.stdout
    assert run.json()["id"] == "PROOF-002"


def test_a_journal_saved_with_crlf_line_endings_keeps_them_and_its_hand_edits(problem, script):
    entry()
    path = problem / "JOURNAL.md"
    crlf = path.read_bytes().replace(b"\n", b"\r\n").replace(b"It taught", b"It (hand) taught")
    path.write_bytes(crlf)
    run = add(script, "--title", "Next", "--tried", "t", "--insight", "i")
    assert run.returncode == 0, run.stdout
    written = path.read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n")
    body = crlf[crlf.index(b"\r\n---\r\n") :]
    assert body in written  # everything below the frontmatter, byte for byte


def test_add_records_several_entries_in_one_call_or_none(problem, script):
    """A proof pass that gives up one strategy and starts another records both in one call:
    the entry after `--and` takes the first's options it does not give; a refused entry
    leaves the journal as it was."""
    first = ["--category", "PROOF", "--strategy", "case-analysis", "--outcome", "FAILED",
             "--title", "score cases", "--tags", "scores,tournaments", "--tried", "cases",
             "--insight", "they do not close", "--agent", "proof"]  # fmt: skip
    second = ["--and", "--strategy", "induction", "--outcome", "PARTIAL", "--title",
              "insertion", "--insight", "Step 2 open"]  # fmt: skip
    before = (problem / "JOURNAL.md").read_text()
    bad = ["--and", "--strategy", "induction", "--outcome", "MAYBE", "--insight", "x"]
    refused = script("journal.py", "add", *first, *second, *bad)
    assert refused.returncode == 2 and refused.json()["error"]["code"] == "bad_outcome"
    assert (problem / "JOURNAL.md").read_text() == before
    done = script("journal.py", "add", *first, *second)
    assert done.returncode == 0, done.stdout
    assert [a["id"] for a in done.json()] == ["PROOF-001", "PROOF-002"]
    entries = jr.read_journal(problem / "JOURNAL.md").entries
    assert [(e.strategy, e.outcome, e.title) for e in entries] == [
        ("case-analysis", "FAILED", "score cases"),
        ("induction", "PARTIAL", "insertion"),
    ]
    assert entries[1].tags == ["scores", "tournaments"]
    assert entries[1].fields["agent"] == "proof"

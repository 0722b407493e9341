"""`state.py brief --for AGENT`: what each research agent reads before it works, cut from the
problem's files (Claude Code does not attach `@path` lines to an agent's prompt: the agents'
first call is this brief). The problem is the tournament run's (tests/support/tournament.py):
each input file carries a marker, and each brief must hold the markers of the files its agent
needs, and leave out what it does not."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest
from conftest import PLUGIN, isolate, run_script
from support import tournament as t


def brief(cwd, agent: str) -> str:
    done = run_script("state.py", "brief", "--for", agent, "--problem", t.SLUG, cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory):
    """Both problems below, each built once for the module by the scripts (seconds each), in
    the environment isolated_env gives a test; each test works on its own copy."""
    root = tmp_path_factory.mktemp("briefs")
    with pytest.MonkeyPatch.context() as env:
        isolate(env, root)
        # The problem after the first proof pass: a dead end in the journal, PROOF.md asking
        # for two computations, the first answered.
        cwd = root / "asking" / "ws"
        folder = t.new_problem(cwd)
        t.write_literature(folder)
        t.failed_strategy(cwd)
        (folder / "PROOF.md").write_text(t.proof("asking", t.NOW), encoding="utf-8")
        t.compute(cwd, folder, 1)
        # The problem once both requests are answered and the proof is complete and reviewed.
        shutil.copytree(root / "asking", root / "finished", symlinks=True)
        cwd = root / "finished" / "ws"
        folder = cwd / ".math" / "problems" / t.SLUG
        t.compute(cwd, folder, 2)
        (folder / "PROOF.md").write_text(t.proof("done", t.NOW), encoding="utf-8")
        (folder / "REVIEW.md").write_text(t.REVIEW, encoding="utf-8")
        assert run_script("review.py", "seal", "--problem", t.SLUG, cwd=cwd).returncode == 0
    return root


def copy_of(workspaces, name: str, tmp_path):
    """This test's own copy of a built problem: (workspace, problem folder)."""
    shutil.copytree(workspaces / name, tmp_path / name, symlinks=True)
    cwd = tmp_path / name / "ws"
    return cwd, cwd / ".math" / "problems" / t.SLUG


@pytest.fixture
def asking(workspaces, tmp_path):
    return copy_of(workspaces, "asking", tmp_path)


@pytest.fixture
def finished(workspaces, tmp_path):
    return copy_of(workspaces, "finished", tmp_path)


def test_the_proof_brief_holds_every_input_but_the_proof_it_will_read(asking):
    cwd, _ = asking
    text = brief(cwd, "proof")
    for marker in (
        "MARKER-PROBLEM-STATEMENT",  # PROBLEM.md
        "MARKER-NOTATION",  # NOTATION.md
        "MARKER-REF-KEY-RESULT",  # LITERATURE.md
        "MARKER-DEAD-END",  # JOURNAL.md
        "MARKER-PROOF-GAP",  # PROOF.md's open gap, by name
        "MARKER-INTERPRETATION",  # COMPUTATION.md
    ):
        assert marker in text, marker
    # PROOF.md's steps are named, not printed: the agent Reads PROOF.md before it Edits it
    assert "- Step 2: in-progress, [S]" in text and "MARKER-PROOF-LEMMA" not in text
    assert "- requests: Request 1 (run), Request 2 (open)" in text
    # the protocol lines its runbook uses, so that it reads no protocol
    assert "| depends on any [~] claim | [~] |" in text and "case-analysis" in text
    assert "Warning: this document contains speculative steps." in text
    # the template's guidance paragraphs and empty sections are left out
    assert "(What is already known" not in text and "## Known Results" not in text


def test_a_first_proof_pass_gets_the_template_to_write(tmp_path):
    cwd = tmp_path / "ws"
    t.new_problem(cwd)
    text = brief(cwd, "proof")
    assert "There is no PROOF.md yet" in text and "problem: tournament-paths" in text
    assert "# Proof Development: Hamiltonian paths in tournaments" in text
    assert "Confirmed references" not in text  # no LITERATURE.md yet: nothing to list
    # PROOF.md's format whole, since there is no PROOF.md to show it
    assert "## PROOF.md's format (protocols/proof-format.md)" in text
    for section in ("### Steps", "### Headings", "### Lemma decomposition", "### Gaps"):
        assert section + "\n" in text, section
    assert "*(revision)*" not in text


def test_with_no_dead_end_recorded_the_brief_says_every_strategy_is_clear(tmp_path):
    """The proof runbook skips `journal.py check` when the brief says so: what the check would
    answer for any strategy, with or without a JOURNAL.md."""
    cwd = tmp_path / "ws"
    folder = t.new_problem(cwd)
    for journal in ("absent", "no dead end", "a failed literature search"):
        if journal == "no dead end":
            t.script(
                cwd, "journal.py", "add", "--problem", t.SLUG, "--category", "PROOF",
                "--strategy", "case-analysis", "--outcome", "PARTIAL", "--title", "score cases",
                "--tags", "tournaments,score-sequence", "--tried", "a case analysis",
                "--insight", "the cases up to n = 4 close", "--agent", "proof",
            )  # fmt: skip
            assert (folder / "JOURNAL.md").exists()
        if journal == "a failed literature search":  # issue 51's play: listed, it cost a check
            t.script(
                cwd, "journal.py", "add", "--problem", t.SLUG, "--category", "LIT",
                "--strategy", "broad-survey", "--outcome", "FAILED", "--title", "no prior work",
                "--tags", t.TAGS, "--tried", "a search", "--insight", "new ground",
            )  # fmt: skip
        assert "none recorded: every strategy is clear" in brief(cwd, "proof")
        for strategy in ("case-analysis", "induction"):
            checked = run_script(
                "journal.py", "check", "--problem", t.SLUG, "--strategy", strategy,
                "--tags", t.TAGS, cwd=cwd,
            )  # fmt: skip
            assert json.loads(checked.stdout)["verdict"] == "clear", journal


def test_a_revision_pass_gets_the_rules_for_revising_not_the_whole_format(asking):
    """The second pass Reads PROOF.md before its Edit, which shows the blocks' shape: the brief
    prints only what revising needs (statuses, tiers, abandoning, resolving, completing,
    requests), not the format's other sections."""
    cwd, _ = asking
    text = brief(cwd, "proof")
    assert "## revising PROOF.md (protocols/proof-format.md)" in text
    for kept in (
        "### Frontmatter",
        "### Updated lines",
        "### Abandoned steps and resolved gaps",
        "### A complete proof",
        "### Computation requests",
        "### Small-case checks",
    ):
        assert kept + "\n" in text, kept
    assert "**Resolved:**" in text and "`status: complete` requires" in text
    for left in ("### Headings", "### Lemma decomposition", "### Gaps\n", "### Steps\n"):
        assert left not in text, left


def test_the_proof_brief_carries_the_referees_gap_notes(finished):
    cwd, folder = finished
    review = t.REVIEW.replace(
        "### Step 2\n**Verdict:** checked\n",
        "### Step 2\n**Verdict:** gap\n**Note:** n = 6 is sampled, not exhausted "
        "(MARKER-REVIEW-NOTE)\n",
    )
    (folder / "REVIEW.md").write_text(review, encoding="utf-8")
    text = brief(cwd, "proof")
    assert "MARKER-REVIEW-NOTE" in text and "checked: Lemma 1, Main Theorem" in text


def test_the_computation_brief_lists_only_the_open_requests(asking):
    cwd, _ = asking
    text = brief(cwd, "computation")
    assert "MARKER-PROBLEM-STATEMENT" in text and "MARKER-REQUEST-2" in text
    assert "### Request 1:" not in text  # answered by Computation 1
    assert "Computation 1: h(T), request 1 · **Request from:** PROOF.md, Request 1" in text
    assert "exhaustive-search" in text and "MARKER-REF-KEY-RESULT" not in text


def run_request_1(tmp_path, code: str) -> str:
    """A new problem asking for two computations, `code` run by compute.py for Request 1 (its
    Interpretation still to write); the computation agent's brief then."""
    cwd = tmp_path / "ws"
    folder = t.new_problem(cwd)
    (folder / "PROOF.md").write_text(t.proof("asking", t.NOW), encoding="utf-8")
    snippet = folder / "request-1.py"
    snippet.write_text(code, encoding="utf-8")
    ran = run_script(
        "compute.py", "run", str(snippet), "--request", "1", "--title", "small",
        "--python", __import__("sys").executable, "--problem", t.SLUG, cwd=cwd,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout
    return brief(cwd, "computation")


def test_a_pending_interpretation_comes_with_its_output(tmp_path):
    text = run_request_1(tmp_path, t.SNIPPETS[1])
    assert "## Runs whose Interpretation is pending" in text
    assert "n=5: least h(T) = 1, all odd: True" in text
    # whole: the snippet opens with a `# ` comment and prints a `# ` line, which once cut the
    # Code and the Output to nothing (read as Markdown headings)
    assert f"Code:\n```python\n# {t.CODE_MARKER}: h(T)" in text
    assert f"Output:\n```text\n# n, least h(T), all odd ({t.OUTPUT_MARKER})\nn=1:" in text
    assert t.STRATEGY_MARKER in text  # the symbols the request may use


def test_the_referee_brief_holds_the_steps_their_sources_and_computations(finished):
    cwd, _ = finished
    text = brief(cwd, "referee")
    for marker in (
        "MARKER-PROBLEM-STATEMENT",
        "MARKER-PROOF-LEMMA",  # the step's argument itself
        "MARKER-REF-STATEMENT",  # the statement REF-001 gives, cited by the Main Theorem
        "n=7: least h(T) = ",  # Computation 2's output, cited by Step 2
        "MARKER-REQUEST-2",  # the request that run answers
    ):
        assert marker in text, marker
    assert "a case analysis on the score sequence" not in text  # the abandoned step
    assert "REF-002" not in text  # cited by no step
    assert "One `### ` block for each of: Lemma 1, Step 2, Main Theorem." in text


def test_the_writer_brief_holds_what_the_article_needs(finished):
    cwd, _ = finished
    text = brief(cwd, "latex-writer")
    for marker in (
        "MARKER-PROBLEM-STATEMENT",
        "MARKER-NOTATION",
        "MARKER-PROOF-LEMMA",
        "MARKER-REF-KEY-RESULT",
        "rng = random.Random(2026)",  # the code, verbatim, for the appendix
        "### Environment",
        "- Main Theorem: checked",
        "\\documentclass",  # the OUTPUT.tex template: there is no OUTPUT.tex yet
    ):
        assert marker in text, marker


def test_the_writer_brief_writes_references_bib_and_prints_its_keys(finished):
    """The writer's one input call builds the bibliography too: references.bib as bib_export.py
    writes it, each REF's key printed beside it, the unconfirmed ones named as never cited."""
    cwd, folder = finished
    (folder / "references.bib").unlink(missing_ok=True)
    text = brief(cwd, "latex-writer")
    exported = run_script("bib_export.py", "--problem", t.SLUG, cwd=cwd)
    assert json.loads(exported.stdout)["changed"] is False  # the brief wrote the same file
    keys = {e["ref"]: e["key"] for e in json.loads(exported.stdout)["entries"]}
    assert set(keys) == {"REF-001", "REF-002"}
    for ref, key in keys.items():
        assert f"{ref} \\cite{{{key}}}" in text
    assert "left out, unconfirmed (never cite): UREF-001" in text


def test_with_no_confirmed_reference_the_writer_brief_lists_no_key(tmp_path):
    """No key to cite (the runbook: leave the bibliography lines out); without LITERATURE.md
    nothing is written."""
    cwd = tmp_path / "ws"
    folder = t.new_problem(cwd)  # LITERATURE.md from its template: no reference
    text = brief(cwd, "latex-writer")
    assert "the only keys you may \\cite\nnone\n" in text
    (folder / "LITERATURE.md").unlink()
    (folder / "references.bib").unlink()
    text = brief(cwd, "latex-writer")
    assert "not written: there is no LITERATURE.md, so cite nothing" in text
    assert not (folder / "references.bib").exists()


def test_an_unknown_agent_is_one_error_line(asking):
    cwd, _ = asking
    done = run_script("state.py", "brief", "--for", "oracle", "--problem", t.SLUG, cwd=cwd)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2


AGENTS = ("proof", "computation", "referee", "latex-writer")


@pytest.mark.parametrize("agent", AGENTS)
def test_each_runbook_starts_from_its_brief_and_claims_no_attachment(agent):
    body = (PLUGIN / "agents" / f"{agent}.md").read_text(encoding="utf-8")
    assert f'scripts/state.py" brief --for {agent} --problem SLUG' in body


def test_no_runbook_says_files_are_attached():
    """Claude Code does not attach `@path` lines to an agent's prompt: a runbook that says so
    sends an agent to work blind (tests/test_research_briefs_e2e.py shows what reaches it)."""
    for path in [*(PLUGIN / "agents").glob("*.md"), *(PLUGIN / "commands").glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"already in your context|prefixed with `@`|leading `@`", text), path


def test_the_referee_sees_every_computation_even_one_no_step_cites(finished):
    """A step that a recorded output contradicts is wrong whether or not it cites the run."""
    cwd, folder = finished
    proof = (
        (folder / "PROOF.md")
        .read_text()
        .replace("**Depends on:** Computation 1, Computation 2", "**Depends on:** Computation 1")
    )
    (folder / "PROOF.md").write_text(proof)
    text = brief(cwd, "referee")
    assert "n=7: least h(T) = " in text and "MARKER-REQUEST-2" in text
    assert "n=7: least h(T) = " not in brief(cwd, "latex-writer")  # the article: cited runs only


def test_the_referee_and_writer_briefs_carry_code_output_strategy_and_notation(finished):
    """Each run's Code and Output whole (fenced blocks are blocks: a `# ` line inside is code or
    output), PROOF.md's Strategy (whose symbols the steps use), NOTATION.md for the referee, and
    the unconfirmed references the writer may only mention."""
    cwd, _ = finished
    for agent in ("referee", "latex-writer"):
        text = brief(cwd, agent)
        for wanted in (
            f"# {t.CODE_MARKER}: h(T) for every tournament on n <= 5 vertices\nfrom itertools",
            "rng = random.Random(2026)",
            f"# n, least h(T), all odd ({t.OUTPUT_MARKER})\nn=1: least h(T) = 1",
            "n=7: least h(T) = ",
            t.STRATEGY_MARKER,
            "MARKER-NOTATION",
        ):
            assert wanted in text, (agent, wanted)
    assert "MARKER-UREF" in brief(cwd, "latex-writer")
    assert "MARKER-UREF" not in brief(cwd, "referee")  # a UREF supports no step


def test_a_heading_printed_by_a_run_does_not_split_the_runs(tmp_path):
    """An output line `## Computation 9: ...` is output, not the start of another run."""
    text = run_request_1(tmp_path, 'print("## Computation 9: not a run")\nprint("after it")\n')
    assert "## Computation 9: not a run\nafter it" in text
    assert "- requests" not in text and "Request 1:" not in text  # answered by that run


def test_a_run_without_a_record_is_named_not_shown_open(asking):
    """A workspace older than compute.py's run records: Request 1 has its Computation 1, which
    no record vouches for. The proof brief says so, not "(open)"."""
    cwd, folder = asking
    (folder / "computations" / "runs.jsonl").unlink()
    text = brief(cwd, "proof")
    assert "Request 1 (Computation 1 has no run record: run it again)" in text
    assert "Request 2 (open)" in text


def test_a_first_proof_pass_reads_each_rule_once(tmp_path):
    """What the template beside it carries is not printed again: the speculative-steps warning
    (the format says when to keep it), the template's note for people; PROBLEM.md's untouched
    default Goals (the loop's own steps) are left out, a goal the user wrote is kept; the folder
    is the agent's prompt's."""
    cwd = tmp_path / "ws"
    folder = t.new_problem(cwd)
    text = brief(cwd, "proof")
    assert text.count("Warning: this document contains speculative steps.") == 1
    assert "| depends on any [~] claim | [~] |" in text and "keep the **warning block**" in text
    assert "<!--" not in text and "- [ ] Find relevant prior work" not in text
    assert str(folder) not in text and "Files in its folder: PROBLEM.md" in text
    problem = (folder / "PROBLEM.md").read_text(encoding="utf-8")
    (folder / "PROBLEM.md").write_text(
        problem.replace("- [ ] Find relevant prior work", "- [ ] Settle n = 6 by hand"),
        encoding="utf-8",
    )
    assert "- [ ] Settle n = 6 by hand\n- [ ] Develop a proof" in brief(cwd, "proof")


def test_the_referee_and_writer_read_no_line_meant_for_others(finished):
    """The steps without their **Updated:** lines (the journal's); for the writer, the template
    without its comment lines (the runbook states each rule) and each cited run's Environment cut
    to the versions the appendix prints (the sandbox's lines are COMPUTATION.md's record)."""
    cwd, folder = finished
    for agent in ("referee", "latex-writer"):
        text = brief(cwd, agent)
        assert "MARKER-PROOF-LEMMA" in text and "**Updated:**" not in text, agent
    text = brief(cwd, "latex-writer")
    assert "\\documentclass" in text and not re.search(r"(?m)^%", text)
    environment = text.split("### Environment\n\n", 1)[1].split("\n\n", 1)[0]
    assert environment.startswith("- ") and "(libraries looked for:" in environment
    assert len(environment.splitlines()) == 2 and "- limits:" in (
        folder / "COMPUTATION.md"
    ).read_text(encoding="utf-8")


def git_named(tmp_path, name: str | None) -> dict[str, str]:
    """An environment whose git knows the user by `name` (None: by no name)."""
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(f"[user]\n\tname = {name}\n" if name else "")
    return {**os.environ, "GIT_CONFIG_GLOBAL": str(gitconfig), "GIT_CONFIG_NOSYSTEM": "1"}


def writer_brief(cwd, env) -> str:
    done = run_script(
        "state.py", "brief", "--for", "latex-writer", "--problem", t.SLUG, cwd=cwd, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_writer_is_told_the_author_from_the_config_else_from_git(finished, tmp_path):
    """OUTPUT.tex's \\author: .math/config.json's `author` (set by hand), else git's user.name,
    as LaTeX text (a `&` or `_` in a name cannot break the document); else it says none is
    known, and the writer leaves it empty."""
    cwd, _ = finished
    env = git_named(tmp_path, "Ada Lovelace")
    assert "`\\author{Ada Lovelace}` (from git's user.name)" in writer_brief(cwd, env)
    config = cwd / ".math" / "config.json"
    data = json.loads(config.read_text())
    config.write_text(json.dumps({**data, "author": "Émilie du Châtelet & Co_1"}))
    text = writer_brief(cwd, env)
    assert "`\\author{Émilie du Châtelet \\& Co\\_1}` (from .math/config.json `author`)" in text
    config.write_text(json.dumps(data))
    assert "none known: write `\\author{}`" in writer_brief(cwd, git_named(tmp_path, None))


def test_an_author_that_is_no_name_is_one_error_line(finished):
    cwd, _ = finished
    config = cwd / ".math" / "config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "author": ["A", "B"]}))
    done = run_script("state.py", "brief", "--for", "latex-writer", "--problem", t.SLUG, cwd=cwd)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert (
        "author in " in done.stdout + done.stderr and "must be a name" in done.stdout + done.stderr
    )

"""scripts/state.py: the research loop's state machine over STATE.md, on real files."""

from __future__ import annotations

import itertools
import json
import os
import sys
import time

import pytest
from mathtools.core import frontmatter
from mathtools.core.errors import BadInput
from mathtools.litdoc import merging
from mathtools.research import review, router, sessions, stateread, texbuild
from mathtools.research import statechanges as machine
from support.verified import verification

LEGAL = {
    ("INTAKE", "LITERATURE_SEARCH"),
    ("LITERATURE_SEARCH", "PROOF_DEVELOPMENT"),
    ("PROOF_DEVELOPMENT", "LITERATURE_SEARCH"),
    ("PROOF_DEVELOPMENT", "COMPUTATION"),
    ("PROOF_DEVELOPMENT", "LATEX_OUTPUT"),
    ("PROOF_DEVELOPMENT", "REVIEW"),
    ("REVIEW", "PROOF_DEVELOPMENT"),
    ("REVIEW", "LATEX_OUTPUT"),
    ("COMPUTATION", "PROOF_DEVELOPMENT"),
    ("LATEX_OUTPUT", "DONE"),
}
ALL_PAIRS = list(itertools.product(stateread.STATES, stateread.STATES))


CLEAN_ARTICLE = "\\documentclass{article}\n\\begin{document}\nNo claims.\n\\end{document}\n"


def write_state(folder, current, loops=None, **extra):
    data = {
        "problem": folder.name,
        "current_state": current,
        "loops": {"proof-literature": 0, "proof-computation": 0, **(loops or {})},
        "history": [],
        **extra,
    }
    data["digest"] = stateread.digest_of(data, folder)  # as state.py writes it; not a hand edit
    (folder / "STATE.md").write_text(
        frontmatter.with_frontmatter(data, "\n# State\n\nhand-written note\n")
    )


def read_state(folder):
    return frontmatter.split_frontmatter((folder / "STATE.md").read_text())


def write_md(folder, name, age=0.0, **fields):
    """An artifact with this frontmatter, its mtime `age` seconds in the past."""
    path = folder / name
    path.write_text(
        frontmatter.with_frontmatter(fields, "\nbody\n") if name.endswith(".md") else "x"
    )
    moment = time.time() - age
    os.utime(path, (moment, moment))


COMPLETE_PROOF = """
# Proof Development

## Proof Structure

### Lemma 1: $D_n = n! \\sum_{k=0}^n (-1)^k / k!$
**Status:** complete
**Depends on:** none
**Confidence:** [S]

By inclusion-exclusion.

### Main Theorem
**Status:** complete
**Depends on:** Lemma 1, REF-001
**Confidence:** [S]

The tail of the alternating series is below 1/2.
"""
# The proof with one open computation request.
PROOF_WITH_REQUEST = COMPLETE_PROOF + "\n## Computation Requests\n\n### Request 1: x\n"
PASSING_REVIEW = """
# Referee Report

### Lemma 1
**Verdict:** checked

Inclusion-exclusion over the events "$i$ is fixed": the permutations fixing a given $k$-set
number $(n-k)!$, so the sum is $n! \\sum_k (-1)^k / k!$.
**Not computable:** an identity for every $n$, which no finite run settles

### Main Theorem
**Verdict:** checked
**Sources:** REF-001 (Theorem 1): hypotheses hold - the terms decrease to 0
**Not computable:** a bound on a series tail for every $n$, argued not sampled

The tail of the alternating series after the $n$-th term is below $1/(n+1) \\le 1/2$.
"""


def complete_proof(folder, body=COMPLETE_PROOF, **fields):
    data = {"status": "complete", "computation_needed": False, "literature_needed": False}
    (folder / "PROOF.md").write_text(frontmatter.with_frontmatter({**data, **fields}, body))


def passing_review(folder, review_body=PASSING_REVIEW):
    """A complete PROOF.md and the referee's sealed REVIEW.md of it."""
    if not (folder / "PROOF.md").exists():
        complete_proof(folder)
    (folder / "REVIEW.md").write_text(review_body)
    return review.seal(folder, folder.name)


def ground(folder, here, to):
    """The files that justify the legal move here -> to."""
    if here == "LITERATURE_SEARCH" and to == "PROOF_DEVELOPMENT":  # a search that found nothing
        machine.record_search(folder, folder.name, "LIT-001: 0 confirmed references")
    if to == "COMPUTATION":
        complete_proof(folder, PROOF_WITH_REQUEST)
    elif to == "REVIEW":
        complete_proof(folder)
    elif to == "LATEX_OUTPUT":
        passing_review(folder)
    elif to == "DONE":  # the run's tex-only record (the tex_only fixture: no TeX, tex only)
        texbuild.compile_pdf(folder)


@pytest.fixture(autouse=True)
def plugin_data(tmp_path, monkeypatch):
    """The plugin's data folder, where the user's approvals are recorded: this test's own."""
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    monkeypatch.setenv("MATH_PLUGIN_DATA", str(tmp_path / "plugin-data"))


@pytest.fixture
def problem(tmp_path):
    folder = tmp_path / ".math" / "problems" / "twin-primes"
    folder.mkdir(parents=True)
    return folder


def test_the_table_is_the_seeds_diagram():
    legal = {(a, b) for a, moves in stateread.TRANSITIONS.items() for b in moves}
    assert legal == LEGAL


@pytest.mark.parametrize(("here", "to"), ALL_PAIRS)
def test_every_transition_is_allowed_or_refused(problem, here, to, tex_only):
    write_state(problem, here)
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE)  # DONE needs a write-up that checks
    before = (problem / "STATE.md").read_text()
    if (here, to) in LEGAL:
        ground(problem, here, to)
        result = machine.transition(problem, problem.name, to, "because")
        data, body = read_state(problem)
        assert data["current_state"] == to == result["to"]
        assert data["history"][-1].endswith(f"{here} -> {to} (because)")
        assert data["transitions_available"] == list(stateread.TRANSITIONS[to])
        assert "hand-written note" in body
    else:
        with pytest.raises(BadInput) as refused:
            machine.transition(problem, problem.name, to, "because")
        assert refused.value.code == "illegal_transition"
        assert f"{here} -> {to}" in refused.value.message
        assert (problem / "STATE.md").read_text() == before


@pytest.mark.parametrize(
    ("aux", "loop"),
    [("COMPUTATION", "proof-computation"), ("LITERATURE_SEARCH", "proof-literature")],
)
def test_each_pair_loops_three_times_then_asks_the_user(problem, aux, loop):
    write_state(problem, "PROOF_DEVELOPMENT")
    ground(problem, "PROOF_DEVELOPMENT", aux)
    for count in (1, 2, 3):
        machine.transition(problem, problem.name, aux, "needs it")
        ground(problem, aux, "PROOF_DEVELOPMENT")
        machine.transition(problem, problem.name, "PROOF_DEVELOPMENT", "back")
        assert read_state(problem)[0]["loops"][loop] == count
    before = (problem / "STATE.md").read_text()
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, aux, "once more")
    assert refused.value.code == "loop_cap"
    assert "ask" in refused.value.message and "user" in refused.value.message
    assert (problem / "STATE.md").read_text() == before
    other = ({"proof-computation", "proof-literature"} - {loop}).pop()
    assert read_state(problem)[0]["loops"][other] == 0

    # the model's own --user-approved is refused: only the user's typed command grants it
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, aux, "user said go on", user_approved=True)
    assert refused.value.code == "needs_user"
    grant(problem, "continue")
    machine.transition(problem, problem.name, aux, "user said go on", user_approved=True)
    assert not machine.approval_path(problem).exists()  # used up
    data, _ = read_state(problem)
    assert data["loops"][loop] == 4
    assert "approved by the user" in data["history"][-1]


def grant(folder, choice, slug=None):
    """What hooks/user_approval.py writes when the user types /math:research CHOICE, and the
    session's transcript, where Claude Code then writes the command as the user's message."""
    session = "5f0c8f7e-0000-4000-8000-000000000001"
    transcript = folder.parents[2] / ".claude" / "projects" / "-work" / f"{session}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    typed = {
        "type": "user",
        "message": {
            "role": "user",
            "content": "<command-message>math:research</command-message>\n"
            "<command-name>/math:research</command-name>\n"
            f"<command-args>{' '.join(filter(None, (choice, slug)))}</command-args>",
        },
    }
    transcript.write_text(json.dumps(typed) + "\n")
    path = machine.approval_path(folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"choice": choice, "problem": slug, "session": session, "transcript": str(transcript)}
    path.write_text(json.dumps(record))


def test_forward_moves_and_returns_do_not_count_as_loops(problem):
    write_state(problem, "INTAKE")
    ground(problem, "PROOF_DEVELOPMENT", "COMPUTATION")
    for to in ("LITERATURE_SEARCH", "PROOF_DEVELOPMENT", "COMPUTATION", "PROOF_DEVELOPMENT"):
        machine.transition(problem, problem.name, to, "step")
        if to == "LITERATURE_SEARCH":
            ground(problem, to, "PROOF_DEVELOPMENT")
    loops = read_state(problem)[0]["loops"]
    assert loops == {"proof-literature": 0, "proof-computation": 1, "proof-review": 0}


def test_a_missing_state_file_starts_at_intake(problem):
    result = machine.transition(problem, problem.name, "LITERATURE_SEARCH", "problem defined")
    assert result["from"] == "INTAKE"
    data, _ = read_state(problem)
    assert data["problem"] == "twin-primes" and data["current_state"] == "LITERATURE_SEARCH"


def test_hand_added_frontmatter_fields_survive(problem):
    write_state(problem, "INTAKE", note_to_self="ask Terry")
    machine.transition(problem, problem.name, "LITERATURE_SEARCH", "go")
    assert read_state(problem)[0]["note_to_self"] == "ask Terry"


def test_a_broken_state_file_is_bad_input_and_left_alone(problem):
    write_state(problem, "THINKING")
    before = (problem / "STATE.md").read_text()
    with pytest.raises(BadInput, match="THINKING"):
        machine.transition(problem, problem.name, "LITERATURE_SEARCH", "go")
    assert (problem / "STATE.md").read_text() == before


def test_empty_reason_is_refused(problem):
    with pytest.raises(BadInput, match="reason"):
        machine.transition(problem, problem.name, "LITERATURE_SEARCH", "   ")


# --- next: routing on frontmatter only ---


def enter(problem, current, loops=None):
    """STATE.md in `current`, entered one minute ago."""
    entered = time.time() - 60
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(entered)) + "Z"
    write_state(problem, current, loops, entered_at=stamp)


def test_next_at_intake_without_a_problem_asks_for_intake(problem):
    step = router.next_step(problem, problem.name)
    assert step["action"] == "ask_user" and "/math:problem" in step["reason"]


def test_next_at_intake_moves_to_literature(problem):
    write_md(problem, "PROBLEM.md", status="defined")
    step = router.next_step(problem, problem.name)
    assert step["transition"] == {"to": "LITERATURE_SEARCH", "reason": "problem defined"}
    assert step["spawn"] == "math:literature-search"


def test_next_at_intake_after_a_literature_run_spawns_no_second_search(problem):
    """/math:literature before /math:research: the move is recorded, no search agent spawned."""
    write_md(problem, "PROBLEM.md", status="defined")
    write_md(problem, "LITERATURE.md", confirmed_count=2, last_search="2026-01-02")
    step = router.next_step(problem, problem.name)
    assert step["action"] == "transition"
    assert step["transition"]["to"] == "LITERATURE_SEARCH"
    assert "already searched: 2 confirmed" in step["transition"]["reason"]
    assert step["spawn"] is None
    machine.transition(problem, problem.name, "LITERATURE_SEARCH", step["transition"]["reason"])
    step = router.next_step(problem, problem.name)
    assert step["transition"]["to"] == "PROOF_DEVELOPMENT" and step["spawn"] == "math:proof"


def test_next_in_literature_spawns_until_literature_is_written(problem):
    enter(problem, "LITERATURE_SEARCH")
    write_md(problem, "LITERATURE.md", age=3600, confirmed_count=2)  # from an earlier round
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:literature-search")
    write_md(problem, "LITERATURE.md", confirmed_count=5)
    machine.record_merge(problem / "LITERATURE.md", "merge 1a2b")  # what a search's merge writes
    step = router.next_step(problem, problem.name)
    assert step["transition"]["to"] == "PROOF_DEVELOPMENT"
    assert "5 confirmed" in step["transition"]["reason"]
    assert step["spawn"] == "math:proof"


def test_next_on_the_first_visit_takes_a_search_already_made(problem):
    enter(problem, "LITERATURE_SEARCH")
    write_md(problem, "LITERATURE.md", age=3600, confirmed_count=4, last_search="2026-01-02")
    step = router.next_step(problem, problem.name)
    assert step["transition"]["to"] == "PROOF_DEVELOPMENT"
    assert "already searched: 4 confirmed" in step["transition"]["reason"]
    # ...but not when the proof sent us back for more references
    enter(problem, "LITERATURE_SEARCH", loops={"proof-literature": 1})
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:literature-search")


@pytest.mark.parametrize(
    ("fields", "to"),
    [
        ({"status": "gaps-identified", "computation_needed": True}, "COMPUTATION"),
        ({"status": "gaps-identified", "literature_needed": True}, "LITERATURE_SEARCH"),
        ({"status": "complete"}, "REVIEW"),
    ],
)
def test_next_after_a_proof_pass_follows_its_flags(problem, fields, to):
    enter(problem, "PROOF_DEVELOPMENT")
    body = PROOF_WITH_REQUEST
    complete_proof(problem, COMPLETE_PROOF if to == "REVIEW" else body, **fields)
    step = router.next_step(problem, problem.name)
    assert step["action"] == "transition"
    assert step["transition"]["to"] == to
    assert step["spawn"] == router.AGENTS[to]


def test_next_before_the_proof_agent_has_run_ignores_stale_flags(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    write_md(problem, "PROOF.md", age=3600, status="gaps-identified", computation_needed=True)
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"], step["transition"]) == ("spawn", "math:proof", None)


def test_next_with_a_stuck_proof_asks_the_user(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    write_md(problem, "PROOF.md", status="stuck")
    step = router.next_step(problem, problem.name)
    assert step["action"] == "ask_user"
    assert step["options"] == ["continue", "redirect", "accept-partial"]


def test_next_at_the_loop_cap_asks_the_user(problem):
    enter(problem, "PROOF_DEVELOPMENT", loops={"proof-computation": 3})
    body = PROOF_WITH_REQUEST
    complete_proof(problem, body, status="in-progress", computation_needed=True)
    step = router.next_step(problem, problem.name)
    assert step["action"] == "ask_user" and step["transition"] is None
    assert "proof-computation loop at its cap of 3" in step["reason"]


def test_next_at_one_cap_still_takes_the_other_loop(problem):
    enter(problem, "PROOF_DEVELOPMENT", loops={"proof-computation": 3})
    body = PROOF_WITH_REQUEST
    complete_proof(
        problem, body, status="gaps-identified", computation_needed=True, literature_needed=True
    )
    assert router.next_step(problem, problem.name)["transition"]["to"] == "LITERATURE_SEARCH"


def test_next_with_an_unflagged_proof_in_progress_runs_another_pass(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    write_md(problem, "PROOF.md", status="in-progress", computation_needed="false")
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:proof")


def age(path, seconds):
    moment = time.time() - seconds
    os.utime(path, (moment, moment))


def test_a_complete_proof_whose_checks_refute_nothing_goes_to_the_referee(script, problem):
    """Issue 51's play: the proof agent finished the proof and asked for its small-case checks;
    they passed, and a whole proof pass followed only to set `computation_needed` back to false.
    Now the computations go straight on to the referee, unless one refutes a step (then the
    proof agent corrects it) or a request failed."""
    write_state(problem, "PROOF_DEVELOPMENT")
    asking = COMPLETE_PROOF + (
        "\n## Computation Requests\n\n### Request 1: D_n for n <= 8\n"
        "**Purpose:** test Lemma 1 on n = 1..8\n"
    )
    complete_proof(problem, asking, computation_needed=True)
    age(problem / "PROOF.md", 600)
    step = router.advance(problem, problem.name)
    assert (step["state"], step["spawn"]) == ("COMPUTATION", "math:computation")

    def answer_and_interpret(text: str) -> None:
        run = script(
            "compute.py", "run", "-", "--python", sys.executable, "--dir", str(problem),
            "--title", "D_n", "--request", "1", input="print([1, 0, 1, 2, 9])\n",
        )  # fmt: skip
        assert run.returncode == 0, run.stdout
        number = json.loads(run.stdout)["recorded"]["computation"]
        done = script("compute.py", "interpret", str(number), "--text", text, "--dir", str(problem))
        assert done.returncode == 0, done.stdout

    answer_and_interpret("D_1..D_5 = 1, 0, 1, 2, 9 as Lemma 1 gives: this supports Lemma 1.")
    step = router.advance(problem, problem.name)
    assert [m["to"] for m in step["applied"]] == ["PROOF_DEVELOPMENT", "REVIEW"], step
    assert step["spawn"] == "math:referee"
    assert "refute none of its steps" in step["applied"][1]["reason"]
    # the same run refuting Lemma 1: the proof agent gets it back
    write_state(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, asking.replace("### Request 1:", "### Request 2: again\n"
                   "**Purpose:** test Lemma 1 once more\n\n### Request 1:"),
                   computation_needed=True)  # fmt: skip
    age(problem / "PROOF.md", 600)
    assert router.advance(problem, problem.name)["state"] == "COMPUTATION"
    answer_and_interpret("D_3 = 2, not 1: this refutes Lemma 1.")
    run = script(
        "compute.py", "run", "-", "--python", sys.executable, "--dir", str(problem),
        "--title", "again", "--request", "2", input="print(2)\n",
    )  # fmt: skip
    number = json.loads(run.stdout)["recorded"]["computation"]
    script("compute.py", "interpret", str(number), "--text", "as before", "--dir", str(problem))
    step = router.advance(problem, problem.name)
    assert [m["to"] for m in step["applied"]] == ["PROOF_DEVELOPMENT"], step
    assert step["spawn"] == "math:proof"


def test_next_in_computation_takes_answers_recorded_before_the_state_was_entered(script, problem):
    """/math:compute answered PROOF.md's requests before /math:research moved to COMPUTATION. The
    computation agent skips answered requests and writes nothing, so waiting for a COMPUTATION.md
    written in this state would spawn it again and again."""
    proof = problem / "PROOF.md"
    proof.write_text(
        frontmatter.with_frontmatter({"status": "in-progress", "computation_needed": True}, "\n")
        + "## Computation Requests\n\n### Request 1: a sum\n\n### Request 2: a product\n"
    )
    age(proof, 600)

    def answer(request):
        code = f"print({request})\n"
        run = script(
            "compute.py",
            "run",
            "-",
            "--python",
            sys.executable,
            "--dir",
            str(problem),
            "--title",
            f"request {request}",
            "--request",
            str(request),
            input=code,
        )
        assert run.returncode == 0, run.stdout
        age(problem / "COMPUTATION.md", 300)

    answer(1)
    enter(problem, "COMPUTATION")
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:computation")  # Request 2 is open
    answer(2)
    # every request has its run, but no Interpretation is written yet (D10): not ready
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:computation")
    assert "Interpretation of computations 1, 2" in step["task"]
    assert (
        frontmatter.read_frontmatter((problem / "COMPUTATION.md").read_text())["status"]
        == "interpreting"
    )
    for number in (1, 2):
        done = script(
            "compute.py", "interpret", str(number), "--text", "as expected", "--dir", str(problem)
        )
        assert done.returncode == 0, done.stdout
    assert (
        frontmatter.read_frontmatter((problem / "COMPUTATION.md").read_text())["status"]
        == "complete"
    )
    step = router.next_step(problem, problem.name)
    assert step["transition"]["to"] == "PROOF_DEVELOPMENT" and step["spawn"] == "math:proof"
    assert "answers every request (results ready)" in step["reason"]


def test_next_in_latex_output_then_done(problem, tex_only):
    enter(problem, "LATEX_OUTPUT")
    write_md(problem, "PROOF.md", age=600, status="complete")
    step = router.next_step(problem, problem.name)
    assert step["spawn"] == "math:latex-writer"
    # a write-up that fails latex.py check goes back to the writer, with the violations
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE.replace("No claims.", "\\cite{ghost2020}"))
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"], step["transition"]) == (
        "spawn",
        "math:latex-writer",
        None,
    )
    assert "fails latex.py check" in step["reason"]
    assert "unknown_citation" in [v["kind"] for v in step["violations"]]
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE)
    step = router.next_step(problem, problem.name)  # it passes the check, but is not compiled
    assert (step["spawn"], [v["kind"] for v in step["violations"]]) == (
        "math:latex-writer",
        ["not_compiled"],
    )
    texbuild.compile_pdf(problem)  # no TeX, tex only: recorded as such
    step = router.next_step(problem, problem.name)
    assert step["transition"] == {
        "to": "DONE",
        "reason": "OUTPUT.tex written and latex.py check passes",
    }
    assert step["spawn"] is None


@pytest.mark.parametrize(
    ("tex", "needle"),
    [
        (None, "does not exist yet"),
        ("\\section{Notes}\n", "no \\documentclass"),
        (CLEAN_ARTICLE.replace("No claims.", "\\begin{theorem}All is well.\\end{theorem}"), "pf:"),
    ],
    ids=["no-output", "incomplete", "unbacked-theorem"],
)
def test_transition_to_done_is_refused_until_latex_check_passes(problem, tex, needle):
    enter(problem, "LATEX_OUTPUT")
    if tex is not None:
        (problem / "OUTPUT.tex").write_text(tex)
    before = (problem / "STATE.md").read_text()
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "DONE", "written")
    assert refused.value.code == "latex_check_failed"
    assert needle in refused.value.message
    assert (problem / "STATE.md").read_text() == before


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"status": "completed"}, "status: 'completed'"),
        ({"status": "in-progress", "computation_needed": "maybe"}, "computation_needed: 'maybe'"),
        ({"status": "complete", "literature_needed": 1}, "literature_needed: 1"),
        ({}, "status: None"),
    ],
)
def test_next_refuses_to_route_on_bad_proof_md_values(problem, fields, named):
    enter(problem, "PROOF_DEVELOPMENT")
    write_md(problem, "PROOF.md", **fields)
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["transition"], step["spawn"]) == ("ask_user", None, None)
    assert named in step["reason"] and step["options"] == ["redirect"]


def test_next_when_done_says_archive(problem, tex_only):
    enter(problem, "DONE")
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE)
    ground(problem, "LATEX_OUTPUT", "DONE")  # DONE's grounds hold still
    step = router.next_step(problem, problem.name)
    assert step["action"] == "done" and "archive-session" in step["reason"]


# --- archive-session ---


def test_archive_session_snapshots_the_run_and_restarts(problem, tex_only):
    enter(problem, "DONE", loops={"proof-computation": 2})
    for name in ("PROBLEM.md", "JOURNAL.md", "PROOF.md", "COMPUTATION.md"):
        write_md(problem, name, status="complete")
    merging.merge_file(problem / "LITERATURE.md", verification([]))
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE)  # archived as DONE: it passes DONE's checks
    write_md(problem, "references.bib")
    texbuild.compile_pdf(problem)  # no TeX, tex only: recorded as such
    for leftover in ("OUTPUT.aux", "OUTPUT.log", "OUTPUT.bbl", "OUTPUT.fdb_latexmk"):
        write_md(problem, leftover)  # what latex.py compile leaves beside OUTPUT.pdf
    (problem / "computations").mkdir()
    (problem / "computations" / "request-1.py").write_text("print(1)\n")
    first = sessions.archive_session(problem, problem.name)
    snippet = problem / "sessions" / "session-001" / "computations" / "request-1.py"
    assert snippet.read_text() == "print(1)\n" and "computations" in first["moved"]
    assert not (problem / "computations").exists()
    target = problem / "sessions" / "session-001"
    assert first["session"] == "session-001"
    for name in ("PROBLEM.md", "PROOF.md", "OUTPUT.tex", "references.bib", "STATE.md"):
        assert (target / name).exists()
    assert read_state(target)[0]["current_state"] == "DONE"
    # run products moved out, problem files kept
    assert not (problem / "PROOF.md").exists() and not (problem / "OUTPUT.tex").exists()
    assert sorted(path.name for path in problem.glob("OUTPUT.*")) == []
    assert (target / "OUTPUT.log").exists() and "OUTPUT.aux" in first["moved"]
    assert (problem / "LITERATURE.md").exists() and (problem / "JOURNAL.md").exists()
    data, body = read_state(problem)
    assert data["current_state"] == "INTAKE"
    assert data["loops"] == {"proof-literature": 0, "proof-computation": 0, "proof-review": 0}
    assert "sessions/session-001" in data["history"][0]
    assert "hand-written note" in body

    with pytest.raises(BadInput) as refused:
        sessions.archive_session(problem, problem.name)
    assert refused.value.code == "not_done"
    second = sessions.archive_session(problem, problem.name, partial=True)
    assert second["session"] == "session-002" and second["partial"] is True


# --- the script ---


def test_script_uses_the_current_problem_from_the_workspace(problem, script, tmp_path):
    workspace = {"current_problem": "twin-primes", "problems": ["twin-primes"], "archived": []}
    (tmp_path / ".math" / "config.json").write_text(json.dumps(workspace))
    write_md(problem, "PROBLEM.md", status="defined")
    run = script("state.py", "transition", "LITERATURE_SEARCH", "--reason", "problem defined")
    assert run.returncode == 0, run.stdout
    assert run.json()["current_state"] == "LITERATURE_SEARCH"
    shown = script("state.py", "show").json()
    assert shown["files"] == [str(problem / "PROBLEM.md"), str(problem / "STATE.md")]
    assert shown["history"][0].endswith("INTAKE -> LITERATURE_SEARCH (problem defined)")
    assert script("state.py", "next", "--problem", "twin-primes").json()["spawn"] == (
        "math:literature-search"
    )


def test_script_refusals_are_one_json_line(problem, script):
    run = script("state.py", "transition", "DONE", "--reason", "skip", "--dir", str(problem))
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"]["code"] == "illegal_transition"
    run = script("state.py", "show", "--problem", "../etc")
    assert run.returncode == 2 and json.loads(run.stdout)["error"]["code"] == "bad_slug"
    run = script("state.py", "show", "--problem", "nope")
    assert json.loads(run.stdout)["error"]["code"] == "no_workspace"


def test_state_md_has_one_body_whoever_writes_it_first(problem):
    """A STATE.md that state.py creates reads like the one new-problem writes (one template)."""
    machine.transition(problem, problem.name, "LITERATURE_SEARCH", "problem defined")
    from mathtools.core.templates import TEMPLATES

    template = (TEMPLATES / "STATE.md").read_text()
    expected = frontmatter.split_frontmatter(template)[1].replace("{{title}}", problem.name)
    assert read_state(problem)[1] == expected


@pytest.mark.parametrize(
    ("name", "current"),
    [
        ("STATE.md", "PROOF_DEVELOPMENT"),
        ("PROOF.md", "PROOF_DEVELOPMENT"),
        ("LITERATURE.md", "LITERATURE_SEARCH"),
    ],
)
def test_an_artifact_saved_in_another_encoding_is_bad_input_and_left_alone(
    problem, script, name, current
):
    """A hand edit saved as Latin-1: one JSON line naming the file, never an internal error."""
    write_state(problem, current)
    if name != "STATE.md":
        write_md(problem, name, status="draft")
    path = problem / name
    path.write_bytes(path.read_bytes() + "Gödel\n".encode("latin-1"))
    before = path.read_bytes()
    run = script("state.py", "next", "--dir", str(problem))
    assert run.returncode == 2, run.stdout
    assert run.json()["error"]["code"] == "unreadable" and name in run.stdout
    assert path.read_bytes() == before


def test_a_state_md_with_a_byte_order_mark_reads_as_without(problem):
    write_state(problem, "COMPUTATION")
    path = problem / "STATE.md"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert stateread.show_state(problem, problem.name)["current_state"] == "COMPUTATION"


def test_advance_records_every_move_that_needs_no_agent(problem):
    """/math:literature ran first: one call moves INTAKE -> LITERATURE_SEARCH ->
    PROOF_DEVELOPMENT and names the proof agent with its task."""
    write_md(problem, "PROBLEM.md", status="defined")
    write_md(problem, "LITERATURE.md", confirmed_count=3, last_search="2026-01-02")
    step = router.advance(problem, problem.name)
    assert [move["to"] for move in step["applied"]] == ["LITERATURE_SEARCH", "PROOF_DEVELOPMENT"]
    assert (step["action"], step["spawn"], step["state"]) == (
        "spawn",
        "math:proof",
        "PROOF_DEVELOPMENT",
    )
    assert step["task"] == "Develop a proof of the problem in PROOF.md."
    assert "PROOF.md not written since" in step["reason"]  # the router's reason stays apart
    history = read_state(problem)[0]["history"]
    assert len(history) == 2 and history[-1].endswith(
        "literature already searched: 3 confirmed references)"
    )


def test_advance_stops_at_a_question_and_makes_no_move(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    write_md(problem, "PROOF.md", status="stuck")
    step = router.advance(problem, problem.name)
    assert step["action"] == "ask_user" and step["applied"] == []


def test_the_literature_agent_sent_back_by_the_proof_is_asked_for_the_gaps(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    write_md(problem, "PROOF.md", status="gaps-identified", literature_needed=True)
    step = router.advance(problem, problem.name)
    assert step["spawn"] == "math:literature-search" and step["state"] == "LITERATURE_SEARCH"
    assert "reference-needed gaps" in step["task"]
    assert f"discover {problem.name} --gap" in step["task"]  # the next unsearched gap, marked
    assert "literature_needed" not in step["task"]


def test_record_search_moves_out_of_intake_or_notes_the_search(problem):
    write_md(problem, "PROBLEM.md", status="defined")
    assert machine.record_search(problem, problem.name, "LIT-001: 2 confirmed") == (
        "LITERATURE_SEARCH"
    )
    enter(problem, "PROOF_DEVELOPMENT")
    assert machine.record_search(problem, problem.name, "LIT-002: 3 confirmed") == (
        "PROOF_DEVELOPMENT"
    )
    data = read_state(problem)[0]
    assert data["current_state"] == "PROOF_DEVELOPMENT"
    assert data["history"][-1].endswith(
        "PROOF_DEVELOPMENT: literature search (LIT-002: 3 confirmed)"
    )


def test_record_search_leaves_a_draft_problem_in_intake(problem):
    write_md(problem, "PROBLEM.md", status="draft")
    assert machine.record_search(problem, problem.name, "LIT-001: 0 confirmed") == "INTAKE"


def test_transition_to_the_proof_obeys_the_rule_advance_does(problem):
    """The walk-around: `state.py transition PROOF_DEVELOPMENT` was accepted on a fresh problem
    with no search at all. Now it needs what `next` needs: a search recorded in this visit (one
    that found nothing too), a search the user already made, or the user's approval."""
    write_md(problem, "PROBLEM.md", status="defined")
    machine.transition(problem, problem.name, "LITERATURE_SEARCH", "problem defined")
    before = (problem / "STATE.md").read_text()
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "PROOF_DEVELOPMENT", "skip the search")
    assert refused.value.code == "no_search"
    assert (problem / "STATE.md").read_text() == before
    assert router.next_step(problem, problem.name)["spawn"] == "math:literature-search"
    grant(problem, "continue")  # the user typed /math:research continue
    machine.transition(problem, problem.name, "PROOF_DEVELOPMENT", "no search", user_approved=True)
    assert read_state(problem)[0]["current_state"] == "PROOF_DEVELOPMENT"


def test_a_search_that_found_nothing_moves_the_loop_on(problem):
    """An empty search (finish records `LIT-001: 0 confirmed`) is an outcome, not a reason to
    spawn the search agent again."""
    enter(problem, "LITERATURE_SEARCH", loops={"proof-literature": 1})
    write_md(problem, "LITERATURE.md", confirmed_count=0, last_search="2026-01-02")
    assert router.next_step(problem, problem.name)["spawn"] == "math:literature-search"
    machine.record_search(problem, problem.name, "LIT-002: 0 confirmed references")
    step = router.advance(problem, problem.name)
    assert step["applied"] == [
        {"to": "PROOF_DEVELOPMENT", "reason": "literature search done: no prior work found"}
    ]
    assert step["spawn"] == "math:proof"


def test_advance_prints_one_line_without_empty_fields_and_history_only_where_the_loop_stops(
    script, problem
):
    """The orchestrator reads `advance` at every turn: one line of JSON, no null or empty field
    nor the cap it knows, no `flags` (the reason says what they decided); the history and the
    loop counts (for its report and the user) only at a question or at DONE, since at a spawn
    `applied` names the moves just made."""
    write_md(problem, "PROBLEM.md", status="defined")
    write_md(problem, "LITERATURE.md", confirmed_count=3, last_search="2026-01-02")
    spawn = script("state.py", "advance", "--dir", str(problem))
    assert spawn.returncode == 0 and spawn.stdout.count("\n") == 1
    step = json.loads(spawn.stdout)
    assert step["action"] == "spawn" and len(step["applied"]) == 2
    assert not {"history", "loop_cap", "transition", "options", "flags", "loops"} & set(step)
    assert None not in step.values() and [] not in step.values()
    assert "flags" in json.loads(script("state.py", "next", "--dir", str(problem)).stdout)
    write_md(problem, "PROOF.md", status="stuck")
    time.sleep(0.01)
    asked = json.loads(script("state.py", "advance", "--dir", str(problem)).stdout)
    assert asked["action"] == "ask_user" and asked["options"] and "flags" not in asked
    assert asked["history"] == read_state(problem)[0]["history"] and "applied" not in asked
    assert asked["loops"] == read_state(problem)[0]["loops"]

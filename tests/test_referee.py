"""The referee (REVIEW.md, review.py) in the state machine, and the walk-arounds of the
derangements run (D2-D10), each closed: every test here failed before its refusal existed."""

from __future__ import annotations

import json
import re
import time

import pytest
import test_state
from mathtools.core import frontmatter
from mathtools.core.errors import BadInput
from mathtools.research import computation, review, router, sessions, texbuild, texcheck
from mathtools.research import statechanges as machine
from support.standin import PLUGIN
from test_state import (
    CLEAN_ARTICLE,
    COMPLETE_PROOF,
    PASSING_REVIEW,
    PROOF_WITH_REQUEST,
    complete_proof,
    enter,
    grant,
    passing_review,
    read_state,
    write_state,
)
from test_user_approval import user_types

# test_state's fixtures: a problem folder, and a plugin data folder of the test's own.
plugin_data = test_state.plugin_data
problem = test_state.problem


def later():
    time.sleep(0.02)  # a file written now is newer than the state's entry


# --- the referee in the state machine ---


def test_a_complete_proof_goes_to_the_referee_not_to_the_writer(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem)
    step = router.advance(problem, problem.name)
    assert step["applied"][-1]["to"] == "REVIEW"
    assert step["spawn"] == "math:referee"


def test_a_passing_review_goes_to_the_writer_and_gives_p_to_proved_steps(problem):
    enter(problem, "REVIEW")
    complete_proof(problem)
    later()
    sealed = passing_review(problem)
    assert sealed["verdict"] == "pass" and sealed["proved"] == ["Lemma 1", "Main Theorem"]
    proof = (problem / "PROOF.md").read_text()
    assert proof.count("**Confidence:** [P]") == 2
    step = router.advance(problem, problem.name)
    assert step["applied"][-1]["to"] == "LATEX_OUTPUT" and step["spawn"] == "math:latex-writer"


def test_a_step_resting_on_a_computation_stays_supported(problem):
    body = COMPLETE_PROOF.replace("**Depends on:** none", "**Depends on:** Computation 1")
    complete_proof(problem, body)
    sealed = passing_review(problem)
    assert sealed["proved"] == []  # Lemma 1 rests on a computation; Main Theorem on Lemma 1
    assert "[P]" not in (problem / "PROOF.md").read_text()


def test_a_gap_sends_the_proof_back_counting_a_loop(problem):
    enter(problem, "REVIEW")
    complete_proof(problem)
    later()
    (problem / "REVIEW.md").write_text(
        PASSING_REVIEW.replace(
            "### Lemma 1\n**Verdict:** checked",
            "### Lemma 1\n**Verdict:** gap\n**Note:** the k = n term is not accounted for",
        )
    )
    assert review.seal(problem, problem.name)["verdict"] == "revise"
    step = router.advance(problem, problem.name)
    assert step["applied"][-1]["to"] == "PROOF_DEVELOPMENT" and step["spawn"] == "math:proof"
    assert "REVIEW.md" in step["task"]
    assert read_state(problem)[0]["loops"]["proof-review"] == 1


def test_the_review_loop_is_capped(problem):
    enter(problem, "REVIEW", loops={"proof-review": 3})
    complete_proof(problem)
    later()
    (problem / "REVIEW.md").write_text(
        PASSING_REVIEW.replace(
            "**Verdict:** checked\n\nInclusion",
            "**Verdict:** wrong\n**Note:** n!/e is not an integer\n\nInclusion",
        )
    )
    review.seal(problem, problem.name)
    step = router.advance(problem, problem.name)
    assert step["action"] == "ask_user" and "proof-review loop at its cap" in step["reason"]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (PASSING_REVIEW.split("### Main")[0], "no verdict for Main Theorem"),
        (PASSING_REVIEW.replace("checked\n\nInclusion", "gap\n\nInclusion"), "needs a **Note:**"),
        (
            PASSING_REVIEW.replace(
                "**Sources:** REF-001 (Theorem 1): hypotheses hold - the terms decrease to 0\n", ""
            ),
            "rests on REF-001",
        ),
        (PASSING_REVIEW.replace("hypotheses hold", "hypotheses fail"), "hypotheses fail"),
    ],
    ids=["missing-step", "gap-without-note", "ref-unchecked", "ref-fails-but-checked"],
)
def test_an_incomplete_review_is_refused(problem, text, needle):
    complete_proof(problem)
    (problem / "REVIEW.md").write_text(text)
    with pytest.raises(BadInput) as refused:
        review.seal(problem, problem.name)
    assert refused.value.code == "bad_review" and needle in refused.value.message


def test_latex_output_is_refused_without_a_review_that_checks_every_step(problem):
    enter(problem, "REVIEW")
    complete_proof(problem)
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "LATEX_OUTPUT", "looks fine")
    assert refused.value.code == "not_reviewed"
    # a hand-set verdict counts for nothing
    (problem / "REVIEW.md").write_text(
        frontmatter.with_frontmatter({"verdict": "pass"}, "\n### Lemma 1\n**Verdict:** checked\n")
    )
    with pytest.raises(BadInput, match="not sealed"):
        machine.transition(problem, problem.name, "LATEX_OUTPUT", "looks fine")
    # nor does a review of an earlier PROOF.md
    passing_review(problem)
    (problem / "PROOF.md").write_text((problem / "PROOF.md").read_text() + "\nmore\n")
    with pytest.raises(BadInput, match=r"not sealed on the PROOF\.md there now"):
        machine.transition(problem, problem.name, "LATEX_OUTPUT", "looks fine")


def test_a_theorem_the_referee_did_not_check_fails_the_latex_check(problem):
    complete_proof(problem)
    (problem / "REVIEW.md").write_text(
        PASSING_REVIEW.replace("checked\n\nInclusion", "gap\n**Note:** why\n\nInclusion")
    )
    review.seal(problem, problem.name)
    tex = CLEAN_ARTICLE.replace(
        "No claims.", "\\begin{lemma}\\label{pf:lemma-1}Inclusion-exclusion.\\end{lemma}"
    )
    (problem / "OUTPUT.tex").write_text(tex)
    kinds = [v["message"] for v in texcheck.check_folder(problem)[1]]
    assert any("not checked by the referee" in m for m in kinds)


# --- D2: a [V] step resting on an unconfirmed reference ---


def test_d2_a_step_on_a_uref_is_no_theorem_and_no_complete_proof(problem):
    body = COMPLETE_PROOF.replace(
        "Lemma 1, REF-001\n**Confidence:** [S]", "Lemma 1, UREF-001\n**Confidence:** [V]"
    )
    complete_proof(problem, body)
    assert any("UREF-001" in e for e in review.completeness_errors(body))
    tex = CLEAN_ARTICLE.replace(
        "No claims.", "\\begin{theorem}\\label{pf:main-theorem}$D_n$ is nearest.\\end{theorem}"
    )
    violations = texcheck.check(tex, None, set(), body)
    assert violations and "UREF-001" in violations[0]["message"]
    enter(problem, "PROOF_DEVELOPMENT")
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "REVIEW", "complete")
    assert refused.value.code == "proof_incomplete"


# --- D3: a hand-written bibliography ---


def test_d3_a_hand_written_bibliography_fails_the_check():
    tex = CLEAN_ARTICLE.replace(
        "No claims.",
        "As Hassani [1] shows.\n\\begin{thebibliography}{9}\\bibitem{h} M. Hassani, "
        "Derangements.\\end{thebibliography}",
    )
    kinds = [v["kind"] for v in texcheck.check(tex, None, set(), None)]
    assert kinds == ["hand_bibliography"]


# --- D4: computation_needed with nothing to compute ---


def test_d4_computation_needed_without_a_request_spawns_no_computation(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, status="in-progress", computation_needed=True)
    step = router.advance(problem, problem.name)
    assert step["action"] == "ask_user" and step["applied"] == []
    assert "no `### Request N`" in step["reason"]
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "COMPUTATION", "flag says so")
    assert refused.value.code == "no_request"


# --- D5: a "complete" proof with a blocked step and an open gap ---


def test_d5_complete_with_a_blocked_step_and_an_open_gap_goes_nowhere(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    body = COMPLETE_PROOF.replace(
        "**Status:** complete\n**Depends on:** Lemma 1, REF-001\n**Confidence:** [S]",
        "**Status:** blocked\n**Depends on:** Lemma 1, REF-001\n**Confidence:** [~]",
    ) + (
        "\n## Gaps\n\n### Gap 1: the error term\n**Type:** reference-needed\n"
        "**Blocking:** Main Theorem\n**Suggested resolution:** alternating series bound\n"
    )
    complete_proof(problem, body)
    step = router.advance(problem, problem.name)
    assert step["applied"] == [] and step["spawn"] == "math:proof"
    for needle in ("Main Theorem is blocked", "marked [~]", "Gap 1 is open"):
        assert needle in step["task"]
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "REVIEW", "complete")
    assert refused.value.code == "proof_incomplete"
    # a resolved gap and an abandoned step are the proof agent's way out
    fixed = body.replace("**Status:** blocked", "**Status:** abandoned").replace(
        "**Suggested resolution:** alternating series bound\n",
        "**Suggested resolution:** alternating series bound\n**Resolved:** Lemma 1 suffices\n",
    )
    assert review.completeness_errors(fixed) == []


# --- D6: only the user approves a move past a cap ---


def test_d6_the_models_own_user_approved_is_refused(problem, script):
    write_state(problem, "PROOF_DEVELOPMENT", loops={"proof-computation": 3})
    complete_proof(problem, PROOF_WITH_REQUEST)
    run = script(
        "state.py",
        "transition",
        "COMPUTATION",
        "--reason",
        "the user approved",
        "--user-approved",
        "--dir",
        str(problem),
    )
    assert run.returncode == 2 and run.json()["error"]["code"] == "needs_user"


def test_d6_the_user_typing_continue_is_recorded_by_the_hook_and_used_once(problem):
    write_state(problem, "PROOF_DEVELOPMENT", loops={"proof-computation": 3})
    complete_proof(
        problem,
        PROOF_WITH_REQUEST,
        status="in-progress",
        computation_needed=True,
    )
    workspace = problem.parent.parent.parent
    user_types(workspace, f"/math:research continue {problem.name}")
    assert machine.pending_grant(problem, problem.name) == "continue"
    # outside the workspace: no Write of the model's inside the project reaches it
    assert problem.parent.parent not in machine.approval_path(problem).parents  # not in .math
    later()
    (problem / "PROOF.md").touch()
    step = router.advance(problem, problem.name)
    assert step["applied"][0]["to"] == "COMPUTATION" and step["applied"][0]["user_approved"]
    assert "approved by the user" in read_state(problem)[0]["history"][-1]
    assert machine.pending_grant(problem, problem.name) is None
    # a prompt that is not the user's continue records nothing
    user_types(workspace, "please continue the research")
    assert machine.pending_grant(problem, problem.name) is None


def test_hooks_json_runs_the_approval_hook_on_user_prompts():
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]
    (entry,) = hooks["UserPromptSubmit"]
    assert "user_approval.py" in entry["hooks"][0]["command"]


# --- D7: a hand-edited STATE.md ---


def test_d7_a_hand_edited_state_is_refused_and_not_archived(problem):
    enter(problem, "LATEX_OUTPUT")
    path = problem / "STATE.md"
    path.write_text(path.read_text().replace("current_state: LATEX_OUTPUT", "current_state: DONE"))
    with pytest.raises(BadInput) as refused:
        router.advance(problem, problem.name)
    assert refused.value.code == "state_tampered"
    with pytest.raises(BadInput) as refused:
        sessions.archive_session(problem, problem.name)
    assert refused.value.code == "state_tampered"


def test_d7_a_done_run_without_output_tex_is_not_archived(problem):
    write_state(problem, "DONE")
    with pytest.raises(BadInput) as refused:
        sessions.archive_session(problem, problem.name)
    assert refused.value.code == "not_done" and "OUTPUT.tex" in refused.value.message


# --- D10: COMPUTATION.md ---


def test_d10_a_request_proof_md_does_not_make_is_refused(problem, script):
    complete_proof(problem, PROOF_WITH_REQUEST)
    with pytest.raises(BadInput) as refused:
        computation.check_recordable(problem, 7)
    assert refused.value.code == "unknown_request" and "Request 7" in refused.value.message
    computation.check_recordable(problem, 1)


def test_d10_the_status_covers_every_run_and_waits_for_the_interpretation(problem):
    result = {
        "exit_code": 0, "signal": None, "outcome": "ok", "wall_time_s": 0.1, "stdout": "1\n",
        "stderr": "", "truncated": {"stdout": False},
        "isolation": {"network": "none", "memory": "rlimit", "processes": "capped",
                      "files": "x", "filesystem": "landlock"},
        "limits": {"timeout_s": 60, "memory_mb": 512}, "environment": {},
    }  # fmt: skip
    failed = {**result, "exit_code": 1, "outcome": "error"}
    computation.record_computation(problem, "d", "print(1)", failed, "first", request=1)
    computation.record_computation(problem, "d", "print(2)", result, "second", request=2)
    data = frontmatter.read_frontmatter((problem / "COMPUTATION.md").read_text())
    assert data["status"] == "interpreting"  # not complete before the Interpretation
    computation.interpret(problem, 1, "the sum is off by one")
    computation.interpret(problem, 2, "as expected")
    data = frontmatter.read_frontmatter((problem / "COMPUTATION.md").read_text())
    assert data["status"] == "error"  # Request 1's run failed, though the last one did not
    assert computation.failed_requests(problem) == [1]


# --- the smaller defects ---


def test_bibtex_finding_no_citation_is_reported(problem):
    (problem / "OUTPUT.blg").write_text(
        "This is BibTeX, Version 0.99d\nThe top-level auxiliary file: OUTPUT.aux\n"
        "I found no \\citation commands---while reading file OUTPUT.aux\n"
        "(There was 1 error message)\n"
    )
    (warning,) = texbuild.bibtex_warnings(problem)
    assert warning.startswith("I found no \\citation commands") and "cite" in warning


def test_with_latex_installed_done_waits_for_the_pdf(
    problem, tmp_path, monkeypatch, path_without_tex, needs_pdftotext
):
    """TeX installed after a run without it: the next run compiles before it is DONE; a PDF
    written by hand is not one compiled (a stand-in pdflatex, synthesized)."""
    tools = tmp_path / "bin"
    tools.mkdir()
    fake = tools / "pdflatex"
    fake.write_text("#!/bin/sh\nprintf '%%PDF-1.5\\n' > OUTPUT.pdf\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{path_without_tex}")
    enter(problem, "LATEX_OUTPUT")
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE)
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "DONE", "written")
    assert "not compiled by latex.py compile" in refused.value.message
    later()
    (problem / "OUTPUT.pdf").write_bytes(b"%PDF-1.5\n")
    with pytest.raises(BadInput):
        machine.transition(problem, problem.name, "DONE", "written")
    assert texbuild.compile_pdf(problem)["compiled"] is True
    machine.transition(problem, problem.name, "DONE", "written")


def test_the_output_template_breaks_long_code_lines():
    template = (PLUGIN / "templates" / "OUTPUT.tex").read_text()
    assert "breaklines=true" in template
    writer = (PLUGIN / "agents" / "latex-writer.md").read_text()
    assert "lstlisting" in writer and "never `verbatim`" in writer


def test_no_lock_file_is_left_in_the_problem_folder(problem):
    complete_proof(problem)
    (problem / "REVIEW.md").write_text(PASSING_REVIEW)
    review.seal(problem, problem.name)
    assert not list(problem.glob("*.lock"))


# --- the three ambiguities ---


def test_math_intake_names_as_many_domains_as_it_lists():
    from mathtools.core.domains import DOMAINS

    text = (PLUGIN / "agents" / "math-intake.md").read_text()
    listed = text.split("exactly one of", 1)[1].split("fits.", 1)[0]
    names = {name for name in re.findall(r"`([a-z-]+)`", listed)}
    assert names == {*DOMAINS, "other"}
    assert f"{len(names)} values" in text or "eighteen values" in text
    assert "ten values" not in text and "seventeen values" not in text


def test_the_proof_runbook_keeps_the_tiers_warning_block_verbatim():
    tiers = (PLUGIN / "protocols" / "confidence-tiers.md").read_text()
    block = tiers.split("Agents copy it verbatim:", 1)[1].split("```markdown\n", 1)[1]
    block = block.split("```", 1)[0]
    assert block in (PLUGIN / "templates" / "PROOF.md").read_text()
    proof = (PLUGIN / "protocols" / "proof-format.md").read_text()  # the brief prints it
    assert "Warning: unverified steps" not in proof and "verbatim" in proof


def test_the_proof_runbook_says_how_to_abandon_a_step_and_resolve_a_gap():
    proof = (PLUGIN / "protocols" / "proof-format.md").read_text()  # the brief prints it
    assert "abandoned" in proof and "**Resolved:**" in proof
    template = (PLUGIN / "templates" / "PROOF.md").read_text()
    assert "**Resolved:**" in template


def test_a_p_the_review_does_not_stand_behind_goes_back_to_s(problem):
    complete_proof(problem)
    passing_review(problem)
    assert (problem / "PROOF.md").read_text().count("[P]") == 2
    (problem / "REVIEW.md").write_text(
        PASSING_REVIEW.replace("checked\n\nInclusion", "gap\n**Note:** why\n\nInclusion")
    )
    sealed = review.seal(problem, problem.name)
    assert sealed["verdict"] == "revise" and sealed["unproved"] == ["Lemma 1", "Main Theorem"]
    assert "[P]" not in (problem / "PROOF.md").read_text()


def test_accept_partial_typed_by_the_user_writes_up_only_checked_steps(problem):
    enter(problem, "PROOF_DEVELOPMENT", loops={"proof-computation": 3})
    complete_proof(
        problem,
        PROOF_WITH_REQUEST,
        status="in-progress",
        computation_needed=True,
    )
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "LATEX_OUTPUT", "partial", user_approved=True)
    assert refused.value.code == "needs_user"
    grant(problem, "accept-partial")
    step = router.advance(problem, problem.name)
    assert step["applied"][-1]["to"] == "LATEX_OUTPUT" and step["spawn"] == "math:latex-writer"
    assert "partial results, accepted by the user" in read_state(problem)[0]["history"][-1]
    later()
    tex = CLEAN_ARTICLE.replace(
        "No claims.", "\\begin{lemma}\\label{pf:lemma-1}Inclusion-exclusion.\\end{lemma}"
    )
    (problem / "OUTPUT.tex").write_text(tex)
    with pytest.raises(BadInput, match="not checked by the referee"):
        machine.transition(problem, problem.name, "DONE", "written")

"""The referee's pass carries its reasons, only the seal gives [P], `\\proved` is a sealed [P]
step, and no heading depth or section name hides a step or a gap (issue 36, items 2 and 4).

The proof is the tournament run's: every tournament has a Hamiltonian path, their number is odd
(Rédei, REF-001), and the false "Lemma 5: h(T) <= n" that the proof agent marked [P] itself on a
computation up to n = 6. Every test here failed on the code before issue 36.
"""

from __future__ import annotations

import re
import sys
import time

import pytest
import test_state
from conftest import run_script
from mathtools.core import frontmatter, stamp
from mathtools.core.errors import BadInput
from mathtools.research import brief, computation, reasons, review, router, smallcases, texcheck
from mathtools.research import statechanges as machine
from support import tournament as t
from test_state import CLEAN_ARTICLE, complete_proof, enter, grant

plugin_data = test_state.plugin_data
problem = test_state.problem

LEMMA_1 = """### Lemma 1: every tournament $T$ on $n$ vertices has a Hamiltonian path
**Status:** complete
**Depends on:** none
**Confidence:** [S]

Induct on $n$. Remove a vertex $v$ and take a Hamiltonian path $v_1 \\to \\dots \\to v_{n-1}$ of
$T - v$. If $v \\to v_1$, put $v$ first; otherwise insert $v$ before the least $v_i$ with
$v \\to v_i$, or put it last when there is none.
"""
LEMMA_5 = """### Lemma 5: $h(T) \\le n$ for every tournament $T$ on $n$ vertices
**Status:** complete
**Depends on:** Computation 1
**Confidence:** [P]

Computation 1 gives $h(T) \\le n$ for every $n \\le 6$, and the pattern continues.
"""
MAIN = """### Main Theorem
**Status:** complete
**Depends on:** Lemma 1, REF-001
**Confidence:** [S]

By Lemma 1 the number $h(T)$ of Hamiltonian paths of $T$ is at least one; REF-001 (Rédei)
says it is odd.
"""
PROOF = f"# Proof Development: tournaments\n\n## Proof Structure\n\n{LEMMA_1}\n{LEMMA_5}\n{MAIN}"

BARE_REVIEW = """# Referee Report

### Lemma 1
**Verdict:** checked

### Lemma 5
**Verdict:** checked

Looks fine.

### Main Theorem
**Verdict:** checked
**Sources:** REF-001 (Theorem 1): hypotheses hold - T is a tournament

I checked this step carefully and it is correct.
"""
# What a referee who read the steps writes.
SAID = {
    "Lemma 1": "The insertion: if $v$ beats $v_1$ it goes first; otherwise the least $i$ with "
    "$v \\to v_i$ has $v_{i-1} \\to v$, so $v$ fits between them; if $v$ beats nobody it goes "
    "last. The induction on $n$ starts at one vertex.",
    "Lemma 5": "Computation 1 lists h(T) for the tournaments with n <= 6; the step claims the "
    "bound for every n because the pattern continues from six values: finite evidence only.",
    "Main Theorem": "Lemma 1 gives at least one Hamiltonian path, and Rédei's theorem (REF-001) "
    "that their number h(T) is odd; the two together are the claim.",
}
# Why a step's claim is not tested by a run (each checked step gives a run or a reason).
UNTESTABLE = "**Not computable:** a claim for every $n$, which no finite run settles\n"
REVIEW = f"""# Referee Report

### Lemma 1
**Verdict:** checked
{UNTESTABLE}
{SAID["Lemma 1"]}

### Lemma 5
**Verdict:** checked
{UNTESTABLE}
{SAID["Lemma 5"]}

### Main Theorem
**Verdict:** checked
**Sources:** REF-001 (Theorem 1): hypotheses hold - T is a tournament
{UNTESTABLE}
{SAID["Main Theorem"]}
"""


def sealed_proof(folder, proof=PROOF, review_text=REVIEW):
    complete_proof(folder, proof)
    (folder / "REVIEW.md").write_text(review_text)
    return review.seal(folder, folder.name)


def article(body):
    return CLEAN_ARTICLE.replace(
        "\\documentclass{article}\n",
        "\\documentclass{article}\n\\newtheorem{lemma}{Lemma}\n\\newtheorem{theorem}{Theorem}\n"
        "\\newcommand{\\proved}{\\textsuperscript{[P]}}\n",
    ).replace("No claims.", body)


# --- the referee's pass carries its reasons ---


def test_a_bare_verdict_review_is_refused_naming_each_step(problem):
    complete_proof(problem, PROOF)
    (problem / "REVIEW.md").write_text(BARE_REVIEW)
    with pytest.raises(BadInput) as refused:
        review.seal(problem, problem.name)
    message = refused.value.message
    assert refused.value.code == "bad_review" and "\n" not in message
    for step in ("Lemma 1: a checked verdict needs", "Lemma 5: a checked verdict needs"):
        assert step in message
    assert "Main Theorem: what you checked names none of the step's content" in message
    assert "[P]" in (problem / "PROOF.md").read_text()  # nothing was sealed
    assert "verdict" not in frontmatter.read_frontmatter((problem / "REVIEW.md").read_text())


@pytest.mark.parametrize(
    "said",
    [
        "",
        "checked",
        "Looks fine.",
        "I checked this step carefully and it is correct.",
        "Every inference here follows; I verified each line of the argument and it holds.",
        "Lemma 1 is correct: I checked Lemma 1 and Lemma 1 follows as stated.",
    ],
)
def test_boilerplate_names_none_of_the_step(said):
    block = f"### Lemma 1\n**Verdict:** checked\n\n{said}\n"
    assert reasons.missing("Lemma 1", LEMMA_1, block) is not None


@pytest.mark.parametrize(
    ("step", "said"),
    [
        (LEMMA_1, SAID["Lemma 1"]),
        (
            LEMMA_1,
            "Insertion: v goes before the first v_i it beats, or last; the induction on n "
            "is sound.",
        ),
        (LEMMA_5, SAID["Lemma 5"]),
        (MAIN, SAID["Main Theorem"]),
        (
            "### Step 2: the small cases agree\n**Status:** complete\n**Depends on:** "
            "Computation 1\n**Confidence:** [S]\n\n$D_n = \\mathrm{round}(n!/e)$ for "
            "$1 \\le n \\le 20$ (Computation 1).\n",
            "Computation 1's output shows 20 matches; the step claims no more than n <= 20.",
        ),
        (  # the step's \binom is the referee's "binomial"
            "### Lemma 3: $\\sum_{k=0}^n \\binom{n}{k} = 2^n$\n**Status:** complete\n\n"
            "Expand $(1+1)^n$.\n",
            "The binomial theorem at x = y = 1 expands (1+1)^n term by term.",
        ),
        (  # a step with no text of its own: the referee's account needs only its own content
            "### Main Theorem\n**Status:** complete\n**Depends on:** Lemma 1, Lemma 2\n",
            "Lemma 1 writes $D_n$ as the partial sum and Lemma 2 puts it within 1/2 of $n!/e$.",
        ),
    ],
)
def test_a_referees_account_of_the_step_passes(step, said):
    name = step.split("\n", 1)[0].removeprefix("### ").split(":")[0]
    assert reasons.missing(name, step, f"### {name}\n**Verdict:** checked\n\n{said}\n") is None


def test_a_gap_or_wrong_verdict_needs_its_note(problem):
    complete_proof(problem, PROOF)
    text = REVIEW.replace(
        f"**Verdict:** checked\n{UNTESTABLE}\nComputation 1", "**Verdict:** wrong\n\nx"
    )
    (problem / "REVIEW.md").write_text(text)
    with pytest.raises(BadInput, match=r"Lemma 5: a wrong verdict needs a \*\*Note:\*\*"):
        review.seal(problem, problem.name)


# --- only the seal gives [P] ---


def test_the_seal_takes_an_agents_p_from_a_step_on_a_computation(problem):
    """The proof agent marked Lemma 5 [P] itself, resting on a computation up to n = 6: a pass
    with reasons leaves it [S], and REVIEW.md records the [P] it gave, with each step's digest."""
    sealed = sealed_proof(problem)
    assert sealed["verdict"] == "pass"
    assert sealed["proved"] == ["Lemma 1", "Main Theorem"] and sealed["unproved"] == ["Lemma 5"]
    proof = (problem / "PROOF.md").read_text()
    assert "Lemma 5: $h(T) \\le n$" in proof
    assert proof.split("### Lemma 5")[1].split("### Main")[0].count("[S]") == 1
    record = frontmatter.read_frontmatter((problem / "REVIEW.md").read_text())["proved"]
    steps = {step.name: step for step in review.steps(proof)}
    assert record == {
        name: review.digest(steps[name].text.rstrip()) for name in ("Lemma 1", "Main Theorem")
    }
    assert review.proved_labels(problem) == {"pf:lemma-1", "pf:main-theorem"}


def test_a_p_the_seal_did_not_give_is_refused_on_the_way_to_review(problem):
    enter(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, PROOF)
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "REVIEW", "complete")
    assert refused.value.code == "proof_incomplete"
    assert "Lemma 5 is marked [P], which only review.py seal gives" in refused.value.message
    step = router.next_step(problem, problem.name)
    assert step["spawn"] == "math:proof" and "Lemma 5 is marked [P]" in step["task"]


def test_an_agents_p_is_refused_by_accept_partial_and_by_latex_check(problem, script):
    enter(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, PROOF, status="in-progress")
    grant(problem, "accept-partial")
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "LATEX_OUTPUT", "partial", user_approved=True)
    assert refused.value.code == "unsealed_proved" and "Lemma 5" in refused.value.message
    (problem / "OUTPUT.tex").write_text(article("No claims."))
    run = script("latex.py", "check", "--dir", str(problem))
    assert run.returncode == 1
    (violation,) = run.json()["violations"]
    assert violation["kind"] == "unsealed_proved" and "Lemma 5" in violation["message"]


def test_a_p_whose_step_changed_after_the_seal_is_refused(problem):
    sealed_proof(problem)
    enter(problem, "LATEX_OUTPUT")
    path = problem / "PROOF.md"
    path.write_text(path.read_text().replace("says it is odd.", "says it is odd, for all n."))
    (problem / "OUTPUT.tex").write_text(article("No claims."))
    kinds = {v["kind"]: v["message"] for v in texcheck.check_folder(problem)[1]}
    assert (
        "Main Theorem is marked [P], but the step changed after the seal"
        in (kinds["unsealed_proved"])
    )
    with pytest.raises(BadInput, match="changed after the seal"):
        machine.transition(problem, problem.name, "DONE", "written")


def test_a_hand_set_p_with_a_recomputed_digest_is_refused(problem):
    """The walk-around: set [P] on Lemma 5 by hand and recompute REVIEW.md's proof_sha256."""
    sealed_proof(problem)
    path = problem / "PROOF.md"
    proof = path.read_text()
    forged = proof.replace("**Depends on:** Computation 1\n**Confidence:** [S]", "**Depends on:** "
                           "Computation 1\n**Confidence:** [P]")  # fmt: skip
    assert forged != proof
    path.write_text(forged)
    data, body = frontmatter.split_frontmatter((problem / "REVIEW.md").read_text())
    data["proof_sha256"] = review.digest(forged)
    (problem / "REVIEW.md").write_text(frontmatter.with_frontmatter(data, body))
    summary, errors = review.current(problem)
    assert summary is None and errors == [
        "Lemma 5 is marked [P], which only review.py seal gives, and REVIEW.md's seal did not "
        "give it: set it to [S] (the referee's seal gives [P] where earned)"
    ]
    # adding it to the record too: the record is not what the review gives
    data["proved"]["Lemma 5"] = review.step_digest(
        next(s for s in review.steps(forged) if s.name == "Lemma 5")
    )
    (problem / "REVIEW.md").write_text(frontmatter.with_frontmatter(data, body))
    summary, errors = review.current(problem)
    assert summary is None and "`proved` record is not what its review gives" in errors[0]


# --- \proved in OUTPUT.tex is a sealed [P] step ---


@pytest.mark.parametrize(
    ("claim", "why"),
    [
        (
            "\\begin{lemma}\\label{pf:lemma-5}\\proved $h(T) \\le n$.\\end{lemma}",
            "PROOF.md's Lemma 5 ([S]), not a [P] step",
        ),
        ("\\begin{lemma}\\proved $h(T) \\le n$.\\end{lemma}", "carries no \\label{pf:...}"),
        ("Every tournament has few Hamiltonian paths\\proved.", "marks no theorem-like"),
    ],
    ids=["on-an-S-step", "without-a-label", "in-running-text"],
)
def test_proved_on_anything_but_a_sealed_p_step_fails_the_check(problem, script, claim, why):
    sealed_proof(problem)
    fine = "\\begin{lemma}\\label{pf:lemma-1}\\proved Hamiltonian paths exist.\\end{lemma}\n"
    (problem / "OUTPUT.tex").write_text(article(fine))
    assert texcheck.check_folder(problem)[1] == []
    (problem / "OUTPUT.tex").write_text(article(fine + claim))
    run = script("latex.py", "check", "--dir", str(problem))
    assert run.returncode == 1
    found = [v for v in run.json()["violations"] if v["kind"] == "proved_without_p"]
    assert len(found) == 1 and why in found[0]["message"] and "\n" not in found[0]["message"]


# --- headings at any depth, gaps under any heading ---

DEEP_STEP = """### Step 1: $T$ has a vertex of out-degree at least $(n-1)/2$
**Status:** blocked
**Depends on:** none
**Confidence:** [~]

Averaging, not yet written.
"""
MAIN_ON_STEP_1 = MAIN.replace("Lemma 1, REF-001", "Lemma 1, Step 1, REF-001")


@pytest.mark.parametrize("hashes", ["####", "#####"])
def test_a_step_at_any_heading_depth_is_seen_by_every_reader(problem, hashes):
    deep = DEEP_STEP.replace("### ", f"{hashes} ", 1)
    body = PROOF.replace(LEMMA_5, LEMMA_5.replace("[P]", "[S]")).replace(
        MAIN, f"{deep}\n{MAIN_ON_STEP_1}"
    )
    assert "Step 1" in [step.name for step in review.steps(body)]
    assert texcheck.proof_steps(body)["pf:step-1"][1] == "[~]"
    errors = review.completeness_errors(body)
    assert "Step 1 is blocked" in errors and "Step 1 is marked [~]" in errors
    enter(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, body)
    with pytest.raises(BadInput, match="Step 1 is blocked") as refused:
        machine.transition(problem, problem.name, "REVIEW", "complete")
    assert refused.value.code == "proof_incomplete"
    theorem = "\\begin{theorem}\\label{pf:main-theorem}$h(T)$ is odd.\\end{theorem}"
    (problem / "OUTPUT.tex").write_text(article(theorem))
    kinds = [v["kind"] for v in texcheck.check_folder(problem)[1]]
    assert "speculative_as_theorem" in kinds  # the Main Theorem rests on Step 1, [~]


def test_a_verdict_at_any_heading_depth_is_read(problem):
    sealed = sealed_proof(problem, review_text=REVIEW.replace("### Lemma", "#### Lemma"))
    assert sealed["verdict"] == "pass"


def test_a_gap_under_another_section_keeps_the_proof_from_review(problem):
    body = PROOF.replace(LEMMA_5, LEMMA_5.replace("[P]", "[S]")) + (
        "\n## Open questions\n\n#### Gap 1: is $h(T)$ at most $n$?\n**Type:** insight-needed\n"
        "**Blocking:** Main Theorem\n**Suggested resolution:** a bound from the score sequence\n"
    )
    errors = review.completeness_errors(body)
    assert "Gap 1 is open (no **Resolved:** line)" in errors
    assert "Gap 1 is a gap under `## Open questions`: move it under ## Gaps" in errors
    enter(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, body)
    step = router.next_step(problem, problem.name)
    assert step["action"] == "spawn" and "Gap 1 is open" in step["task"]


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        (
            "\n## Lemmas\n\n### Lemma 6: the score sequence\n**Status:** in-progress\n"
            "**Depends on:** none\n**Confidence:** [~]\n",
            "Lemma 6 is a step under `## Lemmas`: move it under ## Proof Structure",
        ),
        (
            "\n## Step 3: the score sequence\n**Status:** in-progress\n**Confidence:** [~]\n",
            "a **Status:** line under `## Step 3: the score sequence`, in no `### ` block",
        ),
        (
            "\n## Gaps\n\n### Gap: the bound\n**Type:** insight-needed\n",
            "the gap headed `### Gap: the bound` must be headed `### Gap N: description`",
        ),
        (
            "\n## Open questions\n\n### The bound\n**Type:** insight-needed\n",
            "The bound is a gap under `## Open questions`: move it under ## Gaps",
        ),
        (
            "\n## Open questions\n\n**Type:** insight-needed\n**Blocking:** Main Theorem\n",
            "a **Blocking:** line under `## Open questions`, in no `### ` block",
        ),
    ],
    ids=[
        "step-under-another-section",
        "fields-under-a-section-heading",
        "unnumbered-gap",
        "type-lines-under-another-heading",
        "type-lines-under-no-block",
    ],
)
def test_a_block_where_the_schema_does_not_put_it_is_an_error(extra, error):
    body = PROOF.replace(LEMMA_5, LEMMA_5.replace("[P]", "[S]")) + extra
    assert any(error in e for e in review.completeness_errors(body)), review.completeness_errors(
        body
    )


def test_a_dependency_on_a_step_proof_md_lacks_is_an_error():
    body = PROOF.replace(LEMMA_5, LEMMA_5.replace("[P]", "[S]")).replace(MAIN, MAIN_ON_STEP_1)
    assert "Main Theorem depends on Step 1, which is no step of PROOF.md" in (
        review.completeness_errors(body)
    )


def test_a_request_at_any_heading_depth_is_asked():
    body = PROOF + "\n## Computation Requests\n\n#### Request 2: h(T) for n <= 7\n"
    assert computation.requests_asked(body) == {2}


def test_the_seal_script_refuses_a_bare_review_in_one_line(problem, script):
    complete_proof(problem, PROOF)
    (problem / "REVIEW.md").write_text(BARE_REVIEW)
    run = script("review.py", "seal", "--dir", str(problem))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    error = run.json()["error"]
    assert error["code"] == "bad_review" and "\n" not in error["message"]
    assert all(f"{name}: " in error["message"] for name in ("Lemma 1", "Lemma 5", "Main Theorem"))


# --- a referee who tests: each checked step names its run, or why none can test it ---

SK = """### Lemma 2: $p^2 \\mid S_k(p)$ for every prime $p \\ge 5$ and $k \\ge 1$
**Status:** complete
**Depends on:** none
**Confidence:** [S]

Write $S_k(p) = \\sum_{a=1}^{p-1} a^k$. Pairing $a$ with $p - a$ and expanding $(p-a)^k$ by the
binomial theorem, the terms cancel modulo $p^2$.
"""
SK_SAID = (
    "Pairing $a$ with $p - a$ and the binomial expansion of $(p-a)^k$: the cross term "
    "$k p a^{k-1}$ is what the cancellation modulo $p^2$ must absorb."
)


@pytest.mark.parametrize(
    "said",
    [  # the walk-arounds: the step's symbols listed, its heading restated
        "Every inference about $p$, $a$, $k$ and $S_k(p)$ was followed, line by line.",
        "Lemma 2: $p^2 \\mid S_k(p)$ for every prime $p \\ge 5$ and every $k \\ge 1$ holds.",
    ],
)
def test_symbols_or_the_heading_restated_name_no_inference(said):
    block = f"### Lemma 2\n**Verdict:** checked\n\n{said}\n"
    assert "not its inference" in reasons.missing("Lemma 2", SK, block)
    assert (
        reasons.missing("Lemma 2", SK, f"### Lemma 2\n**Verdict:** checked\n\n{SK_SAID}\n") is None
    )


def test_the_seal_refuses_a_checked_step_with_neither_a_run_nor_a_reason(problem):
    complete_proof(problem, PROOF)
    untested = REVIEW.replace(UNTESTABLE, "", 1)  # Lemma 1's
    (problem / "REVIEW.md").write_text(untested)
    with pytest.raises(BadInput) as refused:
        review.seal(problem, problem.name)
    assert refused.value.code == "bad_review"
    assert "Lemma 1: a checked step needs **Tested by:** Computation N" in refused.value.message
    assert "Lemma 5" not in refused.value.message
    # a run that compute.py never recorded tests nothing; a one-word reason is no reason
    for line in ("**Tested by:** Computation 7\n", "**Not computable:** obvious\n"):
        (problem / "REVIEW.md").write_text(REVIEW.replace(UNTESTABLE, line, 1))
        with pytest.raises(BadInput, match="Lemma 1: "):
            review.seal(problem, problem.name)


def test_a_false_lemma_refuted_at_a_small_case_never_reaches_p(tmp_path):
    """The planted false lemma: $p^2 \\mid S_k(p)$, false at p = 5, k = 1 ($S_1(5) = 10$). The
    proof asks for the small-case check, compute.py runs it, the computation agent says it
    refutes Lemma 2: the seal refuses a checked verdict on it (run cited or not), and the step
    the referee then marks wrong gets no [P]."""
    cwd = tmp_path / "ws"
    t.new_problem(cwd)
    folder = cwd / ".math" / "problems" / t.SLUG
    proof = (
        "# Proof Development\n\n## Proof Structure\n\n" + SK + "\n## Computation Requests\n\n"
        "### Request 1: S_k(p) mod p^2 for small p and k\n**Purpose:** test Lemma 2 on "
        "p = 5, 7, 11 and k = 1, 2, 3\n"
    )
    complete_proof(folder, proof)
    snippet = folder / "computations" / "request-1.py"
    snippet.parent.mkdir()
    snippet.write_text(
        "# S_k(p) mod p^2\nfor p in (5, 7, 11):\n    for k in (1, 2, 3):\n"
        "        print(p, k, sum(a**k for a in range(1, p)) % p**2)\n"
    )
    t.script(
        cwd, "compute.py", "run", str(snippet), "--request", "1", "--title", "S_k(p) mod p^2",
        "--python", sys.executable, "--problem", t.SLUG,
    )  # fmt: skip
    t.script(
        cwd, "compute.py", "interpret", "1", "--text", "At p = 5, k = 1 the residue is 10, not "
        "0: this refutes Lemma 2.", "--result", "10 mod 25", "--implication",
        "Lemma 2 is false", "--problem", t.SLUG,
    )  # fmt: skip
    for tested in ("**Tested by:** Computation 1", "**Not computable:** " + "a claim " * 4):
        (folder / "REVIEW.md").write_text(
            f"# Referee Report\n\n### Lemma 2\n**Verdict:** checked\n{tested}\n\n{SK_SAID}\n"
        )
        with pytest.raises(BadInput, match=r"Lemma 2: Computation 1 of COMPUTATION\.md refutes"):
            review.seal(folder, t.SLUG)
    (folder / "REVIEW.md").write_text(
        "# Referee Report\n\n### Lemma 2\n**Verdict:** wrong\n**Note:** Computation 1: "
        f"S_1(5) = 10 mod 25\n\n{SK_SAID}\n"
    )
    sealed = review.seal(folder, t.SLUG)
    assert (sealed["verdict"], sealed["proved"]) == ("revise", [])
    assert "[P]" not in (folder / "PROOF.md").read_text()


def _run_and_interpret(cwd, folder, request: int, code: str, text: str) -> str:
    """Run a request's snippet through compute.py and write its Interpretation; the run's
    **Run:** stamp."""
    snippet = folder / "computations" / f"request-{request}.py"
    snippet.parent.mkdir(exist_ok=True)
    snippet.write_text(code)
    t.script(
        cwd, "compute.py", "run", str(snippet), "--request", str(request), "--title",
        f"Request {request}", "--python", sys.executable, "--problem", t.SLUG,
    )  # fmt: skip
    (number,) = [n for n, _ in computation.runs((folder / "COMPUTATION.md").read_text())][-1:]
    t.script(
        cwd, "compute.py", "interpret", str(number), "--text", text, "--result", "see text",
        "--implication", "see text", "--problem", t.SLUG,
    )  # fmt: skip
    runs = dict(computation.runs((folder / "COMPUTATION.md").read_text()))
    return re.search(r"\*\*Run:\*\* (\S+)", runs[number]).group(1)


def _later_stamp() -> str:
    time.sleep(1.1)  # stamps are to the second: the next one is strictly later
    return stamp()


FIB_WRONG = "$a(n) = a(n-1) + a(n-2) + 1$ for every $n \\ge 3$"
FIB_RIGHT = "$a(n) = a(n-1) + a(n-2)$ for every $n \\ge 3$"
FIB_SAID = (
    "The split by whether $n \\in S$ maps the sets without $n$ onto the sparse subsets of "
    "$[n-1]$ and those with $n$ onto the sparse subsets of $[n-2]$; the classes are disjoint."
)


def _fib_proof(statement: str, updated: str, requests: int = 3) -> str:
    asked = [
        "### Request 1: a(n) for n <= 12\n**Purpose:** test Lemma 2 on n = 3..12\n",
        "### Request 2: a(n) again for n <= 12\n**Purpose:** test Lemma 2, as corrected, on "
        "n = 3..12\n",
        "### Request 3: a(n) once more\n**Purpose:** test Lemma 2 on n = 3..12\n",
    ]
    return (
        "# Proof Development\n\n## Proof Structure\n\n"
        f"### Lemma 2: {statement}\n**Status:** complete\n**Depends on:** none\n"
        f"**Confidence:** [S]\n**Updated:** {updated}\n\nSplit by whether $n$ is in the set.\n"
        "\n## Computation Requests\n\n" + "\n".join(asked[:requests])
    )


def test_a_step_corrected_after_a_run_refuted_it_is_tested_by_a_run_since(tmp_path):
    """Found in a play in the real host: the proof agent corrected the lemma Computation 1
    refuted, and the seal still refused it for good ("Computation 1 refutes it"), whatever
    run came later, since the step keeps its name. A run before the step's **Updated:** stamp
    refuted an earlier form: only a run recorded since, naming the step, can test it now, and
    one that refutes it again is as binding as ever (a stamp moved without a change gains
    nothing)."""
    cwd = tmp_path / "ws"
    t.new_problem(cwd)
    folder = cwd / ".math" / "problems" / t.SLUG
    complete_proof(folder, _fib_proof(FIB_WRONG, stamp()))
    count = (
        "from itertools import combinations\n"
        "def a(n):\n    return sum(all(y - x > 1 for x, y in zip(s, s[1:]))\n"
        "               for k in range(n + 1) for s in combinations(range(1, n + 1), k))\n"
        "print([(n, a(n), a(n - 1) + a(n - 2)) for n in range(3, 13)])\n"
    )
    _run_and_interpret(
        cwd, folder, 1, count, "a(3) = 5 but the recurrence with +1 gives 6: this refutes Lemma 2."
    )
    review_md = (
        "# Referee Report\n\n### Lemma 2\n**Verdict:** checked\n**Tested by:** Computation "
        "{n}\n\n" + FIB_SAID + "\n"
    )
    corrected = _later_stamp()
    complete_proof(folder, _fib_proof(FIB_RIGHT, corrected))
    (folder / "REVIEW.md").write_text(review_md.format(n=1))
    with pytest.raises(BadInput, match=r"Lemma 2: Computation 1 refuted it before its update"):
        review.seal(folder, t.SLUG)
    _later_stamp()
    _run_and_interpret(
        cwd, folder, 2, count, "a(n) = a(n-1) + a(n-2) for n = 3..12: this supports Lemma 2."
    )
    (folder / "REVIEW.md").write_text(review_md.format(n=2))
    assert review.seal(folder, t.SLUG)["proved"] == ["Lemma 2"]
    # a run cited beside it that came before the update is named as such (not as "no run
    # compute.py recorded", which it was: the play's referee was told so)
    (folder / "REVIEW.md").write_text(review_md.format(n="1, Computation 2"))
    with pytest.raises(BadInput, match=r"Computation 1 ran before Lemma 2 was last updated"):
        review.seal(folder, t.SLUG)
    # the stamp moved again without a change, and a run since refutes it: refused as ever
    complete_proof(folder, _fib_proof(FIB_WRONG, _later_stamp()))
    _later_stamp()
    _run_and_interpret(cwd, folder, 3, count, "a(3) = 5, not 6: this refutes Lemma 2 again.")
    (folder / "REVIEW.md").write_text(review_md.format(n=3))
    with pytest.raises(BadInput, match=r"Lemma 2: Computation 3 of COMPUTATION\.md refutes it"):
        review.seal(folder, t.SLUG)


def _refuted(tmp_path, requests: int):
    """The problem folder with the false Lemma 2 (its first `requests` requests) and the
    recorded run that refutes it."""
    cwd = tmp_path / "ws"
    t.new_problem(cwd)
    folder = cwd / ".math" / "problems" / t.SLUG
    complete_proof(folder, _fib_proof(FIB_WRONG, stamp(), requests=requests))
    count = "print([(3, 5, 6)])\n"
    _run_and_interpret(cwd, folder, 1, count, "a(3) = 5, not 6: this refutes Lemma 2.")
    return folder


def test_the_proof_brief_asks_for_a_new_request_for_a_step_a_run_refuted(tmp_path):
    """Issue 51's play: the proof agent corrected the refuted lemma but asked no run of it, so
    the referee sent it back for one, a second proof-computation-review round (about 25 calls).
    The proof brief now says, in the pass that corrects it, that a request naming the step is
    needed, and stops saying so once one is asked."""
    folder = _refuted(tmp_path, requests=1)
    said = brief(folder, t.SLUG, "proof")
    assert "- Lemma 2: Computation 1 refutes it; correct it (or abandon it) and add a" in said
    complete_proof(folder, _fib_proof(FIB_RIGHT, _later_stamp(), requests=1))
    said = brief(folder, t.SLUG, "proof")
    assert "- Lemma 2: corrected after Computation 1 refuted it; add a request" in said
    complete_proof(folder, _fib_proof(FIB_RIGHT, stamp(), requests=2))
    said = brief(folder, t.SLUG, "proof")
    assert "Lemma 2:" not in said.split("## PROOF.md: what is open")[1].split("\n## ")[0]


def test_the_referee_brief_names_a_failed_run_that_was_run_again_in_one_line(tmp_path):
    cwd = tmp_path / "ws"
    t.new_problem(cwd)
    folder = cwd / ".math" / "problems" / t.SLUG
    complete_proof(folder, _fib_proof(FIB_RIGHT, stamp(), requests=1))
    snippet = folder / "computations" / "request-1.py"
    snippet.parent.mkdir()
    for code in ("import no_such_module\n", "print('a(3) =', 5)\n"):
        snippet.write_text(code)
        t.script(
            cwd, "compute.py", "run", str(snippet), "--request", "1", "--title", "a(n)",
            "--python", sys.executable, "--problem", t.SLUG,
        )  # fmt: skip
    said = brief(folder, t.SLUG, "referee")
    assert "Computation 1: a(n)" in said and ": failed, run again as Computation 2" in said
    assert "no_such_module" not in said
    assert "a(3) = 5" in said  # the run that answers the request, whole


def test_the_referee_brief_says_whether_a_run_refutes_a_step_as_it_stands(tmp_path):
    """A play in the real host: the referee's runbook makes a step a run refutes wrong unless
    the run refuted an earlier form, and the brief (without the steps' **Updated:** lines) left
    the referee to infer which from the proof's prose. Its `Refutes:` line says it."""
    folder = _refuted(tmp_path, requests=2)
    said = brief(folder, t.SLUG, "referee")
    assert "Refutes: Lemma 2 as it stands" in said
    complete_proof(folder, _fib_proof(FIB_RIGHT, _later_stamp(), requests=2))
    said = brief(folder, t.SLUG, "referee")
    assert "Refutes: Lemma 2 in an earlier form (updated since)" in said
    assert "as it stands" not in said


# --- which steps a run refutes, the computation agent says (compute.py interpret --refutes) ---

TWO_STEPS = (
    "# Proof Development\n\n## Proof Structure\n\n"
    "### Lemma 1: $9^n \\equiv 1 + 8n \\pmod{128}$\n**Status:** complete\n**Depends on:** none\n"
    "**Confidence:** [S]\n\nBy the binomial theorem.\n\n"
    "### Main Theorem\n**Status:** complete\n**Depends on:** Lemma 1\n**Confidence:** [S]\n\n"
    "$64 \\mid 9^n - 8n - 1$ for every $n \\ge 1$, by Lemma 1.\n\n"
    "## Computation Requests\n\n### Request 1: 9^n - 8n - 1 for n <= 50\n"
    "**Purpose:** test Lemma 1 and the Main Theorem for n <= 50\n"
)


def _interpreted(tmp_path, text: str, *refutes: str):
    """TWO_STEPS with Request 1 run and interpreted by `text` (and `--refutes` when given): the
    problem folder and what `compute.py interpret` answered."""
    cwd = tmp_path / "ws"
    t.new_problem(cwd)
    folder = cwd / ".math" / "problems" / t.SLUG
    complete_proof(folder, TWO_STEPS)
    snippet = folder / "computations" / "request-1.py"
    snippet.parent.mkdir()
    snippet.write_text("print([(9**n - 8*n - 1) % 128 for n in range(1, 6)])\n")
    t.script(
        cwd, "compute.py", "run", str(snippet), "--request", "1", "--title", "Lemma 1 mod 128",
        "--python", sys.executable, "--problem", t.SLUG,
    )  # fmt: skip
    args = ["--refutes", refutes[0]] if refutes else []
    done = run_script(
        "compute.py", "interpret", "1", "--text", text, *args, "--problem", t.SLUG, cwd=cwd
    )
    return folder, done


def _refuting_runs(folder) -> dict[str, list[int]]:
    runs = dict(computation.runs((folder / "COMPUTATION.md").read_text()))
    return {name: smallcases.refuting(name, runs) for name in ("Lemma 1", "Main Theorem")}


# Found in the real host: both sentences misread. The first flagged a confirming run ("No
# counterexample ... Lemma 1"); the second the Main Theorem, whose statement held on every case.
CONFIRMING = "No counterexample to the corrected Lemma 1 or the Main Theorem for n <= 50."
REFUTING = (
    "The list where the Main Theorem fails is empty: 64 divides every value. Lemma 1 is false at "
    "n = 2 (64 mod 128), so the Main Theorem cannot rest on it as written."
)


def test_the_agents_refutes_line_is_the_verdict_on_each_step(tmp_path):
    folder, done = _interpreted(tmp_path, REFUTING, "lemma 1")
    assert done.returncode == 0, done.stdout
    assert "**Refutes:** Lemma 1\n" in (folder / "COMPUTATION.md").read_text()  # PROOF.md's name
    assert _refuting_runs(folder) == {"Lemma 1": [1], "Main Theorem": []}


def test_a_run_that_refutes_nothing_says_none_and_sends_nothing_back(tmp_path):
    folder, done = _interpreted(tmp_path, CONFIRMING, "none")
    assert done.returncode == 0, done.stdout
    assert "**Refutes:** none" in (folder / "COMPUTATION.md").read_text()
    assert _refuting_runs(folder) == {"Lemma 1": [], "Main Theorem": []}


def test_without_the_line_the_sentences_are_read_as_before(tmp_path):
    """A run interpreted before the line existed: a sentence naming the step and a refuting word
    still counts (the safety net for the planted lemma), misreadings included."""
    folder, done = _interpreted(tmp_path, REFUTING)
    assert done.returncode == 0, done.stdout
    assert _refuting_runs(folder) == {"Lemma 1": [1], "Main Theorem": [1]}


@pytest.mark.parametrize("said", ["Lemma 7", "Lemma 1, Step 9", ", "])
def test_refutes_names_only_steps_of_proof_md(tmp_path, said):
    folder, done = _interpreted(tmp_path, REFUTING, said)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    error = done.json()["error"]
    assert error["code"] == "unknown_step" and "\n" not in error["message"]
    assert "its steps: Lemma 1, Main Theorem" in error["message"]
    assert "_Pending" in (folder / "COMPUTATION.md").read_text()  # nothing written


BY_FORMULAS = (
    "### Main Theorem\n**Status:** complete\n**Depends on:** Lemma 1\n**Confidence:** [S]\n\n"
    "Let $n \\ge 1$. By Lemma 1, $4^n = 1 + 3n + 9a$ for some $a \\in \\mathbb{Z}$. Then\n"
    "$$4^n + 15n - 1 = (1 + 3n + 9a) + 15n - 1 = 18n + 9a = 9(2n + a),$$\n"
    "so $9 \\mid 4^n + 15n - 1$.\n"
)


def test_an_argument_of_formulas_is_followed_by_writing_its_relations_out():
    """Found in the real host: a two-formula argument has almost no words of its own, and the
    referee who wrote its substitution out was refused for naming none of them. Two relations of
    the argument's formulas, written out, name its moves; the claim restated alone does not, nor
    the symbols listed."""
    followed = (
        "From Lemma 1, $4^n = 1 + 3n + 9a$ with $a$ an integer; substituting gives "
        "$4^n + 15n - 1 = 18n + 9a$ and $18n + 9a = 9(2n + a)$, and the arithmetic is right."
    )
    assert (
        reasons.missing(
            "Main Theorem", BY_FORMULAS, f"### Main Theorem\n**Verdict:** checked\n\n{followed}\n"
        )
        is None
    )
    for said in (
        "The claim $9 \\mid 4^n + 15n - 1$ holds for every $n$: each inference was followed.",
        "Every inference about $n$, $a$, $4^n$ and $9$ was followed, line by line.",
    ):
        block = f"### Main Theorem\n**Verdict:** checked\n\n{said}\n"
        assert "not its inference" in (reasons.missing("Main Theorem", BY_FORMULAS, block) or ""), (
            said
        )

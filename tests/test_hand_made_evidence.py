"""What only the plugin's scripts may write, and the hand-made copies the research loop refuses
(issue 36): a STATE.md digest recomputed by hand, a DONE archived without DONE's checks, a
`## Computation N` block typed into COMPUTATION.md, a LITERATURE.md touched instead of searched.
Every test here failed before its refusal existed."""

from __future__ import annotations

import hashlib
import json
import sys

import pytest
import test_state
from mathtools.core import frontmatter
from mathtools.core.errors import BadInput
from mathtools.research import computation, review, router, sessions, signing, stateread
from mathtools.research import statechanges as machine
from support.verified import confirmed, paper, verification
from test_state import (
    CLEAN_ARTICLE,
    COMPLETE_PROOF,
    complete_proof,
    enter,
    read_state,
    write_state,
)

plugin_data = test_state.plugin_data
problem = test_state.problem
SANDBOX_RESULT = {
    "exit_code": 0,
    "signal": None,
    "outcome": "ok",
    "wall_time_s": 0.1,
    "stdout": "1\n",
    "stderr": "",
    "truncated": {"stdout": False},
    "isolation": {
        "network": "none",
        "memory": "rlimit",
        "processes": "capped",
        "files": "x",
        "filesystem": "landlock",
    },
    "limits": {"timeout_s": 60, "memory_mb": 512},
    "environment": {},
}  # fmt: skip  (a sandbox result as sandbox.run_sandboxed returns it)


def unkeyed_digest(fields: dict) -> str:
    """STATE.md's digest as 0.1.0's stateread.digest_of made it: a SHA-256 anyone can recompute."""
    data = {key: fields.get(key) for key in stateread.DIGESTED}
    if data["entered_at"]:
        data["entered_at"] = stateread.State("x", entered_at=str(data["entered_at"])).entered()
    data["loops"] = {k: v for k, v in sorted((data["loops"] or {}).items()) if v}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def hand_set(folder, **fields) -> None:
    """STATE.md edited by hand, its digest recomputed by hand as 0.1.0 computed it."""
    data, body = read_state(folder)
    data.update(fields)
    data["digest"] = unkeyed_digest(data)
    (folder / "STATE.md").write_text(frontmatter.with_frontmatter(data, body))


# --- STATE.md: a digest recomputed by hand ---


def test_a_hand_set_done_with_a_recomputed_digest_is_refused(problem):
    enter(problem, "LATEX_OUTPUT")
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE)
    hand_set(problem, current_state="DONE")
    for attempt in (router.advance, sessions.archive_session, stateread.show_state):
        with pytest.raises(BadInput) as refused:
            attempt(problem, problem.name)
        assert refused.value.code == "state_tampered" and "key" in refused.value.message
    assert not (problem / "sessions").exists()


def test_the_digest_is_keyed_by_the_workspaces_key(problem):
    write_state(problem, "PROOF_DEVELOPMENT")
    data, _ = read_state(problem)
    assert data["digest"] != unkeyed_digest(data)
    key = problem.parent.parent / signing.KEY_FILE
    assert key.stat().st_mode & 0o777 == 0o600
    key.unlink()  # another key: every mark of the workspace fails
    with pytest.raises(BadInput) as refused:
        stateread.show_state(problem, problem.name)
    assert refused.value.code == "state_tampered"


def test_a_state_sealed_by_0_1_0_is_read_and_resealed_with_the_key(problem, tmp_path):
    """Upgrading: the digests STATE.md files hold when the workspace's key is made stay good
    until their next move; one recomputed by hand after that does not."""
    other = tmp_path / ".math" / "problems" / "other"
    other.mkdir()
    for folder in (problem, other):
        (folder / "STATE.md").write_text(
            frontmatter.with_frontmatter({"problem": folder.name, "current_state": "INTAKE"}, "\n")
        )
        hand_set(folder, current_state="LITERATURE_SEARCH", history=["0.1.0 moved it"])
    assert not (tmp_path / ".math" / signing.KEY_FILE).exists()
    assert stateread.show_state(problem, problem.name)["current_state"] == "LITERATURE_SEARCH"
    assert (
        stateread.show_state(other, other.name)["current_state"] == "LITERATURE_SEARCH"
    )  # key made
    machine.record_search(other, other.name, "LIT-001: 0 confirmed references")
    machine.transition(other, other.name, "PROOF_DEVELOPMENT", "searched")
    assert read_state(other)[0]["digest"] != unkeyed_digest(read_state(other)[0])
    hand_set(problem, current_state="PROOF_DEVELOPMENT")  # after the key: refused
    with pytest.raises(BadInput) as refused:
        stateread.show_state(problem, problem.name)
    assert refused.value.code == "state_tampered"


# --- archive-session: DONE's checks again ---


def test_archive_session_reruns_dones_checks(problem):
    """A DONE run whose OUTPUT.tex no longer passes DONE's checks is not archived as DONE."""
    write_state(problem, "DONE")
    (problem / "OUTPUT.tex").write_text(CLEAN_ARTICLE.replace("No claims.", "\\cite{ghost2020}"))
    with pytest.raises(BadInput) as refused:
        sessions.archive_session(problem, problem.name)
    assert refused.value.code == "not_done" and "latex.py check" in refused.value.message
    assert "--partial" in refused.value.message and len(refused.value.message.splitlines()) == 1
    assert (problem / "OUTPUT.tex").exists() and not (problem / "sessions").exists()
    archived = sessions.archive_session(problem, problem.name, partial=True)  # the user's say
    assert archived["session"] == "session-001"


# --- COMPUTATION.md: a run compute.py never made ---

TWO_REQUESTS = COMPLETE_PROOF + (
    "\n## Computation Requests\n\n### Request 1: the sum to 100\n\n### Request 2: the sum to 10\n"
)


def test_a_hand_typed_computation_block_answers_no_request(problem, script):
    """compute.py answers Request 1; Request 2 gets a `## Computation 2` block typed by hand in
    the same form, its output invented: the proof goes to no review on it. Editing the real
    run's output unanswers Request 1 too."""
    write_state(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, TWO_REQUESTS)
    code = "print(sum(range(1, 101)))\n"
    run = script(
        "compute.py", "run", "-", "--request", "1", "--title", "sum to 100",
        "--python", sys.executable, "--dir", str(problem), input=code,
    )  # fmt: skip
    assert run.json()["stdout"] == "5050\n", run.stdout
    assert review.unanswered_requests(problem) == [2]
    path = problem / "COMPUTATION.md"
    text = path.read_text()
    first = text[text.index("## Computation 1:") : text.index(computation.SUMMARY_HEADING)]
    typed = (
        first.replace("Computation 1:", "Computation 2:")
        .replace("Request 1", "Request 2")
        .replace("range(1, 101)", "range(1, 11)")
        .replace("5050", "55")
    )
    path.write_text(text.replace(computation.SUMMARY_HEADING, typed + computation.SUMMARY_HEADING))
    with pytest.raises(BadInput) as refused:
        machine.transition(problem, problem.name, "REVIEW", "complete")
    assert refused.value.code == "proof_incomplete"
    assert "Request 2 is not answered (Computation 2" in refused.value.message
    assert "typed or edited by hand" in refused.value.message
    assert len(refused.value.message.splitlines()) == 1
    assert review.unanswered_requests(problem) == [2]
    # the real run, its output edited by hand, answers nothing either
    path.write_text(path.read_text().replace("5050", "5051", 1))
    assert review.unanswered_requests(problem) == [1, 2]


def test_a_run_record_copied_by_hand_vouches_for_nothing(problem, script):
    """The run records are marked with the workspace's key: a line appended to
    computations/runs.jsonl by hand, with the right digests, is not one of them."""
    write_state(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, TWO_REQUESTS)
    computation.record_computation(
        problem, problem.name, "print(1)", SANDBOX_RESULT, "one", request=1
    )
    records = problem / computation.RUN_RECORDS
    (line,) = [json.loads(line) for line in records.read_text().splitlines()]
    assert set(line) == set(computation.RunRecord.__annotations__)
    assert review.unanswered_requests(problem) == [2]
    text = (problem / "COMPUTATION.md").read_text()
    (problem / "COMPUTATION.md").write_text(text.replace("Request 1", "Request 2"))
    assert review.unanswered_requests(problem) == [1, 2]  # the record says Request 1
    forged = {**line, "request": 2}
    forged["mark"] = hashlib.sha256(json.dumps(forged).encode()).hexdigest()
    records.write_text(records.read_text() + json.dumps(forged) + "\n")
    assert review.unanswered_requests(problem) == [1, 2]


def test_the_snippet_cannot_read_the_signing_key(problem, script, tmp_path):
    write_state(problem, "PROOF_DEVELOPMENT")
    complete_proof(problem, TWO_REQUESTS)
    key = tmp_path / ".math" / signing.KEY_FILE
    code = f"print(open({str(key)!r}).read() or 'empty')\n"
    run = script(
        "compute.py", "run", "-", "--request", "1", "--title", "peek",
        "--python", sys.executable, "--dir", str(problem), input=code,
    )  # fmt: skip
    result = run.json()
    if not result["isolation"]["files"].startswith("hidden"):
        pytest.skip("no mount namespace here: nothing can hide a file from the snippet")
    assert str(key) in result["isolation"]["files"]
    assert result["stdout"] == "empty\n" and json.loads(key.read_text())["key"] not in run.stdout


# --- LITERATURE.md: touched, not searched ---


def merge_by_script(script, folder, tmp_path, number: int) -> None:
    """A search's merge into folder/LITERATURE.md, by the script (lit_update.py merge)."""
    verified = tmp_path / f"verified-{number}.json"
    verified.write_text(json.dumps(verification([confirmed(paper(number))])))
    run = script(
        "lit_update.py", "merge", "--literature", str(folder / "LITERATURE.md"),
        "--verified", str(verified), "--query-summary", f"search {number}",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_touched_literature_md_is_no_search(problem, script, tmp_path):
    """The walk-around: in LITERATURE_SEARCH, `touch LITERATURE.md` (a file from an earlier
    search) made the router record the search as done. Only a merge recorded in this visit does."""
    merge_by_script(script, problem, tmp_path, 1)  # an earlier search, before the loop
    enter(problem, "LITERATURE_SEARCH", loops={"proof-literature": 1})
    (problem / "LITERATURE.md").touch()
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:literature-search")
    assert "no literature search recorded" in step["reason"]
    merge_by_script(script, problem, tmp_path, 2)
    step = router.next_step(problem, problem.name)
    assert step["transition"]["to"] == "PROOF_DEVELOPMENT" and step["spawn"] == "math:proof"
    machine.transition(problem, problem.name, "PROOF_DEVELOPMENT", step["transition"]["reason"])
    history = read_state(problem)[0]["history"]
    assert machine.LITERATURE_MERGED in history[-2] and "-> PROOF_DEVELOPMENT" in history[-1]
    # the next visit needs a merge of its own; the same merge again is none
    machine.transition(problem, problem.name, "LITERATURE_SEARCH", "more references")
    merge_by_script(script, problem, tmp_path, 2)
    step = router.next_step(problem, problem.name)
    assert (step["action"], step["spawn"]) == ("spawn", "math:literature-search")


def test_a_merge_outside_the_literature_state_records_nothing(problem, script, tmp_path):
    write_state(problem, "PROOF_DEVELOPMENT")
    before = (problem / "STATE.md").read_text()
    merge_by_script(script, problem, tmp_path, 1)
    assert (problem / "STATE.md").read_text() == before

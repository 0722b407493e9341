"""What the research loop does next: `next_step` decides it from the artifacts' frontmatter alone
(and whether each artifact was written since the current state was entered; in
LITERATURE_SEARCH, whether a merge into LITERATURE.md was recorded in STATE.md since, not the
file's time; in COMPUTATION, also which numbered requests of PROOF.md have a run compute.py
recorded), never from their mathematics: the move to record, the agent to spawn with its task,
or the question for the user. `advance` records every move that needs no agent and no user.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from ..core import read_text
from . import computation, review, smallcases
from .outputtex import TexViolation
from .statechanges import (
    artifact,
    latex_violations,
    literature_outcome,
    pending_grant,
    transition,
)
from .stateread import LOOP_CAP, LOOPS, STATES, State, load

# The agent that works in each state.
AGENTS = {
    "LITERATURE_SEARCH": "math:literature-search",
    "PROOF_DEVELOPMENT": "math:proof",
    "COMPUTATION": "math:computation",
    "REVIEW": "math:referee",
    "LATEX_OUTPUT": "math:latex-writer",
}
USER_OPTIONS = ("continue", "redirect", "accept-partial")
# The values PROOF.md's routing flags may take (protocols/proof-format.md, "Frontmatter").
PROOF_STATUSES = ("strategy", "in-progress", "gaps-identified", "complete", "stuck")
PROOF_FLAGS = ("computation_needed", "literature_needed")


class _Move(TypedDict):
    to: str
    reason: str


class Move(_Move, total=False):
    """A transition to record: the state to move to and why."""

    user_approved: bool


class _Step(TypedDict):
    problem: str
    dir: str
    state: str
    loops: dict[str, int]
    loop_cap: int
    action: str | None  # spawn, transition, ask_user or done
    transition: Move | None
    spawn: str | None
    reason: str
    task: str | None
    options: list[str]
    flags: dict[str, dict[str, object]]  # by artifact: the frontmatter values the step read


class Step(_Step, total=False):
    """`next_step`'s answer; `advance` adds the moves it made and the state's history."""

    applied: list[Move]
    history: list[str]
    violations: list[TexViolation]  # in LATEX_OUTPUT: what keeps OUTPUT.tex from DONE


def advance(folder: Path, slug: str) -> Step:
    """`next`, with every move recorded that needs no agent and no user: the step that comes
    after them (the agent to spawn in the state reached, a question, or done), with the moves
    made in `applied`. A move the machine refuses raises, as `transition` would."""
    applied = []
    for _ in range(len(STATES) + 1):  # each move leaves a state; a cycle would need an agent
        step = next_step(folder, slug)
        move = step["transition"]
        if step["action"] != "transition" or move is None:
            break
        transition(folder, slug, move["to"], move["reason"], bool(move.get("user_approved")))
        applied.append(move)
    step["applied"] = applied
    step["history"] = load(folder, slug)[0].history  # for the orchestrator's report
    return step


def proof_md_errors(proof: Mapping[str, object], folder: Path | None = None) -> list[str]:
    """PROOF.md frontmatter values the router cannot act on, each naming its field (with the
    folder: also a computation asked for with no open `### Request N` to answer)."""
    errors = []
    status = proof.get("status")
    if str(status or "").lower() not in PROOF_STATUSES:
        errors.append(f"status: {status!r} is not one of {', '.join(PROOF_STATUSES)}")
    for flag in PROOF_FLAGS:
        value = proof.get(flag, False)
        if not isinstance(value, bool) and str(value).strip().lower() not in ("true", "false"):
            errors.append(f"{flag}: {value!r} is not true or false")
    if (
        folder is not None
        and _flag(proof, "computation_needed")
        and not (review.unanswered_requests(folder))
    ):
        errors.append(
            "computation_needed: true, but no `### Request N` under ## Computation Requests is "
            "left unanswered: add the request, or set the flag to false"
        )
    return errors


def _fresh(folder: Path, name: str, state: State) -> bool:
    """Was folder/name written after the current state was entered (i.e. has its agent run)?"""
    path = folder / name
    return path.exists() and path.stat().st_mtime > state.entered()


def _flag(data: Mapping[str, object], key: str) -> bool:
    value = data.get(key)
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def task(in_state: str, folder: Path, state: State) -> str:
    """What the agent of `in_state` is asked to do (its task, not why the router chose it)."""
    if in_state == "LITERATURE_SEARCH":
        if state.loops.get("proof-literature", 0):
            return (
                "Search for the references that PROOF.md's reference-needed gaps ask for, one "
                f"gap per search: `literature.py discover {folder.name} --gap` takes the next "
                "gap not yet searched and marks it; add them to LITERATURE.md."
            )
        return "Find, verify and record the prior work on the problem in LITERATURE.md."
    if in_state == "PROOF_DEVELOPMENT":
        if not (folder / "PROOF.md").exists():
            return "Develop a proof of the problem in PROOF.md."
        if state.current_state == "REVIEW" or state.loops.get("proof-review", 0):
            return (
                "Answer the referee: REVIEW.md marks steps of PROOF.md `gap` or `wrong`; repair "
                "each (or abandon it and say so), then set the status that is true."
            )
        return (
            "Continue the proof in PROOF.md, using what LITERATURE.md and COMPUTATION.md now "
            "hold; settle what the brief lists as open."
        )
    if in_state == "COMPUTATION":
        return "Answer PROOF.md's open computation requests in COMPUTATION.md."
    if in_state == "REVIEW":
        return (
            "Referee PROOF.md: check every step against the REF statements it cites and "
            "COMPUTATION.md, write REVIEW.md and seal it with review.py seal."
        )
    return "Write OUTPUT.tex from PROOF.md and LITERATURE.md so that latex.py check passes."


@dataclass
class _Deciding:
    """The step being decided in one state: the answers it can give, each filling `step`."""

    folder: Path
    state: State
    step: Step

    def spawn(self, in_state: str, reason: str, task_text: str | None = None) -> Step:
        """Spawn the agent of `in_state`, with its usual task unless `task_text` says another."""
        self.step["spawn"] = AGENTS[in_state]
        self.step["task"] = task_text or task(in_state, self.folder, self.state)
        self.step["reason"] = reason
        self.step["action"] = self.step["action"] or "spawn"
        return self.step

    def move(self, to: str, reason: str, spawn_agent: bool = True, approved: bool = False) -> Step:
        """A transition to `to`, spawning that state's agent unless there is none to spawn."""
        self.step["action"] = "transition"
        recorded: Move = {"to": to, "reason": reason}
        if approved:
            recorded["user_approved"] = True
        self.step["transition"] = recorded
        if to == "DONE" or not spawn_agent:
            self.step["reason"] = reason
            return self.step
        return self.spawn(to, reason)

    def ask(self, reason: str, options: tuple[str, ...] = USER_OPTIONS) -> Step:
        self.step["action"], self.step["reason"] = "ask_user", reason
        self.step["options"] = list(options)
        return self.step

    def at_cap(self, to: str, why: str) -> Step:
        """A loop at its cap: the user's grant decides (continue to `to`, or accept partial
        results), else the user is asked."""
        grant = pending_grant(self.folder, self.state.problem)
        if grant == "continue":
            return self.move(to, "the user typed /math:research continue", approved=True)
        if grant == "accept-partial":
            return self.move("LATEX_OUTPUT", "the user accepted partial results", approved=True)
        return self.ask(why)


def _intake(d: _Deciding) -> Step:
    problem = artifact(d.folder, "PROBLEM.md")
    if problem is None or str(problem.get("status", "")).lower() in ("draft", "intake"):
        return d.ask("PROBLEM.md is missing or still a draft: run /math:problem first", ())
    d.step["flags"] = {"PROBLEM.md": {"status": problem.get("status")}}
    lit = artifact(d.folder, "LITERATURE.md") or {}
    if lit.get("last_search"):
        # The user ran /math:literature first: record the move but spawn no second search;
        # `next` in LITERATURE_SEARCH then takes the search already made.
        count = lit.get("confirmed_count")
        reason = f"problem defined; literature already searched: {count} confirmed references"
        d.step["flags"]["LITERATURE.md"] = {"confirmed_count": count}
        return d.move("LITERATURE_SEARCH", reason, spawn_agent=False)
    return d.move("LITERATURE_SEARCH", "problem defined")


def _literature_search(d: _Deciding) -> Step:
    lit = artifact(d.folder, "LITERATURE.md") or {}
    d.step["flags"] = {
        "LITERATURE.md": {
            "confirmed_count": lit.get("confirmed_count"),
            "last_search": lit.get("last_search"),
        }
    }
    done = literature_outcome(d.folder, d.state)  # the rule `transition` checks too
    if done is not None:
        return d.move("PROOF_DEVELOPMENT", done)
    return d.spawn("LITERATURE_SEARCH", "no literature search recorded in this state")


def _proof_development(d: _Deciding) -> Step:
    folder, state = d.folder, d.state
    if not _fresh(folder, "PROOF.md", state):
        passed = _checks_passed(folder)
        if passed:
            return d.move("REVIEW", passed)
        return d.spawn("PROOF_DEVELOPMENT", "PROOF.md not written since this state was entered")
    proof = artifact(folder, "PROOF.md") or {}
    errors = proof_md_errors(proof, folder)
    if errors:
        d.step["flags"] = {"PROOF.md": {"errors": errors}}
        return d.ask(
            "PROOF.md frontmatter cannot be routed on (" + "; ".join(errors) + "): redirect "
            "the proof agent to correct it, or correct it by hand",
            ("redirect",),
        )
    status = str(proof.get("status") or "").lower()
    wants_computation = _flag(proof, "computation_needed")
    wants_literature = _flag(proof, "literature_needed")
    d.step["flags"] = {
        "PROOF.md": {
            "status": status or None,
            "computation_needed": wants_computation,
            "literature_needed": wants_literature,
        }
    }
    if status == "stuck":
        return d.ask("PROOF.md status: stuck (the proof agent cannot go on without a new idea)")
    capped = []
    for wanted, to, flag in (
        (wants_computation, "COMPUTATION", "computation_needed"),
        (wants_literature, "LITERATURE_SEARCH", "literature_needed"),
    ):
        if not wanted:
            continue
        loop = LOOPS[("PROOF_DEVELOPMENT", to)]
        if state.loops.get(loop, 0) < LOOP_CAP:
            return d.move(to, f"PROOF.md {flag}: true")
        capped.append(f"{loop} loop at its cap of {LOOP_CAP} ({flag}: true)")
    if capped:
        to = "COMPUTATION" if wants_computation else "LITERATURE_SEARCH"
        return d.at_cap(to, "; ".join(capped))
    if status == "complete":
        proof_md = read_text(folder / "PROOF.md", "PROOF.md")
        problems = review.completeness_errors(proof_md, review.review_text(folder)) + [
            f"Request {n} is not answered" for n in review.unanswered_requests(folder)
        ]
        if problems:
            d.step["flags"]["PROOF.md"]["incomplete"] = problems
            return d.spawn(
                "PROOF_DEVELOPMENT",
                "PROOF.md says complete, but: " + "; ".join(problems),
                "PROOF.md says `status: complete`, but " + "; ".join(problems) + ". Finish "
                "those steps and gaps, or set the status that is true (gaps-identified, "
                "in-progress) and the flags they need.",
            )
        return d.move("REVIEW", "PROOF.md status: complete: the referee checks it")
    if pending_grant(folder, state.problem) == "accept-partial":
        return d.move("LATEX_OUTPUT", "the user accepted partial results", approved=True)
    return d.spawn(
        "PROOF_DEVELOPMENT", f"PROOF.md status: {status or 'unset'}, no flags: another pass"
    )


def _checks_passed(folder: Path) -> str | None:
    """Why a complete PROOF.md goes to the referee with no pass of the proof agent's after the
    computations: its last pass asked for them (computation_needed: true), every one is answered
    and none failed, and no run refutes a step as it stands (a pass that would only set the
    flag back: a play in the real host spent a whole proof pass on it). None otherwise."""
    proof = artifact(folder, "PROOF.md") or {}
    asked = _flag(proof, "computation_needed") and not _flag(proof, "literature_needed")
    if str(proof.get("status") or "").lower() != "complete" or not asked:
        return None
    if review.unanswered_requests(folder) or computation.failed_requests(folder):
        return None
    proof_md = read_text(folder / "PROOF.md", "PROOF.md")
    if review.completeness_errors(proof_md, review.review_text(folder)):
        return None
    runs = computation.vouched_runs(folder)
    for step in review.steps(proof_md):
        updated = step.fields.get("Updated", "").strip()
        if step.status != "abandoned" and smallcases.refuting(step.name, runs, updated):
            return None
    return (
        "PROOF.md is complete and the computations its last pass asked for refute none of its "
        "steps: the referee checks it"
    )


def _computation(d: _Deciding) -> Step:
    comp = artifact(d.folder, "COMPUTATION.md") or {}
    status = str(comp.get("status") or "").lower()
    open_requests = review.unanswered_requests(d.folder)
    pending = computation.pending_interpretations(d.folder)
    d.step["flags"] = {
        "COMPUTATION.md": {
            "status": status or None,
            "unanswered": open_requests,
            "interpretation_pending": pending,
        }
    }
    if open_requests:
        numbers = ", ".join(map(str, open_requests))
        return d.spawn("COMPUTATION", f"PROOF.md's requests {numbers} are not yet answered")
    if pending:
        numbers = ", ".join(map(str, pending))
        return d.spawn(
            "COMPUTATION",
            f"the Interpretation of computations {numbers} is not written",
            f"Write the Interpretation of computations {numbers} in COMPUTATION.md (and "
            "their Summary rows); every request already has its run.",
        )
    failed = computation.failed_requests(d.folder)
    why = (
        f"requests {', '.join(map(str, failed))} failed; see the errors"
        if failed
        else "results ready"
    )
    return d.move("PROOF_DEVELOPMENT", f"COMPUTATION.md answers every request ({why})")


def _review(d: _Deciding) -> Step:
    if not _fresh(d.folder, "REVIEW.md", d.state):
        return d.spawn("REVIEW", "REVIEW.md not written since this state was entered")
    summary, errors = review.current(d.folder)
    if summary is None:
        d.step["flags"] = {"REVIEW.md": {"errors": errors}}
        return d.spawn(
            "REVIEW",
            "REVIEW.md cannot be routed on: " + "; ".join(errors),
            "REVIEW.md cannot be used yet: " + "; ".join(errors) + ". Correct it and run "
            "review.py seal.",
        )
    d.step["flags"] = {"REVIEW.md": dict(summary)}
    if summary["verdict"] == "pass":
        return d.move("LATEX_OUTPUT", f"the referee checked all {summary['steps']} steps")
    found = f"REVIEW.md: {summary['gap']} gaps, {summary['wrong']} wrong steps"
    if d.state.loops.get("proof-review", 0) < LOOP_CAP:
        return d.move("PROOF_DEVELOPMENT", found)
    return d.at_cap("PROOF_DEVELOPMENT", f"{found}; proof-review loop at its cap of {LOOP_CAP}")


def _latex_output(d: _Deciding) -> Step:
    if not _fresh(d.folder, "OUTPUT.tex", d.state):
        return d.spawn("LATEX_OUTPUT", "OUTPUT.tex not written since this state was entered")
    violations = latex_violations(d.folder)
    if [violation["kind"] for violation in violations] in (["no_tex"], ["no_pdftotext"]):
        d.step["violations"] = violations  # no agent can install TeX: the user decides
        return d.ask(violations[0]["message"], ())
    if violations:
        d.step["violations"] = violations
        return d.spawn(
            "LATEX_OUTPUT",
            f"OUTPUT.tex fails latex.py check ({len(violations)} violations): fix them",
        )
    return d.move("DONE", "OUTPUT.tex written and latex.py check passes")


def _done(d: _Deciding) -> Step:
    violations = latex_violations(d.folder)  # DONE's grounds again: the files may have changed
    if violations:
        d.step["violations"] = violations
        return d.ask(
            "the run is marked DONE, but "
            + "; ".join(v["message"] for v in violations)
            + ": fix the write-up by hand and compile it again, or archive the run as it "
            "stands with state.py archive-session --partial",
            (),
        )
    d.step["action"] = "done"
    d.step["reason"] = "the run is finished; archive it with state.py archive-session"
    return d.step


# What each state's step reads and decides (DONE checks its grounds again).
STEPS = {
    "INTAKE": _intake,
    "LITERATURE_SEARCH": _literature_search,
    "PROOF_DEVELOPMENT": _proof_development,
    "COMPUTATION": _computation,
    "REVIEW": _review,
    "LATEX_OUTPUT": _latex_output,
    "DONE": _done,
}


def next_step(folder: Path, slug: str) -> Step:
    """What the orchestrator does next, decided from frontmatter flags only.

    Returns `action` (`spawn`, `transition`, `ask_user` or `done`), and with it `transition`
    ({to, reason} to record first, or None), `spawn` (the agent to run after it, or None),
    `task` (what that agent is asked to do; its inputs it takes from `state.py brief`),
    `reason` (why the router chose this step), and for `ask_user` the `options`.
    """
    state, _, _ = load(folder, slug)
    step: Step = {
        "problem": state.problem,
        "dir": str(folder),
        "state": state.current_state,
        "loops": state.loops,
        "loop_cap": LOOP_CAP,
        "action": None,
        "transition": None,
        "spawn": None,
        "reason": "",
        "task": None,
        "options": [],
        "flags": {},
    }
    return STEPS[state.current_state](_Deciding(folder, state, step))

"""The research loop's state machine over a problem's STATE.md.

States and moves (architecture seed, "State Machine"):

    INTAKE -> LITERATURE_SEARCH -> PROOF_DEVELOPMENT -> REVIEW -> LATEX_OUTPUT -> DONE
                    ^                 |      |   ^   ^      |
                    +-----------------+      v   |   +------+ (a gap or a wrong step)
                  (needs references)     COMPUTATION (results ready)

The back-edges each start a loop, counted per pair in STATE.md (`loops: {proof-literature: N,
proof-computation: N, proof-review: N}`). A fourth loop of a pair is refused until the user
approves it: research can loop forever, tokens cannot. The user approves by typing
`/math:research continue` (or `accept-partial`): the plugin's UserPromptSubmit hook
(hooks/user_approval.py) records that in the plugin's data folder (approval.py), outside the
workspace, and a move with user_approved uses it up; the model's own calls cannot write it.

A proof reaches LATEX_OUTPUT only through REVIEW, with a REVIEW.md (review.py) in which the
referee checked every step, sealed on the PROOF.md there now; or on the user's accept-partial.

STATE.md carries `digest`, a SHA-256 of its routing fields: a hand edit (`current_state: DONE`)
no longer matches it and is refused (code `state_tampered`).

`next_step` decides what happens next from the artifacts' frontmatter alone (and whether each
artifact was written since the current state was entered; in COMPUTATION, also which numbered
requests of PROOF.md have a run in COMPUTATION.md), never from their mathematics.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..core import clock, frontmatter
from ..core.errors import BadInput
from ..core.files import atomic_write, read_text
from ..core.locks import locked
from ..core.templates import instantiate
from . import computation, latex, review
from .approval import CHOICES as GRANTS
from .approval import approval_file

STATES = (
    "INTAKE",
    "LITERATURE_SEARCH",
    "PROOF_DEVELOPMENT",
    "COMPUTATION",
    "REVIEW",
    "LATEX_OUTPUT",
    "DONE",
)
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "INTAKE": ("LITERATURE_SEARCH",),
    "LITERATURE_SEARCH": ("PROOF_DEVELOPMENT",),
    "PROOF_DEVELOPMENT": ("LITERATURE_SEARCH", "COMPUTATION", "REVIEW", "LATEX_OUTPUT"),
    "COMPUTATION": ("PROOF_DEVELOPMENT",),
    "REVIEW": ("PROOF_DEVELOPMENT", "LATEX_OUTPUT"),
    "LATEX_OUTPUT": ("DONE",),
    "DONE": (),
}
# The back-edges, and the loop each one counts.
LOOPS = {
    ("PROOF_DEVELOPMENT", "LITERATURE_SEARCH"): "proof-literature",
    ("PROOF_DEVELOPMENT", "COMPUTATION"): "proof-computation",
    ("REVIEW", "PROOF_DEVELOPMENT"): "proof-review",
}
LOOP_CAP = 3
# The agent that works in each state, and the file that shows it has worked.
AGENTS = {
    "LITERATURE_SEARCH": "math:literature-search",
    "PROOF_DEVELOPMENT": "math:proof",
    "COMPUTATION": "math:computation",
    "REVIEW": "math:referee",
    "LATEX_OUTPUT": "math:latex-writer",
}
PRODUCES = {
    "LITERATURE_SEARCH": "LITERATURE.md",
    "PROOF_DEVELOPMENT": "PROOF.md",
    "COMPUTATION": "COMPUTATION.md",
    "REVIEW": "REVIEW.md",
    "LATEX_OUTPUT": "OUTPUT.tex",
}
# What each agent reads (the orchestrator @-references those that exist).
READS = {
    "LITERATURE_SEARCH": ("PROBLEM.md", "LITERATURE.md", "PROOF.md", "JOURNAL.md"),
    "PROOF_DEVELOPMENT": (
        "PROBLEM.md",
        "LITERATURE.md",
        "PROOF.md",
        "COMPUTATION.md",
        "REVIEW.md",
        "JOURNAL.md",
        "NOTATION.md",
    ),
    "COMPUTATION": ("PROBLEM.md", "PROOF.md", "COMPUTATION.md"),
    "REVIEW": ("PROBLEM.md", "PROOF.md", "LITERATURE.md", "COMPUTATION.md", "REVIEW.md"),
    "LATEX_OUTPUT": (
        "PROBLEM.md",
        "LITERATURE.md",
        "PROOF.md",
        "REVIEW.md",
        "COMPUTATION.md",
        "NOTATION.md",
        "references.bib",
    ),
}
# A problem's files, as `show` lists them and sessions.archive_session snapshots them.
SESSION_FILES = (
    "PROBLEM.md",
    "NOTATION.md",
    "LITERATURE.md",
    "JOURNAL.md",
    "STATE.md",
    "PROOF.md",
    "COMPUTATION.md",
    "REVIEW.md",
    "OUTPUT.tex",
    "OUTPUT.pdf",
    "references.bib",
)
USER_OPTIONS = ("continue", "redirect", "accept-partial")
DIGESTED = ("problem", "current_state", "loops", "history", "entered_at")
# The values PROOF.md's routing flags may take (agents/proof.md, "Frontmatter").
PROOF_STATUSES = ("strategy", "in-progress", "gaps-identified", "complete", "stuck")
PROOF_FLAGS = ("computation_needed", "literature_needed")


@dataclass
class State:
    """STATE.md's frontmatter."""

    problem: str
    current_state: str = "INTAKE"
    loops: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LOOPS.values(), 0))
    history: list[str] = field(default_factory=list)
    updated: str | None = None
    entered_at: str | None = None  # when current_state was entered (artifacts newer are fresh)

    def entered(self) -> float:
        """Seconds since the epoch at which the current state was entered (0: unknown)."""
        if not self.entered_at:
            return 0.0
        try:
            return clock.parse(self.entered_at).timestamp()
        except ValueError:
            raise BadInput(
                f"STATE.md: entered_at {self.entered_at!r} is not an ISO 8601 time",
                code="bad_state",
            ) from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "current_state": self.current_state,
            "loops": self.loops,
            "history": self.history,
            "transitions_available": list(TRANSITIONS[self.current_state]),
            "updated": self.updated,
            "entered_at": self.entered_at,
            "digest": digest_of(self.__dict__),
        }


def digest_of(fields: dict[str, Any]) -> str:
    """SHA-256 of STATE.md's routing fields (DIGESTED), as state.py last wrote them."""
    data = {key: fields.get(key) for key in DIGESTED}
    moment = data["entered_at"]
    if moment:  # YAML reads a time back as a datetime: compare the instant, not its spelling
        try:
            data["entered_at"] = clock.parse(_text(moment) or "").timestamp()
        except ValueError:
            data["entered_at"] = str(moment)
    data["loops"] = {k: v for k, v in sorted((data["loops"] or {}).items()) if v}
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


def state_path(folder: Path) -> Path:
    return folder / "STATE.md"


def load(folder: Path, slug: str) -> tuple[State, dict[str, Any], str]:
    """(State, the whole frontmatter, body) of folder/STATE.md; a missing file is a fresh INTAKE."""
    path = state_path(folder)
    if not path.exists():  # the body new-problem writes, from the one template
        return (
            State(problem=slug),
            {},
            frontmatter.split(instantiate("STATE.md", {"title": slug}, {}))[1],
        )
    data, body = frontmatter.split(read_text(path, path.name), str(path))
    current = data.get("current_state") or "INTAKE"
    if current not in STATES:
        raise BadInput(
            f"{path}: current_state {current!r} is not one of {', '.join(STATES)}",
            code="bad_state",
        )
    loops = dict.fromkeys(LOOPS.values(), 0)
    raw_loops = data.get("loops") or {}
    if not isinstance(raw_loops, dict):
        raise BadInput(f"{path}: loops must be a mapping like {loops}", code="bad_state")
    for pair, count in raw_loops.items():
        if not isinstance(count, int) or count < 0:
            raise BadInput(f"{path}: loops.{pair} must be a whole number", code="bad_state")
        loops[str(pair)] = count
    history = data.get("history") or []
    if not isinstance(history, list):
        raise BadInput(f"{path}: history must be a list", code="bad_state")
    state = State(
        problem=str(data.get("problem") or slug),
        current_state=current,
        loops=loops,
        history=[str(entry) for entry in history],
        updated=_text(data.get("updated")),
        entered_at=_text(data.get("entered_at")),
    )
    fresh = current == "INTAKE" and not state.history
    if data.get("digest") != digest_of(state.__dict__) and not (fresh and "digest" not in data):
        raise BadInput(
            f"{path} was edited by hand: its digest does not match its current_state, loops and "
            "history, so the state machine does not trust it. Only state.py moves a run; undo "
            "the edit (its history says where the run was), or archive the run with "
            "state.py archive-session --partial after restoring it",
            code="state_tampered",
        )
    return state, data, body


def _text(value: Any) -> str | None:
    if value in (None, ""):
        return None
    return value.isoformat() if isinstance(value, datetime) else str(value)


def save(folder: Path, state: State, data: dict[str, Any], body: str) -> None:
    # Fields another tool added to the frontmatter are kept, after ours.
    merged = {**state.to_dict(), **{k: v for k, v in data.items() if k not in state.to_dict()}}
    atomic_write(state_path(folder), frontmatter.render(merged, body))


def check_move(state: State, to: str, user_approved: bool = False) -> str | None:
    """Raise BadInput when `to` is not a legal move now; return the loop it would count, if any."""
    if to not in STATES:
        raise BadInput(f"unknown state {to!r}; the states are {', '.join(STATES)}", code="usage")
    here = state.current_state
    if to not in TRANSITIONS[here]:
        legal = ", ".join(TRANSITIONS[here]) or "none (the run is finished; archive it)"
        raise BadInput(
            f"illegal transition {here} -> {to}; from {here} the legal moves are: {legal}",
            code="illegal_transition",
        )
    loop = LOOPS.get((here, to))
    if loop and state.loops.get(loop, 0) >= LOOP_CAP and not user_approved:
        raise BadInput(
            f"the {loop} loop has already run {state.loops[loop]} times (cap {LOOP_CAP}); "
            f"do not loop again on your own: present the state to the user and ask whether to "
            f"continue (the user types /math:research continue), redirect, or accept partial "
            f"results (the user types /math:research accept-partial)",
            code="loop_cap",
        )
    return loop


def check_grounds(folder: Path, here: str, to: str, partial: bool = False) -> None:
    """Raise BadInput when the files do not justify the move `here` -> `to` (the move itself is
    legal): a proof sent to review must be complete by its own rules, a computation needs a
    request to answer, a write-up needs a passing review (unless the user accepted partial
    results), and DONE needs an OUTPUT.tex that passes the check (and is compiled, when LaTeX
    is installed)."""
    proof = folder / "PROOF.md"
    proof_md = read_text(proof, proof.name) if proof.exists() else ""
    if to == "REVIEW":
        data = _artifact(folder, "PROOF.md") or {}
        errors = (
            [] if str(data.get("status", "")).lower() == "complete" else ["status is not complete"]
        )
        errors += review.completeness_errors(proof_md)
        errors += [f"Request {n} is not answered" for n in review.unanswered_requests(folder)]
        if errors:
            raise BadInput(
                "PROOF.md is not a complete proof, so it goes to no review: " + "; ".join(errors),
                code="proof_incomplete",
            )
    if (
        to == "COMPUTATION"
        and here == "PROOF_DEVELOPMENT"
        and not review.unanswered_requests(folder)
    ):
        raise BadInput(
            "PROOF.md asks for no computation that COMPUTATION.md has not answered "
            "(no open `### Request N`), so there is nothing to compute",
            code="no_request",
        )
    if to == "LATEX_OUTPUT" and not partial:
        summary, errors = review.current(folder)
        if summary is None or summary["verdict"] != "pass":
            why = (
                "; ".join(errors)
                if errors
                else (
                    f"the referee found {summary['gap']} gaps and {summary['wrong']} wrong steps"
                    if summary
                    else "no review"
                )
            )
            raise BadInput(
                "no write-up without a REVIEW.md in which the referee checked every step: " + why,
                code="not_reviewed",
            )
    if to == "DONE":
        violations = latex_violations(folder)
        if violations:
            raise BadInput(
                f"OUTPUT.tex does not pass latex.py check ({len(violations)} violations), "
                "so the run is not DONE: " + "; ".join(v["message"] for v in violations),
                code="latex_check_failed",
            )


def approval_path(folder: Path) -> Path:
    """The approval record for a problem folder .math/problems/<slug>/ (approval.py)."""
    return approval_file(folder.parent.parent)


def pending_grant(folder: Path, slug: str) -> str | None:
    """The choice the user granted by typing /math:research continue|accept-partial, for this
    problem (or for whichever the workspace works on), not yet used; None otherwise."""
    path = approval_path(folder)
    try:
        grant = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(grant, dict) or grant.get("choice") not in GRANTS:
        return None
    if grant.get("problem") not in (None, "", slug):
        return None
    return str(grant["choice"])


def _use_grant(folder: Path, slug: str, wanted: str) -> None:
    if pending_grant(folder, slug) != wanted:
        raise BadInput(
            f"no approval from the user: only the user grants '{wanted}', by typing "
            f"/math:research {wanted} (the plugin records it as they type it); a call of "
            "the model's own cannot",
            code="needs_user",
        )
    approval_path(folder).unlink(missing_ok=True)


def transition(
    folder: Path, slug: str, to: str, reason: str, user_approved: bool = False
) -> dict[str, Any]:
    """Move the problem to state `to`, recording why; refuses illegal moves and capped loops."""
    reason = " ".join(reason.split())
    if not reason:
        raise BadInput("a transition needs a --reason", code="usage")
    with locked(state_path(folder)):
        state, data, body = load(folder, slug)
        here = state.current_state
        loop = check_move(state, to, user_approved)
        partial = user_approved and to == "LATEX_OUTPUT"
        check_grounds(folder, here, to, partial)
        if user_approved:
            _use_grant(folder, slug, "accept-partial" if partial else "continue")
        if loop:
            state.loops[loop] = state.loops.get(loop, 0) + 1
        moment = clock.now()
        note = (
            " [partial results, accepted by the user]"
            if partial
            else " [beyond the loop cap, approved by the user]"
            if user_approved
            else ""
        )
        state.history.append(f"{clock.stamp(moment)} {here} -> {to} ({reason}){note}")
        state.current_state = to
        state.updated = state.entered_at = clock.stamp(moment, microseconds=True)
        save(folder, state, data, body)
    return {"from": here, "to": to, "reason": reason, "loop": loop, **state.to_dict()}


def record_search(folder: Path, slug: str, what: str) -> str:
    """/math:literature's search in STATE.md, so that /math:research spends no move on it: in
    INTAKE with a defined problem it is the move to LITERATURE_SEARCH (whose `next` then takes
    the search already made); in any other state a line in the history. Returns the state."""
    with locked(state_path(folder)):
        state, data, body = load(folder, slug)
        moment = clock.now()
        here = state.current_state
        problem = _artifact(folder, "PROBLEM.md")
        defined = problem is not None and str(problem.get("status", "")).lower() not in (
            "draft",
            "intake",
        )
        if here == "INTAKE" and defined:
            state.history.append(
                f"{clock.stamp(moment)} INTAKE -> LITERATURE_SEARCH (literature searched by "
                f"/math:literature: {what})"
            )
            state.current_state = "LITERATURE_SEARCH"
            state.entered_at = clock.stamp(moment, microseconds=True)
        else:
            state.history.append(f"{clock.stamp(moment)} {here}: /math:literature search ({what})")
        state.updated = clock.stamp(moment, microseconds=True)
        save(folder, state, data, body)
    return state.current_state


def advance(folder: Path, slug: str) -> dict[str, Any]:
    """`next`, with every move recorded that needs no agent and no user: the step that comes
    after them (the agent to spawn in the state reached, a question, or done), with the moves
    made in `applied`. A move the machine refuses raises, as `transition` would."""
    applied = []
    for _ in range(len(STATES) + 1):  # each move leaves a state; a cycle would need an agent
        step = next_step(folder, slug)
        if step["action"] != "transition":
            break
        move = step["transition"]
        transition(folder, slug, move["to"], move["reason"], bool(move.get("user_approved")))
        applied.append(move)
    step["applied"] = applied
    step["history"] = load(folder, slug)[0].history  # for the orchestrator's report
    return step


def latex_violations(folder: Path) -> list[dict[str, Any]]:
    """What `latex.py check` finds wrong with folder/OUTPUT.tex (a missing file is one), against
    the referee's review; and, where LaTeX is installed, an OUTPUT.pdf older than OUTPUT.tex."""
    try:
        violations = latex.check_folder(folder, require_review=True)[1]
    except BadInput as exc:
        return [{"kind": exc.code, "message": exc.message}]
    tex, pdf = folder / "OUTPUT.tex", folder / "OUTPUT.pdf"
    if any(shutil.which(tool) for tool in ("latexmk", "pdflatex")) and (
        not pdf.exists() or pdf.stat().st_mtime < tex.stat().st_mtime
    ):
        violations.append(
            {
                "kind": "not_compiled",
                "message": "LaTeX is installed but OUTPUT.pdf is missing or older than "
                "OUTPUT.tex: compile it with latex.py compile",
            }
        )
    return violations


def proof_md_errors(proof: dict[str, Any], folder: Path | None = None) -> list[str]:
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


def show(folder: Path, slug: str) -> dict[str, Any]:
    """STATE.md as a dict, with the folder and the artifacts that exist in it."""
    state, _, _ = load(folder, slug)
    files = [str(folder / name) for name in SESSION_FILES if (folder / name).exists()]
    return {"dir": str(folder), **state.to_dict(), "files": files}


def _artifact(folder: Path, name: str) -> dict[str, Any] | None:
    """The frontmatter of folder/name ({} for a file without one), or None if it does not exist."""
    path = folder / name
    if not path.exists():
        return None
    if path.suffix != ".md":
        return {}
    return frontmatter.read(read_text(path, path.name), str(path))


def _fresh(folder: Path, name: str, state: State) -> bool:
    """Was folder/name written after the current state was entered (i.e. has its agent run)?"""
    path = folder / name
    return path.exists() and path.stat().st_mtime > state.entered()


def _flag(data: dict[str, Any], key: str) -> bool:
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
            "hold; close its gaps."
        )
    if in_state == "COMPUTATION":
        return "Answer PROOF.md's open computation requests in COMPUTATION.md."
    if in_state == "REVIEW":
        return (
            "Referee PROOF.md: check every step against the REF statements it cites and "
            "COMPUTATION.md, write REVIEW.md and seal it with review.py seal."
        )
    return "Write OUTPUT.tex from PROOF.md and LITERATURE.md so that latex.py check passes."


def next_step(folder: Path, slug: str) -> dict[str, Any]:
    """What the orchestrator does next, decided from frontmatter flags only.

    Returns `action` (`spawn`, `transition`, `ask_user` or `done`), and with it `transition`
    ({to, reason} to record first, or None), `spawn` (the agent to run after it, or None),
    `task` (what that agent is asked to do), `inputs` (the files it reads), `reason` (why the
    router chose this step), and for `ask_user` the `options`.
    """
    state, _, _ = load(folder, slug)
    here = state.current_state
    step: dict[str, Any] = {
        "problem": state.problem,
        "dir": str(folder),
        "state": here,
        "loops": state.loops,
        "loop_cap": LOOP_CAP,
        "action": None,
        "transition": None,
        "spawn": None,
        "inputs": [],
        "reason": "",
        "task": None,
        "options": [],
        "flags": {},
    }

    def spawn(in_state: str, reason: str) -> dict[str, Any]:
        step["spawn"] = AGENTS[in_state]
        step["task"] = task(in_state, folder, state)
        step["inputs"] = [str(folder / n) for n in READS[in_state] if (folder / n).exists()]
        step["reason"] = reason
        step["action"] = step["action"] or "spawn"
        return step

    def move(
        to: str, reason: str, spawn_agent: bool = True, approved: bool = False
    ) -> dict[str, Any]:
        """A transition to `to`, spawning that state's agent unless there is none to spawn."""
        step["action"] = "transition"
        step["transition"] = {"to": to, "reason": reason}
        if approved:
            step["transition"]["user_approved"] = True
        if to == "DONE" or not spawn_agent:
            step["reason"] = reason
            return step
        return spawn(to, reason)

    def ask(reason: str, options: tuple[str, ...] = USER_OPTIONS) -> dict[str, Any]:
        step.update(action="ask_user", reason=reason, options=list(options))
        return step

    if here == "INTAKE":
        problem = _artifact(folder, "PROBLEM.md")
        if problem is None or str(problem.get("status", "")).lower() in ("draft", "intake"):
            return ask("PROBLEM.md is missing or still a draft: run /math:problem first", ())
        step["flags"] = {"PROBLEM.md": {"status": problem.get("status")}}
        lit = _artifact(folder, "LITERATURE.md") or {}
        if lit.get("last_search"):
            # The user ran /math:literature first: record the move but spawn no second search;
            # `next` in LITERATURE_SEARCH then takes the search already made.
            count = lit.get("confirmed_count")
            reason = f"problem defined; literature already searched: {count} confirmed references"
            step["flags"]["LITERATURE.md"] = {"confirmed_count": count}
            return move("LITERATURE_SEARCH", reason, spawn_agent=False)
        return move("LITERATURE_SEARCH", "problem defined")

    if here == "LITERATURE_SEARCH":
        lit = _artifact(folder, "LITERATURE.md") or {}
        count = lit.get("confirmed_count")
        step["flags"] = {
            "LITERATURE.md": {"confirmed_count": count, "last_search": lit.get("last_search")}
        }
        found = f": {count} confirmed references" if count is not None else ""
        if _fresh(folder, "LITERATURE.md", state):
            return move("PROOF_DEVELOPMENT", f"literature search done{found}")
        # On the first visit (no proof has asked for references yet) a search the user already
        # ran with /math:literature counts; a proof's request needs a new one.
        if state.loops.get("proof-literature", 0) == 0 and lit.get("last_search"):
            return move("PROOF_DEVELOPMENT", f"literature already searched{found}")
        return spawn("LITERATURE_SEARCH", "LITERATURE.md not yet written in this state")

    if here == "PROOF_DEVELOPMENT":
        if not _fresh(folder, "PROOF.md", state):
            return spawn("PROOF_DEVELOPMENT", "PROOF.md not yet written in this state")
        proof = _artifact(folder, "PROOF.md") or {}
        errors = proof_md_errors(proof, folder)
        if errors:
            step["flags"] = {"PROOF.md": {"errors": errors}}
            return ask(
                "PROOF.md frontmatter cannot be routed on (" + "; ".join(errors) + "): redirect "
                "the proof agent to correct it, or correct it by hand",
                ("redirect",),
            )
        status = str(proof.get("status") or "").lower()
        wants_computation = _flag(proof, "computation_needed")
        wants_literature = _flag(proof, "literature_needed")
        step["flags"] = {
            "PROOF.md": {
                "status": status or None,
                "computation_needed": wants_computation,
                "literature_needed": wants_literature,
            }
        }
        if status == "stuck":
            return ask("PROOF.md status: stuck (the proof agent cannot go on without a new idea)")
        capped = []
        for wanted, to, flag in (
            (wants_computation, "COMPUTATION", "computation_needed"),
            (wants_literature, "LITERATURE_SEARCH", "literature_needed"),
        ):
            if not wanted:
                continue
            loop = LOOPS[("PROOF_DEVELOPMENT", to)]
            if state.loops.get(loop, 0) < LOOP_CAP:
                return move(to, f"PROOF.md {flag}: true")
            capped.append(f"{loop} loop at its cap of {LOOP_CAP} ({flag}: true)")
        if capped:
            grant = pending_grant(folder, state.problem)
            if grant == "continue":
                to = "COMPUTATION" if wants_computation else "LITERATURE_SEARCH"
                return move(to, "the user typed /math:research continue", approved=True)
            if grant == "accept-partial":
                return move("LATEX_OUTPUT", "the user accepted partial results", approved=True)
            return ask("; ".join(capped))
        if status == "complete":
            proof_md = read_text(folder / "PROOF.md", "PROOF.md")
            problems = review.completeness_errors(proof_md) + [
                f"Request {n} is not answered" for n in review.unanswered_requests(folder)
            ]
            if problems:
                step["flags"]["PROOF.md"]["incomplete"] = problems
                spawn("PROOF_DEVELOPMENT", "PROOF.md says complete, but: " + "; ".join(problems))
                step["task"] = (
                    "PROOF.md says `status: complete`, but " + "; ".join(problems) + ". Finish "
                    "those steps and gaps, or set the status that is true (gaps-identified, "
                    "in-progress) and the flags they need."
                )
                return step
            return move("REVIEW", "PROOF.md status: complete: the referee checks it")
        if pending_grant(folder, state.problem) == "accept-partial":
            return move("LATEX_OUTPUT", "the user accepted partial results", approved=True)
        return spawn(
            "PROOF_DEVELOPMENT", f"PROOF.md status: {status or 'unset'}, no flags: another pass"
        )

    if here == "COMPUTATION":
        comp = _artifact(folder, "COMPUTATION.md") or {}
        status = str(comp.get("status") or "").lower()
        open_requests = review.unanswered_requests(folder)
        pending = computation.pending_interpretations(folder)
        step["flags"] = {
            "COMPUTATION.md": {
                "status": status or None,
                "unanswered": open_requests,
                "interpretation_pending": pending,
            }
        }
        if open_requests:
            numbers = ", ".join(map(str, open_requests))
            return spawn("COMPUTATION", f"PROOF.md's requests {numbers} are not yet answered")
        if pending:
            numbers = ", ".join(map(str, pending))
            spawn("COMPUTATION", f"the Interpretation of computations {numbers} is not written")
            step["task"] = (
                f"Write the Interpretation of computations {numbers} in COMPUTATION.md (and "
                "their Summary rows); every request already has its run."
            )
            return step
        failed = computation.failed_requests(folder)
        why = (
            f"requests {', '.join(map(str, failed))} failed; see the errors"
            if failed
            else "results ready"
        )
        return move("PROOF_DEVELOPMENT", f"COMPUTATION.md answers every request ({why})")

    if here == "REVIEW":
        if not _fresh(folder, "REVIEW.md", state):
            return spawn("REVIEW", "REVIEW.md not yet written in this state")
        summary, errors = review.current(folder)
        if summary is None:
            step["flags"] = {"REVIEW.md": {"errors": errors}}
            spawn("REVIEW", "REVIEW.md cannot be routed on: " + "; ".join(errors))
            step["task"] = (
                "REVIEW.md cannot be used yet: " + "; ".join(errors) + ". Correct it and run "
                "review.py seal."
            )
            return step
        step["flags"] = {"REVIEW.md": summary}
        if summary["verdict"] == "pass":
            return move("LATEX_OUTPUT", f"the referee checked all {summary['steps']} steps")
        found = f"REVIEW.md: {summary['gap']} gaps, {summary['wrong']} wrong steps"
        if state.loops.get("proof-review", 0) < LOOP_CAP:
            return move("PROOF_DEVELOPMENT", found)
        grant = pending_grant(folder, state.problem)
        if grant == "continue":
            return move(
                "PROOF_DEVELOPMENT", "the user typed /math:research continue", approved=True
            )
        if grant == "accept-partial":
            return move("LATEX_OUTPUT", "the user accepted partial results", approved=True)
        return ask(f"{found}; proof-review loop at its cap of {LOOP_CAP}")

    if here == "LATEX_OUTPUT":
        if not _fresh(folder, "OUTPUT.tex", state):
            return spawn("LATEX_OUTPUT", "OUTPUT.tex not yet written in this state")
        violations = latex_violations(folder)
        if violations:
            step["violations"] = violations
            return spawn(
                "LATEX_OUTPUT",
                f"OUTPUT.tex fails latex.py check ({len(violations)} violations): fix them",
            )
        return move("DONE", "OUTPUT.tex written and latex.py check passes")

    step.update(
        action="done", reason="the run is finished; archive it with state.py archive-session"
    )
    return step

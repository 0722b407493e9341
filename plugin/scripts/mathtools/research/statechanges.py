"""The research loop's moves over a problem's STATE.md (stateread.py): each one checked against
the machine, the loop cap, the user's approval and the files, then recorded.

A fourth loop of a back-edge pair is refused until the user approves it: research can loop
forever, tokens cannot. The user approves by typing `/math:research continue` (or
`accept-partial`): the plugin's UserPromptSubmit hook (hooks/user_approval.py) records that in the
plugin's data folder (approval.py), outside the workspace, and a move with user_approved uses it
up; the model's own calls cannot write it.

A proof reaches LATEX_OUTPUT only through REVIEW, with a REVIEW.md (review.py) in which the
referee checked every step, sealed on the PROOF.md there now; or on the user's accept-partial.
DONE needs an OUTPUT.tex that passes latex.py check and the OUTPUT.pdf `latex.py compile` made
from it as it is now (texbuild.py), or, without TeX and with "tex_only" chosen, its tex-only record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TypedDict

from ..core import BadInput, locked, now, read_frontmatter, read_text, stamp
from . import computation, outputtex, pdftext, review, signing, texbuild, texcheck
from .approval import CHOICES as GRANTS
from .approval import approval_file, typed_by_user
from .stateread import (
    LOOP_CAP,
    LOOPS,
    STATES,
    TRANSITIONS,
    State,
    StateFields,
    load,
    save,
    state_path,
)


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


def check_grounds(
    folder: Path, state: State, to: str, partial: bool = False, approved: bool = False
) -> None:
    """Raise BadInput when the files do not justify the move from `state` to `to` (the move
    itself is legal): the proof starts after a recorded literature search (or on the user's
    approval), a proof sent to review must be complete by its own rules, a computation needs a
    request to answer, a write-up needs a passing review (unless the user accepted partial
    results), and DONE needs an OUTPUT.tex that passes the check and compiled (latex_violations)."""
    here = state.current_state
    if here == "LITERATURE_SEARCH" and not approved and literature_outcome(folder, state) is None:
        raise BadInput(
            "no literature search was recorded in this state (literature.py finish records one, "
            "also one that found nothing), so the proof does not start yet: run the search, or "
            "the user types /math:research continue to go on without it",
            code="no_search",
        )
    proof = folder / "PROOF.md"
    proof_md = read_text(proof, proof.name) if proof.exists() else ""
    if to == "REVIEW":
        data = artifact(folder, "PROOF.md") or {}
        errors = (
            [] if str(data.get("status", "")).lower() == "complete" else ["status is not complete"]
        )
        errors += review.completeness_errors(proof_md, review.review_text(folder))
        errors += computation.unanswered_lines(folder, review.unanswered_requests(folder))
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
    if to == "LATEX_OUTPUT" and partial:  # without a review; with one, review.current checks it
        unsealed = review.sealed_proved(proof_md, review.review_text(folder))[1]
        if unsealed:
            raise BadInput(
                "no write-up of a PROOF.md with a [P] the referee's seal did not give: "
                + "; ".join(unsealed),
                code="unsealed_proved",
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
                f"OUTPUT.tex does not pass latex.py check and compile ({len(violations)} "
                "violations), so the run is not DONE: "
                + "; ".join(v["message"] for v in violations),
                code="latex_check_failed",
            )


def approval_path(folder: Path) -> Path:
    """The approval record for a problem folder .math/problems/<slug>/ (approval.py)."""
    return approval_file(folder.parent.parent)


def pending_grant(folder: Path, slug: str) -> str | None:
    """The choice the user granted by typing /math:research continue|accept-partial, for this
    problem (or for whichever the workspace works on), not yet used, and still the user's last
    message in the session the hook recorded it from (approval.typed_by_user: a record the model
    forged names no transcript that holds it); None otherwise."""
    path = approval_path(folder)
    try:
        grant = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(grant, dict) or grant.get("choice") not in GRANTS:
        return None
    if grant.get("problem") not in (None, "", slug) or typed_by_user(grant) is not None:
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


_MovedFrom = TypedDict("_MovedFrom", {"from": str})  # `from` cannot be a class field


class Moved(_MovedFrom, StateFields):
    """`transition`: the move made (the loop it counted, if any) and the state it led to."""

    to: str
    reason: str
    loop: str | None


def transition(folder: Path, slug: str, to: str, reason: str, user_approved: bool = False) -> Moved:
    """Move the problem to state `to`, recording why; refuses illegal moves and capped loops."""
    reason = " ".join(reason.split())
    if not reason:
        raise BadInput("a transition needs a --reason", code="usage")
    with locked(state_path(folder)):
        state, data, body = load(folder, slug)
        here = state.current_state
        loop = check_move(state, to, user_approved)
        partial = user_approved and to == "LATEX_OUTPUT"
        check_grounds(folder, state, to, partial, user_approved)
        if user_approved:
            _use_grant(folder, slug, "accept-partial" if partial else "continue")
        if loop:
            state.loops[loop] = state.loops.get(loop, 0) + 1
        moment = now()
        note = (
            " [partial results, accepted by the user]"
            if partial
            else " [beyond the loop cap, approved by the user]"
            if user_approved
            else ""
        )
        state.history.append(f"{stamp(moment)} {here} -> {to} ({reason}){note}")
        state.current_state = to
        state.updated = state.entered_at = stamp(moment, microseconds=True)
        save(folder, state, data, body)
    return {"from": here, "to": to, "reason": reason, "loop": loop, **state.to_dict()}


class Resigned(TypedDict):
    """`resign`: the problems whose STATE.md was sealed again, and the run records marked again."""

    resealed: list[str]
    runs_remarked: int


def resign(folder: Path, slug: str) -> Resigned:
    """The way back after .math/signing.key was lost or replaced (every mark then fails, and
    every STATE.md reads as hand-edited): on the user's approval (they type /math:research
    resign, having checked the files), seal every problem's STATE.md of the workspace and mark
    every run record again with the key there now. The files are trusted as they are."""
    _use_grant(folder, slug, "resign")
    resealed, remarked = [], 0
    for path in sorted(signing.math_dir_of(folder).glob("problems/*/STATE.md")):
        problem = path.parent
        with locked(path):
            state, data, body = load(problem, problem.name, sealed=False)
            save(problem, state, data, body)
        resealed.append(problem.name)
        remarked += computation.remark_runs(problem)
    return {"resealed": resealed, "runs_remarked": remarked}


def record_search(folder: Path, slug: str, what: str) -> str:
    """A finished literature search in STATE.md, so that /math:research spends no move on it: in
    INTAKE (where only /math:literature searches) with a defined problem it is the move to
    LITERATURE_SEARCH (whose `next` then takes the search already made); in any other state a
    line in the history, naming no command (the user's /math:literature and the loop's agent run
    the same search). Returns the state."""
    with locked(state_path(folder)):
        state, data, body = load(folder, slug)
        moment = now()
        here = state.current_state
        problem = artifact(folder, "PROBLEM.md")
        defined = problem is not None and str(problem.get("status", "")).lower() not in (
            "draft",
            "intake",
        )
        if here == "INTAKE" and defined:
            state.history.append(
                f"{stamp(moment)} INTAKE -> LITERATURE_SEARCH (literature searched by "
                f"/math:literature: {what})"
            )
            state.current_state = "LITERATURE_SEARCH"
            state.entered_at = stamp(moment, microseconds=True)
        else:
            # /math:literature or the loop's agent: the same search, named by neither
            state.history.append(f"{stamp(moment)} {here}: literature search ({what})")
        state.updated = stamp(moment, microseconds=True)
        save(folder, state, data, body)
    return state.current_state


# The history line a literature merge writes in LITERATURE_SEARCH (record_merge), the line a
# finished search writes there (record_search), and the line of the move that entered a state
# (transition): how routing tells a search made in this visit from a LITERATURE.md whose file time
# was merely touched.
LITERATURE_MERGED = "literature merged into LITERATURE.md"
LITERATURE_SEARCHED = "literature search"
_SEARCH_LINE = re.compile(
    rf"^\S+ LITERATURE_SEARCH: (?:{re.escape(LITERATURE_MERGED)}|{LITERATURE_SEARCHED} \()"
)
_MOVE_LINE = re.compile(r"^\S+ [A-Z_]+ -> [A-Z_]+ \(")


def record_merge(literature: Path, what: str) -> bool:
    """A merge into `literature` (a problem's LITERATURE.md) in STATE.md's history, when the
    problem is in LITERATURE_SEARCH: the evidence that the search of this visit was made and
    merged (`searched_this_visit`). Elsewhere nothing is written. Returns whether it was
    recorded."""
    folder = literature.resolve().parent
    if not state_path(folder).exists():
        return False
    with locked(state_path(folder)):
        state, data, body = load(folder, folder.name)
        if state.current_state != "LITERATURE_SEARCH":
            return False
        moment = now()
        state.history.append(f"{stamp(moment)} LITERATURE_SEARCH: {LITERATURE_MERGED} ({what})")
        state.updated = stamp(moment, microseconds=True)
        save(folder, state, data, body)
    return True


def searched_this_visit(state: State) -> bool:
    """Whether a literature merge or a finished search (one that found nothing is an outcome
    too) was recorded since the move into the current state."""
    for line in reversed(state.history):
        if _SEARCH_LINE.match(line):
            return True
        if _MOVE_LINE.match(line):
            return False
    return False


def literature_outcome(folder: Path, state: State) -> str | None:
    """Why LITERATURE_SEARCH may move on to PROOF_DEVELOPMENT now, or None while it may not: a
    search merged or finished in this visit (recorded in STATE.md, not LITERATURE.md's file
    time), or on the first visit (no proof has asked for references yet) the search the user
    already ran with /math:literature. One rule for `next` and `transition`."""
    lit = artifact(folder, "LITERATURE.md") or {}
    count = lit.get("confirmed_count")
    found = (
        ": no prior work found"
        if count in (0, "0", None) and lit.get("last_search")
        else f": {count} confirmed references"
        if count is not None
        else ""
    )
    if searched_this_visit(state):
        return f"literature search done{found}"
    if state.loops.get("proof-literature", 0) == 0 and lit.get("last_search"):
        return f"literature already searched{found}"
    return None


def latex_violations(folder: Path) -> list[outputtex.TexViolation]:
    """What `latex.py check` finds wrong with folder/OUTPUT.tex (a missing file is one), against
    the referee's review; then why OUTPUT.pdf is not the PDF compiled from it now
    (texbuild.compile_violations: without TeX, the install line, unless tex only was chosen);
    then, from the compiled PDF's text, every claim it prints (a Theorem, Lemma, ... head) that
    is neither visibly of a lower tier nor a sealed [P] step's statement
    (pdftext.pdf_claim_violations)."""
    try:
        violations = texcheck.check_folder(folder, require_review=True)[1]
    except BadInput as exc:
        return [{"kind": exc.code, "message": exc.message}]
    compiled = texbuild.compile_violations(folder)
    record = texbuild.read_record(folder)
    if compiled or record is None or record["tex_only"]:
        return violations + compiled
    return violations + pdftext.pdf_claim_violations(folder)


def artifact(folder: Path, name: str) -> dict[str, object] | None:
    """The frontmatter of folder/name ({} for a file without one), or None if it does not exist."""
    path = folder / name
    if not path.exists():
        return None
    if path.suffix != ".md":
        return {}
    return read_frontmatter(read_text(path, path.name), str(path))

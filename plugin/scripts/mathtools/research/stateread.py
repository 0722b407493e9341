"""A problem's STATE.md as read (the moves that change it: statechanges.py): the research loop's
states and legal moves, where the run is (State), and the seal that makes a hand edit show.

States and moves (architecture seed, "State Machine"):

    INTAKE -> LITERATURE_SEARCH -> PROOF_DEVELOPMENT -> REVIEW -> LATEX_OUTPUT -> DONE
                    ^                 |      |   ^   ^      |
                    +-----------------+      v   |   +------+ (a gap or a wrong step)
                  (needs references)     COMPUTATION (results ready)

The back-edges each start a loop, counted per pair in STATE.md (`loops: {proof-literature: N,
proof-computation: N, proof-review: N}`); statechanges.py refuses a fourth loop of a pair until the
user approves it.

STATE.md carries `digest`, a mark of its routing fields under the workspace's signing key
(signing.py): a hand edit (`current_state: DONE`) no longer matches it and is refused (code
`state_tampered`), and so is a digest recomputed by hand, which lacks the key. A STATE.md that
0.1.0 sealed (an unkeyed SHA-256) is still read if it held that digest when the workspace's key
was made; its next move seals it with the key.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TypedDict

from ..core import (
    BadInput,
    atomic_write,
    instantiate,
    parse_stamp,
    read_text,
    split_frontmatter,
    with_frontmatter,
)
from . import signing

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
# latex.py compile's record of the OUTPUT.pdf it made from OUTPUT.tex (research/texbuild.py).
COMPILE_RECORD = "OUTPUT.compile.json"
# The files of one run alone: sessions.archive_session moves them out, so the next run starts
# them afresh.
RUN_FILES = (
    "PROOF.md",
    "COMPUTATION.md",
    "REVIEW.md",
    "OUTPUT.tex",
    "OUTPUT.pdf",
    COMPILE_RECORD,
    "references.bib",
)
# A problem's files, as `show_state` lists them and sessions.archive_session snapshots them: the
# problem's own (kept, they grow from run to run), then the run's.
SESSION_FILES = (
    "PROBLEM.md",
    "NOTATION.md",
    "LITERATURE.md",
    "JOURNAL.md",
    "STATE.md",
    *RUN_FILES,
)
DIGESTED = ("problem", "current_state", "loops", "history", "entered_at")


class StateFields(TypedDict):
    """State.to_dict(): STATE.md's fields as state.py prints them and writes them."""

    problem: str
    current_state: str
    loops: dict[str, int]
    history: list[str]
    transitions_available: list[str]
    updated: str | None
    entered_at: str | None


class ShownState(StateFields):
    """`show_state`: the state, the problem folder and the files in it."""

    dir: str
    files: list[str]


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
            return parse_stamp(self.entered_at).timestamp()
        except ValueError:
            raise BadInput(
                f"STATE.md: entered_at {self.entered_at!r} is not an ISO 8601 time",
                code="bad_state",
            ) from None

    def to_dict(self) -> StateFields:
        return {
            "problem": self.problem,
            "current_state": self.current_state,
            "loops": self.loops,
            "history": self.history,
            "transitions_available": list(TRANSITIONS[self.current_state]),
            "updated": self.updated,
            "entered_at": self.entered_at,
        }


def digest_of(fields: Mapping[str, object], folder: Path) -> str:
    """The mark of STATE.md's routing fields (DIGESTED), as state.py last wrote them, under the
    signing key of the workspace of the problem folder `folder`."""
    return signing.mark(signing.math_dir_of(folder), _routing(fields))


def _sealed(data: Mapping[str, object], state: State, folder: Path) -> bool:
    """Whether STATE.md's `digest` is state.py's: the key's mark, or the unkeyed SHA-256 that
    0.1.0 wrote, when the file held it as the workspace's key was made (signing.py)."""
    math_dir, given = signing.math_dir_of(folder), data.get("digest")
    if signing.matches(math_dir, _routing(state.__dict__), given):
        return True
    unkeyed = json.dumps(_routing(state.__dict__), sort_keys=True, default=str).encode()
    return (
        given in signing.signing_key(math_dir)["unkeyed"]
        and given == hashlib.sha256(unkeyed).hexdigest()
    )


def _routing(fields: Mapping[str, object]) -> dict[str, object]:
    """The routing fields (DIGESTED), as one value whatever the YAML spelling."""
    data = {key: fields.get(key) for key in DIGESTED}
    moment = data["entered_at"]
    if moment:  # YAML reads a time back as a datetime: compare the instant, not its spelling
        try:
            data["entered_at"] = parse_stamp(_text(moment) or "").timestamp()
        except ValueError:
            data["entered_at"] = str(moment)
    loops = data["loops"]  # a State's loops: a mapping of pair to count
    data["loops"] = {k: v for k, v in sorted(loops.items()) if v} if isinstance(loops, dict) else {}
    return data


def state_path(folder: Path) -> Path:
    return folder / "STATE.md"


def load(folder: Path, slug: str, sealed: bool = True) -> tuple[State, dict[str, object], str]:
    """(State, the whole frontmatter, body) of folder/STATE.md; a missing file is a fresh INTAKE.
    Refused (state_tampered) when its digest is not the key's mark, unless `sealed` is False:
    statechanges.resign, which the user approved, seals it again."""
    path = state_path(folder)
    if not path.exists():  # the body new-problem writes, from the one template
        return (
            State(problem=slug),
            {},
            split_frontmatter(instantiate("STATE.md", {"title": slug}, {}))[1],
        )
    data, body = split_frontmatter(read_text(path, path.name), str(path))
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
    if sealed and not (fresh and "digest" not in data) and not _sealed(data, state, folder):
        raise BadInput(
            f"{path} was edited by hand: its digest is not the one state.py made for its "
            "current_state, loops and history, so the state machine does not trust it (a digest "
            "recomputed by hand lacks the workspace's key). Only state.py moves a run; undo "
            "the edit (its history says where the run was), or archive the run with "
            "state.py archive-session --partial after restoring it. If .math/signing.key was "
            "lost or replaced, every file reads so: the user checks them and types "
            "/math:research resign, which seals them again with the key there now",
            code="state_tampered",
        )
    return state, data, body


def _text(value: object) -> str | None:
    if value in (None, ""):
        return None
    return value.isoformat() if isinstance(value, datetime) else str(value)


def save(folder: Path, state: State, data: Mapping[str, object], body: str) -> None:
    # Fields another tool added to the frontmatter are kept, after ours.
    ours = {**state.to_dict(), "digest": digest_of(state.__dict__, folder)}
    merged = {**ours, **{k: v for k, v in data.items() if k not in ours}}
    atomic_write(state_path(folder), with_frontmatter(merged, body))


def show_state(folder: Path, slug: str) -> ShownState:
    """STATE.md as a dict, with the folder and the artifacts that exist in it."""
    state, _, _ = load(folder, slug)
    files = [str(folder / name) for name in SESSION_FILES if (folder / name).exists()]
    return {"dir": str(folder), **state.to_dict(), "files": files}

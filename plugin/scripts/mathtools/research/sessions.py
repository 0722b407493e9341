"""A research session's ends: `resume`, what a fresh session reads to pick a problem up again,
and `archive_session`, a finished run archived (a snapshot of the problem's files in
sessions/session-NNN/, the run's own products moved there, and STATE.md restarted at INTAKE;
statechanges.py is the state machine that gets there)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TypedDict

from ..core import BadInput, is_digits, locked, now, stamp
from .journalread import DEAD_END_OUTCOMES, EntryBrief, read_journal
from .statechanges import check_grounds
from .stateread import RUN_FILES, SESSION_FILES, State, StateFields, load, save, state_path
from .workspaceread import (
    ARTIFACTS,
    ProblemStatus,
    Workspace,
    frontmatter_of,
    jsonable,
    problem_status,
    render_dashboard,
)

RUN_FOLDERS = ("computations",)  # the computation agent's snippets: moved with the run
# What latex.py compile (latexmk, pdflatex, bibtex) leaves beside OUTPUT.pdf: moved with the run,
# so the next run's folder holds no log or bibliography of this one.
LATEX_LEFTOVERS = tuple(
    f"OUTPUT.{ext}"
    for ext in ("aux", "log", "bbl", "blg", "out", "toc", "fls", "fdb_latexmk", "synctex.gz")
)


class Archived(StateFields):
    """`archive_session`: where the run went, what was copied and moved, and the fresh state."""

    session: str
    path: str
    archived: list[str]
    moved: list[str]
    ended_in: str
    partial: bool


class Resumed(TypedDict):
    """`resume`: what a fresh session reads first."""

    problem: ProblemStatus
    state: object  # STATE.md's frontmatter, dates as ISO text
    recent_entries: list[EntryBrief]
    dead_ends: list[EntryBrief]
    in_progress: list[EntryBrief]
    read: list[str]  # the artifacts' paths, in the order to read them


def archive_session(folder: Path, slug: str, partial: bool = False) -> Archived:
    """Copy a finished run into folder/sessions/session-NNN/ and start the next run at INTAKE.

    A DONE run is archived as DONE only if it still passes DONE's checks (state.check_grounds);
    any other, or one that fails them, only with `partial` (the user's decision).

    The run's own products (PROOF.md, COMPUTATION.md, OUTPUT.tex, OUTPUT.pdf and what LaTeX left
    beside it, references.bib, and the computations/ folder of snippets) move into the archive;
    what belongs to the problem (PROBLEM.md, LITERATURE.md, JOURNAL.md, NOTATION.md) is copied
    and stays, since literature and journal accumulate across runs.
    """
    with locked(state_path(folder)):
        state, data, body = load(folder, slug)
        if state.current_state != "DONE" and not partial:
            raise BadInput(
                f"the run is in {state.current_state}, not DONE; archive it anyway only if the "
                f"user accepts partial results (--partial)",
                code="not_done",
            )
        if not partial:
            try:  # DONE's checks again: the files may have changed since the move
                check_grounds(folder, state, "DONE")
            except BadInput as exc:
                raise BadInput(
                    f"the run is marked DONE, but {exc.message}; archive it only if the user "
                    "accepts partial results (--partial)",
                    code="not_done",
                ) from None
        sessions = folder / "sessions"
        taken = [
            int(p.name.removeprefix("session-"))
            for p in sessions.glob("session-*")
            if is_digits(p.name.removeprefix("session-"))
        ]
        target = sessions / f"session-{max(taken, default=0) + 1:03d}"
        target.mkdir(parents=True)
        archived = []
        for name in SESSION_FILES:
            if (folder / name).exists():
                shutil.copy2(folder / name, target / name)
                archived.append(name)
        for name in RUN_FILES:
            (folder / name).unlink(missing_ok=True)
        for name in (*LATEX_LEFTOVERS, *RUN_FOLDERS):
            if (folder / name).exists():
                shutil.move(folder / name, target / name)
                archived.append(name)
        ended = state.current_state
        moment = now()
        fresh = State(problem=state.problem)
        fresh.history.append(
            f"{stamp(moment)} archived the run ({ended}"
            f"{', partial' if partial else ''}) as sessions/{target.name}"
        )
        fresh.updated = fresh.entered_at = stamp(moment, microseconds=True)
        save(folder, fresh, data, body)
    return {
        "session": target.name,
        "path": str(target),
        "archived": archived,
        "moved": [n for n in (*RUN_FILES, *LATEX_LEFTOVERS, *RUN_FOLDERS) if n in archived],
        "ended_in": ended,
        "partial": ended != "DONE",
        **fresh.to_dict(),
    }


def resume(slug: str | None = None, recent: int = 5) -> Resumed:
    """What a fresh session needs to pick a problem up again: its state, the journal's latest
    entries and dead ends, and the artifacts to read, in the order to read them. Rebuilds
    DASHBOARD.md on the way."""
    workspace = Workspace.find()
    slug = workspace.resolve(slug)
    folder = workspace.problem_dir(slug)
    summary = problem_status(folder, slug)
    entries = (
        read_journal(folder / "JOURNAL.md").entries if (folder / "JOURNAL.md").exists() else []
    )
    brief = [entry.brief() for entry in entries]
    state = jsonable(frontmatter_of(folder / "STATE.md", summary["warnings"]) or {})
    render_dashboard(workspace)  # written only once every input has been read
    return {
        "problem": summary,
        "state": state,
        "recent_entries": brief[-recent:] if recent else [],
        "dead_ends": [b for b in brief if b["outcome"] in DEAD_END_OUTCOMES],
        "in_progress": [b for b in brief if b["outcome"] == "IN_PROGRESS"],
        "read": [str(folder / name) for name in ARTIFACTS if (folder / name).exists()],
    }

"""The research loop's problem folder: the workspace, the state machine, the journal, notation,
PROOF.md's heading blocks and gaps, the referee's review, sandboxed computation (run by the
sandbox wing) and the LaTeX write-up. Imports core to litdoc and the sandbox.

This file is the wing's face: the names other wings, cli.py, the scripts and the hooks may
import from it, loaded when first used (CONTRIBUTING.md, "Layout")."""

from typing import TYPE_CHECKING

from ..core import face_attribute

if TYPE_CHECKING:
    from .afteragent import after_agent
    from .approval import COMMAND, approval_file, event_problems
    from .briefs import AGENTS, brief
    from .computation import check_recordable, interpret, record_computation
    from .deadends import check_dead_ends
    from .gaps import Gap, claimed, mark, next_to_search, none_left
    from .journalchanges import add, check_entry, journal_path
    from .journalread import (
        ALL_STRATEGIES,
        CATEGORIES,
        DEAD_END_OUTCOMES,
        OUTCOMES,
        STRATEGIES,
        parse_tags,
        validate_journal,
    )
    from .models import agent_call_update
    from .notation import CUSTOM, PRESETS, presets, update
    from .pdftext import pdf_claim_violations
    from .problemdir import (
        add_arguments,
        current_slug,
        parse_problem_command,
        problem_dir,
        problem_file,
        resolve,
    )
    from .review import current, refuted_steps, seal
    from .router import advance, next_step
    from .sessions import archive_session, resume
    from .signing import KEY_FILE, math_dir_of, signing_key
    from .statechanges import record_merge, record_search, resign, transition
    from .stateread import STATES, show_state
    from .texbuild import compile_pdf
    from .texcheck import check_folder
    from .workspacechanges import (
        PROBLEM_DOMAINS,
        PROBLEM_TYPES,
        agent_models,
        archive,
        init,
        new_problem,
        switch,
    )
    from .workspaceread import Workspace, render_dashboard, status

__all__ = [
    "AGENTS",
    "ALL_STRATEGIES",
    "CATEGORIES",
    "COMMAND",
    "CUSTOM",
    "DEAD_END_OUTCOMES",
    "KEY_FILE",
    "OUTCOMES",
    "PRESETS",
    "PROBLEM_DOMAINS",
    "PROBLEM_TYPES",
    "STATES",
    "STRATEGIES",
    "Gap",
    "Workspace",
    "add",
    "add_arguments",
    "advance",
    "after_agent",
    "agent_call_update",
    "agent_models",
    "approval_file",
    "archive",
    "archive_session",
    "brief",
    "check_dead_ends",
    "check_entry",
    "check_folder",
    "check_recordable",
    "claimed",
    "compile_pdf",
    "current",
    "current_slug",
    "event_problems",
    "init",
    "interpret",
    "journal_path",
    "mark",
    "math_dir_of",
    "new_problem",
    "next_step",
    "next_to_search",
    "none_left",
    "parse_problem_command",
    "parse_tags",
    "pdf_claim_violations",
    "presets",
    "problem_dir",
    "problem_file",
    "record_computation",
    "record_merge",
    "record_search",
    "refuted_steps",
    "render_dashboard",
    "resign",
    "resolve",
    "resume",
    "seal",
    "show_state",
    "signing_key",
    "status",
    "switch",
    "transition",
    "update",
    "validate_journal",
]


# Out of mypy's sight, so that a name off the face (a typo) is an error where it is imported,
# not an `object` (core/faces.py says why faces are lazy at all).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> object:
        return face_attribute(__name__, name)

"""The research loop's problem folder: the workspace, the state machine, the journal, notation,
PROOF.md's gaps, sandboxed computation and the LaTeX write-up. Imports core to litdoc."""

__all__ = [
    "approval",
    "briefs",
    "computation",
    "deadends",
    "gaps",
    "journal",
    "landlock",
    "latex",
    "models",
    "notation",
    "problemdir",
    "problemfile",
    "review",
    "router",
    "sandbox",
    "sessions",
    "state",
    "statefile",
    "workspace",
]

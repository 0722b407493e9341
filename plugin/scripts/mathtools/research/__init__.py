"""The research loop's problem folder: the workspace, the state machine, the journal, notation,
PROOF.md's heading blocks and gaps, the referee's review, sandboxed computation and the LaTeX
write-up. Imports core to litdoc."""

__all__ = [
    "approval",
    "blocks",
    "computation",
    "confine",
    "deadends",
    "gaps",
    "journal",
    "landlock",
    "latex",
    "models",
    "namespaces",
    "notation",
    "problemdir",
    "problemfile",
    "reasons",
    "review",
    "router",
    "sandbox",
    "seccomp",
    "sessions",
    "state",
    "statefile",
    "workspace",
]

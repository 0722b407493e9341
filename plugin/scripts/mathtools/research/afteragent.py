"""The PostToolUse hook's answer to an Agent call of /math:research: the loop's next step, so
that the orchestrator need not ask for it (hooks/after_agent.py).

/math:research (commands/research.md) alternates `state.py advance` and an Agent call: advance
records the moves that need no agent and names the next one. After an Agent call of one of the
loop's agents, in a session whose user's last message is `/math:research ...`, this runs that
same `state.py advance` (for the problem the command names, else the workspace's current one)
and hands its JSON line to the model as the hook's additionalContext; Claude Code puts it right
after the agent's report (a system message in 2.1.332, a system-reminder in 2.1.197, checked by
tests/test_after_agent_e2e.py). The orchestrator then acts on it as on its own step 1, one call
fewer per agent. Anywhere else (/math:prove, /math:literature, an agent still running in the
background, another plugin's agent) it does nothing: no state moves where the user did not ask
for the loop. When it cannot answer (advance timed out, the plugin's environment is missing),
it says nothing and the orchestrator runs step 1 itself.

Standard library only: the hook imports it without the plugin's environment; advance itself
runs in state.py, which finds that environment.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from ..sandbox import environment_without_secrets
from .approval import last_user_prompt
from .models import AGENT_TOOLS

# The agents /math:research spawns (router.AGENTS's values; this module loads without yaml).
LOOP_AGENTS = frozenset(
    {"math:literature-search", "math:proof", "math:computation", "math:referee",
     "math:latex-writer"}
)  # fmt: skip
RESEARCH = re.compile(
    r"^/(?:math:)?research(?:\s+(?:continue|accept-partial|resign))?(?:\s+(?P<slug>[\w.-]+))?\s*$"
)
ADVANCE_TIMEOUT_S = 100  # hooks.json gives the hook 120 s
CONTEXT_HEAD = "state.py advance, run by the plugin after the agent (your step 1):"


def after_agent(event: Mapping[str, object], state_script: Path) -> dict[str, object] | None:
    """The hook's answer to the PostToolUse `event`: advance's line as additionalContext, or
    None (module docstring)."""
    slug = _loop_problem(event)
    if slug is None:
        return None
    argv = [sys.executable, str(state_script), "advance", *(["--problem", slug] if slug else [])]
    try:
        done = subprocess.run(
            argv,
            cwd=str(event.get("cwd") or "."),
            env=environment_without_secrets(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=ADVANCE_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    line = done.stdout.strip()
    if done.returncode not in (0, 2) or not _is_step(line):
        return None  # no answer the orchestrator can act on: it runs step 1 itself
    return {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": f"{CONTEXT_HEAD}\n{line}",
        }
    }


def _loop_problem(event: Mapping[str, object]) -> str | None:
    """The problem slug of the loop this Agent call belongs to ("" for the current problem), or
    None when the call is not a finished agent run of /math:research."""
    if event.get("hook_event_name") != "PostToolUse" or event.get("tool_name") not in AGENT_TOOLS:
        return None
    call, response = event.get("tool_input"), event.get("tool_response")
    if not isinstance(call, dict) or call.get("subagent_type") not in LOOP_AGENTS:
        return None
    if not isinstance(response, dict) or response.get("status") != "completed":
        return None  # launched in the background: its work is not done yet
    transcript = event.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return None
    try:
        said = last_user_prompt(Path(transcript))
    except (OSError, ValueError):
        return None
    typed = RESEARCH.match(said or "")
    if typed is None:
        return None
    return typed.group("slug") or ""


def _is_step(line: str) -> bool:
    """Is `line` one JSON object, advance's step or its error?"""
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return isinstance(value, dict) and ("action" in value or "error" in value)

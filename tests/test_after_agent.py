"""hooks/after_agent.py: after an agent of /math:research's loop finishes, the plugin runs
`state.py advance` and hands its line to the orchestrator (mathtools/research/afteragent.py);
anywhere else it moves nothing. tests/test_after_agent_e2e.py shows the line reaching the model
in the real Claude Code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mathtools.research import router, show_state
from mathtools.research.afteragent import CONTEXT_HEAD, LOOP_AGENTS
from support import tournament as t
from support.standin import PLUGIN
from test_user_approval import typed

HOOK = PLUGIN / "hooks" / "after_agent.py"
SESSION = "0b6e2d4c-3a51-4d8e-9f0a-7c1d2e3f4a5b"


@pytest.fixture
def workspace(tmp_path) -> Path:
    t.new_problem(tmp_path / "ws")
    return tmp_path / "ws"


def event(workspace: Path, said: str, agent: str = "math:literature-search", **response) -> dict:
    """A PostToolUse event for a finished Agent call, as Claude Code 2.1.197 and 2.1.332 send it,
    in a session whose user's last message was `said`."""
    path = workspace / ".claude" / "projects" / "-ws" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    report = {"type": "user", "message": {"content": [{"type": "tool_result", "content": "x"}]}}
    path.write_text(json.dumps(typed(said)) + "\n" + json.dumps(report) + "\n")
    return {
        "session_id": SESSION,
        "transcript_path": str(path),
        "cwd": str(workspace),
        "permission_mode": "acceptEdits",
        "hook_event_name": "PostToolUse",
        "tool_name": "Agent",
        "tool_input": {"subagent_type": agent, "prompt": f"problem: {t.SLUG}", "description": "d"},
        "tool_response": {"status": "completed", "content": [{"type": "text", "text": "done"}]}
        | response,
        "tool_use_id": "toolu_000001",
    }


def run_hook(workspace: Path, sent) -> subprocess.CompletedProcess:
    ran = subprocess.run(
        [sys.executable, str(HOOK)],
        input=sent if isinstance(sent, str) else json.dumps(sent),
        text=True,
        capture_output=True,
        cwd=workspace,
    )
    assert ran.returncode == 0 and not ran.stderr, ran.stderr
    return ran


def state_of(workspace: Path) -> str:
    folder = workspace / ".math" / "problems" / t.SLUG
    return str(show_state(folder, t.SLUG)["current_state"])


@pytest.mark.parametrize("said", ["/math:research", f"/math:research {t.SLUG}"])
def test_after_a_loop_agent_the_orchestrator_gets_advances_line(workspace, said):
    ran = run_hook(workspace, event(workspace, said))
    context = json.loads(ran.stdout)["hookSpecificOutput"]
    assert context["hookEventName"] == "PostToolUse"
    head, line = context["additionalContext"].split("\n")
    assert head == CONTEXT_HEAD
    step = json.loads(line)  # advance's own line, as the orchestrator's step 1 would print it
    assert step["applied"] == [{"to": "LITERATURE_SEARCH", "reason": "problem defined"}]
    assert (step["action"], step["spawn"]) == ("spawn", "math:literature-search")
    assert state_of(workspace) == "LITERATURE_SEARCH"  # the move was recorded


def test_advances_refusal_is_handed_on_too(workspace):
    """An error line (here: an unknown problem) is step 1's answer as well: the runbook says
    what to do with each code."""
    ran = run_hook(workspace, event(workspace, "/math:research no-such-problem"))
    step = json.loads(
        json.loads(ran.stdout)["hookSpecificOutput"]["additionalContext"].split("\n")[1]
    )
    assert "error" in step
    assert state_of(workspace) == "INTAKE"


@pytest.mark.parametrize(
    ("said", "agent", "response"),
    [
        ("/math:prove", "math:proof", {}),  # the user asked for one proof pass, not the loop
        ("/math:literature", "math:literature-search", {}),
        ("/math:research", "general-purpose", {}),  # not an agent of the loop
        ("/math:research", "math:journal-keeper", {}),
        ("/math:research", "math:proof", {"status": "async_launched"}),  # still running
        ("please run /math:research", "math:proof", {}),
    ],
)
def test_anywhere_else_it_moves_nothing(workspace, said, agent, response):
    ran = run_hook(workspace, event(workspace, said, agent, **response))
    assert ran.stdout == ""
    assert state_of(workspace) == "INTAKE"


@pytest.mark.parametrize("sent", ["", "not json", "[1, 2]", '{"tool_name": "Agent"}'])
def test_what_is_no_event_gets_no_answer(workspace, sent):
    assert run_hook(workspace, sent).stdout == ""


def test_a_missing_transcript_gets_no_answer(workspace):
    sent = event(workspace, "/math:research")
    Path(sent["transcript_path"]).unlink()
    assert run_hook(workspace, sent).stdout == ""
    assert state_of(workspace) == "INTAKE"


def test_the_hook_knows_the_loops_agents_and_the_runbook_quotes_its_head():
    """Two facts kept beside their homes (the hook loads without the plugin's environment, so
    it cannot import the router): the agents the router spawns, and the head the orchestrator's
    runbook tells it to look for."""
    assert set(router.AGENTS.values()) == LOOP_AGENTS
    assert CONTEXT_HEAD in (PLUGIN / "commands" / "research.md").read_text(encoding="utf-8")

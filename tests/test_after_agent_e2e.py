"""In the real Claude Code, the line hooks/after_agent.py gives after an agent of /math:research
reaches the orchestrator's next request: `state.py advance`'s JSON, with the moves it recorded,
so commands/research.md's step 3 acts on it instead of running step 1 again. Under another
command (/math:prove) nothing is added and nothing moves."""

from __future__ import annotations

import json

import pytest
from mathtools.research import show_state
from mathtools.research.afteragent import CONTEXT_HEAD
from support import tournament as t
from support.claude_harness import agent, run_claude, text
from test_research_e2e import compute_ready


def play(tmp_path, command: str, spawned: str):
    home = tmp_path / "home"
    cwd = home / "work"
    folder = t.new_problem(cwd)
    compute_ready(home)  # the plugin's environment, for state.py (this run's interpreter)

    def orchestrator(request):
        if not request.tool_results():
            return [agent(spawned, f"problem: {t.SLUG}\ndir: {folder}", background=False)]
        return [text("done")]

    run = run_claude(
        f"{command} {t.SLUG}",
        orchestrator,
        subagents={spawned: lambda request: [text("Searched; nothing recorded.")]},
        home=home,
        cwd=cwd,
        bypass=False,
        extra_args=["--permission-mode", "acceptEdits"],
    )
    assert run.exit_code == 0, run.describe()
    return run, folder


@pytest.mark.claude
def test_after_a_loop_agent_the_orchestrator_reads_advances_line(tmp_path):
    run, folder = play(tmp_path, "/math:research", "math:literature-search")
    (context,) = run.last_main().hook_contexts()
    head, line = context.split("\n")
    assert head == CONTEXT_HEAD
    step = json.loads(line)
    assert step["applied"] == [{"to": "LITERATURE_SEARCH", "reason": "problem defined"}]
    assert (step["action"], step["spawn"]) == ("spawn", "math:literature-search")
    assert show_state(folder, t.SLUG)["current_state"] == "LITERATURE_SEARCH"


@pytest.mark.claude
def test_after_an_agent_of_another_command_nothing_moves(tmp_path):
    run, folder = play(tmp_path, "/math:prove", "math:proof")
    assert run.last_main().hook_contexts() == []
    assert show_state(folder, t.SLUG)["current_state"] == "INTAKE"

"""What the runbooks read on demand (plugin/protocols/*.md) is readable in the real Claude Code
under the commands' allowed-tools, in the default permission mode with edits accepted: by the
orchestrator and by an agent it spawns.

`${CLAUDE_PLUGIN_ROOT}` is an absolute path, and Claude Code reads a permission rule's path that
starts with one `/` from the project's root: `Read(${CLAUDE_PLUGIN_ROOT}/protocols/*)` matched
nothing, and every such Read was refused ("Claude requested permissions to read from ...") —
found when issue 51's play in the real host sent the computation agent to
computation-outcomes.md. An absolute path takes `//`: `Read(/${CLAUDE_PLUGIN_ROOT}/...)`.
"""

from __future__ import annotations

import pytest
from support.claude_harness import agent, refused, result_text, run_claude, text, tool_use

# (command, the agent it spawns, the reference that agent's runbook reads on demand)
READS = [
    ("research", "math:computation", "computation-outcomes.md"),
    ("research", "math:latex-writer", "latex-outcomes.md"),
    ("literature", "math:literature-search", "literature-protocol.md"),
]


@pytest.mark.claude
@pytest.mark.parametrize(("command", "spawned", "reference"), READS)
def test_a_reference_read_on_demand_is_allowed(tmp_path, command, spawned, reference):
    roots: list[str] = []

    def orchestrator(request):
        roots.append(request.plugin_root())
        done = len(request.tool_results())
        if done == 0:  # the orchestrator's own (/math:research's; any protocol for the others)
            return [tool_use("Read", {"file_path": f"{roots[0]}/protocols/research-stops.md"})]
        if done == 1:
            return [agent(spawned, f"Read the reference ({reference}).", background=False)]
        return [text("done")]

    def agent_script(request):
        if not request.tool_results():
            return [tool_use("Read", {"file_path": f"{roots[0]}/protocols/{reference}"})]
        return [text("read")]

    run = run_claude(
        f"/math:{command}",
        orchestrator,
        subagents={spawned: agent_script},
        home=tmp_path,
        bypass=False,
        extra_args=["--permission-mode", "acceptEdits"],
    )
    assert run.exit_code == 0, run.describe()
    main_read = run.tool_results()[0]
    assert not refused(main_read), result_text(main_read)
    assert "When /math:research stops for the user" in result_text(main_read)
    (read,) = run.subagent_requests(spawned)[-1].tool_results()
    assert not refused(read), result_text(read)
    assert result_text(read).lstrip().startswith("1\t# "), result_text(read)[:200]

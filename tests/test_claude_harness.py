"""The plugin inside the real Claude Code, offline: commands, agents, scripts, permissions, hook.

Each test runs the pinned `claude -p` against the harness's scripted model
(tests/support/claude_harness.py); the model's turns are synthesized by the tests.
"""

from __future__ import annotations

import json
import shutil
import time

import pytest
from conftest import PLUGIN
from mathtools.core import bootstrap, frontmatter
from support import venvs
from support.claude_code import running_version
from support.claude_harness import (
    agent,
    bash,
    bash_result,
    plugin_data_dir,
    refused,
    result_text,
    run_claude,
    text,
)

WORKSPACE_SCRIPT = PLUGIN / "scripts" / "workspace.py"


def _body(path) -> str:
    return frontmatter.split_frontmatter(path.read_text(), str(path))[1]


def _agents() -> dict[str, dict]:
    """agents/*.md by the name Claude Code registers them under: frontmatter `name`, else stem."""
    found = {}
    for path in sorted((PLUGIN / "agents").glob("*.md")):
        meta = frontmatter.read_frontmatter(path.read_text(), str(path))
        found[meta.get("name") or path.stem] = meta
    return found


def _words(value) -> str:
    return " ".join(str(value).replace(",", ", ").split())


@pytest.mark.claude
def test_help_expands_with_its_arguments(tmp_path):
    run = run_claude("/math:help literature", [text("Here is the help.")], home=tmp_path)
    assert run.exit_code == 0, run.describe()
    assert "Here is the help." in run.stdout
    first = run.main_requests()[0]
    expected = (
        _body(PLUGIN / "commands" / "help.md")
        .replace("$ARGUMENTS", "literature")
        .replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN))
    )
    assert first.command_body("/math:help").strip() == expected.strip()
    assert "<command-args>literature</command-args>" in "\n".join(first.user_texts())
    # Every command is offered to the model as a Skill entry with its description.
    skills = first.skills()
    for path in sorted((PLUGIN / "commands").glob("*.md")):
        meta = frontmatter.read_frontmatter(path.read_text(), str(path))
        assert skills.get(f"math:{path.stem}") == meta["description"], path.stem


@pytest.mark.claude
def test_every_agent_is_offered_as_math_name_and_runs_with_its_tools(tmp_path):
    agents = _agents()
    assert agents, "agents/ holds no agent definitions"
    # In the foreground, as the runbooks start them: six background agents at once race their
    # reports against the end of the conversation on 2.1.330.
    calls = [
        agent(f"math:{name}", f"Harness probe for {name}.", background=False) for name in agents
    ]
    replies = {f"math:{name}": [f"{name} reporting"] for name in agents}
    run = run_claude(
        "List your agents.", [calls, "All agents answered."], subagents=replies, home=tmp_path
    )
    assert run.exit_code == 0, run.describe()

    offered = run.main_requests()[0].agent_types()
    for name, meta in agents.items():
        assert f"math:{name}" in offered, f"math:{name} not offered; offered: {sorted(offered)}"
        assert _words(offered[f"math:{name}"]).startswith(_words(meta["description"])[:40])
        conversation = run.subagent_requests(f"math:{name}")
        assert conversation, f"math:{name} never ran\n{run.describe()}"
        assert "tools" in meta, f"agents: {name} has no explicit tools: list"
        tools = meta["tools"]
        declared = set(tools) if isinstance(tools, list) else set(_words(tools).split(", "))
        assert set(conversation[0].tool_names()) <= declared
    answers = {result_text(r) for r in run.tool_results()}
    assert all(any(f"{name} reporting" in a for a in answers) for name in agents), answers


@pytest.mark.claude
def test_bash_runs_a_plugin_script_through_the_substituted_root(tmp_path):
    def model(request):
        if not request.tool_results():
            root = request.plugin_root()
            return [bash(f'python3 "{root}/scripts/workspace.py" --help', id="toolu_help")]
        return "done"

    run = run_claude("/math:help", model, home=tmp_path)
    assert run.exit_code == 0, run.describe()
    assert run.main_requests()[0].plugin_root() == str(PLUGIN)
    result = run.tool_result("toolu_help")
    assert not result.get("is_error"), result
    assert "usage: workspace.py" in result_text(result)


@pytest.mark.claude
def test_allowed_tools_let_the_status_call_through_without_bypass(tmp_path):
    def model(request):
        if not request.tool_results():
            script = f'"{request.plugin_root()}/scripts/workspace.py"'
            return [
                bash(f"python3 {script} status", id="toolu_allowed"),
                bash(f"python3 {script} init", id="toolu_outside"),
            ]
        return "done"

    run = run_claude("/math:help", model, home=tmp_path, bypass=False)
    assert run.exit_code == 0, run.describe()
    allowed, outside = run.tool_result("toolu_allowed"), run.tool_result("toolu_outside")
    assert not refused(allowed)
    _, output = bash_result(allowed)
    json.loads(output)  # the script's own JSON answer: a status, or an error such as no workspace
    assert refused(outside), outside


@pytest.mark.claude
@pytest.mark.parametrize("background", [None, False])
def test_an_agents_report_reaches_the_script_and_a_foreground_agent_keeps_the_pre_approval(
    tmp_path, background
):
    """Spawned in the background (2.1.330's default), the report arrives later as a notification,
    and the command's allowed-tools no longer cover the calls after it; in the foreground (the
    runbooks' `run_in_background: false`) they do, on both versions."""
    status = f'python3 "{PLUGIN}/scripts/workspace.py" status'
    spawn = agent("math:proof", "Harness probe.", id="toolu_agent", background=background)
    script = [[spawn], [bash(status, id="toolu_after")], "done"]

    def slow_report(request):
        # still running when the next call comes: the plugin's PostToolUse hook on Agent takes a
        # moment, and an agent that answers at once would have reported by then
        time.sleep(3)
        return [text("proof reporting")]

    run = run_claude(
        "/math:help",
        script,
        home=tmp_path,
        bypass=False,
        subagents={"math:proof": slow_report},
    )
    assert run.exit_code == 0, run.describe()
    assert "proof reporting" in result_text(run.tool_result("toolu_agent"))
    after = run.tool_result("toolu_after")
    launched_in_background = background is None and running_version() >= (2, 1, 330)
    assert refused(after) == launched_in_background, after


@pytest.mark.claude
def test_session_start_hook_points_bash_calls_at_the_plugin_venv(tmp_path):
    """With a bare python3, a script finds its venv through the hook's MATH_PLUGIN_DATA, and
    writes its bytecode under the data folder (PYTHONPYCACHEPREFIX), the hooks none (python3
    -B): nothing lands in the plugin's folder, which an update from a clone copies whole."""
    home = tmp_path / "home"
    bare = venvs.bare_python(tmp_path / "bare")
    data = plugin_data_dir(home)
    venvs.ready_venv(data, bootstrap.requirements_digest())
    plugin = tmp_path / "clone" / "plugin"  # a clean copy: this run's own imports write PLUGIN's
    shutil.copytree(PLUGIN, plugin, ignore=shutil.ignore_patterns("__pycache__"))

    def model(request):
        if not request.tool_results():
            root = request.plugin_root()
            probe = f'echo "data=$MATH_PLUGIN_DATA"; python3 "{root}/scripts/workspace.py" --help'
            return [bash(probe, id="toolu_probe")]
        return "done"

    no_install = {
        "PATH": f"{bare.parent}:/usr/bin:/bin",
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIP_RETRIES": "0",
    }
    run = run_claude("/math:help", model, home=home, env=no_install, plugin_dir=plugin)
    assert run.exit_code == 0, run.describe()
    output = result_text(run.tool_result("toolu_probe"))
    assert output.splitlines()[0] == f"data={data}"
    assert "usage: workspace.py" in output
    assert "installing" not in output
    assert not list(plugin.rglob("__pycache__")), list(plugin.rglob("__pycache__"))
    cached = data / "pycache" / str(plugin.relative_to("/")) / "scripts" / "mathtools"
    assert list(cached.rglob("*.pyc")), "the scripts' bytecode is in the data folder"


@pytest.mark.claude
def test_an_offline_first_session_shows_the_cause_and_script_calls_fail_fast(tmp_path):
    """No package index (the discard port refuses) and a bare python3: the session starts, the
    background install fails, the user is told why (the prompt hook's systemMessage, which
    tests/test_install_screen.py finds on screen; its additionalContext reaches the
    conversation), and the scripts answer with the same cause in one line, without retrying."""
    home = tmp_path / "home"
    bare = venvs.bare_python(tmp_path / "bare")
    status = f'python3 "{PLUGIN}/scripts/workspace.py" status'
    script = [[bash(status, id="toolu_first")], [bash(status, id="toolu_second")], "done"]
    offline = {
        "PATH": f"{bare.parent}:/usr/bin:/bin",
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "UV_INDEX_URL": "http://127.0.0.1:9/simple",  # should a uv be on PATH after all
        "PIP_TIMEOUT": "2",
        "PIP_FIND_LINKS": "",
    }
    run = run_claude("/math:help", script, home=home, env=offline, timeout=180)
    assert run.exit_code == 0, run.describe()
    first, second = run.tool_result("toolu_first"), run.tool_result("toolu_second")
    status_code, output = bash_result(first)
    assert status_code == bootstrap.EXIT_ENVIRONMENT, output
    (line,) = [line for line in output.splitlines() if line.startswith("{")]
    message = json.loads(line)["error"]["message"]
    assert "refused the connection" in message
    status_code, output = bash_result(second)
    assert status_code == bootstrap.EXIT_ENVIRONMENT and "installing" not in output
    # The first call may itself find the failure recorded (the prompt hook waited for the
    # install): both calls carry the same cause; the second reads it from the record.
    assert message.split(" (this failed ")[0] in output and "(this failed " in output
    shown = [
        text_
        for request in run.main_requests()
        for text_ in [json.dumps(request.messages)]
        if "math plugin: could not install" in text_
    ]
    assert shown, f"the install failure never reached the session\n{run.describe()}"
    assert "refused the connection" in shown[-1]


@pytest.mark.claude
def test_plugin_paths_are_substituted_in_commands_but_not_set_for_bash(tmp_path):
    """The contract our commands rely on, shown with a one-command plugin made for this test."""
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "probe"}')
    (plugin / "commands").mkdir()
    (plugin / "commands" / "where.md").write_text(
        "---\ndescription: where\n---\nroot=${CLAUDE_PLUGIN_ROOT}\ndata=${CLAUDE_PLUGIN_DATA}\n"
    )
    script = [
        [bash('echo "root=$CLAUDE_PLUGIN_ROOT data=$CLAUDE_PLUGIN_DATA"', id="toolu_env")],
        "done",
    ]
    home = tmp_path / "home"
    run = run_claude("/probe:where", script, home=home, plugin_dir=plugin)
    assert run.exit_code == 0, run.describe()
    body = run.main_requests()[0].command_body("/probe:where")
    assert body.split() == [f"root={plugin}", f"data={plugin_data_dir(home, 'probe-inline')}"]
    assert result_text(run.tool_result("toolu_env")).strip() == "root= data="


def test_fake_api_streams_well_formed_events_and_answers_plain_json():
    """The server alone, with a synthesized turn: SSE event order and the non-streaming shape."""
    import urllib.request

    from support.claude_harness import FakeAnthropic, tool_use

    turn = [text("Reading."), tool_use("Read", {"file_path": "/x"}, id="toolu_read")]
    with FakeAnthropic([turn, "plain"]) as server:

        def post(body: dict) -> bytes:
            request = urllib.request.Request(
                f"{server.url}/v1/messages",
                data=json.dumps({"model": "m", "tools": [{"name": "Read"}], **body}).encode(),
                headers={"content-type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.read()

        events = [
            json.loads(line[len("data: ") :])
            for line in post({"stream": True}).decode().splitlines()
            if line.startswith("data: ")
        ]
        plain = json.loads(post({}))
    kinds = [event["type"] for event in events]
    assert kinds == [
        "message_start",
        "ping",
        *["content_block_start", "content_block_delta", "content_block_stop"] * 2,
        "message_delta",
        "message_stop",
    ]
    assert events[3]["delta"] == {"type": "text_delta", "text": "Reading."}
    assert events[5]["content_block"]["name"] == "Read"
    assert json.loads(events[6]["delta"]["partial_json"]) == {"file_path": "/x"}
    assert events[8]["delta"]["stop_reason"] == "tool_use"
    assert plain["content"] == [text("plain")] and plain["stop_reason"] == "end_turn"
    assert [r.kind for r in server.requests] == ["main", "main"]


def test_help_lists_every_command():
    table = (PLUGIN / "commands" / "help.md").read_text()
    missing = [
        path.stem
        for path in sorted((PLUGIN / "commands").glob("*.md"))
        if f"`/math:{path.stem}" not in table
    ]
    assert not missing, f"commands/help.md does not list: {missing}"

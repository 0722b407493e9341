"""Models per role in the real Claude Code: the "model" of every Messages API request it sends.

ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL map Claude Code's model names to ids of our own,
and --model gives the session one more, so each request's "model" field says which name the
request ran on: the agent file's `model:`, the workspace's override, or the session's.
"""

from __future__ import annotations

import json

import pytest
from conftest import run_script
from mathtools.research import models
from support.claude_harness import agent, bash, bash_result, run_claude, text

pytestmark = pytest.mark.claude

SESSION_MODEL = "offline-session-model"
MODEL_IDS = {name: f"offline-{name}-model" for name in models.MODEL_NAMES}
ENV = {f"ANTHROPIC_DEFAULT_{name.upper()}_MODEL": id for name, id in MODEL_IDS.items()}


def _run(prompt: str, script, home, **options):
    return run_claude(
        prompt, script, home=home, env=ENV, extra_args=["--model", SESSION_MODEL], **options
    )


def _models_by_agent(run) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for request in run.subagent_requests():
        found.setdefault(request.subagent_type, set()).add(request.model)
    return found


def test_each_agent_runs_on_the_model_its_file_declares(tmp_path):
    declared = models.declared()
    calls = [agent(f"math:{name}", f"Task for the {name} agent.") for name in declared]
    run = _run("Start every agent of the plugin.", [calls, text("done")], tmp_path)
    assert run.exit_code == 0, run.describe()
    assert {r.model for r in run.main_requests()} == {SESSION_MODEL}
    expected = {f"math:{name}": {MODEL_IDS[model]} for name, model in declared.items()}
    assert _models_by_agent(run) == expected, run.describe()


@pytest.mark.slow  # CI runs it (CONTRIBUTING.md "Run the tests")
def test_an_override_set_with_math_models_changes_the_model_in_the_requests(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    assert run_script("workspace.py", "init", cwd=work).returncode == 0

    # 1. The user sets two overrides with /math:models, in the default permission mode: the
    #    command's own rule lets its script run.
    def set_models(request):
        if not request.tool_results():
            root = request.plugin_root()
            command = f'python3 "{root}/scripts/workspace.py" models'
            return [bash(f"{command} --set proof=haiku --set literature-search=sonnet", id="set")]
        return [text("Models changed.")]

    changed = _run(
        "/math:models proof=haiku literature-search=sonnet", set_models, tmp_path, bypass=False
    )
    status, output = bash_result(changed.tool_result("set"))
    assert status == 0, changed.describe()
    shown = json.loads(output)
    assert shown["agents"]["proof"] == "haiku" and shown["agents"]["literature-search"] == "sonnet"
    assert shown["set_in_config"] == ["literature-search", "proof"]

    # 2. The next agents start on them, the proof agent even when the call asks for another
    #    model; the others keep theirs. Default permission mode again: the hook's change to the
    #    call asks for no approval.
    proof = agent("math:proof", "Continue the proof.")
    proof["input"]["model"] = "opus"
    main = [
        [
            proof,
            agent("math:journal-keeper", "Record a NOTE entry."),
            agent("math:literature-search", "Literature search for the problem."),
        ],
        text("done"),
    ]
    run = _run(
        "Run the agents.",
        main,
        tmp_path,
        bypass=False,
    )
    assert run.exit_code == 0, run.describe()
    declared = models.declared()
    assert _models_by_agent(run) == {
        "math:proof": {MODEL_IDS["haiku"]},
        "math:journal-keeper": {MODEL_IDS[declared["journal-keeper"]]},
        "math:literature-search": {MODEL_IDS["sonnet"]},
    }, run.describe()
    assert declared["proof"] != "haiku" and declared["literature-search"] != "sonnet"

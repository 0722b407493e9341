"""Models per role: each agent's declared model, the workspace's overrides, the Agent-tool hook.

The hook's effect inside the real Claude Code is tests/test_models_e2e.py; here are its answers
to the events Claude Code sends, the overrides' validation, and what status and `models` print.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from conftest import PLUGIN, ROOT, run_script
from mathtools.core import frontmatter
from mathtools.research import models

HOOK = PLUGIN / "hooks" / "agent_model.py"


def _agents_in_readme() -> dict[str, tuple[str, str]]:
    """docs/models.md's "Models per role" table: agent -> (model, why)."""
    section = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z-]+)` \| `([a-z]+)` \| (.+) \|$", section, re.M)
    return {agent: (model, why) for agent, model, why in rows}


def _event(cwd, subagent_type="math:proof", tool="Agent", **extra) -> dict:
    call = {"subagent_type": subagent_type, "prompt": "work on it", "description": "d", **extra}
    return {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": call, "cwd": str(cwd)}


def _workspace(tmp_path, models_value=None):
    math_dir = tmp_path / ".math"
    math_dir.mkdir()
    cfg = {"current_problem": None, "problems": [], "archived": []}
    if models_value is not None:
        cfg["models"] = models_value
    (math_dir / "config.json").write_text(json.dumps(cfg))
    return tmp_path


# -- each agent's declared model, and docs/models.md's reason for it


def test_every_agent_declares_a_model_the_agent_tool_accepts():
    declared = models.declared()
    assert set(declared) == {p.stem for p in (PLUGIN / "agents").glob("*.md")}
    assert all(model in models.MODEL_NAMES for model in declared.values()), declared


def test_the_docs_give_every_agent_its_declared_model_and_a_reason():
    table = _agents_in_readme()
    assert {agent: model for agent, (model, _) in table.items()} == models.declared()
    assert all(len(why.split()) >= 8 for _, why in table.values())


def test_the_roles_the_issue_names_get_the_models_their_jobs_need():
    declared = models.declared()
    assert declared["proof"] == declared["literature-search"] == "opus"  # strongest reasoning
    assert declared["journal-keeper"] == "haiku"  # bookkeeping through journal.py
    assert declared["math-intake"] != "opus"


def test_the_judgement_is_a_rubric_bound_step_of_its_own_with_its_rubric_in_one_place():
    search = (PLUGIN / "agents" / "literature-search.md").read_text()
    step = search[search.index("## 2. Judge") : search.index("## 3.")]
    for label in ("**strong**", "**partial**", "**irrelevant**"):
        assert label in step and search.count(label) == 1  # the rubric lives in this step only
    assert "0.9" in step and "0.5" in step and "**lower**" in step  # the scale and the tie rule
    protocol = (PLUGIN / "protocols" / "literature-protocol.md").read_text()
    assert "agents/literature-search.md` step 2" in protocol
    assert "**strong**" not in protocol


# -- the hook's answer to one Agent call


def test_an_override_replaces_the_model_of_that_agents_call(tmp_path):
    cwd = _workspace(tmp_path, {"proof": "haiku"})
    answer = models.agent_call_update(_event(cwd, model="opus"))
    updated = answer["hookSpecificOutput"]["updatedInput"]
    assert answer["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
    assert updated == {**_event(cwd)["tool_input"], "model": "haiku"}


@pytest.mark.parametrize(
    "event",
    [
        {"subagent_type": "math:computation"},  # no override for this agent
        {"subagent_type": "general-purpose"},  # not one of the plugin's agents
        {"subagent_type": "other:proof"},
        {"subagent_type": "math:proof", "model": "haiku"},  # already on the chosen model
        {"subagent_type": "math:proof", "tool": "Bash"},
    ],
)
def test_other_calls_are_left_alone(tmp_path, event):
    cwd = _workspace(tmp_path, {"proof": "haiku"})
    assert models.agent_call_update(_event(cwd, **event)) is None


def test_without_a_workspace_nothing_changes(tmp_path):
    assert models.agent_call_update(_event(tmp_path)) is None


def test_the_older_task_tool_name_is_handled_too(tmp_path):
    cwd = _workspace(tmp_path, {"proof": "sonnet"})
    answer = models.agent_call_update(_event(cwd, tool="Task"))
    assert answer["hookSpecificOutput"]["updatedInput"]["model"] == "sonnet"


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ('{"models": {"proof": "gpt-4"}}', "proof='gpt-4': the model must be one of"),
        ('{"models": ["proof"]}', "must map agent names to models"),
        ('{"models": {"proof": ', "is not valid JSON"),
    ],
)
def test_a_bad_override_is_a_warning_and_the_declared_model_stays(tmp_path, config, says):
    (tmp_path / ".math").mkdir()
    (tmp_path / ".math" / "config.json").write_text(config)
    answer = models.agent_call_update(_event(tmp_path))
    assert set(answer) == {"systemMessage"}
    assert (
        says in answer["systemMessage"] and "runs on its declared model" in answer["systemMessage"]
    )


def test_a_bad_override_of_another_agent_says_nothing_about_this_one(tmp_path):
    cwd = _workspace(tmp_path, {"latex-writer": "gpt-4", "proof": "haiku"})
    assert models.agent_call_update(_event(cwd, subagent_type="math:computation")) is None
    answer = models.agent_call_update(_event(cwd))
    assert answer["hookSpecificOutput"]["updatedInput"]["model"] == "haiku"


def test_the_hook_script_needs_only_the_standard_library_and_always_exits_0(tmp_path):
    cwd = _workspace(tmp_path, {"proof": "haiku"})

    def hook(stdin: str) -> subprocess.CompletedProcess:
        # -S: no site-packages, as under a bare system python3 before the bootstrap
        command = [sys.executable, "-S", str(HOOK)]
        return subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=cwd)

    changed = hook(json.dumps(_event(cwd)))
    assert changed.returncode == 0, changed.stderr
    assert json.loads(changed.stdout)["hookSpecificOutput"]["updatedInput"]["model"] == "haiku"
    unchanged = hook(json.dumps(_event(cwd, subagent_type="math:computation")))
    assert (unchanged.returncode, unchanged.stdout) == (0, "")
    (cwd / ".math" / "config.json").write_text("{broken")
    broken = hook(json.dumps(_event(cwd)))
    assert broken.returncode == 0 and "systemMessage" in json.loads(broken.stdout)
    garbage = hook("not json")
    assert (garbage.returncode, garbage.stdout) == (0, "")


def test_the_hook_is_registered_for_the_agent_tool():
    hooks = json.loads((PLUGIN / "hooks" / "hooks.json").read_text())["hooks"]["PreToolUse"]
    (entry,) = [h for h in hooks if "agent_model.py" in h["hooks"][0]["command"]]
    assert set(entry["matcher"].split("|")) == set(models.AGENT_TOOLS)


# -- what status and `workspace.py models` print, and how overrides are set


def test_in_use_shows_overrides_and_notes(monkeypatch):
    monkeypatch.delenv(models.ENV_SUBAGENT_MODEL, raising=False)
    declared = {"proof": "opus", "journal-keeper": "haiku", "old": None}
    cfg = {"models": {"journal-keeper": "sonnet", "proof": "gpt", "ghost": "opus"}}
    report = models.in_use(cfg, declared)
    assert report["agents"] == {"proof": "opus", "journal-keeper": "sonnet", "old": "inherit"}
    assert report["set_in_config"] == ["journal-keeper"]
    assert report["notes"] == [
        "ignored: proof='gpt': the model must be one of opus, sonnet, haiku, fable",
        "ignored: no agent 'ghost'",
    ]
    monkeypatch.setenv(models.ENV_SUBAGENT_MODEL, "claude-x")
    assert models.ENV_SUBAGENT_MODEL in models.in_use({}, declared)["notes"][-1]


def test_workspace_models_sets_and_resets_overrides_and_keeps_the_rest_of_the_config(tmp_path):
    assert run_script("workspace.py", "init").returncode == 0
    config_path = tmp_path / ".math" / "config.json"
    cfg = json.loads(config_path.read_text())
    cfg["semantic_scholar_api_key"] = "kept-by-hand"
    config_path.write_text(json.dumps(cfg))

    changed = run_script(
        "workspace.py", "models", "--set", "proof=haiku", "--set", "literature-search=sonnet"
    )
    assert changed.returncode == 0, changed.stdout
    report = changed.json()
    assert (
        report["agents"]["proof"] == "haiku" and report["agents"]["literature-search"] == "sonnet"
    )
    assert report["set_in_config"] == ["literature-search", "proof"]
    stored = json.loads(config_path.read_text())
    assert stored["models"] == {"proof": "haiku", "literature-search": "sonnet"}
    assert stored["semantic_scholar_api_key"] == "kept-by-hand"

    reset = run_script("workspace.py", "models", "--reset", "proof").json()
    assert reset["agents"]["proof"] == models.declared()["proof"]
    assert json.loads(config_path.read_text())["models"] == {"literature-search": "sonnet"}
    status = run_script("workspace.py", "status").json()
    assert status["models"] == {key: reset[key] for key in ("agents", "set_in_config", "notes")}


# -- session-manager, the journal-keeper's former name: a deprecated alias for one release


def test_an_override_saved_under_the_former_name_reaches_the_renamed_agents_call(tmp_path):
    cwd = _workspace(tmp_path, {"session-manager": "sonnet"})
    answer = models.agent_call_update(_event(cwd, subagent_type="math:journal-keeper"))
    assert answer["hookSpecificOutput"]["updatedInput"]["model"] == "sonnet"
    report = models.in_use({"models": {"session-manager": "sonnet"}})
    assert report["agents"]["journal-keeper"] == "sonnet"
    assert (
        report["set_in_config"] == ["journal-keeper"] and "session-manager" not in report["agents"]
    )
    assert any("former name of 'journal-keeper'" in note for note in report["notes"])


def test_the_new_name_wins_over_the_former_one(tmp_path):
    cwd = _workspace(tmp_path, {"session-manager": "sonnet", "journal-keeper": "opus"})
    answer = models.agent_call_update(_event(cwd, subagent_type="math:journal-keeper"))
    assert answer["hookSpecificOutput"]["updatedInput"]["model"] == "opus"


def test_workspace_models_takes_the_former_name_and_saves_the_new_one(tmp_path):
    assert run_script("workspace.py", "init").returncode == 0
    config_path = tmp_path / ".math" / "config.json"
    cfg = json.loads(config_path.read_text())
    config_path.write_text(json.dumps({**cfg, "models": {"session-manager": "opus"}}))
    changed = run_script("workspace.py", "models", "--set", "session-manager=sonnet")
    assert changed.returncode == 0, changed.stdout
    assert changed.json()["agents"]["journal-keeper"] == "sonnet"
    assert json.loads(config_path.read_text())["models"] == {"journal-keeper": "sonnet"}
    config_path.write_text(json.dumps({**cfg, "models": {"session-manager": "opus"}}))
    reset = run_script("workspace.py", "models", "--reset", "session-manager")
    assert reset.returncode == 0, reset.stdout
    assert json.loads(config_path.read_text())["models"] == {}
    assert reset.json()["agents"]["journal-keeper"] == models.declared()["journal-keeper"]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["--set", "proof=gpt-4"], "bad_model"),
        (["--set", "proof"], "bad_model"),
        (["--set", "nobody=opus"], "bad_model"),
        (["--reset", "nobody"], "unknown_agent"),
    ],
)
def test_a_bad_change_is_refused_and_nothing_is_written(tmp_path, args, code):
    assert run_script("workspace.py", "init").returncode == 0
    before = (tmp_path / ".math" / "config.json").read_text()
    run = run_script("workspace.py", "models", *args)
    assert run.returncode == 2 and run.json()["error"]["code"] == code
    assert (tmp_path / ".math" / "config.json").read_text() == before


def test_models_without_a_workspace_shows_the_declared_ones_and_refuses_a_change():
    shown = run_script("workspace.py", "models").json()
    assert shown["workspace"] is None and shown["agents"] == models.declared()
    refused = run_script("workspace.py", "models", "--set", "proof=haiku")
    assert refused.returncode == 2 and refused.json()["error"]["code"] == "no_workspace"


@pytest.mark.parametrize("command", ["status", "help"])
def test_status_and_help_show_the_models_from_the_status_json(command):
    body = frontmatter.split_frontmatter((PLUGIN / "commands" / f"{command}.md").read_text())[1]
    assert "models.agents" in body and "models.set_in_config" in body
    assert 'scripts/workspace.py" status' in body

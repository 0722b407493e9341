"""Which model each agent of the plugin runs on, and the user's per-role overrides.

Each agent declares its model in its own file (`model:` in agents/<name>.md frontmatter); that is
the one home of the default, and Claude Code reads it when it starts the agent. The user may put
an agent on another model for one workspace in `.math/config.json`:

    "models": {"literature-search": "sonnet", "journal-keeper": "sonnet"}

(`workspace.py models --set literature-search=sonnet` writes it). An agent's former name (see
FORMER_NAMES) still names it there and in `workspace.py models`, for one release.

Claude Code gives no way to choose an agent's model from outside its file except the Agent tool
call's `model` parameter, so the plugin's PreToolUse hook on that tool (hooks/agent_model.py) puts
the override there: it replaces whatever model the call asked for, and Claude Code ranks the
call's `model` above the agent file's. A call to an agent without an override is left alone.

Standard library only: the hook imports this module on every Agent call, before (and without)
the plugin's bootstrap. Nothing here raises for bad data: a problem comes back as a message the
caller reports its own way (the hook as a warning to the user, workspace.py as bad input).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from ..core import PLUGIN_ROOT, workspace_config

PLUGIN_NAME = "math"  # agents are offered to the Agent tool as "math:<agent>"
AGENTS_DIR = PLUGIN_ROOT / "agents"
CONFIG_KEY: Final = "models"
# The values the Agent tool's `model` parameter accepts (its enum in Claude Code 2.1.197 and
# 2.1.330); Claude Code maps each to a model id (ANTHROPIC_DEFAULT_<NAME>_MODEL overrides that).
MODEL_NAMES = ("opus", "sonnet", "haiku", "fable")
AGENT_TOOLS = ("Agent", "Task")  # Claude Code 2.x names the tool Agent; 1.x named it Task
ENV_SUBAGENT_MODEL = "CLAUDE_CODE_SUBAGENT_MODEL"
# Renamed agents: former name -> name. Users typed the former names into .math/config.json
# "models", so they keep naming the agent for one release (deprecated; `--set` saves the new one).
FORMER_NAMES = {"session-manager": "journal-keeper"}


def current_name(agent: str) -> str:
    """The agent's name now: a former (deprecated) name gives the agent's new one."""
    return FORMER_NAMES.get(agent, agent)


def declared(agents_dir: Path = AGENTS_DIR) -> dict[str, str | None]:
    """Agent name -> the `model:` its file declares (None when it declares none), by name."""
    from ..core import split_frontmatter  # YAML: only the scripts that report models need it

    found = {}
    for path in sorted(agents_dir.glob("*.md")):
        meta = split_frontmatter(path.read_text(encoding="utf-8"), str(path))[0]
        found[str(meta.get("name") or path.stem)] = meta.get("model")
    return found


def check(agent: str, model: object, agents: Mapping[str, object] | None = None) -> str | None:
    """Why `agent=model` cannot be an override (None when it can). `agents` (from `declared()`)
    also checks that the agent exists."""
    if agents is not None and current_name(agent) not in agents:
        return f"no agent {agent!r}; agents: {', '.join(agents)}"
    if model not in MODEL_NAMES:
        return f"{agent}={model!r}: the model must be one of {', '.join(MODEL_NAMES)}"
    return None


def overrides(cfg: Mapping[str, object]) -> tuple[dict[str, str], dict[str, str]]:
    """(valid overrides, why each invalid entry of the config's `models` is ignored, by agent;
    under "" when `models` itself is not a mapping). Both are keyed by the agents' current names:
    an entry under a former name counts for the agent, unless its new name has one too."""
    raw = cfg.get(CONFIG_KEY) or {}
    if not isinstance(raw, dict):
        return {}, {"": f"'{CONFIG_KEY}' in .math/config.json must map agent names to models"}
    valid, problems = {}, {}
    for saved_as, model in raw.items():
        agent = current_name(saved_as)
        if agent != saved_as and agent in raw:
            continue  # the entry under the new name wins
        problem = check(saved_as, model)
        if problem:
            problems[agent] = problem
        else:
            valid[agent] = model
    return valid, problems


def in_use(
    cfg: Mapping[str, object], agents: dict[str, str | None] | None = None
) -> dict[str, object]:
    """What `/math:status` shows: the model each agent runs on, which of them the workspace's
    config sets, and notes (ignored entries, an environment variable that wins over both)."""
    agents = declared() if agents is None else agents
    chosen, problems = overrides(cfg)
    table = {agent: chosen.get(agent) or model or "inherit" for agent, model in agents.items()}
    notes = [f"ignored: {problem}" for problem in problems.values()]
    notes += [f"ignored: no agent {name!r}" for name in chosen if name not in agents]
    saved = cfg.get(CONFIG_KEY)
    notes += [
        f"{former!r} in .math/config.json is the former name of {new!r} (deprecated: "
        f"`workspace.py models --set {new}=MODEL` saves it under the new name)"
        for former, new in FORMER_NAMES.items()
        if isinstance(saved, dict) and former in saved
    ]
    if os.environ.get(ENV_SUBAGENT_MODEL):
        notes.append(
            f"{ENV_SUBAGENT_MODEL} is set: Claude Code 2.1.197 runs every agent on it, whatever "
            "this table says (2.1.330 only the agents that declare no model)"
        )
    return {
        "agents": table,
        "set_in_config": [agent for agent in agents if agent in chosen],
        "notes": notes,
    }


def agent_call_update(event: Mapping[str, object]) -> dict[str, object] | None:
    """The PreToolUse hook's answer to one tool call: the call's input with the user's model for
    that agent, a warning when the workspace's overrides are unreadable, or None (no change)."""
    if event.get("tool_name") not in AGENT_TOOLS:
        return None
    call = event.get("tool_input")
    if not isinstance(call, dict):
        return None
    plugin, _, agent = str(call.get("subagent_type") or "").partition(":")
    if plugin != PLUGIN_NAME or not agent:
        return None
    cwd = event.get("cwd")
    start = Path(cwd) if isinstance(cwd, str) and cwd and "\0" not in cwd else None
    try:
        cfg = workspace_config(start)
    except Exception as exc:  # a broken config.json must not stop the agent, only be reported
        return _warning(f"{exc}; {agent} runs on its declared model")
    chosen, problems = overrides(cfg)
    model = chosen.get(agent)
    if model is None:
        problem = problems.get(agent) or problems.get("")
        return _warning(f"{problem}; {agent} runs on its declared model") if problem else None
    if call.get("model") == model:
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {**call, "model": model},
        }
    }


def _warning(message: str) -> dict[str, object]:
    return {"systemMessage": f"math plugin, .math/config.json models: {message}"}

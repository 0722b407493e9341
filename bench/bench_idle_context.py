#!/usr/bin/env python3
"""Idle context: what the plugin adds to every request of every session, before any math command.

Runs the real Claude Code (tests/support/claude_code.py; each supported version) against the
harness's fake Messages API (tests/support/claude_harness.py) twice, on a plain prompt: with the
plugin (`--plugin-dir`) and without. The figure is the largest request with the plugin minus the
largest without, in characters of the JSON body and in tokens (characters / 4, the usual estimate
for English prose), with the plugin's own share of it: the agent descriptions and the command
(skill) descriptions Claude Code lists to the model.

  .venv/bin/python bench/bench_idle_context.py [--versions 2.1.330 2.1.197]

Target: at most 600 tokens per request, on every supported version.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.claude_code import CURRENT_VERSION, OLDEST_VERSION, VERSION_VARIABLE  # noqa: E402
from support.claude_harness import run_claude  # noqa: E402

TARGET_TOKENS = 600
CHARS_PER_TOKEN = 4
PROMPT = "Hello."


def largest_request(plugin_dir: Path | None, home: Path):
    """(characters of the largest /v1/messages body, that request) for one plain-prompt run."""
    run = run_claude(PROMPT, ["Hello."], home=home, plugin_dir=plugin_dir, timeout=120)
    if run.exit_code != 0:
        raise SystemExit(f"claude failed:\n{run.describe()}")
    sized = [(len(json.dumps(r.body, ensure_ascii=False)), r) for r in run.main_requests()]
    return max(sized, key=lambda pair: pair[0])


def measure(version: str) -> dict:
    os.environ[VERSION_VARIABLE] = version
    with tempfile.TemporaryDirectory() as work:
        without, _ = largest_request(None, Path(work) / "without")
        with_plugin, request = largest_request(ROOT / "plugin", Path(work) / "with")
    agents = {k: v for k, v in request.agent_types().items() if k.startswith("math:")}
    skills = {k: v for k, v in request.skills().items() if k.startswith("math:")}
    listed = sum(len(f"- {name}: {text}\n") for name, text in agents.items())
    offered = sum(len(f"- {name}: {text}\n") for name, text in skills.items())
    return {
        "added": with_plugin - without,
        "agents": (len(agents), listed),
        "commands": (len(skills), offered),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", nargs="+", default=[CURRENT_VERSION, OLDEST_VERSION])
    args = parser.parse_args()
    print(f"idle context the plugin adds to every request (target: <= {TARGET_TOKENS} tokens)")
    print(f"{'Claude Code':<12} {'characters':>10} {'tokens':>7} {'target':>7}  of which")
    worst = 0
    for version in args.versions:
        found = measure(version)
        tokens = round(found["added"] / CHARS_PER_TOKEN)
        worst = max(worst, tokens)
        (agents, agent_chars), (commands, command_chars) = found["agents"], found["commands"]
        print(
            f"{version:<12} {found['added']:>10} {tokens:>7} {TARGET_TOKENS:>7}  "
            f"{agents} agent descriptions {agent_chars} chars, "
            f"{commands} command descriptions {command_chars} chars"
        )
    print("within target" if worst <= TARGET_TOKENS else f"OVER TARGET by {worst - TARGET_TOKENS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""PreToolUse hook on the Agent tool: start a math agent on the model the user chose for it.

Claude Code runs this (hooks/hooks.json) before every Agent tool call, with the call as JSON on
stdin. When the call starts one of the plugin's agents (`math:<agent>`) and the workspace's
`.math/config.json` names a model for that agent under "models", it prints the call's input with
`model` set to it, which Claude Code ranks above the agent file's `model:`. Otherwise it prints
nothing and the call goes ahead unchanged. An unreadable config or an invalid model is reported to
the user as a warning, and the agent runs on its declared model.

Set the models with `workspace.py models --set AGENT=MODEL` (see mathtools/research/models.py).

Standard library only, and it always exits 0: exit 2 from a PreToolUse hook would block the call.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from mathtools.research import agent_call_update

MAX_EVENT_BYTES = 16 << 20  # an Agent call's JSON is a few KB; more is not a hook event


def main() -> int:
    try:
        event = json.loads(sys.stdin.buffer.read(MAX_EVENT_BYTES + 1) or b"null")
    except (ValueError, RecursionError):  # JSON nested 100,000 deep, not UTF-8
        return 0  # not a hook event: nothing to change
    answer = agent_call_update(event) if isinstance(event, dict) else None
    if answer:
        print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())

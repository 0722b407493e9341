#!/usr/bin/env python3
"""PostToolUse hook on the Agent tool: after an agent of /math:research finishes, run
`state.py advance` and give its JSON line to the orchestrator (mathtools/research/afteragent.py).

Claude Code runs this (hooks/hooks.json) after every Agent tool call, with the call and its
answer as JSON on stdin. Anywhere but /math:research's loop it prints nothing.

Standard library only, and it always exits 0: the agent's work is done either way, and without
this hook's line the orchestrator runs `state.py advance` itself.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from mathtools.research import after_agent

MAX_EVENT_BYTES = 16 << 20  # an Agent call's JSON with its report is a few KB


def main() -> int:
    try:
        event = json.loads(sys.stdin.buffer.read(MAX_EVENT_BYTES + 1) or b"null")
    except (ValueError, RecursionError):
        return 0
    state_script = Path(__file__).resolve().parents[1] / "scripts" / "state.py"
    answer = after_agent(event, state_script) if isinstance(event, dict) else None
    if answer:
        print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())

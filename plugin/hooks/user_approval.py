#!/usr/bin/env python3
"""UserPromptSubmit hook: record the user's own approval to go past a loop cap.

Claude Code runs this (hooks/hooks.json) on every prompt the user submits, with the prompt as
JSON on stdin, and never on the model's tool calls. When the user types
`/math:research continue [slug]` or `/math:research accept-partial [slug]`, it writes the
workspace's approval record ({"choice", "problem", "at"}) in the plugin's data folder, outside
the workspace (mathtools/research/approval.py); `state.py advance` (or `transition
--user-approved`) uses it up for one move past a cap (continue) or into LATEX_OUTPUT without a
passing review (accept-partial). A `--user-approved` with no such record is refused: the model's
own pre-approved calls cannot grant what only the user may (see mathtools/research/state.py).

Standard library only, prints nothing, always exits 0 (a failing hook must not block the prompt).
"""

import contextlib
import json
import os
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from mathtools.research.approval import approval_file

COMMAND = re.compile(
    r"^\s*/(?:math:)?research\s+(?P<choice>continue|accept-partial)\b(?:\s+(?P<slug>[\w.-]+))?"
)


def main() -> int:
    try:
        event = json.load(sys.stdin)
    except ValueError:
        return 0
    if not isinstance(event, dict):
        return 0
    said = COMMAND.match(str(event.get("prompt") or ""))
    if not said:
        return 0
    start = Path(os.environ.get("MATH_WORKSPACE") or event.get("cwd") or os.getcwd())
    for folder in (start, *start.parents):
        if (folder / ".math").is_dir():
            record = {
                "choice": said.group("choice"),
                "problem": said.group("slug"),
                "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
            with contextlib.suppress(OSError):
                path = approval_file(folder / ".math")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(record) + "\n", encoding="utf-8")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())

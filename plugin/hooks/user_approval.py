#!/usr/bin/env python3
"""UserPromptSubmit hook: record the user's own approval to go past a loop cap.

Claude Code runs this (hooks/hooks.json) on every prompt the user submits, with the event as JSON
on stdin. When the user types `/math:research continue [slug]` or `/math:research accept-partial
[slug]`, it writes the workspace's approval record ({"choice", "problem", "at", "session"}) in the
plugin's data folder, outside the workspace (mathtools/research/approval.py); `state.py advance`
(or `transition --user-approved`) uses it up for one move past a cap (continue) or into
LATEX_OUTPUT without a passing review (accept-partial). A `--user-approved` with no such record is
refused: the model's own pre-approved calls cannot grant what only the user may.

The model can run this file too (a Bash call piping `{"prompt": "/math:research continue"}` into
it), so an approval is recorded only from what Claude Code gives a real UserPromptSubmit event and
a Bash tool call does not have (approval.event_problems, checked on 2.1.197 and 2.1.332), and it
counts only while the session's transcript holds the command as the user's last message
(approval.typed_by_user, checked when state.py uses it: the prompt reaches the transcript after
its hooks have run). A whole event piped from Bash, with CLAUDE_PLUGIN_DATA set from the exported
MATH_PLUGIN_DATA and a transcript that does not exist, grants nothing. See approval.py for what
this does and does not prevent.

Standard library only. Exit 0, printing nothing, for every prompt that is not an approval; an
approval that lacks the evidence is not recorded, said in one line on stderr, exit 1 (Claude Code's
non-blocking hook error: exit 2 would block a prompt the user really typed).
"""

import contextlib
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from mathtools.research import COMMAND, approval_file, event_problems


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
    problems = event_problems(event, os.environ)
    if problems:
        print(
            f"user_approval.py: no approval recorded, this is not a prompt the user typed in "
            f"Claude Code ({problems[0]}); only the user approves, by typing "
            f"/math:research {said.group('choice')}",
            file=sys.stderr,
        )
        return 1
    start = Path(os.environ.get("MATH_WORKSPACE") or event.get("cwd") or os.getcwd())
    for folder in (start, *start.parents):
        if (folder / ".math").is_dir():
            record = {
                "choice": said.group("choice"),
                "problem": said.group("slug"),
                "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "session": event["session_id"],
                # state.py checks, when it uses the approval, that the user's last message there
                # is this command (approval.typed_by_user)
                "transcript": os.path.realpath(str(event["transcript_path"])),
            }
            with contextlib.suppress(OSError):
                path = approval_file(folder / ".math")
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(json.dumps(record) + "\n", encoding="utf-8")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())

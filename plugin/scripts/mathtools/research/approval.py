"""The user's own approvals, `/math:research continue|accept-partial`: what counts as the user
typing one, and where the record of it lives. The UserPromptSubmit hook (hooks/user_approval.py)
writes the record as the user types the command; state.py uses it up.

The record lives in the plugin's data folder (bootstrap.data_dir(): $CLAUDE_PLUGIN_DATA in Claude
Code), outside the workspace, one file per workspace: a Write or Edit tool call of the model's
inside the project, which acceptEdits lets through unasked, cannot reach it.

The hook is a file the model can run too. `event_problems` accepts only what Claude Code gives a
real UserPromptSubmit event (checked with tests/support/claude_harness.py on 2.1.197 and 2.1.332):
`hook_event_name: UserPromptSubmit`, a `session_id`, a `transcript_path` under the Claude config
dir's projects/ named after that session, and the hook's environment, where CLAUDE_PLUGIN_DATA is
set (Claude Code sets it for hooks, never in a Bash tool call's environment); and, when the
session's transcript already exists, its last message is not a tool call of the model's still
running (the state of the session while the model's own Bash call pipes text into the hook; the
prompt the user types is not in the transcript yet when the hook runs, so the check cannot ask
for it). A model piping `{"prompt": "/math:research continue"}` into the hook meets none of
these. Since a Bash call can set CLAUDE_PLUGIN_DATA itself (the SessionStart hook exports
MATH_PLUGIN_DATA, the same folder, to every Bash call, so that the scripts find the plugin's
environment and this record), the record names the session's transcript, and `typed_by_user`
checks when state.py uses the approval that the transcript exists and that the user's last
message in it is that very command (Claude Code writes a slash command there as its
<command-name> and <command-args>): a forged event, whose transcript does not exist or whose
user said something else, grants nothing. The threat is an eager model taking a shortcut, not a
determined one: a model that writes the user's message into the session's transcript and the
record file itself is not stopped here.

Standard library only: the hook imports it without the plugin's environment.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from ..core import data_dir

# continue and accept-partial answer a loop cap; resign seals the workspace's files again after
# .math/signing.key was lost (statechanges.resign).
CHOICES = ("continue", "accept-partial", "resign")
COMMAND = re.compile(
    rf"^\s*/(?:math:)?research\s+(?P<choice>{'|'.join(CHOICES)})\b(?:\s+(?P<slug>[\w.-]+))?"
)
TRANSCRIPT_TAIL = 262_144  # bytes of the transcript read from its end: its last message is there


def approval_file(math_dir: Path) -> Path:
    """The approval record of the workspace whose `.math/` folder is `math_dir`."""
    key = hashlib.sha256(str(Path(math_dir).resolve()).encode("utf-8")).hexdigest()[:24]
    return data_dir() / "approvals" / f"{key}.json"


def event_problems(event: Mapping[str, object], env: Mapping[str, str]) -> list[str]:
    """Why `event` (with the environment `env` the hook ran in) is not a UserPromptSubmit event of
    a Claude Code session, each reason in a few words; [] when it is one (module docstring)."""
    if event.get("hook_event_name") != "UserPromptSubmit":
        return ["hook_event_name is not UserPromptSubmit"]
    if not env.get("CLAUDE_PLUGIN_DATA"):
        return ["CLAUDE_PLUGIN_DATA is not set: Claude Code sets it for hooks, not for Bash"]
    session, transcript = event.get("session_id"), event.get("transcript_path")
    if not isinstance(session, str) or not session or not isinstance(transcript, str):
        return ["no session_id or transcript_path"]
    config = Path(env.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    path = Path(os.path.realpath(transcript))
    if path.name != f"{session}.jsonl" or Path(os.path.realpath(config / "projects")) not in (
        path.parents
    ):
        return ["transcript_path is not this session's transcript in the Claude config dir"]
    if _tool_call_running(path):
        return ["the session's last message is a tool call of the model's, still running"]
    return []


def typed_by_user(record: Mapping[str, object]) -> str | None:
    """Why the approval `record` (the hook's) is not the user's own, or None when it is: its
    session's transcript must exist, be that session's file, and hold, as the user's last
    message (tool results and the command's expanded text aside), the approval command itself,
    with the same choice and problem. Checked when the approval is used, not when the hook
    writes it: the prompt reaches the transcript only after the prompt's hooks have run."""
    session, transcript = record.get("session"), record.get("transcript")
    if not isinstance(session, str) or not isinstance(transcript, str):
        return "the approval names no session transcript"
    path = Path(transcript)
    if path.name != f"{session}.jsonl" or not path.is_file():
        return "the approval's session transcript does not exist"
    said = last_user_prompt(path)
    typed = COMMAND.match(said or "")
    if typed is None or typed.group("choice") != record.get("choice"):
        return "the user's last message in the session is not that /math:research command"
    if (typed.group("slug") or None) != (record.get("problem") or None):
        return "the user's last message names another problem"
    return None


def last_user_prompt(transcript: Path) -> str | None:
    """The last message the user typed in the session's transcript, a slash command as typed
    (`/math:research continue slug`, from Claude Code's <command-name> and <command-args>);
    None when there is none."""
    for entry in reversed(_tail(transcript)):
        message = entry.get("message")
        if entry.get("type") != "user" or entry.get("isMeta") or not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, list):  # tool results, or a prompt given as text blocks
            texts = [b.get("text") for b in content if isinstance(b, dict)]
            if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
                continue
            content = "\n".join(t for t in texts if isinstance(t, str))
        if not isinstance(content, str):
            continue
        name = _COMMAND_NAME.search(content)
        if name:
            args = _COMMAND_ARGS.search(content)
            return f"{name.group(1).strip()} {args.group(1).strip() if args else ''}".strip()
        return content.strip()
    return None


_COMMAND_NAME = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)


def _tail(transcript: Path) -> list[dict[str, object]]:
    """The JSON entries of the transcript's last TRANSCRIPT_TAIL bytes ([] when unreadable)."""
    try:
        with transcript.open("rb") as handle:
            handle.seek(max(0, transcript.stat().st_size - TRANSCRIPT_TAIL))
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # the first, cut line of the tail
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def _tool_call_running(transcript: Path) -> bool:
    """Whether the last message of the transcript (if it exists yet) is the model's tool call."""
    for entry in reversed(_tail(transcript)):  # [] before Claude Code writes the first prompt
        if entry.get("type") not in ("user", "assistant"):
            continue
        message = entry.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        return entry["type"] == "assistant" and any(
            isinstance(block, dict) and block.get("type") == "tool_use"
            for block in (content if isinstance(content, list) else [])
        )
    return False

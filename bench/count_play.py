#!/usr/bin/env python3
"""Count a play of /math:research in the real Claude Code the way bench_research_turns.py
counts its scripted run: tool calls, and the characters the model reads.

A play is the list of requests Claude Code sent to the model (one JSON file, gzipped or not:
`{"requests": [{"kind", "subagent_type", "body"}, ...]}`, as tests/support/claude_harness.py
records them: `Run.requests`). Each conversation (the orchestrator's, one per Agent call) is
read from its last request, which holds every message of it. A call is a tool_use block the
model wrote (a script, a Read, a Write, an Edit, an Agent hand-off). The characters are what
bench_research_turns.py counts: each agent's runbook as Claude Code sent it (cut from the
subagent's system prompt) and its prompt, the command's body, and every tool result (scripts'
stdout and stderr, files Read with their line-number prefixes, Write and Edit
acknowledgements, agents' reports, and what the plugin's hooks add after a call: `state.py
advance`'s line after each agent). Claude Code's own system prompt and reminders are not counted,
there as here.

  .venv/bin/python bench/count_play.py [PLAY...] [--calls] [--save PLAY.json.gz]

Without a play, each play of bench/data/plays (its README says how they were played), counted
alone. --save keeps what the count reads: the last request of each conversation, its messages
and the runbook, without the rest of Claude Code's system prompt and its tool list.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAYS = ROOT / "bench" / "data" / "plays"


REMINDER = "<system-reminder>"
# How a hook's additionalContext reaches the model (a system message in 2.1.332, a
# system-reminder in 2.1.197): counted, as the plugin's own text (hooks/after_agent.py).
HOOK_CONTEXT = "hook additional context: "


# Where Claude Code 2.1.332 puts an agent's file body in the subagent's system prompt.
RUNBOOK_START = "built on Anthropic's Claude Agent SDK.\n"
RUNBOOK_END = "\n\nMessages from the agent that launched you"


def runbook(request: dict) -> str:
    """The agent's runbook as Claude Code sent it: kept by --save, else cut from the system
    prompt (the plugin's files may have changed since the play)."""
    kept = request["body"].get("runbook")
    if kept is not None:
        return str(kept)
    system = text_of(request["body"].get("system"))
    start, end = system.find(RUNBOOK_START), system.find(RUNBOOK_END)
    if start < 0 or end < start:
        raise SystemExit("count_play.py: a subagent's system prompt holds no runbook it can find")
    return system[start + len(RUNBOOK_START) : end]


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:  # type: ignore[attr-defined]
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(text_of(block.get("content")))
    return "\n".join(parts)


def conversations(requests: list[dict]) -> dict[str, dict]:
    """Conversation name -> its last request: the orchestrator's ("main"), and one per Agent
    call. Two calls of an agent with the same prompt are two conversations: a request belongs to
    the one whose first answer it repeats and whose messages it extends."""
    found: dict[str, dict] = {}
    numbers: dict[str, int] = {}
    for request in requests:
        if request["kind"] == "side":
            continue
        if request["kind"] == "main":
            found["main"] = request
            continue
        messages = request["body"].get("messages", [])
        agent = request["subagent_type"] or "agent"
        same = [
            name
            for name, earlier in found.items()
            if name.startswith(f"{agent} #")
            and len(earlier["body"]["messages"]) < len(messages)
            and _opening(earlier["body"]["messages"])
            == _opening(messages)[: 2 if len(earlier["body"]["messages"]) > 1 else 1]
        ]
        if same:
            found[same[-1]] = request
        else:
            numbers[agent] = numbers.get(agent, 0) + 1
            found[f"{agent} #{numbers[agent]}"] = request
    return found


def _opening(messages: list[dict]) -> tuple[str, ...]:
    """A conversation's prompt, and the ids of its first answer's tool calls when it has one
    (Claude Code marks blocks for caching differently from request to request: texts compare)."""
    first = text_of(messages[0]["content"]) if messages else ""
    if len(messages) < 2:
        return (first,)
    answer = messages[1]["content"]
    ids = (
        [b.get("id", "") for b in answer if isinstance(b, dict)] if isinstance(answer, list) else []
    )
    return (first, ",".join(ids))


def count(name: str, request: dict) -> tuple[int, int, list[str]]:
    """(calls, characters, one line per item) of one conversation."""
    messages = request["body"].get("messages", [])
    lines: list[str] = []
    chars = 0
    if name == "main":
        command = next(
            (
                text_of([b])
                for m in messages
                if m["role"] == "user" and isinstance(m["content"], list)
                for b in m["content"]
                if b.get("type") == "text" and b["text"].startswith("# /math:")
            ),
            "",
        )
        chars += len(command)
        lines.append(f"  command body {len(command)}")
    else:
        runbook_chars = len(runbook(request))
        prompt = messages[0]["content"]
        prompt_chars = sum(
            len(b["text"])
            for b in (prompt if isinstance(prompt, list) else [{"type": "text", "text": prompt}])
            if b.get("type") == "text" and REMINDER not in b["text"]
        )
        chars += runbook_chars + prompt_chars
        lines.append(f"  runbook {runbook_chars}, prompt {prompt_chars}")
    uses: dict[str, str] = {}
    calls = 0
    for message in messages:
        content = message["content"]
        if isinstance(content, str):  # a system message of 2.1.332's: a hook's context
            content = [{"type": "text", "text": content}] if HOOK_CONTEXT in content else []
        for block in content:
            if message["role"] == "assistant" and block.get("type") == "tool_use":
                calls += 1
                shown = block["input"].get("command") or block["input"].get("file_path") or ""
                shown = shown or block["input"].get("subagent_type", "")
                first = shown.splitlines()[0] if shown else ""
                uses[block["id"]] = f"{block['name']} {first}"[:110]
            elif block.get("type") == "tool_result":
                size = len(text_of(block.get("content")))
                chars += size
                lines.append(f"  {size:6d}  {uses.get(block.get('tool_use_id'), '?')}")
            elif block.get("type") == "text" and HOOK_CONTEXT in block["text"]:
                context = block["text"].split(HOOK_CONTEXT, 1)[1].split("\n</system-reminder>")[0]
                chars += len(context)
                lines.append(f"  {len(context):6d}  hook: {context.splitlines()[0][:90]}")
    return calls, chars, lines


def load(path: Path) -> list[dict]:
    try:
        raw = path.read_bytes()
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        requests: list[dict] = json.loads(text)["requests"]
    except (OSError, ValueError, KeyError) as exc:
        raise SystemExit(f"count_play.py: {path}: not a recorded play ({exc})") from None
    return requests


def save(found: dict[str, dict], path: Path) -> None:
    kept = [
        {
            "kind": r["kind"],
            "subagent_type": r["subagent_type"],
            "body": {
                "messages": r["body"]["messages"],
                **({"runbook": runbook(r)} if r["kind"] == "subagent" else {}),
            },
        }
        for r in found.values()
    ]
    path.write_bytes(gzip.compress(json.dumps({"requests": kept}).encode(), mtime=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument(
        "plays",
        type=Path,
        nargs="*",
        help="the recorded requests, one file an invocation (default: each play of "
        "bench/data/plays, counted alone)",
    )
    parser.add_argument("--calls", action="store_true", help="list every call's result size")
    parser.add_argument(
        "--save", type=Path, help="write what the count reads here (gzipped; one play)"
    )
    args = parser.parse_args()
    if args.save and len(args.plays) > 1:
        raise SystemExit("count_play.py: --save takes one play")
    if not args.plays:
        for play in sorted(PLAYS.glob("*.json.gz")):
            print(f"== {play.name}")
            _count([play], args.calls)
        return
    _count(args.plays, args.calls, args.save)


def _count(plays: list[Path], calls_too: bool, save_to: Path | None = None) -> None:
    total_calls = total_chars = 0
    for play in plays:
        found = conversations(load(play))
        if save_to:
            save(found, save_to)
        if len(plays) > 1:
            print(f"{play.name}:")
        for name, request in found.items():
            calls, chars, lines = count(name, request)
            total_calls += calls
            total_chars += chars
            print(f"{name}: {calls} calls, {chars:,} characters")
            if calls_too:
                print("\n".join(lines))
    print(f"in all: {total_calls} calls, {total_chars:,} characters (targets: <= 40, <= 90,000)")


if __name__ == "__main__":
    main()

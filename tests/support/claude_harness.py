"""Drive the real Claude Code offline: a local Anthropic Messages API plays a scripted model.

The project's end-to-end test tool. A test writes the model's side of a conversation; the real
`claude` binary (tests/support/claude_code.py) runs the plugin against it, executes the tool calls
the script asks for (Bash, Agent, ...) and sends the results back, as it would to the real API.
Nothing leaves the machine.

    from support.claude_harness import bash, run_claude, text

    def model(request):                       # called for each main-conversation request
        if not request.tool_results():
            root = request.plugin_root()      # what ${CLAUDE_PLUGIN_ROOT} became
            return [bash(f'python3 "{root}/scripts/workspace.py" status')]
        return [text("done")]

    run = run_claude("/math:help init", model, home=tmp_path)
    run.exit_code, run.stdout                 # what `claude -p` printed
    run.main_requests()[0].command_body()     # the expanded slash command the model saw
    run.tool_results()                        # every tool_result Claude Code sent back
    runbook_commands(body)                    # the ```bash lines of a command or agent body
    run.requests                              # every HTTP request, in arrival order

The script
----------
`script` is a list of turns (played in order, one per main-conversation request) or a callable
`script(request) -> turn`. A turn is a list of content blocks (`text(...)`, `tool_use(...)`,
`bash(...)`, `agent(...)`), a plain string (one text block) or a `Turn`. A turn holding a
tool_use block stops with stop_reason "tool_use", else "end_turn". When a list runs out, the
model says "(script finished)" and ends its turn. An exception in a callable script is answered
with an HTTP 400 (so Claude Code stops) and `run_claude` raises ScriptError.

Routing: which conversation a request belongs to
-------------------------------------------------
Claude Code may send more than the main conversation to the API. Each /v1/messages request gets
a `Request.kind`:

- "subagent": a conversation started by an Agent tool call the script made, recognised by its
  first user message, which carries that call's `prompt` (so give parallel Agent calls distinct
  prompts). `subagents={"math:<name>": script}` gives each agent type its own script (list or
  callable, as above; one player per Agent call); without one the subagent answers
  "(subagent finished)". `Request.subagent_type` names the agent.
- "main": any other request that offers tools: the session's own conversation.
- "side": a request without tools (title or summary generation with the small fast model,
  probes), answered by `side(request)` or, by default, a short text. Side requests never consume
  the main script, so a script stays deterministic whatever Claude Code does on the side.
  (Claude Code 2.1.197 in -p mode sends none for a plain run.)

Endpoints: POST /v1/messages streams server-sent events when the body says `"stream": true`
(message_start, ping, content_block_start/delta/stop with text_delta or input_json_delta,
message_delta with the stop_reason, message_stop), else returns one JSON message; POST
/v1/messages/count_tokens estimates from the body size; anything else gets a 404 in the API's
error shape. All are recorded.

The runner
----------
`run_claude(prompt, script, home=tmp_path, ...)` starts the server and runs
`claude -p --plugin-dir <repo> --output-format text -- <prompt>` with ANTHROPIC_BASE_URL at the
server, a dummy ANTHROPIC_API_KEY, HOME and CLAUDE_CONFIG_DIR inside `home`, telemetry,
auto-update, error reporting and non-essential traffic off, and this test run's interpreter first
on PATH. `bypass=True` (default) adds `--permission-mode bypassPermissions` (and IS_SANDBOX=1,
without which root may not bypass); `bypass=False` runs in the default mode, where only
allowed-tools rules (the command's frontmatter, `allowed_tools=`) and Claude Code's own read-only
list let a tool run: a refused call comes back as a tool_result with is_error (`refused(block)`).
The run is killed after `timeout` seconds (exit code -1).

Two versions, two message shapes
--------------------------------
The harness drives the Claude Code version tests/support/claude_code.py pins for this run
(the current release, or the oldest supported) and hides where they differ:

- a refused tool call reads "This command requires approval" (2.1.197) or "Permission to use
  Bash has been denied" (2.1.330): `refused(block)` knows both;
- the Agent tool answers with the subagent's report (2.1.197; 2.1.330 in the foreground, after a
  "[Subagent hand-back]" preamble), or at once with "Async agent
  launched successfully" while the subagent runs in the background, its report arriving later in
  a `<task-notification>` user message (2.1.330). The server then ends the main model's turn by
  itself with WAITING_TEXT, without consuming the script, until every agent of the script's last
  turn has reported; `tool_results()` and `last_tool_results()` show each background agent's
  report as its Agent call's tool_result, so one script reads both versions alike;
- 2.1.330 puts a `role: "system"` message in `messages` (the environment, agent and skill
  listings; it may follow tool results): skipped when looking for the latest tool results;
- both offer commands to the model as Skill entries ("The following skills are available for use
  with the Skill tool:", `Request.skills()`) and agents in "Available agent types for the Agent
  tool:" (`Request.agent_types()`).

What Claude Code does, as tests/test_claude_harness.py shows (2.1.197 and 2.1.330 alike): it
substitutes ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} in command bodies (and
${CLAUDE_PLUGIN_ROOT} in allowed-tools rules) but sets neither in the Bash tool's environment; a
command's allowed-tools rules hold for the turns the command started, so not after a background
agent's report (2.1.330), which is why the runbooks run agents with `run_in_background: false`;
plugin SessionStart hooks run in -p mode with both set and with CLAUDE_ENV_FILE, whose exports
reach later Bash tool calls; a hook's stdout reaches the model as a system message; an `@path`
line in an Agent call's prompt is not expanded (the subagent gets the literal line, no file).
`--plugin-dir` plugins keep their data in `$CLAUDE_CONFIG_DIR/plugins/data/<name>-inline`
(`plugin_data_dir(home)`).

2.1.332, the current pin since 2.1.330, changed nothing the harness sees: every `claude` test
passed on it unchanged. What the user SEES (interactive mode, `interactive_claude` below, under
tmux): a synchronous hook's `systemMessage` is displayed under the prompt ("UserPromptSubmit
says: ...", 2.1.197 and 2.1.332 alike); an async hook's output is not displayed.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from .claude_code import ROOT, claude_binary

PLUGIN = ROOT / "plugin"  # what ships, as the marketplace installs it

DUMMY_API_KEY = "sk-ant-offline-harness-0000"
AGENT_LISTING = "Available agent types for the Agent tool:"
SKILL_LISTING = "The following skills are available for use with the Skill tool:"
# How a refused tool call starts: Bash (both), a file write (2.1.197), any tool (2.1.330).
REFUSALS = ("This command requires approval", "Claude requested permissions", "Permission to use ")
# 2.1.330's first answer to an Agent call whose subagent runs in the background.
ASYNC_LAUNCH = "Async agent launched successfully"
# What the server answers, for the script, while background agents have not reported yet.
WAITING_TEXT = "(waiting for the background agents)"
_NOTIFICATION = re.compile(r"<task-notification>(.*?)</task-notification>", re.S)


# ---------------------------------------------------------------- content blocks a script returns

_ids = itertools.count(1)


def text(value: str) -> dict:
    return {"type": "text", "text": value}


def tool_use(name: str, input: dict, id: str | None = None) -> dict:
    return {"type": "tool_use", "id": id or f"toolu_{next(_ids):06d}", "name": name, "input": input}


def bash(command: str, description: str = "Run a command", id: str | None = None) -> dict:
    return tool_use("Bash", {"command": command, "description": description}, id)


def agent(
    subagent_type: str,
    prompt: str,
    description: str = "Delegate a task",
    id: str | None = None,
    background: bool | None = None,
) -> dict:
    """An Agent tool call (Claude Code 2.x names the tool `Agent`; older versions `Task`).

    `background` sets `run_in_background` (both versions take it; 2.1.330 runs agents in the
    background unless it is false, 2.1.197 in the foreground); None leaves it out.
    """
    input = {"subagent_type": subagent_type, "prompt": prompt, "description": description}
    if background is not None:
        input["run_in_background"] = background
    return tool_use("Agent", input, id)


@dataclass
class Turn:
    """One assistant message: its content blocks and why it stopped."""

    content: list[dict]
    stop_reason: str | None = None

    def __post_init__(self):
        if self.stop_reason is None:
            uses_tools = any(block["type"] == "tool_use" for block in self.content)
            self.stop_reason = "tool_use" if uses_tools else "end_turn"


def as_turn(value: Turn | list | dict | str) -> Turn:
    """A Turn from a Turn, a list of blocks, one block, or a string (one text block)."""
    if isinstance(value, Turn):
        return value
    if isinstance(value, str):
        return Turn([text(value)])
    if isinstance(value, dict):
        return Turn([value])
    return Turn(list(value))


# ----------------------------------------------------------------------------- recorded requests


def _block_text(content: Any) -> str:
    """The text of a message's content (a string or a list of blocks), blocks joined by newlines."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(_block_text(block.get("content")))
    return "\n".join(parts)


@dataclass
class Request:
    """One HTTP request Claude Code sent to the fake API."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict
    kind: str = "side"  # "main", "subagent" or "side"; set by the router for /v1/messages
    subagent_type: str | None = None

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    @property
    def model(self) -> str:
        return self.body.get("model", "")

    def system_text(self) -> str:
        return _block_text(self.body.get("system"))

    def first_user_text(self) -> str:
        first = next((m for m in self.messages if m["role"] == "user"), None)
        return _block_text(first["content"]) if first else ""

    def user_texts(self) -> list[str]:
        """Every text block the user side sent (prompt, expanded commands, reminders)."""
        out = []
        for message in self.messages:
            if message["role"] != "user":
                continue
            content = message["content"]
            if isinstance(content, str):
                out.append(content)
            else:
                out += [b["text"] for b in content if b.get("type") == "text"]
        return out

    def hook_contexts(self, event: str = "PostToolUse") -> list[str]:
        """The additionalContext texts hooks of `event` gave the model, oldest first: Claude Code
        2.1.332 sends each as a message of role system, 2.1.197 as a system-reminder in the next
        user message, both headed `<event>:<tool> hook additional context: `."""
        head = re.compile(rf"{event}:\w+ hook additional context: ")
        found = []
        for message in self.messages:
            content = message["content"]
            blocks = (
                [content]
                if isinstance(content, str)
                else [b.get("text", "") for b in content if b.get("type") == "text"]
            )
            for block in blocks:
                for match in head.finditer(block):
                    rest = block[match.end() :]
                    found.append(rest.split("\n</system-reminder>")[0].rstrip())
        return found

    def tool_names(self) -> list[str]:
        return [tool.get("name") for tool in self.body.get("tools", [])]

    def tool(self, name: str) -> dict | None:
        return next((t for t in self.body.get("tools", []) if t.get("name") == name), None)

    def tool_results(self) -> list[dict]:
        """Every tool_result block in this request, oldest first; a background agent's report
        (2.1.330) stands in for its Agent call's "launched" answer once it has arrived."""
        return [
            self._reported(block)
            for message in self.messages
            if message["role"] == "user" and isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]

    def last_tool_results(self) -> list[dict]:
        """The tool_result blocks answering the script's latest turn (empty if none).

        Read from every user message after that turn, past system messages and the server's own
        WAITING_TEXT turns, background agents' reports standing in as in tool_results().
        """
        found: list[dict] = []
        for message in reversed(self.messages):
            if message["role"] == "assistant" and _block_text(message["content"]) != WAITING_TEXT:
                break
            if message["role"] == "user" and isinstance(message["content"], list):
                blocks = [b for b in message["content"] if b.get("type") == "tool_result"]
                found = [self._reported(b) for b in blocks] + found
        return found

    def agent_reports(self) -> dict[str, str]:
        """Background agents' reports that have arrived (2.1.330): Agent tool_use id -> text.
        A notification comes in a user message, or in a system message when it arrives while a
        hook runs (2.1.332)."""
        reports = {}
        system = [
            m["content"] if isinstance(m["content"], str) else _block_text(m["content"])
            for m in self.messages
            if m["role"] == "system"
        ]
        for value in [*self.user_texts(), *system]:
            for notification in _NOTIFICATION.findall(value):
                use_id = re.search(r"<tool-use-id>(.*?)</tool-use-id>", notification, re.S)
                result = re.search(r"<result>(.*?)</result>", notification, re.S)
                if use_id:
                    reports[use_id.group(1).strip()] = result.group(1).strip() if result else ""
        return reports

    def awaited_agents(self) -> list[str]:
        """Agent calls of the script's latest turn still running in the background (2.1.330)."""
        return [
            block["tool_use_id"]
            for block in self.last_tool_results()
            if result_text(block).startswith(ASYNC_LAUNCH)
        ]

    def _reported(self, block: dict) -> dict:
        if not result_text(block).startswith(ASYNC_LAUNCH):
            return block
        report = self.agent_reports().get(block["tool_use_id"])
        return block if report is None else {**block, "content": [text(report)]}

    def command_body(self, name: str | None = None) -> str:
        """The expanded body of the slash command the prompt invoked ("" if there is none).

        Claude Code sends `<command-name>/math:help</command-name>` (and `<command-args>`) in one
        text block and the command's body, arguments and plugin paths substituted, in the next.
        `name` (e.g. "/math:help") picks one command when several were expanded.
        """
        texts = self.user_texts()
        for index, value in enumerate(texts[:-1]):
            if "<command-name>" in value and (name is None or f">{name}<" in value):
                return texts[index + 1]
        return ""

    def plugin_root(self) -> str:
        """The path Claude Code substituted for ${CLAUDE_PLUGIN_ROOT} in the command body.

        Read as the quoted path in front of `/scripts/` in the first line that names a plugin
        script; "" when the body names none.
        """
        for line in self.command_body().splitlines():
            start = line.find("/scripts/")
            if start > 0:
                prefix = line[:start]
                return prefix[max(prefix.rfind('"'), prefix.rfind("'"), prefix.rfind(" ")) + 1 :]
        return ""

    def agent_types(self) -> dict[str, str]:
        """The agent types Claude Code offers for the Agent tool: name -> description.

        Claude Code 2.1 lists them in a system-reminder message ("Available agent types for the
        Agent tool:"), one `- name: description (Tools: ...)` line each.
        """
        return _listing(self.messages, AGENT_LISTING)

    def skills(self) -> dict[str, str]:
        """The skills Claude Code offers for the Skill tool (commands among them): name ->
        description, from the "The following skills are available" listing."""
        return _listing(self.messages, SKILL_LISTING)


def _listing(messages: list[dict], heading: str) -> dict[str, str]:
    """The `- name: description` lines under `heading` in the first message that has it."""
    found = next(
        (_block_text(m["content"]) for m in messages if heading in _block_text(m["content"])), ""
    )
    entries: dict[str, str] = {}
    for line in found.split(heading, 1)[-1].splitlines():
        if line.startswith("- ") and ": " in line:
            name, description = line[2:].split(": ", 1)
            entries[name] = description
        elif entries and not line.strip():
            break
    return entries


_FENCED_BASH = re.compile(r"^[ \t]*```bash\n(.*?)^[ \t]*```", re.M | re.S)


def runbook_commands(markdown: str) -> list[str]:
    """The shell commands of a command or agent body's ```bash blocks, one per line, in order.

    What a model following the runbook to the letter would type (placeholders such as SLUG still
    to fill in; a line ending in a backslash continues on the next); a scripted model takes its
    Bash calls from here rather than retyping them.
    """
    return [
        line.strip()
        for block in _FENCED_BASH.findall(markdown)
        for line in re.sub(r"\\\n\s*", " ", block).splitlines()
        if line.strip()
    ]


def result_text(block: dict) -> str:
    """The text of a tool_result block."""
    return _block_text(block.get("content"))


def refused(block: dict) -> bool:
    """Whether Claude Code refused the tool call this tool_result answers (either version)."""
    return bool(block.get("is_error")) and result_text(block).startswith(REFUSALS)


def bash_result(block: dict) -> tuple[int, str]:
    """(exit status, output) of a Bash tool_result.

    Claude Code sends a failing command's output as an error result that starts with a line
    `Exit code N`; a successful command's output comes as is.
    """
    output = result_text(block)
    first, _, rest = output.partition("\n")
    if block.get("is_error") and first.startswith("Exit code ") and first[10:].isdigit():
        return int(first[10:]), rest
    return 0, output


# ------------------------------------------------------------------------------------ the server

Script = list | Callable[[Request], Any]


class _Player:
    """Plays one conversation's script: a list, one turn per request, or a callable."""

    def __init__(self, script: Script | None, finished: str):
        self.script = script
        self.finished = finished
        self.position = 0

    def next(self, request: Request) -> Turn:
        if callable(self.script):
            return as_turn(self.script(request))
        turns = self.script or []
        if self.position < len(turns):
            self.position += 1
            return as_turn(turns[self.position - 1])
        return as_turn(self.finished)


class FakeAnthropic:
    """A local server speaking the Anthropic Messages API, answering from scripts.

    Use as a context manager; `url` is the base URL for ANTHROPIC_BASE_URL. Every request lands in
    `requests`. POST /v1/messages answers with server-sent events when the body says
    `"stream": true`, else with one JSON message; POST /v1/messages/count_tokens estimates
    from the body size; any other path gets a 404 in the API's error shape.
    """

    def __init__(
        self,
        script: Script | None = None,
        subagents: dict[str, Script] | None = None,
        side: Callable[[Request], Any] | None = None,
    ):
        self.main = _Player(script, "(script finished)")
        self.subagent_scripts = subagents or {}
        self.subagents: dict[str, _Player] = {}  # by the Agent call's prompt
        self.side = side or (lambda request: "Offline harness")
        self.requests: list[Request] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._agent_calls: dict[str, str] = {}  # Agent prompt -> subagent_type
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> FakeAnthropic:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # -- routing

    def classify(self, request: Request) -> None:
        """Set request.kind (and subagent_type) from the conversation the request belongs to."""
        first = request.first_user_text()
        for prompt, agent_type in self._agent_calls.items():
            if prompt and prompt in first:
                request.kind, request.subagent_type = "subagent", agent_type
                return
        request.kind = "main" if request.tool_names() else "side"

    def answer(self, request: Request) -> Turn:
        self.classify(request)
        if request.kind != "side" and request.awaited_agents():
            return Turn([text(WAITING_TEXT)])  # Claude Code sends their reports when they end
        if request.kind == "main":
            turn = self.main.next(request)
        elif request.kind == "subagent":
            first = request.first_user_text()
            player = self.subagents.setdefault(
                first,
                _Player(self.subagent_scripts.get(request.subagent_type), "(subagent finished)"),
            )
            turn = player.next(request)
        else:
            turn = as_turn(self.side(request))
        for block in turn.content:
            if block["type"] == "tool_use" and block["name"] in ("Agent", "Task"):
                self._agent_calls[block["input"].get("prompt", "")] = block["input"].get(
                    "subagent_type", "general-purpose"
                )
        return turn

    # -- HTTP

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else {}
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                request = Request("POST", self.path, dict(self.headers), body)
                path = self.path.split("?")[0]
                with server._lock:
                    server.requests.append(request)
                    if path == "/v1/messages":
                        try:
                            turn = server.answer(request)
                        except Exception as exc:  # a broken script must fail the test visibly
                            server.errors.append(f"{type(exc).__name__}: {exc}")
                            # 400, not 500: Claude Code gives up at once instead of retrying
                            error = _api_error("invalid_request_error", f"harness script: {exc}")
                            return self._json(400, error)
                if path == "/v1/messages":
                    message = _message(turn, request.model, _estimate_tokens(raw))
                    if body.get("stream"):
                        return self._stream(message)
                    return self._json(200, message)
                if path == "/v1/messages/count_tokens":
                    return self._json(200, {"input_tokens": _estimate_tokens(raw)})
                return self._json(404, _api_error("not_found_error", f"no route {self.path}"))

            def do_GET(self):
                with server._lock:
                    server.requests.append(Request("GET", self.path, dict(self.headers), {}))
                self._json(404, _api_error("not_found_error", f"no route {self.path}"))

            def _json(self, status: int, data: dict):
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("request-id", "req_offline_harness")
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, message: dict):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("request-id", "req_offline_harness")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for event, data in _stream_events(message):
                    self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()

            def log_message(self, *args):  # keep test output clean
                pass

        return Handler


def _api_error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _estimate_tokens(raw: bytes) -> int:
    return max(1, len(raw) // 4)


def _message(turn: Turn, model: str, input_tokens: int) -> dict:
    return {
        "id": f"msg_offline_{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model or "claude-offline",
        "content": turn.content,
        "stop_reason": turn.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": 10},
    }


def _stream_events(message: dict) -> Iterable[tuple[str, dict]]:
    """The server-sent events the Messages API streams for `message`, in order."""
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opening, delta = (
                {"type": "text", "text": ""},
                {
                    "type": "text_delta",
                    "text": block["text"],
                },
            )
        elif block["type"] == "tool_use":
            opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            raise ValueError(f"the harness cannot stream a {block['type']!r} block")
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": opening,
            },
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": message["usage"]["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}


# ------------------------------------------------------------------------------------ the runner


class ScriptError(AssertionError):
    """The test's script raised while answering a request (a bug in the test)."""


@dataclass
class Run:
    """What one `claude -p` run did: its exit, its output, and every API request it made."""

    exit_code: int
    stdout: str
    stderr: str
    requests: list[Request]
    home: Path
    errors: list[str] = field(default_factory=list)  # exceptions raised by the script

    def messages_requests(self) -> list[Request]:
        return [r for r in self.requests if r.path.split("?")[0] == "/v1/messages"]

    def main_requests(self) -> list[Request]:
        return [r for r in self.messages_requests() if r.kind == "main"]

    def subagent_requests(self, agent_type: str | None = None) -> list[Request]:
        return [
            r
            for r in self.messages_requests()
            if r.kind == "subagent" and agent_type in (None, r.subagent_type)
        ]

    def last_main(self) -> Request:
        requests = self.main_requests()
        assert requests, f"Claude Code sent no main-conversation request\n{self.describe()}"
        return requests[-1]

    def tool_results(self) -> list[dict]:
        """Every tool_result of the main conversation (its last request carries them all)."""
        return self.last_main().tool_results()

    def tool_result(self, tool_use_id: str) -> dict:
        found = [b for b in self.tool_results() if b["tool_use_id"] == tool_use_id]
        assert found, f"no tool_result for {tool_use_id}\n{self.describe()}"
        return found[0]

    def describe(self) -> str:
        """A short account of the run for assertion messages."""
        kinds = [f"{r.method} {r.path} [{r.kind}]" for r in self.requests]
        return (
            f"exit {self.exit_code}\nstdout: {self.stdout[-2000:]}\nstderr: {self.stderr[-2000:]}\n"
            f"requests: {kinds}\nscript errors: {self.errors}"
        )


def claude_env(
    base_url: str, home: Path, bypass: bool, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment for an isolated, offline `claude` run against `base_url`.

    PATH starts with this test run's interpreter folder, so `python3` in hooks and Bash tool calls
    has the dependencies (as after the plugin's bootstrap) without installing anything.
    """
    keep = ("LANG", "LC_ALL", "TERM", "SYSTEMROOT")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    # Claude Code's own temp folders (claude-<uid>/, cc-socks/) go inside the test's home, which
    # pytest prunes, rather than stay in /tmp.
    scratch = home / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        HOME=str(home),
        TMPDIR=str(scratch),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY=DUMMY_API_KEY,
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        CLAUDE_CODE_ENABLE_TELEMETRY="0",
    )
    if bypass:
        env["IS_SANDBOX"] = "1"  # root may use bypassPermissions only in a declared sandbox
    env.update(extra or {})
    return env


def plugin_data_dir(home: Path, plugin: str = "math-inline") -> Path:
    """${CLAUDE_PLUGIN_DATA} of a run: `--plugin-dir` plugins are named `<name>-inline`."""
    return home / ".claude" / "plugins" / "data" / plugin


def run_claude(
    prompt: str,
    script: Script | None = None,
    *,
    home: Path,
    subagents: dict[str, Script] | None = None,
    side: Callable[[Request], Any] | None = None,
    bypass: bool = True,
    allowed_tools: list[str] | None = None,
    extra_args: list[str] | None = None,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    plugin_dir: Path | None = PLUGIN,
    timeout: float = 120,
) -> Run:
    """Run `claude -p --plugin-dir <plugin_dir> <prompt>` against a scripted model (module doc).

    `home` (a test's tmp_path will do) becomes HOME and holds the Claude config dir; `cwd`
    defaults to `home/work`. `env` adds or overrides variables (a stand-in service's URL, PATH).
    `allowed_tools` and `extra_args` go on the command line. A run that outlives `timeout`
    seconds is killed and reported with exit code -1. `plugin_dir=None` loads only the plugins
    installed in `home` (`claude plugin install`).
    """
    home = Path(home)
    cwd = Path(cwd or home / "work")
    cwd.mkdir(parents=True, exist_ok=True)
    command = [str(claude_binary()), "-p", "--output-format", "text"]
    if plugin_dir is not None:
        command += ["--plugin-dir", str(plugin_dir)]
    if bypass:
        command += ["--permission-mode", "bypassPermissions"]
    if allowed_tools:
        command += ["--allowed-tools", *allowed_tools]
    command += [*(extra_args or []), "--", prompt]
    with FakeAnthropic(script, subagents, side) as server:
        try:
            proc = subprocess.run(
                command,
                cwd=cwd,
                env=claude_env(server.url, home, bypass, env),
                capture_output=True,
                text=True,
                timeout=timeout,
                stdin=subprocess.DEVNULL,
            )
            exit_code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as exc:
            exit_code = -1
            stdout = _decoded(exc.stdout)
            stderr = _decoded(exc.stderr) + f"\n[harness] killed after {timeout:.0f} s"
        run = Run(exit_code, stdout, stderr, list(server.requests), home, list(server.errors))
    if run.errors:
        raise ScriptError(f"the harness script raised\n{run.describe()}")
    return run


class Screen:
    """An interactive `claude` session in a tmux pane (`interactive_claude`): what a user sees."""

    def __init__(self, session: str, server: FakeAnthropic):
        self.session = session
        self.server = server

    def text(self) -> str:
        """The pane as it is now, one screen of lines."""
        capture = ["tmux", "capture-pane", "-p", "-J", "-t", self.session]
        return subprocess.run(capture, capture_output=True, text=True, check=True).stdout

    def type(self, line: str) -> None:
        """Type `line` and press Enter."""
        subprocess.run(["tmux", "send-keys", "-t", self.session, "-l", line], check=True)
        time.sleep(0.3)
        subprocess.run(["tmux", "send-keys", "-t", self.session, "Enter"], check=True)

    def press(self, key: str) -> None:
        """Press one key (tmux's name for it: Enter, Escape, Down, ...), as in a menu."""
        subprocess.run(["tmux", "send-keys", "-t", self.session, key], check=True)

    def wait_for(self, needle: str | tuple[str, ...], timeout: float = 60) -> str:
        """The pane once it shows `needle` (or one of them); AssertionError with the pane after
        `timeout` s."""
        needles = (needle,) if isinstance(needle, str) else needle
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text()
            if any(one in shown for one in needles):
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} not on screen after {timeout:.0f} s:\n{shown}")
            time.sleep(0.5)


@contextlib.contextmanager
def interactive_claude(
    script: Script | None = None,
    *,
    home: Path,
    env: dict[str, str] | None = None,
    plugin_dir: Path | None = PLUGIN,
) -> Iterator[Screen]:
    """`claude --plugin-dir <plugin_dir>` in interactive mode, in a detached 200x50 tmux pane,
    against a scripted model (module doc): yields a Screen to type into and read.

    The Claude config in `home` says onboarding is done, the dummy API key is approved and the
    working folder (`home/work`) trusted, so the session opens straight at the prompt. Needs
    tmux (the test skips without it)."""
    import pytest

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (Debian/Ubuntu: apt install tmux): no screen to read")
    home = Path(home)
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    config = home / ".claude"
    config.mkdir(parents=True, exist_ok=True)
    (config / ".claude.json").write_text(
        json.dumps(
            {
                "hasCompletedOnboarding": True,
                "theme": "dark",
                "numStartups": 5,
                "customApiKeyResponses": {"approved": [DUMMY_API_KEY[-20:]], "rejected": []},
                "projects": {
                    str(work): {
                        "hasTrustDialogAccepted": True,
                        "hasCompletedProjectOnboarding": True,
                    }
                },
            }
        )
    )
    command = [str(claude_binary())]
    if plugin_dir is not None:
        command += ["--plugin-dir", str(plugin_dir)]
    session = f"math-test-{os.getpid()}-{next(_SESSIONS)}"
    with FakeAnthropic(script) as server:
        variables = claude_env(server.url, home, False, {"TERM": "xterm-256color", **(env or {})})
        line = " ".join(
            [
                "cd",
                shlex.quote(str(work)),
                "&& exec env -i",
                *(f"{name}={shlex.quote(value)}" for name, value in variables.items()),
                *map(shlex.quote, command),
            ]
        )
        start = ["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", line]
        subprocess.run(start, check=True)
        try:
            yield Screen(session, server)
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


_SESSIONS = itertools.count()


def _decoded(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", "replace")
    return data or ""

"""/math:init and /math:status end to end in the real Claude Code, offline, without bypass mode.

The model is scripted (tests/support/claude_harness.py) and follows the command bodies to the
letter: its one Bash call is the ```bash line of the expanded body Claude Code sent it, plugin path
already substituted, and its answer is built from the JSON the script printed. Every run is in the
default permission mode, so each call runs only because the command's allowed-tools rule lets it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import PLUGIN, run_script
from support.claude_harness import (
    bash,
    bash_result,
    refused,
    run_claude,
    runbook_commands,
    text,
    tool_use,
)

pytestmark = pytest.mark.claude

TITLE = "Sums of two squares"
SLUG = "sums-of-two-squares"


class FollowCommand:
    """The main conversation: run the command body's one Bash line, then answer from its JSON.

    `answer(exit_status, data)` writes the reply the command's steps call for.
    """

    def __init__(self, command: str, answer):
        self.command = command
        self.answer = answer
        self.calls: list[str] = []
        self.results: list[tuple[int, dict]] = []

    def __call__(self, request):
        if not request.tool_results():
            body = request.command_body(self.command)
            self.calls = runbook_commands(body)
            assert len(self.calls) == 1, f"{self.command}: one Bash line expected: {self.calls}"
            assert "${CLAUDE_PLUGIN_ROOT}" not in self.calls[0]
            return [bash(self.calls[0], id="toolu_step1")]
        (result,) = request.last_tool_results()
        assert not refused(result), f"{self.command}: {self.calls[0]} was refused: {result}"
        status, output = bash_result(result)
        data = json.loads(output)
        self.results.append((status, data))
        return [text(self.answer(status, data))]


def init_answer(status: int, data: dict) -> str:
    """/math:init step 2 (and 3, shortened)."""
    if "error" in data:
        return data["error"]["message"]
    if data["created"]:
        return f"Created the workspace at {data['math_dir']}. Next: /math:problem."
    return (
        f"The workspace already existed at {data['math_dir']}: current problem "
        f"{data['current_problem']}, {len(data['problems'])} problem(s)."
    )


def status_answer(status: int, data: dict) -> str:
    """/math:status steps 2-5: the table, values copied from the JSON."""
    if "error" in data:
        if data["error"]["code"] == "no_workspace":
            return "There is no workspace here: run /math:init first."
        return data["error"]["message"]
    if not data["problems"]:
        return "No problems yet: define one with /math:problem."
    rows = [
        "| | problem | state | papers (confirmed / unconfirmed) | journal entries | last entry |",
        "|---|---|---|---|---|---|",
    ]
    for problem in sorted(data["problems"], key=lambda p: not p["current"]):
        papers, journal = problem["papers"], problem["journal"]
        rows.append(
            f"| {'▶' if problem['current'] else ''} | {problem['title']} ({problem['slug']}) "
            f"| {problem['state']} | {papers['confirmed']} / {papers['unconfirmed']} "
            f"| {journal['entries']} | {journal['last_entry'] or '-'} |"
        )
    return "\n".join([*rows, f"Dashboard: {data['dashboard']}"])


def slash(command: str, answer, home: Path, cwd: Path, plugin_dir: Path = PLUGIN):
    model = FollowCommand(command, answer)
    run = run_claude(command, model, home=home, cwd=cwd, bypass=False, plugin_dir=plugin_dir)
    assert run.exit_code == 0, run.describe()
    assert model.results, f"{command}: the model never saw its script's result\n{run.describe()}"
    return run, model


def test_init_then_status_in_claude_code_create_and_report_the_workspace(tmp_path):
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()

    run, init = slash("/math:init", init_answer, home, cwd)
    assert init.calls == [f'python3 "{PLUGIN}/scripts/workspace.py" init']
    status, data = init.results[0]
    assert status == 0 and data["created"] is True
    math_dir = cwd / ".math"
    assert data["math_dir"] == str(math_dir)
    config = json.loads((math_dir / "config.json").read_text())
    assert config["current_problem"] is None and config["problems"] == []
    assert (math_dir / "problems").is_dir() and (math_dir / "archive").is_dir()
    assert (math_dir / "DASHBOARD.md").is_file()
    assert f"Created the workspace at {math_dir}" in run.stdout

    # A problem, as /math:problem's intake agent makes it; then /math:init again keeps it all.
    made = run_script(
        "workspace.py",
        *("new-problem", "--title", TITLE, "--domain", "number-theory", "--tags", "primes,squares"),
        *("--statement", r"Every prime $p \equiv 1 \pmod 4$ is a sum of two squares."),
        cwd=cwd,
    )
    assert made.returncode == 0, made.stdout
    run, init = slash("/math:init", init_answer, home, cwd)
    status, data = init.results[0]
    assert status == 0 and data["created"] is False
    assert data["current_problem"] == SLUG and len(data["problems"]) == 1
    assert json.loads((math_dir / "config.json").read_text())["current_problem"] == SLUG
    assert f"current problem {SLUG}, 1 problem(s)" in run.stdout

    run, status_run = slash("/math:status", status_answer, home, cwd)
    assert status_run.calls == [f'python3 "{PLUGIN}/scripts/workspace.py" status']
    status, data = status_run.results[0]
    assert status == 0 and data["current_problem"] == SLUG
    (problem,) = data["problems"]
    assert problem["slug"] == SLUG and problem["current"] is True
    assert problem["state"] == "INTAKE" and problem["status"] == "defined"
    assert problem["papers"]["confirmed"] == 0 and problem["journal"]["entries"] == 0
    assert problem["warnings"] == []
    assert f"| ▶ | {TITLE} ({SLUG}) | INTAKE | 0 / 0 | 0 | - |" in run.stdout
    assert SLUG in (math_dir / "DASHBOARD.md").read_text()


def test_status_without_a_workspace_answers_with_the_code_its_runbook_names(tmp_path):
    """status.md step 2 routes on the error code `no_workspace`: the script must use that code."""
    cwd = tmp_path / "empty"
    cwd.mkdir()
    run, status_run = slash("/math:status", status_answer, tmp_path / "home", cwd)
    status, data = status_run.results[0]
    assert status == 2 and data["error"]["code"] == "no_workspace"
    assert "run /math:init first" in run.stdout
    assert not (cwd / ".math").exists()


@pytest.mark.slow  # CI runs it (CONTRIBUTING.md "Run the tests")
def test_the_commands_work_from_a_plugin_folder_whose_path_has_a_space(tmp_path):
    """Like a macOS home, /Users/Ann Lee: the runbook's calls quote the substituted path."""
    plugin = tmp_path / "Ann Lee" / "math"
    plugin.parent.mkdir()
    plugin.symlink_to(PLUGIN)
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    _, init = slash("/math:init", init_answer, home, cwd, plugin)
    assert init.calls == [f'python3 "{plugin}/scripts/workspace.py" init']
    assert init.results[0][1]["created"] is True
    _, status_run = slash("/math:status", status_answer, home, cwd, plugin)
    status, data = status_run.results[0]
    assert status == 0 and data["problems"] == [] and data["workspace"] == str(cwd)


def test_problem_pre_approves_edits_to_problem_md_and_nothing_else(tmp_path):
    """/math:problem's narrow Edit rule, as Claude Code 2.1.197 applies it (default mode)."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    folder = cwd / ".math" / "problems" / "sums"
    folder.mkdir(parents=True)
    (folder / "PROBLEM.md").write_text("draft\n")
    (cwd / "notes.md").write_text("draft\n")
    turns = []
    for path in (folder / "PROBLEM.md", cwd / "notes.md"):
        turns.append([tool_use("Read", {"file_path": str(path)})])
        edit = {"file_path": str(path), "old_string": "draft", "new_string": "final"}
        turns.append([tool_use("Edit", edit)])
    run = run_claude(
        "/math:problem sums", [*turns, [text("done")]], home=home, cwd=cwd, bypass=False
    )
    assert run.exit_code == 0, run.describe()
    assert (folder / "PROBLEM.md").read_text() == "final\n"
    assert (cwd / "notes.md").read_text() == "draft\n"  # asked for permission, refused in -p

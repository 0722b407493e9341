"""The workspace commands, agents and protocol: well-formed, and every script call they show works.

The markdown files are runbooks the model follows; a call with a subcommand or option the script
does not have would fail in front of the user, so each one is checked against the script's --help.
"""

from __future__ import annotations

import re
from functools import cache

import pytest
from conftest import PLUGIN, ROOT, SCRIPTS, run_script
from mathtools.core import frontmatter

COMMANDS = [
    "init",
    "problem",
    "switch",
    "status",
    "archive",
    "resume",
    "notation",
    "check-refs",
    "models",
]
AGENTS = ["math-intake", "journal-keeper"]
ALL_COMMANDS = [*COMMANDS, "help", "literature", "research", "prove", "compute", "write"]
FILES = [f"plugin/commands/{c}.md" for c in COMMANDS] + [f"plugin/agents/{a}.md" for a in AGENTS]
CALL = re.compile(r'scripts/(?P<script>[a-z_]+\.py)"?(?P<rest> [^\n`|]*)')


@cache
def help_text(script: str, *sub: str) -> str:
    run = run_script(script, *sub, "--help")
    assert run.returncode == 0, f"{script} has no subcommand {sub}: {run.stdout}"
    return run.stdout


def usage(script: str, rest: str) -> str:
    """The --help of the (sub)command a call runs; a script with subcommands must name one."""
    if " COMMAND ..." not in help_text(script).splitlines()[0]:
        return help_text(script)
    sub = re.match(r" ([a-z][a-z-]*)", rest)
    assert sub, f"{script}{rest}: names no subcommand"
    return help_text(script, sub.group(1))


def test_every_file_exists():
    for name in [*FILES, "plugin/protocols/journal-protocol.md"]:
        assert (ROOT / name).is_file(), name


@pytest.mark.parametrize("name", COMMANDS)
def test_command_frontmatter(name):
    meta, body = frontmatter.split_frontmatter((PLUGIN / f"commands/{name}.md").read_text(), name)
    assert meta["description"].strip()
    assert "argument-hint" in meta
    for tool in (t.strip() for t in meta["allowed-tools"].split(",")):
        match = re.fullmatch(
            r'Bash\(python3 "\$\{CLAUDE_PLUGIN_ROOT\}/scripts/(\w+\.py)":\*\)', tool
        )
        if match:
            assert (SCRIPTS / match[1]).exists(), tool
            assert f"${{CLAUDE_PLUGIN_ROOT}}/scripts/{match[1]}" in body
        else:
            # an Edit rule narrow enough to name only the problems' PROBLEM.md files
            allowed = {"Read", "Agent", "Edit(.math/problems/*/PROBLEM.md)"}
            assert tool in allowed, f"{name}: unexpected allowed tool {tool!r}"


@pytest.mark.parametrize("name", AGENTS)
def test_agent_frontmatter(name):
    meta = frontmatter.read_frontmatter((PLUGIN / f"agents/{name}.md").read_text(), name)
    assert meta["name"] == name
    assert len(meta["description"]) > 40
    tools = [t.strip() for t in meta["tools"].split(",")]
    assert tools and set(tools) <= {"Bash", "Read", "Edit"}


# Every markdown file that shows a script call: commands, agents, protocols, the README and docs/.
MARKDOWN = [
    *sorted(
        str(path.relative_to(ROOT))
        for folder in ("commands", "agents", "protocols")
        for path in (PLUGIN / folder).glob("*.md")
    ),
    "README.md",
    *sorted(str(path.relative_to(ROOT)) for path in (ROOT / "docs").glob("*.md")),
]


@pytest.mark.parametrize("name", MARKDOWN)
def test_every_script_call_uses_real_subcommands_and_options(name):
    text = (ROOT / name).read_text().replace("\\\n", " ")
    calls = list(CALL.finditer(text))
    assert calls or name not in FILES, f"{name} calls no script"
    for call in calls:
        text = usage(call["script"], call["rest"])
        for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", call["rest"]):
            assert option in text, f"{name}: {call['script']}{call['rest']}: no {option}"


def test_the_intake_agent_is_the_one_the_problem_command_launches():
    body = (PLUGIN / "commands/problem.md").read_text()
    assert "`math:math-intake`" in body


def _help_table() -> str:
    """/math:help's table of the commands: their one home."""
    body = (PLUGIN / "commands/help.md").read_text()
    start = body.index("| command | what it does |")
    return body[start : body.index("\n\n", start)]


def test_help_lists_every_command_once_and_the_readmes_show_its_table():
    table = _help_table()
    listed = re.findall(r"^\| `/math:([a-z-]+)", table, re.MULTILINE)
    assert sorted(listed) == sorted(ALL_COMMANDS)
    assert sorted(listed) == sorted(path.stem for path in (PLUGIN / "commands").glob("*.md"))
    assert table in (ROOT / "README.md").read_text(), "README.md: copy /math:help's table"
    plugin_readme = (PLUGIN / "README.md").read_text()
    assert table in plugin_readme, "plugin/README.md: copy /math:help's table"


def test_contributings_layout_names_every_agent():
    """CONTRIBUTING.md's layout lists the agents plugin/agents/ holds, no more, no fewer."""
    layout = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8").split("  agents/", 1)[1]
    listed = " ".join(layout.split("(each with its model", 1)[0].split()).split(", ")
    assert sorted(listed) == sorted(path.stem for path in (PLUGIN / "agents").glob("*.md"))

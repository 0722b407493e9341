"""The plugin installed the way a user installs it, its environment built by the real bootstrap.

A copy of this working tree stands in for the user's clone. `claude plugin marketplace add
<clone>` and `claude plugin install math@<marketplace>` install it into Claude Code's plugin cache;
then /math:init and /math:status run in the default permission mode (no bypass), each script call
allowed only by the command's allowed-tools rule, with a python3 that has none of the dependencies.
The SessionStart hook builds the plugin's venv in the background with pip, from the wheel folder
tools/run-tests downloads into .cache/wheels/ before the tests (no index, no network here), while
the first script call waits for it.

A release reaches the installed copy through `claude plugin marketplace update` and `claude plugin
update` when its version changes (the second test bumps it in a copy).

Claude Code runs a directory marketplace's plugin from the clone itself (so a moved clone must be
added again, as the README says). 2.1.197 substitutes its root with a trailing slash, so the
runbook line reads `<clone>//scripts/workspace.py` and the allowed-tools rule matches only that
very text: the scripted model copies the runbook's line, as the command tells it to.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from mathtools.core import bootstrap
from support import venvs
from support.claude_code import claude_binary
from support.claude_harness import (
    bash,
    bash_result,
    claude_env,
    refused,
    run_claude,
    runbook_commands,
    text,
)

pytestmark = pytest.mark.claude

INSTALLED_SIZE_LIMIT = 10 * 2**20  # what `claude plugin install` may copy
MARKETPLACE = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())["name"]
WHEELS = ROOT / ".cache" / "wheels" / f"py{sys.version_info[0]}{sys.version_info[1]}"


def wheel_folder() -> Path:
    """The wheels of requirements.txt for this Python, as tools/run-tests downloads them."""
    stamp = WHEELS / ".requirements.sha256"
    if not stamp.exists() or stamp.read_text().strip() != bootstrap.requirements_digest():
        pytest.fail(
            f"no wheels of requirements.txt in {WHEELS}: run tools/run-tests once (it downloads "
            f"them), or: {sys.executable} -m pip wheel -r requirements.txt -w {WHEELS} && "
            f"sha256sum requirements.txt | cut -d' ' -f1 > {stamp}"
        )
    return WHEELS


def clone(destination: Path) -> Path:
    """The working tree's tracked and new files, as a user's clone of the repository holds them."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (entry.decode() for entry in listed)):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def claude_cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = claude_env("http://127.0.0.1:9", home, bypass=False)
    return subprocess.run(
        [str(claude_binary()), *args], capture_output=True, text=True, env=env, timeout=120
    )


class FollowRunbook:
    """Runs the expanded command's one ```bash line, exactly as printed, and reports its JSON."""

    def __init__(self):
        self.line = ""
        self.result: dict = {}

    def __call__(self, request):
        if not request.tool_results():
            (self.line,) = runbook_commands(request.command_body())
            return [bash(self.line, id="toolu_step")]
        (self.result,) = request.last_tool_results()
        return [text("done")]


@pytest.mark.slow
def test_installed_from_a_local_marketplace_the_plugin_builds_its_env_and_runs(tmp_path):
    wheels = wheel_folder()
    home = tmp_path / "home"
    user_clone = clone(tmp_path / "src" / "math")

    # A developer's clone holds the workshop too (a venv, caches): none of it is installed.
    (user_clone / ".venv" / "lib").mkdir(parents=True)
    (user_clone / ".venv" / "lib" / "big").write_bytes(b"\0" * 12 * 2**20)
    added = claude_cli(home, "plugin", "marketplace", "add", str(user_clone))
    assert added.returncode == 0, added.stdout + added.stderr
    installed = claude_cli(home, "plugin", "install", f"math@{MARKETPLACE}")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    copied = [path for path in (home / ".claude" / "plugins").rglob("*") if path.is_file()]
    size = sum(path.stat().st_size for path in copied if "cache" in path.parts)
    assert size < INSTALLED_SIZE_LIMIT, f"the install copied {size / 2**20:.1f} MB"
    assert not [path for path in copied if {"tests", "bench", "tools", ".venv"} & set(path.parts)]

    # Claude Code loads a directory marketplace's plugin from the clone itself: after a move, the
    # README's recipe (remove the marketplace, add it from the new place, install) brings it back.
    moved = user_clone.rename(tmp_path / "src" / "moved")
    for command in (
        ("plugin", "marketplace", "remove", MARKETPLACE),
        ("plugin", "marketplace", "add", str(moved)),
        ("plugin", "install", f"math@{MARKETPLACE}"),
    ):
        done = claude_cli(home, *command)
        assert done.returncode == 0, done.stdout + done.stderr

    bare = venvs.bare_python(tmp_path / "bare")
    env = {
        "PATH": f"{bare.parent}:/usr/bin:/bin",  # a python3 without the dependencies, no uv
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
        "UV_NO_INDEX": "1",  # should a uv be on PATH after all
        "UV_FIND_LINKS": str(wheels),
    }
    cwd = tmp_path / "project"
    cwd.mkdir()
    init = FollowRunbook()
    run = run_claude(
        "/math:init", init, home=home, cwd=cwd, bypass=False, env=env, plugin_dir=None, timeout=300
    )
    assert run.exit_code == 0, run.describe()
    # The marketplace's source, "./plugin": what ships, apart from the workshop. (With the source
    # "./", 2.1.197 wrote "<clone>//scripts"; with a folder name both releases write one slash.)
    plugin = moved / "plugin"
    assert init.line == f'python3 "{plugin}/scripts/workspace.py" init', init.line
    assert not refused(init.result), init.result
    status, output = bash_result(init.result)
    assert status == 0, output
    progress, _, answer = output.partition("{")
    # The prompt hook (installation.py report) waits up to REPORT_WAIT s for the hook's install, so
    # the first call finds it done; on a slow machine it finds it under way (and says so every
    # few seconds), or makes it itself.
    said = ("math: waiting for", "math: still waiting", "math: installing")
    assert all(line.startswith(said) for line in progress.splitlines()), output
    answer = json.loads("{" + answer)
    assert answer["created"] is True and (cwd / ".math" / "config.json").is_file()

    data = home / ".claude" / "plugins" / "data"
    (venv,) = [folder / "venv" for folder in data.iterdir() if (folder / "venv").is_dir()]
    stamp = (venv / ".requirements.sha256").read_text().strip()
    assert stamp == bootstrap.requirements_digest()
    assert not (venv.parent / bootstrap.FAILURE_MARKER).exists()

    # A second session: the venv is there, the hook is silent and the call runs at once.
    status_run = FollowRunbook()
    run = run_claude(
        "/math:status", status_run, home=home, cwd=cwd, bypass=False, env=env, plugin_dir=None
    )
    assert run.exit_code == 0, run.describe()
    assert not refused(status_run.result), status_run.result
    status, output = bash_result(status_run.result)
    assert status == 0 and json.loads(output)["problems"] == [], output


def installed_copy(home: Path) -> tuple[str, Path]:
    """(version, folder) of the installed math plugin, as Claude Code's install record holds it."""
    record = json.loads((home / ".claude" / "plugins" / "installed_plugins.json").read_text())
    (entry,) = record["plugins"][f"math@{MARKETPLACE}"]
    return entry["version"], Path(entry["installPath"])


def installed_from_a_clone(tmp_path: Path) -> tuple[Path, Path]:
    """A user's home with the plugin installed from a fresh clone, as the README's two lines do
    at a terminal (`claude plugin marketplace add`, `claude plugin install`); (home, clone)."""
    home = tmp_path / "home"
    user_clone = clone(tmp_path / "src" / "math")
    for command in (
        ("plugin", "marketplace", "add", str(user_clone)),
        ("plugin", "install", f"math@{MARKETPLACE}"),
    ):
        done = claude_cli(home, *command)
        assert done.returncode == 0, done.stdout + done.stderr
    return home, user_clone


def test_a_new_version_reaches_the_installed_copy_through_plugin_update(tmp_path):
    """A release in the clone (a changed command, a new file, the version bumped as CONTRIBUTING's
    "Release" says) reaches the installed copy through `claude plugin marketplace update` and
    `claude plugin update`, as a user updates. Without the bump, Claude Code answers "already at
    the latest version" and keeps the old files: the version must change with every release."""
    home, user_clone = installed_from_a_clone(tmp_path)
    manifest = user_clone / "plugin" / ".claude-plugin" / "plugin.json"
    release = json.loads(manifest.read_text())
    version, folder = installed_copy(home)
    assert version == release["version"] and (folder / "commands" / "help.md").is_file()

    # The release, made in the copy (the repository's own version is the integrator's to bump).
    major, minor, _ = (int(part) for part in release["version"].split("."))
    release["version"] = f"{major}.{minor + 1}.0"
    manifest.write_text(json.dumps(release, indent=2) + "\n")
    help_md = user_clone / "plugin" / "commands" / "help.md"
    help_md.write_text(help_md.read_text() + "\n<!-- changed in the next release -->\n")
    (user_clone / "plugin" / "templates" / "NEW-IN-RELEASE.md").write_text("new\n")
    # Bytecode a run left in the clone (git ignores it): CONTRIBUTING's "Release" says Claude Code
    # installs plugin/ as it is on disk. Should a release stop copying it, say so there.
    stale = user_clone / "plugin" / "scripts" / "__pycache__" / "stale.cpython-311.pyc"
    stale.parent.mkdir()
    stale.write_bytes(b"bytecode")
    for command in (
        ("plugin", "marketplace", "update", MARKETPLACE),
        ("plugin", "update", f"math@{MARKETPLACE}"),
    ):
        done = claude_cli(home, *command)
        assert done.returncode == 0, done.stdout + done.stderr
    assert release["version"] in done.stdout, done.stdout

    version, folder = installed_copy(home)
    assert version == release["version"]
    assert json.loads((folder / ".claude-plugin" / "plugin.json").read_text()) == release
    assert (folder / "commands" / "help.md").read_text() == help_md.read_text()
    assert (folder / "templates" / "NEW-IN-RELEASE.md").read_text() == "new\n"
    assert (folder / "scripts" / "__pycache__" / stale.name).is_file(), "ignored files left out"


def offline_terminal(bare: Path, wheels: Path | None = None) -> dict[str, str]:
    """A python3 without the dependencies and no uv; no package index, unless `wheels` (a local
    wheel folder) stands for the network being back."""
    env = {
        "PATH": f"{bare.parent}:/usr/bin:/bin",
        "PIP_CONFIG_FILE": "/dev/null",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels or ""),
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheels or ""),
    }
    return env


def plugin_venvs(home: Path) -> list[Path]:
    """Every venv the plugin built for this user: in Claude Code's data folders, or the
    per-user cache folder a terminal falls back to."""
    places = [*(home / ".claude" / "plugins" / "data").glob("*"), home / ".cache" / "math-plugin"]
    return [folder / "venv" for folder in places if (folder / "venv").is_dir()]


class FailThenFix:
    """/math:init's runbook line, run until it succeeds: when a call fails, `fix` (the test's
    hands at a terminal) runs with that call's output, then the model runs the line again, in
    the same session."""

    def __init__(self, fix):
        self.fix = fix
        self.line = ""
        self.results: list[tuple[int, str]] = []

    def __call__(self, request):
        if not request.tool_results():
            (self.line,) = runbook_commands(request.command_body())
            return [bash(self.line)]
        (result,) = request.last_tool_results()
        self.results.append(bash_result(result))
        if self.results[-1][0] != 0 and len(self.results) == 1:
            self.fix(self.results[-1][1])
            return [bash(self.line)]
        return [text("done")]


def test_an_offline_failure_is_fixed_by_the_printed_command_in_the_same_session(tmp_path):
    """Offline, the first session's install fails and /math:init's script prints the cause and
    a command. Typed at a terminal (a plain shell: no Claude Code variables) once the network is
    back, that command builds the venv in the very data folder Claude Code gives the plugin
    (bootstrap.installed_data_dir() names it as Claude Code does: the command carries no
    MATH_PLUGIN_DATA), and the session's next script call works at once: one venv in all."""
    wheels = wheel_folder()
    home, _ = installed_from_a_clone(tmp_path)
    bare = venvs.bare_python(tmp_path / "bare")
    typed: list[subprocess.CompletedProcess] = []

    def at_a_terminal(failure: str) -> None:
        message = json.loads(failure[failure.index("{") :])["error"]["message"]
        command = message.split("when the network is back, run: ", 1)[1].split(" (or ", 1)[0]
        assert command.startswith("python3 ") and command.endswith("installation.py install")
        shell = {"HOME": str(home), **offline_terminal(bare, wheels)}
        typed.append(
            subprocess.run(["sh", "-c", command], capture_output=True, text=True, env=shell)
        )

    cwd = tmp_path / "project"
    cwd.mkdir()
    session = FailThenFix(at_a_terminal)
    run = run_claude(
        "/math:init",
        session,
        home=home,
        cwd=cwd,
        env=offline_terminal(bare),
        plugin_dir=None,
        timeout=400,
    )
    assert run.exit_code == 0, run.describe()
    (failed, output), (status, answer) = session.results
    assert failed == bootstrap.EXIT_ENVIRONMENT and "no network" in output, output
    (terminal,) = typed
    assert terminal.returncode == 0, terminal.stdout + terminal.stderr
    built = json.loads(terminal.stdout)
    assert "Claude Code's sessions" in built["used_by"], built
    assert status == 0 and json.loads(answer)["created"] is True, answer
    data = home / ".claude" / "plugins" / "data" / f"math-{MARKETPLACE}"
    assert plugin_venvs(home) == [data / "venv"] and Path(built["venv"]) == data / "venv"


def test_a_plugin_installed_mid_session_builds_the_one_venv_and_says_to_restart(tmp_path):
    """A session that started before the plugin was installed runs none of its hooks: the Bash
    tool has no MATH_PLUGIN_DATA. The model installs the plugin there (the CLI's two lines, as
    `/plugin` does in the session) and runs /math:init's runbook line: the script installs the
    venv into the data folder Claude Code gives the plugin, says to restart Claude Code, and
    works; the next session's hook finds that venv: one venv in all."""
    wheels = wheel_folder()
    home = tmp_path / "home"
    user_clone = clone(tmp_path / "src" / "math")
    plugin = user_clone / "plugin"
    cwd = tmp_path / "project"
    cwd.mkdir()
    claude = shlex.quote(str(claude_binary()))
    steps = [
        f"{claude} plugin marketplace add {shlex.quote(str(user_clone))}",
        f"{claude} plugin install math@{MARKETPLACE}",
        f'python3 "{plugin}/scripts/workspace.py" init',
    ]
    results: list[tuple[int, str]] = []

    def model(request):
        if request.tool_results():
            results.append(bash_result(request.last_tool_results()[0]))
        if len(results) < len(steps) and all(status == 0 for status, _ in results):
            return [bash(steps[len(results)])]
        return [text("done")]

    env = offline_terminal(venvs.bare_python(tmp_path / "bare"), wheels)
    run = run_claude("Install math.", model, home=home, cwd=cwd, env=env, plugin_dir=None)
    assert run.exit_code == 0, run.describe()
    assert [status for status, _ in results] == [0, 0, 0], results
    output = results[-1][1]
    progress, _, answer = output.partition("{")
    assert "restart Claude Code to finish installing math" in progress, output
    assert json.loads("{" + answer)["created"] is True
    data = home / ".claude" / "plugins" / "data" / f"math-{MARKETPLACE}"
    assert plugin_venvs(home) == [data / "venv"]

    # The restart: a new session runs the hooks, which find that venv; /math:status works.
    status_run = FollowRunbook()
    run = run_claude("/math:status", status_run, home=home, cwd=cwd, env=env, plugin_dir=None)
    assert run.exit_code == 0, run.describe()
    status, output = bash_result(status_run.result)
    assert status == 0 and json.loads(output)["problems"] == [], output
    assert plugin_venvs(home) == [data / "venv"]

"""The real Claude Code validator accepts the plugin and its marketplace, warnings included.

`claude plugin validate <repo>` finds .claude-plugin/marketplace.json first and then checks only
the marketplace; the plugin manifest, and through it every command, agent and hook file, is
checked by validating .claude-plugin/plugin.json itself. A later test shows that this check
really reads those files, on a copy of the plugin with one broken file of each kind.

On the current release the plugin check prints no warning at all: its "plugin directory checks"
(the README, the license, the icon) find nothing, and the hosts the plugin reaches are declared
under `network.hosts`. 2.1.197 does not know that field: its check, of the marketplace and of
the plugin, warns of it ("Unknown field 'network'. Claude Code ignores it at load time."), so
there the check runs without --strict and that must be its one warning (the plugin installs and
loads on 2.1.197 as before: tests/test_install_e2e.py).

Marked `claude`: tools/run-tests runs them on the current and the oldest supported release.
When the pinned Claude Code is absent and npm cannot fetch it, these tests fail (never skip) and
say why: CI must prove that the plugin loads.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from conftest import PLUGIN, ROOT
from support.claude_code import ClaudeCodeUnavailable, claude_binary, running_version

pytestmark = pytest.mark.claude

MANIFEST = PLUGIN / ".claude-plugin" / "plugin.json"
# The releases that know plugin.json's `network` field: 2.1.332 does, 2.1.197 does not (the
# first release between them that does was not looked for). One that does not is run without
# --strict, and its one warning must be that field's.
KNOWS_NETWORK = running_version() >= (2, 1, 332)
STRICT = ("--strict",) if KNOWS_NETWORK else ()
UNKNOWN_NETWORK = "network: Unknown field 'network'. Claude Code ignores it at load time."


def validate(target, home, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [claude_binary(), "plugin", "validate", *options, str(target)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "DISABLE_AUTOUPDATER": "1"},
    )


def assert_no_warning_but_the_unknown_network_field(run: subprocess.CompletedProcess) -> None:
    if KNOWS_NETWORK:
        assert "\u26a0" not in run.stdout + run.stderr, run.stdout  # the warning sign
    else:
        assert "Found 1 warning:" in run.stdout, run.stdout
        assert UNKNOWN_NETWORK in run.stdout, run.stdout


def test_marketplace_validates_strictly(tmp_path):
    run = validate(ROOT, tmp_path, *STRICT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "marketplace.json" in run.stdout
    assert_no_warning_but_the_unknown_network_field(run)


def test_plugin_with_its_commands_agents_and_hooks_validates_strictly(tmp_path):
    run = validate(MANIFEST, tmp_path, *STRICT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Validation passed" in run.stdout
    assert_no_warning_but_the_unknown_network_field(run)
    if KNOWS_NETWORK:  # the plugin directory's checks (README, license, icon), and the hosts
        assert "These checks found nothing to report" in run.stdout, run.stdout
        assert "Advice" not in run.stdout, run.stdout  # e.g. a README without its install line
        for host in json.loads(MANIFEST.read_text())["network"]["hosts"]:
            assert f"{host} (declared)" in run.stdout, host
        assert "Hosts not declared" not in run.stdout


def test_the_plugin_check_reads_every_command_agent_and_hook_file(tmp_path):
    copy = tmp_path / "plugin"
    for folder in (".claude-plugin", "commands", "agents", "hooks"):
        shutil.copytree(PLUGIN / folder, copy / folder)
    (copy / "commands" / "broken.md").write_text('---\ndescription: "unclosed\n---\nbody\n')
    (copy / "agents" / "broken.md").write_text("---\nname: broken\n---\nno description\n")
    (copy / "hooks" / "hooks.json").write_text('{"hooks": {"SessionStart": [{"hooks": [{}]}]}}')
    run = validate(copy / ".claude-plugin" / "plugin.json", tmp_path, "--strict")
    assert run.returncode == 1
    for broken in ("commands/broken.md", "agents/broken.md", "hooks/hooks.json"):
        assert str(copy / broken) in run.stdout, run.stdout


def test_without_npm_the_tests_fail_saying_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(ClaudeCodeUnavailable, match="npm is not on PATH"):
        claude_binary("2.1.197", tmp_path / "claude-code")


def test_a_failing_npm_install_fails_with_its_message(tmp_path, monkeypatch):
    """A stand-in npm that fails as npm does without a registry (synthesized)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text("#!/bin/sh\necho 'npm error code ENOTFOUND' >&2\nexit 1\n")
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    with pytest.raises(ClaudeCodeUnavailable, match=r"(?s)exit 1.*ENOTFOUND"):
        claude_binary("2.1.197", tmp_path / "claude-code")

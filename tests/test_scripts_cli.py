"""Every script is a well-behaved command: --help works, bad usage is one JSON line, exit code 2."""

from __future__ import annotations

import json

import pytest
from conftest import SCRIPTS

ALL_SCRIPTS = sorted(p.name for p in SCRIPTS.glob("*.py"))


def test_there_are_scripts():
    assert "arxiv_query.py" in ALL_SCRIPTS or ALL_SCRIPTS, "scripts/ has no scripts"


@pytest.mark.parametrize("name", ALL_SCRIPTS)
def test_help_exits_zero(script, name):
    run = script(name, "--help")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "usage:" in run.stdout
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("name", ALL_SCRIPTS)
def test_unknown_option_is_one_json_line(script, name):
    run = script(name, "--no-such-option-anywhere")
    assert run.returncode == 2
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1, run.stdout
    error = json.loads(lines[0])["error"]
    assert error["code"] == "usage"
    assert "--no-such-option-anywhere" in error["message"]
    assert "Traceback" not in run.stderr

"""The code base is clean by ruff's rules, formatted by ruff, type-checked by mypy and runs on
Python 3.10 (vermin)."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_check():
    run = _ruff("check", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_format():
    run = _ruff("format", "--check", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_mypy():
    """mypy checks what ships (library, scripts, hooks) as pyproject.toml's [tool.mypy] says
    (which files, how strict); its cache (.mypy_cache) keeps a warm run near a second."""
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_code_runs_on_python_3_10():
    """vermin reads every module for the oldest Python it needs (datetime.UTC is 3.11, ...)."""
    vermin = [sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())"]
    options = ["--target=3.10-", "--violations", "--no-tips", "--eval-annotations", "--quiet"]
    run = subprocess.run(
        [*vermin, *options, "scripts", "tools", "tests", "bench"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_no_url_of_a_repository_that_does_not_exist():
    """The plugin has no public repository yet: the README, the manifests and the User-Agent
    must not send users (or services) to an invented one."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    placeholder = "github.com/math-research-tools"
    named = [
        name
        for name in listed
        if (ROOT / name).is_file()
        and placeholder in (ROOT / name).read_text(errors="replace")
        and name != "tests/test_lint.py"
    ]
    assert named == []

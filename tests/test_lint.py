"""The code base is clean by ruff's rules and formatted by ruff."""

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

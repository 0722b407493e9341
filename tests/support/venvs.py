"""Python environments for tests of the dependency bootstrap.

`bare_python(folder)` stands in for a mathematician's fresh python3: a venv made --without-pip,
so nothing from requirements.txt is importable. `ready_venv(data_dir, digest)` is the plugin's
venv as the bootstrap leaves it, without installing anything: its python runs this test run's
interpreter, which has every dependency.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def bare_python(folder: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    probe = "import importlib.util as u; print(u.find_spec('requests') is None)"
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.strip()
    assert found == "True", "the bare interpreter can import requests"
    return python


def ready_venv(data_dir: Path, digest: str) -> Path:
    venv = data_dir / "venv"
    (venv / "bin").mkdir(parents=True)
    # A wrapper, not a symlink: a symlinked venv python would lose the venv's site-packages.
    python = venv / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (venv / ".requirements.sha256").write_text(digest + "\n")
    return venv

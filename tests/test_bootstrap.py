"""The first run of a script without its dependencies installs them once into the plugin's venv.

A bare interpreter (a venv made --without-pip, so none of requirements.txt is importable) stands in
for a mathematician's fresh python3. No test installs from the network: the fast path is shown
with a ready venv, and the install path with a package index that refuses connections.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, SCRIPTS
from mathtools import bootstrap
from support import venvs

ANY_SCRIPT = sorted(SCRIPTS.glob("*.py"))[0]


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory):
    return venvs.bare_python(tmp_path_factory.mktemp("bare"))


def _env(data_dir, **extra):
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MATH_PLUGIN", "CLAUDE_PLUGIN"))
    }
    return {**env, "CLAUDE_PLUGIN_DATA": str(data_dir), **extra}


def test_reuses_a_ready_venv_without_installing(bare_python, tmp_path):
    venvs.ready_venv(tmp_path, bootstrap.requirements_digest())
    run = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=_env(tmp_path)
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "usage:" in run.stdout
    assert "installing" not in run.stderr


def test_changed_requirements_trigger_a_reinstall_and_offline_fails_in_one_line(
    bare_python, tmp_path
):
    venvs.ready_venv(tmp_path, "0" * 64)  # built from some other requirements file
    env = _env(
        tmp_path,
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        PIP_RETRIES="0",
        PIP_TIMEOUT="2",
        PIP_NO_CACHE_DIR="1",
        PIP_FIND_LINKS="",
    )
    run = subprocess.run(
        [bare_python, ANY_SCRIPT, "--help"], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == bootstrap.EXIT_ENVIRONMENT
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1
    error = json.loads(lines[0])["error"]
    assert error["code"] == "environment"
    assert (
        "pip install -r" in error["message"] and str(ROOT / "requirements.txt") in error["message"]
    )
    assert "installing the plugin's Python dependencies" in run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_fast_path_costs_no_imports(tmp_path):
    """With the dependencies importable, ensure() only looks them up: nothing heavy is imported."""
    code = (
        f"import sys, time; sys.path.insert(0, {str(SCRIPTS)!r}); t = time.perf_counter();"
        "from mathtools import bootstrap; bootstrap.ensure();"
        "print(time.perf_counter() - t, 'requests' in sys.modules, 'lxml' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    _, requests_loaded, lxml_loaded = out.stdout.split()
    assert (requests_loaded, lxml_loaded) == ("False", "False")


def test_digest_follows_the_requirements_file(tmp_path):
    req = tmp_path / "requirements.txt"
    req.write_text("requests==1\n")
    first = bootstrap.requirements_digest(req)
    req.write_text("requests==2\n")
    assert bootstrap.requirements_digest(req) != first

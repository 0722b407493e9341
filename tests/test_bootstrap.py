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
from pathlib import Path

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


# --- extra requirement sets (requirements-<name>.txt), installed on a feature's first use ---


def _demo_extra(monkeypatch, root, module, requirement):
    """A stand-in extra `demo` (requirements-demo.txt under a stand-in plugin root)."""
    root.mkdir(exist_ok=True)
    (root / "requirements-demo.txt").write_text(requirement + "\n")
    monkeypatch.setattr(bootstrap, "PLUGIN_ROOT", root)
    monkeypatch.setitem(bootstrap.EXTRAS, "demo", (module,))
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # never the network
    return root / "requirements-demo.txt"


def _wheel(folder, name="demo_extra"):
    """A minimal pure-Python wheel, built by hand so that pip can install it offline."""
    import zipfile

    path = folder / f"{name}-1.0-py3-none-any.whl"
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": "VALUE = 42\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    files[f"{info}/RECORD"] = "".join(f"{n},,\n" for n in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
    return path


def test_an_extra_this_interpreter_has_needs_no_venv(monkeypatch, tmp_path):
    _demo_extra(monkeypatch, tmp_path / "plugin", "json", "json-is-stdlib")
    assert bootstrap.extra_python("demo", tmp_path / "venv") == Path(sys.executable)
    assert not (tmp_path / "venv").exists()


def test_an_extra_installs_once_into_the_venv_under_its_own_stamp(monkeypatch, tmp_path, capsys):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    (venv / ".requirements.sha256").write_text(bootstrap.requirements_digest() + "\n")
    requirements = _demo_extra(
        monkeypatch, tmp_path / "plugin", "demo_extra", str(_wheel(tmp_path))
    )
    stamp = venv / ".requirements-demo.sha256"
    stamp.write_text("0" * 64 + "\n")  # a stale stamp, hard-linked: replaced, not rewritten
    os.link(stamp, tmp_path / "old-stamp")

    python = bootstrap.extra_python("demo", venv)
    assert python == venv / "bin" / "python"
    assert "installing the plugin's demo dependencies" in capsys.readouterr().err
    probe = subprocess.run(
        [python, "-c", "import demo_extra; print(demo_extra.VALUE)"], capture_output=True, text=True
    )
    assert probe.stdout.strip() == "42"
    assert stamp.read_text().strip() == bootstrap.requirements_digest(requirements)
    assert (tmp_path / "old-stamp").read_text() == "0" * 64 + "\n"
    assert [p.name for p in venv.glob(".requirements-demo*")] == [stamp.name]
    assert (venv / ".requirements.sha256").exists()  # the base set was not reinstalled

    assert bootstrap.extra_python("demo", venv) == python
    assert "installing" not in capsys.readouterr().err


def test_an_extra_that_cannot_install_fails_in_one_json_line(monkeypatch, tmp_path, capsys):
    venv = venvs.ready_venv(tmp_path, bootstrap.requirements_digest())
    requirements = _demo_extra(
        monkeypatch, tmp_path / "plugin", "no_such_module_here", "no-such-package-here==1.0"
    )
    with pytest.raises(SystemExit) as stopped:
        bootstrap.extra_python("demo", venv)
    assert stopped.value.code == bootstrap.EXIT_ENVIRONMENT
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    message = json.loads(lines[0])["error"]["message"]
    assert f"pip install -r {requirements}" in message
    assert not (venv / ".requirements-demo.sha256").exists()


def test_the_compute_extra_is_pinned_in_its_own_file():
    pins = (ROOT / "requirements-compute.txt").read_text()
    assert "sympy==" in pins
    assert set(bootstrap.EXTRAS["compute"]) == {"sympy", "mpmath"}


def test_tests_never_use_the_real_plugin_data_folder(tmp_path):
    """Even when pytest runs inside Claude Code, where CLAUDE_PLUGIN_DATA is set."""
    assert bootstrap.data_dir() == tmp_path / "plugin-data"

"""The installer's run: make the plugin's virtual environment and install a requirements file into
it with uv or pip, and read from their output why an install failed (classify()).

Standard library only, and Python 3.8 syntax, as bootstrap.py (whose module doc says why), which
calls run_installer() under its install lock.

- `uv` when it is on PATH (seconds), else `python -m venv` and pip, with a short network timeout
  (PIP_TIMEOUT / UV_HTTP_TIMEOUT default to 10 s, one retry) so that an offline machine or a dead
  proxy fails in seconds, not minutes. The package index, proxy and wheel folders are the user's
  own pip (PIP_INDEX_URL, PIP_FIND_LINKS, ...) or uv (UV_INDEX_URL, UV_FIND_LINKS, ...) settings.
- The interpreter: this one when it is 3.10 or newer, else the newest of python3.13 ... python3.10
  on PATH, else one uv provides; else the error says exactly what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MIN_PYTHON = (3, 10)
# Interpreters to build the venv with when this one is older than MIN_PYTHON, best first.
NEWER_PYTHONS = ("python3.13", "python3.12", "python3.11", "python3.10")
# Short network deadlines unless the user set their own: offline fails in seconds.
INSTALLER_DEFAULTS = {
    "PIP_TIMEOUT": "10",
    "PIP_RETRIES": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "UV_HTTP_TIMEOUT": "10",
}
# What pip's and uv's output says when the install failed for a reason outside the plugin,
# checked in this order (a proxy failure also mentions the connection); lower-case. Each meaning
# is said in words (never pip's own line: it holds `Retry(total=0, ...)` and object addresses),
# and its kind picks the fix the message gives.
# fmt: off
CAUSES = (
    ("no space left on device", "the disk is full", "disk"),
    ("disk quota exceeded", "the disk quota is exceeded", "disk"),
    ("proxyerror", "the proxy failed", "proxy"),
    ("cannot connect to proxy", "the proxy could not be reached", "proxy"),
    ("tunnel connection failed", "the proxy refused the connection", "proxy"),
    ("407 proxy authentication", "the proxy asks for authentication", "proxy"),
    ("certificate verify failed", "the package index's TLS certificate was rejected", "network"),
    *((needle, "no network: the package index's name did not resolve", "network") for needle in (
        "name or service not known", "temporary failure in name resolution",
        "nodename nor servname", "getaddrinfo failed", "failed to resolve", "dns error",
    )),
    ("network is unreachable", "no network (network unreachable)", "network"),
    ("connection refused", "the package index refused the connection", "network"),
    ("failed to establish a new connection", "no connection to the package index", "network"),
    ("timed out", "the package index did not answer in time", "network"),
    ("ensurepip is not available", "python3 cannot make a virtual environment", "python"),
    ("no module named venv", "python3 cannot make a virtual environment", "python"),
    ("permission denied", "permission denied", "other"),
    # pip without retries says only this when it could not reach the index
    ("(from versions: none)", "the package index listed nothing: no network, or an index "
     "without these packages", "network"),
)
# fmt: on


class InstallFailed(Exception):
    """The environment could not be built; str() is the cause, one line; `kind` picks the fix."""

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(message)
        self.kind = kind


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def classify(output: str) -> tuple[str, str]:
    """(the reason an install failed, in words; its kind: network, proxy, disk, python, other),
    from pip's or uv's output."""
    lines = [line.strip() for line in (output or "").splitlines() if line.strip()]
    for needle, meaning, kind in CAUSES:
        if any(needle in line.lower() for line in lines):
            if kind in ("network", "proxy"):
                meaning = f"{meaning} ({package_index()})"
            return meaning, kind
    errors = [line for line in lines if line.startswith(("ERROR:", "error:"))]
    last = (errors or lines or ["no output"])[-1]
    if last.lower().startswith("error: "):  # (str.removeprefix is 3.9+: this runs on 3.8)
        last = last[len("error: ") :]
    return last[:200], "other"


def cause(output: str) -> str:
    """The reason an install failed, from pip's or uv's output, in words (classify())."""
    return classify(output)[0]


def package_index() -> str:
    """The package index the installer asks: the user's setting, else PyPI."""
    for name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_INDEX_URL"):
        if os.environ.get(name):
            return os.environ[name]
    return "https://pypi.org/simple"


def base_python() -> str | None:
    """An interpreter of at least MIN_PYTHON to build the venv with, or None."""
    if sys.version_info >= MIN_PYTHON:
        return sys.executable
    for name in NEWER_PYTHONS:
        found = shutil.which(name)
        if found:
            return found
    return None


def _too_old() -> str:
    have = ".".join(map(str, sys.version_info[:3]))
    want = ".".join(map(str, MIN_PYTHON))
    return (
        f"the math plugin needs Python {want} or newer, but python3 is {have} and none of "
        f"{', '.join(NEWER_PYTHONS)} nor uv is on PATH: install Python 3.12 (python.org, or "
        f"`brew install python@3.12` on macOS) or uv (https://docs.astral.sh/uv/), then start a "
        f"new session"
    )


def run_installer(venv: Path, requirements: Path, create: bool) -> None:
    """Make the venv (if `create`) and install `requirements` into it, with uv when on PATH."""
    uv = shutil.which("uv")
    base = base_python()
    if create and base is None and uv is None:
        raise InstallFailed(_too_old(), "stated")  # the message says what to install
    env = dict(os.environ)
    for name, value in INSTALLER_DEFAULTS.items():
        env.setdefault(name, value)
    env.pop("PYTHONHOME", None)
    python = str(venv_python(venv))
    if uv:
        interpreter = base or ">=" + ".".join(map(str, MIN_PYTHON))
        steps = [[uv, "pip", "install", "--quiet", "--python", python, "-r", str(requirements)]]
        if create:
            if (venv / "pyvenv.cfg").exists():  # uv venv keeps an existing one; start afresh
                shutil.rmtree(venv, ignore_errors=True)
            steps.insert(0, [uv, "venv", "--quiet", "--python", interpreter, str(venv)])
    else:
        # not --quiet: pip's warnings carry the cause (a refused connection, a proxy error)
        steps = [[python, "-m", "pip", "install", "-r", str(requirements)]]
        if create:
            steps.insert(0, [str(base), "-m", "venv", "--clear", str(venv)])
    for step in steps:
        try:
            subprocess.run(step, check=True, capture_output=True, text=True, env=env)
        except subprocess.CalledProcessError as exc:
            raise InstallFailed(*classify(f"{exc.stdout}\n{exc.stderr}")) from None
        except OSError as exc:
            raise InstallFailed(f"{step[0]} could not run ({exc})") from None

"""Make the pinned dependencies importable, installing them once into a private virtual environment.

Standard library only: this module runs before anything from requirements.txt can be imported.

Every script calls `ensure()` first. The fast path (dependencies already importable, as in the
plugin's own venv or a developer's) costs a few `find_spec` look-ups and no imports. Otherwise the
script re-executes itself inside `<data dir>/venv`, creating it and installing requirements.txt
first when the venv is missing or was built from a different requirements file.

The data dir is `$CLAUDE_PLUGIN_DATA` inside Claude Code (persistent across plugin updates), else
`$MATH_PLUGIN_DATA` (the SessionStart hook exports it for the Bash tool), else a per-user cache
folder (`$XDG_CACHE_HOME/math-plugin`, default `~/.cache/math-plugin`).

Run it directly (`python3 scripts/mathtools/bootstrap.py`) to prepare the environment ahead of
time; that is what hooks/hooks.json does at SessionStart.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shlex
import subprocess
import sys
from pathlib import Path

PLUGIN_ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS = PLUGIN_ROOT / "requirements.txt"
# The import names of what requirements.txt pins.
REQUIRED_MODULES = ("requests", "lxml", "yaml", "jsonschema", "filelock", "bibtexparser")
# Extra requirement sets (requirements-<name>.txt) that one feature installs on its first use, and
# the import names each provides.
EXTRAS = {"compute": ("sympy", "mpmath")}
EXIT_ENVIRONMENT = 4
_REEXEC_MARKER = "MATH_BOOTSTRAPPED"


def data_dir() -> Path:
    for var in ("CLAUDE_PLUGIN_DATA", "MATH_PLUGIN_DATA"):
        if os.environ.get(var):
            return Path(os.environ[var])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "math-plugin"


def venv_dir() -> Path:
    return data_dir() / "venv"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def requirements_digest(requirements: Path = REQUIREMENTS) -> str:
    return hashlib.sha256(requirements.read_bytes()).hexdigest()


def dependencies_importable() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in REQUIRED_MODULES)


def _fail(message: str) -> None:
    # One line, the same JSON shape as every other error the scripts print.
    import json

    print(json.dumps({"error": {"code": "environment", "message": message}}), flush=True)
    raise SystemExit(EXIT_ENVIRONMENT)


def prepare(venv: Path | None = None, quiet: bool = False) -> Path:
    """Create or refresh the venv when missing or stale; return its python. Concurrency-safe."""
    venv = venv or venv_dir()
    stamp = venv / ".requirements.sha256"
    return _install(venv, REQUIREMENTS, stamp, "Python dependencies", create=True, quiet=quiet)


def extra_python(name: str, venv: Path | None = None) -> Path:
    """A python that can import the extra requirement set `name` (see EXTRAS).

    This interpreter when it already can; else the plugin's venv, with requirements-<name>.txt
    installed into it on first use under its own stamp (a changed file reinstalls that set only).
    """
    if all(importlib.util.find_spec(module) is not None for module in EXTRAS[name]):
        return Path(sys.executable)
    venv = venv or venv_dir()
    prepare(venv)
    requirements = PLUGIN_ROOT / f"requirements-{name}.txt"
    stamp = venv / f".requirements-{name}.sha256"
    return _install(venv, requirements, stamp, f"{name} dependencies", create=False)


def _install(
    venv: Path, requirements: Path, stamp: Path, what: str, create: bool, quiet: bool = False
) -> Path:
    """pip-install `requirements` into `venv` (made afresh first if `create`) unless `stamp` says
    this very file is installed already; return the venv's python."""
    python = venv_python(venv)
    want = requirements_digest(requirements)
    if python.exists() and stamp.exists() and stamp.read_text().strip() == want:
        return python
    venv.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(venv.parent / "venv.lock"):
        # Another process may have finished the install while we waited for the lock.
        if python.exists() and stamp.exists() and stamp.read_text().strip() == want:
            return python
        if not quiet:
            print(
                f"math: installing the plugin's {what} into {venv} (once)...",
                file=sys.stderr,
                flush=True,
            )
        fix = f"python3 -m pip install -r {requirements}"
        try:
            if create:
                subprocess.run(
                    [sys.executable, "-m", "venv", "--clear", str(venv)],
                    check=True,
                    capture_output=True,
                )
            pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run(
                [*pip, "--requirement", str(requirements)],
                check=True,
                capture_output=True,
                text=True,
            )
        except subprocess.CalledProcessError as exc:
            reason = _last_line(exc.stderr) or f"exit status {exc.returncode}"
            _fail(
                f"could not install the plugin's {what} into {venv} ({reason}); "
                f"check the network and run again, or install them yourself: {fix}"
            )
        except OSError as exc:
            _fail(f"could not create the virtual environment {venv} ({exc}); run: {fix}")
        # Replaced in one step: a concurrent reader sees the old digest or the new, never a part.
        partial = stamp.with_name(f"{stamp.name}.{os.getpid()}.tmp")
        partial.write_text(want + "\n")
        os.replace(partial, stamp)
    return python


def ensure() -> None:
    """Return when the dependencies are importable; otherwise re-run this script in the venv."""
    if dependencies_importable():
        return
    if os.environ.get(_REEXEC_MARKER):
        _fail(
            f"the plugin's virtual environment at {venv_dir()} lacks its dependencies; "
            f"delete that folder and run again"
        )
    python = prepare()
    env = dict(os.environ, **{_REEXEC_MARKER: "1"})
    argv = [str(python), *sys.argv]
    if os.name == "nt":  # no exec on Windows: run and pass the status on
        raise SystemExit(subprocess.call(argv, env=env))
    os.execve(str(python), argv, env)


def _last_line(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


class _exclusive:
    """An exclusive lock on a file, across processes (stdlib only, POSIX; a no-op elsewhere)."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        self.handle = open(self.path, "a+")
        try:
            import fcntl

            fcntl.flock(self.handle, fcntl.LOCK_EX)
        except ImportError:
            pass
        return self

    def __exit__(self, *exc):
        self.handle.close()


def main() -> None:
    """SessionStart hook: export the data dir to later Bash tool calls, then prepare the venv.

    Claude Code (2.1.197, checked by tests/test_claude_harness.py) runs plugin SessionStart hooks
    in every mode, -p included, with CLAUDE_PLUGIN_DATA and CLAUDE_ENV_FILE set; the Bash tool
    gets neither variable but sources the exports written to CLAUDE_ENV_FILE. Exporting first
    means that if the install fails here, the scripts retry it in the same folder.
    """
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if env_file and os.environ.get("CLAUDE_PLUGIN_DATA"):
        with open(env_file, "a") as handle:
            handle.write(
                f"export MATH_PLUGIN_DATA={shlex.quote(os.environ['CLAUDE_PLUGIN_DATA'])}\n"
            )
    if not dependencies_importable():
        prepare(quiet=True)


if __name__ == "__main__":
    main()

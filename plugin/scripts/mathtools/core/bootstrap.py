"""Make the pinned dependencies importable, installing them once into a private virtual environment.

Standard library only, and Python 3.8 syntax: this module runs before anything from
requirements.txt can be imported, possibly under a `python3` older than the 3.10 the plugin needs
(macOS's own is 3.9), to say so or to pick a newer interpreter.

Every script calls `ensure()` first. The fast path (Python 3.10+ with the dependencies already
importable, as in the plugin's own venv or a developer's) costs a few `find_spec` look-ups and no
imports. Otherwise the script re-executes itself inside `<data dir>/venv`, creating it and
installing requirements.txt first when the venv is missing or was built from a different
requirements file.

The data dir is `$CLAUDE_PLUGIN_DATA` inside Claude Code (persistent across plugin updates), else
`$MATH_PLUGIN_DATA` (the SessionStart hook exports it for the Bash tool), else the data folder
Claude Code gives this copy of the plugin when it installed it (pluginhome.py: a command
typed at a terminal, or run in a session that installed the plugin and was not restarted, builds
the one venv the sessions use), else a per-user cache folder (`$XDG_CACHE_HOME/math-plugin`,
default `~/.cache/math-plugin`), which `installation.py install` names as one no session uses.

Bytecode: nothing may write into the plugin's folder (a clone's plugin/ is what `claude plugin
install` copies, CONTRIBUTING.md "Release"). Every script sets `sys.dont_write_bytecode` before
it imports the library; ensure() then points Python's bytecode at the per-user cache folder
(bytecode_dir()) unless PYTHONPYCACHEPREFIX chose a place (in a session, the data dir's
pycache_dir(), exported by the SessionStart hook), and lets Python write it there.

The install
-----------
- installer.py runs uv or pip, with the interpreter it picks, and reads why an install failed.
- One install at a time (a lock beside the venv). A script that needs the venv while another
  process installs it says so on stderr, and again every PROGRESS_EVERY seconds while it waits.
- A failed install leaves `install-failed.json` (the cause, read from pip's or uv's output:
  network, proxy, disk, ...; and the time) beside the venv. For RETRY_AFTER seconds every script
  call fails at once with that cause (exit 4, one JSON line) instead of trying again;
  `installation.py install` and the next session's hook try again at once. What is at that path
  is read only when it is a regular file of at most MAX_RECORD_BYTES (a FIFO there never blocks
  a script; a huge file is never read whole).

The commands the hooks run (export-env, install, report) are installation.py's.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from .installer import MIN_PYTHON, InstallFailed, run_installer, venv_python
from .pluginhome import installed_data_dir, recorded_text

# `typing` costs milliseconds at every script start, before the venv is known to be needed: the
# type checker alone reads these names (it takes any `TYPE_CHECKING` as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import TracebackType
    from typing import IO, NoReturn

PLUGIN_ROOT = Path(__file__).resolve().parents[3]
REQUIREMENTS = PLUGIN_ROOT / "requirements.txt"
# The import names of what requirements.txt pins (tests/test_dependencies.py holds them equal).
REQUIRED_MODULES = (
    "requests",
    "lxml",
    "yaml",
    "jsonschema",
    "filelock",
    "bibtexparser",
    "pylatexenc",
)
# Extra requirement sets (requirements-<name>.txt) that one feature installs on its first use, and
# the import names each provides.
EXTRAS = {"compute": ("sympy", "mpmath")}
EXIT_ENVIRONMENT = 4
# How long script calls take a failed install's word for it before trying again, in seconds.
RETRY_AFTER = 600
# A script waiting for the background install says so every PROGRESS_EVERY seconds.
PROGRESS_EVERY = 5
# The UserPromptSubmit hook waits at most this long for a running install to finish or fail, so
# that a failure is on screen at the first prompt: a loaded 2-core machine took 20 s for
# `python -m venv` alone, and pip then downloads and unpacks the requirements. Below the hook's
# `timeout` in hooks/hooks.json (tests/test_bootstrap.py holds them apart), itself below Claude
# Code's default of 600 s for a command hook.
REPORT_WAIT = 150
FAILURE_MARKER = "install-failed.json"
# The records this module writes are a few hundred bytes: anything over this is not one of them.
_REEXEC_MARKER = "MATH_BOOTSTRAPPED"
# Said once, with the install a script makes in a session that never ran the plugin's hooks.
RESTART_NOTE = (
    " restart Claude Code to finish installing math (its hooks, which pick each agent's model"
    " and report a failed install, start with a session)"
)
UV_INSTALL = "curl -LsSf https://astral.sh/uv/install.sh | sh"
# What a person runs to build the environment now (installation.py, beside this file).
INSTALLATION = Path(__file__).resolve().with_name("installation.py")


def data_dir() -> Path:
    """The plugin's data folder: the venv, the HTTP cache, the approvals (module doc)."""
    for var in ("CLAUDE_PLUGIN_DATA", "MATH_PLUGIN_DATA"):
        if os.environ.get(var):
            return Path(os.environ[var])
    return installed_data_dir(PLUGIN_ROOT) or user_cache_dir()


def user_cache_dir() -> Path:
    """The per-user cache folder: `$XDG_CACHE_HOME/math-plugin`, default `~/.cache/math-plugin`."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "math-plugin"


def install_again() -> str:
    """The command a person types to build this session's venv now: `installation.py install`,
    with MATH_PLUGIN_DATA when the command alone would find another data folder (a
    `--plugin-dir` session's, say)."""
    command = f"python3 {shlex.quote(str(INSTALLATION))} install"
    here = data_dir()
    if here == (installed_data_dir(PLUGIN_ROOT) or user_cache_dir()):
        return command
    return f"MATH_PLUGIN_DATA={shlex.quote(str(here))} {command}"


def venv_dir() -> Path:
    return data_dir() / "venv"


def pycache_dir() -> Path:
    """Where the scripts Claude Code runs keep Python's bytecode (PYTHONPYCACHEPREFIX, exported
    by installation.py export-env): the data dir, never the plugin's folder."""
    return data_dir() / "pycache"


def bytecode_dir() -> Path:
    """Where a script keeps Python's bytecode when PYTHONPYCACHEPREFIX chose no place (a
    terminal, the tests): the per-user cache folder, one for every run, never the plugin's."""
    return user_cache_dir() / "pycache"


def keep_bytecode_out() -> None:
    """Let Python write bytecode again, into PYTHONPYCACHEPREFIX or else bytecode_dir() (also for
    the venv's python ensure() runs the script in); the script turned writing off before it
    imported the library (module doc). `python3 -B` and PYTHONDONTWRITEBYTECODE still win."""
    if sys.pycache_prefix is None:
        sys.pycache_prefix = str(bytecode_dir())
        os.environ["PYTHONPYCACHEPREFIX"] = sys.pycache_prefix
    sys.dont_write_bytecode = bool(sys.flags.dont_write_bytecode)


def requirements_digest(requirements: Path = REQUIREMENTS) -> str:
    return hashlib.sha256(requirements.read_bytes()).hexdigest()


def dependencies_importable() -> bool:
    return sys.version_info >= MIN_PYTHON and all(
        importlib.util.find_spec(name) is not None for name in REQUIRED_MODULES
    )


def _error_line(message: str) -> str:
    return json.dumps({"error": {"code": "environment", "message": message}})


def fail(message: str) -> NoReturn:
    # One line, the same JSON shape as every other error the scripts print.
    print(_error_line(message), flush=True)
    raise SystemExit(EXIT_ENVIRONMENT)


# --------------------------------------------------------------------------- a failed install


def failure_marker(venv: Path) -> Path:
    return venv.parent / FAILURE_MARKER


def recent_failure(venv: Path, now: float | None = None) -> tuple[str, float] | None:
    """The failed install recorded beside `venv`, as (its message, its age in seconds), if it is
    younger than RETRY_AFTER; else None."""
    try:
        failure = json.loads(recorded_text(failure_marker(venv)) or "")
        age = (now or time.time()) - float(failure["time"])
        message = str(failure["error"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None  # none, or not one we wrote (nested 100,000 deep): try again
    return (message, age) if 0 <= age < RETRY_AFTER else None


def replace_record(path: Path, text: str) -> None:
    """Write `text` to `path` in one step: a temporary file beside it, renamed over it. A reader
    sees the old text or the new, never a part, and whatever was at the path (a FIFO, say) is
    replaced, never opened. Raises OSError."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def _record_failure(venv: Path, message: str) -> None:
    # a full disk may be the very cause: the error is reported all the same
    with contextlib.suppress(OSError):
        replace_record(failure_marker(venv), json.dumps({"error": message, "time": time.time()}))


def _failure_notice(message: str, age: float) -> str:
    minutes = max(1, round((RETRY_AFTER - age) / 60))
    return (
        f"{message} (this failed {round(age)} s ago; it is tried again in "
        f"{minutes} min or by the next session, or now with: {install_again()})"
    )


def fix(kind: str, again: str | None = None) -> str:
    """What the user can do about a failed install of `kind`, on Debian/Ubuntu and elsewhere;
    `again` is the command that tries again (default: this module's `install`)."""
    again = again or install_again()
    venv_module = "install the venv module (Debian/Ubuntu: sudo apt install python3-venv) or uv"
    return {
        "network": f"when the network is back, run: {again} (or start a new session)",
        "proxy": f"set HTTPS_PROXY (or PIP_INDEX_URL to a reachable index), then run: {again}",
        "disk": f"free some disk space, then run: {again}",
        "stated": "",  # the cause says what to install
        "python": f"{venv_module} ({UV_INSTALL}), then run: {again}",
    }.get(kind, f"run {again} to try again, or install uv ({UV_INSTALL}), which the plugin uses")


# ----------------------------------------------------------------------------------- the install


def prepare(venv: Path | None = None, quiet: bool = False, retry: bool = False) -> Path:
    """Create or refresh the venv when missing or stale; return its python. Concurrency-safe.

    Raises SystemExit (one JSON error line, exit 4) when the install fails, or failed less than
    RETRY_AFTER ago and `retry` is false.
    """
    try:
        return build(venv, quiet, retry)
    except InstallFailed as exc:
        fail(str(exc))


def build(venv: Path | None = None, quiet: bool = False, retry: bool = False) -> Path:
    """prepare(), raising InstallFailed (the whole message) instead of exiting."""
    venv = venv or venv_dir()
    stamp = venv / ".requirements.sha256"
    return _install(venv, REQUIREMENTS, stamp, "Python dependencies", True, quiet, retry)


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
    try:
        return _install(venv, requirements, stamp, f"{name} dependencies", create=False)
    except InstallFailed as exc:
        fail(str(exc))


def _ready(python: Path, stamp: Path, want: str) -> bool:
    try:
        return python.exists() and stamp.read_text().strip() == want
    except OSError:
        return False


def _install(
    venv: Path,
    requirements: Path,
    stamp: Path,
    what: str,
    create: bool,
    quiet: bool = False,
    retry: bool = False,
) -> Path:
    """Install `requirements` into `venv` (made afresh first if `create`) unless `stamp` says
    this very file is installed already; return the venv's python. Raises InstallFailed."""
    python = venv_python(venv)
    want = requirements_digest(requirements)
    if _ready(python, stamp, want):
        return python
    failure = None if retry else recent_failure(venv)
    if failure:
        raise InstallFailed(_failure_notice(*failure))
    venv.parent.mkdir(parents=True, exist_ok=True)
    with _VenvInstallLock(venv.parent / "venv.lock", None if quiet else what):
        # Another process may have finished (or failed) the install while we waited for the lock.
        if _ready(python, stamp, want):
            return python
        failure = None if retry else recent_failure(venv)
        if failure:
            raise InstallFailed(_failure_notice(*failure))
        if not quiet:
            note = RESTART_NOTE if installed_mid_session() else ""
            print(
                f"math: installing the plugin's {what} into {venv} (once)...{note}",
                file=sys.stderr,
                flush=True,
            )
        try:
            run_installer(venv, requirements, create)
        except InstallFailed as exc:
            # The main set: `installation.py install`; an extra set installs on its next use.
            remedy = fix(exc.kind, None if create else "the same command again")
            message = f"could not install the plugin's {what} into {venv}: {exc}"
            message += f"; {remedy}" if remedy else ""
            _record_failure(venv, message)
            raise InstallFailed(message) from None
        failure_marker(venv).unlink(missing_ok=True)
        replace_record(stamp, want + "\n")  # a concurrent reader sees the old digest or the new
    return python


def installed_mid_session() -> bool:
    """Does Claude Code's Bash tool run this script in a session started before the plugin was
    installed? Claude Code marks its Bash tool calls with CLAUDECODE; a session whose
    SessionStart hooks ran gives them MATH_PLUGIN_DATA (installation.py export-env). Such a
    session runs none of the plugin's hooks: the script installs into the data folder a restart
    finds (data_dir()), and says to restart."""
    return bool(os.environ.get("CLAUDECODE")) and not any(
        os.environ.get(var) for var in ("CLAUDE_PLUGIN_DATA", "MATH_PLUGIN_DATA")
    )


def ensure() -> None:
    """Return when the dependencies are importable; otherwise re-run this script in the venv.
    Either way Python's bytecode goes outside the plugin's folder (keep_bytecode_out())."""
    keep_bytecode_out()
    if dependencies_importable():
        return
    if os.environ.get(_REEXEC_MARKER):
        fail(
            f"the plugin's virtual environment at {venv_dir()} lacks its dependencies; "
            f"delete that folder and run again"
        )
    python = prepare()
    env = dict(os.environ, **{_REEXEC_MARKER: "1"})
    argv = [str(python), *sys.argv]
    if os.name == "nt":  # no exec on Windows: run and pass the status on
        raise SystemExit(subprocess.call(argv, env=env))
    os.execve(str(python), argv, env)


def _try_lock(handle: IO[str]) -> bool:
    import fcntl

    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def install_running(venv: Path) -> bool:
    """Does another process hold the install lock beside `venv` (POSIX; else False)?"""
    path = venv.parent / "venv.lock"
    if os.name != "posix" or not path.exists():
        return False
    with open(path, "a+") as handle:  # closing it releases the lock if this took it
        return not _try_lock(handle)


class _VenvInstallLock:
    """The lock that lets one process at a time install the plugin's virtual environment: an
    exclusive lock on `path`, across processes (stdlib only, POSIX; a no-op elsewhere).

    When another process holds it and `waiting_for` names what it installs, one progress line
    goes to stderr before waiting.
    """

    def __init__(self, path: Path, waiting_for: str | None = None) -> None:
        self.path = path
        self.waiting_for = waiting_for
        self.handle: IO[str]

    def __enter__(self) -> _VenvInstallLock:
        self.handle = open(self.path, "a+")
        try:
            import fcntl
        except ImportError:
            return self
        try:
            fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if self.waiting_for:
                print(
                    f"math: waiting for the plugin's {self.waiting_for}, being installed "
                    f"in the background (first use only)...",
                    file=sys.stderr,
                    flush=True,
                )
            started = time.monotonic()
            said = started
            while not _try_lock(self.handle):  # a line every PROGRESS_EVERY s while it waits
                time.sleep(0.2)
                if self.waiting_for and time.monotonic() - said >= PROGRESS_EVERY:
                    said = time.monotonic()
                    print(
                        f"math: still waiting for the background install "
                        f"({round(said - started)} s)...",
                        file=sys.stderr,
                        flush=True,
                    )
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.handle.close()

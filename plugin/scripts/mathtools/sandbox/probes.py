"""Which confinement this machine gives a snippet (run.py runs it under what there is): how its
writes are kept in its folder (filesystem_mode: Landlock, else a mount namespace, else nothing),
whether seccomp's filter works, whether it gets user, mount and PID namespaces of its own
(shielded), and so whether a run here needs the user's allowance. Each probe is tried once, in
a child process started by launch_command() (launcher.py)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from ..core import EnvironmentProblem, shown
from . import landlock, launcher, seccomp
from .namespaces import can_hide_files, mount_namespace_works, namespace_prefix, pid_namespace

# How the snippet's writes are kept in its folder, strongest first ("none": they are not).
FILESYSTEM_MODES = ("landlock", "mount-namespace", "none")
FILESYSTEM_VARIABLE = "MATH_SANDBOX_FILESYSTEM"  # forces one mode: for tests and diagnostics only


# Runs launcher.main with the arguments after SCRIPTS: `-I -S` leaves the library off sys.path;
# `-B`: `-I` ignores PYTHONPYCACHEPREFIX, and no bytecode may go into the plugin's folder.
LAUNCHER_BOOT = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); "
    "from mathtools.sandbox.launcher import main; sys.exit(main(sys.argv[1:]))"
)


def launch_command() -> list[str]:
    """The command that runs launcher.py's `[--writes FOLDER] [--seccomp] [--reap STATUS] --
    PROGRAM ARG...` on this interpreter (the snippet's may be any Python), isolated, no site."""
    scripts = Path(launcher.__file__).resolve().parents[2]
    return [sys.executable, "-I", "-S", "-B", "-c", LAUNCHER_BOOT, str(scripts)]


def _probe(kind: str) -> bool:
    """Whether launcher.py's probe of `kind` (landlock, seccomp) holds here: run in a child."""
    with (
        tempfile.TemporaryDirectory(prefix=f"math-{kind}-probe-") as folder,
        contextlib.suppress(OSError, subprocess.SubprocessError),
    ):
        command = [*launch_command(), "--probe", kind, folder]
        return subprocess.run(command, capture_output=True, timeout=10).returncode == 0
    return False


@lru_cache(maxsize=1)
def landlock_works() -> bool:
    """Whether Landlock keeps a process's writes in its folder here: tried once, in a child."""
    return landlock.abi_version() >= 1 and _probe("landlock")


@lru_cache(maxsize=1)
def seccomp_works() -> bool:
    """Whether seccomp.py's filter refuses what it should here: tried once, in a child."""
    return seccomp.machine() is not None and _probe("seccomp")


def filesystem_mode(namespaces: bool = True, forced: str | None = None) -> str:
    """How a snippet's writes are kept in its folder: the first of FILESYSTEM_MODES that works
    here ("mount-namespace" only with `namespaces`), or the one `forced`, else FILESYSTEM_VARIABLE,
    asks for; EnvironmentProblem when that one is unknown or does not work here."""
    works: dict[str, Callable[[], bool]] = {
        "landlock": landlock_works,
        "mount-namespace": lambda: namespaces and mount_namespace_works(),
        "none": lambda: True,
    }
    wanted = forced or os.environ.get(FILESYSTEM_VARIABLE) or "auto"
    if wanted == "auto":
        return next(mode for mode in FILESYSTEM_MODES if works[mode]())
    if wanted not in works:
        raise EnvironmentProblem(
            f"{FILESYSTEM_VARIABLE}={shown(wanted, 60)!r} must be auto or one of "
            f"{', '.join(FILESYSTEM_MODES)}",
            code="bad_environment",
        )
    if not works[wanted]():
        raise EnvironmentProblem(
            f"{FILESYSTEM_VARIABLE}={wanted}: not available on this machine", code="unconfined"
        )
    return wanted


def shielded() -> bool:
    """Whether snippets here get user, mount and PID namespaces of their own: the workspace's
    config hidden, no other process in /proc, every process ended with the snippet. Elsewhere
    a run needs the user's allowance (run's `allow_unsandboxed`)."""
    return can_hide_files() and pid_namespace()


def needs_allowance() -> bool:
    """Whether a run here needs the user's allowance: nothing confines the snippet's writes, or
    it gets no namespaces of its own (shielded)."""
    return filesystem_mode(bool(namespace_prefix())) == "none" or not shielded()
